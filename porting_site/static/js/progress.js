// Live progress: poll the run's progress JSON and update the bars until the
// run finishes, then reload once so the summary renders server-side.
(function () {
  const box = document.getElementById("progress");
  if (!box || box.dataset.finished === "1") return;
  const statusBadge = document.getElementById("run-status");
  const errorBox = document.getElementById("run-error");

  async function poll() {
    let data;
    try {
      const response = await fetch(box.dataset.url, { headers: { Accept: "application/json" } });
      if (!response.ok) throw new Error(response.status);
      data = await response.json();
    } catch (e) {
      setTimeout(poll, 3000);
      return;
    }
    for (const stage of data.stages) {
      const row = box.querySelector(`[data-stage="${stage.name}"]`);
      if (!row) continue;
      row.className = `stage ${stage.status}`;
      const bar = row.querySelector(".bar");
      bar.setAttribute("aria-valuenow", stage.percent);
      bar.firstElementChild.style.width = `${stage.percent}%`;
      row.querySelector(".count").textContent = `${stage.done}/${stage.total}`;
      row.querySelector(".status").textContent = stage.status;
      row.querySelector(".secs").textContent = stage.seconds == null ? "" : ` · ${stage.seconds.toFixed(1)} s`;
      const detail = row.querySelector(".detail");
      if (detail) detail.textContent = stage.detail || "";
    }
    const elapsed = document.getElementById("elapsed");
    if (elapsed && data.elapsed != null) elapsed.textContent = `${data.elapsed.toFixed(1)} s elapsed`;
    statusBadge.textContent = data.status;
    statusBadge.className = `badge st-${data.status}`;
    if (data.error) { errorBox.hidden = false; errorBox.textContent = data.error; }
    if (data.finished) { window.location.reload(); return; }
    setTimeout(poll, 1000);
  }
  poll();
})();

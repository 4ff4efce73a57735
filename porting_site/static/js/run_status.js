// The project page's runs table follows unfinished runs: each status badge polls
// its run's progress and changes when the run does; once one finishes, a link
// offers the refreshed figures (no automatic reload: the upload form may be in use).
(function () {
  const badges = document.querySelectorAll("[data-progress]");
  if (!badges.length) return;
  const labels = { queued: "Queued", running: "Running", done: "Done", failed: "Failed", cancelled: "Cancelled" };

  function announce() {
    if (document.getElementById("runs-changed")) return;
    const note = document.createElement("p");
    note.id = "runs-changed";
    note.className = "messages";
    note.setAttribute("role", "status");
    note.innerHTML = 'A run finished. <a href="">Show its figures</a>';
    document.getElementById("runs-h").after(note);
  }

  function follow(badge) {
    fetch(badge.dataset.progress, { headers: { Accept: "application/json" } })
      .then((r) => (r.ok ? r.json() : Promise.reject(r.status)))
      .then((data) => {
        badge.textContent = labels[data.status] || data.status;
        badge.className = `badge st-${data.status}`;
        if (data.finished) { announce(); return; }
        setTimeout(() => follow(badge), 3000);
      })
      .catch(() => setTimeout(() => follow(badge), 6000));
  }
  badges.forEach(follow);
})();

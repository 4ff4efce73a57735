// A queued knowledge-base re-check: ask the API until the worker has finished
// it, then reload once so the result renders server-side.
(function () {
  const note = document.getElementById("kb-pending");
  if (!note) return;
  const wanted = Number(note.dataset.recheck);

  async function poll() {
    try {
      const response = await fetch(note.dataset.url, { headers: { Accept: "application/json" } });
      if (response.ok) {
        const data = await response.json();
        if (!data.pending || data.pending.id !== wanted) { window.location.reload(); return; }
        const state = note.querySelector("strong");
        if (state) state.textContent = data.pending.status;
      }
    } catch (e) { /* network hiccup: try again */ }
    setTimeout(poll, 2000);
  }
  setTimeout(poll, 2000);
})();

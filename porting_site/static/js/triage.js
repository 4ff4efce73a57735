// The file page's "mark…" links open one shared form (a <dialog>) for that finding;
// without JavaScript they lead to the finding's own page, which has the same form.
(function () {
  const dialog = document.getElementById("triage-dialog");
  if (!dialog || typeof dialog.showModal !== "function") return;
  const form = document.getElementById("triage-form");
  document.addEventListener("click", function (event) {
    const link = event.target.closest("a.triage-open");
    if (!link) return;
    event.preventDefault();
    form.action = link.dataset.markUrl;
    form.elements.next.value = window.location.pathname + window.location.search + "#F" + link.dataset.finding;
    document.getElementById("triage-details").href = link.href;
    dialog.showModal();
    form.elements.action.focus();
  });
  document.getElementById("triage-cancel").addEventListener("click", function () { dialog.close(); });
})();

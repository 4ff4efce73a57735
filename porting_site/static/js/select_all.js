// The findings list's select-all box: ticks or clears every row of this page,
// and shows "some" (indeterminate) when only part of the rows are ticked.
(function () {
  const all = document.getElementById("select-all");
  if (!all) return;
  const boxes = () => Array.from(document.querySelectorAll('#bulk-form input[name="ids"]'));
  all.addEventListener("change", () => boxes().forEach((box) => { box.checked = all.checked; }));
  document.getElementById("bulk-form").addEventListener("change", (event) => {
    if (event.target.name !== "ids") return;
    const ticked = boxes().filter((box) => box.checked).length;
    all.checked = ticked > 0 && ticked === boxes().length;
    all.indeterminate = ticked > 0 && ticked < boxes().length;
  });
})();

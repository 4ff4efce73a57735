// Draw every <div class="plot" data-figure="ID"> from the JSON in <script id="ID">.
// A bar whose point carries a URL in customdata (a layer's source line) is a link.
(function () {
  if (!window.Plotly) return;
  for (const el of document.querySelectorAll(".plot[data-figure]")) {
    const source = document.getElementById(el.dataset.figure);
    if (!source) continue;
    const figure = JSON.parse(source.textContent);
    if (!figure) continue;
    Plotly.newPlot(el, figure.data, figure.layout, { responsive: true, displaylogo: false });
    el.on("plotly_click", (event) => {
      const point = event.points && event.points[0];
      if (point && typeof point.customdata === "string" && point.customdata) window.location = point.customdata;
    });
  }
})();

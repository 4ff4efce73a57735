// Draw every <div class="plot" data-figure="ID"> from the JSON in <script id="ID">.
// A bar whose point carries a URL in customdata (a layer's source line) is a link.
// Plots are drawn when they come near the viewport: the page shows its text at once
// and the CPU goes to the plots a reader is looking at (plotly's drawing is the slow part).
(function () {
  if (!window.Plotly) return;

  function draw(el) {
    const source = document.getElementById(el.dataset.figure);
    if (!source || el.dataset.drawn) return;
    const figure = JSON.parse(source.textContent);
    if (!figure) return;
    el.dataset.drawn = "1";
    Plotly.newPlot(el, figure.data, figure.layout, { responsive: true, displaylogo: false });
    el.on("plotly_click", (event) => {
      const point = event.points && event.points[0];
      if (point && typeof point.customdata === "string" && point.customdata) window.location = point.customdata;
    });
  }

  const plots = document.querySelectorAll(".plot[data-figure]");
  if (!("IntersectionObserver" in window)) { plots.forEach(draw); return; }
  const observer = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if (entry.isIntersecting) { observer.unobserve(entry.target); draw(entry.target); }
    }
  }, { rootMargin: "400px 0px" });
  plots.forEach((el) => observer.observe(el));
})();

/* EcoMap cluster pages: draws the server-built "deployed vs decided" map (the server is the only
   figure builder; this only hands the JSON to Plotly). */
(function () {
  "use strict";

  var figureEl = document.getElementById("cluster-map");
  var data = document.getElementById("cluster-map-figure");
  if (!figureEl || !data || !window.Plotly) { return; }
  var figure = JSON.parse(data.textContent);
  var layout = figure.layout || {};
  layout.autosize = true;
  // The server sizes the figure for the map page; here it fills the box the stylesheet gives.
  delete layout.width;
  layout.height = figureEl.clientHeight;
  // A phone-wide figure has no room for the legend (it would spill over the page below it);
  // the caption above the map says what the rings mean.
  if (figureEl.clientWidth < 600) { layout.showlegend = false; }
  window.Plotly.newPlot(figureEl, figure.data || [], layout, {
    responsive: true,
    displaylogo: false,
    scrollZoom: false,
    modeBarButtonsToRemove: ["select2d", "lasso2d", "autoScale2d"],
    toImageButtonOptions: { format: "png", filename: "ecomap-cluster", scale: 2 }
  });
})();

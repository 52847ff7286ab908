/* EcoMap capacity panel: draws the server-built figure (allocation and fragmentation curves per
   stack, side by side) and, while a run is queued or running, polls its status and reloads the
   page when it ends. The server is the only figure builder; this only hands the JSON to Plotly. */
(function () {
  "use strict";

  var panel = document.querySelector("[data-capacity-panel]");
  if (!panel) { return; }
  var target = panel.querySelector("[data-capacity-figure]");
  var data = target && document.getElementById(target.dataset.capacityFigure);
  if (target && data && window.Plotly) {
    var figure = JSON.parse(data.textContent);
    var layout = figure.layout || {};
    layout.autosize = true;
    window.Plotly.newPlot(target, figure.data || [], layout, {
      responsive: true,
      displaylogo: false,
      scrollZoom: false,
      modeBarButtonsToRemove: ["select2d", "lasso2d", "autoScale2d", "zoom2d", "pan2d"],
      toImageButtonOptions: { format: "png", filename: "ecomap-capacity", scale: 2 }
    });
  }

  var statusUrl = panel.dataset.statusUrl;
  if (!statusUrl) { return; }
  var bar = panel.querySelector("[role=progressbar]");
  var percent = panel.querySelector("[data-capacity-progress]");
  function poll() {
    fetch(statusUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) { return response.json(); })
      .then(function (state) {
        if (state.status === "pending" || state.status === "running") {
          if (bar) { bar.style.width = state.progress + "%"; bar.setAttribute("aria-valuenow", String(state.progress)); }
          if (percent) { percent.textContent = String(state.progress); }
          window.setTimeout(poll, 1000);
        } else {
          window.location.reload();
        }
      })
      .catch(function () { window.setTimeout(poll, 3000); });
  }
  window.setTimeout(poll, 1000);
})();

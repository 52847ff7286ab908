// The compatibility heatmap: draw it, open a pair on click, and reload when a snapshot finishes.
(function () {
  "use strict";
  var box = document.getElementById("matrix-figure");
  var data = document.getElementById("matrix-figure-data");
  if (box && data && window.Plotly) {
    var figure = JSON.parse(data.textContent);
    window.Plotly.newPlot(box, figure.data, figure.layout, {
      responsive: true, displaylogo: false,
      toImageButtonOptions: { format: "svg", filename: "ecomap-matrix" }
    }).then(function () {
      box.on("plotly_click", function (event) {
        var point = event.points && event.points[0];
        if (!point || point.z === null || point.x === point.y) { return; }
        var url = box.dataset.pairUrl + "?a=" + encodeURIComponent(point.y) + "&b=" + encodeURIComponent(point.x);
        window.location.assign(url);
      });
    });
  }
  var status = document.getElementById("matrix-status");
  if (status && status.dataset.computing === "1") {
    var poll = function () {
      fetch(status.dataset.statusUrl, { headers: { Accept: "application/json" } })
        .then(function (response) { return response.json(); })
        .then(function (body) {
          if (!body.computing) { window.location.reload(); return; }
          var bar = status.querySelector("progress");
          var text = status.querySelector(".progress-text");
          if (bar) { bar.value = body.progress; }
          if (text) { text.textContent = body.progress + "%"; }
          window.setTimeout(poll, 1000);
        })
        .catch(function () { window.setTimeout(poll, 3000); });
    };
    window.setTimeout(poll, 1000);
  }
})();

// The compatibility heatmap: draw it, open a pair on click, and reload when a snapshot finishes.
(function () {
  "use strict";
  var box = document.getElementById("matrix-figure");
  var data = document.getElementById("matrix-figure-data");

  // The cells arrive packed: one verdict byte per cell (base64), and with grouped axes six
  // little-endian uint32 pair counts per cell. z and the hover text are built here.
  function bytesOf(base64) {
    var binary = window.atob(base64);
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i += 1) { bytes[i] = binary.charCodeAt(i); }
    return bytes;
  }

  function heatmap(payload) {
    var ny = payload.y.keys.length, nx = payload.x.keys.length;
    var codes = bytesOf(payload.cells.codes);
    var counts = payload.cells.counts ? new DataView(bytesOf(payload.cells.counts).buffer) : null;
    var verdicts = payload.verdicts, k = verdicts.length;
    var z = [], text = [];
    for (var i = 0; i < ny; i += 1) {
      var zRow = [], textRow = [];
      for (var j = 0; j < nx; j += 1) {
        var code = codes[i * nx + j];
        var head = "<b>" + payload.y.labels[i] + "</b> × <b>" + payload.x.labels[j] + "</b>";
        if (code === payload.cells.none) { zRow.push(null); textRow.push(""); continue; }
        zRow.push(code);
        if (!counts) { textRow.push(head + "<br>" + verdicts[code]); continue; }
        var lines = [], total = 0;
        for (var v = 0; v < k; v += 1) {
          var n = counts.getUint32(((i * nx + j) * k + v) * 4, true);
          total += n;
          if (n) { lines.push(verdicts[v] + ": " + n); }
        }
        textRow.push(head + "<br>" + total + " " + payload.text.pairs + "<br>" + lines.join("<br>") +
          "<br><i>" + payload.text.drill + "</i>");
      }
      z.push(zRow);
      text.push(textRow);
    }
    return Object.assign({}, payload.trace, { z: z, text: text, x: positions(nx), y: positions(ny) });
  }

  function positions(n) {
    var out = [];
    for (var i = 0; i < n; i += 1) { out.push(i); }
    return out;
  }

  function drillUrl(payload, i, j) {
    var query = new URLSearchParams(window.location.search);
    query.set("y", payload.y.keys[i]);
    query.set("x", payload.x.keys[j]);
    query.delete("y_page");
    query.delete("x_page");
    return "?" + query.toString();
  }

  if (box && data && window.Plotly) {
    var payload = JSON.parse(data.textContent);
    // Cells sit at integer positions, labelled by ticks: two groups may share a name.
    var layout = Object.assign({}, payload.layout);
    layout.xaxis = Object.assign({}, layout.xaxis, {
      tickmode: "array", tickvals: positions(payload.x.labels.length), ticktext: payload.x.short || payload.x.labels
    });
    layout.yaxis = Object.assign({}, layout.yaxis, {
      tickmode: "array", tickvals: positions(payload.y.labels.length), ticktext: payload.y.ticks || payload.y.labels
    });
    if (payload.x.labels.length > 60) {
      // Too many columns for the page: give each a readable width and let the box scroll.
      layout.width = 14 * payload.x.labels.length + 420;
      layout.autosize = false;
    }
    window.Plotly.newPlot(box, [heatmap(payload)], layout, {
      responsive: true, displaylogo: false,
      toImageButtonOptions: { format: "svg", filename: "ecomap-matrix" }
    }).then(function () {
      window.ecomapMatrixRenderedAt = window.performance.now();
      box.setAttribute("data-rendered", "1");
      box.on("plotly_click", function (event) {
        var point = event.points && event.points[0];
        if (!point || point.z === null || point.z === undefined) { return; }
        var i = point.y, j = point.x;
        var yKey = payload.y.keys[i], xKey = payload.x.keys[j];
        if (yKey === xKey && yKey.indexOf("project:") === 0) {
          // A project's own cell expands it to its rows, in place.
          var query = new URLSearchParams(window.location.search);
          query.append("expand", yKey.slice(8));
          window.location.assign("?" + query.toString());
          return;
        }
        if (yKey.indexOf("row:") === 0 && xKey.indexOf("row:") === 0) {
          var ra = yKey.slice(4), rb = xKey.slice(4);
          if (ra === rb) { return; }
          window.location.assign(box.dataset.pairUrl + "?a=" + encodeURIComponent(ra) + "&b=" + encodeURIComponent(rb));
        } else if (payload.rows_only) {
          var a = payload.y.keys[i].slice(4), b = payload.x.keys[j].slice(4);
          if (a === b) { return; }
          window.location.assign(box.dataset.pairUrl + "?a=" + encodeURIComponent(a) + "&b=" + encodeURIComponent(b));
        } else {
          window.location.assign(drillUrl(payload, i, j));
        }
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

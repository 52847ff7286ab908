/* EcoMap three-layer map: draws the server-built figure, shows hover cards and the side panel,
   and re-fetches the figure when a filter changes (the server is the only figure builder). */
(function () {
  "use strict";

  var figureEl = document.getElementById("map-figure");
  if (!figureEl || !window.Plotly) { return; }

  var config = JSON.parse(document.getElementById("map-config").textContent);
  var payload = JSON.parse(document.getElementById("map-payload").textContent);
  var i18n = document.getElementById("map-i18n").dataset;
  var hovercard = document.getElementById("map-hovercard");
  var panel = document.getElementById("map-panel");
  var form = document.getElementById("map-filters");
  var status = document.getElementById("map-status");
  var embedLink = document.getElementById("map-embed-link");
  var isEmbed = document.body.classList.contains("map-embed");
  var tableBody = document.getElementById("map-table-body");
  var csvLink = document.getElementById("map-download-csv");
  // On a phone the figure is not drawn at all: the table below is the map (map.css).
  var narrow = window.matchMedia("(max-width: 640px)");
  var requestSeq = 0;
  var listening = false;
  var drawn = false;
  var panelOpener = null;

  var plotConfig = {
    responsive: true,
    displaylogo: false,
    scrollZoom: true,
    modeBarButtonsToRemove: ["select2d", "lasso2d", "autoScale2d"],
    toImageButtonOptions: { format: "png", filename: "ecomap-map", scale: 2 }
  };

  function format(template, values) {
    return template.replace(/\{(\w+)\}/g, function (_, key) { return String(values[key]); });
  }

  function updateStatus() {
    if (!status) { return; }
    var parts = [payload.overview
      ? format(i18n.counted, { count: payload.counted.toLocaleString(), total: payload.total.toLocaleString() })
      : format(i18n.shown, { shown: payload.shown, total: payload.total })];
    if (payload.highlighted) { parts.push(format(i18n.highlighted, { count: payload.highlighted })); }
    if (payload.hidden_edges) { parts.push(format(i18n.hiddenEdges, { count: payload.hidden_edges })); }
    status.textContent = parts.join(" · ");
  }

  function draw() {
    if (narrow.matches && !isEmbed) {
      figureEl.dataset.nodeCount = String(payload.shown);
      updateStatus();
      return Promise.resolve();
    }
    drawn = true;
    var figure = payload.figure;
    if (!window.ecomapMapRenderedAt) { window.ecomapMapDrawStartedAt = performance.now(); }
    if (isEmbed) {
      // The embed fills its frame rather than the page's labelled height.
      figure.layout.height = Math.max(360, window.innerHeight - 34);
    }
    // Plotly's resize takes the height from the container, so the container holds the figure's.
    figureEl.style.height = figure.layout.height + "px";
    return Plotly.react(figureEl, figure.data, figure.layout, plotConfig).then(function () {
      figureEl.dataset.nodeCount = String(payload.shown);
      if (!window.ecomapMapRenderedAt) { window.ecomapMapRenderedAt = performance.now(); }
      updateStatus();
      if (!listening) { listen(); }
      window.dispatchEvent(new CustomEvent("ecomap:map-rendered", { detail: { shown: payload.shown } }));
    });
  }

  function nodePoint(event) {
    var point = event && event.points && event.points[0];
    return point && point.data.uid === "nodes" ? point.pointIndex : null;
  }

  function addField(list, label, value) {
    if (!value) { return; }
    var dt = document.createElement("dt");
    dt.textContent = label;
    var dd = document.createElement("dd");
    dd.textContent = value;
    list.append(dt, dd);
  }

  function showCard(index, mouse) {
    var nodes = payload.nodes;
    hovercard.replaceChildren();
    hovercard.className = "map-hovercard layer-" + nodes.layer_key[index];
    var head = document.createElement("div");
    head.className = "map-hovercard-head";
    var badge = document.createElement("span");
    badge.className = "badge layer-" + nodes.layer_key[index];
    badge.textContent = nodes.layer[index];
    var title = document.createElement("strong");
    title.textContent = nodes.title[index];
    var ref = document.createElement("code");
    ref.className = "muted";
    ref.textContent = nodes.id[index];
    head.append(badge, title, ref);
    var fields = document.createElement("dl");
    if (nodes.pool && nodes.pool[index]) { addField(fields, i18n.pool, nodes.pool[index]); }
    addField(fields, i18n.unit, nodes.units[index].join(", "));
    addField(fields, i18n.point, nodes.points[index].join(", "));
    if (nodes.functions) addField(fields, i18n.functions, nodes.functions[index].join(", "));
    addField(fields, i18n.promise, nodes.promise[index]);
    addField(fields, i18n.nonPromise, nodes.non_promise[index] || "—");
    var hint = document.createElement("p");
    hint.className = "muted map-hovercard-hint";
    hint.textContent = i18n.click;
    hovercard.append(head, fields, hint);
    hovercard.hidden = false;
    placeCard(mouse);
  }

  function placeCard(mouse) {
    if (!mouse) { return; }
    var stage = hovercard.parentElement.getBoundingClientRect();
    var left = mouse.clientX - stage.left + 16;
    var top = mouse.clientY - stage.top + 16;
    if (left + hovercard.offsetWidth > stage.width) { left = Math.max(4, mouse.clientX - stage.left - hovercard.offsetWidth - 16); }
    if (top + hovercard.offsetHeight > stage.height) { top = Math.max(4, mouse.clientY - stage.top - hovercard.offsetHeight - 16); }
    hovercard.style.left = left + "px";
    hovercard.style.top = top + "px";
  }

  function hideCard() { hovercard.hidden = true; }

  function openProject(slug, rowId, opener) {
    if (!panel) {
      // The embed has no room for a panel: the project page opens beside the wiki.
      window.open(config.projectUrl.replace("__slug__", slug), "_blank", "noopener");
      return;
    }
    var body = panel.querySelector(".map-panel-body");
    body.textContent = i18n.loading;
    panelOpener = opener || null;
    setPanel(true);
    var url = config.cardUrl.replace("__slug__", slug) + (rowId ? "?row=" + encodeURIComponent(rowId) : "");
    fetch(url, { credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) { throw new Error(response.status); }
        return response.text();
      })
      .then(function (html) {
        body.innerHTML = html;  // server-rendered, escaped by Django
        var heading = body.querySelector("h2");
        // Opened from the keyboard (the table): reading goes on in the card.
        if (heading && panelOpener) { heading.focus(); }
      })
      .catch(function () { body.textContent = i18n.failed; });
  }

  function setPanel(open) {
    panel.hidden = !open;
    // The panel takes a grid column from the figure; Plotly only follows window resizes.
    if (drawn) { Plotly.Plots.resize(figureEl); }
    if (!open && panelOpener) { panelOpener.focus(); panelOpener = null; }
  }

  function listen() {
    listening = true;
    figureEl.on("plotly_hover", function (event) {
      var index = nodePoint(event);
      if (index !== null) { showCard(index, event.event); }
    });
    figureEl.on("plotly_unhover", hideCard);
    figureEl.on("plotly_click", function (event) {
      var point = event && event.points && event.points[0];
      if (point && point.data.uid === "overview") {
        // A bubble of a catalog too big to draw: its layer and unit's rows, drawn anew.
        window.location.assign(window.location.pathname + "?" + point.customdata);
        return;
      }
      var index = nodePoint(event);
      if (index !== null) { hideCard(); openProject(payload.nodes.project[index], payload.nodes.id[index]); }
    });
  }

  function query() {
    var params = new URLSearchParams();
    new FormData(form).forEach(function (value, key) { if (String(value).trim()) { params.append(key, value); } });
    return params.toString();
  }

  function refresh() {
    var qs = query();
    var seq = ++requestSeq;
    figureEl.setAttribute("aria-busy", "true");
    fetch(config.dataUrl + (qs ? "?" + qs : ""), { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) {
        if (!response.ok) { throw new Error(response.status); }
        return response.json();
      })
      .then(function (data) {
        if (seq !== requestSeq) { return null; }  // a later filter change already answered
        payload = data;
        hideCard();
        history.replaceState(null, "", window.location.pathname + (qs ? "?" + qs : ""));
        if (embedLink) { embedLink.href = embedLink.href.split("?")[0] + (qs ? "?" + qs : ""); }
        if (csvLink) { csvLink.href = config.csvUrl + (qs ? "?" + qs : ""); }
        refreshTable(qs, seq);
        return draw();
      })
      .catch(function () { if (status) { status.textContent = i18n.failed; } })
      .finally(function () { if (seq === requestSeq) { figureEl.removeAttribute("aria-busy"); } });
  }

  function refreshTable(qs, seq) {
    if (!tableBody) { return; }
    fetch(config.tableUrl + (qs ? "?" + qs : ""), { credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) { throw new Error(response.status); }
        return response.text();
      })
      .then(function (html) {
        if (seq === requestSeq) { tableBody.innerHTML = html; }  // server-rendered, escaped by Django
      })
      .catch(function () { if (status) { status.textContent = i18n.failed; } });
  }

  function setView(name) {
    document.body.classList.toggle("map-table-only", name === "table");
    document.querySelectorAll("[data-map-view]").forEach(function (button) {
      button.setAttribute("aria-pressed", String(button.dataset.mapView === name));
    });
    if (name === "figure" && drawn) { Plotly.Plots.resize(figureEl); }
    if (name === "figure" && !drawn) { draw(); }
  }

  function download(formatName) {
    Plotly.downloadImage(figureEl, {
      format: formatName,
      filename: "ecomap-map",
      width: figureEl.clientWidth,
      height: figureEl.clientHeight,
      scale: formatName === "png" ? 2 : 1
    });
  }

  if (form) {
    var typing = null;
    form.addEventListener("change", function (event) {
      // Past the rows a map draws at once (payload.large) every filter chooses between counts
      // and drawn rows, and the page says which: it is drawn anew.
      if (event.target.hasAttribute("data-map-focus") || payload.large) {
        // A focus lays the map out again on its own rows: the page is drawn anew.
        var qs = query();
        window.location.assign(window.location.pathname + (qs ? "?" + qs : ""));
        return;
      }
      if (event.target.name !== "q") { refresh(); }
    });
    form.addEventListener("input", function (event) {
      if (event.target.name !== "q" || payload.large) { return; }
      clearTimeout(typing);
      typing = setTimeout(refresh, 300);
    });
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      clearTimeout(typing);
      if (payload.large) {
        var qs = query();
        window.location.assign(window.location.pathname + (qs ? "?" + qs : ""));
        return;
      }
      refresh();
    });
  }
  document.querySelectorAll("[data-map-clear-stack]").forEach(function (link) {
    link.addEventListener("click", function (event) {
      event.preventDefault();
      var field = form && form.querySelector("input[name=stack]");
      if (field) { field.remove(); }
      link.closest(".map-stack").remove();
      refresh();
    });
  });
  if (panel) {
    panel.querySelector("[data-map-close]").addEventListener("click", function () { setPanel(false); });
    document.addEventListener("keydown", function (event) { if (event.key === "Escape" && !panel.hidden) { setPanel(false); } });
  }
  var svgButton = document.getElementById("map-download-svg");
  if (svgButton) { svgButton.addEventListener("click", function () { download("svg"); }); }
  var pngButton = document.getElementById("map-download-png");
  if (pngButton) { pngButton.addEventListener("click", function () { download("png"); }); }
  if (isEmbed) { figureEl.classList.add("map-figure-embed"); }
  if (tableBody) {
    tableBody.addEventListener("click", function (event) {
      var link = event.target.closest("[data-map-card]");
      if (!link || narrow.matches || event.ctrlKey || event.metaKey || event.shiftKey) { return; }
      event.preventDefault();
      openProject(link.dataset.mapCard, link.dataset.mapRow, link);
    });
  }
  document.querySelectorAll("[data-map-view]").forEach(function (button) {
    button.addEventListener("click", function () { setView(button.dataset.mapView); });
  });
  narrow.addEventListener("change", function () { if (!narrow.matches && !drawn) { draw(); } });

  draw();
})();

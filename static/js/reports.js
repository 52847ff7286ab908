/* The evaluation page's report panel: asks for a build, polls its status, shows the download.
   Without JS the button still posts and the page reloads with the panel as it stands. */
(function () {
  "use strict";

  var panel = document.querySelector("[data-report-panel]");
  if (!panel) return;
  var form = panel.querySelector("[data-report-form]");
  var ready = panel.querySelector("[data-report-ready]");
  var progress = panel.querySelector("[data-report-progress]");
  var bar = progress.querySelector("[role=progressbar]");
  var statusText = panel.querySelector("[data-report-status]");
  var errorBox = panel.querySelector("[data-report-error]");
  var none = panel.querySelector("[data-report-none]");
  var POLL_MS = 1000;

  function show(report) {
    var running = report.status === "pending" || report.status === "running";
    var percent = Math.max(0, Math.min(100, report.progress || 0));
    progress.hidden = !running;
    bar.style.width = percent + "%";
    bar.setAttribute("aria-valuenow", String(percent));
    statusText.textContent = report.status_label + " · " + percent + " %";
    if (none) none.hidden = true;
    if (form) form.querySelector("button").disabled = running;
    errorBox.hidden = report.status !== "failed";
    if (report.status === "failed") {
      errorBox.querySelector("[data-report-error-text]").textContent = report.error || "";
    }
    if (report.status === "succeeded") {
      ready.hidden = false;
      ready.querySelector("[data-report-download]").href = report.download_url;
      ready.querySelector("[data-report-meta]").textContent =
        (report.pages || 0) + " " + (panel.dataset.pagesLabel || "pages") + " · " +
        (report.seconds || 0).toFixed(1) + " s";
      ready.querySelector("[data-report-stale]").hidden = !report.stale;
      ready.querySelector("[data-report-contents]").textContent = "· " + (report.with_cards
        ? panel.dataset.withCardsLabel : panel.dataset.withoutCardsLabel);
    }
    return running;
  }

  function poll(url) {
    fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) { return response.json(); })
      .then(function (report) {
        if (show(report)) window.setTimeout(function () { poll(url); }, POLL_MS);
      })
      .catch(function () { window.setTimeout(function () { poll(url); }, POLL_MS * 3); });
  }

  if (form) {
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var token = form.querySelector("[name=csrfmiddlewaretoken]").value;
      fetch(form.action, {
        method: "POST",
        headers: { Accept: "application/json", "X-CSRFToken": token },
        credentials: "same-origin",
      })
        .then(function (response) {
          return response.json().then(function (body) { return { ok: response.ok, body: body }; });
        })
        .then(function (answer) {
          if (!answer.ok) {
            errorBox.hidden = false;
            errorBox.querySelector("[data-report-error-text]").textContent = answer.body.detail || "";
            return;
          }
          if (show(answer.body)) poll(answer.body.status_url);
        })
        .catch(function () { form.submit(); });
    });
  }

  if (panel.dataset.statusUrl) poll(panel.dataset.statusUrl);
})();

/* Follows a queued import: polls its API resource, moves the progress bar, reloads when done. */
(function () {
  "use strict";

  var box = document.querySelector("[data-import-progress]");
  if (!box) return;

  var url = box.getAttribute("data-url");
  var bar = box.querySelector(".progress-bar");
  var meter = box.querySelector("[role=progressbar]");
  var doneEl = box.querySelector("[data-done]");
  var totalEl = box.querySelector("[data-total]");
  var percentEl = box.querySelector("[data-percent]");
  var label = document.querySelector("[data-status-label]");
  var delay = 1000;
  var MAX_DELAY = 10000;

  function finished(status) {
    return status === "succeeded" || status === "failed";
  }

  function show(job) {
    var progress = job.progress || {};
    var percent = Math.max(0, Math.min(100, progress.percent || 0));
    bar.style.width = percent + "%";
    bar.className = "progress-bar progress-" + job.status;
    meter.setAttribute("aria-valuenow", String(percent));
    doneEl.textContent = String(progress.done || 0);
    totalEl.textContent = String(progress.total || 0);
    percentEl.textContent = String(percent);
    var text = box.getAttribute("data-" + job.status);
    if (label && text) {
      label.textContent = text;
      label.className = "status status-" + job.status;
    }
  }

  function poll() {
    fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.json();
      })
      .then(function (job) {
        show(job);
        if (finished(job.status)) {
          // The page renders the counts, errors and changes; let it do so.
          window.location.reload();
          return;
        }
        delay = 1000;
        window.setTimeout(poll, delay);
      })
      .catch(function () {
        delay = Math.min(delay * 2, MAX_DELAY);  // back off while the server is unreachable
        window.setTimeout(poll, delay);
      });
  }

  if (!finished(box.getAttribute("data-status"))) {
    window.setTimeout(poll, delay);
  }
})();

/* Step 3 without reloads: the catalog is searched as you type, and a candidate is added or removed
   in the background. Each write carries the revision the page holds (a stale one answers 409) and
   the answer brings the new revision and the server-rendered fragments the no-JS page shows.
   Catalog text only ever reaches the page through textContent or server-escaped fragments. */
(function () {
  "use strict";

  var root = document.querySelector("[data-candidates-page]");
  if (!root) return;
  var labels = root.dataset;
  var stepForm = root.querySelector("form.step-form");
  var revisionInput = stepForm && stepForm.querySelector("[data-revision]");
  var csrfInput = document.querySelector("input[name=csrfmiddlewaretoken]");
  var tbody = root.querySelector("[data-candidates]");
  var box = root.querySelector("[data-candidates-box]");
  var empty = root.querySelector("[data-candidates-empty]");
  var status = root.querySelector("[data-candidates-status]");
  var searchForm = root.querySelector("[data-search-form]");
  var searchInput = searchForm && searchForm.querySelector("input[name=q]");
  var results = root.querySelector("[data-search-results]");
  var searchStatus = root.querySelector("[data-search-status]");
  var LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function fill(template, name) {
    return (template || "").replace("{name}", name);
  }

  function say(message, state) {
    if (!status) return;
    status.textContent = message || "";
    status.dataset.state = state || "";
  }

  // Server-rendered, autoescaped fragments (the same partials the page renders without JS).
  function fragment(html) {
    var template = document.createElement("template");
    template.innerHTML = html;
    return template.content;
  }

  function post(url, fields) {
    var body = new FormData();
    Object.keys(fields).forEach(function (name) { body.set(name, fields[name]); });
    body.set("revision", revisionInput ? revisionInput.value : "");
    return fetch(url, {
      method: "POST",
      body: body,
      credentials: "same-origin",
      headers: { "X-CSRFToken": csrfInput ? csrfInput.value : "", "X-Requested-With": "fetch" },
    }).then(function (response) {
      return response.json().then(function (data) {
        return { ok: response.ok, status: response.status, data: data };
      });
    });
  }

  // Said where the click was (a result or a suggestion) and above the candidates.
  function refused(message, near) {
    say(message, "error");
    var holder = near && near.closest("[data-result], [data-suggestion]");
    if (!holder) return;
    var line = holder.querySelector(".inline-error") || el("p", "inline-error");
    line.textContent = message;
    line.setAttribute("role", "alert");
    holder.appendChild(line);
  }

  function refusal(result) {
    var message = result.data.detail || labels.labelOffline;
    return result.status === 409 ? message + " " + labels.labelReload : message;
  }

  // After an add or a remove: the revision every later save is made on, the step's state,
  // the suggestions without the rows now chosen, and the search's "added" marks.
  function written(data) {
    if (revisionInput && data.revision !== undefined) revisionInput.value = data.revision;
    var current = document.querySelector(".eval-progress-step.is-current");
    if (current) current.classList.toggle("is-done", !!data.done);
    var hasRows = tbody && tbody.querySelector("tr[data-candidate]");
    if (box) box.hidden = !hasRows;
    if (empty) empty.hidden = !!hasRows;
    var panel = root.querySelector("[data-suggestions]");
    if (panel && data.suggestions) panel.replaceWith(fragment(data.suggestions));
    if (searchInput && searchInput.value.trim()) search(true);
  }

  // ---------------------------------------------------------------------------------------
  // Alternatives groups: none, the groups in use, the next free letter, or a name of one's own.

  function groupSelects() {
    return Array.prototype.slice.call(root.querySelectorAll("select[data-group-select]"));
  }

  function rebuildGroups() {
    var named = labels.groupNamedValue;
    var used = [];
    groupSelects().forEach(function (select) {
      if (select.value && select.value !== named && used.indexOf(select.value) < 0) {
        used.push(select.value);
      }
    });
    used.sort();
    var letter = LETTERS.split("").filter(function (l) { return used.indexOf(l) < 0; })[0];
    groupSelects().forEach(function (select) {
      var value = select.value;
      select.textContent = "";
      select.appendChild(new Option(labels.groupNone, ""));
      used.forEach(function (name) { select.appendChild(new Option(fill(labels.groupUsed, name), name)); });
      if (letter) select.appendChild(new Option(fill(labels.groupNew, letter), letter));
      select.appendChild(new Option(labels.groupNamed, named));
      select.value = value;
    });
  }

  function nameGroup(input) {
    var select = input.closest(".group-control").querySelector("select[data-group-select]");
    var name = input.value.trim();
    if (!name || !select) return;
    select.appendChild(new Option(name, name));
    select.value = name;
    input.value = "";
    rebuildGroups();
  }

  if (stepForm) {
    stepForm.addEventListener("change", function (event) {
      var target = event.target;
      if (target.matches("select[data-group-select]")) {
        rebuildGroups();
        if (target.value === labels.groupNamedValue) {
          var input = target.closest(".group-control").querySelector("[data-group-name]");
          if (input) input.focus();
        }
      } else if (target.matches("[data-group-name]")) {
        nameGroup(target); // before the autosave reads the form: it saves the name itself
      }
    });
    // Enter in a group's name names it; it does not submit the whole step.
    stepForm.addEventListener("keydown", function (event) {
      if (event.key === "Enter" && event.target.matches("[data-group-name]")) {
        event.preventDefault();
        event.target.blur();
      }
    });
  }

  // ---------------------------------------------------------------------------------------
  // Add (search results and suggestions) and remove

  function markResult(ref, added) {
    if (!results) return;
    results.querySelectorAll("[data-result]").forEach(function (item) {
      if (item.dataset.result !== ref) return;
      var form = item.querySelector("form.add-form");
      if (added && form) form.replaceWith(el("span", "chip", labels.labelAdded));
    });
  }

  // A candidate's row takes focus on its first cell (named for screen readers by its text).
  function focusRow(row) {
    if (!row) return;
    var cell = row.querySelector("td");
    if (!cell) return;
    cell.setAttribute("tabindex", "-1");
    cell.focus();
  }

  function add(form, button) {
    var ref = button.value;
    button.disabled = true;
    say(labels.labelAdding, "saving");
    post(labels.addUrl, { row: ref })
      .then(function (result) {
        if (!result.ok) {
          button.disabled = false;
          refused(refusal(result), form);
          return;
        }
        var selector = 'tr[data-candidate-id="' + result.data.candidate + '"]';
        if (!tbody.querySelector(selector)) tbody.appendChild(fragment(result.data.html));
        markResult(ref, true);
        rebuildGroups();
        written(result.data);
        say(fill(labels.labelAddedRow, ref), "saved");
        // The button pressed is gone (replaced by "added"): keyboard focus goes to the new
        // candidate, not to <body>.
        focusRow(tbody.querySelector(selector));
      })
      .catch(function () {
        button.disabled = false;
        refused(labels.labelOffline, form);
      });
  }

  function remove(button) {
    var row = button.closest("tr[data-candidate]");
    button.disabled = true;
    say(labels.labelRemoving, "saving");
    post(button.dataset.removeUrl, {})
      .then(function (result) {
        if (!result.ok) {
          button.disabled = false;
          refused(refusal(result));
          return;
        }
        var ref = row.dataset.candidate;
        var next = row.nextElementSibling || row.previousElementSibling;
        row.remove();
        rebuildGroups();
        written(result.data);
        say(fill(labels.labelRemovedRow, ref), "saved");
        if (next && next.matches("tr[data-candidate]")) focusRow(next);
        else if (searchInput) searchInput.focus();
      })
      .catch(function () {
        button.disabled = false;
        say(labels.labelOffline, "error");
      });
  }

  root.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches("form.add-form")) return;
    event.preventDefault();
    var button = event.submitter || form.querySelector("button[name=add]");
    if (button && !button.disabled) add(form, button);
  });

  if (stepForm) {
    stepForm.addEventListener("click", function (event) {
      var button = event.target.closest("button[name=remove][data-remove-url]");
      if (!button) return;
      event.preventDefault();
      if (!button.disabled) remove(button);
    });
  }

  // ---------------------------------------------------------------------------------------
  // Search as you type

  function addForm(ref) {
    var form = el("form", "add-form");
    form.method = "post";
    form.action = labels.stepUrl;
    var button = el("button", "btn btn-small", "+ " + labels.labelAdd);
    button.type = "submit";
    button.name = "add";
    button.value = ref;
    button.setAttribute("aria-label", labels.labelAdd + " " + ref);
    form.appendChild(button);
    return form;
  }

  function resultItem(item) {
    var li = el("li", "candidate-result");
    li.dataset.result = item.ref;
    li.appendChild(el("span", "badge layer-" + item.layer, item.layer_label));
    var text = el("span", "result-text");
    var name = el("span", "result-name");
    name.appendChild(el("strong", "", item.project));
    name.appendChild(document.createTextNode(" "));
    name.appendChild(el("span", "muted", item.component));
    text.appendChild(name);
    text.appendChild(document.createTextNode(" "));
    text.appendChild(el("code", "muted result-ref", item.ref));
    text.appendChild(document.createTextNode(" "));
    var facts = el("span", "result-facts");
    item.units.forEach(function (unit) { facts.appendChild(el("span", "pill", unit)); });
    if (item.functions.length) facts.appendChild(el("span", "muted small", item.functions.join(", ")));
    text.appendChild(facts);
    li.appendChild(text);
    li.appendChild(item.added ? el("span", "chip", labels.labelAdded) : addForm(item.ref));
    return li;
  }

  var searched = searchInput ? searchInput.value.trim() : "";
  var ticket = 0;

  function search(force) {
    if (!searchInput || !results) return;
    var query = searchInput.value.trim();
    if (query === searched && !force) return;
    searched = query;
    var url = new URL(window.location.href);
    if (query) url.searchParams.set("q", query); else url.searchParams.delete("q");
    window.history.replaceState(null, "", url.pathname + url.search);
    var mine = ++ticket;
    if (!query) {
      results.textContent = "";
      searchStatus.textContent = "";
      return;
    }
    searchStatus.textContent = labels.labelSearching;
    fetch(labels.searchUrl + "?q=" + encodeURIComponent(query), {
      credentials: "same-origin",
      headers: { "X-Requested-With": "fetch" },
    })
      .then(function (response) { return response.json(); })
      .then(function (data) {
        if (mine !== ticket) return; // a later keystroke's answer wins
        results.textContent = "";
        data.results.forEach(function (item) { results.appendChild(resultItem(item)); });
        searchStatus.textContent = !data.results.length ? labels.labelNothing
          : data.more ? labels.labelMore : "";
      })
      .catch(function () {
        if (mine === ticket) searchStatus.textContent = labels.labelOffline;
      });
  }

  if (searchForm && searchInput) {
    var timer = null;
    searchInput.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () { search(false); }, 250);
    });
    searchForm.addEventListener("submit", function (event) {
      event.preventDefault();
      clearTimeout(timer);
      search(true);
    });
  }

  root.dataset.ready = "1"; // tests wait for the script, not for a timeout
})();

/* Evaluation steps save as they are filled: a change posts the form in the background and the
   answer (saved, or the fields to correct) is shown in place. The buttons still work without JS. */
(function () {
  "use strict";

  function statusOf(form) {
    return form.querySelector("[data-autosave-status]");
  }

  function clearErrors(form) {
    form.querySelectorAll("[data-errors-for]").forEach(function (list) {
      list.textContent = "";
    });
    form.querySelectorAll(".has-error").forEach(function (el) {
      el.classList.remove("has-error");
    });
    form.querySelectorAll("[aria-invalid]").forEach(function (el) {
      el.removeAttribute("aria-invalid");
    });
  }

  // The control itself is marked too (as Django marks it on a page with errors).
  function markInvalid(form, name) {
    form.querySelectorAll('[name="' + name + '"]').forEach(function (control) {
      if (control.type !== "hidden") control.setAttribute("aria-invalid", "true");
    });
  }

  function showErrors(form, errors) {
    Object.keys(errors || {}).forEach(function (name) {
      var target = form.querySelector('[data-errors-for="' + name + '"]') ||
        form.querySelector('[data-errors-for="__all__"]');
      if (!target) return;
      var messages = errors[name];
      (Array.isArray(messages) ? messages : [messages]).forEach(function (message) {
        var item = document.createElement("li");
        item.textContent = typeof message === "string" ? message : message.message;
        target.appendChild(item);
      });
      // The nearest wrapper: one control of a group (a rank, a GPU fact), or the whole field.
      var field = target.closest(".sub-field, .eval-field, .eval-input");
      if (field) field.classList.add("has-error");
      markInvalid(form, name);
    });
  }

  // "Still to answer", else a ✓ — never beside an error (the step is not done while one shows).
  function showMissing(form, missing, errors) {
    var holder = form.querySelector("[data-missing]");
    if (!holder || !Array.isArray(missing)) return;
    holder.textContent = "";
    var hasErrors = errors && typeof errors === "object" && Object.keys(errors).length > 0;
    if (!missing.length && hasErrors) {
      var warn = document.createElement("span");
      warn.className = "warn";
      warn.textContent = holder.dataset.errorLabel || "Correct the marked fields.";
      holder.appendChild(warn);
    } else if (missing.length) {
      holder.appendChild(document.createTextNode(holder.dataset.missingLabel || "Still to answer: "));
      var list = document.createElement("span");
      list.setAttribute("data-missing-list", "");
      list.textContent = missing.join(", ");
      holder.appendChild(list);
    } else {
      var done = document.createElement("span");
      done.className = "good";
      done.textContent = "✓ " + (holder.dataset.doneLabel || "Step complete.");
      holder.appendChild(done);
    }
  }

  // Step 1's notes beside the answers (the GPU model's facts, what an empty answer derives
  // to): the server says each one after every save; an empty text hides the note.
  function showNotes(form, notes) {
    if (!notes || typeof notes !== "object") return;
    Object.keys(notes).forEach(function (name) {
      var note = notes[name] || {};
      var holder = form.querySelector('[data-note-for="' + name + '"]');
      if (holder) {
        holder.textContent = note.text || "";
        holder.hidden = !note.text;
        holder.className = "field-note note-" + (note.kind || "hint");
      }
      // A control whose placeholder is the note's suggestion (the known model's memory).
      var control = form.querySelector('[name="' + name + '"][data-note-placeholder]');
      if (control) control.placeholder = note.placeholder || "";
    });
  }

  function markStage(done) {
    var current = document.querySelector(".eval-progress-step.is-current");
    if (!current) return;
    current.classList.toggle("is-done", !!done);
  }

  function save(form) {
    var status = statusOf(form);
    if (status) {
      status.textContent = form.dataset.savingLabel || "Saving…";
      status.dataset.state = "saving";
    }
    var body = new FormData(form);
    body.set("go", "stay");
    return fetch(form.action || window.location.href, {
      method: "POST",
      body: body,
      credentials: "same-origin",
      headers: { "X-Autosave": "1", "X-Requested-With": "fetch" },
    })
      .then(function (response) {
        return response.json().then(function (data) {
          return { ok: response.ok, data: data };
        });
      })
      .then(function (result) {
        clearErrors(form);
        // Each save is made on the revision the last one produced; a conflict (409) leaves the
        // field as the user typed it and says who saved in between.
        var revision = form.querySelector("[data-revision]");
        // A step that saves field by field answers 400 with `saved` when all but the marked
        // fields were stored: the page moves on to that revision like after any save.
        var saved = result.ok || result.data.saved === true;
        if (saved && revision && result.data.revision !== undefined) {
          revision.value = result.data.revision;
        }
        if (saved && !result.ok) {
          if (status) {
            status.textContent = result.data.detail || "Saved, except the marked fields";
            status.dataset.state = "error";
          }
          markStage(result.data.done);
          showMissing(form, result.data.missing, result.data.errors);
          showNotes(form, result.data.notes);
          showErrors(form, result.data.errors);
        } else if (result.ok) {
          if (status) {
            status.textContent = (form.dataset.savedLabel || "Saved") + " " + result.data.saved_at;
            status.dataset.state = "saved";
          }
          markStage(result.data.done);
          showMissing(form, result.data.missing);
          showNotes(form, result.data.notes);
        } else {
          if (status) {
            status.textContent = result.data.detail || "Not saved";
            status.dataset.state = "error";
          }
          showErrors(form, result.data.errors);
        }
      })
      .catch(function () {
        if (status) {
          status.textContent = form.dataset.offlineLabel || "Not saved: connection lost";
          status.dataset.state = "error";
        }
      });
  }

  function debounce(fn, wait) {
    var timer = null;
    var call = function () {
      var args = arguments;
      clearTimeout(timer);
      timer = setTimeout(function () { fn.apply(null, args); }, wait);
    };
    call.cancel = function () { clearTimeout(timer); };
    return call;
  }

  document.querySelectorAll("form[data-autosave]").forEach(function (form) {
    var fieldset = form.querySelector("fieldset");
    if (fieldset && fieldset.disabled) return;
    var inflight = null;
    function saveNow() {
      inflight = save(form).then(function () { inflight = null; });
      return inflight;
    }
    var later = debounce(saveNow, 400);
    form.addEventListener("change", function (event) {
      if (event.target.name === "q") return;
      later();
    });
    // Typing in a text area saves once the user pauses, not on every key.
    var typed = debounce(function (event) {
      if (event.target.tagName === "TEXTAREA") saveNow();
    }, 1200);
    form.addEventListener("input", typed);
    // A button press (save, next, a row added or removed) posts the whole form itself: a
    // pending autosave is dropped, and one in flight is waited for, so the press is made on
    // the revision it produced rather than answered as an edit conflict.
    form.addEventListener("submit", function (event) {
      later.cancel();
      typed.cancel();
      if (!inflight) return;
      event.preventDefault();
      var submitter = event.submitter;
      inflight.then(function () { form.requestSubmit(submitter || undefined); });
    });
  });

  // Step 1: a "when does it run" and an isolation select only for the workload types ticked.
  document.querySelectorAll("[data-time-windows], [data-per-workload]").forEach(function (group) {
    var form = group.closest("form");
    var empty = group.querySelector("[data-windows-empty], [data-workload-empty]");
    function sync() {
      var ticked = 0;
      group.querySelectorAll("[data-window-for]").forEach(function (select) {
        var box = form.querySelector(
          'input[name="workload_types"][value="' + select.dataset.windowFor + '"]');
        var shown = !box || box.checked;
        select.closest(".sub-field").hidden = !shown;
        if (shown) ticked += 1;
      });
      if (empty) empty.hidden = ticked > 0;
    }
    form.addEventListener("change", function (event) {
      if (event.target.name === "workload_types") sync();
    });
    sync();
  });

  // Step 2: a chosen unit's card is highlighted as it is ticked.
  document.querySelectorAll(".unit-card input[type=checkbox]").forEach(function (box) {
    box.addEventListener("change", function () {
      box.closest(".unit-card").classList.toggle("is-chosen", box.checked);
    });
  });
})();

/* A searchable multi-select: a list of checkboxes (it works without this script) with a search
   box that narrows the list as one types and a line saying what is chosen. No Ctrl-click. */
(function () {
  "use strict";

  function setUp(box) {
    var search = box.querySelector(".multiselect-search");
    var chosen = box.querySelector(".multiselect-chosen");
    var options = Array.prototype.slice.call(box.querySelectorAll("label[data-search]"));

    function summarise() {
      var names = options.filter(function (label) { return label.querySelector("input").checked; })
        .map(function (label) { return label.textContent.trim(); });
      chosen.textContent = names.length
        ? chosen.dataset.some.replace("{count}", String(names.length)) + ": " + names.join(", ")
        : chosen.dataset.none;
    }

    function narrow() {
      var words = search.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
      options.forEach(function (label) {
        var text = label.dataset.search;
        var checked = label.querySelector("input").checked;
        // Chosen projects stay in sight so they can be unticked.
        label.hidden = !checked && !words.every(function (word) { return text.indexOf(word) !== -1; });
      });
    }

    search.hidden = false;
    search.addEventListener("input", narrow);
    search.addEventListener("keydown", function (event) {
      if (event.key === "Enter") {
        // Enter ticks the only match left rather than submitting the form half-chosen.
        var visible = options.filter(function (label) { return !label.hidden; });
        if (visible.length === 1) {
          event.preventDefault();
          var input = visible[0].querySelector("input");
          input.checked = !input.checked;
          search.value = "";
          narrow();
          summarise();
        }
      }
    });
    box.addEventListener("change", summarise);
    summarise();
  }

  document.querySelectorAll("[data-multiselect]").forEach(setUp);
})();

// What every page does without inline script (the Content-Security-Policy allows none):
// the language switch submits on change; read-only secrets select themselves on focus.
(function () {
  "use strict";
  var language = document.getElementById("language");
  if (language) {
    language.addEventListener("change", function () {
      language.form.submit();
    });
  }
  document.querySelectorAll("input[data-select-on-focus]").forEach(function (input) {
    input.addEventListener("focus", function () {
      input.select();
    });
  });
})();

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
  // A table or code block wider than its box scrolls sideways (phones): it takes the keyboard
  // focus so it can be scrolled without a mouse (WCAG 2.1.1), named after its heading.
  function scrollersFocusable() {
    document.querySelectorAll("main table, main pre, main .table-scroll").forEach(function (box) {
      var scrolls = box.scrollWidth > box.clientWidth + 1;
      if (scrolls && !box.hasAttribute("tabindex")) {
        box.setAttribute("tabindex", "0");
        box.setAttribute("data-scroll-focus", "");
        if (!box.getAttribute("aria-label") && box.tagName !== "TABLE") {
          box.setAttribute("role", "region");
          box.setAttribute("aria-label", document.title.split(" · ")[0]);
        }
      } else if (!scrolls && box.hasAttribute("data-scroll-focus")) {
        box.removeAttribute("tabindex");
        box.removeAttribute("data-scroll-focus");
      }
    });
  }
  scrollersFocusable();
  window.addEventListener("resize", scrollersFocusable);
})();

// The Configuration page's Copy buttons (no inline script: the Content-Security-Policy allows
// none). Each button copies the text of the <pre> its data-copy-target names and says so next
// to itself; the buttons stay hidden when the page runs without this script.
(function () {
  "use strict";

  function copyBySelection(text) {
    // Where the Clipboard API is missing (a page served over plain http from another host).
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    var done = false;
    try {
      done = document.execCommand("copy");
    } catch (error) {
      done = false;
    }
    document.body.removeChild(area);
    return done ? Promise.resolve() : Promise.reject(new Error("copy refused"));
  }

  function copy(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text).catch(function () {
        return copyBySelection(text);
      });
    }
    return copyBySelection(text);
  }

  document.querySelectorAll("button[data-copy-target]").forEach(function (button) {
    var source = document.getElementById(button.getAttribute("data-copy-target"));
    var status = button.parentNode.querySelector(".config-copy-status");
    if (!source) {
      return;
    }
    var timer = null;
    button.hidden = false;
    button.addEventListener("click", function () {
      copy(source.textContent).then(
        function () {
          button.classList.add("copied");
          if (status) {
            status.textContent = button.getAttribute("data-copied");
          }
        },
        function () {
          button.classList.remove("copied");
          if (status) {
            status.textContent = button.getAttribute("data-copy-failed");
          }
        }
      );
      window.clearTimeout(timer);
      timer = window.setTimeout(function () {
        button.classList.remove("copied");
        if (status) {
          status.textContent = "";
        }
      }, 4000);
    });
  });
})();

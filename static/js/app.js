// Small progressive enhancements for Ounce pages. Everything works without this file.
(function () {
  "use strict";
  // Select a freshly shown API key on focus so it is easy to copy.
  document.addEventListener("focusin", function (e) {
    if (e.target && e.target.hasAttribute && e.target.hasAttribute("data-copy-on-focus")) {
      e.target.select();
    }
  });
  // Toasts fade away after a few seconds.
  document.addEventListener("htmx:afterSwap", function () {
    document.querySelectorAll("#toasts .toast:not([data-timed])").forEach(function (t) {
      t.setAttribute("data-timed", "1");
      setTimeout(function () { t.remove(); }, 6000);
    });
  });
})();

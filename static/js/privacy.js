// Privacy mode (issue 28): one toggle hides every amount on screen as ••• for showing the app
// in public, remembered per browser. Loaded in <head> (not deferred) so the page is never
// painted with amounts showing: while the mode is on, <main> stays invisible (its layout kept)
// until the amounts are marked.
(function () {
  "use strict";
  var KEY = "ounce-privacy";
  var root = document.documentElement;
  var on = false;
  try { on = localStorage.getItem(KEY) === "on"; } catch (e) { /* storage blocked: off */ }
  if (on) root.setAttribute("data-privacy", "on");
  // An amount: a currency figure such as $1,234.56, −$12.00, +$3, US$5 or 1.234,56 €.
  var money = /^[\u2212+\-]?\s*(US)?[$€£¥]\s?[\d.,]+|^[\u2212+\-]?[\d.,]+\s?(€|£|USD|EUR|GBP)$/;
  function mark(scope) {
    var els = (scope || document).querySelectorAll("dd, td, span, p, strong, li, div, text, tspan, b, output");
    for (var i = 0; i < els.length; i++) {
      var el = els[i];
      if (el.hasAttribute("data-amount") || el.children.length > 0) continue;
      if (money.test((el.textContent || "").trim())) el.setAttribute("data-amount", "");
    }
    root.setAttribute("data-amounts-marked", "");
  }
  function sync(btn) {
    var now = root.getAttribute("data-privacy") === "on";
    btn.setAttribute("aria-pressed", now ? "true" : "false");
    btn.title = now ? "Show amounts" : "Hide amounts (privacy mode)";
  }
  document.addEventListener("DOMContentLoaded", function () {
    mark(document);
    var btn = document.getElementById("privacy-toggle");
    if (!btn) return;
    sync(btn);
    btn.addEventListener("click", function () {
      var next = root.getAttribute("data-privacy") !== "on";
      if (next) root.setAttribute("data-privacy", "on"); else root.removeAttribute("data-privacy");
      try { localStorage.setItem(KEY, next ? "on" : "off"); } catch (e) { /* not remembered */ }
      sync(btn);
    });
  });
  // Live fragments (prices, the dashboard) are marked as they arrive.
  document.addEventListener("htmx:afterSwap", function (e) { mark(e.target); });
})();

// Comment character counter for article pages. The server checks the length itself; this only
// shows it while typing. Characters are counted as the server counts them: Unicode code
// points of the trimmed text, so an emoji is one.
(function () {
  "use strict";
  var fmt = new Intl.NumberFormat("en-US");
  function update(t) {
    var max = Number(t.getAttribute("data-max-chars"));
    var out = document.getElementById(t.getAttribute("data-counter"));
    if (!out || !max) return;
    var n = Array.from(t.value.trim()).length;
    out.textContent = fmt.format(n) + " / " + fmt.format(max);
    out.setAttribute("data-over", n > max ? "true" : "false");
  }
  function all() {
    document.querySelectorAll("textarea[data-max-chars]").forEach(update);
  }
  document.addEventListener("input", function (e) {
    if (e.target && e.target.matches && e.target.matches("textarea[data-max-chars]")) update(e.target);
  });
  // The thread (and its form) is replaced after each post or delete.
  document.addEventListener("htmx:afterSettle", all);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", all);
  } else {
    all();
  }
})();

// The navigation bell: follows the member's unread notification count over server-sent
// events (/notifications/stream) and shows it as a badge.
(function () {
  "use strict";
  function init() {
    var bell = document.getElementById("notification-bell");
    var badge = document.getElementById("notification-count");
    if (!bell || !badge || !window.EventSource) return;
    var es = new EventSource(bell.getAttribute("data-stream"));
    es.addEventListener("unread", function (e) {
      var n = parseInt(e.data, 10) || 0;
      badge.textContent = n > 99 ? "99+" : String(n);
      badge.classList.toggle("hidden", n === 0);
      bell.setAttribute("data-unread", String(n));
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();

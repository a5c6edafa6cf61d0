// Registers Ounce's service worker (/sw.js, scope "/"): it keeps an offline page and the last
// dashboard seen, and receives pushed price alerts. Pages work the same without it.
(function () {
  "use strict";
  if (!("serviceWorker" in navigator)) return;
  window.addEventListener("load", function () {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(function () {});
  });
})();

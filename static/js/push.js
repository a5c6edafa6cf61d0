// "Enable browser notifications" on the alerts page: registers the service worker at /sw.js
// (scope /), asks for permission, subscribes with the server's VAPID key and stores the
// subscription for the signed-in member.
(function () {
  "use strict";
  function csrf() {
    var h = document.body.getAttribute("hx-headers");
    try {
      return JSON.parse(h)["X-CSRF-Token"] || "";
    } catch (e) {
      return "";
    }
  }
  function keyBytes(b64) {
    var s = (b64 + "===".slice((b64.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    var raw = atob(s);
    var out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
    return out;
  }
  function say(text) {
    var el = document.getElementById("push-status");
    if (el) el.textContent = text;
  }
  async function enable() {
    if (!("serviceWorker" in navigator) || !("PushManager" in window)) {
      say("This browser cannot receive push notifications.");
      return;
    }
    var permission = await Notification.requestPermission();
    if (permission !== "granted") {
      say("Notifications are blocked for this site; allow them in the browser's site settings.");
      return;
    }
    var reg = await navigator.serviceWorker.register("/sw.js", { scope: "/" });
    await navigator.serviceWorker.ready;
    var res = await fetch("/v1/push/vapid-public-key");
    var key = (await res.json()).public_key;
    var sub = await reg.pushManager.getSubscription();
    if (!sub) {
      sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
    }
    var saved = await fetch("/alerts/devices", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf() },
      body: JSON.stringify({ platform: "web", token: sub.toJSON() }),
    });
    if (saved.status === 201) {
      say("Browser notifications are on for this browser.");
      document.body.setAttribute("data-push", "on");
    } else {
      var p = {};
      try {
        p = await saved.json();
      } catch (e) {}
      say("Could not turn notifications on: " + (p.detail || "HTTP " + saved.status));
    }
  }
  function init() {
    var btn = document.getElementById("enable-push");
    if (!btn) return;
    btn.addEventListener("click", function () {
      enable().catch(function (e) {
        say("Could not turn notifications on: " + e.message);
      });
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();

// Ounce's service worker: shows price alert notifications pushed while no tab is open, and
// opens the alerts page when one is clicked. The payload is JSON {title, body, url}.
self.addEventListener("install", function () {
  self.skipWaiting();
});
self.addEventListener("activate", function (event) {
  event.waitUntil(self.clients.claim());
});
self.addEventListener("push", function (event) {
  var data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch (e) {
    data = { title: "Ounce", body: event.data ? event.data.text() : "" };
  }
  var title = data.title || "Ounce price alert";
  event.waitUntil(
    self.registration.showNotification(title, {
      body: data.body || "",
      tag: data.notification_id ? "ounce-" + data.notification_id : undefined,
      data: { url: data.url || "/alerts" },
      icon: "/static/img/favicon.svg",
    })
  );
});
self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var url = (event.notification.data && event.notification.data.url) || "/alerts";
  event.waitUntil(self.clients.openWindow(url));
});

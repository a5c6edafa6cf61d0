// Ounce's service worker, served from /sw.js so its scope is the whole site. It does three things:
//  - shows price alert notifications pushed while no tab is open, and opens the alerts page
//    when one is clicked (the push payload is JSON {title, body, url, notification_id});
//  - keeps a copy of the last dashboard it saw, and shows it read-only, marked with the time it
//    was saved, when the dashboard is opened without a network;
//  - answers any other page opened without a network with the offline page.
// Pages always come from the network first: nothing cached is shown while the server answers.
var SHELL = "ounce-shell-v1";
var DASHBOARD = "ounce-dashboard-v1";
var OFFLINE_URL = "/static/offline.html";
var SHELL_FILES = [OFFLINE_URL, "/static/css/app.css", "/static/img/icon-192.png", "/static/img/favicon.svg"];

self.addEventListener("install", function (event) {
  event.waitUntil(
    caches.open(SHELL).then(function (cache) {
      return cache.addAll(SHELL_FILES);
    }).then(function () {
      return self.skipWaiting();
    })
  );
});

self.addEventListener("activate", function (event) {
  event.waitUntil(
    caches.keys().then(function (names) {
      return Promise.all(names.filter(function (n) {
        return n.indexOf("ounce-") === 0 && n !== SHELL && n !== DASHBOARD;
      }).map(function (n) {
        return caches.delete(n);
      }));
    }).then(function () {
      return self.clients.claim();
    })
  );
});

self.addEventListener("fetch", function (event) {
  var req = event.request;
  var url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  if (req.method !== "GET") {
    // Signing out, in or up: the saved dashboard belonged to whoever was signed in before.
    if (url.pathname === "/logout" || url.pathname === "/login" || url.pathname === "/signup") {
      event.waitUntil(caches.delete(DASHBOARD));
    }
    return;
  }
  if (req.mode === "navigate") {
    event.respondWith(page(event, req, url));
  } else if (url.pathname.indexOf("/static/") === 0) {
    // The stylesheet and icons: the network's copy, the saved one only without a network.
    event.respondWith(fetch(req).catch(function () {
      return caches.match(req).then(function (hit) {
        return hit || Response.error();
      });
    }));
  }
});

function page(event, req, url) {
  return fetch(req).then(function (res) {
    if (url.pathname === "/" && url.search === "" && res.ok && !res.redirected) {
      event.waitUntil(remember(res.clone()));
    }
    return res;
  }).catch(function () {
    var saved = url.pathname === "/" ? savedDashboard() : Promise.resolve(null);
    return saved.then(function (hit) {
      return hit || caches.match(OFFLINE_URL);
    }).then(function (hit) {
      return hit || new Response("Ounce is offline.", { status: 503, headers: { "Content-Type": "text/plain; charset=utf-8" } });
    });
  });
}

// remember keeps the page if it is a member's dashboard (the layout marks it data-nav="home");
// "/" shows everyone else the public markets page, which is not worth keeping.
function remember(res) {
  return res.text().then(function (html) {
    if (!/<body[^>]*\sdata-nav="home"/.test(html)) return caches.delete(DASHBOARD);
    var headers = { "Content-Type": "text/html; charset=utf-8", "X-Ounce-Saved": String(Date.now()) };
    var csp = res.headers.get("Content-Security-Policy");
    if (csp) headers["Content-Security-Policy"] = csp;
    return caches.open(DASHBOARD).then(function (cache) {
      return cache.put("/", new Response(html, { headers: headers }));
    });
  });
}

// savedDashboard is the kept dashboard made read-only: no scripts, the page's forms and
// controls inert, and a line above it saying it is offline and from when.
function savedDashboard() {
  return caches.open(DASHBOARD).then(function (cache) {
    return cache.match("/");
  }).then(function (hit) {
    if (!hit) return null;
    var at = new Date(Number(hit.headers.get("X-Ounce-Saved")) || Date.now());
    var when = at.toLocaleString("en-GB", { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" });
    var banner = '<div id="offline-banner" role="status" class="mx-auto max-w-6xl px-4 pt-4">' +
      '<p class="rounded-md border border-amber-300 bg-amber-50 px-4 py-3 text-sm font-semibold text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100">' +
      'Offline — showing your dashboard as of <time datetime="' + at.toISOString() + '">' + when + "</time>. " +
      '<span class="font-normal">It is read-only until the connection is back.</span></p></div>';
    var headers = { "Content-Type": "text/html; charset=utf-8" };
    var csp = hit.headers.get("Content-Security-Policy");
    if (csp) headers["Content-Security-Policy"] = csp;
    return hit.text().then(function (html) {
      html = html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/gi, "")
        .replace(/<form\b/gi, "<form inert")
        .replace(/<main\b/i, banner + '<main inert data-offline="1"');
      return new Response(html, { headers: headers });
    });
  });
}

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
      icon: "/static/img/icon-192.png",
      badge: "/static/img/icon-192.png",
    })
  );
});

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var url = (event.notification.data && event.notification.data.url) || "/alerts";
  event.waitUntil(self.clients.openWindow(url));
});

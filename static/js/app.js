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
// Chart crosshair: over a chart, a dashed line and a box with the date and values of the
// nearest point follow the pointer (mouse, pen or finger).
(function () {
  function move(svg, e) {
    var pt = svg.createSVGPoint();
    pt.x = e.clientX; pt.y = e.clientY;
    var m = svg.getScreenCTM();
    if (!m) return;
    var p = pt.matrixTransform(m.inverse());
    var bands = svg.querySelectorAll(".hover-bands rect");
    var best = null;
    for (var i = 0; i < bands.length; i++) {
      var x = parseFloat(bands[i].getAttribute("x")), w = parseFloat(bands[i].getAttribute("width"));
      if (p.x >= x && p.x < x + w) { best = bands[i]; break; }
    }
    var g = svg.querySelector(".crosshair");
    if (!best || !g) { if (g) g.setAttribute("visibility", "hidden"); return; }
    var cx = parseFloat(best.getAttribute("x")) + parseFloat(best.getAttribute("width")) / 2;
    var line = g.querySelector("line"), box = g.querySelector("rect"), text = g.querySelector("text");
    line.setAttribute("x1", cx); line.setAttribute("x2", cx);
    text.textContent = best.dataset.label;
    var vb = svg.viewBox.baseVal, tw = text.getComputedTextLength() + 12;
    var left = cx + 8 + tw > vb.width ? cx - 8 - tw : cx + 8;
    text.setAttribute("x", left + 6);
    box.setAttribute("x", left); box.setAttribute("width", tw);
    box.setAttribute("height", text.getBBox().height + 8);
    g.setAttribute("visibility", "visible");
  }
  document.addEventListener("pointermove", function (e) {
    var svg = e.target.closest && e.target.closest("svg.chart-crosshair");
    document.querySelectorAll("svg.chart-crosshair .crosshair[visibility=visible]").forEach(function (g) {
      if (!svg || !svg.contains(g)) g.setAttribute("visibility", "hidden");
    });
    if (svg) move(svg, e);
  });
  document.addEventListener("pointerdown", function (e) {
    var svg = e.target.closest && e.target.closest("svg.chart-crosshair");
    if (svg) move(svg, e);
  });
})();
// The ledger table's header checkbox checks or clears every lot of the page, and follows
// them (checked when all are, mixed when some are). Without this file the "Select all on
// this page" link does the same through the server.
(function () {
  "use strict";
  function sync(table) {
    var head = table.querySelector("[data-select-page]");
    if (!head) return;
    var boxes = table.querySelectorAll("[data-lot-check]"), on = 0;
    for (var i = 0; i < boxes.length; i++) if (boxes[i].checked) on++;
    head.checked = on > 0 && on === boxes.length;
    head.indeterminate = on > 0 && on < boxes.length;
  }
  document.addEventListener("change", function (e) {
    var t = e.target;
    if (!t || !t.closest) return;
    var table = t.closest("#ledger-table");
    if (!table) return;
    if (t.hasAttribute("data-select-page")) {
      table.querySelectorAll("[data-lot-check]").forEach(function (b) { b.checked = t.checked; });
    }
    sync(table);
  });
})();

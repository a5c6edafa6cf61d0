// Receipt scanning page: drop a file on the drop zone to scan it, and show upload progress.
// Without this file the plain file input and submit button do the same.
(function () {
  "use strict";
  var form = document.getElementById("scan-form");
  var drop = document.getElementById("scan-drop");
  var input = document.getElementById("scan-file");
  var name = document.getElementById("scan-file-name");
  if (!form || !drop || !input) { return; }
  function shown() { if (name) { name.textContent = input.files.length ? input.files[0].name : ""; } }
  input.addEventListener("change", shown);
  ["dragenter", "dragover"].forEach(function (t) {
    drop.addEventListener(t, function (e) { e.preventDefault(); drop.classList.add("is-over"); });
  });
  ["dragleave", "drop"].forEach(function (t) {
    drop.addEventListener(t, function () { drop.classList.remove("is-over"); });
  });
  drop.addEventListener("drop", function (e) {
    e.preventDefault();
    if (!e.dataTransfer || !e.dataTransfer.files.length) { return; }
    input.files = e.dataTransfer.files;
    shown();
    if (window.htmx) { window.htmx.trigger(form, "submit"); } else { form.submit(); }
  });
  var bar = document.getElementById("scan-progress-bar");
  var text = document.getElementById("scan-progress-text");
  form.addEventListener("htmx:xhr:progress", function (e) {
    if (!bar || !e.detail || !e.detail.lengthComputable) { return; }
    if (e.detail.loaded < e.detail.total) {
      bar.max = e.detail.total; bar.value = e.detail.loaded;
      text.textContent = "Uploading… " + Math.round(100 * e.detail.loaded / e.detail.total) + "%";
    } else {
      bar.removeAttribute("value");
      text.textContent = "Reading the receipt…";
    }
  });
  form.addEventListener("htmx:beforeRequest", function () {
    if (bar) { bar.removeAttribute("value"); }
    if (text) { text.textContent = "Uploading and reading the receipt…"; }
  });
})();

// The add-holding form's product picker: choosing a catalogue product fills metal, product
// name and fine weight; for junk silver a face value sets the weight (face × oz per $1).
(function () {
  function setup() {
    var pick = document.getElementById("f-product-pick");
    if (!pick || pick.dataset.ready) return;
    pick.dataset.ready = "1";
    var form = pick.form;
    var faceRow = document.getElementById("face-row");
    var face = document.getElementById("f-face");
    var chosen = null;
    function field(name) { return form.querySelector("[name=" + name + "]"); }
    function trim(n) { return String(Number(n.toFixed(5))); }
    // The catalogue knows fine troy ounces: the weight is filled in ounces, the unit set to oz.
    function setOz(oz) {
      field("weight").value = oz;
      var unit = field("weight_unit");
      if (unit) unit.value = "oz";
    }
    function applyFace() {
      if (!chosen) return;
      var v = parseFloat((face.value || "").replace(/[$,\s]/g, ""));
      if (!(v > 0)) return;
      field("quantity").value = "1";
      setOz(trim(v * parseFloat(chosen.dataset.oz)));
      field("product_name").value = chosen.value.replace("($1 face)", "($" + trim(v) + " face)");
    }
    // norm compares as the catalogue search does: lower case, single spaces, "90 %" as "90%".
    function norm(s) { return s.toLowerCase().trim().replace(/\s+/g, " ").replace(/ %/g, "%"); }
    pick.addEventListener("input", function () {
      var opts = document.querySelectorAll("#product-options option");
      var typed = norm(pick.value), byAlias = [];
      chosen = null;
      for (var i = 0; i < opts.length; i++) {
        if (norm(opts[i].value) === typed) { chosen = opts[i]; break; }
        var aliases = (opts[i].dataset.aliases || "").split("|");
        for (var j = 0; j < aliases.length; j++) {
          if (aliases[j] && norm(aliases[j]) === typed) { byAlias.push(opts[i]); break; }
        }
      }
      // An alias that names one product ("ASE", "krugerrand") picks it.
      if (!chosen && byAlias.length === 1) chosen = byAlias[0];
      if (!chosen) return;
      field("metal").value = chosen.dataset.metal;
      field("product_name").value = chosen.value;
      setOz(chosen.dataset.oz);
      var perFace = chosen.dataset.face === "1";
      faceRow.hidden = !perFace;
      if (perFace) { face.focus(); applyFace(); }
    });
    face.addEventListener("input", applyFace);
  }
  document.addEventListener("DOMContentLoaded", setup);
  document.addEventListener("htmx:afterSwap", setup);
  setup();
})();

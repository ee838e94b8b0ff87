// Form helpers shared by the "my setup" (setup.js) and "upgrade" (upgrade.js) pages: an <option>, the GPU list
// grouped by vendor, and the GPU a ?gpu= parameter names. Loaded before both (mkdocs.yml extra_javascript).
(function () {
  "use strict";

  function norm(text) {
    return String(text || "").toLowerCase().replace(/[\s_-]+/g, "");
  }

  function option(value, label) {
    var node = document.createElement("option");
    node.value = value;
    node.textContent = label;
    return node;
  }

  function fillGpus(select, gpus) {
    select.textContent = "";
    select.appendChild(option("0", gpus[0].label));
    var groups = {};
    var names = { nvidia: "NVIDIA", amd: "AMD", intel: "Intel" };
    gpus.forEach(function (g, i) {
      if (i === 0) return;
      if (!groups[g.vendor]) {
        groups[g.vendor] = document.createElement("optgroup");
        groups[g.vendor].label = names[g.vendor] || g.vendor;
        select.appendChild(groups[g.vendor]);
      }
      groups[g.vendor].appendChild(option(String(i), g.label + (g.family ? " (" + g.family + ")" : "")));
    });
  }

  // ?gpu=: a catalogue name or one of its aliases, ignoring case, spaces, dashes and underscores; 0 for none, -1 for
  // a name the list does not have.
  function gpuIndex(gpus, wanted) {
    if (wanted === null || wanted === "") return 0;
    var key = norm(wanted);
    for (var i = 1; i < gpus.length; i++) {
      if (norm(gpus[i].value) === key) return i;
    }
    for (var j = 1; j < gpus.length; j++) {
      if ((gpus[j].aliases || []).some(function (a) { return norm(a) === key; })) return j;
    }
    return -1;
  }

  window.relialintForms = { option: option, fillGpus: fillGpus, gpuIndex: gpuIndex };
})();

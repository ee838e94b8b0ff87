// Form helpers shared by the "my setup" (setup.js) and "upgrade" (upgrade.js) pages: an <option>, and the GPU list
// grouped by vendor. Loaded before both (mkdocs.yml extra_javascript).
(function () {
  "use strict";

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

  window.relialintForms = { option: option, fillGpus: fillGpus };
})();

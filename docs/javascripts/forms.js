// Form helpers shared by the "my setup" (setup.js) and "upgrade" (upgrade.js) pages: an <option>, the GPU list
// grouped by vendor, the GPU a ?gpu= parameter names, and a record's verdict looked up in data/setup.json. Loaded before both (mkdocs.yml extra_javascript).
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

  // A record's "my setup" verdict in data/setup.json (relialint.site.setup_launch) for engine id, GPU choice,
  // version choice, backend choice and OS choice (indexes; 0 is "not sure"): {outcome: "d" | "p", depends: index
  // into data.depends or -1}, or null where the linter reports nothing. Per engine, the record's cells are groups
  // [backend choices or null (any), OS choices or null (any), rows]; a row is [GPU choices, runs of version choices
  // [first, last, outcome, depends]].
  function verdictAt(record, engineId, gpu, version, backend, os) {
    var groups = (record.cells || {})[engineId] || [];
    for (var k = 0; k < groups.length; k++) {
      var backends = groups[k][0];
      var oses = groups[k][1];
      if ((backends !== null && backends.indexOf(backend) < 0) || (oses !== null && oses.indexOf(os) < 0)) continue;
      var rows = groups[k][2];
      for (var i = 0; i < rows.length; i++) {
        if (rows[i][0].indexOf(gpu) < 0) continue;
        var runs = rows[i][1];
        for (var j = 0; j < runs.length; j++) {
          if (runs[j][0] <= version && version <= runs[j][1]) return { outcome: runs[j][2], depends: runs[j][3] };
        }
        return null;
      }
      return null;
    }
    return null;
  }

  window.relialintForms = { option: option, fillGpus: fillGpus, gpuIndex: gpuIndex, verdictAt: verdictAt };
})();

// The "upgrade" page (docs/upgrade.md): what changes for a default launch when an engine moves from one tabled
// release to another, on a GPU. Everything was decided at build time (relialint.site_upgrade_view): this script only
// reads two generated files and compares two sides.
//  - data/upgrade.json: per engine, its tabled releases and every option, environment variable and default that
//    changes between two of them, with its state in each release as runs [first, last, ...state] of release
//    indices (an option: its kind, values and shape where the release accepts it; a variable: where it is read; a
//    value of an option: where it is accepted; a default:
//    its value and whether the tables know it, and per GPU where the tables leave it to the GPU), and the engine's
//    replacement where the target names one.
//  - data/setup.json: the "my setup" verdicts of every record per engine, GPU and version (relialint.site_setup).
// The choice is kept in the URL (?engine=vllm&from=0.21.0&to=0.23.0&gpu=B200), so a view can be linked.
(function () {
  "use strict";

  var SEVERITY_ORDER = { blocker: 0, major: 1, minor: 2 };
  var KINDS = { v: "takes a value", o: "takes an optional value", f: "a flag", n: "a negative flag",
    "?": "kind not known" };

  var option = window.relialintForms.option;
  var fillGpus = window.relialintForms.fillGpus;
  var gpuIndex = window.relialintForms.gpuIndex;

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function code(text) {
    return el("code", "", text);
  }

  // An item's state in release i: the state after [first, last] in its run, or null (refused, not read).
  function stateAt(runs, i) {
    for (var j = 0; j < runs.length; j++) {
      if (runs[j][0] <= i && i <= runs[j][1]) return runs[j].slice(2);
    }
    return null;
  }

  function same(a, b) {
    return JSON.stringify(a) === JSON.stringify(b);
  }

  // A default's state in release i on GPU choice g: the GPU's own where the tables leave it to the GPU.
  function defaultAt(item, i, g) {
    var byGpu = item[5] || [];
    for (var j = 0; j < byGpu.length; j++) {
      if (byGpu[j][0] !== i) continue;
      for (var k = 1; k < byGpu[j].length; k++) {
        if (byGpu[j][k][0].indexOf(g) >= 0) return byGpu[j][k].slice(1);
      }
    }
    return stateAt(item[2], i);
  }

  // The change of one item from release a to release b on GPU choice g, or null: the comparison of two states.
  function change(item, a, b, g) {
    if (item[0] === "default") {
      var was = defaultAt(item, a, g);
      var now = defaultAt(item, b, g);
      return same(was, now) ? null : { kind: "default", before: was, after: now };
    }
    var before = stateAt(item[2], a);
    var after = stateAt(item[2], b);
    if (item[0] === "value") {
      if (before && !after) return { kind: "values", change: "refused", value: item[3] };
      if (after && !before) return { kind: "values", change: "accepted", value: item[3] };
      return null;
    }
    if (before && !after) {
      var replaced = stateAt(item[3], b);
      return { kind: item[0] === "option" ? "refused" : "unread", before: before, replacement: replaced && replaced[0] };
    }
    if (after && !before) return { kind: item[0] === "option" ? "accepted" : "read", after: after };
    // a change of what the option takes (a flag and a negative flag alike; a kind not known is none) or its values
    var shapes = before && after && before[2] !== null && after[2] !== null && before[2] !== after[2];
    if (item[0] === "option" && before && after && (shapes || !same(before[1], after[1]))) {
      return { kind: "changed", before: before, after: after };
    }
    return null;
  }

  function kindText(state) {
    var text = KINDS[state[0]] || "accepted";
    return state[1] && state[1].length ? text + " (" + state[1].join(", ") + ")" : text;
  }

  function valueText(state) {
    if (!state[1]) return "not set by the tables";
    return state[0] === null ? "no value" : state[0];
  }

  // ?from= / ?to=: a tabled release of the engine, or -1.
  function versionIndex(engine, wanted) {
    for (var i = 0; i < engine.versions.length; i++) {
      if (engine.versions[i].value === wanted) return i;
    }
    return -1;
  }

  // A record's "my setup" verdict for (engine, GPU choice, version value), backend and OS not given: "d", "p" or
  // null (relialintForms.verdictAt).
  function verdict(setup, record, engineId, gpu, versionValue) {
    var engine = setup.engines.filter(function (e) { return e.id === engineId; })[0];
    if (!engine) return null;
    var v = -1;
    engine.versions.forEach(function (c, i) { if (c.value === versionValue) v = i; });
    if (v < 0) return null;
    var found = window.relialintForms.verdictAt(record, engineId, gpu, v, 0, 0);
    return found ? found.outcome : null;
  }

  function recordItem(record, before, after, base) {
    var li = el("li", "rl-upgrade-item");
    li.dataset.id = record.id;
    var head = el("p", "rl-setup-head");
    head.appendChild(el("span", "rl-sev rl-sev-" + record.severity, record.severity));
    head.appendChild(document.createTextNode(" "));
    var link = el("a", "", record.id + ": " + record.title);
    link.href = new URL("../" + record.url, base).href;
    head.appendChild(link);
    li.appendChild(head);
    var words = { d: "applies", p: "possibly applies" };
    li.appendChild(el("p", "rl-setup-verdict", "Before: " + (before ? words[before] : "does not apply") +
      "; after: " + (after ? words[after] : "does not apply") + "."));
    return li;
  }

  function textItem(id, parts) {
    var li = el("li", "rl-upgrade-item");
    li.dataset.id = id;
    var p = el("p", "rl-upgrade-line");
    parts.forEach(function (part) {
      p.appendChild(typeof part === "string" ? document.createTextNode(part) : part);
    });
    li.appendChild(p);
    return li;
  }

  // The parts of a line, ended with the engine's replacement where it names one.
  function instead(parts, replacement) {
    return replacement ? parts.concat(["; use ", code(replacement), " instead."]) : parts.concat(["."]);
  }

  function section(key, title, note, items) {
    var wrap = el("section", "rl-setup-group rl-upgrade-group");
    wrap.dataset.group = key;
    wrap.appendChild(el("h2", "", title + " (" + items.length + ")"));
    if (note) wrap.appendChild(el("p", "", note));
    if (items.length) {
      var list = el("ul");
      items.forEach(function (li) { list.appendChild(li); });
      wrap.appendChild(list);
    } else {
      wrap.appendChild(el("p", "rl-upgrade-none", "None between these two releases."));
    }
    return wrap;
  }

  function render(state) {
    var data = state.data;
    var setup = state.setup;
    var engine = data.engines[state.engine];
    var a = Number(state.from.value);
    var b = Number(state.to.value);
    var g = Number(state.gpu.value);
    var oldV = engine.versions[a].value;
    var newV = engine.versions[b].value;
    var results = state.results;
    results.textContent = "";
    var name = function (v) { return engine.label + " " + v; };
    if (a === b) {
      state.summary.textContent = name(oldV) + " to " + name(newV) + ": the same release, nothing to compare.";
      return;
    }
    var entered = [];
    var left = [];
    var kept = [];
    setup.records.forEach(function (record) {
      if (record.withdrawn || record.kind !== "trigger") return;
      if (record.engines.length && record.engines.indexOf(engine.id) < 0) return;
      var before = verdict(setup, record, engine.id, g, oldV);
      var after = verdict(setup, record, engine.id, g, newV);
      if (!before && !after) return;
      var entry = { record: record, before: before, after: after };
      if (!before || (before === "p" && after === "d")) entered.push(entry);
      else if (!after || (before === "d" && after === "p")) left.push(entry);
      else kept.push(entry);
    });
    var bySeverity = function (x, y) {
      return (SEVERITY_ORDER[x.record.severity] - SEVERITY_ORDER[y.record.severity]) ||
        (x.record.id < y.record.id ? -1 : 1);
    };
    [entered, left, kept].forEach(function (list) { list.sort(bySeverity); });
    var recordsOf = function (list) {
      return list.map(function (x) { return recordItem(x.record, x.before, x.after, state.setupUrl); });
    };
    var groups = { defaults: [], refused: [], accepted: [], changed: [], values: [], unread: [], read: [] };
    engine.items.forEach(function (item) {
      var found = change(item, a, b, g);
      if (!found) return;
      var subject = item[1];
      if (found.kind === "default") {
        var parts = [code(subject), ": " + valueText(found.before) + " in " + name(oldV) + ", " +
          valueText(found.after) + " in " + name(newV) + "."];
        if (item[3].length) {
          parts.push(" Keep the old value by writing ");
          item[3].forEach(function (pin, i) {
            if (i) parts.push(" or ");
            parts.push(code(pin));
          });
          parts.push(".");
        }
        groups.defaults.push(textItem(subject, parts));
      } else if (found.kind === "refused") {
        groups.refused.push(textItem(subject, instead([code(subject), ": " + kindText(found.before) + " in " +
          name(oldV) + "; " + name(newV) + " refuses it and a launch that writes it does not start"],
          found.replacement)));
      } else if (found.kind === "accepted") {
        groups.accepted.push(textItem(subject, [code(subject), ": " + kindText(found.after) + " in " + name(newV) +
          ", refused by " + name(oldV) + "."]));
      } else if (found.kind === "changed") {
        groups.changed.push(textItem(subject, [code(subject), ": " + kindText(found.before) + " in " + name(oldV) +
          ", " + kindText(found.after) + " in " + name(newV) + "."]));
      } else if (found.kind === "values") {
        groups.values.push(textItem(subject + " " + found.value, [code(subject), " ", code(found.value), ": " +
          (found.change === "accepted" ? "accepted by " + name(newV) + ", refused by " + name(oldV)
            : "accepted by " + name(oldV) + ", refused by " + name(newV) + ": a launch that writes it does not start") +
          "."]));
      } else if (found.kind === "unread") {
        groups.unread.push(textItem(subject, instead([code(subject), ": read by " + name(oldV) + ", not by " +
          name(newV) + ": setting it does nothing"], found.replacement)));
      } else {
        groups.read.push(textItem(subject, [code(subject), ": read by " + name(newV) + ", not by " + name(oldV) +
          ": setting it now takes effect."]));
      }
    });
    var gpuLabel = g === 0 ? "a GPU not given" : setup.gpus[g].label;
    results.appendChild(section("entered", "Records that start to apply",
      "Records that apply on " + name(newV) + " and not on " + name(oldV) + " (or only possibly there), for a " +
      "launch on " + gpuLabel + " that sets nothing else.", recordsOf(entered)));
    results.appendChild(section("left", "Records that stop applying",
      "Records that apply on " + name(oldV) + " and not on " + name(newV) + " (or only possibly there).",
      recordsOf(left)));
    results.appendChild(section("defaults", "Defaults that change",
      "What the engine does when the launch does not say.", groups.defaults));
    results.appendChild(section("refused", "Options removed", "If the launch writes them.", groups.refused));
    results.appendChild(section("accepted", "Options added", "", groups.accepted));
    results.appendChild(section("changed", "Options whose kind or values change", "If the launch writes them.",
      groups.changed));
    results.appendChild(section("values", "Option values accepted or refused", "If the launch writes them.",
      groups.values));
    results.appendChild(section("unread", "Environment variables no longer read", "If the launch sets them.",
      groups.unread));
    results.appendChild(section("read", "Environment variables newly read", "If the launch sets them.",
      groups.read));
    results.appendChild(section("kept", "Records that keep applying", "", recordsOf(kept)));
    var pages = el("p", "rl-upgrade-pages");
    pages.appendChild(document.createTextNode("Release by release: "));
    var lo = Math.min(a, b);
    var hi = Math.max(a, b);
    for (var i = lo + 1; i <= hi; i++) {
      if (i > lo + 1) pages.appendChild(document.createTextNode(", "));
      var link = el("a", "", engine.versions[i].value);
      link.href = new URL("../" + engine.versions[i].page, state.dataUrl).href;
      pages.appendChild(link);
    }
    pages.appendChild(document.createTextNode("."));
    results.appendChild(pages);
    state.summary.textContent = name(oldV) + " to " + name(newV) + " on " + gpuLabel + ": " + entered.length +
      " records start to apply, " + left.length + " stop; " + groups.defaults.length + " defaults change; " +
      groups.refused.length + " options removed, " + groups.accepted.length + " added, " + groups.changed.length +
      " changed, " + groups.values.length + " option values accepted or refused; " + groups.unread.length + " environment variables no longer read, " + groups.read.length +
      " newly read.";
  }

  function keepInUrl(state) {
    var engine = state.data.engines[state.engine];
    var params = new URLSearchParams(window.location.search);
    params.set("engine", engine.id);
    params.set("from", engine.versions[Number(state.from.value)].value);
    params.set("to", engine.versions[Number(state.to.value)].value);
    var gpu = state.setup.gpus[Number(state.gpu.value)].value;
    if (gpu) params.set("gpu", gpu); else params.delete("gpu");
    window.history.replaceState(null, "", window.location.pathname + "?" + params.toString() + window.location.hash);
  }

  function fillVersions(state) {
    var engine = state.data.engines[state.engine];
    [state.from, state.to].forEach(function (select) {
      select.textContent = "";
      engine.versions.forEach(function (v, i) { select.appendChild(option(String(i), v.value)); });
    });
  }

  function start(form, data, setup, dataUrl, setupUrl) {
    var state = {
      data: data, setup: setup, dataUrl: dataUrl, setupUrl: setupUrl, engine: 0,
      from: form.querySelector("#rl-upgrade-from"), to: form.querySelector("#rl-upgrade-to"),
      gpu: form.querySelector("#rl-upgrade-gpu"),
      results: document.getElementById("rl-upgrade-results"), summary: document.getElementById("rl-upgrade-summary")
    };
    var engineSelect = form.querySelector("#rl-upgrade-engine");
    data.engines.forEach(function (e, i) { engineSelect.appendChild(option(String(i), e.label)); });
    fillGpus(state.gpu, setup.gpus);
    var params = new URLSearchParams(window.location.search);
    var problems = [];
    var wantedEngine = params.get("engine");
    data.engines.forEach(function (e, i) { if (e.id === wantedEngine) state.engine = i; });
    if (wantedEngine && data.engines[state.engine].id !== wantedEngine) problems.push("engine " + wantedEngine);
    engineSelect.value = String(state.engine);
    fillVersions(state);
    var engine = data.engines[state.engine];
    var last = engine.versions.length - 1;
    var fromIndex = params.get("from") === null ? Math.max(last - 1, 0) : versionIndex(engine, params.get("from"));
    var toIndex = params.get("to") === null ? last : versionIndex(engine, params.get("to"));
    if (fromIndex < 0) problems.push("from " + params.get("from"));
    if (toIndex < 0) problems.push("to " + params.get("to"));
    state.from.value = String(fromIndex < 0 ? Math.max(last - 1, 0) : fromIndex);
    state.to.value = String(toIndex < 0 ? last : toIndex);
    var gi = gpuIndex(setup.gpus, params.get("gpu"));
    if (gi < 0) problems.push("GPU " + params.get("gpu"));
    state.gpu.value = String(Math.max(gi, 0));
    var notice = document.getElementById("rl-upgrade-notice");
    if (problems.length && notice) {
      notice.hidden = false;
      notice.textContent = "Not checked: " + problems.join(", ") + " is not in relialint's tables (" +
        engine.label + " " + engine.versions[0].value + " to " + engine.versions[last].value + ", releases only). " +
        "Choose the nearest entry.";
    }
    engineSelect.addEventListener("change", function () {
      state.engine = Number(engineSelect.value);
      fillVersions(state);
      var n = data.engines[state.engine].versions.length;
      state.from.value = String(Math.max(n - 2, 0));
      state.to.value = String(n - 1);
      keepInUrl(state);
      render(state);
    });
    [state.from, state.to, state.gpu].forEach(function (s) {
      s.addEventListener("change", function () { keepInUrl(state); render(state); });
    });
    if (!problems.length) keepInUrl(state);
    render(state);
    form.dataset.ready = "1";
  }

  function json(url) {
    return fetch(url).then(function (response) {
      if (!response.ok) throw new Error(response.status + " " + response.statusText);
      return response.json();
    });
  }

  function init() {
    var form = document.getElementById("rl-upgrade");
    if (!form || form.dataset.rlBound) return;
    form.dataset.rlBound = "1";
    var dataUrl = new URL(form.dataset.src, window.location.href).href;
    json(dataUrl)
      .then(function (data) {
        var setupUrl = new URL("../" + data.setup, dataUrl).href;
        return json(setupUrl).then(function (setup) { start(form, data, setup, dataUrl, setupUrl); });
      })
      .catch(function (error) {
        document.getElementById("rl-upgrade-summary").textContent = "The data files could not be read (" +
          error.message + ").";
      });
  }

  if (typeof window.document$ !== "undefined" && window.document$.subscribe) {
    window.document$.subscribe(init);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();

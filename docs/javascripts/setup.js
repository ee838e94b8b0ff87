// The "my setup" page (docs/setup.md): fills its lists from the generated data file (data/setup.json) and shows
// the records that apply to the chosen engine, version, GPU, backend and OS. Every verdict in the file was decided
// at build time by the linter itself on the engine's default launch (relialint.site.setup_launch); this script only
// looks them up: per record and engine, groups of backend and OS choices, each with groups of GPU choices with runs
// of version choices and their outcome ("d" definite, "p" possible). The choice is kept in the URL
// (?engine=llama.cpp&version=b6000&gpu=Strix+Halo&backend=hip&os=linux), so a view can be linked.
(function () {
  "use strict";

  var SEVERITY_ORDER = { blocker: 0, major: 1, minor: 2 };

  var option = window.relialintForms.option;
  var fillGpus = window.relialintForms.fillGpus;
  var gpuIndex = window.relialintForms.gpuIndex;
  var verdictAt = window.relialintForms.verdictAt;

  function fillVersions(select, engine) {
    select.textContent = "";
    engine.versions.forEach(function (v, i) { select.appendChild(option(String(i), v.label)); });
  }

  // ?version=: a listed value, or (llama.cpp) a build number inside one entry's run of builds.
  function versionIndex(engine, wanted) {
    if (wanted === null) return 0;
    for (var i = 0; i < engine.versions.length; i++) {
      if (engine.versions[i].value === wanted) return i;
    }
    var build = /^b(\d+)$/.exec(wanted);
    if (build) {
      var n = Number(build[1]);
      for (var j = 0; j < engine.versions.length; j++) {
        var b = engine.versions[j].builds;
        if (b && b[0] <= n && n <= b[1]) return j;
      }
    }
    return -1;
  }

  // A value of a simple list (backends, OSes) from the URL: 0 ("not sure") when absent, -1 when not listed.
  function valueIndex(list, wanted) {
    if (wanted === null || wanted === "") return 0;
    for (var i = 1; i < list.length; i++) {
      if (list[i].value === wanted.toLowerCase()) return i;
    }
    return -1;
  }

  function fillList(select, list) {
    select.textContent = "";
    list.forEach(function (x, i) { select.appendChild(option(String(i), x.label)); });
  }

  function item(record, found, data, base) {
    var li = document.createElement("li");
    li.className = "rl-setup-item";
    var link = document.createElement("a");
    link.href = new URL("../" + record.url, base).href;
    link.textContent = record.id + ": " + record.title;
    var head = document.createElement("p");
    head.className = "rl-setup-head";
    var badge = document.createElement("span");
    badge.className = "rl-sev rl-sev-" + record.severity;
    badge.textContent = record.severity;
    head.appendChild(badge);
    head.appendChild(document.createTextNode(" "));
    head.appendChild(link);
    li.appendChild(head);
    var verdict = document.createElement("p");
    verdict.className = "rl-setup-verdict";
    if (!found) {
      verdict.textContent = "Not decided by configuration: " +
        (record.kind === "runtime" ? "relialint probe reports it from the host." : "catch it with monitoring.");
    } else if (found.outcome === "d") {
      li.classList.add("rl-setup-definite");
      li.dataset.certainty = "definite";
      var applies = document.createElement("strong");
      applies.className = "rl-setup-mark rl-setup-mark-definite";
      applies.textContent = "Definite";
      verdict.appendChild(applies);
      verdict.appendChild(document.createTextNode(": applies to this setup as launched."));
    } else {
      li.classList.add("rl-setup-possible");
      li.dataset.certainty = "possible";
      var strong = document.createElement("strong");
      strong.className = "rl-setup-mark rl-setup-mark-possible";
      strong.textContent = "Possible";
      verdict.appendChild(strong);
      verdict.appendChild(document.createTextNode(found.depends >= 0
        ? ": depends on " + data.depends[found.depends] + "."
        : ": the engine version leaves it open."));
    }
    if (found) li.dataset.record = record.id;
    li.appendChild(verdict);
    return li;
  }

  function section(title, note, items) {
    var wrap = document.createElement("section");
    wrap.className = "rl-setup-group";
    var h = document.createElement("h2");
    h.textContent = title + " (" + items.length + ")";
    wrap.appendChild(h);
    if (note) {
      var p = document.createElement("p");
      p.textContent = note;
      wrap.appendChild(p);
    }
    var list = document.createElement("ul");
    items.forEach(function (li) { list.appendChild(li); });
    wrap.appendChild(list);
    return wrap;
  }

  // Records that hold because of both the GPU and the version first (the most particular to this setup), then by
  // severity, then by id.
  function byRelevance(engine) {
    return function (a, b) {
      var by = function (x) { return ((x.record.by || {})[engine] || []).length; };
      return (by(b) - by(a)) || (SEVERITY_ORDER[a.record.severity] - SEVERITY_ORDER[b.record.severity]) ||
        (a.record.id < b.record.id ? -1 : 1);
    };
  }

  function render(state) {
    var data = state.data;
    var engine = data.engines[state.engine];
    var v = Number(state.version.value);
    var g = Number(state.gpu.value);
    var b = Number(state.backend.value);
    var o = Number(state.os.value);
    var specific = [];
    var general = [];
    var watch = [];
    data.records.forEach(function (record) {
      if (record.withdrawn) return;
      if (record.engines.length && record.engines.indexOf(engine.id) < 0) return;
      if (record.kind !== "trigger") {
        watch.push({ record: record, found: null });
        return;
      }
      var found = verdictAt(record, engine.id, g, v, b, o);
      if (!found) return;
      var by = (record.by || {})[engine.id] || [];
      (by.length ? specific : general).push({ record: record, found: found });
    });
    [specific, general, watch].forEach(function (list) { list.sort(byRelevance(engine.id)); });
    var results = state.results;
    results.textContent = "";
    var make = function (list) { return list.map(function (x) { return item(x.record, x.found, data, state.base); }); };
    results.appendChild(section("Because of this GPU or version",
      "Records whose trigger depends on the GPU or the engine version, and holds for this choice.", make(specific)));
    results.appendChild(section("Depending on the configuration",
      "Records that apply to any GPU and version of this engine when the configuration has what they name.",
      make(general)));
    results.appendChild(section("Not decided by configuration",
      "Knowledge and host records for this engine: no deployment file shows them.", make(watch)));
    var gpuLabel = g === 0 ? "a GPU not given" : data.gpus[g].label;
    var versionLabel = v === 0 ? "a version not given" : engine.versions[v].label;
    var extra = (b > 0 ? ", " + engine.backends[b].label : "") + (o > 0 ? ", " + data.oses[o].label : "");
    showLaunch(state, engine, v, g, b, o);
    state.summary.textContent = engine.label + " " + versionLabel + " on " + gpuLabel + extra + ": " +
      specific.length + " records because of the GPU or version, " + general.length +
      " depending on the configuration, " + watch.length + " not decided by configuration.";
  }

  function quoted(text) {
    return /^[A-Za-z0-9._=:\/-]+$/.test(text) ? text : "'" + text.replace(/'/g, "'\\''") + "'";
  }

  // The launch the verdicts are about, and the command line that gives the same verdicts.
  function showLaunch(state, engine, v, g, b, o) {
    var launch = document.getElementById("rl-setup-launch");
    var command = document.getElementById("rl-setup-command");
    if (!launch || !command) return;
    launch.textContent = engine.launch;
    var words = ["relialint", "check", "launch.sh"];
    if (g > 0) words.push("--gpu", quoted(state.data.gpus[g].value));
    var version = engine.versions[v];
    if (v > 0 && version.value.charAt(0) !== "<" && version.value.charAt(0) !== ">") {
      words.push("--engine-version", state.build || ((version.builds && version.builds[0] !== version.builds[1])
        ? "b" + version.builds[0] : version.value));
    }
    if (o > 0) words.push("--os", state.data.oses[o].value);
    if (b > 0) words.push("--fact", "engine.backend=" + engine.backends[b].value);
    words.push("--show-possible");
    command.textContent = words.join(" ");
  }

  function keepInUrl(state) {
    var data = state.data;
    var engine = data.engines[state.engine];
    var params = new URLSearchParams(window.location.search);
    params.set("engine", engine.id);
    var version = state.build || engine.versions[Number(state.version.value)].value;
    if (version) params.set("version", version); else params.delete("version");
    var gpu = data.gpus[Number(state.gpu.value)].value;
    if (gpu) params.set("gpu", gpu); else params.delete("gpu");
    var backend = engine.backends[Number(state.backend.value)].value;
    if (backend) params.set("backend", backend); else params.delete("backend");
    var os = data.oses[Number(state.os.value)].value;
    if (os) params.set("os", os); else params.delete("os");
    window.history.replaceState(null, "", window.location.pathname + "?" + params.toString() + window.location.hash);
  }

  // The backend list, shown only where the engine offers a choice (llama.cpp's builds); elsewhere the GPU decides.
  function fillBackends(select, engine) {
    fillList(select, engine.backends);
    select.value = "0";
    var field = select.closest(".rl-field");
    if (field) {  // the field's display: flex would override the hidden attribute
      field.hidden = engine.backends.length < 2;
      field.style.display = field.hidden ? "none" : "";
    }
  }

  function start(form, data, base) {
    var engineSelect = form.querySelector("#rl-setup-engine");
    var versionSelect = form.querySelector("#rl-setup-version");
    var gpuSelect = form.querySelector("#rl-setup-gpu");
    var backendSelect = form.querySelector("#rl-setup-backend");
    var osSelect = form.querySelector("#rl-setup-os");
    var state = {
      data: data, base: base, engine: 0, build: null, version: versionSelect, gpu: gpuSelect, backend: backendSelect, os: osSelect,
      results: document.getElementById("rl-setup-results"), summary: document.getElementById("rl-setup-summary")
    };
    data.engines.forEach(function (e, i) { engineSelect.appendChild(option(String(i), e.label)); });
    fillGpus(gpuSelect, data.gpus);
    var params = new URLSearchParams(window.location.search);
    var problems = [];
    var wantedEngine = params.get("engine");
    data.engines.forEach(function (e, i) { if (e.id === wantedEngine) state.engine = i; });
    if (wantedEngine && data.engines[state.engine].id !== wantedEngine) problems.push("engine " + wantedEngine);
    engineSelect.value = String(state.engine);
    fillVersions(versionSelect, data.engines[state.engine]);
    var vi = versionIndex(data.engines[state.engine], params.get("version"));
    // a build inside a run of builds (?version=b6000): kept as written in the URL and the command line until the
    // version is changed (every build of the run gets the same verdicts)
    if (vi > 0 && /^b\d+$/.test(params.get("version") || "")) state.build = params.get("version");
    if (vi < 0) problems.push("version " + params.get("version"));
    versionSelect.value = String(Math.max(vi, 0));
    var gi = gpuIndex(data.gpus, params.get("gpu"));
    if (gi < 0) problems.push("GPU " + params.get("gpu"));
    gpuSelect.value = String(Math.max(gi, 0));
    fillBackends(backendSelect, data.engines[state.engine]);
    var bi = valueIndex(data.engines[state.engine].backends, params.get("backend"));
    if (bi < 0) problems.push("backend " + params.get("backend"));
    backendSelect.value = String(Math.max(bi, 0));
    fillList(osSelect, data.oses);
    var oi = valueIndex(data.oses, params.get("os"));
    if (oi < 0) problems.push("OS " + params.get("os"));
    osSelect.value = String(Math.max(oi, 0));
    var notice = document.getElementById("rl-setup-notice");
    if (problems.length && notice) {
      notice.hidden = false;
      notice.textContent = "Not in the lists: " + problems.join(", ") + ". Choose the nearest entry.";
    }
    engineSelect.addEventListener("change", function () {
      state.engine = Number(engineSelect.value);
      state.build = null;
      fillVersions(versionSelect, data.engines[state.engine]);
      versionSelect.value = "0";
      fillBackends(backendSelect, data.engines[state.engine]);
      keepInUrl(state);
      render(state);
    });
    [versionSelect, gpuSelect, backendSelect, osSelect].forEach(function (s) {
      s.addEventListener("change", function () {
        if (s === versionSelect) state.build = null;
        keepInUrl(state);
        render(state);
      });
    });
    if (!problems.length) keepInUrl(state);
    render(state);
    form.dataset.ready = "1";
  }

  function init() {
    var form = document.getElementById("rl-setup");
    if (!form || form.dataset.rlBound) return;
    form.dataset.rlBound = "1";
    var url = new URL(form.dataset.src, window.location.href);
    fetch(url.href)
      .then(function (response) {
        if (!response.ok) throw new Error(response.status + " " + response.statusText);
        return response.json();
      })
      .then(function (data) { start(form, data, url.href); })
      .catch(function (error) {
        document.getElementById("rl-setup-summary").textContent = "The data file could not be read (" +
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

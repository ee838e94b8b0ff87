// The catalogue page (docs/records/index.md, generated): rows of #rl-catalogue carry data-severity, data-impact,
// data-engines, data-kind and data-text (id, slug, title and keywords, lower case). The text box and each
// <select data-filter="..."> narrow the rows shown; an engine keeps the engine-independent rows ("any"), which
// apply to every engine. The column headings sort. Filters and sort are kept in the URL, so a view can be shared.
// The text box shows the records that search finds by every word typed: it matches each record's search tokens
// (the table's data-terms, search/record-terms.json, written with the search index) by the query rules the search
// worker uses (javascripts/search-rules.js). Until that file is read, or where it cannot be (a page opened from
// disk), it matches the words of data-text; the table has data-rl-terms once the search tokens are in use.
// Material's instant navigation swaps pages without a reload, so bind on every page change (document$) where it
// exists, else on DOMContentLoaded.
(function () {
  "use strict";

  var SEVERITY_RANK = { blocker: 0, major: 1, minor: 2 };
  var IMPACT_RANK = { "wrong-output": 0, performance: 1, capacity: 2, measurement: 3, "ignored-config": 4 };
  var rules = window.relialintSearchRules;

  function words(text) {
    return String(text || "").toLowerCase().split(/\s+/).map(function (w) {
      return w.replace(/^["']+|["']+$/g, "");
    }).filter(Boolean);
  }

  function matches(row, filters, terms) {
    if (filters.severity && row.dataset.severity !== filters.severity) return false;
    if (filters.impact && row.dataset.impact !== filters.impact) return false;
    if (filters.engine) {
      var engines = (row.dataset.engines || "").split(" ");
      if (engines.indexOf(filters.engine) < 0 && engines.indexOf("any") < 0) return false;
    }
    if (!filters.filter) return true;
    if (terms && terms[row.dataset.id]) return rules.matchesEvery(filters.filter, terms[row.dataset.id]);
    var text = row.dataset.text || "";
    return words(filters.filter).every(function (w) { return text.indexOf(w) >= 0; });
  }

  function sortKey(row, key) {
    switch (key) {
      case "severity": return [SEVERITY_RANK[row.dataset.severity], row.dataset.id];
      case "impact": return [IMPACT_RANK[row.dataset.impact], row.dataset.id];
      case "engines": return [row.dataset.engines, row.dataset.id];
      case "kind": return [row.dataset.kind, row.dataset.id];
      case "title": return [row.querySelector(".rl-c-title").textContent.toLowerCase(), row.dataset.id];
      default: return [row.dataset.id, ""];
    }
  }

  function compare(a, b) {
    for (var i = 0; i < a.length; i++) {
      if (a[i] < b[i]) return -1;
      if (a[i] > b[i]) return 1;
    }
    return 0;
  }

  function sortRows(table, sort) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var sign = sort.dir === "desc" ? -1 : 1;
    rows.sort(function (a, b) { return sign * compare(sortKey(a, sort.key), sortKey(b, sort.key)); });
    rows.forEach(function (row) { body.appendChild(row); });
    table.querySelectorAll("th[data-sort]").forEach(function (th) {
      if (th.dataset.sort === sort.key) th.setAttribute("aria-sort", sort.dir === "desc" ? "descending" : "ascending");
      else th.removeAttribute("aria-sort");
    });
  }

  function apply(state) {
    var filters = {};
    state.controls.forEach(function (c) { filters[c.dataset.filter] = c.value.trim(); });
    var rows = state.table.querySelectorAll("tbody tr");
    var shown = 0;
    rows.forEach(function (row) {
      var ok = matches(row, filters, state.terms);
      row.hidden = !ok;
      if (ok) shown += 1;
    });
    if (state.counter) state.counter.textContent = shown + " of " + rows.length + " records shown";
    if (state.empty) state.empty.hidden = shown > 0;
    var params = new URLSearchParams(window.location.search);
    state.controls.forEach(function (c) {
      if (c.value.trim()) params.set(c.dataset.filter, c.value.trim()); else params.delete(c.dataset.filter);
    });
    if (state.sort.key !== "id" || state.sort.dir !== "asc") {
      params.set("sort", (state.sort.dir === "desc" ? "-" : "") + state.sort.key);
    } else {
      params.delete("sort");
    }
    var query = params.toString();
    window.history.replaceState(null, "", window.location.pathname + (query ? "?" + query : "") + window.location.hash);
  }

  // Each record's search tokens, by record id, as sets; then the filter applies again with them.
  function loadTerms(state) {
    var url = state.table.dataset.terms;
    if (!url || !rules || typeof fetch !== "function") return;
    fetch(new URL(url, window.location.href).href).then(function (response) {
      if (!response.ok) throw new Error(url + ": HTTP " + response.status);
      return response.json();
    }).then(function (table) {
      var sets = {};
      Object.keys(table).forEach(function (id) {
        sets[id] = {};
        table[id].forEach(function (token) { sets[id][token] = true; });
      });
      state.terms = sets;
      state.table.dataset.rlTerms = "1";
      apply(state);
    }).catch(function (err) {
      console.warn("catalogue filter: no search tokens, matching titles and keywords instead:", err);
    });
  }

  function init() {
    var table = document.getElementById("rl-catalogue");
    if (!table || table.dataset.rlBound) return;
    table.dataset.rlBound = "1";
    var state = {
      table: table,
      controls: Array.prototype.slice.call(document.querySelectorAll("#rl-filters [data-filter]")),
      counter: document.getElementById("rl-count"),
      empty: document.getElementById("rl-empty"),
      sort: { key: "id", dir: "asc" },
      terms: null
    };
    loadTerms(state);
    var params = new URLSearchParams(window.location.search);
    state.controls.forEach(function (c) {
      var wanted = params.get(c.dataset.filter);
      if (c.tagName === "SELECT") {
        var known = Array.prototype.some.call(c.options, function (o) { return o.value === wanted; });
        if (wanted && known) c.value = wanted;
        c.addEventListener("change", function () { apply(state); });
      } else {
        if (wanted) c.value = wanted;
        c.addEventListener("input", function () { apply(state); });
      }
    });
    var sort = params.get("sort");
    var columns = Array.prototype.map.call(table.querySelectorAll("th[data-sort]"), function (th) {
      return th.dataset.sort;
    });
    if (sort && columns.indexOf(sort.replace(/^-/, "")) >= 0) {
      state.sort = { key: sort.replace(/^-/, ""), dir: sort.charAt(0) === "-" ? "desc" : "asc" };
    }
    table.querySelectorAll("th[data-sort] button").forEach(function (button) {
      button.addEventListener("click", function () {
        var key = button.parentElement.dataset.sort;
        state.sort = { key: key, dir: state.sort.key === key && state.sort.dir === "asc" ? "desc" : "asc" };
        sortRows(table, state.sort);
        apply(state);
      });
    });
    sortRows(table, state.sort);
    apply(state);
  }

  // A table wider than the page scrolls sideways inside the theme's wrapper; a keyboard can scroll it only once the
  // wrapper takes focus (axe: scrollable-region-focusable), and a screen reader names it after the table's section.
  function focusableScrollers() {
    var headings = Array.prototype.slice.call(document.querySelectorAll(".md-content h1, .md-content h2, " +
                                                                        ".md-content h3"));
    var used = {};
    document.querySelectorAll(".md-typeset__scrollwrap").forEach(function (wrap) {
      if (wrap.scrollWidth <= wrap.clientWidth || wrap.hasAttribute("tabindex")) return;
      var heading = null;
      headings.forEach(function (h) {
        if (h.compareDocumentPosition(wrap) & Node.DOCUMENT_POSITION_FOLLOWING) heading = h;
      });
      var label = (heading ? heading.textContent.replace(/\u00b6/g, "").trim() + ": " : "") + "table, scrolls sideways";
      used[label] = (used[label] || 0) + 1;
      wrap.setAttribute("tabindex", "0");
      wrap.setAttribute("role", "region");
      wrap.setAttribute("aria-label", used[label] > 1 ? label + " (" + used[label] + ")" : label);
    });
  }

  function start() {
    init();
    focusableScrollers();
  }

  if (typeof window.document$ !== "undefined" && window.document$.subscribe) {
    window.document$.subscribe(start);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();

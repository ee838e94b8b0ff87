// The catalogue page's filters: rows of #rl-catalogue carry data-severity, data-impact and data-engines;
// each <select data-filter="..."> narrows the rows shown. Material's instant navigation swaps pages without a
// reload, so bind on every page change (document$) where it exists, else on DOMContentLoaded.
(function () {
  "use strict";

  function matches(row, filters) {
    if (filters.severity && row.dataset.severity !== filters.severity) return false;
    if (filters.impact && row.dataset.impact !== filters.impact) return false;
    if (filters.engine) {
      var engines = (row.dataset.engines || "").split(" ");
      if (engines.indexOf(filters.engine) < 0) return false;
    }
    return true;
  }

  function apply(table, selects, counter) {
    var filters = {};
    selects.forEach(function (s) { filters[s.dataset.filter] = s.value; });
    var rows = table.querySelectorAll("tbody tr");
    var shown = 0;
    rows.forEach(function (row) {
      var ok = matches(row, filters);
      row.hidden = !ok;
      if (ok) shown += 1;
    });
    if (counter) counter.textContent = shown + " of " + rows.length + " records shown";
    var params = new URLSearchParams(window.location.search);
    selects.forEach(function (s) {
      if (s.value) params.set(s.dataset.filter, s.value); else params.delete(s.dataset.filter);
    });
    var query = params.toString();
    window.history.replaceState(null, "", window.location.pathname + (query ? "?" + query : "") + window.location.hash);
  }

  function init() {
    var table = document.getElementById("rl-catalogue");
    if (!table || table.dataset.rlBound) return;
    table.dataset.rlBound = "1";
    var selects = Array.prototype.slice.call(document.querySelectorAll("#rl-filters select[data-filter]"));
    var counter = document.getElementById("rl-count");
    var params = new URLSearchParams(window.location.search);
    selects.forEach(function (s) {
      var wanted = params.get(s.dataset.filter);
      if (wanted && s.querySelector('option[value="' + wanted.replace(/"/g, "") + '"]')) s.value = wanted;
      s.addEventListener("change", function () { apply(table, selects, counter); });
    });
    apply(table, selects, counter);
  }

  if (typeof window.document$ !== "undefined" && window.document$.subscribe) {
    window.document$.subscribe(init);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();

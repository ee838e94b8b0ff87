// Material for MkDocs 9 has no setting for the search query: its bundle starts the search worker as it loads and
// hands it the query as typed, and lunr reads a leading "-" as "must not contain" (so "--max-model-len" is a parse
// error and "-fa" matches every page without "fa"). This script, loaded before the bundle (overrides/main.html),
// starts that worker through javascripts/search-worker.js, which rewrites each query before lunr parses it.
(function () {
  "use strict";
  var Original = window.Worker;
  var script = document.currentScript;
  if (typeof Original !== "function" || !script) return;
  var wrapper = new URL("search-worker.js", script.src).href;
  var SEARCH_WORKER = /\/assets\/javascripts\/workers\/search\.[0-9a-f]+\.min\.js$/;

  function Worker(url, options) {
    var target = new URL(String(url), document.baseURI);
    if (target.origin === window.location.origin && SEARCH_WORKER.test(target.pathname)) {
      return new Original(wrapper + "?worker=" + encodeURIComponent(target.pathname), options);
    }
    return new Original(url, options);
  }
  Worker.prototype = Original.prototype;
  window.Worker = Worker;
})();

// The site's search worker: Material's own (named by ?worker=, a path on this site), with every query rewritten
// by the rules of javascripts/search-rules.js before lunr parses it (the catalogue's filter uses the same rules,
// so that both find a record by the same words). Started by javascripts/search-query.js.
(function () {
  "use strict";

  importScripts(new URL("search-rules.js", self.location.href).href);
  var rules = self.relialintSearchRules;
  self.relialintTransform = rules.lunrQuery;

  var add = self.addEventListener;
  self.addEventListener = function (type, listener, options) {
    if (type === "message" && typeof listener === "function") {
      var inner = listener;
      listener = function (event) {
        var message = event.data;
        if (message && typeof message.data === "string") {
          var copy = {};
          Object.keys(message).forEach(function (key) { copy[key] = message[key]; });
          copy.data = rules.lunrQuery(message.data);
          event = new MessageEvent("message", { data: copy });
        }
        return inner.call(this, event);
      };
    }
    return add.call(self, type, listener, options);
  };

  var path = new URL(self.location.href).searchParams.get("worker") || "";
  if (/^\/(?:[^/?#]+\/)*assets\/javascripts\/workers\/search\.[0-9a-f]+\.min\.js$/.test(path)) {
    importScripts(new URL(path, self.location.href).href);
  }
})();

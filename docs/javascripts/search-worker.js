// The site's search worker: Material's own (named by ?worker=, a path on this site), with every query rewritten
// by transform() before lunr parses it. Started by javascripts/search-query.js.
//
// What users type, and what the index holds (relialint.site_search):
// * a flag, with its dashes ("--max-model-len", "-fa", "--kv-cache-dtype=fp8"): the flag as one token, its words
//   joined by "_" ("max_model_len", the form each record's search terms hold), matched whole and weighted up, and
//   its words on their own, for pages that write it in prose. A "^N" weight also keeps Material from making the
//   term a prefix ("fa*" would match "fail" and "fast");
// * NAME=VALUE: both sides;
// * lunr's own syntax (a leading "+" or "-", "field:", "^boost", "~fuzz") is read as text, never as operators,
//   and a half-typed flag ("--max-model-") is searched as far as it goes.
(function () {
  "use strict";

  var FLAG = /^-+([A-Za-z][A-Za-z0-9]*(?:[-_.]+[A-Za-z0-9]+)*)[-_.]*$/;

  function transform(query) {
    var out = [];
    String(query).split(/\s+/).forEach(function (word) {
      word.split("=").forEach(function (part) {
        var flag = FLAG.exec(part);
        if (flag) {
          var joined = flag[1].replace(/[-.]+/g, "_").toLowerCase();
          out.push(joined + "^10");
          flag[1].split(/[-_.]+/).forEach(function (piece) {
            if (piece && piece.toLowerCase() !== joined) out.push(piece.toLowerCase() + "^1");
          });
          return;
        }
        part.replace(/[:^~*+]/g, " ").split(" ").forEach(function (text) {
          text = text.replace(/^-+|-+$/g, "");
          if (text) out.push(text);
        });
      });
    });
    return out.join(" ");
  }
  self.relialintTransform = transform;

  var add = self.addEventListener;
  self.addEventListener = function (type, listener, options) {
    if (type === "message" && typeof listener === "function") {
      var inner = listener;
      listener = function (event) {
        var message = event.data;
        if (message && typeof message.data === "string") {
          var copy = {};
          Object.keys(message).forEach(function (key) { copy[key] = message[key]; });
          copy.data = transform(message.data);
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

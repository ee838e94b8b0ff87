// What a typed query matches, in one place for the site's search (javascripts/search-worker.js, which hands lunr
// these clauses) and the catalogue's filter (javascripts/catalogue.js, which matches them against each record's
// search tokens, search/record-terms.json). Loaded as a page script and by the worker (importScripts).
//
// The index (relialint.site.search) holds each field as Material's tokenizer splits it: by the search separator
// (SEPARATOR, mkdocs.yml's `separator`; tests/test_site_search.py checks they agree), lower case, nothing removed
// or stemmed (the search plugin's `pipeline` is empty). A typed query is split into words at white space and "=";
// each word gives clauses, any of which may match a token:
// * a flag with its dashes ("--max-model-len", "-fa"): the flag as one token, its words joined by "_"
//   ("max_model_len", the form each record's and page's `kw` holds), matched whole;
// * anything else: each part between separators as a prefix ("h100" matches "h100" and "h100_sxm"); a word of
//   several parts ("kv-cache-dtype", "DGX/Spark") needs every part (lunr's "+"), so "no-such-word" is not "no".
// lunr's own syntax (a leading "+" or "-", "field:", "^boost", "~fuzz", "*") is read as text, never as operators.
//
// The search ranks every entry that matches a word of the query (all parts of a word of several); the filter
// shows the records that match every word. For a one-word query both give the same records.
(function (global) {
  "use strict";

  var SEPARATOR = /[\s\-,:;!=\[\]()"`/|*]+|&[lg]t;/;
  var FLAG = /^-+([A-Za-z][A-Za-z0-9]*(?:[-_.]+[A-Za-z0-9]+)*)[-_.]*$/;

  function flagToken(name) {
    return name.replace(/[-.]+/g, "_").toLowerCase();
  }

  // One word's clauses, each term once: [{term: "max_model_len", prefix: false, required: false}] for a flag, its
  // parts as prefixes for anything else, each required where there are several.
  function clauses(word) {
    var flag = FLAG.exec(word);
    if (flag) return [{ term: flagToken(flag[1]), prefix: false, required: false }];
    var parts = [];
    word.replace(/[:^~*+\\]/g, " ").split(SEPARATOR).forEach(function (part) {
      part = part.toLowerCase();
      if (part && parts.indexOf(part) < 0) parts.push(part);
    });
    return parts.map(function (part) { return { term: part, prefix: true, required: parts.length > 1 }; });
  }

  // The words of a query, each with its clauses; words that give none are left out.
  function words(query) {
    var out = [];
    String(query || "").split(/\s+/).forEach(function (chunk) {
      chunk.split("=").forEach(function (word) {
        var found = clauses(word);
        if (found.length) out.push(found);
      });
    });
    return out;
  }

  // The query as lunr reads it in Material's worker: a whole-token clause weighted up ("^10", which also keeps
  // Material from making it a prefix), a prefix clause as it is (Material appends its "*"), a required one with
  // its "+" and "*" (Material leaves a term with "+" as it is).
  function lunrQuery(query) {
    var out = [];
    words(query).forEach(function (found) {
      found.forEach(function (c) {
        out.push(!c.prefix ? c.term + "^10" : c.required ? "+" + c.term + "*" : c.term);
      });
    });
    return out.join(" ");
  }

  function clauseMatches(clause, tokens) {
    if (!clause.prefix) return Object.prototype.hasOwnProperty.call(tokens, clause.term);
    for (var token in tokens) {
      if (Object.prototype.hasOwnProperty.call(tokens, token) && token.lastIndexOf(clause.term, 0) === 0) return true;
    }
    return false;
  }

  // Whether a record with these search tokens (an object used as a set) matches every word of the query (every
  // clause of each word: a word has several only where each is required).
  function matchesEvery(query, tokens) {
    return words(query).every(function (found) {
      return found.every(function (c) { return clauseMatches(c, tokens); });
    });
  }

  global.relialintSearchRules = {
    SEPARATOR: SEPARATOR, clauses: clauses, words: words, lunrQuery: lunrQuery, matchesEvery: matchesEvery
  };
})(typeof self !== "undefined" ? self : this);

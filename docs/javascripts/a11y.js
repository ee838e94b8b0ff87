// Accessible names the theme leaves out: its search dialog has none, the navigation section of a page with an
// index (Catalogue) is labelled by an icon-only toggle, and the toolbars of code blocks are unnamed landmarks
// that screen readers cannot tell apart. A table wider than the page scrolls sideways in the theme's wrapper:
// a keyboard must be able to reach it, so a wrapper that scrolls takes the focus. Runs on every page change (document$ under instant navigation) and
// again when the theme adds code-block toolbars after load.
(function () {
  "use strict";

  function name() {
    var search = document.querySelector(".md-search[role=dialog]");
    if (search && !search.hasAttribute("aria-label")) search.setAttribute("aria-label", "Search");
    document.querySelectorAll("nav[aria-labelledby]").forEach(function (nav) {
      var label = document.getElementById(nav.getAttribute("aria-labelledby"));
      if (!label || label.textContent.trim() || label.hasAttribute("aria-label")) return;
      var link = label.parentElement ? label.parentElement.querySelector("a") : null;
      var text = link ? link.textContent.trim() : "";
      if (text) label.setAttribute("aria-label", text);
    });
    document.querySelectorAll(".md-typeset__scrollwrap").forEach(function (wrap, i) {
      if (wrap.scrollWidth > wrap.clientWidth && !wrap.hasAttribute("tabindex")) {
        wrap.setAttribute("tabindex", "0");
        wrap.setAttribute("role", "region");
        wrap.setAttribute("aria-label", "Table " + (i + 1) + ", scrolls sideways");
      }
    });
    document.querySelectorAll(".md-code__nav").forEach(function (nav, i) {
      var wanted = "Code block " + (i + 1);
      if (nav.getAttribute("aria-label") !== wanted) nav.setAttribute("aria-label", wanted);
    });
  }

  var pending = false;
  function soon() {
    if (pending) return;
    pending = true;
    window.requestAnimationFrame(function () { pending = false; name(); });
  }

  if (typeof window.document$ !== "undefined" && window.document$.subscribe) {
    window.document$.subscribe(soon);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", soon); else soon();
  new MutationObserver(function (changes) {
    for (var i = 0; i < changes.length; i++) {
      if (changes[i].addedNodes.length) { soon(); return; }
    }
  }).observe(document.documentElement, { childList: true, subtree: true });
})();

// Accessible names the theme leaves out: its search dialog has none, the navigation section of a page with an
// index (Catalogue) is labelled by an icon-only toggle, and the toolbars of code blocks are unnamed landmarks
// that screen readers cannot tell apart. A table or a code block wider than its box scrolls sideways: a keyboard
// must be able to reach it (then the arrow keys scroll it), so a box that scrolls takes the focus and is named,
// and one that no longer scrolls (a wider window) gives the focus back. The theme sets and removes tabindex on
// code that scrolls itself, and only where the pointer can hover: a change it makes is watched and put right.
// Runs on every page change (document$ under instant navigation) and again when the theme adds code-block
// toolbars after load.
(function () {
  "use strict";

  // `box` takes the focus, as a named region, while its content is wider than it is; else it is left as it was.
  function reachable(box, label) {
    var marked = box.getAttribute("data-rl-scroll") === "1";
    if (box.scrollWidth > box.clientWidth + 1) {
      if (box.getAttribute("tabindex") !== "0") box.setAttribute("tabindex", "0");
      if (!marked) {
        box.setAttribute("role", "region");
        box.setAttribute("data-rl-scroll", "1");
      }
      if (box.getAttribute("aria-label") !== label) box.setAttribute("aria-label", label);
    } else if (marked) {
      ["tabindex", "role", "aria-label", "data-rl-scroll"].forEach(function (a) { box.removeAttribute(a); });
    }
  }

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
      reachable(wrap, "Table " + (i + 1) + ", scrolls sideways");
    });
    document.querySelectorAll(".md-typeset pre > code").forEach(function (code, i) {
      reachable(code, "Code block " + (i + 1) + ", scrolls sideways");
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
      if (changes[i].addedNodes.length || changes[i].type === "attributes") { soon(); return; }
    }
  }).observe(document.documentElement, { childList: true, subtree: true, attributes: true,
                                         attributeFilter: ["tabindex"] });
  window.addEventListener("resize", soon);
  document.addEventListener("toggle", soon, true);  // a <details> opened: the code inside it now has a width
})();

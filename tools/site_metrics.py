"""How far the source is from a reader on the built record pages, measured in Chromium (issue 29).

For every ``/records/RLxxx/`` page of a built site:

* its length in screens, ``document.documentElement.scrollHeight / innerHeight``, at desktop (1280 x 800) and
  phone (390 x 844) size, with folded sections as the page opens (closed);
* its references (the items of the list after the ``References`` heading) and how many of them are links;
* the issue and PR numbers in the page's text ("issue 20820", "PR #17885", "#38652") that are not inside a link
  (code and code blocks excluded: a ``#`` there is a comment or a value, not a number in prose);
* whether the page has any link off the site at all.

    python tools/site_metrics.py                 # builds the site (mkdocs build --strict) into a temporary folder
    python tools/site_metrics.py --site DIR      # measures an already built site
    python tools/site_metrics.py --json          # the per-page figures as JSON too

``tests/test_site_record_browser.py`` uses :func:`measure_pages` and :func:`summary` so its figures are this
script's. Nothing here is timed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

SEARCH_INDEX = "search/search_index.json"
ISSUE_NUMBER = r"\b(?:issues?|PRs?|pull requests?)\s+#?\d{2,7}\b|(?<![\w&/#])#\d{2,7}\b"
"""A number in prose that names an issue or PR (a JavaScript regular expression, matched case-insensitively)."""

_PAGE_JS = """(pattern) => {
  const article = document.querySelector('article') || document.body;
  const root = location.origin;
  const screens = document.documentElement.scrollHeight / window.innerHeight;
  const external = [...article.querySelectorAll('a[href]')].filter(a => {
    const url = new URL(a.getAttribute('href'), location.href);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin !== root;
  });
  const heading = document.getElementById('references');
  let refs = 0, linkedRefs = 0;
  if (heading) {
    let el = heading.nextElementSibling;
    while (el && !/^H[1-6]$/.test(el.tagName) && el.tagName !== 'DETAILS') {
      if (el.tagName === 'UL' || el.tagName === 'OL') {
        for (const li of el.querySelectorAll(':scope > li')) {
          refs += 1;
          if (li.querySelector('a[href^="http"]')) linkedRefs += 1;
        }
      }
      el = el.nextElementSibling;
    }
    if (!refs && heading.closest('details')) {
      for (const li of heading.closest('details').querySelectorAll('li')) {
        refs += 1;
        if (li.querySelector('a[href^="http"]')) linkedRefs += 1;
      }
    }
  }
  const re = new RegExp(pattern, 'gi');
  const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
  const plain = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement.closest('a, code, pre, script, style')) continue;
    for (const m of node.nodeValue.matchAll(re)) plain.push(m[0]);
  }
  return {screens, external: external.length, refs, linkedRefs, plain};
}"""


@dataclass(frozen=True)
class PageMetrics:
    record: str
    desktop_screens: float
    phone_screens: float
    references: int
    linked_references: int
    plain_numbers: list[str]
    external_links: int


def measure_page(desktop: Any, phone: Any, base_url: str, record: str) -> PageMetrics:
    """One record page, opened in a desktop tab and a phone tab (Playwright pages)."""
    url = f"{base_url}records/{record}/"
    desktop.goto(url)
    at_desktop = desktop.evaluate(_PAGE_JS, ISSUE_NUMBER)
    phone.goto(url)
    at_phone = phone.evaluate(_PAGE_JS, ISSUE_NUMBER)
    return PageMetrics(record, round(at_desktop["screens"], 2), round(at_phone["screens"], 2), at_desktop["refs"],
                       at_desktop["linkedRefs"], list(at_desktop["plain"]), at_desktop["external"])


def measure_pages(browser: Any, base_url: str, records: Iterable[str], progress: bool = False) -> list[PageMetrics]:
    """Every record page in ``records``, in a desktop and a phone context of ``browser`` (Playwright);
    ``progress``: each page's figures on stderr as they come."""
    desktop_context = browser.new_context(viewport=DESKTOP)
    phone_context = browser.new_context(viewport=PHONE)
    for context in (desktop_context, phone_context):
        # only the built site, and not its search index: building it is the page's heaviest work (seconds on a
        # small machine, once per page) and changes nothing about the page's layout or links
        context.route("**/*", lambda route: route.continue_()
                      if route.request.url.startswith(base_url) and SEARCH_INDEX not in route.request.url
                      else route.abort())
    try:
        desktop, phone = desktop_context.new_page(), phone_context.new_page()
        pages: list[PageMetrics] = []
        for rid in sorted(records):
            pages.append(measure_page(desktop, phone, base_url, rid))
            if progress:
                print(json.dumps(asdict(pages[-1])), file=sys.stderr, flush=True)
        return pages
    finally:
        desktop_context.close()
        phone_context.close()


def summary(pages: list[PageMetrics]) -> dict[str, Any]:
    """The figures of issue 29: page length (median, max) at both sizes, references as links, plain numbers,
    records with no link off the site."""
    desk = [p.desktop_screens for p in pages]
    phone = [p.phone_screens for p in pages]
    return {
        "pages": len(pages),
        "desktop_screens_median": round(statistics.median(desk), 2),
        "desktop_screens_max": max(desk),
        "phone_screens_median": round(statistics.median(phone), 2),
        "phone_screens_max": max(phone),
        "references": sum(p.references for p in pages),
        "references_linked": sum(p.linked_references for p in pages),
        "plain_issue_numbers": sum(len(p.plain_numbers) for p in pages),
        "records_without_link": sorted(p.record for p in pages if p.external_links == 0),
    }


def _build(out: Path) -> Path:
    sys.path.insert(0, str(ROOT))
    from tests.test_site_browser import build_site

    return build_site(ROOT / "mkdocs.yml", out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, help="a built site (default: build one)")
    parser.add_argument("--json", action="store_true", help="print every page's figures as JSON too")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from tests.test_site_browser import chromium, served

    with tempfile.TemporaryDirectory(prefix="relialint-metrics-") as tmp:
        site_dir = args.site or _build(Path(tmp) / "site")
        ids = sorted(p.name for p in (site_dir / "records").iterdir() if p.is_dir() and p.name.startswith("RL"))
        with served(site_dir) as url, chromium() as browser:
            pages = measure_pages(browser, url, ids, progress=True)
    if args.json:
        print(json.dumps([asdict(p) for p in pages], indent=1))
    figures = summary(pages)
    for key, value in figures.items():
        print(f"{key}: {len(value) if isinstance(value, list) else value}"
              + (f" ({', '.join(value)})" if isinstance(value, list) and value else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

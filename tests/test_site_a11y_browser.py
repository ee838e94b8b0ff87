"""Accessibility of the built site in headless Chromium (see test_site_browser), in light and dark (issue 29).

axe-core (the copy bundled by axe-playwright-python, run offline in the page) reports no violation, and no pointer
target is smaller than 24 px, on every page type of the site (``A11Y_PAGES``) in both colour schemes (Material's
``default`` and ``slate``) at desktop and phone width: the whole page, the theme's header, navigation and footer
included. Dark mode is reached the way a reader reaches it: the toggle in the header, whose choice Material keeps
for the pages after; a system set to dark opens the site dark. A code block wider than its box takes the focus
from the keyboard and scrolls with the arrow keys. Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from tests.test_site_browser import (  # noqa: F401  (the fixtures of the browser set-up, shared)
    ARTIFACTS,
    base_url,
    browser,
    built_site,
    local_tab,
)

pytestmark = pytest.mark.slow

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
VIEWPORTS = {"desktop": DESKTOP, "phone": PHONE}
SCHEMES = {"light": "default", "dark": "slate"}
"""The reader's name for a colour scheme -> Material's (``data-md-color-scheme`` on the body)."""

A11Y_PAGES = [
    "",  # home
    "usage/",  # a hand-written documentation page, with code and tables
    "flag-tables/",  # a hand-written page of wide tables
    "records/",  # the catalogue index
    "records/RL101/",  # record pages: a wrong-output record with a before/after fix
    "records/RL206/",
    "records/RL401/",
    "records/RL503/",
    "records/RL105/",  # a withdrawn record
    "setup/?engine=vllm&version=0.30.0&gpu=H100",  # my setup, a setup chosen
    "upgrade/?engine=vllm&from=0.19.1&to=0.20.0&gpu=H100",  # the upgrade view, with its result
    "releases/",  # the releases' index and a release page
    "releases/vllm-0.20.0/",
    "reference/facts/",  # reference pages
    "reference/hardware/",
    "reference/schema/",
    "hardware/",  # the GPU families' index and a family page
    "hardware/cdna3/",
    "tags/",
    "404.html",  # the page a broken link lands on
]
"""One path of each page type of the site; a new page type is one more path here."""

READY = {"setup/": "#rl-setup[data-ready]", "upgrade/": "#rl-upgrade[data-ready]"}
"""Pages whose content a script fills in after load: the element present once it has."""

KEY_SCROLL_GUARD_MS = 120_000
"""How long to wait for a scroll by key to show: a guard against a hang on a loaded machine, not a measure."""

AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]


def _slug(path: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", path.split("?")[0].lower()).strip("-") or "home"


def _axe(tab: Any) -> list[dict[str, Any]]:
    try:
        from axe_playwright_python.sync_playwright import Axe
    except ImportError:
        if os.environ.get("RELIALINT_REQUIRE_BROWSER"):
            pytest.fail("axe-playwright-python is not installed (pip install -e '.[test]')")
        pytest.skip("axe-playwright-python is not installed")
    options = {"runOnly": {"type": "tag", "values": AXE_TAGS}, "resultTypes": ["violations"]}
    return list(Axe().run(tab, options=options).response["violations"])


_SMALL_TARGETS = """() => {
  const shown = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.display === 'none' || s.visibility === 'hidden' || s.opacity === '0' || s.pointerEvents === 'none')
        return false;
    }
    return el.getClientRects().length > 0;
  };
  const out = [];
  const targets = 'a[href], button, input:not([type=hidden]), select, textarea, summary, label[for], '
                + '[role=button], [tabindex]:not([tabindex="-1"])';
  for (const el of document.querySelectorAll(targets)) {
    const r = el.getBoundingClientRect();
    if (!shown(el) || r.width === 0 || r.height === 0) continue;
    if (r.width < 24 || r.height < 24)
      out.push(`${el.tagName.toLowerCase()}.${el.className} "${el.textContent.trim().slice(0, 30)}" `
               + `${r.width.toFixed(0)}x${r.height.toFixed(0)}`);
  }
  return out;
}"""

_SCHEME = "() => document.body.getAttribute('data-md-color-scheme')"


def _toggle(tab: Any, to: str) -> None:
    """Click the header's palette toggle, as a reader does, until the page is in scheme ``to``."""
    name = "Switch to dark mode" if to == "slate" else "Switch to light mode"
    tab.locator(f"label.md-header__button[title='{name}']").click()
    tab.wait_for_function(f"() => document.body.getAttribute('data-md-color-scheme') === '{to}'")


def _open(tab: Any, base_url: str, path: str) -> None:
    tab.goto(base_url + path)
    tab.wait_for_selector("article")
    for prefix, selector in READY.items():
        if path.startswith(prefix):
            tab.wait_for_selector(selector)
    tab.wait_for_load_state("networkidle")


@contextmanager
def scheme_tab(browser: Any, base_url: str, viewport: str, scheme: str) -> Iterator[Any]:
    """A tab at ``viewport`` (a key of VIEWPORTS), its system set to light, switched to ``scheme`` (a key of
    SCHEMES) by the toggle; Material keeps the choice for every page the tab opens after."""
    with local_tab(browser, base_url, viewport=VIEWPORTS[viewport], color_scheme="light") as tab:
        tab.goto(base_url)
        assert tab.evaluate(_SCHEME) == "default"
        if SCHEMES[scheme] != "default":
            _toggle(tab, SCHEMES[scheme])
        yield tab


def axe_problems(tab: Any, base_url: str, scheme: str) -> list[str]:
    """What axe finds, and the targets under 24 px, on each of A11Y_PAGES, checking each is in ``scheme``."""
    problems: list[str] = []
    for path in A11Y_PAGES:
        _open(tab, base_url, path)
        assert tab.evaluate(_SCHEME) == SCHEMES[scheme], f"/{path} is not in the {scheme} scheme"
        for violation in _axe(tab):
            targets = [" ".join(map(str, n["target"])) for n in violation["nodes"]][:5]
            problems.append(f"/{path} {violation['id']} ({violation['impact']}): {targets}")
        problems += [f"/{path} target under 24 px: {t}" for t in tab.evaluate(_SMALL_TARGETS)]
    return problems


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_no_accessibility_violations_and_targets_at_least_24px(browser: Any, base_url: str, scheme: str,
                                                             viewport: str) -> None:
    """Every page type, in one scheme at one width: no axe violation anywhere on the page, no target under 24 px."""
    with scheme_tab(browser, base_url, viewport, scheme) as tab:
        problems = axe_problems(tab, base_url, scheme)
        ARTIFACTS.mkdir(exist_ok=True)
        for path in ("", "records/", "records/RL101/"):
            _open(tab, base_url, path)
            tab.screenshot(path=str(ARTIFACTS / f"{_slug(path)}-{scheme}-{viewport}.png"))
    assert problems == [], "\n".join(problems)


def test_dark_mode_follows_the_system_until_the_reader_chooses(browser: Any, base_url: str) -> None:
    """A system set to dark opens the site dark; the toggle's choice then holds on the next page, over the
    system's."""
    with local_tab(browser, base_url, viewport=DESKTOP, color_scheme="dark") as tab:
        tab.goto(base_url + "records/")
        assert tab.evaluate(_SCHEME) == "slate"
        _toggle(tab, "default")
        tab.goto(base_url + "records/RL101/")
        assert tab.evaluate(_SCHEME) == "default"
        _toggle(tab, "slate")
        tab.goto(base_url + "records/RL206/")
        assert tab.evaluate(_SCHEME) == "slate"


_SCROLLERS = """() => Array.from(document.querySelectorAll('article pre > code'))
  .filter(c => c.scrollWidth > c.clientWidth + 1)
  .map(c => ({id: c.closest('pre').id, tabindex: c.getAttribute('tabindex'), role: c.getAttribute('role'),
              name: c.getAttribute('aria-label')}))"""


_FOCUS_BEFORE = """(id) => {
  const code = document.querySelector(`#${id} > code`);
  const all = Array.from(document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]'))
    .filter(e => e.tabIndex >= 0 && !e.disabled && e.getClientRects().length > 0);
  const before = all.filter(e => e !== code && (e.compareDocumentPosition(code) & Node.DOCUMENT_POSITION_FOLLOWING)
                                 && !e.contains(code));
  if (!before.length) return false;
  before[before.length - 1].focus();
  return document.activeElement === before[before.length - 1];
}"""


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_a_code_block_wider_than_its_box_is_reached_and_scrolled_by_keyboard(browser: Any, base_url: str,
                                                                             device: str) -> None:
    """RL101's trigger is longer than the page is wide: every such block is a named region in the tab order (on a
    touch phone too, where the theme itself leaves it out), Tab reaches the first one, the arrow keys scroll it
    and back."""
    options: dict[str, Any] = {"viewport": DESKTOP}
    if device == "phone":
        options = {"viewport": PHONE, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
    with local_tab(browser, base_url, **options) as tab:
        _open(tab, base_url, "records/RL101/")
        tab.wait_for_function("() => document.querySelector('article pre > code[data-rl-scroll]')")
        scrollers = tab.evaluate(_SCROLLERS)
        assert scrollers, "no code block on RL101 is wider than its box"
        for block in scrollers:
            assert block["tabindex"] == "0" and block["role"] == "region", block
            assert re.fullmatch(r"Code block \d+, scrolls sideways", block["name"] or ""), block
        # Tab from the focusable element just before the block (the whole page's order: the navigation drawer
        # of a phone alone holds every record's link) lands on the block.
        target = scrollers[0]["id"]
        assert tab.evaluate(_FOCUS_BEFORE, target), f"nothing focusable before #{target}"
        tab.keyboard.press("Tab")
        assert tab.evaluate("() => (document.activeElement.closest('pre') || {}).id || ''") == target
        assert tab.evaluate("() => document.activeElement.scrollLeft") == 0
        for _ in range(5):
            tab.keyboard.press("ArrowRight")
        # the browser animates a scroll by key: wait for it to move rather than read it at once (the timeout guards
        # against a hang, it measures nothing)
        tab.wait_for_function("() => document.activeElement.scrollLeft > 0", timeout=KEY_SCROLL_GUARD_MS)
        for _ in range(40):
            tab.keyboard.press("ArrowLeft")
        tab.wait_for_function("() => document.activeElement.scrollLeft === 0", timeout=KEY_SCROLL_GUARD_MS)

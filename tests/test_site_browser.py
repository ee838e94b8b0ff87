"""The built site in a real headless Chromium (Debian's /usr/bin/chromium driven by Playwright; no browser download).

Builds the site with ``mkdocs build --strict``, serves it on 127.0.0.1 from a thread, and checks what a reader
does: the catalogue lists every record, the severity filter hides the others, search finds records by title word
and by env var, a search result opens the record's page. Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from relialint.site import build as site
from tests.conftest import ROOT
from tests.work import HANG_S

CHROMIUM = os.environ.get("RELIALINT_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]
ARTIFACTS = ROOT / "test-artifacts"
TIMEOUT_MS = HANG_S * 1000
"""How long the browser waits for a page or an element: a guard against a hang, not a measure of speed (a loaded
machine makes the page slower, never wrong)."""

pytestmark = pytest.mark.slow


def _require_browser() -> None:
    """Skip where no Chromium or Playwright is installed, except in CI (``.ci/run`` installs both): fail there."""
    required = bool(os.environ.get("RELIALINT_REQUIRE_BROWSER"))
    problem = None
    if shutil.which(CHROMIUM) is None and not Path(CHROMIUM).is_file():
        problem = f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            problem = "playwright is not installed (pip install -e '.[test]')"
    if problem:
        if required:
            pytest.fail(problem)
        pytest.skip(problem)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def build_site(config: Path, out: Path) -> Path:
    """``mkdocs build --strict`` of ``config`` into ``out``."""
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(config),
                           "-d", str(out)], capture_output=True, text=True,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


@contextmanager
def served(folder: Path) -> Iterator[str]:
    """``folder`` served on 127.0.0.1 from a thread: its base URL."""
    handler = functools.partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def chromium() -> Iterator[Any]:
    """Debian's Chromium, driven by Playwright."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield instance
        finally:
            instance.close()


@pytest.fixture(scope="module")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    _require_browser()
    return build_site(ROOT / "mkdocs.yml", tmp_path_factory.mktemp("site"))


@pytest.fixture(scope="module")
def base_url(built_site: Path) -> Iterator[str]:
    with served(built_site) as url:
        yield url


@pytest.fixture(scope="module")
def browser(base_url: str) -> Iterator[Any]:
    with chromium() as instance:
        yield instance


@contextmanager
def local_tab(browser: Any, base_url: str, **options: Any) -> Iterator[Any]:
    """A tab in a fresh browser context (``options``: its viewport, device) that reaches only the built site."""
    context = browser.new_context(**options)
    # The site must not reach out to other hosts; anything that tries is answered locally.
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(base_url)
                  else route.abort())
    tab = context.new_page()
    tab.set_default_timeout(TIMEOUT_MS)
    try:
        yield tab
    finally:
        context.close()


@pytest.fixture
def page(browser: Any, base_url: str) -> Iterator[Any]:
    with local_tab(browser, base_url, viewport={"width": 1366, "height": 900}) as tab:
        yield tab


@pytest.fixture(scope="module")
def records() -> dict[str, dict[str, Any]]:
    return {r.id: r.data for r in site.load_records(ROOT / "records")}


def _rows(page: Any) -> Any:
    return page.locator("#rl-catalogue tbody tr")


def test_index_lists_every_record(page: Any, base_url: str, records: dict[str, dict[str, Any]]) -> None:
    page.goto(base_url + "records/")
    page.wait_for_selector("#rl-catalogue")
    ids = page.eval_on_selector_all("#rl-catalogue tbody tr", "rows => rows.map(r => r.dataset.id)")
    assert sorted(ids) == sorted(records)
    for rid, data in records.items():
        row = page.locator(f'#rl-catalogue tbody tr[data-id="{rid}"]')
        assert row.is_visible()
        assert str(data["title"]) in row.inner_text()
    assert page.locator("#rl-count").inner_text() == f"{len(records)} of {len(records)} records shown"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "catalogue-index.png"), full_page=True)


@pytest.mark.parametrize("severity", ["blocker", "major"])
def test_severity_filter_hides_the_others(page: Any, base_url: str, records: dict[str, dict[str, Any]],
                                          severity: str) -> None:
    page.goto(base_url + "records/")
    page.select_option("#rl-filter-severity", severity)
    wanted = sorted(rid for rid, d in records.items() if d["severity"] == severity)
    assert wanted, f"no {severity} record to filter"
    visible = [rid for rid in page.eval_on_selector_all("#rl-catalogue tbody tr", "rows => rows.map(r => r.dataset.id)")
               if page.locator(f'#rl-catalogue tbody tr[data-id="{rid}"]').is_visible()]
    assert sorted(visible) == wanted
    for rid, data in records.items():
        if data["severity"] != severity:
            assert page.locator(f'#rl-catalogue tbody tr[data-id="{rid}"]').is_hidden(), rid
    assert page.locator("#rl-count").inner_text() == f"{len(wanted)} of {len(records)} records shown"
    assert f"severity={severity}" in page.url  # the filter is in the URL, so a filtered view can be shared
    if severity == "blocker":
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "catalogue-filtered-blocker.png"), full_page=True)
    page.select_option("#rl-filter-severity", "")
    assert _rows(page).count() == len(records)
    assert page.locator("#rl-count").inner_text() == f"{len(records)} of {len(records)} records shown"


def test_engine_and_impact_filters_combine(page: Any, base_url: str, records: dict[str, dict[str, Any]]) -> None:
    page.goto(base_url + "records/?engine=llama.cpp&impact=wrong-output")
    # the engine filter keeps that engine's records and the engine-independent ones (RL142, NCCL), which apply to it
    wanted = sorted(rid for rid, d in records.items()
                    if ("llama.cpp" in (d.get("engines") or []) or not d.get("engines"))
                    and d["impact"] == "wrong-output")
    assert wanted
    page.wait_for_function(f"document.getElementById('rl-count').textContent.startsWith('{len(wanted)} of')")
    visible = sorted(rid for rid in records if page.locator(f'tr[data-id="{rid}"]').is_visible())
    assert visible == wanted


def _search(page: Any, query: str, target: str) -> Any:
    """Type into material's search box; wait until a result links to ``target``; return that link."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    box = page.locator("input.md-search__input")
    link = page.locator(f'.md-search-result__item a.md-search-result__link[href*="{target}"]').first
    # Material runs the query on key events; the search worker may still be building its index when the first
    # query arrives, so type again until the results come (at most TIMEOUT_MS in all).
    for _attempt in range(TIMEOUT_MS // 2_000):
        box.click()
        box.fill("")
        box.press_sequentially(query)
        try:
            link.wait_for(state="visible", timeout=2_000)
            return link
        except PlaywrightTimeout:
            continue
    shown = page.locator(".md-search-result").inner_text()
    raise AssertionError(f"searching {query!r} shows no link to {target}; the results say: {shown[:500]}")


def _normal(text: str) -> str:
    return " ".join(text.replace("`", "").split())


def test_search_nvfp4_opens_rl101_with_its_fix(page: Any, base_url: str, records: dict[str, dict[str, Any]]) -> None:
    page.goto(base_url)
    link = _search(page, "NVFP4", "records/RL101/")
    link.click()
    page.wait_for_url("**/records/RL101/**")
    article = page.locator("article")
    article.locator("h1").wait_for()
    assert article.locator("h1").inner_text().startswith("RL101")
    assert _normal(str(records["RL101"]["fix"])) in _normal(article.inner_text())
    page.locator("#fix").scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    page.goto(base_url + "records/RL101/")
    page.screenshot(path=str(ARTIFACTS / "record-RL101.png"), full_page=False)


@pytest.mark.parametrize(
    ("query", "rid"),
    [
        ("VLLM_USE_V2_MODEL_RUNNER", "RL107"),
        ("kv-cache-dtype", "RL105"),
        ("gfx1151", "RL108"),
        # issue 29: B200 found RL101 only by its passing example (native FP4), which is no longer indexed; RL104
        # (weight-only FP4 on Blackwell) holds on a B200
        ("B200", "RL104"),
        ("RL107", "RL107"),
        ("confidential-computing-v2-runner-garbage", "RL107"),
    ],
)
def test_search_finds_a_record(page: Any, base_url: str, query: str, rid: str) -> None:
    page.goto(base_url)
    _search(page, query, f"records/{rid}/")

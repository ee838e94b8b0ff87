"""Issue 28 on the site in a real headless Chromium: a release page lists exactly the records the shared delta says
enter and leave; the "upgrade" view lists, for a chosen pair and GPU, exactly the records "my setup" decides differently
on the two sides and the options, variables and defaults of the shared release delta; the release pages, the
Releases index and the view fit a 390 px phone and axe finds no violation in their content. Uses the built site,
server and browser of ``tests/test_site_browser.py``; screenshots go to ``test-artifacts/``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from relialint.core import hardware
from relialint.engines.registry import default_registry
from relialint.engines.releases import release_delta
from relialint.run.upgrade import record_changes
from relialint.site import setup_launch
from tests.test_site_browser import ARTIFACTS, base_url, browser, built_site, local_tab, page, records
from tests.test_site_views_browser import AXE_TAGS, _axe_script

__all__ = ["base_url", "browser", "built_site", "page", "records"]  # fixtures: pytest finds them by name here

pytestmark = pytest.mark.slow

RELEASE = "releases/vllm-0.20.0/"
UPGRADE = "upgrade/?engine=vllm&from=0.19.1&to=0.20.0&gpu=H100"


def _version(engine: str, text: str) -> Any:
    model = default_registry().get(engine)
    assert model is not None
    return model.parse_version(text)


def _listed(page: Any, anchor: str) -> list[str]:
    """The record ids a release page lists under one heading, in order."""
    ids: list[str] = page.evaluate("id => { const h = document.getElementById(id); const list = h.nextElementSibling; "
                         "return list.tagName === 'UL' ? Array.from(list.querySelectorAll('a')).map(a => "
                         "a.textContent.split(':')[0]) : []; }", anchor)
    return ids


def test_a_release_page_lists_the_records_the_delta_gives(page: Any, base_url: str,
                                                          records: dict[str, dict[str, Any]]) -> None:
    changes = record_changes(list(records.values()), "vllm", _version("vllm", "0.19.1"), _version("vllm", "0.20.0"))
    page.goto(base_url + RELEASE)
    page.wait_for_selector("article h1")
    assert page.locator("article h1").inner_text().startswith("What silently changes in vLLM 0.20.0")
    assert _listed(page, "records-entered") == [c.code for c in changes if c.change == "entered"] == \
        ["RL206", "RL218", "RL304"]
    assert _listed(page, "records-left") == [c.code for c in changes if c.change == "left"] == ["RL121", "RL215"]
    defaults = page.evaluate("() => document.getElementById('defaults').nextElementSibling.innerText")
    assert defaults == ("memory.gpu_utilization: 0.9 in vLLM 0.19.1, 0.92 in vLLM 0.20.0. Keep the old value by "
                        "writing --gpu-memory-utilization.")
    page.locator("article a", has_text="RL218").first.click()
    page.wait_for_url("**/records/RL218/**")
    ARTIFACTS.mkdir(exist_ok=True)
    page.goto(base_url + RELEASE)
    page.screenshot(path=str(ARTIFACTS / "release-vllm-0.20.0.png"), full_page=True)


def test_the_releases_index_links_every_release(page: Any, base_url: str) -> None:
    page.goto(base_url + "releases/")
    rows = page.eval_on_selector_all("#rl-releases-vllm tbody tr", "rows => rows.map(r => r.dataset.version)")
    assert rows == [str(v) for v in reversed(default_registry().get("vllm").releases())]  # type: ignore[union-attr]
    row = page.locator('#rl-releases-vllm tr[data-version="0.20.0"]')
    assert row.inner_text().split("\t") == ["0.20.0", "3 / 2", "0 / 11 / 0", "2 / 13", "1"]
    row.locator("a").click()
    page.wait_for_url("**/releases/vllm-0.20.0/")


def _groups(page: Any) -> dict[str, list[str]]:
    return dict(page.eval_on_selector_all(
        ".rl-upgrade-group", "gs => gs.map(g => [g.dataset.group, Array.from(g.querySelectorAll('li'))"
        ".map(li => li.dataset.id)])"))


def _expected_records(records: dict[str, dict[str, Any]], engine: str, gpu: str, old: str, new: str
                      ) -> dict[str, list[str]]:
    """What "my setup" decides on each side (the linter's verdict on the engine's default launch), compared as the
    view compares it."""
    found = hardware.resolve(gpu)
    linter = setup_launch.LaunchLinter()
    out: dict[str, list[str]] = {"entered": [], "left": [], "kept": []}
    rank = {"blocker": 0, "major": 1, "minor": 2}
    for rid, data in sorted(records.items(), key=lambda r: (rank[r[1]["severity"]], r[0])):
        if not data.get("trigger") or data.get("status") == "withdrawn":
            continue
        if data.get("engines") and engine not in data["engines"]:
            continue
        sides = [linter.verdict(data, setup_launch.Setup(engine, found, _version(engine, v))) for v in (old, new)]
        before, after = (None if s is None else s.certainty[0] for s in sides)
        if before is None and after is None:
            continue
        if before is None or (before == "p" and after == "d"):
            out["entered"].append(rid)
        elif after is None or (before == "d" and after == "p"):
            out["left"].append(rid)
        else:
            out["kept"].append(rid)
    return out


def test_the_upgrade_view_lists_the_delta_for_a_pair_on_a_gpu(page: Any, base_url: str,
                                                               records: dict[str, dict[str, Any]]) -> None:
    page.goto(base_url + UPGRADE)
    page.wait_for_selector("#rl-upgrade[data-ready]")
    shown = _groups(page)
    expected = _expected_records(records, "vllm", "H100", "0.19.1", "0.20.0")
    assert {k: shown[k] for k in ("entered", "left", "kept")} == expected
    assert "RL218" in shown["entered"]  # Hopper MoE on FlashInfer by default from 0.20.0
    delta = release_delta(default_registry().get("vllm"), _version("vllm", "0.19.1"), _version("vllm", "0.20.0"))
    assert delta is not None
    assert shown["defaults"] == [d.fact for d in delta.defaults] == ["memory.gpu_utilization"]
    assert shown["accepted"] == [o.name for o in delta.options if o.change == "accepted"]
    assert shown["refused"] == [] and shown["changed"] == []
    assert shown["unread"] == [e.name for e in delta.env if e.change == "unread"]
    assert shown["read"] == [e.name for e in delta.env if e.change == "read"]
    item = page.locator('.rl-upgrade-group[data-group="defaults"] li').first.inner_text()
    assert item == ("memory.gpu_utilization: 0.9 in vLLM 0.19.1, 0.92 in vLLM 0.20.0. Keep the old value by writing "
                    "--gpu-memory-utilization.")
    assert page.locator("#rl-upgrade-gpu option:checked").inner_text() == "H100 (Hopper)"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "upgrade-vllm-0.19.1-0.20.0-h100.png"), full_page=True)

    # the reverse upgrade is the mirror image, and the choice is kept in the URL
    page.select_option("#rl-upgrade-from", label="0.20.0")
    page.select_option("#rl-upgrade-to", label="0.19.1")
    page.wait_for_function("location.search.includes('from=0.20.0') && location.search.includes('to=0.19.1')")
    mirror = _groups(page)
    assert (sorted(mirror["entered"]), sorted(mirror["left"])) == (sorted(shown["left"]), sorted(shown["entered"]))
    assert (mirror["refused"], mirror["read"], mirror["unread"]) == (shown["accepted"], shown["unread"],
                                                                     shown["read"])


def test_the_upgrade_view_decides_the_defaults_the_gpu_decides(page: Any, base_url: str) -> None:
    page.goto(base_url + "upgrade/?engine=vllm&from=0.7.3&to=0.8.0&gpu=H100")
    page.wait_for_selector("#rl-upgrade[data-ready]")
    assert _groups(page)["defaults"] == ["engine.v1", "prefix_caching.enabled"]
    assert page.locator('.rl-upgrade-group[data-group="defaults"] li').first.inner_text() == (
        "engine.v1: false in vLLM 0.7.3, true in vLLM 0.8.0. Keep the old value by writing VLLM_USE_V1.")
    page.select_option("#rl-upgrade-gpu", label="V100 (Volta)")
    page.wait_for_function("location.search.includes('gpu=V100')")
    assert _groups(page)["defaults"] == []  # 0.8.0 falls back to V0 below compute capability 8.0


def test_the_upgrade_view_for_llama_cpp_builds(page: Any, base_url: str) -> None:
    page.goto(base_url + "upgrade/?engine=llama.cpp&from=b9102&to=b9518")
    page.wait_for_selector("#rl-upgrade[data-ready]")
    shown = _groups(page)
    delta = release_delta(default_registry().get("llama.cpp"), _version("llama.cpp", "b9102"),
                          _version("llama.cpp", "b9518"))
    assert delta is not None
    assert shown["refused"] == [o.name for o in delta.options if o.change == "refused"]
    assert shown["refused"][:2] == ["--checkpoint-every-n-tokens", "--ctx-size-draft"]
    assert shown["defaults"] == []
    assert page.locator("#rl-upgrade-notice").is_hidden()


def test_a_version_outside_the_tables_is_not_checked(page: Any, base_url: str) -> None:
    page.goto(base_url + "upgrade/?engine=vllm&from=0.23.1rc1&to=0.99.0")
    page.wait_for_selector("#rl-upgrade[data-ready]")
    assert page.locator("#rl-upgrade-notice").inner_text() == (
        "Not checked: from 0.23.1rc1, to 0.99.0 is not in relialint's tables (vLLM 0.6.6.post1 to 0.33.0, releases "
        "only). Choose the nearest entry.")


@pytest.fixture
def phone(browser: Any, base_url: str) -> Iterator[Any]:
    with local_tab(browser, base_url, viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                   has_touch=True) as tab:
        yield tab


@pytest.mark.parametrize("path", ["releases/", RELEASE, "releases/llamacpp-b9518/", UPGRADE])
def test_no_horizontal_scroll_at_390_px(phone: Any, base_url: str, path: str) -> None:
    phone.goto(base_url + path)
    phone.wait_for_selector("article h1")
    if path.startswith("upgrade/"):
        phone.wait_for_selector("#rl-upgrade[data-ready]")
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"{path}: {width} px wide in a 390 px screen"
    wide = phone.evaluate("Array.from(document.querySelectorAll('article *')).filter(e => "
                          "e.getBoundingClientRect().right > 390.5).map(e => e.tagName + '.' + e.className)")
    assert wide == []
    ARTIFACTS.mkdir(exist_ok=True)
    phone.screenshot(path=str(ARTIFACTS / ("phone-" + re.sub(r"[^a-z0-9]+", "-", path.lower()).strip("-") + ".png")))


@pytest.mark.parametrize("width", [1366, 390])
@pytest.mark.parametrize("path", ["releases/", RELEASE, UPGRADE])
def test_axe_finds_no_violation_in_the_content(browser: Any, base_url: str, path: str, width: int) -> None:
    script = _axe_script()
    with local_tab(browser, base_url, viewport={"width": width, "height": 900}) as tab:
        tab.goto(base_url + path)
        tab.wait_for_selector("article")
        if path.startswith("upgrade/"):
            tab.wait_for_selector("#rl-upgrade[data-ready]")
        tab.evaluate(script)
        found = tab.evaluate("opts => axe.run(document, opts).then(r => r.violations.map(v => ({id: v.id, nodes: "
                             "v.nodes.filter(n => n.target.every(t => document.querySelector(t) && "
                             "document.querySelector(t).closest('.md-content article')))"
                             ".map(n => n.target.join(' '))}))).then(vs => vs.filter(v => v.nodes.length))",
                             {"resultTypes": ["violations"], "runOnly": {"type": "tag", "values": AXE_TAGS}})
    assert found == [], found

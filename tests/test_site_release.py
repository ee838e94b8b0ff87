"""Issue 28 on the site: a page per tabled engine release, the Releases index, and the "upgrade" view's data, all
from the shared upgrade delta (relialint.engines.releases, relialint.run.upgrade), generated and stale-checked."""

from __future__ import annotations

import json
import shutil
from itertools import permutations
from pathlib import Path
from typing import Any

import pytest

from relialint.core.versions import Version
from relialint.engines.registry import default_registry
from relialint.engines.releases import release_delta, releases
from relialint.site import build as site
from relialint.site import releases as site_releases
from relialint.site import upgrade_view
from relialint.site.common import BANNER
from tests.conftest import ROOT

RECORDS = ROOT / "records"
DOCS = ROOT / "docs"


@pytest.fixture(scope="module")
def records() -> list[dict[str, Any]]:
    return [r.data for r in site.load_records(RECORDS)]


@pytest.fixture(scope="module")
def pages(records: list[dict[str, Any]]) -> dict[str, str]:
    return site_releases.render_pages(records)[0]


def _versions(engine: str) -> tuple[Version, ...]:
    return releases(default_registry().get(engine))


def _section(page: str, anchor: str) -> list[str]:
    """The list items (or the one sentence) under a heading of a release page."""
    lines = page.splitlines()
    start = next(i for i, line in enumerate(lines) if line.endswith(f"{{ #{anchor} }}"))
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return [line for line in lines[start + 1 : end] if line]


def test_every_tabled_release_has_a_page_in_the_index_and_the_nav(pages: dict[str, str]) -> None:
    vllm = _versions("vllm")
    llama = _versions("llama.cpp")
    assert (len(vllm), len(llama)) == (55, 13)
    # every engine of the registry with release tables (SGLang's came in with its tables, no line of its own)
    engines = site_releases.release_engines()
    assert {"vllm", "llama.cpp", "sglang"} <= {e.name for e in engines}
    expected = {site_releases.page_path(e.name, v) for e in engines for v in releases(e)}
    assert set(pages) == expected | {"releases/index.md"}
    index = pages["releases/index.md"]
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for path in sorted(expected):
        version = path.split("-", 1)[1][:-3]
        assert f'<tr data-version="{version}"><th scope="row"><a href="{path[9:-3]}/">{version}</a></th>' in index
        assert f": {path}\n" in nav, path
    assert ("  - Releases:\n      # BEGIN generated releases nav (python -m relialint.site)\n"
            "      - releases/index.md\n") in nav


def test_committed_release_pages_and_upgrade_data_are_fresh(pages: dict[str, str],
                                                             records: list[dict[str, Any]]) -> None:
    for path, text in pages.items():
        assert (DOCS / path).read_text(encoding="utf-8") == text, f"{path} is stale: run python -m relialint.site"
    committed = {p.relative_to(DOCS).as_posix() for p in (DOCS / "releases").glob("*.md")}
    assert committed == set(pages)
    assert (DOCS / upgrade_view.UPGRADE_DATA).read_text(encoding="utf-8") == upgrade_view.upgrade_json(records)
    assert (DOCS / upgrade_view.UPGRADE_PAGE).read_text(encoding="utf-8") == upgrade_view.upgrade_page(BANNER)


def test_vllm_0_20_0_page_pins_its_items(pages: dict[str, str]) -> None:
    page = pages["releases/vllm-0.20.0.md"]
    assert page.startswith('---\ntitle: "What silently changes in vLLM 0.20.0"\n')
    assert "[previous: vLLM 0.19.1](vllm-0.19.1.md) · [next: vLLM 0.20.1](vllm-0.20.1.md) · [every release]" \
        "(index.md)" in page
    assert ("3 records start to apply, 2 stop; 0 options removed, 11 added, 0 changed, 0 option values accepted or "
            "refused; 2 environment variables no longer read, 13 newly read; 1 default changes.") in page
    entered = _section(page, "records-entered")
    assert [line.split("[", 1)[1].split(":", 1)[0] for line in entered] == ["RL206", "RL218", "RL304"]
    assert entered[0].endswith("(../records/RL206.md) — *not checked*: its range leaves one of the two releases "
                               "undecided (a bound no released code shows)")
    assert entered[1].endswith("(../records/RL218.md)")
    left = _section(page, "records-left")
    assert [line.split("[", 1)[1].split(":", 1)[0] for line in left] == ["RL121", "RL215"]
    assert _section(page, "defaults") == [
        "- [`memory.gpu_utilization`](../reference/facts.md): `0.9` in vLLM 0.19.1, `0.92` in vLLM 0.20.0. Keep the "
        "old value by writing `--gpu-memory-utilization`."]
    assert _section(page, "options-removed") == ["None: the option tables of both releases agree."]
    assert "- `--mamba-backend`: takes a value in [vLLM 0.20.0](https://github.com/vllm-project/vllm/blob/v0.20.0/" \
           "vllm/engine/arg_utils.py)" in _section(page, "options-added")


def test_an_option_value_a_release_starts_to_accept(pages: dict[str, str]) -> None:
    assert _section(pages["releases/vllm-0.11.0.md"], "option-values") == [
        "- `--speculative-config` `mtp`: accepted from vLLM 0.11.0 (the first release that accepts it: `0.11.0`)"]


def test_a_removed_option_and_its_replacement(pages: dict[str, str]) -> None:
    page = pages["releases/vllm-0.19.0.md"]
    assert _section(page, "options-removed") == [
        "- `--disable-frontend-multiprocessing`: a flag in [vLLM 0.18.1](https://github.com/vllm-project/vllm/blob/"
        "v0.18.1/vllm/engine/arg_utils.py); a launch that writes it no longer starts",
        "- `--no-disable-frontend-multiprocessing`: a negative flag in [vLLM 0.18.1](https://github.com/vllm-project/"
        "vllm/blob/v0.18.1/vllm/engine/arg_utils.py); a launch that writes it no longer starts"]
    delta = release_delta(default_registry().get("vllm"), *_pair("vllm", "0.18.1", "0.19.0"))
    assert delta is not None
    assert [o.name for o in delta.options if o.change == "refused"] == [
        "--disable-frontend-multiprocessing", "--no-disable-frontend-multiprocessing"]
    renamed = next(p for v, p in pages.items() if "; use `" in p and v.startswith("releases/vllm-"))
    assert "instead; a launch that writes it no longer starts" in renamed


def _pair(engine: str, old: str, new: str) -> tuple[Version, Version]:
    model = default_registry().get(engine)
    assert model is not None
    return model.parse_version(old), model.parse_version(new)


def test_llama_cpp_build_page_links_the_source_commit(pages: dict[str, str]) -> None:
    page = pages["releases/llamacpp-b9518.md"]
    assert ("1 record starts to apply, 0 stop; 8 options removed, 14 added, 0 changed, 0 option values accepted or "
            "refused; 9 environment variables no longer read, 20 newly read; 0 defaults change.") in page
    assert ("This page stands for builds `b9103` to `b9518`: relialint's tables describe no build between the two "
            "exactly, so whatever is listed changed in one of them.\n") in page
    assert ("The tables also read `@4227c9be4`, `@49bfddeca`, `@c0159f9c1`, commits known only within a range of "
            "builds; they are not compared here.") in pages["releases/llamacpp-b8942.md"]
    assert _section(page, "records-entered")[0].split("[", 1)[1].startswith("RL133: ")
    assert _section(page, "options-removed")[0] == (
        "- `--checkpoint-every-n-tokens`: takes a value in [llama.cpp b9102](https://github.com/ggml-org/llama.cpp/"
        "blob/7d442abf/common/arg.cpp); a launch that writes it no longer starts")
    assert _section(page, "defaults") == [
        "None in the tables: relialint tables no per-release defaults for llama.cpp."]


def test_the_oldest_release_and_untabled_versions_are_not_checked(pages: dict[str, str]) -> None:
    for path in ("releases/vllm-0.6.6.post1.md", "releases/llamacpp-b4579.md"):
        assert ("**Not checked.** This is the oldest release relialint's tables describe: there is no tabled release "
                "before it to compare with, so what changed in it is not known (not \"nothing\").") in pages[path]
        assert "## " not in pages[path]
    index = pages["releases/index.md"]
    assert ("Versions without a page are **not checked**: pre-releases, versions newer than `0.33.0` (vLLM's "
            "tables end there), and anything older than `0.6.6.post1`.") in index
    assert ("Versions without a page are **not checked**: builds between two tabled builds, versions newer than "
            "`b11312` (llama.cpp's tables end there), and anything older than `b4579`.") in index
    assert ("The tables also describe `@4227c9be4`, `@49bfddeca`, `@c0159f9c1`, commits known only within a range "
            "of builds: no page compares them.") in index
    assert '<td colspan="4">not checked: the oldest tabled release</td>' in index


def test_a_release_page_that_is_gone_is_removed(tmp_path: Path) -> None:
    root = tmp_path / "site"
    root.mkdir()
    shutil.copy2(ROOT / "mkdocs.yml", root / "mkdocs.yml")
    shutil.copytree(DOCS, root / "docs")
    (root / "docs" / "releases" / "vllm-0.0.1.md").write_text("old\n", encoding="utf-8")
    (root / "docs" / "releases" / "notes.txt").write_text("kept\n", encoding="utf-8")
    todo = site.plan(root, RECORDS)
    assert root / "docs" / "releases" / "vllm-0.0.1.md" in todo.remove
    assert root / "docs" / "releases" / "notes.txt" not in todo.remove


# -- the upgrade view's data: read as docs/javascripts/upgrade.js reads it ---------------------------------------------


def _state(runs: list[list[Any]], i: int) -> list[Any] | None:
    return next((run[2:] for run in runs if run[0] <= i <= run[1]), None)


def _default(item: list[Any], i: int, gpu: int) -> list[Any] | None:
    for entry in item[5]:
        if entry[0] == i:
            for members, *state in entry[1:]:
                if gpu in members:
                    return state
    return _state(item[2], i)


def view_defaults(engine: dict[str, Any], a: int, b: int, gpu: int) -> dict[str, tuple[Any, Any]]:
    """The defaults upgrade.js lists from release ``a`` to ``b`` on GPU choice ``gpu``: fact -> (before, after)."""
    out: dict[str, tuple[Any, Any]] = {}
    for item in engine["items"]:
        if item[0] == "default":
            before, after = _default(item, a, gpu), _default(item, b, gpu)
            if before != after:
                out[item[1]] = (before, after)
    return out


def view_changes(engine: dict[str, Any], a: int, b: int) -> set[tuple[str, str, str, str | None]]:
    """What upgrade.js lists from release ``a`` to release ``b`` (GPU "not sure"): (kind, subject, change,
    replacement)."""
    out: set[tuple[str, str, str, str | None]] = set()
    out |= {("default", fact, "changed", None) for fact in view_defaults(engine, a, b, 0)}
    for item in engine["items"]:
        before, after = _state(item[2], a), _state(item[2], b)
        if item[0] == "default":
            continue
        if item[0] == "value":
            if (before is None) != (after is None):
                out.add(("value", f"{item[1]} {item[3]}", "refused" if after is None else "accepted", None))
            continue
        if before is not None and after is None:
            replaced = _state(item[3], b)
            out.add((item[0], item[1], "refused" if item[0] == "option" else "unread",
                     replaced[0] if replaced else None))
        elif after is not None and before is None:
            out.add((item[0], item[1], "accepted" if item[0] == "option" else "read", None))
        elif item[0] == "option" and before is not None and after is not None and (
                (None not in (before[2], after[2]) and before[2] != after[2]) or before[1] != after[1]):
            out.add(("option", item[1], "changed", None))
    return out


def delta_changes(engine: str, old: Version, new: Version) -> set[tuple[str, str, str, str | None]]:
    delta = release_delta(default_registry().get(engine), old, new)
    assert delta is not None and delta.checked
    out: set[tuple[str, str, str, str | None]] = set()
    out |= {("option", o.name, o.change, o.replacement if o.change == "refused" else None) for o in delta.options}
    out |= {("env", e.name, e.change, e.replacement if e.change == "unread" else None) for e in delta.env}
    out |= {("default", d.fact, "changed", None) for d in delta.defaults}
    out |= {("value", f"{v.option} {v.value}", v.change, None) for v in delta.values}
    return out


@pytest.mark.parametrize("engine", ["vllm", "llama.cpp", "sglang"])
def test_the_view_data_gives_the_shared_delta_for_every_pair(engine: str) -> None:
    data = json.loads((DOCS / upgrade_view.UPGRADE_DATA).read_text(encoding="utf-8"))
    (entry,) = [e for e in data["engines"] if e["id"] == engine]
    versions = _versions(engine)
    assert [v["value"] for v in entry["versions"]] == [str(v) for v in versions]
    pairs = list(permutations(range(len(versions)), 2))
    if engine == "vllm":  # every pair upwards, and downwards from every release to its two neighbours' neighbours
        pairs = [(a, b) for a, b in pairs if a < b or a - b <= 2]
    if engine == "sglang":  # 160 releases: each to its two nearest on either side, and every tenth upwards
        pairs = [(a, b) for a, b in pairs if abs(a - b) <= 2 or (a < b and a % 10 == 0)]
    for a, b in pairs:
        assert view_changes(entry, a, b) == delta_changes(engine, versions[a], versions[b]), (versions[a], versions[b])


def test_the_view_data_holds_states_not_pairs() -> None:
    data = json.loads((DOCS / upgrade_view.UPGRADE_DATA).read_text(encoding="utf-8"))
    (vllm,) = [e for e in data["engines"] if e["id"] == "vllm"]
    (item,) = [i for i in vllm["items"] if i[:2] == ["default", "memory.gpu_utilization"]]
    index = {v["value"]: i for i, v in enumerate(vllm["versions"])}
    assert item[2] == [[0, index["0.19.1"], "0.9", True], [index["0.20.0"], len(index) - 1, "0.92", True]]
    assert item[3] == ["--gpu-memory-utilization"]
    assert vllm["versions"][index["0.20.0"]]["page"] == "releases/vllm-0.20.0/"
    # states, not pairs: each engine's entry grows with its items and releases (about 75 bytes an item each),
    # never with the square of its releases
    for engine in data["engines"]:
        size = len(json.dumps(engine, ensure_ascii=False, separators=(",", ":")).encode())
        assert size < 100 * (len(engine["items"]) + len(engine["versions"])), (engine["id"], size)


def test_a_hostile_records_title_is_text_on_a_release_page(tmp_path: Path) -> None:
    """RL599 (tests/fixtures/hostile-records, every bound unwitnessed, observed on vLLM 0.9.2) enters on the 0.9.2
    page, not checked, its title as written; no record text is live markup there."""
    from relialint.site.markup import fold
    from tests.markup_scan import LIVE_TAGS, live_markup, parse, render, tags
    from tests.test_site_hostile import hostile_folder
    from tests.test_site_markup import expected_text

    records = [r.data for r in site.load_records(hostile_folder(tmp_path))]
    pages = site_releases.render_pages(records)[0]
    body = pages["releases/vllm-0.9.2.md"].split("---\n", 2)[2]
    rendered = render(body)
    assert live_markup(rendered) == [] and not tags(rendered) & LIVE_TAGS
    (title,) = [str(r["title"]) for r in records if r["id"] == "RL599"]
    items = [e.text for e in parse(rendered).walk() if e.tag == "li"]
    assert any(f"RL599: {expected_text(fold(title))}" in item for item in items), items


def _gpu_choice(name: str) -> int:
    data = json.loads((DOCS / "data" / "setup.json").read_text(encoding="utf-8"))
    return next(i for i, g in enumerate(data["gpus"]) if g["value"] == name)


@pytest.mark.parametrize(("gpu", "expected"), [
    ("V100", {}),  # 0.8.0 falls back to V0 below compute capability 8.0: nothing changes
    ("H100", {"engine.v1": (["false", True], ["true", True]),
              "prefix_caching.enabled": (["false", True], ["true", True])}),
    ("", {"engine.v1": (["false", True], [None, False]),  # GPU not sure: left to the GPU
          "prefix_caching.enabled": (["false", True], [None, False])}),
])
def test_defaults_the_gpu_decides_follow_the_chosen_gpu(gpu: str, expected: dict[str, Any],
                                                         tmp_path: Path) -> None:
    data = json.loads((DOCS / upgrade_view.UPGRADE_DATA).read_text(encoding="utf-8"))
    (vllm,) = [e for e in data["engines"] if e["id"] == "vllm"]
    index = {v["value"]: i for i, v in enumerate(vllm["versions"])}
    choice = _gpu_choice(gpu) if gpu else 0
    assert view_defaults(vllm, index["0.7.3"], index["0.8.0"], choice) == expected
    # the shared module's deployment level, for a launch that sets nothing, says the same
    from relialint.core.results import Options, Target
    from relialint.run.upgrade import Request, upgrade_paths

    launch = tmp_path / "serve.sh"
    launch.write_text("vllm serve org/model\n", encoding="utf-8")
    run = upgrade_paths([str(launch)], Options(Target(gpu=gpu or None)), Request("0.8.0", "0.7.3"))
    (deployment,) = run.deployments
    defaults = {i.subject: i.certainty for i in deployment.items if i.kind == "default"}
    assert defaults == {fact: "definite" if after[1] else "possible" for fact, (_before, after) in expected.items()}

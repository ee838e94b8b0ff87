"""The site and ``relialint records`` know engines only through the registry: a third engine (the toy of
``tests/test_engine_protocol.py``, here with release tables) registered in place of the shipped ones gets its records
in the catalogue's engine filter, its own "my setup" choices and verdicts (what decides a possible one in its own
options), release pages (with upstream links only where it says where its releases keep them) and ``records
--engine``; no module of the site names it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from relialint.core.deployment import Deployment
from relialint.core.versions import Version
from relialint.engines import registry as registry_module
from relialint.engines.registry import Registry, default_registry
from relialint.engines.releases import (
    ENV_UNREAD,
    OPTION_ACCEPTED,
    DefaultChange,
    EnvChange,
    OptionChange,
    ReleaseDelta,
    ReleaseSources,
    ReleaseTables,
)
from relialint.readers.located import Span
from relialint.site import build as site
from relialint.site import feed as site_feed
from relialint.site import releases as site_releases
from relialint.site import setup as site_setup
from relialint.site.common import SiteRecord
from relialint.site.setup_launch import deciding
from tests.cli_run import invoke
from tests.test_engine_protocol import V1, V2, ToyServe


class ToyReleases(ToyServe):
    """The toy with release tables: ``--turbo`` is accepted from 2.0, ``TOY_LEGACY`` is no longer read by 2.0, and
    prefix caching (``--toy-cache``) is on by default from 2.0."""

    def option_flags(self, key: str) -> list[str]:
        if key.startswith("flag.toyserve."):
            return ["--" + key[len("flag.toyserve."):]]
        return ["--toy-cache"] if key == "prefix_caching.enabled" else []

    def written_options(self, deployment: Deployment) -> list[str]:
        """None for the site's setups, which launch nothing."""
        return [w.text for w in getattr(deployment, "written", [])]

    def releases(self) -> tuple[Version, ...]:
        return (V1, V2)

    def latest(self) -> Version:
        return V2

    def release_delta(self, old: Version, new: Version) -> ReleaseDelta:
        assert (old, new) == (V1, V2)
        return ReleaseDelta("toyserve", old, new, options=(OptionChange("--turbo", OPTION_ACCEPTED, None, "f"),),
                            env=(EnvChange("TOY_LEGACY", ENV_UNREAD),),
                            defaults=(DefaultChange("prefix_caching.enabled", False, True, pins=("--toy-cache",)),))

    def option_name(self, written: str) -> str | None:
        return written.split("=", 1)[0]

    def option_spans(self, deployment: Deployment) -> list[tuple[str, Span]]:
        return []


class ToySources(ToyReleases):
    """The toy that also says where upstream its releases declare options and read variables."""

    def option_source(self, version: Version) -> str | None:
        return f"https://example.org/toy/v{version}/args.py"

    def env_source(self, name: str, version: Version) -> str | None:
        return f"https://example.org/toy/v{version}/envs.py#{name}"


TOY_RECORD: dict[str, Any] = {
    "id": "RL990", "slug": "toy-prefix-caching", "title": "ToyServe prefix caching", "severity": "major",
    "impact": "performance", "engines": ["toyserve"], "status": "active", "fix": "turn it off",
    "trigger": {"when": {"all": [{"fact": "engine.name", "eq": "toyserve"}, {"fact": "engine.version", "ge": "2.0"},
                                 {"fact": "prefix_caching.enabled", "eq": True}]},
                "locate": [], "message": "prefix caching is on"},
}


def _use(monkeypatch: pytest.MonkeyPatch, registry: Registry) -> None:
    monkeypatch.setattr(registry_module, "default_registry", lambda: registry)


@pytest.fixture(autouse=True)
def _fresh_caches() -> Iterator[None]:
    """The site's per-process memos hold what the registry of the moment decided."""
    site_setup._cached.cache_clear()
    yield
    site_setup._cached.cache_clear()


def test_the_toys_satisfy_the_release_protocols() -> None:
    assert isinstance(ToyReleases(), ReleaseTables) and not isinstance(ToyReleases(), ReleaseSources)
    assert isinstance(ToySources(), ReleaseSources)


def test_my_setup_offers_the_third_engine_with_its_versions_and_verdicts(monkeypatch: pytest.MonkeyPatch) -> None:
    _use(monkeypatch, Registry([ToyReleases()]))
    data = site_setup.setup_data([TOY_RECORD])
    (engine,) = data["engines"]
    assert (engine["id"], engine["label"]) == ("toyserve", "ToyServe")
    assert [v["value"] for v in engine["versions"]] == ["", "<1.0", "1.0", "2.0", ">2.0"]
    (record,) = data["records"]
    assert record["engines"] == ["toyserve"]
    assert record["by"] == {"toyserve": ["version"]}
    assert engine["launch"] == "toyserve"  # the engine's default launch, which the verdicts are about
    # every GPU, backend and OS alike (the trigger reads none); the default launch (`toyserve`) leaves prefix caching
    # to the engine's default: on from 2.0, so definite from 2.0 on; newer than the tables, the default is not
    # known (decided by the setting); before 2.0, nothing; a version not given, decided by both
    ((backends, oses, ((gpus, runs),)),) = record["cells"]["toyserve"]
    assert (backends, oses) == (None, None)
    assert gpus == list(range(len(data["gpus"])))
    assert [(lo, hi, code, data["depends"][dep] if dep >= 0 else "") for lo, hi, code, dep in runs] == [
        (0, 0, "p", "the ToyServe version; --toy-cache"), (3, 3, "d", ""), (4, 4, "p", "--toy-cache")]


def test_what_decides_a_possible_verdict_is_said_in_the_engines_own_options(monkeypatch: pytest.MonkeyPatch) -> None:
    _use(monkeypatch, default_registry().with_engine(ToyReleases()))
    # the options and variables a user would set, never the fact key (issue 29)
    assert deciding("toyserve", ("prefix_caching.enabled", "flag.toyserve.turbo", "env.TOY_X")) == (
        "--toy-cache; --turbo; TOY_X")
    assert deciding("vllm", ("prefix_caching.enabled",)) == "--enable-prefix-caching"
    assert deciding("llama.cpp", ("llama.split_mode",)) == "--split-mode"


def test_the_catalogue_filter_lists_the_third_engine_by_its_label(monkeypatch: pytest.MonkeyPatch) -> None:
    _use(monkeypatch, default_registry().with_engine(ToyReleases()))
    records = [r for r in site.load_records(site.default_records_dir(site.default_root()))
               if r.id in ("RL101", "RL108", "RL201")]
    toy = SiteRecord({**records[0].data, **TOY_RECORD}, records[0].path, None)
    page = site.index_page([*records, toy])
    options = page.split('data-filter="engine">', 1)[1].split("</select>", 1)[0]
    assert options.splitlines()[1:] == ['<option value="">all</option>', '<option value="vllm">vLLM</option>',
                                        '<option value="llama.cpp">llama.cpp</option>',
                                        '<option value="toyserve">ToyServe</option>',
                                        '<option value="any">engine-independent</option>']
    assert 'data-engines="toyserve"' in page


def test_the_feed_names_the_registered_engines(monkeypatch: pytest.MonkeyPatch) -> None:
    _use(monkeypatch, default_registry().with_engine(ToyReleases()))
    labels = ", ".join(e.label for e in registry_module.default_registry().versioned())
    assert labels.startswith("vLLM, llama.cpp") and labels.endswith(", ToyServe")
    assert f"Silent failures of LLM serving engines ({labels}): " in site_feed.atom_feed([])


@pytest.mark.parametrize("engine", [ToyReleases(), ToySources()], ids=["no-sources", "sources"])
def test_release_pages_of_the_third_engine(monkeypatch: pytest.MonkeyPatch, engine: ToyReleases) -> None:
    _use(monkeypatch, Registry([engine]))
    pages, steps = site_releases.render_pages([TOY_RECORD])
    assert sorted(pages) == ["releases/index.md", "releases/toyserve-1.0.md", "releases/toyserve-2.0.md"]
    assert [(s.engine, str(s.version), str(s.previous)) for s in steps] == [("toyserve", "1.0", "None"),
                                                                           ("toyserve", "2.0", "1.0")]
    page = pages["releases/toyserve-2.0.md"]
    assert "# What silently changes in ToyServe 2.0" in page
    # the record's trigger names no version range: it neither enters nor leaves
    assert "## Records that start to apply (0)" in page
    linked = isinstance(engine, ToySources)
    new = "[ToyServe 2.0](https://example.org/toy/v2.0/args.py)" if linked else "ToyServe 2.0"
    old_env = "[ToyServe 1.0](https://example.org/toy/v1.0/envs.py#TOY_LEGACY)" if linked else "ToyServe 1.0"
    assert f"- `--turbo`: a flag in {new}" in page
    assert f"- `TOY_LEGACY`: read by {old_env}, not any more: setting it does nothing" in page
    assert ("- [`prefix_caching.enabled`](../reference/facts.md): `false` in ToyServe 1.0, `true` in ToyServe 2.0. "
            "Keep the old value by writing `--toy-cache`.") in page
    index = pages["releases/index.md"]
    assert "## ToyServe (2 releases)" in index and 'id="rl-releases-toyserve"' in index


class ToyNoDefaults(ToySources):
    """The toy whose tables change no default between its releases."""

    def release_delta(self, old: Version, new: Version) -> ReleaseDelta:
        return ReleaseDelta("toyserve", old, new, options=super().release_delta(old, new).options)


def test_no_default_changes_is_a_gap_unless_the_engine_changes_some_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """A release that changes no default says "none" where the engine's tables change a default between some two of
    its releases, and that the tables have no per-release defaults where they never do."""
    empty = ReleaseDelta("toyserve", V1, V2)
    for tabled, text in ((False, "None in the tables: relialint tables no per-release defaults for ToyServe."),
                         (True, "None: the defaults rows give both releases the same values.")):
        step = site_releases.ReleaseStep("toyserve", "ToyServe", V2, V1, None, empty, (), tabled)
        assert text in site_releases.release_page(step)
    for engine, tabled in ((ToySources(), True), (ToyNoDefaults(), False)):
        _use(monkeypatch, Registry([engine]))
        assert [s.defaults_tabled for s in site_releases.release_steps([TOY_RECORD])] == [tabled, tabled]


def test_records_by_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    everything = invoke(["records", "--format", "json"])
    rows = json.loads(everything.stdout)["records"]
    independent = sum(1 for r in rows if not r["engines"])
    vllm = sum(1 for r in rows if "vllm" in r["engines"])
    per_engine = {e: sum(1 for r in rows if e in r["engines"]) for e in ("vllm", "llama.cpp", "sglang")}
    several = sum(1 for r in rows if len(r["engines"]) > 1)
    assert invoke(["records"]).stdout.splitlines()[-1] == (
        f"{len(rows)} records (vLLM {per_engine['vllm']}, llama.cpp {per_engine['llama.cpp']}, SGLang "
        f"{per_engine['sglang']}, engine-independent {independent}"
        + (f"; {several} name{'s' if several == 1 else ''} more than one engine" if several else "") + ")")
    assert all(isinstance(r["reach"], int) or r["reach"] is None for r in rows)
    result = invoke(["records", "--engine", "vllm"])
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-1] == f"{vllm + independent} records ({vllm} of vLLM, {independent} " \
                                              "engine-independent)"
    assert invoke(["records", "--engine", "vLLM"]).stdout == result.stdout  # the label, case ignored
    listed = json.loads(invoke(["records", "--engine", "llama.cpp", "--format", "json"]).stdout)
    assert {e for r in listed["records"] for e in r["engines"]} == {"llama.cpp"}
    _use(monkeypatch, default_registry().with_engine(ToyReleases()))
    result = invoke(["records", "--engine", "toyserve"])
    assert result.stdout.splitlines()[-1] == f"{independent} records (0 of ToyServe, {independent} engine-independent)"
    bad = invoke(["records", "--engine", "tgi"])
    assert bad.exit_code == 2
    names = ", ".join(repr(e.name) for e in registry_module.default_registry().versioned())
    assert names.endswith(", 'toyserve'")
    assert f"Invalid value for '--engine': 'tgi' is not one of {names}." in bad.stderr

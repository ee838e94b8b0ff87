"""The "my setup" view's verdicts (relialint.site.setup): the linter's own evaluation per engine, version and GPU,
evaluated by classes and written compactly; the hardware page's records per GPU come from the same verdicts."""

from __future__ import annotations

import json
import shutil
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from relialint.core import hardware
from relialint.core.findings import evaluate
from relialint.engines.registry import default_registry
from relialint.site import build as site
from relialint.site import setup as site_setup
from tests.conftest import ROOT

RECORDS = ROOT / "records"
BLACKWELL_ONLY = ("RL102", "RL104", "RL106")


@pytest.fixture(scope="module")
def records() -> list[dict[str, Any]]:
    return [r.data for r in site.load_records(RECORDS)]


@pytest.fixture(scope="module")
def by_id(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {str(r["id"]): r for r in records}


@pytest.fixture(scope="module")
def data(records: list[dict[str, Any]]) -> dict[str, Any]:
    return site_setup.setup_data(records)


def _choice(engine: str, value: str, records: list[dict[str, Any]]) -> site_setup.VersionChoice:
    return next(c for c in site_setup.version_choices(engine, records) if c.value == value)


def lookup(data: dict[str, Any], engine: str, version: str, gpu: str) -> dict[str, tuple[str, str]]:
    """What docs/javascripts/setup.js shows for a setup, read from the data file the same way: record id ->
    (outcome, what decides it)."""
    engine_entry = next(e for e in data["engines"] if e["id"] == engine)
    v = next(i for i, c in enumerate(engine_entry["versions"]) if c["value"] == version)
    g = next(i for i, c in enumerate(data["gpus"]) if c["value"] == gpu)
    out: dict[str, tuple[str, str]] = {}
    for record in data["records"]:
        for members, runs in record["cells"].get(engine, []):
            if g not in members:
                continue
            for lo, hi, outcome, dep in runs:
                if lo <= v <= hi:
                    out[record["id"]] = (outcome, data["depends"][dep] if dep >= 0 else "")
    return out


def test_vllm_0_30_0_on_h100_lists_the_decode_regression_not_the_blackwell_records(data: dict[str, Any]) -> None:
    shown = lookup(data, "vllm", "0.30.0", "H100")
    # possible: whether vLLM runs FA4 for the model (0.30.0 upgrades from FA3 on SM90 only for some models)
    assert shown["RL206"] == ("p", "attention.backend (--attention-backend, --attention-config), "
                                   "attention.fa4 (--attention-config)")
    for rid in BLACKWELL_ONLY:
        assert rid not in shown, rid
    assert "RL105" not in shown  # FP8 KV cache without native FP8: an H100 has it
    assert "RL108" not in shown  # a llama.cpp record
    by = {r["id"]: r["by"] for r in data["records"]}
    # FA4 can run on SM90 by default from 0.20.0 (witnessed; 0.19.1 and older are clean): the record depends on the
    # version as well as the GPU (definite only on 0.30.0, the measured release, with FA4 stated)
    assert by["RL206"] == {"vllm": ["gpu", "version"]}
    assert by["RL501"] == {"vllm": []}


def test_the_decode_regression_needs_both_its_gpu_and_its_version(data: dict[str, Any]) -> None:
    assert "RL206" in lookup(data, "vllm", "0.30.0", "H200")
    assert "RL206" not in lookup(data, "vllm", "0.30.0", "B200")
    # the baseline the source measured against, which no released code shows unaffected: possible, not clean
    assert lookup(data, "vllm", "0.26.0", "H100")["RL206"][0] == "p"
    assert lookup(data, "vllm", "0.31.0", "H100")["RL206"][0] == "p"  # after the one observed: not known either way
    assert "RL206" not in lookup(data, "vllm", "0.19.1", "H100")  # no FA4 on SM90 by default before 0.20.0
    assert lookup(data, "vllm", "", "H100")["RL206"][1] == ("attention.backend (--attention-backend, "
                                                            "--attention-config), attention.fa4 "
                                                            "(--attention-config), engine.version")


def test_blackwell_records_on_a_b200(data: dict[str, Any]) -> None:
    shown = lookup(data, "vllm", "0.30.0", "B200")
    assert {"RL104", "RL106"} <= set(shown)
    assert "RL102" not in shown  # sm_121 only (GB10)
    assert "RL101" not in shown  # a B200 has native FP4: RL101's passing example
    assert "RL102" in lookup(data, "vllm", "0.30.0", "GB10")


def test_the_data_file_says_what_the_linter_says(records: list[dict[str, Any]], data: dict[str, Any]) -> None:
    """Every record, for a sample of setups: the compressed file holds exactly the linter's verdict."""
    for engine, version, gpu in [("vllm", "0.30.0", "H100"), ("vllm", "0.7.0", "RTX 3070"), ("vllm", ">0.34.0", ""),
                                 ("llama.cpp", "b8502", "Strix Halo"), ("llama.cpp", "b6112-b8321", "RX 7900 XTX"),
                                 ("llama.cpp", "", "")]:
        choice = _choice(engine, version, records)
        row = hardware.resolve(gpu) if gpu else None
        expected: dict[str, tuple[str, str]] = {}
        for record in records:
            found = evaluate(site_setup.setup_deployment(engine, row, choice.version), [record],
                             default_registry().get(engine))
            if found:
                definite = any(f.certainty == "definite" for f in found)
                missing = tuple(sorted({m for f in found for m in f.missing_facts}))
                expected[str(record["id"])] = ("d" if definite else "p",
                                               "" if definite or not missing else site_setup._depends(engine, missing))
        assert lookup(data, engine, version, gpu) == expected, (engine, version, gpu)


def test_every_version_gets_the_verdict_of_its_class(records: list[dict[str, Any]],
                                                     by_id: dict[str, dict[str, Any]]) -> None:
    """The verdicts are evaluated once per class of versions; evaluated one by one they are the same."""
    gpus = [None, hardware.resolve("H100"), hardware.resolve("B200")]
    for rid in ("RL206", "RL503", "RL541"):
        versions = {"vllm": site_setup.version_choices("vllm", records)}
        grid = site_setup.record_setups(by_id[rid], gpus, {**versions, "llama.cpp": []}).cells["vllm"]
        for g, gpu in enumerate(gpus):
            for v, choice in enumerate(versions["vllm"]):
                assert grid[g][v] == site_setup.verdict(by_id[rid], "vllm", gpu, choice.version), (rid, gpu, choice)


def test_version_choices(records: list[dict[str, Any]]) -> None:
    vllm = site_setup.version_choices("vllm", records)
    values = [c.value for c in vllm]
    assert values[:3] == ["", "<0.6.0", "0.6.0"]  # the oldest release the witnesses read, which records name
    assert values[-2:] == ["0.34.0", ">0.34.0"]  # the witnesses now read to 0.34.0 (RL100, RL135)
    assert "0.23.1rc1" in values  # a version a record names, between two tabled releases
    llama = site_setup.version_choices("llama.cpp", records)
    # RL506's bracket: -fa a switch up to b6111, a value from b8502 (the builds between are one class each side);
    # the merge27 llama.cpp records name more older builds, so the bracket sits further in
    assert [c.label for c in llama[59:66]] == ["b5905 to b6110", "b6111", "b6112 to b8321", "b8322", "b8323",
                                               "b8324 to b8501", "b8502"]
    runs = [c.builds for c in llama[1:]]
    # before b2439, the oldest build a record names (RL224's last_known_good, llama-cpp-python 0.2.72's vendored
    # build; before merge27 it was b2822, RL505's older_unchecked)
    assert runs[0] == (0, 2438)
    for before, after in pairwise(runs):  # every build number in exactly one entry
        assert before is not None and after is not None and after[0] == before[1] + 1


def test_engine_independent_and_knowledge_records(data: dict[str, Any]) -> None:
    entries = {r["id"]: r for r in data["records"]}
    assert entries["RL201"]["kind"] == "runtime" and entries["RL201"]["cells"] == {}
    assert entries["RL401"]["kind"] == "knowledge" and entries["RL401"]["engines"] == []
    assert entries["RL202"]["cells"] == {}  # a benchmark command is not a serving setup


def test_hardware_page_links_each_gpu_to_its_family_page() -> None:
    page = (ROOT / "docs" / "reference" / "hardware.md").read_text(encoding="utf-8")
    rows = {line.split("**")[1]: line for line in page.splitlines() if line.startswith("| <span id=")}
    records_of = {name: line.split(" | ")[1] for name, line in rows.items()}
    # the records of each GPU moved to its family page (docs/hardware/, checked against the evaluator over every
    # catalogue GPU in tests/test_site_hardware.py); the catalogue row links there, with the count
    assert records_of["H100"] == "[19 records](../hardware/hopper.md#gpu-h100)"
    assert records_of["Strix Halo"] == "[8 records](../hardware/rdna3-5.md#gpu-strix-halo)"
    # RL353 (SGLang, 36-59 GB GPUs): the catalogue leaves the A770's memory open; no other record is about it
    assert records_of["Arc A770"] == "[1 record](../hardware/intel.md#gpu-arc-a770)"
    assert "| Hopper | 9.0 (`sm_90`) |" in rows["H100"]
    assert '<span id="gpu-h100"></span>' in rows["H100"]


def test_gpu_records_marks_what_the_catalogue_cannot_decide() -> None:
    record: dict[str, Any] = {
        "id": "RL999", "slug": "s", "title": "t", "severity": "major", "impact": "performance", "fix": "f",
        "engines": ["vllm"],
        "trigger": {"when": {"all": [{"fact": "engine.name", "eq": "vllm"}, {"fact": "gpu.native_fp8", "eq": False}]},
                    "message": "m"},
    }
    about = site_setup.record_gpus(record)
    assert about["A100"] is True  # 8.0: no native FP8
    assert "H100" not in about
    assert about["MI300X"] is False  # AMD native FP8 is unknown in the catalogue: possibly


def test_setup_files_are_not_stale(tmp_path: Path) -> None:
    copy = tmp_path / "site"
    copy.mkdir()
    shutil.copy2(ROOT / "mkdocs.yml", copy / "mkdocs.yml")
    shutil.copytree(ROOT / "docs", copy / "docs")
    site.generate(copy, RECORDS)
    for rel in (site_setup.SETUP_PAGE, site_setup.SETUP_DATA, "data/search-terms.json"):
        fresh = (copy / "docs" / rel).read_text(encoding="utf-8")
        stale = f"{rel} is stale; run python -m relialint.site"
        assert (ROOT / "docs" / rel).read_text(encoding="utf-8") == fresh, stale
    json.loads((copy / "docs" / site_setup.SETUP_DATA).read_text(encoding="utf-8"))


def test_setup_page_form_is_labelled() -> None:
    page = (ROOT / "docs" / "setup.md").read_text(encoding="utf-8")
    for name in ("engine", "version", "gpu"):
        assert f'<label for="rl-setup-{name}">' in page and f'<select id="rl-setup-{name}"' in page
    assert 'data-src="../data/setup.json"' in page

"""The witness gate (KB017, KB018): a record's bounds say what the released code says, located, with the bound the
code shows; ranges that never end are refused. The results are written here the way tools/witness.py writes them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from relialint.kb.loader import load_dir
from relialint.kb.witness import check

RECORD = """\
schema_version: 1
id: RL990
slug: witness-gate-probe
title: "A probe record for the witness gate (vLLM)"
status: active
published: 2026-12-01
modified: 2026-12-01
severity: major
impact: ignored-config
engines: [{engine}]
summary: s
symptom: s
cause: s
fix: f
detect: d
references:
  - kind: upstream
    title: the engine's source
trigger:
  when: {{fact: engine.name, eq: {engine}}}
  affected:
    - engine: {engine}
{bounds}
  message: m
"""
CODE = [{"path": "vllm/x.py", "present": "bug"}]
VLLM = ["0.10.0", "0.11.0", "0.12.0", "0.13.0", "0.14.0"]


def _write(tmp_path: Path, bounds: dict[str, str], witness: dict[str, object] | None, rows: list[tuple[str, bool]],
           engine: str = "vllm", code: object = CODE) -> list[str]:
    lines = [f"      {k}: \"{v}\"" for k, v in bounds.items()]
    if bounds:
        lines.append("      bound_sources: {" + ", ".join(f"{k}: why" for k in bounds) + "}")
    if witness is not None:
        lines.append("      witness: " + json.dumps(witness))
    (tmp_path / "RL990-witness-gate-probe.yaml").write_text(
        RECORD.format(engine=engine, bounds="\n".join(lines)), encoding="utf-8")
    if rows:
        (tmp_path / "witnesses").mkdir(exist_ok=True)
        result = {"record": "RL990", "ranges": [{"index": 0, "engine": engine, "code": code, "releases": [
            {"release": r, "version": r, "affected": a, "seen": ["vllm/x.py:3" if a else None]} for r, a in rows]}]}
        (tmp_path / "witnesses" / "RL990.json").write_text(json.dumps(result), encoding="utf-8")
    loaded = load_dir(tmp_path)
    assert loaded.problems == []
    return [f"{p.line}:{p.column}: {p.code} {p.message}" for p in check(loaded.records[0], tmp_path)]


def _rows(affected: set[str], versions: list[str] = VLLM) -> list[tuple[str, bool]]:
    return [(v, v in affected) for v in versions]


def test_bounds_that_agree_with_the_code_pass(tmp_path: Path) -> None:
    assert _write(tmp_path, {"introduced": "0.11.0", "fixed": "0.13.0"}, {"code": CODE},
                  _rows({"0.11.0", "0.12.0"})) == []


def test_a_fix_version_the_code_contradicts_names_the_release_the_code_shows(tmp_path: Path) -> None:
    assert _write(tmp_path, {"introduced": "0.11.0", "fixed": "0.12.0"}, {"code": CODE},
                  _rows({"0.11.0", "0.12.0"})) == [
        "24:7: KB017 fixed is 0.12.0 but the released code says 0.13.0: the first release after the affected ones "
        "is 0.13.0"]


def test_a_fix_while_the_newest_release_still_has_the_code(tmp_path: Path) -> None:
    assert _write(tmp_path, {"introduced": "0.12.0", "fixed": "0.14.0"}, {"code": CODE},
                  _rows({"0.12.0", "0.13.0", "0.14.0"})) == [
        "24:7: KB017 fixed is 0.14.0 but the released code says no such bound: the code still has it in the newest "
        "release checked (0.14.0): no release fixes it; give last_affected: 0.14.0"]


def test_last_affected_must_be_the_newest_release_checked_when_nothing_fixes_it(tmp_path: Path) -> None:
    assert _write(tmp_path, {"introduced": "0.12.0", "last_affected": "0.14.0"}, {"code": CODE},
                  _rows({"0.12.0", "0.13.0", "0.14.0"})) == []
    assert _write(tmp_path, {"introduced": "0.12.0", "last_affected": "0.13.0"}, {"code": CODE},
                  _rows({"0.12.0", "0.13.0"})) == [
        "24:7: KB017 last_affected is 0.13.0 but the released code says no such bound: the last release whose code "
        "has it is 0.13.0 and 0.14.0 no longer has it: give fixed"]


def test_an_introduction_in_the_oldest_release_checked_is_not_witnessed(tmp_path: Path) -> None:
    assert _write(tmp_path, {"introduced": "0.10.0", "fixed": "0.12.0"}, {"code": CODE},
                  _rows({"0.10.0", "0.11.0"})) == [
        "23:7: KB017 introduced is 0.10.0 but the released code says no such bound: the first release whose code "
        "has it is 0.10.0 and it is the oldest release checked: the introduction may be older; widen the window "
        "(tools/witness.py --since) or set witness.older_unchecked"]
    assert _write(tmp_path, {"introduced": "0.10.0", "fixed": "0.12.0"}, {"code": CODE, "older_unchecked": True},
                  _rows({"0.10.0", "0.11.0"})) == []
    assert _write(tmp_path, {"introduced": "0.11.0", "fixed": "0.13.0"}, {"code": CODE, "older_unchecked": True},
                  _rows({"0.11.0", "0.12.0"})) == [
        "26:68: KB017 older_unchecked, but 0.10.0, an older release checked, does not have it: introduced is "
        "witnessed on both sides"]


def test_two_stretches_are_two_ranges(tmp_path: Path) -> None:
    assert _write(tmp_path, {"introduced": "0.11.0", "fixed": "0.14.0"}, {"code": CODE},
                  _rows({"0.11.0", "0.13.0"})) == [
        "26:7: KB017 the code checks hold, stop and hold again (not on 0.12.0): one range per unbroken stretch"]


def test_a_range_that_never_ends_is_refused(tmp_path: Path) -> None:
    assert _write(tmp_path, {"introduced": "0.11.0"}, {"unwitnessed": {"introduced": "a report"}}, []) == [
        "23:7: KB018 the range never ends: give fixed (the first release whose code no longer has the problem) or "
        "last_affected (the newest release checked that still has it); versions past it are then possible, not "
        "affected"]


def test_missing_witness_missing_result_and_stale_checks(tmp_path: Path) -> None:
    assert _write(tmp_path, {"introduced": "0.11.0", "fixed": "0.13.0"}, None, []) == [
        "23:7: KB017 no witness for introduced, fixed: give witness.code (checked on every release by "
        "tools/witness.py) or witness.unwitnessed with why no code can show it"]
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    assert _write(fresh, {"introduced": "0.11.0", "fixed": "0.13.0"}, {"code": CODE}, []) == [
        "26:7: KB017 no witness result: run python tools/witness.py RL990 and commit records/witnesses/"]
    other = [{"path": "vllm/x.py", "present": "other"}]
    assert _write(tmp_path, {"introduced": "0.11.0", "fixed": "0.13.0"}, {"code": CODE},
                  _rows({"0.11.0", "0.12.0"}), code=other) == [
        "26:7: KB017 the witness result was made from other checks: rerun python tools/witness.py RL990"]


def test_unwitnessed_bounds_need_no_result_but_must_be_bounds_of_the_range(tmp_path: Path) -> None:
    assert _write(tmp_path, {"introduced": "0.11.0", "last_affected": "0.11.0"},
                  {"unwitnessed": {"introduced": "measured", "last_affected": "measured", "fixed": "x"}}, []) == [
        "26:88: KB017 unwitnessed names fixed, which the range does not set"]


@pytest.mark.parametrize(("bounds", "expected"), [
    # builds 4580-5762 lie between the clean sdist and the affected one: both sides must be named
    ({"introduced": "b5763"}, ["23:7: KB017 builds between b4579 and b5763 were not checked: give last_known_good: "
                               "b4579"]),
    ({"introduced": "b5763", "last_known_good": "b4579"}, []),
    # a bracket gives its safe end: the first build surely past the change is the bracket's high end
    ({"introduced": "b5000", "last_known_good": "b4579"}, [
        "23:7: KB017 introduced is b5000 but the released code says b5763: the first release whose code has it is "
        "0.3.10 (0.3.7 does not)"]),
])
def test_llamacpp_brackets_and_unchecked_builds(tmp_path: Path, bounds: dict[str, str], expected: list[str]) -> None:
    bounds = {**bounds, "last_affected": "b8942"}
    rows = [("0.3.7", "b4579", False), ("0.3.10", "b4580-b5763", True), ("0.3.36", "b8942-b11312", True)]
    (tmp_path / "witnesses").mkdir()
    code = [{"path": "common/arg.cpp", "present": "bug"}]
    result = {"record": "RL990", "ranges": [{"index": 0, "engine": "llama.cpp", "code": code, "releases": [
        {"release": r, "version": v, "affected": a, "seen": []} for r, v, a in rows]}]}
    (tmp_path / "witnesses" / "RL990.json").write_text(json.dumps(result), encoding="utf-8")
    problems = _write(tmp_path, bounds, {"code": code}, [], engine="llama.cpp")
    assert problems == expected


def test_an_engine_record_without_ranges_would_fire_on_every_release(tmp_path: Path) -> None:
    text = RECORD.format(engine="vllm", bounds="      observed: [\"0.20.0\"]").replace(
        "  affected:\n    - engine: vllm\n      observed: [\"0.20.0\"]\n", "")
    (tmp_path / "RL990-witness-gate-probe.yaml").write_text(text, encoding="utf-8")
    loaded = load_dir(tmp_path)
    assert [f"{p.line}:{p.column}: {p.code}" for p in check(loaded.records[0], tmp_path)] == ["20:3: KB019"]
    per_version = text.replace("when: {fact: engine.name, eq: vllm}", "when: {fact: engine.version, ge: \"0.20.0\"}")
    (tmp_path / "RL990-witness-gate-probe.yaml").write_text(per_version, encoding="utf-8")
    assert check(load_dir(tmp_path).records[0], tmp_path) == []

"""`relialint validate`: the shipped records pass; deliberately broken ones report each problem with a code."""

from __future__ import annotations

from tests.cli_run import invoke
from tests.conftest import ROOT

BROKEN = ROOT / "tests" / "fixtures" / "broken-records"


def test_broken_records_each_problem_located_with_its_code() -> None:
    result = invoke(["validate", str(BROKEN)])
    assert result.exit_code == 2
    lines = {line.replace(str(BROKEN) + "/", "") for line in result.output.splitlines()}
    expected = {
        "RL901-dup-one.yaml:3:1: KB011 RL901: RL9xx is not an impact range",
        "RL901-dup-one.yaml:19:11: KB005 related id RL999 does not exist",
        "RL901-dup-one.yaml:20:1: KB009 a trigger record needs an example that passes",
        "RL901-dup-one.yaml:24:10: KB006 fact 'gpu.flux_capacitor' is not in the vocabulary",
        "RL901-dup-one.yaml:26:22: KB007 not a vLLM (PEP 440) version, llama.cpp build (bNNNN) or llama.cpp release "
        "(vX.Y.Z): 'not-a-version'",
        "RL901-dup-one.yaml:26:22: KB015 introduced not-a-version does not say where it comes from: add "
        "bound_sources.introduced (the release holding the fixing commit, the reference section, the measurement), "
        "or leave the bound out",
        "RL901-dup-one.yaml:26:22: KB017 no witness for introduced: give witness.code (checked on every release by "
        "tools/witness.py) or witness.unwitnessed with why no code can show it",
        "RL901-dup-one.yaml:26:22: KB018 the range never ends: give fixed (the first release whose code no longer has "
        "the problem) or last_affected (the newest release checked that still has it); versions past it are then "
        "possible, not affected",
        "RL902-dup-one.yaml:20:3: KB019 an engine's failure with no affected range would be reported on every "
        "release, past and future: give the ranges the released code shows (with older_unchecked where it holds on "
        "the oldest release checked)",
        "RL902-dup-one.yaml:3:1: KB003 duplicate id RL901 (also RL901-dup-one.yaml)",
        "RL902-dup-one.yaml:3:1: KB011 file name should be RL901-dup-one.yaml",
        "RL902-dup-one.yaml:4:1: KB004 duplicate slug dup-one (also RL901-dup-one.yaml)",
        "RL902-dup-one.yaml:19:1: KB009 a trigger record needs an example that passes",
        "RL903-schema-error.yaml:9:1: KB002 severity: Input should be 'blocker', 'major' or 'minor'",
    }
    # the parser's wording differs between libyaml and ruamel.yaml; the location and code do not
    assert any(line.startswith("RL904-syntax.yaml:3:1: KB001 invalid YAML: ") for line in lines)
    missing = expected - lines
    assert not missing, f"missing: {sorted(missing)}\noutput:\n{result.output}"
    assert "4 record files, 17 problems" in lines


def test_example_outcome_mismatch_is_reported() -> None:
    result = invoke(["validate", str(BROKEN)])
    assert "RL901-dup-one.yaml:29:5: KB010 example 'fires' should fires: got passes" in result.output


def test_shipped_records_load_without_schema_errors() -> None:
    from relialint.kb.loader import load_dir, shipped_dir

    result = load_dir(shipped_dir())
    assert result.problems == []
    assert len(result.records) >= 29

"""The corpus of real deployment shapes (tests/corpus) gives exactly its reviewed expectations.

Every entry is compared exactly: the deployments (engine, line) and the findings (code, certainty, line, column,
shown) of relialint's default JSON output. Entries the current code does not meet yet are listed in
``tests/corpus/KNOWN_GAPS.txt`` with the reason; they run as strict expected failures, so an entry that starts
passing fails until it is taken off the list (the list can only shrink). See docs/corpus.md.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tools import load_tool

corpus = load_tool("corpus_report")
ENTRIES = corpus.entries()
GAPS = corpus.known_gaps()


def test_the_corpus_is_large_and_varied_enough() -> None:
    negatives = [e for e in ENTRIES if e.negative]
    engines = {d.engine for e in ENTRIES for d in e.deployments}
    assert len(ENTRIES) - len(negatives) >= 90
    assert len(negatives) >= 10
    assert engines == {"vllm", "llama.cpp", "sglang"}
    assert sum(bool(e.findings) for e in ENTRIES) >= 30  # files with real problems, not only clean ones


def test_every_corpus_file_is_an_entry_or_used_by_one() -> None:
    assert corpus.orphans(ENTRIES) == []


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_expectations_point_at_the_tokens_they_name(entry: object) -> None:
    assert corpus.token_mismatches(entry) == []


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_each_reason_cites_the_entry_and_each_possible_finding_names_what_it_waits_on(entry: object) -> None:
    assert [*entry.problems, *corpus.uncited_reasons(entry)] == []


def test_no_reason_is_repeated_verbatim_across_the_corpus() -> None:
    assert corpus.repeated_reasons(ENTRIES) == []


def test_a_template_reason_is_caught(tmp_path: Path) -> None:
    for name in ("a.sh", "b.sh"):
        (tmp_path / name).write_text("vllm serve m --enforce-eager\n", encoding="utf-8")
        (tmp_path / f"{name}.expected.yaml").write_text(
            "about: a test\nfindings:\n  - {code: RL504, certainty: possible, shown: true, line: 1, column: 1,\n"
            "     missing: [engine.version], why: the record needs a version the file leaves open}\n",
            encoding="utf-8")
    found = corpus.entries(tmp_path)
    assert len(corpus.repeated_reasons(found)) == 1
    assert corpus.uncited_reasons(found[0]) == [
        f"{tmp_path / 'a.sh.expected.yaml'}: findings[1] (RL504): no backticked quote of the file's own text"]
    cited = found[0].reasons[0][1] + " (`--enforce-eager`)"
    found[0].reasons[0] = (found[0].reasons[0][0], cited)
    assert corpus.uncited_reasons(found[0]) == []
    assert corpus.repeated_reasons(found) == []


def test_a_possible_finding_without_missing_is_a_problem(tmp_path: Path) -> None:
    (tmp_path / "x.sh").write_text("vllm serve m\n", encoding="utf-8")
    expected = tmp_path / "x.sh.expected.yaml"
    expected.write_text("about: a test\nfindings:\n  - {code: RL504, certainty: possible, shown: true, line: 1, "
                        "column: 1, why: '`vllm serve m` leaves the version open'}\n", encoding="utf-8")
    assert corpus.load_entry(expected).problems == [
        f"{expected}: findings[1] (RL504): `missing` (the facts the possible finding waits on, from the "
        "record's trigger and what the file leaves open) is required"]


def test_every_known_gap_is_an_entry_with_a_reason() -> None:
    names = {e.name for e in ENTRIES}
    assert sorted(set(GAPS) - names) == []
    assert all(len(reason.split()) >= 3 for reason in GAPS.values())


@pytest.mark.parametrize(("finding", "message"), [
    ("{code: RL504, certainty: likely, shown: true, line: 1, column: 1, why: a b c d e}", "certainty"),
    ("{code: RL504, certainty: definite, shown: false, line: 1, column: 1, why: a b c d e}", "always shown"),
    ("{code: RL504, certainty: possible, shown: true, line: 0, column: 1, why: a b c d e}", "line"),
    ("{code: RL504, certainty: possible, shown: true, line: 1, column: 1, why: because}", "justify"),
])
def test_a_bad_expectation_is_refused(tmp_path: Path, finding: str, message: str) -> None:
    (tmp_path / "x.sh").write_text("vllm serve m\n", encoding="utf-8")
    expected = tmp_path / "x.sh.expected.yaml"
    expected.write_text(f"about: a test\ndeployments: []\nfindings:\n  - {finding}\n", encoding="utf-8")
    with pytest.raises(corpus.ExpectationError, match=message):
        corpus.load_entry(expected)


def test_compare_reports_each_kind_of_difference(tmp_path: Path) -> None:
    config = tmp_path / "x.sh"
    deployments = [corpus.Deployment("x.sh", "vllm", 1), corpus.Deployment("x.sh", "vllm", 2)]
    definite = corpus.Finding("x.sh", 1, 5, "RL503", "definite", True)
    possible = corpus.Finding("x.sh", 2, 5, "RL117", "possible", False, ("gpu.sm",))
    entry = corpus.Entry(config, tmp_path / "x.sh.expected.yaml", "a test", [], False, deployments,
                         [definite, possible])
    changed = corpus.Finding("x.sh", 1, 5, "RL503", "possible", True, ("engine.version",))
    extra = corpus.Finding("x.sh", 1, 1, "RL999", "possible", False, ("gpu.sm",))
    kinds = sorted(d.kind for d in corpus.compare(entry, corpus.Actual(deployments[1:], [changed, extra], [])))
    assert kinds == ["certainty", "extra-finding", "missing-deployment", "missing-finding"]
    shown = corpus.Finding("x.sh", 2, 5, "RL117", "possible", True, ("gpu.sm",))
    waits = corpus.Finding("x.sh", 2, 5, "RL117", "possible", False, ("engine.version", "gpu.sm"))
    assert [d.kind for d in corpus.compare(entry, corpus.Actual(deployments, [definite, shown], []))] == ["shown"]
    assert [(d.kind, d.detail) for d in corpus.compare(entry, corpus.Actual(deployments, [definite, waits], []))] == [
        ("missing-facts", "RL117 at x.sh:2:5: expected missing ['gpu.sm'], got ['engine.version', 'gpu.sm']")]


def test_a_file_counts_once_when_a_definite_finding_is_one_the_expectations_hold(tmp_path: Path) -> None:
    deployments = [corpus.Deployment("x.sh", "vllm", 1)]
    true = corpus.Finding("x.sh", 1, 5, "RL503", "definite", True)
    false = corpus.Finding("x.sh", 1, 9, "RL504", "definite", True)
    entry = corpus.Entry(tmp_path / "x.sh", tmp_path / "x.sh.expected.yaml", "a test", [], False, deployments, [true])
    totals = corpus.Totals()
    totals.add(entry, corpus.Actual(deployments, [true, false], []))  # one true definite: the file counts
    totals.add(entry, corpus.Actual(deployments, [false], []))  # a definite finding the expectations lack does not
    totals.add(entry, corpus.Actual(deployments, [corpus.Finding("x.sh", 1, 5, "RL503", "possible", True)], []))
    assert (totals.files, totals.definite, totals.files_with_true_definite) == (3, 3, 1)
    assert "files with at least one definite true finding: 1" in totals.lines()


def test_a_warning_on_a_negative_control_is_a_difference() -> None:
    entry = next(e for e in ENTRIES if e.name == "negative/mkdocs.yml")
    actual = corpus.Actual([], [], [], ["negative/mkdocs.yml:1:1: not a compose file; skipped"])
    assert [d.kind for d in corpus.compare(entry, actual)] == ["warning"]
    assert corpus.compare(entry, corpus.Actual([], [], [], [])) == []


def _params() -> list[object]:
    out: list[object] = []
    for entry in ENTRIES:
        marks = [pytest.mark.xfail(strict=True, reason=GAPS[entry.name])] if entry.name in GAPS else []
        out.append(pytest.param(entry, id=entry.name, marks=marks))
    return out


@pytest.mark.parametrize("entry", _params())
def test_corpus_entry_gives_exactly_its_expectations(entry: object) -> None:
    actual = corpus.run(entry)
    differences = corpus.compare(entry, actual)
    assert actual.errors == []
    assert differences == [], "\n".join(f"{d.kind}: {d.detail}" for d in differences)


def test_a_shown_possible_finding_waiting_on_a_stated_fact_is_a_difference() -> None:
    finding = {"code": "RL101", "certainty": "possible", "shown": True, "path": "a.sh", "line": 3, "column": 1,
               "missing_facts": ["gpu.sm", "serve.dtype"]}
    deployments = [{"path": "a.sh", "line": 1, "facts": {"serve.dtype": {"value": "bfloat16", "origin": "flag"},
                                                         "gpu.sm": {"value": None, "origin": "inferred"}}},
                   {"path": "a.sh", "line": 9, "facts": {}}]
    assert corpus.waits_on_stated([finding], deployments) == [
        f"RL101 at {corpus.rel(corpus.ROOT / 'a.sh')}:3:1 waits on serve.dtype, which the file states (flag: "
        "'bfloat16')"]
    counted = {**finding, "shown": False}
    defaulted = {"path": "a.sh", "line": 1, "facts": {"serve.dtype": {"value": "auto", "origin": "default"}}}
    ranged = {"path": "a.sh", "line": 1, "facts": {"engine.version": {"value": ">=0.9", "origin": "build"}}}
    assert corpus.waits_on_stated([counted], deployments) == []
    assert corpus.waits_on_stated([finding], [defaulted]) == []
    assert corpus.waits_on_stated([{**finding, "missing_facts": ["engine.version"]}], [ranged]) == []


def test_the_facts_an_expectation_lists_are_compared_with_their_place(tmp_path: Path) -> None:
    (tmp_path / "x.sh").write_text("python3 -m sglang.launch_server --model-path m --tp 2\n", encoding="utf-8")
    expected = tmp_path / "x.sh.expected.yaml"
    expected.write_text("about: a test\ndeployments:\n  - engine: sglang\n    line: 1\n    facts:\n"
                        "      parallel.tensor: {value: 2, line: 1, column: 50}\n      model.name: m\n",
                        encoding="utf-8")
    entry = corpus.load_entry(expected)
    path = corpus.rel(tmp_path / "x.sh")
    assert entry.facts == {(path, 1): {"parallel.tensor": corpus.ExpectedFact(2, 1, 50),
                                       "model.name": corpus.ExpectedFact("m")}}
    deployments = [corpus.Deployment(path, "sglang", 1)]
    right = {"parallel.tensor": {"value": 2, "line": 1, "column": 50}, "model.name": {"value": "m", "line": 1}}
    assert corpus.compare(entry, corpus.Actual(deployments, [], [], facts={(path, 1): right})) == []
    moved = {**right, "parallel.tensor": {"value": 2, "line": 1, "column": 47}}
    lost = {"parallel.tensor": {"value": 1, "origin": "default"}}
    assert [d.detail for d in corpus.compare(entry, corpus.Actual(deployments, [], [], facts={(path, 1): moved}))] == [
        f"parallel.tensor of the deployment at {path}:1: expected at 1:50, got 1:47"]
    assert [d.detail for d in corpus.compare(entry, corpus.Actual(deployments, [], [], facts={(path, 1): lost}))] == [
        f"model.name of the deployment at {path}:1: expected 'm', got no fact",
        f"parallel.tensor of the deployment at {path}:1: expected 2, got 1"]
    expected.write_text("about: a test\ndeployments:\n  - {engine: sglang, line: 1, facts: {model.name: {line: 1}}}\n",
                        encoding="utf-8")
    with pytest.raises(corpus.ExpectationError, match="takes `value`"):
        corpus.load_entry(expected)

"""The corpus of real deployment shapes (tests/corpus) gives exactly its reviewed expectations.

Every entry is compared exactly: the deployments (engine, line) and the findings (code, certainty, line, column,
shown) of relialint's default JSON output. Entries the current code does not meet yet are listed in
``tests/corpus/KNOWN_GAPS.txt`` with the reason; they run as strict expected failures, so an entry that starts
passing fails until it is taken off the list (the list can only shrink). See docs/corpus.md.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import ROOT


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("corpus_report", ROOT / "tools" / "corpus_report.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["corpus_report"] = module
    spec.loader.exec_module(module)
    return module


corpus = _load()
ENTRIES = corpus.entries()
GAPS = corpus.known_gaps()


def test_the_corpus_is_large_and_varied_enough() -> None:
    negatives = [e for e in ENTRIES if e.negative]
    engines = {d.engine for e in ENTRIES for d in e.deployments}
    assert len(ENTRIES) - len(negatives) >= 90
    assert len(negatives) >= 10
    assert engines == {"vllm", "llama.cpp"}
    assert sum(bool(e.findings) for e in ENTRIES) >= 30  # files with real problems, not only clean ones


def test_every_corpus_file_is_an_entry_or_used_by_one() -> None:
    assert corpus.orphans(ENTRIES) == []


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_expectations_point_at_the_tokens_they_name(entry: object) -> None:
    assert corpus.token_mismatches(entry) == []


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


def test_compare_reports_each_kind_of_difference() -> None:
    entry = next(e for e in ENTRIES if e.name == "shell-vllm/two-models-one-gpu.sh")
    first, *rest = entry.findings
    changed = corpus.Finding(first.path, first.line, first.column, first.code, "possible", True)
    extra = corpus.Finding(first.path, 1, 1, "RL999", "possible", False)
    actual = corpus.Actual(entry.deployments[1:], [changed, *rest[1:], extra], [])
    kinds = sorted(d.kind for d in corpus.compare(entry, actual))
    assert kinds == ["certainty", "extra-finding", "missing-deployment", "missing-finding"]


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

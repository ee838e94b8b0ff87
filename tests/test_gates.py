"""The quality gates of `relialint validate` (KB013-KB016) and the source / upstream status of a record."""

from __future__ import annotations

import json
from typing import Any

from relialint.kb import upstream
from relialint.kb.loader import compile_record, load_dir, shipped_dir
from relialint.kb.validate import semantic
from tests.cli_run import invoke
from tests.conftest import ROOT

GATES = ROOT / "tests" / "fixtures" / "gate-records"
BOUND = ("bound_sources.fixed (the release holding the fixing commit, the reference section, the measurement), or "
         "leave the bound out")
UNLINKED = "which no reference links: add a reference whose url is that thread"


def test_each_gate_reports_its_code_at_the_token() -> None:
    result = invoke(["validate", str(GATES)])
    assert result.exit_code == 2
    lines = [line.replace(str(GATES) + "/", "") for line in result.output.splitlines()]
    assert lines == [
        "RL190-gates-broken.yaml:7:1: KB021 a record chosen by the catalogue-growth rule states its reach: the exact "
        "strings searched in public configs, the files each found, and the estimate",
        f"RL190-gates-broken.yaml:13:14: KB014 'issue 5678' names issue or PR 5678, {UNLINKED}",
        f"RL190-gates-broken.yaml:14:3: KB014 'PR #1234' names issue or PR 1234, {UNLINKED}",
        f"RL190-gates-broken.yaml:19:12: KB014 'example/repo#77' names issue or PR 77 of example/repo, {UNLINKED}",
        f"RL190-gates-broken.yaml:19:32: KB014 'pull request 88' names issue or PR 88, {UNLINKED}",
        "RL190-gates-broken.yaml:23:5: KB013 the record is drawn from a tracker (this reference names an issue or "
        "PR) but no reference links an issue or pull request: give the thread's url",
        "RL190-gates-broken.yaml:24:25: KB014 'ggml-org/llama.cpp issue 5678' names issue or PR 5678 of "
        f"ggml-org/llama.cpp, {UNLINKED}",
        "RL190-gates-broken.yaml:25:32: KB016 this ` #` starts a YAML comment, so the value ends at 'the first "
        "comment': quote the whole value",
        f"RL190-gates-broken.yaml:34:7: KB015 fixed b2000 does not say where it comes from: add {BOUND}",
        "RL190-gates-broken.yaml:38:9: KB015 bound_sources names last_affected, which the range does not set",
        "2 record files, 10 problems",
    ]


def _copy(tmp_path: Any, edit: Any = None) -> Any:
    """A record folder with the clean gate record and, from ``edit``, a second record written from it."""
    folder = tmp_path / "records"
    folder.mkdir()
    clean = (GATES / "RL191-gates-clean.yaml").read_text(encoding="utf-8")
    (folder / "RL191-gates-clean.yaml").write_text(clean, encoding="utf-8")
    if edit is not None:
        name, text = edit(clean)
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def test_kb018_a_record_of_the_growth_rule_states_its_reach_and_links_upstream(tmp_path: Any) -> None:
    def edit(text: str) -> tuple[str, str]:
        text = text.replace("id: RL191", "id: RL192").replace("slug: gates-clean", "slug: gates-no-reach")
        text = text.replace("estimate: 12", "estimate: 0").replace("{fact: llama.ctx_size, ge: 1}",
                                                                    "{fact: llama.ctx_size, ge: 2}")
        text = text.replace("    url: https://github.com/ggml-org/llama.cpp/issues/5678\n", "")
        text = text.replace("    url: https://github.com/ggml-org/llama.cpp/pull/1234\n", "")
        return "RL192-gates-no-reach.yaml", text

    folder = _copy(tmp_path, edit)
    problems = [(p.line, p.column, p.code, p.message) for p in semantic(load_dir(folder))
                if p.path.endswith("RL192-gates-no-reach.yaml") and p.code == "KB021"]
    assert problems == [
        (24, 3, "KB021", "no public config can hit this record's trigger (reach estimate 0): it waits"),
        (18, 1, "KB021", "a record chosen by the catalogue-growth rule links its upstream source (an issue, pull "
                         "request, documentation page or source file) by url"),
    ]


def test_kb019_two_records_with_one_trigger(tmp_path: Any) -> None:
    def edit(text: str) -> tuple[str, str]:
        text = text.replace("id: RL191", "id: RL193").replace("slug: gates-clean", "slug: gates-same-trigger")
        # the same tests in another order and spelling are the same trigger
        text = text.replace("""      - {fact: engine.name, eq: llama.cpp}
      - {fact: llama.ctx_size, ge: 1}""", """      - {fact: llama.ctx_size, ge: 1}
      - {fact: engine.name, eq: llama.cpp}""")
        return "RL193-gates-same-trigger.yaml", text

    folder = _copy(tmp_path, edit)
    problems = [(p.path.rsplit("/", 1)[-1], p.line, p.column, p.code, p.message)
                for p in semantic(load_dir(folder)) if p.code == "KB022"]
    assert problems == [("RL193-gates-same-trigger.yaml", 32, 3, "KB022",
                         "RL193's trigger tests exactly what RL191's does: one cause and trigger is one record")]


def test_no_two_shipped_records_share_a_trigger() -> None:
    result = load_dir(shipped_dir())
    assert [p for p in semantic(result) if p.code in ("KB021", "KB022")] == []


def test_the_shipped_records_pass_every_gate() -> None:
    result = load_dir(shipped_dir())
    problems = [p for p in semantic(result) if p.code in ("KB013", "KB014", "KB015", "KB016")]
    assert problems == []
    # the gates have something to check: records that name and link threads, and sourced bounds
    records = [compile_record(r) for r in result.records]
    assert sum(1 for r in records if upstream.drawn_from_tracker(r)) >= 5
    assert sum(len(rng["bound_sources"]) for r in records for rng in upstream.ranges(r)) >= 13


def test_mentions_and_links() -> None:
    text = "see vllm-project/vllm issue #37133, llama.node #102, PR 15466, pull request #9 and ggml-org/llama.cpp#20834"
    found = [(m.number, m.repo) for m in upstream.mentions(text)]
    assert found == [(37133, "vllm-project/vllm"), (102, None), (15466, None), (9, None),
                     (20834, "ggml-org/llama.cpp")]
    # anchors, colours, HTML entities and file paths are not issue numbers
    assert upstream.mentions("utils.py#L1458, #fff, &#123;, docs/x.md#setup, issue-7") == []
    threads = [upstream.thread("https://github.com/ggml-org/llama.cpp/pull/20834"),
               upstream.thread("https://gitlab.com/a/b/-/merge_requests/9")]
    assert threads[0] == upstream.Thread("ggml-org/llama.cpp", 20834, "https://github.com/ggml-org/llama.cpp/pull/20834")
    assert upstream.thread("https://github.com/ggml-org/llama.cpp/blob/master/common/arg.cpp") is None
    linked = [m.number for m in upstream.mentions(text) if upstream.links(m, [t for t in threads if t])]
    assert linked == [9, 20834]
    (other,) = upstream.mentions("other/repo#20834")
    assert not upstream.links(other, [t for t in threads if t])


def _record(**fields: Any) -> dict[str, Any]:
    return {"id": "RL190", "engines": ["llama.cpp"], "references": [], **fields}


def test_sources_most_specific_first() -> None:
    refs = [
        {"kind": "source", "title": "t", "locator": "seed 000_92ee87cbb4f51a37, §2.2"},
        {"kind": "upstream", "title": "t", "locator": "x (relialint reference engine-facts.md §7)"},
        {"kind": "fix", "title": "t", "url": "https://github.com/ggml-org/llama.cpp/pull/1234"},
        {"kind": "report", "title": "t", "url": "https://github.com/ggml-org/llama.cpp/issues/5678"},
    ]
    assert [s.as_json() for s in upstream.sources(_record(references=refs))] == [
        {"kind": "tracker", "label": "ggml-org/llama.cpp#5678", "url": "https://github.com/ggml-org/llama.cpp/issues/5678"},
        {"kind": "tracker", "label": "ggml-org/llama.cpp#1234", "url": "https://github.com/ggml-org/llama.cpp/pull/1234"},
        {"kind": "seed", "label": "seed chapter §2.2"},
        {"kind": "engine-facts", "label": "engine facts §7"},
    ]
    code_only = [{"kind": "upstream", "title": "t", "url": "https://github.com/x/y/blob/v1/a.py"}]
    assert upstream.sources(_record(references=code_only)) == [
        upstream.Source("upstream", "llama.cpp source", "https://github.com/x/y/blob/v1/a.py")]


def test_status_from_the_affected_ranges() -> None:
    def status(*ranges: dict[str, Any], refs: list[dict[str, Any]] | None = None) -> tuple[str, str]:
        record = _record(references=refs or [])
        if ranges:
            record["trigger"] = {"affected": list(ranges)}
        result = upstream.status(record)
        return result.state, result.text

    assert status({"engine": "llama.cpp", "introduced": "b1000", "fixed": "b2000"}) == (
        "fixed", "fixed in llama.cpp b2000")
    assert status({"engine": "vllm", "introduced": "0.11.1"}) == (
        "open", "open: vllm 0.11.1 and newer affected, no fix known")
    assert status({"engine": "vllm", "introduced": "0.10.0", "last_affected": "0.14.0"}) == (
        "unknown", "no fix known; last known affected vllm 0.14.0")
    assert status({"engine": "vllm", "observed": ["0.30.0"]}) == ("unknown", "unknown: observed on vllm 0.30.0")
    assert status({"engine": "vllm", "fixed": "0.28.0"}, {"engine": "llama.cpp", "introduced": "b1"}) == (
        "open", "fixed in vllm 0.28.0; open: llama.cpp b1 and newer affected, no fix known")
    assert status() == ("unknown", "unknown")
    fix = [{"kind": "fix", "title": "t", "url": "https://github.com/ggml-org/llama.cpp/pull/1234"}]
    assert status(refs=fix) == ("fixed", "fixed by ggml-org/llama.cpp#1234 (first release with it not known)")
    assert status({"engine": "llama.cpp", "introduced": "b1000", "last_affected": "b1200"}, refs=fix) == (
        "fixed", "fixed by ggml-org/llama.cpp#1234 (first release with it not known); last known affected llama.cpp "
        "b1200")
    assert status({"engine": "llama.cpp", "introduced": "b1000", "fixed": "b1300"}, refs=fix) == (
        "fixed", "fixed in llama.cpp b1300")


def test_records_command_shows_source_and_status() -> None:
    result = invoke(["records", "RL540"])  # RL540 and the records that name it
    assert result.exit_code == 0
    lines = result.output.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("RL540 "))
    assert lines[at + 1] == "       source: vllm source  |  upstream: fixed in vllm 0.28.0"
    result = invoke(["records", "positional-model", "--format", "json"])
    (row,) = json.loads(result.output)["records"]
    assert row["id"] == "RL502"
    assert row["sources"] == [{"kind": "engine-facts", "label": "engine facts §1"}]
    assert row["upstream"] == {"state": "unknown", "text": "no fix known; last known affected vllm 0.33.0"}
    # the fields the contract already had are unchanged
    assert list(row)[:9] == ["id", "slug", "title", "severity", "impact", "engines", "trigger", "runtime_trigger",
                             "url"]

"""Every record's examples, run: each is linted (or probed) as a user's file would be, with only its record in
force, and the outcome compared with what the example says. This is a run of the linter, so it lives with the run,
not in ``kb`` (which only loads and checks records)."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from relialint.core.evaluate import PredicateError
from relialint.core.facts import FactValueError
from relialint.core.triggers import attach
from relialint.kb.loader import LoadResult, Problem, compile_record, load_dir
from relialint.kb.validate import DEFAULT_FILENAMES, PROBE_FORMATS, example_path_problem, problem, semantic


@dataclass
class ExampleOutcome:
    record: str
    index: int
    name: str
    expected: str
    actual: str
    detail: str

    @property
    def ok(self) -> bool:
        return self.expected == self.actual and not self.detail


def run_example(record: dict[str, Any], example: dict[str, Any], index: int,
                extra_records: list[dict[str, Any]] | None = None) -> ExampleOutcome:
    """Lint one example in a scratch folder, with only this record in force, and compare the outcome. A capture
    example (``nvidia-smi``, ``amd-smi``) is probed instead, against the record's runtime trigger."""
    if example["format"] in PROBE_FORMATS:
        return _outcome(record, example, index, *_probe_example(record, example))
    from relialint.run.lint import Options, RunResult, Target, UsageError, lint_file_result, read_file, target_facts

    name = example.get("filename") or DEFAULT_FILENAMES[example["format"]]
    target = Target(gpu=example.get("gpu"), engine_version=example.get("engine_version"), os=example.get("os"),
                    facts={k: str(v).lower() if isinstance(v, bool) else str(v)
                           for k, v in (example.get("facts") or {}).items()})
    unsafe = example_path_problem(str(name))
    if unsafe is not None:
        return ExampleOutcome(record["id"], index, example["name"], example["outcome"], "error",
                              f"filename {name!r}: {unsafe}")
    with tempfile.TemporaryDirectory(prefix="relialint-example-") as tmp:
        path = Path(tmp) / name
        if not path.resolve().is_relative_to(Path(tmp).resolve()):
            return ExampleOutcome(record["id"], index, example["name"], example["outcome"], "error",
                                  f"filename {name!r}: outside the example's folder")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(example["content"], encoding="utf-8")
        try:
            given = target_facts(target)
        except UsageError as exc:
            return ExampleOutcome(record["id"], index, example["name"], example["outcome"], "error", str(exc))
        kind = example["format"]
        run = RunResult(files=1)
        try:
            lint_file_result(read_file(example["content"], str(path), kind), given, [record], Options(), run)
        except (PredicateError, FactValueError) as exc:
            return ExampleOutcome(record["id"], index, example["name"], example["outcome"], "error", str(exc))
    return _outcome(record, example, index, run.findings, [e.message for e in run.errors])


def _probe_example(record: dict[str, Any], example: dict[str, Any]) -> tuple[list[Any], list[str]]:
    from relialint.probe.host import build
    from relialint.probe.sources import read_capture
    from relialint.run.lint import Target, UsageError, target_facts
    from relialint.run.runtime_findings import findings, host_deployment

    name = example.get("filename") or DEFAULT_FILENAMES[example["format"]]
    capture = read_capture(example["content"], name)
    target = Target(facts={k: str(v).lower() if isinstance(v, bool) else str(v)
                           for k, v in (example.get("facts") or {}).items()})
    try:
        given = target_facts(target)
    except UsageError as exc:
        return [], [str(exc)]
    host = build([capture])
    deployment = host_deployment(host, given, [])
    try:
        return findings(deployment, [record]), [e.message for e in capture.errors]
    except (PredicateError, FactValueError) as exc:
        return [], [str(exc)]


def _outcome(record: dict[str, Any], example: dict[str, Any], index: int, found: list[Any],
             errors: list[str]) -> ExampleOutcome:
    detail = "; ".join(errors)
    mine = [f for f in found if f.code == record["id"]]
    if not mine:
        actual = "passes"
    elif any(f.certainty == "definite" for f in mine):
        actual = "fires"
    else:
        actual = "possible"
    expected = example["outcome"]
    if actual == expected and expected == "possible":
        missing = set(example.get("missing") or [])
        named = {m for f in mine for m in f.missing_facts}
        if not missing <= named:
            detail = f"possible, but names {sorted(named)} rather than {sorted(missing)}"
    at = example.get("at")
    if actual == expected and at and mine:
        spots = [(f.line, f.column) for f in mine]
        if (at["line"], at["column"]) not in spots:
            detail = f"points at {spots}, expected line {at['line']} column {at['column']}"
    if actual != expected and not detail:
        shown = "; ".join(f"{f.certainty} at {f.line}:{f.column} {f.missing_facts}" for f in mine)
        detail = f"got {actual}" + (f" ({shown})" if shown else "")
    return ExampleOutcome(record["id"], index, example["name"], expected, actual, detail)


def run_examples(result: LoadResult) -> list[Problem]:
    problems: list[Problem] = []
    for loaded in result.records:
        (compiled,) = attach([compile_record(loaded)])  # its trigger compiled, as a loaded record's is
        for index, example in enumerate(compiled.get("examples") or []):
            outcome = run_example(compiled, example, index)
            if not outcome.ok:
                problems.append(problem(loaded, ("examples", index), "KB010",
                                         f"example {example['name']!r} should {outcome.expected}: {outcome.detail}"))
    return problems


def validate_dirs(directories: list[Path], known_ids: set[str] | None = None) -> list[Problem]:
    problems: list[Problem] = []
    combined = LoadResult()
    for directory in directories:
        result = load_dir(directory)
        combined.records.extend(result.records)
        combined.problems.extend(result.problems)
    problems.extend(combined.problems)
    semantic_problems = semantic(combined, known_ids)
    problems.extend(semantic_problems)
    try:
        problems.extend(run_examples(combined))
    except PredicateError as exc:  # a malformed predicate already reported above
        problems.append(Problem(str(directories[0]), 1, 1, "KB010", f"examples not run: {exc}"))
    return sorted(set(problems), key=lambda p: (p.path, p.line, p.column, p.code))

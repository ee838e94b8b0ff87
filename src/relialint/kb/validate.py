"""Semantic checks over a folder of records, each with its own code, and the run of every example."""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from relialint.engines.versioning import parse_engine_version
from relialint.evaluate import PredicateError
from relialint.facts import FactValueError, parse_value, spec_for
from relialint.kb import gates, links, witness
from relialint.kb.loader import LoadedRecord, LoadResult, Problem, compile_record, load_dir
from relialint.kb.model import IMPACT_BY_HUNDRED
from relialint.versions import VersionError

DEFAULT_FILENAMES = {
    "shell": "serve.sh", "compose": "compose.yaml", "kubernetes": "deployment.yaml", "helm": "values.yaml",
    "env": ".env", "vllm-config": "vllm-config.yaml", "systemd": "vllm.service", "dockerfile": "Dockerfile",
    "windows": "serve.bat",
    "nvidia-smi": "nvidia-smi.csv", "amd-smi": "amd-smi.json",
}


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


def _problem(loaded: LoadedRecord, loc: tuple[str | int, ...], code: str, message: str) -> Problem:
    span = loaded.span(loc)
    line, column = (span.line, span.column) if span else (1, 1)
    return Problem(loaded.path, line, column, code, message)


Loc = tuple[str | int, ...]


def _walk_leaves(pred: dict[str, Any], loc: Loc) -> list[tuple[dict[str, Any], Loc]]:
    if "all" in pred or "any" in pred:
        key = "all" if "all" in pred else "any"
        out = []
        for index, child in enumerate(pred[key]):
            out.extend(_walk_leaves(child, (*loc, key, index)))
        return out
    if "not" in pred:
        return _walk_leaves(pred["not"], (*loc, "not"))
    return [(pred, loc)]


def semantic(result: LoadResult, known_ids: set[str] | None = None) -> list[Problem]:
    problems: list[Problem] = []
    ids: dict[str, LoadedRecord] = {}
    slugs: dict[str, LoadedRecord] = {}
    all_ids = {r.record.id for r in result.records} | (known_ids or set())
    for loaded in result.records:
        rec = loaded.record
        if rec.id in ids:
            problems.append(_problem(loaded, ("id",), "KB003", f"duplicate id {rec.id} (also {ids[rec.id].path})"))
        ids.setdefault(rec.id, loaded)
        if rec.slug in slugs:
            problems.append(_problem(loaded, ("slug",), "KB004",
                                     f"duplicate slug {rec.slug} (also {slugs[rec.slug].path})"))
        slugs.setdefault(rec.slug, loaded)
        for index, related in enumerate(rec.related):
            if related not in all_ids:
                problems.append(_problem(loaded, ("related", index), "KB005", f"related id {related} does not exist"))
        expected_name = f"{rec.id}-{rec.slug}"
        if Path(loaded.path).stem != expected_name:
            problems.append(_problem(loaded, ("id",), "KB011", f"file name should be {expected_name}.yaml"))
        expected_impact = IMPACT_BY_HUNDRED.get(rec.id[2])
        if expected_impact is None:
            problems.append(_problem(loaded, ("id",), "KB011", f"{rec.id}: RL{rec.id[2]}xx is not an impact range"))
        elif expected_impact != rec.impact:
            problems.append(_problem(loaded, ("impact",), "KB011",
                                     f"{rec.id} is in the {expected_impact} range, not {rec.impact}"))
        problems.extend(_trigger_checks(loaded))
        problems.extend(_example_checks(loaded))
        problems.extend(gates.check(loaded))
        problems.extend(links.check(loaded))
        if rec.status != "withdrawn":
            problems.extend(witness.check(loaded, Path(loaded.path).parent))
    return problems


PROBE_FORMATS = ("nvidia-smi", "amd-smi")
"""Example formats that are probe captures: they test ``runtime_trigger``, the others ``trigger``."""


def _trigger_checks(loaded: LoadedRecord) -> list[Problem]:
    return _one_trigger(loaded, "trigger") + _one_trigger(loaded, "runtime_trigger")


def _one_trigger(loaded: LoadedRecord, name: str) -> list[Problem]:
    problems: list[Problem] = []
    data = loaded.data
    trigger = data.get(name)
    if not trigger:
        return problems
    for leaf, loc in _walk_leaves(trigger["when"], (name, "when")):
        key = leaf.get("fact", "")
        spec = spec_for(key)
        if spec is None:
            problems.append(_problem(loaded, (*loc, "fact"), "KB006", f"fact {key!r} is not in the vocabulary"))
            continue
        for op, value in leaf.items():
            if op == "fact" or op == "present":
                continue
            if op == "matches":
                try:
                    re.compile(str(value))
                except re.error as exc:
                    problems.append(_problem(loaded, (*loc, op), "KB012", f"invalid regular expression: {exc}"))
                continue
            for item in value if isinstance(value, list) else [value]:
                try:
                    parse_value(spec, item)
                    _engine_name(key, item)
                except FactValueError as exc:
                    code = "KB007" if spec.type in ("version", "sm") else "KB006"
                    problems.append(_problem(loaded, (*loc, op), code, str(exc)))
    for index, rng in enumerate(trigger.get("affected") or []):
        for field in ("introduced", "fixed", "last_affected", "last_known_good"):
            if rng.get(field):
                try:
                    parse_engine_version(rng["engine"], str(rng[field]))
                except VersionError as exc:
                    problems.append(_problem(loaded, (name, "affected", index, field), "KB007", str(exc)))
        for j, observed in enumerate(rng.get("observed") or []):
            try:
                parse_engine_version(rng["engine"], str(observed))
            except VersionError as exc:
                problems.append(_problem(loaded, (name, "affected", index, "observed", j), "KB007", str(exc)))
    for index, key in enumerate(trigger.get("locate") or []):
        if spec_for(key) is None:
            problems.append(_problem(loaded, (name, "locate", index), "KB006", f"fact {key!r} is not in the "
                                                                                     "vocabulary"))
    edit = (trigger.get("fix_edit") or {}).get("set") or {}
    for key in edit:
        if spec_for(key) is None:
            problems.append(_problem(loaded, (name, "fix_edit", "set", key), "KB006",
                                     f"fact {key!r} is not in the vocabulary"))
    probe = name == "runtime_trigger"
    examples = [e for e in data.get("examples") or [] if (e.get("format") in PROBE_FORMATS) == probe]
    kind = "a runtime trigger needs a capture example" if probe else "a trigger record needs an example"
    if not any(e.get("outcome") == "fires" for e in examples):
        problems.append(_problem(loaded, (name,), "KB008", f"{kind} that fires"))
    if not any(e.get("outcome") == "passes" for e in examples):
        problems.append(_problem(loaded, (name,), "KB009", f"{kind} that passes"))
    return problems


def _example_checks(loaded: LoadedRecord) -> list[Problem]:
    problems: list[Problem] = []
    for index, example in enumerate(loaded.data.get("examples") or []):
        for key in list(example.get("facts") or {}) + list(example.get("missing") or []):
            if spec_for(key) is None:
                problems.append(_problem(loaded, ("examples", index), "KB006", f"fact {key!r} is not in the "
                                                                                "vocabulary"))
        if example.get("engine_version"):
            try:
                from relialint.versions import parse_version

                parse_version(str(example["engine_version"]))
            except VersionError as exc:
                problems.append(_problem(loaded, ("examples", index, "engine_version"), "KB007", str(exc)))
    return problems


def example_path_problem(name: str) -> str | None:
    """Why an example's ``filename:`` may not be written inside validate's own temporary folder (``None``: it may).
    A record folder is untrusted input: no absolute path, no ``..``, no drive or backslash trickery."""
    pure = PurePosixPath(name)
    if not name or "\0" in name or "\\" in name or pure.is_absolute() or PureWindowsPath(name).drive:
        return "must be a relative path"
    if any(part in ("..", ".", "") for part in name.split("/")):
        return "must not hold `..`, `.` or an empty part"
    if len(name) > 200 or any(len(part) > 100 for part in pure.parts):
        return "is too long"
    return None


def run_example(record: dict[str, Any], example: dict[str, Any], index: int,
                extra_records: list[dict[str, Any]] | None = None) -> ExampleOutcome:
    """Lint one example in a scratch folder, with only this record in force, and compare the outcome. A capture
    example (``nvidia-smi``, ``amd-smi``) is probed instead, against the record's runtime trigger."""
    if example["format"] in PROBE_FORMATS:
        return _outcome(record, example, index, *_probe_example(record, example))
    from relialint.lint import Options, RunResult, Target, UsageError, lint_file_result, read_file, target_facts

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
    from relialint.lint import Target, UsageError, target_facts
    from relialint.probe.host import build
    from relialint.probe.runtime import findings, host_deployment
    from relialint.probe.sources import read_capture

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
        compiled = compile_record(loaded)
        for index, example in enumerate(compiled.get("examples") or []):
            outcome = run_example(compiled, example, index)
            if not outcome.ok:
                problems.append(_problem(loaded, ("examples", index), "KB010",
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
    _ = VersionError
    return sorted(set(problems), key=lambda p: (p.path, p.line, p.column, p.code))


def _engine_name(key: str, value: object) -> None:
    """``engine.name`` takes the name of an engine relialint ships (``FactValueError`` otherwise)."""
    if key != "engine.name":
        return
    from relialint.engines.registry import default_registry

    names = default_registry().versioned()
    if str(value) not in {engine.name for engine in names}:
        raise FactValueError(f"{key} takes one of {', '.join(engine.name for engine in names)}, not {value!r}")

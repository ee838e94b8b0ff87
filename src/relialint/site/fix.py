"""A record's fix as a before/after of a config a reader can copy, derived from the record's own examples.

The *before* is an example that fires. The *after* is, in this order of preference:

1. a passing example of the same format and the same target (GPU, engine version, OS, given facts) that differs
   from it in the fewest lines, and whose difference names something the record's fix names (a flag, a variable,
   a value in the fix's code spans): the record's author wrote and tested it, and it is the fix, not some other
   way of avoiding the trigger;
2. the fires example with the record's ``fix_edit`` applied by the linter's own quick fix (what editors offer),
   kept only when the fixed text no longer gives a finding of the record.

Either way the *after* is checked by linting it with only this record in force: it must give no finding. A record
with neither (knowledge records, fixes that are not an edit of the config) has no before/after; its page gives the
fix in prose only.
"""

from __future__ import annotations

import difflib
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_TARGET_KEYS = ("format", "filename", "gpu", "engine_version", "os", "facts")
_CAPTURES = ("nvidia-smi", "amd-smi")
_CODE_SPAN = re.compile(r"`+([^`]+)`+")
_WORD_SPLIT = re.compile(r"[\s=,'\"\\{}:\[\]()]+")


@dataclass(frozen=True)
class BeforeAfter:
    format: str
    before: str
    after: str
    before_name: str
    after_name: str | None  # the passing example's name; None when the after is the quick fix applied
    context: dict[str, Any]  # the target the pair is given for: gpu, engine_version, os, facts

    @property
    def how(self) -> str:
        return "example" if self.after_name is not None else "quick-fix"


def _lint(record: dict[str, Any], example: dict[str, Any], content: str) -> tuple[Any, Any] | None:
    """Lint ``content`` as the example's file with only ``record`` in force: (run, file result), or None."""
    from relialint.core.evaluate import PredicateError
    from relialint.core.facts import FactValueError
    from relialint.kb.validate import DEFAULT_FILENAMES, example_path_problem
    from relialint.run.lint import Options, RunResult, Target, UsageError, lint_file_result, read_file, target_facts

    name = str(example.get("filename") or DEFAULT_FILENAMES[example["format"]])
    if example_path_problem(name) is not None:
        return None
    target = Target(gpu=example.get("gpu"), engine_version=example.get("engine_version"), os=example.get("os"),
                    facts={k: str(v).lower() if isinstance(v, bool) else str(v)
                           for k, v in (example.get("facts") or {}).items()})
    with tempfile.TemporaryDirectory(prefix="relialint-site-") as tmp:
        path = Path(tmp) / name
        run = RunResult(files=1)
        try:
            given = target_facts(target)
            result = read_file(content, str(path), example["format"])
            lint_file_result(result, given, [record], Options(), run)
        except (UsageError, PredicateError, FactValueError):
            return None
    return run, result


def _passes(record: dict[str, Any], example: dict[str, Any], content: str) -> bool:
    linted = _lint(record, example, content)
    return linted is not None and not [f for f in linted[0].findings if f.code == record["id"]] \
        and not linted[0].errors


def _changed_lines(a: str, b: str) -> int:
    diff = difflib.ndiff(a.splitlines(), b.splitlines())
    return sum(1 for line in diff if line[:2] in ("- ", "+ "))


def _words(text: str) -> set[str]:
    """Whitespace tokens and their parts split at ``=``, quotes and brackets; two characters or more."""
    tokens = {w.strip("\\'\"") for w in text.split()}
    parts = {p for w in tokens for p in _WORD_SPLIT.split(w)}
    return {w for w in tokens | parts if len(w) >= 2}


def _fix_words(record: dict[str, Any]) -> set[str]:
    """What the record's fix names: the code spans of its fix text and its ``fix_edit`` settings."""
    spans = " ".join(m.group(1) for m in _CODE_SPAN.finditer(str(record.get("fix") or "")))
    fix_set = ((record.get("trigger") or {}).get("fix_edit") or {}).get("set") or {}
    spans += " " + " ".join(f"{k} {v}" for k, v in fix_set.items())
    return _words(spans)


def _diff_words(before: str, after: str) -> set[str]:
    diff = list(difflib.ndiff(before.splitlines(), after.splitlines()))
    removed = _words("\n".join(line[2:] for line in diff if line.startswith("- ")))
    added = _words("\n".join(line[2:] for line in diff if line.startswith("+ ")))
    return removed ^ added


def names_the_fix(record: dict[str, Any], before: str, after: str) -> bool:
    """Whether the change from ``before`` to ``after`` touches a word the record's fix names."""
    fix = _fix_words(record)
    return any(d == f or (len(f) >= 5 and f in d) or (len(d) >= 5 and d in f)
               for d in _diff_words(before, after) for f in fix)


def _same_target(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return all((a.get(k) or None) == (b.get(k) or None) for k in _TARGET_KEYS)


def _apply(content: str, edits: list[Any]) -> str:
    """Apply 1-based, end-exclusive, code-point text edits (the linter's quick-fix edits)."""
    lines = content.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)

    def offset(line: int, column: int) -> int:
        return starts[line - 1] + column - 1

    out = content
    for edit in sorted(edits, key=lambda e: (e.line, e.column), reverse=True):
        start, end = offset(edit.line, edit.column), offset(edit.end_line, edit.end_column)
        out = out[:start] + edit.new_text + out[end:]
    return out


def _quick_fix(record: dict[str, Any], example: dict[str, Any]) -> str | None:
    from relialint.engines.registry import default_registry

    fix_set = ((record.get("trigger") or {}).get("fix_edit") or {}).get("set") or {}
    if not fix_set:
        return None
    linted = _lint(record, example, str(example["content"]))
    if linted is None:
        return None
    run, result = linted
    for deployment in run.deployments:
        engine = default_registry().get(deployment.engine)
        edits = engine.fix_edits(result, deployment, fix_set) if engine is not None else None
        if edits:
            return _apply(str(example["content"]), edits)
    return None


def before_after(record: dict[str, Any]) -> BeforeAfter | None:
    """The record's fix as a before/after pair of one config, or None when the examples do not give one."""
    if not record.get("trigger"):
        return None
    examples = [e for e in record.get("examples") or [] if e["format"] not in _CAPTURES]
    fires = [e for e in examples if e["outcome"] == "fires"]
    passes = [e for e in examples if e["outcome"] == "passes"]
    pairs = sorted(((_changed_lines(str(f["content"]), str(p["content"])), i, j, f, p)
                    for i, f in enumerate(fires) for j, p in enumerate(passes) if _same_target(f, p)),
                   key=lambda t: (t[0], t[1], t[2]))
    for changed, _, _, f, p in pairs:
        total = max(len(str(f["content"]).splitlines()), 1)
        if 0 < changed <= max(2, total) and names_the_fix(record, str(f["content"]), str(p["content"])) \
                and _passes(record, p, str(p["content"])):
            return BeforeAfter(str(f["format"]), str(f["content"]), str(p["content"]), str(f["name"]),
                               str(p["name"]), _context(f))
    for f in fires:
        fixed = _quick_fix(record, f)
        if fixed is not None and fixed != f["content"] and _passes(record, f, fixed):
            return BeforeAfter(str(f["format"]), str(f["content"]), fixed, str(f["name"]), None, _context(f))
    return None


def _context(example: dict[str, Any]) -> dict[str, Any]:
    return {k: example[k] for k in ("gpu", "engine_version", "os", "facts") if example.get(k)}


@dataclass(frozen=True)
class PrintedFinding:
    """The line ``relialint check`` prints for the record on one of its firing examples."""

    line: str  # the text output's finding line, the example's file name as its path
    example: str  # the example's name
    context: dict[str, Any]  # the target it is linted for: gpu, engine_version, os, facts


def printed_finding(record: dict[str, Any]) -> PrintedFinding | None:
    """The finding line the text formatter (the CLI's own, :func:`relialint.report.text.render`) prints for the
    record's first firing example, linted with only this record in force; ``None`` for a record with no trigger
    or no example that fires. The temporary folder the example is linted in is left out of the path."""
    from relialint.core.results import Finding, RunResult
    from relialint.kb.validate import DEFAULT_FILENAMES
    from relialint.report.text import render

    if not record.get("trigger"):
        return None
    for example in record.get("examples") or []:
        if example["outcome"] != "fires" or example["format"] in _CAPTURES:
            continue
        linted = _lint(record, example, str(example["content"]))
        found = [f for f in linted[0].findings if f.code == record["id"]] if linted is not None else []
        if not found:
            continue
        fields = {name: getattr(found[0], name) for name in Finding._fields}
        fields["path"] = str(example.get("filename") or DEFAULT_FILENAMES[example["format"]])
        text = render(RunResult(findings=[Finding(**fields)], files=1))
        return PrintedFinding(text.splitlines()[0], str(example["name"]), _context(example))
    return None

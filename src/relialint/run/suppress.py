"""Suppressions: inline directives, configured (out-of-band) ignores, and the baseline.

Inline directives are comments in the linted file::

    # relialint: ignore[RL105] reason text        the finding's line, or the line (or command) below
    # relialint: ignore-file[RL2] reason text     the whole file
    # relialint: gpu=B200                         facts for this file (also engine-version=, os=)
    # relialint: fact gpu.count=2 host.rebar=on

Every ignore needs a reason; one without (or with the placeholder the editor's quick fix inserts) is not applied and
is reported, as is an ignore that suppresses nothing.
This module knows findings only through the small ``Suppressible`` protocol and returns problems as ``Problem``s
that ``lint`` turns into findings with the meta codes in ``META_RULES``.
"""

from __future__ import annotations

import datetime
import json
import os
import re
from pathlib import Path
from typing import Any, Protocol

from relialint import SITE_URL
from relialint.base.errors import RelialintError, never_none
from relialint.base.plain import Fields

INVALID_DIRECTIVE = "RL001"
UNUSED_IGNORE = "RL002"
EXPIRED_IGNORE = "RL003"
STALE_BASELINE = "RL004"

_DOCS = f"{SITE_URL}docs/configuration/"

META_RULES: list[dict[str, object]] = [
    {"id": INVALID_DIRECTIVE, "slug": "invalid-directive", "severity": "major", "impact": "configuration",
     "title": "A relialint directive that cannot be applied",
     "summary": "An inline `# relialint:` directive is malformed: an ignore without a reason (or with the editor "
                "quick fix's placeholder reason), an unknown record id, GPU name or fact, or an unknown directive "
                "word. It is not applied.",
     "fix": "Write `# relialint: ignore[RL105] why this is safe here`, or fix the GPU name or fact.",
     "url": f"{_DOCS}#inline-directives"},
    {"id": UNUSED_IGNORE, "slug": "unused-ignore", "severity": "minor", "impact": "configuration",
     "title": "An ignore that suppresses nothing",
     "summary": "An inline ignore or a configured suppression matched no finding. It may be left over from a fix; "
                "left in place it would hide a future regression.",
     "fix": "Remove the ignore.",
     "url": f"{_DOCS}#unused-ignores"},
    {"id": EXPIRED_IGNORE, "slug": "expired-ignore", "severity": "minor", "impact": "configuration",
     "title": "A configured suppression past its expiry date",
     "summary": "A `[[tool.relialint.suppress]]` entry has an `expires` date in the past; it no longer suppresses "
                "anything.",
     "fix": "Fix the findings it covered, or renew the entry with a new reason and date.",
     "url": f"{_DOCS}#configured-suppressions"},
    {"id": STALE_BASELINE, "slug": "stale-baseline-entry", "severity": "minor", "impact": "configuration",
     "title": "A baseline entry that matches no finding any more",
     "summary": "The baseline records a finding that is gone (fixed or moved to another record). The baseline can "
                "only shrink: rewrite it so that the finding cannot come back unnoticed.",
     "fix": "Run `relialint check --write-baseline FILE ...` again.",
     "url": f"{_DOCS}#baseline"},
]

# Comment syntax per reader kind: "trailing" allows a comment after code on the line; "line" only whole-line ones.
_LINE_ONLY = {"dockerfile", "systemd"}
_DIRECTIVE = re.compile(r"^#+\s*relialint\s*:\s*(?P<body>.*?)\s*$")
_CODE = re.compile(r"^RL\d{1,3}$")
_IGNORE = re.compile(r"^(?P<word>ignore-file|ignore)\b\s*(?:\[(?P<codes>[^\]]*)\])?\s*(?P<reason>.*)$")
_FACT_WORDS = ("gpu", "engine-version", "os")
PLACEHOLDER_REASON = "REASON: why this is safe here"
"""What the editor's "Ignore" quick fix writes for the reason, to be replaced: not a reason (nor is the text after
``REASON:``, which the message about a missing reason shows where the reason goes)."""


class Suppressible(Protocol):
    code: str
    path: str
    line: int


class Problem(Fields):
    """A suppression problem, reported as a finding with a meta code."""

    code: str
    path: str
    line: int
    column: int
    end_column: int
    message: str

    _fields = ("code", "path", "line", "column", "end_column", "message")

    def __init__(self, code: str, path: str, line: int, column: int, end_column: int, message: str) -> None:
        self.code = code
        self.path = path
        self.line = line
        self.column = column
        self.end_column = end_column
        self.message = message


class Ignore:
    """An inline ``ignore[...]`` or ``ignore-file[...]`` directive."""

    codes: list[str]
    reason: str
    line: int
    column: int
    end_column: int
    target_line: int | None  # None: the whole file
    used: bool = False

    def __init__(self, codes: list[str], reason: str, line: int, column: int, end_column: int, target_line: int | None,
                 used: bool = False) -> None:
        self.codes = codes
        self.reason = reason
        self.line = line
        self.column = column
        self.end_column = end_column
        self.target_line = target_line
        self.used = used

    def covers(self, code: str, line: int, start_line: int) -> bool:
        if not any(code.startswith(c) for c in self.codes):
            return False
        return self.target_line is None or line == self.target_line or start_line == self.target_line


class FactDirective:
    key: str  # "gpu", "engine-version", "os", or a fact key
    value: str
    line: int
    column: int

    def __init__(self, key: str, value: str, line: int, column: int) -> None:
        self.key = key
        self.value = value
        self.line = line
        self.column = column


class Directives:
    ignores: list[Ignore]
    facts: list[FactDirective]
    problems: list[Problem]

    def __init__(self, ignores: list[Ignore] | None = None, facts: list[FactDirective] | None = None,
                 problems: list[Problem] | None = None) -> None:
        self.ignores = [] if ignores is None else ignores
        self.facts = [] if facts is None else facts
        self.problems = [] if problems is None else problems


def _comment_start(line: str, kind: str) -> tuple[int, bool] | None:
    """Where a ``#`` comment starts on ``line`` and whether it is alone on the line."""
    stripped = line.lstrip()
    if stripped.startswith("#"):
        return len(line) - len(stripped), True
    if kind in _LINE_ONLY:
        return None
    quote: str | None = None
    escaped = False
    for i, ch in enumerate(line):
        if escaped:
            escaped = False
            continue
        if ch == "\\" and quote != "'":
            escaped = True
        elif quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#" and i > 0 and line[i - 1] in " \t":
            return i, False
    return None


def parse(text: str, kind: str, path: str) -> Directives:
    """Every ``relialint:`` directive in the file's comments."""
    out = Directives()
    if "relialint" not in text:
        return out
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if "relialint" not in line:
            continue
        start = _comment_start(line, kind)
        if start is None:
            continue
        column, alone = start
        m = _DIRECTIVE.match(line[column:])
        if not m:
            continue
        number = index + 1
        end_column = len(line.rstrip()) + 1
        body = m.group("body")

        def problem(message: str, *, _n: int = number, _c: int = column, _e: int = end_column) -> None:
            out.problems.append(Problem(INVALID_DIRECTIVE, path, _n, _c + 1, _e, message))

        ignore = _IGNORE.match(body)
        if ignore:
            word = ignore.group("word")
            raw_codes = ignore.group("codes")
            if raw_codes is None:
                problem(f"`{word}` names no records; write `# relialint: {word}[RL105] reason`")
                continue
            codes = [c for c in re.split(r"[\s,]+", raw_codes.strip()) if c]
            bad = [c for c in codes if not _CODE.match(c)]
            if not codes or bad:
                problem(f"`{word}[{raw_codes}]`: not record ids or prefixes ({', '.join(bad) or 'none given'}); "
                        "write e.g. RL105 or RL1")
                continue
            reason = ignore.group("reason").strip().lstrip(":-–— ").strip()
            if not reason:
                problem(f"`{word}[{','.join(codes)}]` has no reason, so it is not applied; say why after the "
                        f"brackets: `# relialint: {word}[{','.join(codes)}] why this is safe here`")
                continue
            if placeholder(reason):
                problem(f"`{word}[{','.join(codes)}]` has the placeholder reason {PLACEHOLDER_REASON!r}, so it is "
                        "not applied; replace the placeholder with why this is safe here")
                continue
            target: int | None = None
            if word == "ignore":
                target = number if not alone else _next_code_line(lines, index, kind)
            out.ignores.append(Ignore(codes, reason, number, column + 1, end_column, target))
            continue
        if body.startswith("fact ") or body == "fact":
            pairs = body[4:].split()
            if not pairs:
                problem("`fact` needs KEY=VALUE")
            for pair in pairs:
                key, eq, value = pair.partition("=")
                if not eq or not key or not value:
                    problem(f"`fact {pair}`: write KEY=VALUE")
                    continue
                out.facts.append(FactDirective(key, value, number, column + 1))
            continue
        if re.match(rf"^({'|'.join(_FACT_WORDS)})\s*=", body):
            for piece in re.split(rf"\s+(?=(?:{'|'.join(_FACT_WORDS)})\s*=)", body):
                key, _, value = piece.partition("=")
                if not value.strip():
                    problem(f"`{key.strip()}=` needs a value")
                    continue
                out.facts.append(FactDirective(key.strip(), value.strip(), number, column + 1))
            continue
        problem(f"unknown relialint directive {body.split()[0] if body else '(empty)'!r}; known: ignore[...], "
                "ignore-file[...], gpu=, engine-version=, os=, fact KEY=VALUE")
    return out


def placeholder(reason: str) -> bool:
    """Whether a reason is the placeholder, or its text, rather than a reason."""
    words = " ".join(reason.split()).casefold()
    template = PLACEHOLDER_REASON.casefold()
    return words in (template, template.partition(": ")[2])


def _next_code_line(lines: list[str], index: int, kind: str) -> int:
    for j in range(index + 1, len(lines)):
        stripped = lines[j].strip()
        if stripped and not stripped.startswith("#") and not (kind == "systemd" and stripped.startswith(";")):
            return j + 1
    return index + 2


def apply_inline(directives: Directives, code: str, line: int, start_line: int) -> Ignore | None:
    """The inline ignore that covers a finding (and mark it used), if any."""
    for ignore in directives.ignores:
        if ignore.covers(code, line, start_line):
            ignore.used = True
            return ignore
    return None


def unused_inline(directives: Directives, path: str, enabled: object) -> list[Problem]:
    """Ignores that suppressed nothing. ``enabled(code)`` says whether a record ran, so that ignores for records
    left out by ``--select``/``--ignore`` are not reported."""
    out: list[Problem] = []
    for ignore in directives.ignores:
        if ignore.used or not any(enabled(c) for c in ignore.codes):  # type: ignore[operator]
            continue
        what = "ignore-file" if ignore.target_line is None else "ignore"
        where = "in this file" if ignore.target_line is None else f"on line {ignore.target_line}"
        out.append(Problem(UNUSED_IGNORE, path, ignore.line, ignore.column, ignore.end_column,
                           f"`{what}[{','.join(ignore.codes)}]` suppresses nothing: no such finding {where}; "
                           "remove it"))
    return out


def expired(expires: datetime.date | None, today: datetime.date | None = None) -> bool:
    if expires is None:
        return False
    return expires < (today or _today())


def _today() -> datetime.date:
    raw = os.environ.get("RELIALINT_TODAY")
    if raw:
        try:
            return datetime.date.fromisoformat(raw)
        except ValueError:
            pass
    return datetime.date.today()


# -- baseline -------------------------------------------------------------------------------------------------------

BASELINE_VERSION = 1


class BaselineError(RelialintError, ValueError):
    pass


class Entry(Fields):
    code: str
    path: str
    about: str
    service: str | None
    target: str | None
    count: int
    line: int = 1
    matched: int = 0

    _fields = ("code", "path", "about", "service", "target", "count", "line", "matched")

    def __init__(self, code: str, path: str, about: str, service: str | None, target: str | None, count: int,
                 line: int = 1, matched: int = 0) -> None:
        self.code = code
        self.path = path
        self.about = about
        self.service = service
        self.target = target
        self.count = count
        self.line = line
        self.matched = matched

    def key(self) -> tuple[str, str, str, str, str]:
        return (self.code, self.path, self.about, self.service or "", self.target or "")


class Baseline:
    path: Path
    entries: list[Entry]

    def __init__(self, path: Path, entries: list[Entry]) -> None:
        self.path = path
        self.entries = entries

    def folder(self) -> Path:
        return self.path.resolve().parent


def relative_to(folder: Path, path: str) -> str:
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(folder).as_posix()
    except ValueError:
        return Path(os.path.relpath(absolute, folder)).as_posix()


def baseline_key(folder: Path, code: str, path: str, about: str | None, service: str | None,
                 target: str | None) -> tuple[str, str, str, str, str]:
    return (code, relative_to(folder, path), about or "", service or "", target or "")


def load_baseline(path: Path) -> Baseline:
    from relialint.base import bounds
    from relialint.disk import read_text

    text, error = read_text(path, str(path))
    if text is None:
        error = never_none(error, "read_text gives an error where it gives no text")
        raise BaselineError(f"{path}: cannot read baseline: {error.message}")
    try:
        data = bounds.json_loads(text)
    except ValueError as exc:
        raise BaselineError(f"{path}: not a relialint baseline (invalid JSON: {exc})") from exc
    if not isinstance(data, dict) or data.get("version") != BASELINE_VERSION or not isinstance(
            data.get("entries"), list):
        raise BaselineError(f"{path}: not a relialint baseline (expected {{\"version\": 1, \"entries\": [...]}})")
    code_lines = [i + 1 for i, line in enumerate(text.splitlines()) if '"code"' in line]
    entries: list[Entry] = []
    for i, raw in enumerate(data["entries"]):
        if not isinstance(raw, dict) or not isinstance(raw.get("code"), str) or not isinstance(raw.get("path"), str):
            raise BaselineError(f"{path}: entry {i + 1} needs \"code\" and \"path\"")
        count = raw.get("count", 1)
        if not isinstance(count, int) or count < 1:
            raise BaselineError(f"{path}: entry {i + 1}: \"count\" must be a positive integer")
        entries.append(Entry(raw["code"], raw["path"], str(raw.get("about") or ""), raw.get("service"),
                             raw.get("target"), count, code_lines[i] if i < len(code_lines) else 1))
    return Baseline(path, entries)


def render_baseline(keys: list[tuple[str, str, str, str, str]]) -> str:
    """The baseline file: one entry per line, sorted, so that diffs show exactly what changed."""
    counts: dict[tuple[str, str, str, str, str], int] = {}
    for key in keys:
        counts[key] = counts.get(key, 0) + 1
    rows: list[str] = []
    for (code, path, about, service, target), count in sorted(counts.items(), key=lambda kv: (
            kv[0][1], kv[0][0], kv[0][2], kv[0][3], kv[0][4])):
        entry: dict[str, object] = {"code": code, "path": path, "about": about}
        if service:
            entry["service"] = service
        if target:
            entry["target"] = target
        entry["count"] = count
        rows.append("    " + json.dumps(entry, ensure_ascii=False))
    body = ",\n".join(rows)
    return f'{{\n  "version": {BASELINE_VERSION},\n  "entries": [\n{body}\n  ]\n}}\n' if rows else \
        f'{{\n  "version": {BASELINE_VERSION},\n  "entries": []\n}}\n'


def write_baseline(path: Path, run: Any) -> int:
    """Write every current finding of ``run`` (those the baseline hid included) to ``path``; the number written."""
    meta = {str(rule["id"]) for rule in META_RULES}
    findings = [*run.findings, *(s.finding for s in run.suppressed if s.by == "baseline")]
    folder = path.resolve().parent
    keys = [baseline_key(folder, f.code, f.path, f.about, f.service, f.target) for f in findings if f.code not in meta]
    from relialint.base.safewrite import write_text

    write_text(path, render_baseline(keys))
    return len(keys)


def match_baseline(baseline: Baseline, key: tuple[str, str, str, str, str]) -> Entry | None:
    for entry in baseline.entries:
        if entry.key() == key and entry.matched < entry.count:
            entry.matched += 1
            return entry
    return None


def stale_entries(baseline: Baseline, linted: set[str]) -> list[Problem]:
    """Entries (for files linted in this run) that match fewer findings than they record."""
    out: list[Problem] = []
    display = str(baseline.path)
    for entry in baseline.entries:
        if entry.matched >= entry.count or entry.path not in linted:
            continue
        about = f" ({entry.about})" if entry.about else ""
        gone = entry.count - entry.matched
        out.append(Problem(STALE_BASELINE, display, entry.line, 1, 1,
                           f"baseline entry {entry.code} in {entry.path}{about}: {gone} of {entry.count} "
                           f"finding{'s' if entry.count != 1 else ''} no longer found; rewrite the baseline with "
                           "--write-baseline so that it only shrinks"))
    return out

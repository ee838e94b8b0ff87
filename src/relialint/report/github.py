"""``--format github``: GitHub Actions workflow commands, one annotation per finding and error.

``::error file=deploy/serve.sh,line=8,col=3,endLine=8,endColumn=10,title=RL101 [blocker]::message``. Paths are
relative to the repository root; a blocker is an ``error``, a major finding a ``warning``, a minor one a
``notice``, and a possible finding one step lower. The summary line closes the output.
"""

from __future__ import annotations

from pathlib import Path

from relialint.report import repo_relative, repository_root
from relialint.results import RunResult

COMMANDS = {"blocker": "error", "major": "warning", "minor": "notice"}
_DOWN = {"error": "warning", "warning": "notice", "notice": "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _file(path: str, root: Path) -> str:
    return repo_relative(path, root) or path


def render(run: RunResult, color: bool = False, show_ignored: bool = False) -> str:
    del color
    root = repository_root()
    lines: list[str] = []
    for e in run.errors:
        props = f"file={escape_property(_file(e.path, root))},line={e.line},col={e.column},title=relialint"
        lines.append(f"::error {props}::{escape_data(e.message)}")
    for f in run.listed():
        command = COMMANDS.get(f.severity, "warning")
        if f.certainty != "definite":
            command = _DOWN[command]
        title = f"{f.code} [{f.severity}{', possible' if f.certainty != 'definite' else ''}" \
                f"{', on ' + f.target if f.target else ''}] {f.title}"
        props = (f"file={escape_property(_file(f.path, root))},line={f.line},col={f.column},endLine={f.end_line},"
                 f"endColumn={f.end_column},title={escape_property(title)}")
        body = f"{f.message}\nfix: {' '.join(f.fix.split())}\nsee: {f.url}"
        lines.append(f"::{command} {props}::{escape_data(body)}")
    if show_ignored:
        for s in run.suppressed:
            f = s.finding
            lines.append(escape_data(f"{_file(f.path, root)}:{f.line}:{f.column}: {f.code} suppressed by {s.by} "
                                     f"({s.where}): {s.reason}"))
    definite = sum(1 for f in run.findings if f.certainty == "definite")
    counted = len(run.counted())
    lines.append(f"relialint: {run.files} file{'s' if run.files != 1 else ''}, {definite} definite, "
                 f"{len(run.findings) - definite - counted} possible"
                 f"{f' (+{counted} counted, --show-possible lists them)' if counted else ''}, {len(run.errors)} error"
                 f"{'s' if len(run.errors) != 1 else ''}" + (f", {len(run.suppressed)} suppressed"
                                                            if run.suppressed else ""))
    return "\n".join(lines) + "\n"

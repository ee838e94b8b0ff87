"""``--format github``: GitHub Actions workflow commands, one annotation per finding and error.

``::error file=deploy/serve.sh,line=8,col=3,endLine=8,endColumn=10,title=RL101 [blocker]::message``. Paths are
relative to the repository root; a blocker is an ``error``, a major finding a ``warning``, a minor one a
``notice``, and a possible finding one step lower. The summary line closes the output.

Escaping follows the runner (``ActionCommand`` in actions/runner): a property's ``%``, CR, LF, ``:`` and ``,`` and the
data's ``%``, CR and LF are percent-escaped, which the runner decodes back, so the file name is exact. Everything
else echoed goes through ``printable``: control and bidirectional characters are visible escapes, and no line but
relialint's own annotations starts with ``::`` or holds ``##[`` (the runner reads ``##[command]`` anywhere in a line).
"""

from __future__ import annotations

from pathlib import Path

from relialint.base.printable import field, lines, no_legacy_commands
from relialint.core.results import RunResult
from relialint.report import repo_relative, repository_root
from relialint.report.text import moves_text

COMMANDS = {"blocker": "error", "major": "warning", "minor": "notice"}
_DOWN = {"error": "warning", "warning": "notice", "notice": "notice"}


def escape_data(text: str) -> str:
    """A workflow command's data as the runner decodes it (``%25``, ``%0D``, ``%0A``)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value as the runner decodes it (data escapes and ``%3A``, ``%2C``)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _file(path: str, root: Path) -> str:
    return repo_relative(path, root) or path


def _file_property(path: str, root: Path) -> str:
    """The ``file=`` property: exact for CR and LF (the runner decodes ``%0D``/``%0A``), other controls visible."""
    return escape_property(field(_file(path, root), keep="\r\n"))


def annotation(command: str, properties: str, data: str) -> str:
    """One workflow command; ``data`` is relialint's text with echoed strings already passed through ``field``."""
    return f"::{command} {properties}::{no_legacy_commands(escape_data(data))}"


def render(run: RunResult, color: bool = False, show_ignored: bool = False) -> str:
    del color
    root = repository_root()
    out: list[str] = []
    for e in run.errors:
        props = f"file={_file_property(e.path, root)},line={e.line},col={e.column},title=relialint"
        out.append(annotation("error", props, field(e.message)))
    for f in run.listed():
        command = COMMANDS.get(f.severity, "warning")
        if f.certainty != "definite":
            command = _DOWN[command]
        title = f"{f.code} [{f.severity}{', possible' if f.certainty != 'definite' else ''}" \
                f"{', on ' + f.target if f.target else ''}] {f.title}"
        props = (f"file={_file_property(f.path, root)},line={f.line},col={f.column},endLine={f.end_line},"
                 f"endColumn={f.end_column},title={escape_property(no_legacy_commands(field(title)))}")
        body = f"{field(f.message)}\nfix: {field(' '.join(f.fix.split()))}\nsee: {field(f.url)}"
        out.append(annotation(command, props, body))
    for c in run.changes:
        command = "notice"
        if c.severity is not None and c.change in ("entered", "refused", "unread"):
            command = COMMANDS.get(c.severity, "warning") if c.certainty == "definite" else \
                _DOWN[COMMANDS.get(c.severity, "warning")]
        title = f"upgrade {c.title()} [{c.tag()}]"
        at = f" (at {field(_file(c.at[0], root))}:{c.at[1]}:{c.at[2]})" if c.at is not None else ""
        props = (f"file={_file_property(c.path, root)},line={c.line},col={c.column},endLine={c.end_line},"
                 f"endColumn={c.end_column},title={escape_property(no_legacy_commands(field(title)))}")
        out.append(annotation(command, props, f"{field(c.message)}{at}"))
    plain: list[str] = []
    if show_ignored:
        for s in run.suppressed:
            f = s.finding
            plain.append(f"{field(_file(f.path, root))}:{f.line}:{f.column}: {field(f.code)} suppressed by {s.by} "
                         f"({field(s.where)}): {field(s.reason)}")
    definite = sum(1 for f in run.findings if f.certainty == "definite")
    counted = len(run.counted())
    plain.append(f"relialint: {run.files} file{'s' if run.files != 1 else ''}, {definite} definite, "
                 f"{len(run.findings) - definite - counted} possible"
                 f"{f' (+{counted} counted, --show-possible lists them)' if counted else ''}, {len(run.errors)} error"
                 f"{'s' if len(run.errors) != 1 else ''}" + (f", {len(run.suppressed)} suppressed"
                                                            if run.suppressed else "") + moves_text(run.changes))
    # the lines that are not annotations: none may read as a workflow command
    return "\n".join([*out, lines("\n".join(plain))]) + "\n"

"""Text output in the style of ruff and ShellCheck: ``path:line:col: RL101 [blocker] message``.

Every string that comes from the input (paths, messages, reasons, targets) goes through ``printable.field``, and the
whole output through ``printable.lines``: no raw control character reaches the terminal and no line reads as a GitHub
workflow command in a CI log.
"""

from __future__ import annotations

from relialint.base.printable import field, lines
from relialint.core.results import VERSION_DEFAULTED, Change, Finding, RunResult

_COLORS = {"blocker": "\033[1;31m", "major": "\033[33m", "minor": "\033[36m", "dim": "\033[2m", "bold": "\033[1m"}
_RESET = "\033[0m"


def _c(text: str, style: str, color: bool) -> str:
    return f"{_COLORS[style]}{text}{_RESET}" if color else text


def counted_line(counted: list[Finding]) -> str:
    """``4 more possible findings ... depend on the GPU (--gpu), the engine version (--engine-version) and ...``:
    what the findings that are counted, not listed, need to be decided."""
    needs: list[str] = []
    missing = {m for f in counted for m in f.missing_facts}
    if any(m.startswith("gpu.") and m not in ("gpu.cc_mode", "gpu.count") for m in missing):
        needs.append("the GPU (--gpu)")
    if "engine.version" in missing or any(m in VERSION_DEFAULTED for m in missing):
        needs.append("the engine version (--engine-version)")
    if "host.os" in missing:
        needs.append("the host OS (--os)")
    rest = sorted(m for m in missing if not (m.startswith("gpu.") and m not in ("gpu.cc_mode", "gpu.count"))
                  and m not in ("engine.version", "host.os") and m not in VERSION_DEFAULTED)
    if rest:
        needs.append(f"{', '.join(rest)} (--fact KEY=VALUE)")
    what = (", ".join(needs[:-1]) + " and " + needs[-1] if len(needs) > 1 else needs[0]) if needs \
        else "facts the files do not give"
    return (f"{len(counted)} more possible finding{'s' if len(counted) != 1 else ''} that nothing in the files "
            f"points at depend on {field(what)}; declare them (or set them in [tool.relialint]) or list them with "
            "--show-possible")


def change_line(c: Change) -> str:
    """``path:line:col: upgrade vLLM 0.30.0 -> 0.23.0 since REF [record entered, possible] message (at ...)``."""
    at = f" (at {field(c.at[0])}:{c.at[1]}:{c.at[2]})" if c.at is not None else ""
    return f"{field(c.path)}:{c.line}:{c.column}: upgrade {field(c.title())} [{field(c.tag())}] {field(c.message)}{at}"


def moves_text(changes: list[Change]) -> str:
    """``, 1 engine version move`` for the summary line (nothing without one: the output is ``check``'s)."""
    moves = sum(1 for c in changes if c.kind == "version")
    return f", {moves} engine version move{'s' if moves != 1 else ''}" if moves else ""


def render(run: RunResult, color: bool = False, show_ignored: bool = False) -> str:
    out: list[str] = []
    for error in run.errors:
        out.append(f"{field(error.path)}:{error.line}:{error.column}: error: {field(error.message)}")
    for warning in run.warnings:
        out.append(f"{field(warning.path)}:{warning.line}:{warning.column}: warning: {field(warning.message)}")
    for f in run.listed():
        where = f"{field(f.path)}:{f.line}:{f.column}:"
        tag = f"[{f.severity}]" if f.certainty == "definite" else f"[{f.severity}, possible]"
        if f.target:
            tag = f"{tag[:-1]}, on {field(f.target)}]"
        code = _c(field(f.code), f.severity, color) if f.certainty == "definite" else _c(field(f.code), "dim", color)
        out.append(f"{_c(where, 'bold', color)} {code} {tag} {field(f.message)}")
        fix = " ".join(f.fix.split())
        out.append(f"  fix: {field(fix)}")
        out.append(f"  see: {field(f.url)}")
    out.extend(change_line(c) for c in run.changes)
    if show_ignored:
        for s in run.suppressed:
            f = s.finding
            on = f" on {field(f.target)}" if f.target else ""
            out.append(_c(f"{field(f.path)}:{f.line}:{f.column}: {field(f.code)} [{f.severity}{on}] suppressed by "
                          f"{s.by} ({field(s.where)}): {field(s.reason)}", "dim", color))
    for note in run.notes:
        out.append(_c(f"note: {field(note)}", "dim", color))
    definite = sum(1 for f in run.findings if f.certainty == "definite")
    counted = run.counted()
    possible = len(run.findings) - definite - len(counted)
    out.append(
        f"{run.files} file{'s' if run.files != 1 else ''}, {len(run.deployments)} deployment"
        f"{'s' if len(run.deployments) != 1 else ''}: {definite} definite, {possible} possible, "
        f"{len(run.errors)} error{'s' if len(run.errors) != 1 else ''}"
        + (f", {len(run.suppressed)} suppressed" if run.suppressed else "")
        + (f", {run.skipped} file{'s' if run.skipped != 1 else ''} skipped: not a deployment" if run.skipped else "")
        + moves_text(run.changes)
    )
    if counted:
        out.append(_c(counted_line(counted), "dim", color))
    return lines("\n".join(out), color) + "\n"

"""``relialint upgrade`` as text: per deployment, a header with the versions, then one located line per item in the
style of ``check`` (``path:line:col: entered RL101 [blocker] message``), then the summary.

Like ``check``, a possible item is listed when something the deployment states points at it (``shown``); the
others are counted (``--show-possible`` lists them). Every string from the input goes through ``printable.field``.
"""

from __future__ import annotations

from relialint.base.printable import field, lines
from relialint.engines.releases import (
    DEFAULT,
    ENTERED,
    ENV,
    KEPT,
    LEFT,
    OPTION,
    RECORD,
    DeploymentUpgrade,
    UpgradeItem,
    UpgradeRun,
)

_COLORS = {"blocker": "\033[1;31m", "major": "\033[33m", "minor": "\033[36m", "dim": "\033[2m", "bold": "\033[1m"}
_RESET = "\033[0m"


def _c(text: str, style: str, color: bool) -> str:
    return f"{_COLORS[style]}{text}{_RESET}" if color else text


def listed(run: UpgradeRun, deployment: DeploymentUpgrade) -> list[UpgradeItem]:
    """The items the view lists: every one with ``--show-possible``, else the shown ones."""
    return [i for i in deployment.items if run.show_possible or i.shown]


def _what(item: UpgradeItem) -> str:
    """``entered RL101``, ``option refused --foo``, ``env unread VLLM_X``, ``default changed serve.dtype``."""
    if item.kind == RECORD:
        return f"{item.change} {field(item.subject)}"
    return f"{item.kind} {item.change} {field(item.subject)}"


def _tag(item: UpgradeItem) -> str:
    parts = [item.severity] if item.severity else []
    if item.certainty != "definite":
        parts.append("possible")
    if item.finding is not None and item.finding.target:
        parts.append(f"on {field(item.finding.target)}")
    return f" [{', '.join(parts)}]" if parts else ""


def _side(version: str, origin: str | None) -> str:
    return f"{version} ({origin})" if origin else version


def header(d: DeploymentUpgrade) -> str:
    service = f" {field(d.service)}" if d.service else ""
    old = _side(d.old.text(), "the file" if d.old.origin == "file" else d.old.origin)
    new = _side(d.new.text(), d.new.origin) if d.new.version is not None else "not upgraded"
    return f"{field(d.path)}:{d.line}:{d.column}: {field(d.label)} deployment{service}: {field(old)} -> {field(new)}"


def render(run: UpgradeRun, color: bool = False) -> str:
    out: list[str] = []
    for error in run.errors:
        out.append(f"{field(error.path)}:{error.line}:{error.column}: error: {field(error.message)}")
    for warning in run.warnings:
        out.append(f"{field(warning.path)}:{warning.line}:{warning.column}: warning: {field(warning.message)}")
    counts = {ENTERED: 0, LEFT: 0, KEPT: 0, OPTION: 0, ENV: 0, DEFAULT: 0}
    hidden = 0
    for d in run.deployments:
        out.append(_c(header(d), "bold", color))
        for note in d.notes:
            out.append(_c(f"  note: {field(note)}", "dim", color))
        shown = listed(run, d)
        hidden += len(d.items) - len(shown)
        for item in shown:
            counts[item.change if item.kind == RECORD else item.kind] += 1
            where = f"{field(item.path)}:{item.line}:{item.column}:"
            style = item.severity if item.severity and item.certainty == "definite" and item.change not in (
                LEFT, KEPT) else "dim"
            out.append(f"  {where} {_c(_what(item), style, color)}{_tag(item)} {field(item.message)}")
            if item.finding is not None and item.change == ENTERED:
                out.append(f"    fix: {field(' '.join(item.finding.fix.split()))}")
                out.append(f"    see: {field(item.finding.url)}")
    for note in run.notes:
        out.append(_c(f"note: {field(note)}", "dim", color))
    plural = "s" if len(run.deployments) != 1 else ""
    out.append(
        f"{run.files} file{'s' if run.files != 1 else ''}, {len(run.deployments)} deployment{plural}: "
        f"{counts[ENTERED]} entered, {counts[LEFT]} left, {counts[KEPT]} kept, {counts[OPTION]} option"
        f"{'s' if counts[OPTION] != 1 else ''}, {counts[ENV]} variable{'s' if counts[ENV] != 1 else ''}, "
        f"{counts[DEFAULT]} default{'s' if counts[DEFAULT] != 1 else ''} changed; {run.failing} failing, "
        f"{len(run.errors)} error{'s' if len(run.errors) != 1 else ''}")
    if hidden:
        out.append(_c(f"{hidden} more possible item{'s' if hidden != 1 else ''} that nothing in the files points "
                      "at; --show-possible lists them", "dim", color))
    return lines("\n".join(out), color) + "\n"

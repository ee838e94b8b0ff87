"""``relialint upgrade --format github``: one GitHub Actions annotation per alert of the upgrade (the items
``upgrade_sarif.alerts`` lists), escaped like ``check``'s (``report.github``), then the summary line."""

from __future__ import annotations

from pathlib import Path

from relialint.base.printable import field, lines, no_legacy_commands
from relialint.engines.releases import UpgradeRun
from relialint.report import repository_root
from relialint.report.github import _DOWN, COMMANDS, _file_property, annotation, escape_property
from relialint.report.upgrade_sarif import _severity, alerts, rule_id


def render(run: UpgradeRun, color: bool = False, root: Path | None = None) -> str:
    del color
    root = root or repository_root()
    out: list[str] = []
    for e in run.errors:
        props = f"file={_file_property(e.path, root)},line={e.line},col={e.column},title=relialint"
        out.append(annotation("error", props, field(e.message)))
    items = alerts(run)
    for i in items:
        severity = _severity(i)
        command = COMMANDS.get(severity, "warning")
        if i.certainty != "definite":
            command = _DOWN[command]
        what = f"{i.change} with the upgrade: {i.finding.title}" if i.finding is not None else i.subject
        title = f"{rule_id(i)} [{severity}{', possible' if i.certainty != 'definite' else ''}] {what}"
        props = (f"file={_file_property(i.path, root)},line={i.line},col={i.column},endLine={i.end_line},"
                 f"endColumn={i.end_column},title={escape_property(no_legacy_commands(field(title)))}")
        body = field(i.message)
        if i.finding is not None:
            body += f"\nfix: {field(' '.join(i.finding.fix.split()))}\nsee: {field(i.finding.url)}"
        out.append(annotation(command, props, body))
    summary = (f"relialint upgrade: {run.files} file{'s' if run.files != 1 else ''}, {len(run.deployments)} "
               f"deployment{'s' if len(run.deployments) != 1 else ''}, {len(items)} change"
               f"{'s' if len(items) != 1 else ''} to review, {run.failing} failing, {len(run.errors)} error"
               f"{'s' if len(run.errors) != 1 else ''}")
    return "\n".join([*out, lines(summary)]) + "\n"

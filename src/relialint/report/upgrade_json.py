"""``relialint upgrade --format json``: the upgrade document (an extension of the JSON contract, documented in
``docs/usage.md``), byte-identical across runs: ``check``'s document for the findings of the records involved,
each with its change, extended with the deployments and their items."""

from __future__ import annotations

import json
from typing import Any

from relialint import __version__
from relialint.base.printable import json_text
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
    VersionSide,
)
from relialint.report.jsonout import finding


def _side(side: VersionSide) -> dict[str, Any]:
    out: dict[str, Any] = {"version": str(side.version) if side.version is not None else None,
                           "origin": side.origin}
    if side.path is not None:
        out.update({"path": side.path, "line": side.line, "column": side.column})
    return out


def item(i: UpgradeItem) -> dict[str, Any]:
    return {
        "kind": i.kind, "change": i.change, "subject": i.subject, "certainty": i.certainty,
        "severity": i.severity, "path": i.path, "line": i.line, "column": i.column, "end_line": i.end_line,
        "end_column": i.end_column, "message": i.message, "missing_facts": list(i.missing_facts),
        "introduces": i.introduces, "failing": i.failing, "shown": i.shown,
    }


def deployment(d: DeploymentUpgrade) -> dict[str, Any]:
    release: dict[str, Any] | None = None
    if d.release is not None:
        release = {"checked": d.release.checked, "unchecked": d.release.unchecked, "worlds": d.release.worlds}
    return {"path": d.path, "line": d.line, "column": d.column, "engine": d.engine, "service": d.service,
            "from": _side(d.old), "to": _side(d.new), "release": release, "notes": list(d.notes),
            "items": [item(i) for i in d.items]}


def document(run: UpgradeRun) -> dict[str, Any]:
    """``check``'s document (``findings``, ``errors``, ``warnings``, ``notes``, ``summary`` with the same keys and
    meaning) for the findings of the records that enter, leave or stay, each with ``change`` and
    ``change_certainty``; then the upgrade's own: summary counts and ``deployments`` with their items."""
    counts = {ENTERED: 0, LEFT: 0, KEPT: 0, OPTION: 0, ENV: 0, DEFAULT: 0}
    findings: list[tuple[Any, dict[str, Any]]] = []
    for d in run.deployments:
        for i in d.items:
            counts[i.change if i.kind == RECORD else i.kind] += 1
            if i.finding is not None:
                findings.append((i.finding.sort_key(), {**finding(i.finding), "change": i.change,
                                                        "change_certainty": i.certainty}))
    rows = [row for _, row in sorted(findings, key=lambda pair: pair[0])]
    definite = sum(1 for row in rows if row["certainty"] == "definite")
    counted = sum(1 for row in rows if row["certainty"] != "definite" and not row["shown"])
    return {
        "relialint": __version__,
        "findings": rows,
        "errors": [{"path": e.path, "line": e.line, "column": e.column, "message": e.message} for e in run.errors],
        "warnings": [{"path": w.path, "line": w.line, "column": w.column, "message": w.message}
                     for w in run.warnings],
        "notes": list(run.notes),
        "summary": {"files": run.files, "deployments": len(run.deployments), "definite": definite,
                    "possible": len(rows) - definite, "possible_counted": counted, "errors": len(run.errors),
                    "entered": counts[ENTERED], "left": counts[LEFT], "kept": counts[KEPT],
                    "options": counts[OPTION], "variables": counts[ENV], "defaults": counts[DEFAULT],
                    "failing": run.failing},
        "deployments": [deployment(d) for d in run.deployments],
    }


def render(run: UpgradeRun, color: bool = False) -> str:
    del color
    return json_text(json.dumps(document(run), indent=2, ensure_ascii=False)) + "\n"

"""``--format json``: the JSON contract, byte-identical across runs."""

from __future__ import annotations

import json

from relialint import __version__
from relialint.base.plain import as_dict
from relialint.base.printable import json_text
from relialint.core.results import Change, Finding, RunResult

_EXTENSIONS = ("target", "service")
_INTERNAL = ("about",)


def finding(f: Finding) -> dict[str, object]:
    """A finding as the contract writes it; extensions (``target``, ``service``) only when they are set."""
    out = as_dict(f)
    for key in _INTERNAL:
        out.pop(key, None)
    for key in _EXTENSIONS:
        if out.get(key) is None:
            out.pop(key, None)
    return out


def change(c: Change) -> dict[str, object]:
    """One item of an engine version move (``check --since``), an extension: ``at`` only where it is set."""
    out = as_dict(c)
    out["from"], out["to"], out["since"] = out.pop("old"), out.pop("new"), out.pop("ref")
    out.pop("at")
    if c.at is not None:
        out["at"] = {"path": c.at[0], "line": c.at[1], "column": c.at[2]}
    return out


def document(run: RunResult, show_ignored: bool = False) -> dict[str, object]:
    definite = sum(1 for f in run.findings if f.certainty == "definite")
    extra: dict[str, object] = {}
    if run.changes:
        extra["upgrades"] = [change(c) for c in run.changes]
    if show_ignored:
        extra["suppressed"] = [{**finding(s.finding), "suppressed_by": s.by, "reason": s.reason, "where": s.where}
                               for s in run.suppressed]
    return {
        "relialint": __version__,
        "findings": [finding(f) for f in run.findings],
        "errors": [{"path": e.path, "line": e.line, "column": e.column, "message": e.message} for e in run.errors],
        "warnings": [{"path": w.path, "line": w.line, "column": w.column, "message": w.message}
                     for w in run.warnings],
        "notes": list(run.notes),
        "summary": {
            "files": run.files,
            "deployments": len(run.deployments),
            "definite": definite,
            "possible": len(run.findings) - definite,
            "possible_counted": len(run.counted()),
            "errors": len(run.errors),
            **({"skipped": run.skipped} if run.skipped else {}),
        },
        **extra,
    }


def render(run: RunResult, color: bool = False, show_ignored: bool = False) -> str:
    del color
    return json_text(json.dumps(document(run, show_ignored), indent=2, ensure_ascii=False)) + "\n"

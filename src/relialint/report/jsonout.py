"""``--format json``: the JSON contract, byte-identical across runs."""

from __future__ import annotations

import json
from dataclasses import asdict

from relialint import __version__
from relialint.lint import RunResult


def document(run: RunResult) -> dict[str, object]:
    definite = sum(1 for f in run.findings if f.certainty == "definite")
    return {
        "relialint": __version__,
        "findings": [asdict(f) for f in run.findings],
        "errors": [{"path": e.path, "line": e.line, "column": e.column, "message": e.message} for e in run.errors],
        "warnings": [{"path": w.path, "line": w.line, "column": w.column, "message": w.message}
                     for w in run.warnings],
        "notes": list(run.notes),
        "summary": {
            "files": run.files,
            "deployments": len(run.deployments),
            "definite": definite,
            "possible": len(run.findings) - definite,
            "errors": len(run.errors),
        },
    }


def render(run: RunResult, color: bool = False) -> str:
    del color
    return json.dumps(document(run), indent=2, ensure_ascii=False) + "\n"

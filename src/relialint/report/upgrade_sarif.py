"""``relialint upgrade --format sarif``: SARIF 2.1.0, one result per item the upgrade brings (a record that starts
to apply, an option the target refuses or reads differently, a variable it stops or starts reading, a default that
changes); records that stop or keep applying are not alerts. A record's rule is the record (from its finding); the
other items have one rule per kind and change (``upgrade/option-refused``). Levels follow ``check``'s."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from relialint import SITE_URL, __version__
from relialint.base.printable import json_text
from relialint.engines.releases import ENV_UNREAD, OPTION_REFUSED, RECORD, UpgradeItem, UpgradeRun
from relialint.report import repository_root
from relialint.report.sarif import SCHEMA, fingerprint, level, uri
from relialint.report.upgrade_text import listed

_KIND_TEXT = {
    "option-refused": "an option the target release refuses (the engine will not start)",
    "option-accepted": "an option the target release accepts and the current one refuses",
    "option-changed": "an option the target release reads differently (kind or values)",
    "env-unread": "an environment variable the target release no longer reads",
    "env-read": "an environment variable the target release newly reads",
    "default-changed": "a default the deployment leaves to the engine that changes",
}


def alerts(run: UpgradeRun) -> list[UpgradeItem]:
    """The listed items that are alerts: everything but records that leave or stay."""
    return [i for d in run.deployments for i in listed(run, d)
            if i.kind != RECORD or i.change == "entered"]


def rule_id(i: UpgradeItem) -> str:
    return i.subject if i.kind == RECORD else f"upgrade/{i.kind}-{i.change}"


def _severity(i: UpgradeItem) -> str:
    if i.severity:
        return i.severity
    return "major" if i.change in (OPTION_REFUSED, ENV_UNREAD) else "minor"


def _rule(i: UpgradeItem) -> dict[str, Any]:
    if i.finding is not None:
        f = i.finding
        return {"id": f.code, "shortDescription": {"text": f.title}, "helpUri": f.url,
                "help": {"text": f"Fix: {' '.join(f.fix.split())}\n\nSee {f.url}"},
                "properties": {"severity": f.severity}}
    key = f"{i.kind}-{i.change}"
    return {"id": rule_id(i), "shortDescription": {"text": _KIND_TEXT.get(key, key)}, "helpUri": SITE_URL,
            "properties": {"severity": _severity(i)}}


def document(run: UpgradeRun, root: Path | None = None) -> dict[str, Any]:
    root = root or repository_root()
    items = alerts(run)
    rules: dict[str, dict[str, Any]] = {}
    for i in items:
        rules.setdefault(rule_id(i), _rule(i))
    index = {name: n for n, name in enumerate(rules)}
    results = []
    for i in items:
        region: dict[str, int] = {"startLine": i.line, "startColumn": i.column}
        if i.end_line > i.line or (i.end_line == i.line and i.end_column > i.column):
            region.update({"endLine": i.end_line, "endColumn": i.end_column})
        properties: dict[str, Any] = {"kind": i.kind, "change": i.change, "subject": i.subject,
                                      "certainty": i.certainty, "introduces": i.introduces}
        if i.missing_facts:
            properties["missing_facts"] = list(i.missing_facts)
        result: dict[str, Any] = {
            "ruleId": rule_id(i), "ruleIndex": index[rule_id(i)], "level": level(_severity(i), i.certainty),
            "message": {"text": i.message},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri(i.path, root),
                                                                     "uriBaseId": "%SRCROOT%"},
                                                "region": region}}],
            "properties": properties,
        }
        if i.finding is not None:
            result["partialFingerprints"] = {"relialint/v1": fingerprint(i.finding, root)}
        results.append(result)
    notifications = [{
        "level": "error", "message": {"text": e.message},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": uri(e.path, root), "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": max(e.line, 1), "startColumn": max(e.column, 1)}}}],
    } for e in run.errors]
    return {
        "$schema": SCHEMA, "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "relialint", "version": __version__, "semanticVersion": __version__,
                                "informationUri": SITE_URL, "rules": list(rules.values())}},
            "invocations": [{"executionSuccessful": not run.errors, "toolExecutionNotifications": notifications}],
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }


def render(run: UpgradeRun, color: bool = False) -> str:
    del color
    return json_text(json.dumps(document(run), indent=2, ensure_ascii=False)) + "\n"

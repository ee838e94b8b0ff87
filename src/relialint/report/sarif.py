"""``--format sarif``: SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.

One rule per record (from ``RunResult.rules``: the records' public fields, never the knowledge base itself), one
result per finding with its region and a stable ``partialFingerprints`` entry built from the same key as the
baseline (record, path, fact, service, target; never the line), and read errors as tool execution notifications.
Artifact URIs are relative to the repository root (``%SRCROOT%``), as GitHub code scanning requires.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

from relialint import SITE_URL, __version__
from relialint.base.printable import json_text
from relialint.core.results import Change, Finding, RunResult
from relialint.report import repo_relative, repository_root

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
LEVELS = {"blocker": "error", "major": "warning", "minor": "note"}
_DOWN = {"error": "warning", "warning": "note", "note": "note"}
PROBLEM_SEVERITY = {"blocker": "error", "major": "warning", "minor": "recommendation"}


def level(severity: str, certainty: str) -> str:
    """A definite finding's level follows the record's severity; a possible one is one step lower."""
    value = LEVELS.get(severity, "warning")
    return value if certainty == "definite" else _DOWN[value]


def uri(path: str, root: Path) -> str:
    rel = repo_relative(path, root)
    if rel is None:
        return Path(path).resolve().as_uri()
    return quote(rel, safe="/", errors="surrogateescape")


def fingerprint(f: Finding, root: Path) -> str:
    key = "\x1f".join([f.code, repo_relative(f.path, root) or f.path, f.about or "", f.service or "",
                       f.target or ""])
    return hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()


def _rule(rule: dict[str, Any]) -> dict[str, Any]:
    fix = " ".join(str(rule.get("fix") or "").split())
    summary = str(rule.get("summary") or rule["title"]).strip()
    markdown = f"**{rule['title']}**\n\n{summary}\n\n**Fix:** {fix}\n\nSee [{rule['id']}]({rule['url']})."
    tags = ["reliability", str(rule.get("impact") or ""), *[str(e) for e in rule.get("engines") or []]]
    return {
        "id": rule["id"],
        "name": "".join(part.capitalize() for part in str(rule["slug"]).split("-")),
        "shortDescription": {"text": str(rule["title"])},
        "fullDescription": {"text": summary},
        "help": {"text": f"{summary}\n\nFix: {fix}\n\nSee {rule['url']}", "markdown": markdown},
        "helpUri": rule["url"],
        "defaultConfiguration": {"level": LEVELS.get(str(rule["severity"]), "warning")},
        "properties": {
            "severity": rule["severity"],
            "impact": rule.get("impact") or "",
            "problem.severity": PROBLEM_SEVERITY.get(str(rule["severity"]), "warning"),
            "tags": [t for t in tags if t],
        },
    }


def _result(f: Finding, index: dict[str, int], root: Path, suppression: dict[str, str] | None) -> dict[str, Any]:
    region = {"startLine": f.line, "startColumn": f.column}
    if f.end_line >= f.line:
        region["endLine"] = f.end_line
        if f.end_line > f.line or f.end_column > f.column:
            region["endColumn"] = f.end_column
    properties: dict[str, Any] = {"severity": f.severity, "certainty": f.certainty, "shown": f.shown}
    if f.missing_facts:
        properties["missing_facts"] = list(f.missing_facts)
    if f.target:
        properties["target"] = f.target
    result: dict[str, Any] = {
        "ruleId": f.code,
        "level": level(f.severity, f.certainty),
        "message": {"text": f.message if not f.target else f"{f.message} (target {f.target})"},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": uri(f.path, root), "uriBaseId": "%SRCROOT%"},
            "region": region}}],
        "partialFingerprints": {"relialint/v1": fingerprint(f, root)},
        "properties": properties,
    }
    if f.code in index:
        result["ruleIndex"] = index[f.code]
    if suppression is not None:
        result["suppressions"] = [suppression]
    return result


UPGRADE_RULE = "upgrade"
"""The rule of every ``check --since`` version-move result (an extension; present only when a version moved)."""
INTRODUCES = frozenset({"entered", "refused", "unread"})
"""Changes that bring a problem: at the level of their severity where definite; any other change is a note."""


def _upgrade_rule() -> dict[str, Any]:
    text = ("An engine version changed since the revision given to --since: what changes for this deployment "
            "(records entered or left, options refused, variables no longer read, defaults flipped), from "
            "relialint's tables and records.")
    return {"id": UPGRADE_RULE, "name": "EngineVersionMove", "shortDescription": {"text": "engine version move"},
            "fullDescription": {"text": text}, "help": {"text": text, "markdown": text},
            "helpUri": SITE_URL, "defaultConfiguration": {"level": "note"},
            "properties": {"tags": ["reliability", "upgrade"]}}


def change_level(c: Change) -> str:
    """A change that brings a problem has its severity's level (one lower where possible); the rest are notes."""
    if c.severity is None or c.change not in INTRODUCES:
        return "note"
    return level(c.severity, c.certainty)


def _change_result(c: Change, index: int, root: Path) -> dict[str, Any]:
    region: dict[str, int] = {"startLine": c.line, "startColumn": c.column}
    if c.end_line > c.line or c.end_column > c.column:
        region.update({"endLine": c.end_line, "endColumn": c.end_column})
    key = "\x1f".join([UPGRADE_RULE, repo_relative(c.path, root) or c.path, c.kind, c.change, c.subject, c.old,
                       c.new])
    properties: dict[str, Any] = {"kind": "upgrade", "item": c.kind, "change": c.change, "subject": c.subject,
                                  "from": c.old, "to": c.new, "since": c.ref, "engine": c.engine,
                                  "certainty": c.certainty}
    if c.severity is not None:
        properties["severity"] = c.severity
    if c.missing_facts:
        properties["missing_facts"] = list(c.missing_facts)
    if c.at is not None:
        properties["at"] = {"path": c.at[0], "line": c.at[1], "column": c.at[2]}
    return {"ruleId": UPGRADE_RULE, "ruleIndex": index, "level": change_level(c),
            "message": {"text": f"{c.title()} [{c.tag()}] {c.message}"},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": uri(c.path, root), "uriBaseId": "%SRCROOT%"}, "region": region}}],
            "partialFingerprints": {"relialint/v1": hashlib.sha256(key.encode("utf-8", "surrogateescape"))
                                    .hexdigest()},
            "properties": properties}


def document(run: RunResult, show_ignored: bool = False, root: Path | None = None) -> dict[str, Any]:
    root = root or repository_root()
    rules = [_rule(r) for r in run.rules]
    if run.changes:
        rules.append(_upgrade_rule())
    index = {r["id"]: i for i, r in enumerate(rules)}
    results = [_result(f, index, root, None) for f in run.findings]
    results.extend(_change_result(c, len(rules) - 1, root) for c in run.changes)
    if show_ignored:
        for s in run.suppressed:
            kind = "inSource" if s.by == "inline" else "external"
            results.append(_result(s.finding, index, root, {
                "kind": kind, "status": "accepted", "justification": f"{s.reason} ({s.by}: {s.where})"}))
    notifications = [{
        "level": "error",
        "message": {"text": e.message},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": uri(e.path, root), "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": max(e.line, 1), "startColumn": max(e.column, 1)}}}],
    } for e in run.errors]
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "relialint",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": SITE_URL,
                "rules": rules,
            }},
            "invocations": [{"executionSuccessful": not run.errors,
                             "toolExecutionNotifications": notifications}],
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }


def render(run: RunResult, color: bool = False, show_ignored: bool = False) -> str:
    del color
    return json_text(json.dumps(document(run, show_ignored), indent=2, ensure_ascii=False)) + "\n"

"""One record's page, ``docs/records/<ID>.md``, leading with what a reader came for: the summary and the fix.

Order: title; a line with severity, impact, engines, affected-versions status and dates; the summary; the fix
(prose, then a before/after of a config to copy, from :mod:`relialint.site.fix`); symptom, cause, evidence, cost,
monitoring; affected versions (:mod:`relialint.site.versions`); the trigger; the examples; the references
(:mod:`relialint.site.cite`); related records; and last the record's fields and keywords.
"""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING, Any

from relialint import record_url
from relialint.site.cite import CitationError, reference_markdown
from relialint.site.common import (
    BANNER,
    FENCE_LANG,
    IMPACT_TITLES,
    OUTCOME_TITLES,
    OUTCOME_WORDS,
    SiteError,
    keywords,
)
from relialint.site.fix import BeforeAfter, before_after
from relialint.site.markup import cell, code, fenced, fold, md, yaml_html
from relialint.site.versions import engine_label, versions

if TYPE_CHECKING:
    from relialint.site.common import SiteRecord

IMPACT_WORDS = {
    "wrong-output": "wrong output",
    "performance": "performance",
    "capacity": "capacity",
    "measurement": "measurement",
    "ignored-config": "ignored configuration",
    "exposure": "exposure",
}


def _scalar(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def engines_text(data: dict[str, Any]) -> str:
    return ", ".join(engine_label(e) for e in data.get("engines") or []) or "any engine"


def meta_line(data: dict[str, Any]) -> list[str]:
    """Severity badge, impact, engines, the versions status and the dates, as one short paragraph."""
    sev = str(data["severity"])
    status = versions(data)
    dates = f"published {data['published']}"
    if str(data["modified"]) != str(data["published"]):
        dates += f", updated {data['modified']}"
    parts = [
        f'<span class="rl-sev rl-sev-{sev}">{sev}</span>',
        html.escape(IMPACT_WORDS.get(str(data["impact"]), str(data["impact"]))),
        html.escape(engines_text(data)),
        f'<a href="#affected-versions">versions: {html.escape(status.label)}</a>',
        dates,
    ]
    return [" · ".join(parts), "{ .rl-meta }", ""]


def _given_parts(context: dict[str, Any]) -> list[str]:
    """What an example or a before/after is evaluated with: its GPU, engine version, OS and facts."""
    given: list[str] = []
    if context.get("gpu"):
        given.append(f"GPU {code(context['gpu'])}")
    if context.get("engine_version"):
        given.append(f"engine version {code(context['engine_version'])}")
    if context.get("os"):
        given.append(f"OS {code(context['os'])}")
    for key, value in (context.get("facts") or {}).items():
        given.append(f"fact {code(f'{key}={_scalar(value)}')}")
    return given


def fix_pair(pair: BeforeAfter, data: dict[str, Any]) -> list[str]:
    """The before/after blocks: copyable code, each labelled with what relialint says about it."""
    lang = FENCE_LANG.get(pair.format, "text")
    if pair.after_name is not None:
        after_label = f"**After**, no finding: {md(pair.after_name, start=False)}"
    else:
        edits = ", ".join(code(f"{k}={_scalar(v)}")
                          for k, v in data["trigger"]["fix_edit"]["set"].items())
        after_label = f"**After**, no finding: relialint's quick fix applied (set {edits})"
    out = [
        '<div class="rl-fix-pair" markdown>',
        '<div class="rl-before" markdown>',
        "",
        f"**Before**, {data['id']} fires: {md(pair.before_name, start=False)}",
        "",
        fenced(pair.before, lang),
        "",
        "</div>",
        '<div class="rl-after" markdown>',
        "",
        after_label,
        "",
        fenced(pair.after, lang),
        "",
        "</div>",
        "</div>",
        "",
    ]
    given = ", ".join(_given_parts(pair.context))
    note = "Both are checked by relialint with only this record in force"
    out += [f"{note}{', given ' + given if given else ''}.", "{ .rl-fix-note }", ""]
    return out


def record_page(rec: SiteRecord, by_id: dict[str, SiteRecord]) -> str:
    """One record's page, ``docs/records/<ID>.md``."""
    from relialint.kb.describe import english

    d = rec.data
    rid = rec.id
    tags = [*(d.get("engines") or ["engine-independent"]), d["severity"], d["impact"]]
    out: list[str] = [
        "---",
        "title: " + yaml_html(f"{rid}: {fold(d['title'])}"),
        f"description: {yaml_html(fold(d['summary']))}",
        "tags:",
        *(f"  - {json.dumps(t)}" for t in tags),
        "---",
        "",
        BANNER,
        "",
        f"# {rid}: {md(d['title'], start=False)}",
        "",
    ]
    out += meta_line(d)
    if d.get("status") == "withdrawn":
        out += ["!!! warning \"Withdrawn\"", "    This record is withdrawn: it stays in the catalogue but never fires.",
                ""]
    out += [md(d["summary"]), "{ .rl-lead }", ""]

    out += ["## Fix", "", md(d["fix"]), ""]
    pair = before_after(d)
    if pair is not None:
        out += fix_pair(pair, d)

    def section(title: str, body: object) -> None:
        if body:
            out.extend([f"## {title}", "", md(body), ""])

    section("Cost of the fix", d.get("fix_cost"))
    section("Symptom", d["symptom"])
    section("Cause", d["cause"])
    if d.get("evidence"):
        out += ["## Evidence", "", "| measured | setup |", "| --- | --- |"]
        out += [f"| {cell(e['measured'])} | {cell(e['setup'])} |" for e in d["evidence"]]
        out.append("")
    section("What to monitor", d["detect"])

    out += ["## Affected versions", "", *versions(d).text]

    trigger = d.get("trigger")
    out += ["## Trigger", ""]
    if trigger:
        out += [f"relialint reports this record when {md(english(trigger['when']), start=False)}.", ""]
        out += [f"The finding points at the first of {', '.join(code(f) for f in trigger.get('locate') or [])} "
                "that has a location in the file, and says:" if trigger.get("locate") else "The finding says:", ""]
        out += [f"> {md(trigger['message'])}", ""]
        if trigger.get("fix_edit"):
            edits = ", ".join(code(f"{k}={_scalar(v)}") for k, v in trigger["fix_edit"]["set"].items())
            out += [f"The fix is a pure edit of the same invocation (editors offer it as a quick fix): set {edits}.",
                    ""]
        out += ["As written in the record:", "", fenced(rec.trigger_yaml or "", "yaml"), ""]
    elif d.get("runtime_trigger"):
        out += ["None for configuration files: no deployment config shows this failure. `relialint probe` reports "
                "it from the host itself (below).", ""]
    else:
        out += ["None: this is a knowledge record. No deployment config shows this failure, so the linter never "
                "reports it; catch it with the monitoring above.", ""]
    runtime = d.get("runtime_trigger")
    if runtime:
        out += ["## Runtime trigger", "",
                f"`relialint probe` (NVML on the host, or `nvidia-smi` / `amd-smi` captures) reports this record "
                f"when {md(english(runtime['when']), start=False)}.", ""]
        out += [f"The finding points at the reading of the first of "
                f"{', '.join(code(f) for f in runtime.get('locate') or [])} that the probe read, and says:"
                if runtime.get("locate") else "The finding says:", ""]
        out += [f"> {md(runtime['message'])}", "", "As written in the record:", "",
                fenced(rec.runtime_yaml or "", "yaml"), ""]

    out += _examples(d)

    out += ["## References", ""]
    try:
        out += [reference_markdown(ref) for ref in d.get("references") or []]
    except CitationError as exc:
        raise SiteError([f"{rec.path}: references: {exc}"]) from exc
    out.append("")
    out += _reach(d)
    if d.get("related"):
        out += ["## Related", ""]
        for other in d["related"]:
            target = by_id.get(other)
            label = f"{other}: {md(target.data['title'], start=False)}" if target else md(other)
            out.append(f"- [{label}]({other}.md)" if target else f"- {label}")
        out.append("")
    out += _details(d)
    out += ["---", "",
            f"This page: {code(record_url(rid))}. In the terminal: {code(f'relialint explain {rid}')}. "
            "Every record as data: [catalogue.json](../catalogue.json); new and changed records: "
            "[Atom feed](../feed.xml).", ""]
    return "\n".join(out)


def _reach(d: dict[str, Any]) -> list[str]:
    """Why the record was written: how many public configs can hit it, and the searches that say so (rerunnable)."""
    reach = d.get("reach")
    if not reach:
        return []
    searches = "; ".join(f"{code(q['text'])}: {q['hits']} files" for q in reach["queries"])
    out = ["## Reach", "",
           f"About {reach['estimate']} public configuration files can hit this record (searched {reach['searched']}: "
           f"{searches}).", ""]
    if reach.get("note"):
        out += [md(reach["note"]), ""]
    return out


def _examples(d: dict[str, Any]) -> list[str]:
    examples = d.get("examples") or []
    if not examples:
        return []
    counts = {k: sum(1 for e in examples if e["outcome"] == k) for k in OUTCOME_TITLES}
    out = ["## Examples", "",
           f"{counts['fires']} fire, {counts['passes']} pass, {counts['possible']} stay possible. Every example "
           "runs as a test (`relialint validate`).", ""]
    for ex in examples:
        out += [f"### {OUTCOME_TITLES[ex['outcome']]}: {md(ex['name'], start=False)}", ""]
        given = [f"format {code(ex['format'])}"]
        if ex.get("filename"):
            given.append(f"file {code(ex['filename'])}")
        given += _given_parts(ex)
        out += [f"Outcome: {OUTCOME_WORDS[ex['outcome']]}. Given: {'; '.join(given)}."]
        if ex.get("missing"):
            out[-1] += " The finding names the missing " + ", ".join(code(m) for m in ex["missing"]) + "."
        if ex.get("at"):
            out[-1] += f" It points at line {ex['at']['line']}, column {ex['at']['column']}."
        out += ["", fenced(str(ex["content"]), FENCE_LANG.get(str(ex["format"]), "text")), ""]
    return out


def _details(d: dict[str, Any]) -> list[str]:
    """The record's fields and the words search finds it by, at the foot of the page."""
    rid = str(d["id"])
    out = [
        "## Record details",
        "",
        "| field | value |",
        "| --- | --- |",
        f"| id | **{rid}** |",
        f"| slug | {code(d['slug'])} |",
        f"| severity | **{d['severity']}** |",
        f"| impact | {d['impact']} ({IMPACT_TITLES[d['impact']]}) |",
        f"| engines | {cell(', '.join(d.get('engines') or []) or 'any (engine-independent)')} |",
        f"| affected versions | {versions(d).label} |",
        f"| status | {d.get('status', 'active')} |",
        f"| published, modified | {d['published']}, {d['modified']} |",
        "",
    ]
    kw = keywords(d)
    parts = [f"id {code(rid)}", f"slug {code(d['slug'])}"]
    if kw.flags:
        parts.append("flags " + ", ".join(code(f) for f in kw.flags))
    if kw.env:
        parts.append("environment and build options " + ", ".join(code(e) for e in kw.env))
    if kw.gpus:
        parts.append("GPUs " + ", ".join(code(g) for g in kw.gpus))
    if kw.facts:
        parts.append("facts " + ", ".join(code(f) for f in kw.facts))
    out += [f"**Keywords:** {'; '.join(parts)}.", ""]
    return out

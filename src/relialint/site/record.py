"""One record's page, ``docs/records/<ID>.md``, in the order a reader needs it (issue 29).

Order: title; a line with severity, impact, engines, affected-versions status and dates; the line ``relialint
check`` prints for it (the CLI's text formatter on a firing example, :func:`relialint.site.fix.printed_finding`);
the summary; the fix (prose, then a before/after of a config to copy, from :mod:`relialint.site.fix`) and its cost;
how to silence it; the box of upstream report, fix PR, affected and fixed versions (linked to the release pages),
the record as JSON and "report a mistake"; then symptom, cause, evidence, monitoring, affected versions
(:mod:`relialint.site.versions`), the trigger, the examples, the references (:mod:`relialint.site.cite`), related
records and the record's fields, with the long parts folded (pymdownx.details) under their ``##`` headings. Issue
and PR numbers in the prose are links (:func:`relialint.site.markup.issue_links`).
"""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode, urlsplit

from relialint import REPOSITORY_URL, record_url
from relialint.site.cite import GITHUB_ISSUE, CitationError, record_repository, reference_markdown, reference_url
from relialint.site.common import (
    BANNER,
    FENCE_LANG,
    IMPACT_TITLES,
    OUTCOME_TITLES,
    OUTCOME_WORDS,
    SiteError,
    keywords,
)
from relialint.site.fix import BeforeAfter, before_after, printed_finding
from relialint.site.markup import cell, code, fenced, fold, html_text, md, md_link, yaml_html
from relialint.site.versions import alias_versions, engine_label, versions

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


INLINE_IGNORE_FORMATS = frozenset({"shell", "compose", "kubernetes", "helm", "env", "vllm-config", "systemd",
                                   "dockerfile"})
"""Example formats whose ``#`` comments carry inline directives (``docs/configuration.md``, "Inline directives")."""
REASON = "<why this is safe here>"


def indented(lines: list[str]) -> list[str]:
    """Markdown lines as the body of a folded block (four spaces in; blank lines stay blank)."""
    return [f"    {line}" if line else "" for line in "\n".join(lines).split("\n")]


def folded(summary: str, lines: list[str], kind: str = "note") -> list[str]:
    """A closed pymdownx.details block: ``summary`` (Markdown inline text of the generator's own words) over
    ``lines``."""
    return [f'??? {kind} "{summary}"', "", *indented(lines), ""]


def printed_line(d: dict[str, Any]) -> list[str]:
    """What ``relialint check`` prints for the record, from the CLI's own text formatter (:mod:`fix`)."""
    printed = printed_finding(d)
    if printed is None:
        return []
    given = ", ".join(_given_parts(printed.context))
    return ['<div class="rl-printed" markdown>', "", fenced(printed.line, "text"), "", "</div>",
            f"What `relialint check` prints for the example {md(printed.example, start=False)}"
            + (f" (given {given})" if given else "") + ".", "{ .rl-printed-note }", ""]


def silence(d: dict[str, Any]) -> list[str]:
    """How to silence the record: the inline directive (where the example format has ``#`` comments), the
    configuration's out-of-band suppression and ``--ignore``, as ``docs/configuration.md`` documents them."""
    if not d.get("trigger"):
        return []
    rid = str(d["id"])
    printed = printed_finding(d)
    fmt = next((str(e["format"]) for e in d.get("examples") or [] if e["outcome"] == "fires"), "shell")
    out = ["## Silence it", ""]
    if printed is not None and fmt in INLINE_IGNORE_FORMATS:
        out += ["Where the finding is accepted, say why on its line or alone on the line above "
                "([inline directives](../configuration.md#inline-directives); a reason is required):", "",
                fenced(f"# relialint: ignore[{rid}] {REASON}", "sh"), ""]
    config_ignore = code(f"ignore = {json.dumps([rid])}")
    out += [f"For a whole run: {code(f'relialint check --ignore {rid} PATH')} (or {config_ignore} "
            "in `[tool.relialint]`); for some paths, with a reason: a `[[tool.relialint.suppress]]` entry with "
            f"{code(f'record = {json.dumps(rid)}')}, `paths` and `reason` "
            "([configuration](../configuration.md#where-settings-live)).", ""]
    return out


def report_url(d: dict[str, Any]) -> str:
    """A new issue on the project's repository, prefilled: title ``RLxxx: ``, the page and the record's version
    fields in the body."""
    rid = str(d["id"])
    body = [f"Page: {record_url(rid)}", f"Record: {rid} (modified {d['modified']})", "", "Versions in the record:"]
    ranges = (d.get("trigger") or {}).get("affected") or []
    for rng in ranges:
        fields = ", ".join(f"{k}: {rng[k]}" for k in ("introduced", "last_known_good", "last_affected", "fixed")
                           if rng.get(k))
        observed = ", ".join(str(v) for v in rng.get("observed") or [])
        body.append(f"- {rng['engine']}: {fields or 'no bounds'}" + (f"; observed: {observed}" if observed else ""))
    if not ranges:
        body.append("- none given")
    body += ["", "What is wrong (and the source that shows it):", ""]
    query = urlencode({"title": f"{rid}: ", "body": "\n".join(body)}, quote_via=quote)
    return f"{REPOSITORY_URL}/issues/new?{query}"


def _upstream_label(url: str) -> str:
    match = GITHUB_ISSUE.match(url)
    if match:
        return f"{match.group('repo')}#{match.group('number')}"
    return urlsplit(url).netloc or url


def aliases(d: dict[str, Any]) -> list[str]:
    """The box after the fix, like OSV's aliases: the upstream report, the fix PR, affected and fixed versions as
    links, the record as JSON and where to report a mistake."""
    repo = record_repository(d)
    refs = d.get("references") or []

    def links(kind: str, issues_only: bool = False) -> list[str]:
        out: list[str] = []
        for ref in refs:
            url = reference_url(ref, repo) if ref["kind"] == kind else None
            match = GITHUB_ISSUE.match(url) if url else None
            if url is None or (issues_only and (match is None or match.group("kind") != "issues")):
                continue
            item = md_link(html_text(_upstream_label(url)), url)
            if item not in out:
                out.append(item)
        return out

    reports = links("report") or links("upstream", issues_only=True)
    fixes = links("fix")
    rid = str(d["id"])
    box = ['<div class="rl-aliases" markdown>', "",
           f"- **Upstream report**: {', '.join(reports) if reports else 'none recorded'}",
           f"- **Fix**: {', '.join(fixes) if fixes else 'none recorded'}",
           *alias_versions(d),
           f"- **As data**: [{rid}.json](../records/{rid}.json) (OSV-like); **wrong?** "
           f"[Report a mistake]({report_url(d).replace('&', '&amp;')})",
           "", "</div>", ""]
    return ["## Upstream and versions { #aliases }", "", *box]


def record_page(rec: SiteRecord, by_id: dict[str, SiteRecord]) -> str:
    """One record's page, ``docs/records/<ID>.md``."""
    from relialint.kb.describe import english

    d = rec.data
    rid = rec.id
    repo = record_repository(d)
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
        f"# {rid}: {md(d['title'], start=False, repo=repo)}",
        "",
    ]
    out += meta_line(d)
    if d.get("status") == "withdrawn":
        out += ["!!! warning \"Withdrawn\"", "    This record is withdrawn: it stays in the catalogue but never fires.",
                ""]
    out += printed_line(d)
    out += [md(d["summary"], repo=repo), "{ .rl-lead }", ""]

    out += ["## Fix", "", md(d["fix"], repo=repo), ""]
    pair = before_after(d)
    if pair is not None:
        out += fix_pair(pair, d)
    if d.get("fix_cost"):
        out += [f"**Cost of the fix**: {md(d['fix_cost'], start=False, repo=repo)}", ""]
    out += silence(d)
    out += aliases(d)

    out += ["## Symptom", "", md(d["symptom"], repo=repo), ""]
    out += ["## Cause", "", *folded("Why it happens", [md(d["cause"], repo=repo)])]
    if d.get("evidence"):
        rows = ["| measured | setup |", "| --- | --- |"]
        rows += [f"| {cell(e['measured'], repo=repo)} | {cell(e['setup'], repo=repo)} |" for e in d["evidence"]]
        count = len(d["evidence"])
        out += ["## Evidence", "", *folded(f"{count} measurement{'s' if count != 1 else ''}", rows)]
    out += ["## What to monitor", "", md(d["detect"], repo=repo), ""]

    status = versions(d)
    out += ["## Affected versions", "", f"Status: **{status.label}**.", "",
            *folded("The bounds and where they come from", status.text)]
    out += ["## Trigger", "", *folded("When relialint reports it", _trigger(rec, english))]
    runtime = d.get("runtime_trigger")
    if runtime:
        body = [f"`relialint probe` (NVML on the host, or `nvidia-smi` / `amd-smi` captures) reports this record "
                f"when {md(english(runtime['when']), start=False)}.", ""]
        body += [f"The finding points at the reading of the first of "
                 f"{', '.join(code(f) for f in runtime.get('locate') or [])} that the probe read, and says:"
                 if runtime.get("locate") else "The finding says:", ""]
        body += [f"> {md(runtime['message'])}", "", "As written in the record:", "",
                 fenced(rec.runtime_yaml or "", "yaml")]
        out += ["## Runtime trigger", "", *folded("When relialint probe reports it", body)]

    out += _examples(d)

    out += ["## References", ""]
    try:
        out += [reference_markdown(ref, repo) for ref in d.get("references") or []]
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
            f"This record as data: [{rid}.json](../records/{rid}.json); "
            "every record: [catalogue.json](../catalogue.json); "
            "new and changed records: [Atom feed](../feed.xml).", ""]
    return "\n".join(out)


def _trigger(rec: SiteRecord, english: Any) -> list[str]:
    """The trigger in words, where the finding points, its message, the quick fix and the trigger as written."""
    d = rec.data
    trigger = d.get("trigger")
    if trigger:
        out = [f"relialint reports this record when {md(english(trigger['when']), start=False)}.", ""]
        out += [f"The finding points at the first of {', '.join(code(f) for f in trigger.get('locate') or [])} "
                "that has a location in the file, and says:" if trigger.get("locate") else "The finding says:", ""]
        out += [f"> {md(trigger['message'], repo=record_repository(d))}", ""]
        if trigger.get("fix_edit"):
            edits = ", ".join(code(f"{k}={_scalar(v)}") for k, v in trigger["fix_edit"]["set"].items())
            out += [f"The fix is a pure edit of the same invocation (editors offer it as a quick fix): set {edits}.",
                    ""]
        return [*out, "As written in the record:", "", fenced(rec.trigger_yaml or "", "yaml")]
    if d.get("runtime_trigger"):
        return ["None for configuration files: no deployment config shows this failure. `relialint probe` reports "
                "it from the host itself (below)."]
    return ["None: this is a knowledge record. No deployment config shows this failure, so the linter never "
            "reports it; catch it with the monitoring above."]


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
        out += [md(reach["note"], repo=record_repository(d)), ""]
    return out


def _examples(d: dict[str, Any]) -> list[str]:
    """Every example as a test sees it, folded under ``## Examples`` (search leaves that heading's section out)."""
    examples = d.get("examples") or []
    if not examples:
        return []
    counts = {k: sum(1 for e in examples if e["outcome"] == k) for k in OUTCOME_TITLES}
    body = ["Every example runs as a test (`relialint validate`).", ""]
    for ex in examples:
        body += [f"### {OUTCOME_TITLES[ex['outcome']]}: {md(ex['name'], start=False, repo=record_repository(d))}",
                 ""]
        given = [f"format {code(ex['format'])}"]
        if ex.get("filename"):
            given.append(f"file {code(ex['filename'])}")
        given += _given_parts(ex)
        body += [f"Outcome: {OUTCOME_WORDS[ex['outcome']]}. Given: {'; '.join(given)}."]
        if ex.get("missing"):
            body[-1] += " The finding names the missing " + ", ".join(code(m) for m in ex["missing"]) + "."
        if ex.get("at"):
            body[-1] += f" It points at line {ex['at']['line']}, column {ex['at']['column']}."
        body += ["", fenced(str(ex["content"]), FENCE_LANG.get(str(ex["format"]), "text")), ""]
    summary = f"{counts['fires']} fire, {counts['passes']} pass, {counts['possible']} stay possible"
    return ["## Examples", "", *folded(summary, body, kind="example")]


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
    return [*out[:2], *folded("Fields and keywords", out[2:])]

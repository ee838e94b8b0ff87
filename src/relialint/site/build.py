"""The published catalogue: generates the mkdocs pages derived from the records and from code.

One command, ``python -m relialint.site``, writes

* ``docs/records/<ID>.md``: one page per record (URL ``/records/<ID>/``, the URL the linter prints), and
  ``docs/records/<ID>.json``, the record as OSV-like JSON (:mod:`relialint.site.record_json`);
* ``docs/records/index.md``: the catalogue table, filterable in the page by severity, impact and engine;
* ``docs/reference/facts.md``, ``docs/reference/hardware.md``, ``docs/reference/schema.md``;
* ``docs/catalogue.json`` (every record with its page URL) and ``docs/feed.xml`` (an Atom feed of new and changed
  records), for other tools (:mod:`relialint.site.feed`);
* ``docs/reference/facts.md``, ``docs/reference/hardware.md`` (each GPU with its records), ``docs/reference/schema.md``;
* ``docs/setup.md`` and ``docs/data/setup.json``: the "my setup" view and its verdicts (``site_setup``);
* ``docs/data/search-terms.json``: what search finds each record by, merged into the built index (``site_search``);
* ``docs/releases/<engine>-<V>.md`` and ``docs/releases/index.md``: what silently changes in each tabled engine
  release (``site_releases``); ``docs/upgrade.md`` and ``docs/data/upgrade.json``: the "upgrade from X to Y on GPU
  G" view (``site_upgrade_view``);
* in ``mkdocs.yml``: ``site_url`` (from :data:`relialint.SITE_URL`), the catalogue's and the releases' navigation,
  each between its ``BEGIN generated`` / ``END generated`` markers.

Pages of records and releases that no longer exist are removed. ``--check`` writes nothing and exits 1 when anything
is stale. Nothing here is edited by hand; ``tests/test_site.py`` regenerates into a temporary folder and compares.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from relialint import SITE_URL
from relialint.core.triggers import of
from relialint.site.common import (
    BANNER,
    GENERATOR,
    IMPACT_TITLES,
    IMPACTS,
    NAV_BEGIN,
    NAV_END,
    SEVERITIES,
    SiteError,
    SiteRecord,
    keywords,
)
from relialint.site.markup import cell, code, fenced, fold, html_attr, md, yaml_html

__all__ = ["cell", "code", "fenced", "md"]  # the Markdown escaping the page modules import from here

# --------------------------------------------------------------------------------------------------------------
# Values


def _scalar(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# --------------------------------------------------------------------------------------------------------------
# Loading


def _trigger_source(text: str, name: str = "trigger") -> str | None:
    """The ``trigger:`` (or ``runtime_trigger:``) block of a record file, exactly as written."""
    lines = text.splitlines()
    for start, line in enumerate(lines):
        if re.match(rf"^{name}\s*:", line):
            end = start + 1
            while end < len(lines) and (not lines[end].strip() or lines[end][:1] in (" ", "\t", "#")):
                end += 1
            while end > start + 1 and not lines[end - 1].strip():
                end -= 1
            return "\n".join(lines[start:end])
    return None


def load_records(records_dir: Path) -> list[SiteRecord]:
    from relialint.kb.loader import compile_record, load_dir

    result = load_dir(records_dir)
    if result.problems:
        raise SiteError([f"{p.path}:{p.line}:{p.column}: {p.code} {p.message}" for p in result.problems])
    out: list[SiteRecord] = []
    seen: dict[str, str] = {}
    for loaded in result.records:
        data = compile_record(loaded)
        data.pop("_path", None)
        rid = str(data["id"])
        if rid in seen:
            raise SiteError([f"{loaded.path}: duplicate id {rid} (also in {seen[rid]})"])
        seen[rid] = loaded.path
        text = Path(loaded.path).read_text(encoding="utf-8")
        source = _trigger_source(text) if data.get("trigger") else None
        runtime = _trigger_source(text, "runtime_trigger") if data.get("runtime_trigger") else None
        out.append(SiteRecord(data, Path(loaded.path), source, runtime))
    out.sort(key=lambda r: r.id)
    return out


# --------------------------------------------------------------------------------------------------------------
# Keywords: the flags, env vars, GPUs and facts a record is about, so that search finds the record by any of them




# --------------------------------------------------------------------------------------------------------------
# Pages


def record_page(rec: SiteRecord, by_id: dict[str, SiteRecord]) -> str:
    """One record's page, ``docs/records/<ID>.md``: summary and fix first (:mod:`relialint.site.record`)."""
    from relialint.site import record as site_record

    return site_record.record_page(rec, by_id)


SORT_COLUMNS = (("id", "ID"), ("title", "Title"), ("severity", "Severity"), ("impact", "Impact"),
                ("engines", "Engines"), ("kind", "Kind"))


def _origin(data: dict[str, Any]) -> str:
    """Where a record comes from and where its defect stands upstream, as ``relialint records`` says it."""
    from relialint.kb.upstream import sources, status

    origin = "; ".join(s.label for s in sources(data)) or "no source given"
    return f"Source: {origin}. Upstream: {status(data).text}."


def _kind(data: dict[str, Any]) -> str:
    return "trigger" if data.get("trigger") else ("runtime" if data.get("runtime_trigger") else "knowledge")


def index_page(records: Sequence[SiteRecord]) -> str:
    """The catalogue: a table of every record, filtered and sorted in the page (``docs/javascripts/catalogue.js``).
    Each filter offers only the values some record has; the engine filter keeps the engine-independent records
    (``engines: []``), which apply to every engine. The text filter matches each record's search tokens
    (``search/record-terms.json``, written with the search index by :mod:`relialint.site.search`), so it shows a
    record by the words search finds it by. The filters, the table and the empty-result line are left out of the
    search index (``data-search-exclude``): each record has its own entry. Each filter's ``div`` carries the mark
    too: Material's indexer matches a closing tag to the mark by tag name alone, so the first inner ``</div>``
    would end the outer one's. Below 45em the rows are laid out as cards
    (``catalogue.css``)."""
    out = [
        "---",
        "title: Catalogue",
        "description: Every relialint record, filterable by text, severity, impact and engine, and sortable.",
        "---",
        "",
        BANNER,
        "",
        "# Catalogue",
        "",
        f"{len(records)} records of silent failures of LLM serving engines. Each has a page at "
        f"{code(SITE_URL + 'records/<ID>/')}, the URL relialint prints with every finding. *Trigger* records are "
        "checked by the linter; *knowledge* records have no config that shows them and are caught by monitoring.",
        "",
        "| impact class | records |",
        "| --- | --- |",
    ]
    for impact in IMPACTS:
        n = sum(1 for r in records if r.data["impact"] == impact)
        out.append(f"| {IMPACT_TITLES[impact]} | {n} |")
    out += ["", "Filter the table by a word (an id, a flag, an environment variable, a GPU) or choose a severity, an "
            "impact class or an engine; an engine shows the engine-independent records too. Sort by a column's "
            "heading. [My setup](../setup.md) lists the records for an engine, a version and a GPU.", ""]

    def select(name: str, label: str, options: Sequence[tuple[str, str]]) -> list[str]:
        lines = [f'<div class="rl-filter" data-search-exclude><label for="rl-filter-{name}">{label}</label> '
                 f'<select id="rl-filter-{name}" data-filter="{name}">', '<option value="">all</option>']
        lines += [f'<option value="{html.escape(v)}">{html.escape(t)}</option>' for v, t in options]
        lines.append("</select></div>")
        return lines

    present = {key: {str(v) for r in records for v in ([r.data[key]] if key != "engines" else
                                                          (r.data.get("engines") or ["any"]))}
               for key in ("severity", "impact", "engines")}
    from relialint.engines.registry import default_registry
    from relialint.site.search import RECORD_TERMS

    shipped = [engine.name for engine in default_registry().versioned()]
    engines = [e for e in shipped if e in present["engines"]]
    engines += sorted(present["engines"] - set(shipped) - {"any"})
    out += ['<div class="rl-filters" id="rl-filters" data-search-exclude>',
            '<div class="rl-filter rl-filter-text" data-search-exclude><label for="rl-filter-text">Filter</label> '
            '<input type="search" id="rl-filter-text" data-filter="filter" placeholder="id, word, flag, GPU" '
            'autocomplete="off" spellcheck="false"></div>']
    out += select("severity", "Severity", [(s, s) for s in SEVERITIES if s in present["severity"]])
    out += select("impact", "Impact", [(i, i) for i in IMPACTS if i in present["impact"]])
    out += select("engine", "Engine", [*((e, default_registry().label(e)) for e in engines),
                                       *((("any", "engine-independent"),) if "any" in present["engines"] else ())])
    out += ['<p class="rl-count" id="rl-count" aria-live="polite" data-search-exclude>'
            f"{len(records)} of {len(records)} records shown</p>", "</div>", ""]
    heads = "".join(f'<th scope="col" data-sort="{key}"><button type="button" class="rl-sort">{label}</button></th>'
                    for key, label in SORT_COLUMNS)
    out += [f'<table id="rl-catalogue" class="rl-catalogue" data-search-exclude data-terms="../{RECORD_TERMS}">',
            '<caption class="rl-visually-hidden">Every record; sort by a column heading</caption>',
            f"<thead><tr>{heads}</tr></thead>", "<tbody>"]
    for rec in records:
        d = rec.data
        engines_text = " ".join(d.get("engines") or []) or "any"
        kind = _kind(d)
        kw = keywords(d)
        words = " ".join([rec.id, str(d["slug"]), str(d["title"]), d["severity"], d["impact"], engines_text, kind,
                          *kw.flags, *kw.env, *kw.gpus, *kw.facts])
        status = ' data-status="withdrawn"' if d.get("status") == "withdrawn" else ""
        out.append(
            f'<tr data-id="{rec.id}" data-severity="{d["severity"]}" data-impact="{d["impact"]}" '
            f'data-engines="{html_attr(engines_text)}" data-kind="{kind}" '
            f'data-text="{html_attr(" ".join(words.lower().split()))}"{status}>'
            f'<td class="rl-c-id"><a href="{rec.id}/">{rec.id}</a></td>'
            f'<td class="rl-c-title"><a href="{rec.id}/">{html_attr(str(d["title"]))}</a>'
            f'<span class="rl-upstream">{html_attr(_origin(d))}</span></td>'
            f'<td class="rl-c-severity"><span class="rl-sev rl-sev-{d["severity"]}">{d["severity"]}</span></td>'
            f'<td class="rl-c-impact">{d["impact"]}</td>'
            f'<td class="rl-c-engines">{html_attr(", ".join(d.get("engines") or []) or "any")}</td>'
            f'<td class="rl-c-kind">{kind}</td></tr>'
        )
    out += ["</tbody>", "</table>", "",
            '<p id="rl-empty" class="rl-empty" hidden data-search-exclude>No record matches these filters.</p>', ""]
    return "\n".join(out)


def facts_page(records: Sequence[SiteRecord]) -> str:
    from relialint.core.facts import RAW_PREFIXES, VOCABULARY

    used: dict[str, list[str]] = {}
    for rec in records:
        for name in ("trigger", "runtime_trigger"):
            compiled = of(rec.data, name) if (rec.data.get(name) or {}).get("when") else None
            for leaf in compiled.leaves if compiled is not None else ():
                ids = used.setdefault(leaf.key, [])
                if rec.id not in ids:
                    ids.append(rec.id)
    out = [
        "---", "title: Fact vocabulary", "---", "", BANNER, "",
        "# Fact vocabulary",
        "",
        "Records are written against these keys, not against raw flags, so that one record covers every way of "
        "saying the same thing: a flag, its alias, `--flag=value`, an environment variable, a `--config` YAML key, "
        "a compose `environment:` entry, a Kubernetes `env:`. [Where facts come from](../fact-sources.md) says "
        "which flags, env vars, image tags and defaults set each one; `relialint facts PATH` shows them for a file, "
        "each with its origin and location. Give a fact by hand with `--fact KEY=VALUE`.",
        "",
        "A fact is *known* (with a value, or known to be unset) or *unknown*. A trigger that depends on an unknown "
        "fact gives a *possible* finding that names it.",
        "",
        "| key | type | values | meaning | used by |",
        "| --- | --- | --- | --- | --- |",
    ]
    from relialint.engines.registry import default_registry

    engine_names = tuple(engine.name for engine in default_registry().versioned())
    for key, spec in VOCABULARY.items():
        values = ", ".join(code(a) for a in (engine_names if key == "engine.name" else spec.allowed))
        users = ", ".join(f"[{i}](../records/{i}.md)" for i in used.get(key, []))
        out.append(f"| {code(key)} | {spec.type} | {values} | {cell(spec.description)} | {users} |")
    out += ["", "## Raw keys", "",
            "Any key under these prefixes is valid and holds the value as written, for records that need one "
            "spelling:", "", "| prefix | meaning | used by |", "| --- | --- | --- |"]
    meaning = {"env.": "an environment variable as the process will see it",
               "build.": "a CMake option seen in a build line",
               **{f"flag.{engine.name}.": f"an option of {engine.label}, named without its leading dashes"
                  for engine in default_registry().versioned()}}
    for prefix in RAW_PREFIXES:
        raw_users = sorted({i for k, ids in used.items() if k.startswith(prefix) for i in ids})
        users = ", ".join(f"[{i}](../records/{i}.md)" for i in raw_users)
        out.append(f"| {code(prefix + '<NAME>')} | {meaning.get(prefix, '')} | {users} |")
    out.append("")
    return "\n".join(out)


def gpu_anchor(name: str) -> str:
    """The id of a GPU's row on the hardware page (``reference/hardware/#gpu-h100``), the same on its family page."""
    from relialint.site.hardware import gpu_anchor as anchor

    return anchor(name)


def hardware_page(records: Sequence[SiteRecord]) -> str:
    from relialint.core.hardware import Gpu, catalogue
    from relialint.site.hardware import gpu_page, gpu_record_count

    def yes(value: bool | None) -> str:
        return "unknown" if value is None else ("yes" if value else "no")

    def memory(value: int | None) -> str:
        return "unknown" if value is None else f"{value} GB"

    counts = gpu_record_count([r.data for r in records])

    def linked(g: Gpu) -> str:
        n = counts.get(g.name, 0)
        return f"[{n} record{'' if n == 1 else 's'}](../{gpu_page(g)})"

    out = [
        "---", "title: Hardware catalogue", "---", "", BANNER, "",
        "# Hardware catalogue",
        "",
        "The GPU catalogue behind `--gpu NAME`, `# relialint: gpu=NAME` and the GPUs read from manifests "
        "(GPU Feature Discovery and GKE labels). A name sets every `gpu.*` fact the catalogue knows. Matching "
        "ignores case, spaces, dashes and underscores; a compute capability (`sm_90`, `sm90`, `9.0`) or an AMD "
        "target (`gfx1151`) works as well. Native FP8 and FP4 follow vLLM's own gates: FP8 from compute "
        "capability 8.9, FP4 from 10.0. Memory (`gpu.memory_gb`) is one GPU's, from the vendor's specification, "
        "and unknown where a name covers several sizes. Confidential Computing (`gpu.cc_capable`) follows NVIDIA's "
        "Confidential Computing documentation: Hopper and Blackwell data-centre parts; no part below compute "
        "capability 9.0.",
        "",
        "The *records* column links each GPU to its family's page, which lists the records that can apply on it as "
        "the linter decides them with `--gpu NAME`, and what in a configuration decides each "
        "([all families](../hardware/index.md)). [My setup](../setup.md) lists every record for an engine, a "
        "version and a GPU.",
        "",
        "## NVIDIA",
        "",
        '<div class="rl-hardware" markdown="1">',
        "",
        "| GPU | records | architecture | compute capability | native FP8 | native FP4 | memory "
        "| Confidential Computing | note | also written as |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    gpus = catalogue()

    def rows(vendor: str, cells: Callable[[Gpu], list[str]]) -> list[str]:
        """One vendor's table rows: the name (with its anchor), the records about the GPU, the vendor's own
        columns, the note and the aliases."""
        return [" | ".join(["", f'<span id="{gpu_anchor(g.name)}"></span>**{cell(g.name)}**', linked(g), *cells(g),
                            cell(g.note or ""), ", ".join(code(a) for a in g.aliases), ""]).strip()
                for g in gpus if g.vendor == vendor]

    def nvidia(g: Gpu) -> list[str]:
        sm = f"{g.sm} ({code('sm_' + str(g.sm).replace('.', ''))})" if g.sm is not None else ""
        return [g.family or "", sm, yes(g.native_fp8), yes(g.native_fp4), memory(g.memory_gb), yes(g.cc_capable)]

    out += rows("nvidia", nvidia)
    out += ["", "</div>", "", "## AMD", "",
            "AMD native FP8/FP4 are left unknown: the reference gives vLLM's software gates, not tensor-core facts.",
            "", '<div class="rl-hardware" markdown="1">', "",
            "| GPU | records | architecture | target (`gpu.arch`) | memory | note | also written as |",
            "| --- | --- | --- | --- | --- | --- | --- |"]
    out += rows("amd", lambda g: [g.family or "", code(g.arch or ""), memory(g.memory_gb)])
    out += ["", "</div>", "", "## Intel", "",
            "Intel GPUs (vLLM XPU, llama.cpp SYCL) have neither a compute capability nor an AMD target.",
            "", '<div class="rl-hardware" markdown="1">', "",
            "| GPU | records | memory | note | also written as |", "| --- | --- | --- | --- | --- |"]
    out += rows("intel", lambda g: [memory(g.memory_gb)])
    out += ["", "</div>", ""]
    return "\n".join(out)


def schema_page() -> str:
    from relialint.kb.model import json_schema

    schema = json_schema()
    props = schema.get("properties")
    required_raw = schema.get("required")
    required = {str(r) for r in required_raw} if isinstance(required_raw, list) else set()
    out = [
        "---", "title: Record JSON Schema", "---", "", BANNER, "",
        "# Record JSON Schema",
        "",
        "The JSON Schema of a record file, generated from the pydantic models in `src/relialint/kb/model.py`. "
        "`relialint schema` prints it; `schemas/record.schema.json` holds it for editors (the first line of every "
        "record points the YAML language server at it). [Writing records](../writing-records.md) explains each "
        "field.",
        "",
        "## Top-level fields",
        "",
        "| field | required | description |",
        "| --- | --- | --- |",
    ]
    if isinstance(props, dict):
        for name, prop in props.items():
            desc = prop.get("description", "") if isinstance(prop, dict) else ""
            out.append(f"| {code(name)} | {'yes' if name in required else 'no'} | {cell(desc)} |")
    out += ["", "## The schema", "", fenced(json.dumps(schema, indent=2, sort_keys=False), "json"), ""]
    return "\n".join(out)


# --------------------------------------------------------------------------------------------------------------
# mkdocs.yml: site_url and the generated navigation


def _short(title: str, limit: int = 44) -> str:
    """A title cut at a word boundary for the navigation (the page shows it whole)."""
    if len(title) <= limit:
        return title
    cut = title[:limit].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + " …"


def nav_block(records: Sequence[SiteRecord], indent: str) -> list[str]:
    lines = [f"{indent}{NAV_BEGIN}"]
    for impact in IMPACTS:
        members = [r for r in records if r.data["impact"] == impact]
        if not members:
            continue
        lines.append(f"{indent}- {json.dumps(IMPACT_TITLES[impact])}:")
        for rec in members:
            label = f"{rec.id} {_short(fold(rec.data['title']))}"
            lines.append(f"{indent}    - {yaml_html(label)}: records/{rec.id}.md")
    lines.append(f"{indent}{NAV_END}")
    return lines


def _between(lines: list[str], markers: tuple[str, str], block: Callable[[str], list[str]]) -> list[str]:
    """``lines`` with the lines from one marker to the other (both included) replaced by ``block(indent)``."""
    begin = next((i for i, line in enumerate(lines) if line.strip() == markers[0]), None)
    end = next((i for i, line in enumerate(lines) if line.strip() == markers[1]), None)
    if begin is None or end is None or end < begin:
        raise SiteError([f"mkdocs.yml: the nav needs the markers {markers[0]!r} and {markers[1]!r}"])
    indent = lines[begin][: len(lines[begin]) - len(lines[begin].lstrip())]
    return [*lines[:begin], *block(indent), *lines[end + 1:]]


def render_mkdocs(text: str, records: Sequence[SiteRecord]) -> str:
    """``mkdocs.yml`` with ``site_url`` from :data:`SITE_URL`, the generated catalogue navigation and the releases'
    navigation."""
    from relialint.site import releases as site_releases

    text, n = re.subn(r"(?m)^site_url:.*$", f"site_url: {SITE_URL}", text, count=1)
    if n != 1:
        raise SiteError(["mkdocs.yml: no top-level site_url line"])
    lines = _between(text.splitlines(), (NAV_BEGIN, NAV_END), lambda indent: nav_block(records, indent))
    steps = site_releases.release_steps([r.data for r in records])
    lines = _between(lines, (site_releases.NAV_BEGIN, site_releases.NAV_END),
                     lambda indent: site_releases.nav_block(steps, indent))
    from relialint.site import hardware as site_hardware

    lines = _between(lines, (site_hardware.NAV_BEGIN, site_hardware.NAV_END), site_hardware.nav_block)
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------------------------
# Writing and checking


def render(records_dir: Path) -> tuple[dict[str, str], list[SiteRecord]]:
    """Every generated page, by path relative to ``docs/``, and the records they were made from."""
    records = load_records(records_dir)
    by_id = {r.id: r for r in records}
    pages: dict[str, str] = {f"records/{r.id}.md": record_page(r, by_id) for r in records}
    pages["records/index.md"] = index_page(records)
    pages["reference/facts.md"] = facts_page(records)
    pages["reference/hardware.md"] = hardware_page(records)
    pages["reference/schema.md"] = schema_page()
    from relialint.site.hardware import hardware_pages

    pages.update(hardware_pages(BANNER, [r.data for r in records]))
    from relialint.site import feed as site_feed

    pages[site_feed.CATALOGUE_FILE] = site_feed.catalogue_json(records)
    pages[site_feed.FEED_FILE] = site_feed.atom_feed(records)
    from relialint.site.record_json import json_pages

    pages.update(json_pages(records))
    pages.update(search_and_setup(records))
    pages.update(releases_and_upgrade(records))
    return pages, records


def releases_and_upgrade(records: Sequence[SiteRecord]) -> dict[str, str]:
    """The release pages and their index (``site_releases``), the "upgrade" view and its data file."""
    from relialint.site.releases import render_pages
    from relialint.site.upgrade_view import UPGRADE_DATA, UPGRADE_PAGE, upgrade_json, upgrade_page

    data = [r.data for r in records]
    pages, _steps = render_pages(data)
    pages[UPGRADE_PAGE] = upgrade_page(BANNER)
    pages[UPGRADE_DATA] = upgrade_json(data)
    return pages


def search_and_setup(records: Sequence[SiteRecord]) -> dict[str, str]:
    """The "my setup" page and its data file, and the records' search terms (``site_setup``, ``site_search``)."""
    from relialint.site.search import SEARCH_TERMS, terms_json
    from relialint.site.setup import SETUP_DATA, SETUP_PAGE, data_json, setup_page

    data = [r.data for r in records]
    return {SETUP_PAGE: setup_page(BANNER), SETUP_DATA: data_json(data), SEARCH_TERMS: terms_json(data)}


_RECORD_PAGE = re.compile(r"^RL[0-9]{3}\.(?:md|json)$")
_HARDWARE_PAGE = re.compile(r"^[a-z0-9-]+\.md$")


def _stale_record_pages(docs: Path, pages: dict[str, str]) -> list[Path]:
    """Generated pages whose record or release is gone: record pages and release pages no longer made."""
    from relialint.site.releases import PAGE_NAME, RELEASES_DIR

    out: list[Path] = []
    from relialint.site.hardware import HARDWARE_DIR

    for name, pattern in (("records", _RECORD_PAGE), (RELEASES_DIR, PAGE_NAME), (HARDWARE_DIR, _HARDWARE_PAGE)):
        folder = docs / name
        if folder.is_dir():
            out += [p for p in folder.iterdir() if pattern.match(p.name) and f"{name}/{p.name}" not in pages]
    return sorted(out)


@dataclass
class Plan:
    """What a run would change: files to write (path -> content) and files to remove."""

    write: dict[Path, str]
    remove: list[Path]

    def stale(self) -> list[str]:
        return [str(p) for p in self.write] + [f"{p} (no such record or release)" for p in self.remove]


def plan(root: Path, records_dir: Path | None = None) -> Plan:
    """Compare the generated files with what is under ``root`` (the folder with mkdocs.yml and docs/)."""
    records_dir = records_dir or default_records_dir(root)
    docs = root / "docs"
    pages, records = render(records_dir)
    write: dict[Path, str] = {}
    for rel, content in pages.items():
        path = docs / rel
        try:
            current = path.read_text(encoding="utf-8")
        except OSError:
            current = None
        if current != content:
            write[path] = content
    mkdocs = root / "mkdocs.yml"
    current_yml = mkdocs.read_text(encoding="utf-8")
    wanted_yml = render_mkdocs(current_yml, records)
    if wanted_yml != current_yml:
        write[mkdocs] = wanted_yml
    return Plan(write, _stale_record_pages(docs, pages))


def default_root() -> Path:
    """The checkout this module lives in when it has mkdocs.yml, else the current folder."""
    checkout = Path(__file__).resolve().parents[3]
    return checkout if (checkout / "mkdocs.yml").is_file() else Path.cwd()


def default_records_dir(root: Path) -> Path:
    from relialint.kb.loader import shipped_dir

    local = root / "records"
    return local if local.is_dir() else shipped_dir()


def generate(root: Path, records_dir: Path | None = None) -> Plan:
    """Write every generated file under ``root`` and remove pages of records that are gone."""
    todo = plan(root, records_dir)
    for path, content in todo.write.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    for path in todo.remove:
        path.unlink()
    return todo


HOOK_LINE = re.compile(r"(?m)^(\s*-\s*)src/relialint/site/search\.py\s*$")


def export(root: Path, out: Path, records_dir: Path | None = None) -> Plan:
    """A site of any records folder, written beside the checkout: the site's sources under ``root`` (``mkdocs.yml``,
    ``docs/``, ``overrides/``) copied into ``out``, which must be new or empty, and the pages generated there from
    ``records_dir`` (default: ``root/records``). ``mkdocs build -f OUT/mkdocs.yml`` then builds it; ``root`` is
    left as it is. The copy's search hook is this installation's :mod:`relialint.site.search`."""
    import shutil

    from relialint.site import search as site_search

    records_dir = records_dir or default_records_dir(root)
    if out.resolve() == root.resolve():
        raise SiteError([f"{out}: --out must be another folder than the site's own ({root})"])
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise SiteError([f"{out}: --out must name a new or empty folder"])
    config = (root / "mkdocs.yml").read_text(encoding="utf-8")
    config, hooks = HOOK_LINE.subn(lambda m: m.group(1) + json.dumps(str(Path(site_search.__file__).resolve())),
                                   config)
    if hooks != 1:
        raise SiteError([f"{root / 'mkdocs.yml'}: no hooks entry for src/relialint/site/search.py"])
    out.mkdir(parents=True, exist_ok=True)
    shutil.copytree(root / "docs", out / "docs")
    if (root / "overrides").is_dir():
        shutil.copytree(root / "overrides", out / "overrides")
    (out / "mkdocs.yml").write_text(config, encoding="utf-8")
    return generate(out, records_dir)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=GENERATOR, description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--root", type=Path, default=None, help="folder holding mkdocs.yml and docs/")
    parser.add_argument("--records", type=Path, default=None, help="records folder (default: ROOT/records)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a generated file is stale")
    parser.add_argument("--out", type=Path, default=None,
                        help="write a whole site of RECORDS into this new or empty folder (ROOT's mkdocs.yml, docs/ "
                             "and overrides/ copied, the pages generated there); ROOT is left as it is")
    args = parser.parse_args(argv)
    if args.check and args.out:
        parser.error("--check and --out do not go together")
    root: Path = args.root or default_root()
    try:
        if args.out:
            todo = export(root, args.out, args.records)
        else:
            todo = plan(root, args.records) if args.check else generate(root, args.records)
    except SiteError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"{GENERATOR}: {exc}", file=sys.stderr)
        return 2
    stale = todo.stale()
    if args.check:
        for item in stale:
            print(f"stale: {item}", file=sys.stderr)
        if stale:
            print(f"run `{GENERATOR}` to regenerate", file=sys.stderr)
        return 1 if stale else 0
    for item in stale:
        print(f"wrote: {item}" if "(no such record or release)" not in item else f"removed: {item}")
    if not stale:
        print("up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The catalogue's search: what each record is found by, and how that reaches the site's search index.

Material for MkDocs indexes every page section by its heading (``title``) and its text; a record page names many
GPUs and flags in passing (an example that passes on a B200, a flag every example launch carries), so plain text
ranks records by what they mention, not by what they are about. Each record therefore gets three extra search
fields, generated here into ``docs/data/search-terms.json`` and merged into the built index by :func:`on_post_build`
(a MkDocs hook, ``hooks:`` in ``mkdocs.yml``; the fields' weights are the search plugin's ``fields:`` there):

* ``about``: the GPUs the record's trigger holds on, decided by the linter's own evaluation for every catalogue GPU
  (``site_setup``), each with its aliases, architecture family, compute capability or AMD target. A GPU a record
  names only as an unaffected or passing example is never here. Records that do not depend on the GPU have none.
* ``kw``: the flags, environment variables, build options and facts the record is about: those its trigger reads
  or its fix sets, and those its title, summary, cause, fix and message name (not those an example launch happens
  to carry). A flag is one token, its words joined by ``_`` (``--max-model-len`` is ``max_model_len``), which is
  the form the page's query transform gives a flag typed with its dashes (``docs/javascripts/search-worker.js``).
* ``flags``: the flags of ``kw`` again, in a field of their own, so that a record a flag is for ranks above one
  whose env var or backend name happens to read the same (``--flash-attn`` finds RL506, the flag, before RL207,
  whose ``FLASH_ATTN`` is an attention backend).
* ``mentions``: for a record that does not depend on the GPU, the GPUs its title and summary name; for one whose
  trigger holds on a large share of the catalogue (every GPU without native FP4), those GPUs.

The record page's first search entry also gets the summary as its text, so that a result shows what the record
is about.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from relialint.core.triggers import of

SEARCH_TERMS = "data/search-terms.json"
FIELDS = ("about", "flags", "kw", "mentions")
SPECIFIC_SHARE = 0.25
"""A record whose trigger holds on at most this share of the catalogue's GPUs is about them (``about``)."""

_LONG_FLAG = re.compile(r"(?<![\w-])--[a-zA-Z][a-zA-Z0-9]*(?:[-_.][a-zA-Z0-9]+)*")
_SHORT_FLAG = re.compile(r"(?<![\w-])-[a-zA-Z]{1,4}(?![\w-])")
_ENV_NAME = re.compile(r"(?<![\w.-])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?![\w])")
_CMAKE_OPTION = re.compile(r"-D([A-Z][A-Z0-9_]+)=")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.DOTALL)
_WORD_SEPARATOR = re.compile(r'[\s\-,:;!=\[\]()"`/|*]+|&[lg]t;')
"""The index's own separator (``mkdocs.yml``, search ``separator``), for splitting names into the tokens search
matches."""


def flag_token(flag: str) -> str:
    """A flag as one search token: no leading dashes, words joined by ``_`` (``--kv-cache-dtype``:
    ``kv_cache_dtype``)."""
    return re.sub(r"[-.]", "_", flag.lstrip("-")).lower()


def _uniq(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(i for i in items if i))


# -- what a record is about --------------------------------------------------------------------------------------


@dataclass
class About:
    """The names a record is found by: flags (as written, ``--max-model-len``), environment variables and build
    options, the facts its trigger reads, and the GPUs it is about (catalogue names, most specific first)."""

    flags: list[str] = field(default_factory=list)
    env: list[str] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)
    gpus: list[str] = field(default_factory=list)
    """Catalogue GPUs on which the trigger holds (not those the catalogue cannot decide)."""
    mentioned: list[str] = field(default_factory=list)
    """For a record that does not depend on the GPU: catalogue GPUs its title and summary name."""


def _prose(data: Mapping[str, Any]) -> str:
    """The parts of a record that say what it is about (examples and evidence set-ups left out)."""
    trigger = data.get("trigger") or {}
    parts = [str(data.get(k) or "") for k in ("title", "summary", "symptom", "cause", "fix", "detect")]
    return "\n".join([*parts, str(trigger.get("message") or "")])


def _option_flags(key: str, engines: Sequence[str]) -> list[str]:
    """The options that set a fact key (``flag.vllm.X`` is ``--X``), by the engines of the record (every engine
    relialint ships when it names none): each engine says which of its options set the key."""
    from relialint.engines.registry import default_registry

    for engine in default_registry().versioned():
        if key.startswith(f"flag.{engine.name}."):
            return engine.option_flags(key)
    out: list[str] = []
    for engine in default_registry().versioned():
        if not engines or engine.name in engines:
            out += engine.option_flags(key)
    return out


def record_about(data: Mapping[str, Any]) -> About:
    """What a record is about (see the module's docstring)."""
    from relialint.core.hardware import catalogue
    from relialint.site.setup import record_gpus

    trigger = data.get("trigger") or {}
    engines = list(data.get("engines") or [])
    compiled = of(data) if trigger.get("when") else None
    prose = _prose(data)
    spans = " ".join(m.group(2) for m in _CODE_SPAN.finditer(prose))
    title = str(data.get("title") or "")

    facts = [leaf.key for leaf in compiled.leaves] if compiled is not None else []
    edits = [str(k) for k in ((trigger.get("fix_edit") or {}).get("set") or {})]
    flags: list[str] = []
    env: list[str] = []
    for key in [*facts, *edits]:
        flags += _option_flags(key, engines)
        if key.startswith(("env.", "build.")):
            env.append(key.split(".", 1)[1])
    flags += [m.group(0).rstrip(".") for m in _LONG_FLAG.finditer(prose)]
    flags += [m.group(0) for m in _SHORT_FLAG.finditer(title + " " + spans)]
    env += [m.group(1) for m in _CMAKE_OPTION.finditer(prose)]
    env += [m.group(0) for m in _ENV_NAME.finditer(title + " " + spans)]

    gpus = specific_gpus([name for name, sure in record_gpus(data).items() if sure])
    mentioned: list[str] = []
    if not gpus:
        text = title + "\n" + str(data.get("summary") or "")
        for gpu in catalogue():
            names = [gpu.name, *(a for a in gpu.aliases if len(a) > 4 and not a.isdigit())]
            if any(re.search(rf"(?<![\w.-]){re.escape(n)}(?![\w-])", text) for n in names):
                mentioned.append(gpu.name)
    return About(flags=_uniq(flags), env=_uniq(env), facts=_uniq([*facts, *edits]), gpus=gpus, mentioned=mentioned)


def specific_gpus(names: Sequence[str]) -> list[str]:
    """``names``, unless they are every catalogue GPU of each vendor among them: a record that holds on any NVIDIA
    GPU (a CUDA-backend record, which a vendor decides) is about the backend, not about Volta or Hopper, and listing
    each architecture would rank it above the records that are (``Volta`` finding RL133 before RL207)."""
    from relialint.core.hardware import catalogue

    chosen = set(names)
    vendors = {g.vendor for g in catalogue() if g.name in chosen}
    if chosen and all(g.name in chosen for g in catalogue() if g.vendor in vendors):
        return []
    return list(names)


def gpu_summary(names: Sequence[str]) -> list[str]:
    """GPUs for a reader, shortest first: a family whose every catalogue GPU is listed is named once (Hopper),
    the rest by name; then their compute capabilities (``sm_90``) and AMD targets (``gfx1151``)."""
    from relialint.core.hardware import catalogue

    chosen = [g for g in catalogue() if g.name in set(names)]
    families = _uniq(g.family or "" for g in chosen)
    whole = [f for f in families if all(g.name in set(names) for g in catalogue() if g.family == f)]
    out = whole + [g.name for g in chosen if g.family not in whole]
    out += _uniq(f"sm_{str(g.sm).replace('.', '')}" for g in chosen if g.sm is not None)
    out += _uniq(g.arch or "" for g in chosen)
    return out


def _gpu_tokens(name: str) -> list[str]:
    """One GPU's search tokens, each once: its name and aliases, family, compute capability in its three spellings
    (``9.0``, ``sm_90``, ``sm90``) or AMD target."""
    from relialint.core.hardware import catalogue

    gpu = next(g for g in catalogue() if g.name == name)
    words = [gpu.family or "", gpu.arch or ""]
    if gpu.sm is not None:
        digits = str(gpu.sm).replace(".", "")
        words += [str(gpu.sm), f"sm_{digits}", f"sm{digits}"]
    shared = _shared_tokens()
    named = [t for n in (gpu.name, *gpu.aliases) for t in _tokens(n) if t not in shared or _tokens(n) == [t]]
    return _uniq([*named, *(t for w in words for t in _tokens(w))])


def _tokens(text: str) -> list[str]:
    return [t.lower() for t in _WORD_SEPARATOR.split(text) if t]


@lru_cache(maxsize=1)
def _shared_tokens() -> frozenset[str]:
    """Words of names and aliases that GPUs of more than one family share (``rtx``, ``nvidia``, ``sxm``, ``dgx``,
    ``80gb``): they tell no GPU apart, so a search for them would rank every GPU-dependent record alike (a name that
    is one such word, ``Thor``, keeps it)."""
    from relialint.core.hardware import catalogue

    families: dict[str, set[str]] = {}
    for gpu in catalogue():
        for alias in (gpu.name, *gpu.aliases):
            for token in _tokens(alias):
                families.setdefault(token, set()).add(gpu.family or gpu.name)
    return frozenset(t for t, fams in families.items() if len(fams) > 1)


def terms(data: Mapping[str, Any]) -> dict[str, str]:
    """The record's extra search fields and the text of its first search entry. A record whose trigger holds on
    more than :data:`SPECIFIC_SHARE` of the catalogue (every GPU without native FP4) is not *about* any one of
    them: its GPUs go with the weaker ``mentions``, so that a search for a GPU or a family ranks the records made
    for it first."""
    from relialint.core.hardware import catalogue

    about = record_about(data)
    kw = [str(data["id"]), str(data["slug"]), *(flag_token(f) for f in about.flags), *about.env, *about.facts]
    specific = len(about.gpus) <= SPECIFIC_SHARE * len(catalogue())
    strong = about.gpus if specific else []
    weak = about.mentioned if specific else about.gpus
    return {
        "about": " ".join(t for g in strong for t in _gpu_tokens(g)),
        "flags": " ".join(_uniq(flag_token(f) for f in about.flags)),
        "kw": " ".join(_uniq(kw)),
        "mentions": " ".join(t for g in weak for t in _gpu_tokens(g)),
        "summary": _summary_html(str(data.get("summary") or "")),
    }


def _summary_html(text: str) -> str:
    """The summary as the index holds a section's text: a ``<p>``, code spans as ``<code>``."""
    import html

    folded = " ".join(text.split())
    out: list[str] = []
    pos = 0
    for m in _CODE_SPAN.finditer(folded):
        code = html.escape(m.group(2).strip(), quote=False)
        out += [html.escape(folded[pos:m.start()], quote=False), f"<code>{code}</code>"]
        pos = m.end()
    out.append(html.escape(folded[pos:], quote=False))
    return "<p>" + "".join(out) + "</p>"


def terms_json(records: Sequence[Mapping[str, Any]]) -> str:
    """``docs/data/search-terms.json``: the extra search fields of every record, by record id."""
    table = {str(r["id"]): terms(r) for r in sorted(records, key=lambda r: str(r["id"]))}
    return json.dumps(table, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


# -- the built index ---------------------------------------------------------------------------------------------


RECORD_TERMS = "search/record-terms.json"
"""Written beside the built index: each record's search tokens, which the catalogue's filter matches
(``docs/javascripts/catalogue.js``), so that the filter and search find a record by the same words."""
INDEXED = ("title", "text", "tags", *FIELDS)
"""The fields of an entry lunr indexes (Material's three and :data:`FIELDS`)."""
RELEASE_LISTINGS = ("records-entered", "records-left")
"""Sections of a release page that list records by title: each record has its own entry, and a GPU or flag in a
title would rank the release page with the record."""
_RECORD_PAGE = re.compile(r"records/(RL[0-9]+)/")
_RELEASE_PAGE = re.compile(r"releases/[^/#]+/")
_GPU_SECTION = re.compile(r"hardware/[^/#]+/#gpu-[^/#]+")
_FIRST_PARAGRAPH = re.compile(r"<p>.*?</p>", re.DOTALL)
_TAG = re.compile(r"<[^>]*>")
_CODE = re.compile(r"<code>(.*?)</code>", re.DOTALL)


def index_tokens(entry: Mapping[str, Any]) -> set[str]:
    """The tokens lunr holds for an index entry, as Material's tokenizer makes them: the text between tags of each
    indexed field, split by the separator, in lower case; the search plugin's ``pipeline`` is empty, so nothing is
    stemmed or dropped."""
    out: set[str] = set()
    for name in INDEXED:
        value = entry.get(name)
        for text in value if isinstance(value, list) else [value] if isinstance(value, str) else []:
            for block in _TAG.split(str(text)):
                out.update(_tokens(block))
    return out


def page_flags(entry: Mapping[str, Any]) -> list[str]:
    """The flags an entry of a page other than a record shows, as search tokens (``kw``): long flags in its title
    and text, short ones (``-fa``) in its code. The separator splits ``--max-model-len`` into words in the text;
    this keeps the flag whole, as a flag typed with its dashes is searched."""
    title, text = str(entry.get("title") or ""), str(entry.get("text") or "")
    plain = _TAG.sub(" ", title + " " + text)
    code = " ".join(_CODE.findall(text))
    flags = [m.group(0).rstrip(".") for m in _LONG_FLAG.finditer(plain)]
    flags += [m.group(0) for m in _SHORT_FLAG.finditer(code)]
    return _uniq(flag_token(f) for f in flags)


def _kept(doc: Mapping[str, Any]) -> bool:
    """Whether an entry the search plugin made stays: a record page's first entry (its title; the summary is its
    text) but none of its sections (examples, evidence set-ups, trigger YAML, version tables, references name GPUs
    and flags the record is not about); a release page without the sections that list records or list nothing
    (a heading ending "(0)")."""
    page, _, anchor = str(doc.get("location", "")).partition("#")
    if _RECORD_PAGE.fullmatch(page):
        return not anchor
    if _RELEASE_PAGE.fullmatch(page) and anchor:
        return anchor not in RELEASE_LISTINGS and not str(doc.get("title", "")).endswith("(0)")
    return True


def merge_index(index: dict[str, Any], table: Mapping[str, Mapping[str, str]]) -> list[str]:
    """Make the built index hold what users search (in place): a record page is one entry, its title and summary
    (the result's snippet) with every field of ``table``; other pages keep their sections, with the flags they show
    as ``kw``, less the release sections that list records and those that list nothing (a title ending "(0)"); a
    GPU's section of a hardware page keeps its name and facts, not the records it lists.
    Returns the problems: a configured field missing from the search plugin's ``fields``, a ``pipeline`` that
    changes tokens (the catalogue's filter matches them as the index splits them), a record page with no terms,
    terms of a page the index lacks."""
    config = index.get("config") or {}
    problems = [f"mkdocs.yml: the search plugin's fields lack {name!r}" for name in FIELDS
                if name not in config.get("fields", {})]
    if config.get("pipeline"):
        problems.append(f"mkdocs.yml: the search plugin's pipeline must be empty, not {config['pipeline']!r}")
    seen: set[str] = set()
    docs: list[dict[str, Any]] = []
    for doc in index.get("docs") or []:
        if not _kept(doc):
            continue
        docs.append(doc)
        if _GPU_SECTION.fullmatch(str(doc.get("location", ""))):
            # a GPU's section of a hardware page: its name and facts; the records it lists have their own entries,
            # and their titles and options would rank the GPU's page with each of them
            first = _FIRST_PARAGRAPH.search(str(doc.get("text") or ""))
            doc["text"] = first.group(0) if first else ""
        match = _RECORD_PAGE.fullmatch(str(doc.get("location", "")))
        if not match:
            if flags := page_flags(doc):
                doc["kw"] = " ".join(flags)
            continue
        rid = match.group(1)
        entry = table.get(rid)
        if entry is None:
            problems.append(f"{SEARCH_TERMS}: no search terms for {rid}; run `python -m relialint.site`")
            continue
        seen.add(rid)
        for name in FIELDS:
            if entry.get(name):
                doc[name] = entry[name]
        doc["text"] = entry.get("summary") or ""
    index["docs"] = _fold_prefaces(docs)
    problems += [f"{SEARCH_TERMS}: terms for {rid}, which has no page in the index"
                 for rid in sorted(set(table) - seen)]
    return problems


def _fold_prefaces(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Material gives a page whose first heading follows other markup (a release page) an empty entry for the page
    and one for its first heading, with the same title: one result twice. The heading's text goes to the page's
    entry, which a result links to, and the heading's entry is left out."""
    out: list[dict[str, Any]] = []
    for doc in docs:
        prev = out[-1] if out else None
        if (prev is not None and "#" not in str(prev.get("location")) and not str(prev.get("text", "")).strip()
                and str(doc.get("location", "")).startswith(f"{prev.get('location')}#")
                and doc.get("title") == prev.get("title")):
            prev["text"] = doc.get("text", "")
            if doc.get("kw"):
                prev["kw"] = doc["kw"]
            continue
        out.append(doc)
    return out


def record_terms(index: Mapping[str, Any]) -> dict[str, list[str]]:
    """Each record's search tokens (:func:`index_tokens` of its entry in the merged index), by record id."""
    out: dict[str, list[str]] = {}
    for doc in index.get("docs") or []:
        if match := _RECORD_PAGE.fullmatch(str(doc.get("location", ""))):
            out[match.group(1)] = sorted(index_tokens(doc))
    return dict(sorted(out.items()))


def on_post_build(config: Any, **_: Any) -> None:
    """MkDocs hook: merge ``docs/data/search-terms.json`` into ``site/search/search_index.json`` (after the search
    plugin wrote it) and write :data:`RECORD_TERMS` beside it. A problem is logged as a warning, which fails
    ``mkdocs build --strict``."""
    log = logging.getLogger("mkdocs.hooks.relialint")
    index_path = Path(config["site_dir"]) / "search" / "search_index.json"
    terms_path = Path(config["docs_dir"]) / SEARCH_TERMS
    if not index_path.is_file():
        return
    try:
        table = json.loads(terms_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        log.warning("%s: %s; run `python -m relialint.site`", terms_path, exc)
        return
    index = json.loads(index_path.read_text(encoding="utf-8"))
    for problem in merge_index(index, table):
        log.warning(problem)
    index_path.write_text(json.dumps(index, separators=(",", ":"), ensure_ascii=False), encoding="utf-8")
    (Path(config["site_dir"]) / RECORD_TERMS).write_text(
        json.dumps(record_terms(index), separators=(",", ":"), ensure_ascii=False), encoding="utf-8")


on_post_build.mkdocs_priority = -100  # type: ignore[attr-defined]  # after the search plugin writes the index

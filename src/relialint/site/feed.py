"""The catalogue as data for other tools: ``docs/catalogue.json`` (every record, with its page URL) and
``docs/feed.xml`` (an Atom feed of the records, newest change first). Both are written by ``python -m
relialint.site.build`` and compared by the stale check like the pages; neither holds the time it was made, so the same
records always give the same bytes.
"""

from __future__ import annotations

import datetime
import json
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from relialint import SITE_URL, __version__, record_url
from relialint.site.markup import fold

if TYPE_CHECKING:
    from relialint.site.common import SiteRecord

CATALOGUE_FILE = "catalogue.json"
FEED_FILE = "feed.xml"
FEED_TITLE = "relialint: new and changed records"
ATOM = "http://www.w3.org/2005/Atom"
CATALOGUE_FORMAT = 1
"""Bumped when a field of ``catalogue.json`` changes meaning or goes away (new fields do not bump it)."""


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    return value


def record_entry(rec: SiteRecord) -> dict[str, Any]:
    """One record as the JSON export gives it: its fields as in the record file, plus where its page is."""
    from relialint.site.fix import before_after
    from relialint.site.versions import versions

    data = _plain(rec.data)
    entry: dict[str, Any] = {"id": rec.id, "url": record_url(rec.id), "page": f"records/{rec.id}/",
                             "json": f"records/{rec.id}.json",
                             "affected_versions": versions(rec.data).status}
    pair = before_after(rec.data)
    if pair is not None:
        entry["fix_example"] = {"format": pair.format, "before": pair.before, "after": pair.after,
                                "given": _plain(pair.context)}
    entry["record"] = data
    return entry


def catalogue_json(records: Sequence[SiteRecord]) -> str:
    doc = {
        "format": CATALOGUE_FORMAT,
        "generator": f"relialint {__version__} (python -m relialint.site)",
        "site": SITE_URL,
        "feed": SITE_URL + FEED_FILE,
        "count": len(records),
        "records": [record_entry(r) for r in records],
    }
    return json.dumps(doc, indent=1, ensure_ascii=False, sort_keys=False) + "\n"


def _stamp(day: object) -> str:
    return f"{day}T00:00:00Z"


def feed_order(records: Sequence[SiteRecord]) -> list[SiteRecord]:
    """Newest change first; records changed on the same day by id."""
    by_id = sorted(records, key=lambda r: r.id)
    return sorted(by_id, key=lambda r: str(r.data["modified"]), reverse=True)


def atom_feed(records: Sequence[SiteRecord]) -> str:
    ET.register_namespace("", ATOM)

    def sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
        el = ET.SubElement(parent, f"{{{ATOM}}}{tag}", attrs)
        if text is not None:
            el.text = text
        return el

    from relialint.engines.registry import default_registry

    engines = ", ".join(engine.label for engine in default_registry().versioned())
    ordered = feed_order(records)
    feed = ET.Element(f"{{{ATOM}}}feed")
    sub(feed, "id", SITE_URL + FEED_FILE)
    sub(feed, "title", FEED_TITLE)
    sub(feed, "subtitle", f"Silent failures of LLM serving engines ({engines}): each record's page, newest "
                          "change first.")
    sub(feed, "link", rel="self", type="application/atom+xml", href=SITE_URL + FEED_FILE)
    sub(feed, "link", rel="alternate", type="text/html", href=SITE_URL + "records/")
    sub(feed, "updated", _stamp(max((str(r.data["modified"]) for r in records), default="1970-01-01")))
    author = sub(feed, "author")
    sub(author, "name", "relialint")
    sub(feed, "generator", "relialint", version=__version__)
    for rec in ordered:
        d = rec.data
        entry = sub(feed, "entry")
        sub(entry, "id", record_url(rec.id))
        sub(entry, "title", f"{rec.id}: {fold(d['title'])}")
        sub(entry, "link", rel="alternate", type="text/html", href=record_url(rec.id))
        sub(entry, "published", _stamp(d["published"]))
        sub(entry, "updated", _stamp(d["modified"]))
        for term in (d["severity"], d["impact"], *(d.get("engines") or ["engine-independent"])):
            sub(entry, "category", term=str(term))
        changed = "New record" if str(d["modified"]) == str(d["published"]) else \
            f"Updated {d['modified']} (first published {d['published']})"
        summary = fold(d["summary"])
        sub(entry, "summary", f"{changed}. {summary}", type="text")
        fix = fold(d["fix"])
        sub(entry, "content", f"{changed}.\n\n{summary}\n\nFix: {fix}", type="text")
    ET.indent(feed, space=" ")
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(feed, encoding="unicode") + "\n"

"""One record as OSV-like JSON at a stable URL: ``docs/records/<ID>.json``, served as ``/records/<ID>.json``.

The fields follow the OSV schema's names (https://ossf.github.io/osv-schema/) where they mean the same thing, so a
tool that reads OSV reads most of it:

* ``id``, ``published``, ``modified`` (RFC 3339), ``summary`` (the record's title), ``details`` (its summary,
  symptom, cause and fix as plain text);
* ``aliases``: the upstream issue and PR pages the record names (its ``report`` and ``fix`` references on
  GitHub). OSV's aliases are ids; an upstream issue has no id but its URL;
* ``affected``: per engine range, the package (PyPI for engines versioned by PEP 440; the GitHub repository for
  engines versioned by build number, whose builds are its tags) and one ``ECOSYSTEM`` range of ``introduced`` /
  ``fixed`` / ``last_affected`` events as the record gives them, ``versions`` the versions it was seen on. A range
  with no first affected version has no events (OSV cannot say "unknown start"); ``database_specific`` keeps the
  bounds OSV has no word for (``last_known_good``) and says that the versions the record does not cover are
  "not checked", never unaffected;
* ``references``: each reference with a URL, typed (``REPORT``, ``FIX``, ``WEB``, ``ARTICLE``); the ones with none
  (the seed chapter, a wheel's file) stay in ``database_specific.sources``;
* ``database_specific``: severity, impact, engines, the trigger as written (``when``, message, locate), the
  versions status, the page URL.

Written by ``python -m relialint.site`` with the pages and checked for staleness like them; the same record
always gives the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from relialint import record_url
from relialint.site.cite import GITHUB_ISSUE, record_repository, reference_url
from relialint.site.markup import fold

if TYPE_CHECKING:
    from relialint.site.common import SiteRecord

REFERENCE_TYPES = {"report": "REPORT", "fix": "FIX", "upstream": "WEB", "source": "ARTICLE"}
NOT_CHECKED = "not checked"


def json_path(record_id: str) -> str:
    """The file of a record's JSON, relative to ``docs/``."""
    return f"records/{record_id}.json"


def _stamp(day: object) -> str:
    return f"{day}T00:00:00Z"


def _package(engine_name: str) -> dict[str, str]:
    """The OSV package of an engine: PyPI where versions are PEP 440 (the package is named as the engine), the
    GitHub repository where they are build tags."""
    from relialint.engines.registry import default_registry

    engine = default_registry().get(engine_name)
    if engine is not None and engine.scheme == "pep440":
        return {"ecosystem": "PyPI", "name": engine.name, "purl": f"pkg:pypi/{engine.name}"}
    repo = engine.repository if engine is not None else None
    if repo:
        return {"ecosystem": "GitHub", "name": repo, "purl": f"pkg:github/{repo}"}
    return {"ecosystem": "relialint", "name": engine_name}


def affected(data: dict[str, Any]) -> list[dict[str, Any]]:
    """One entry per ``trigger.affected`` range of the record."""
    from relialint.site.versions import EVERY_VERSION, range_status

    out: list[dict[str, Any]] = []
    for rng in (data.get("trigger") or {}).get("affected") or []:
        events: list[dict[str, str]] = []
        if rng.get("introduced"):
            events.append({"introduced": "0" if rng["introduced"] in EVERY_VERSION else str(rng["introduced"])})
            if rng.get("fixed"):
                events.append({"fixed": str(rng["fixed"])})
            elif rng.get("last_affected"):
                events.append({"last_affected": str(rng["last_affected"])})
        specific: dict[str, Any] = {"status": range_status(rng)}
        for key in ("last_known_good", "last_affected", "fixed"):
            if rng.get(key) and not any(key in e for e in events):
                specific[key] = str(rng[key])
        unchecked = []
        if not rng.get("introduced"):
            unchecked.append("the first affected version")
        elif rng["introduced"] not in EVERY_VERSION:
            unchecked.append(f"versions before {rng['introduced']}"
                             + (f" (except {rng['last_known_good']}, last known good)"
                                if rng.get("last_known_good") else ""))
        if rng.get("fixed") and rng.get("last_affected"):
            unchecked.append(f"versions between {rng['last_affected']} and {rng['fixed']}")
        elif rng.get("last_affected") and not rng.get("fixed"):
            unchecked.append(f"versions after {rng['last_affected']}")
        elif not rng.get("fixed") and range_status(rng) != "every":
            unchecked.append("whether any version fixes it")
        specific[NOT_CHECKED.replace(" ", "_")] = unchecked
        entry: dict[str, Any] = {"package": _package(str(rng["engine"]))}
        if events:
            entry["ranges"] = [{"type": "ECOSYSTEM", "events": events}]
        if rng.get("observed"):
            entry["versions"] = [str(v) for v in rng["observed"]]
        entry["database_specific"] = specific
        out.append(entry)
    return out


def aliases(data: dict[str, Any]) -> list[str]:
    """The GitHub issue and PR pages among the record's report and fix references, in the record's order."""
    repo = record_repository(data)
    out: list[str] = []
    for ref in data.get("references") or []:
        url = reference_url(ref, repo) if ref["kind"] in ("report", "fix") else None
        if url and GITHUB_ISSUE.match(url) and url not in out:
            out.append(url)
    return out


def record_osv(data: dict[str, Any]) -> dict[str, Any]:
    """The record as an OSV-like document."""
    from relialint.site.versions import versions

    repo = record_repository(data)
    references: list[dict[str, str]] = []
    sources: list[dict[str, str]] = []
    for ref in data.get("references") or []:
        url = reference_url(ref, repo)
        if url:
            references.append({"type": REFERENCE_TYPES.get(str(ref["kind"]), "WEB"), "url": url})
        else:
            sources.append({k: fold(ref[k]) for k in ("kind", "title", "locator") if ref.get(k)})
    trigger = data.get("trigger") or {}
    details = "\n\n".join(fold(data[k]) if k == "summary" else f"{k.capitalize()}: {fold(data[k])}"
                          for k in ("summary", "symptom", "cause", "fix") if data.get(k))
    return {
        "id": str(data["id"]),
        "modified": _stamp(data["modified"]),
        "published": _stamp(data["published"]),
        "withdrawn": _stamp(data["modified"]) if data.get("status") == "withdrawn" else None,
        "aliases": aliases(data),
        "summary": fold(data["title"]),
        "details": details,
        "affected": affected(data),
        "references": references,
        "database_specific": {
            "url": record_url(str(data["id"])),
            "slug": str(data["slug"]),
            "severity": str(data["severity"]),
            "impact": str(data["impact"]),
            "engines": [str(e) for e in data.get("engines") or []],
            "affected_versions": versions(data).status,
            "trigger": _plain({k: trigger[k] for k in ("when", "message", "locate") if k in trigger}) or None,
            "runtime_trigger": _plain({k: data["runtime_trigger"][k] for k in ("when", "message")
                                       if k in data["runtime_trigger"]}) if data.get("runtime_trigger") else None,
            "sources": sources,
        },
    }


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def record_json(data: dict[str, Any]) -> str:
    doc = record_osv(data)
    if doc["withdrawn"] is None:
        del doc["withdrawn"]
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def json_pages(records: Sequence[SiteRecord]) -> dict[str, str]:
    """Every record's JSON, by path relative to ``docs/``."""
    return {json_path(r.id): record_json(r.data) for r in records}

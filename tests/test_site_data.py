"""The catalogue as data: docs/catalogue.json and the Atom feed docs/feed.xml are fresh and say what the records say."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from relialint import SITE_URL, record_url
from relialint.site import build as site
from relialint.site import feed as site_feed
from tests.conftest import ROOT

RECORDS = ROOT / "records"
DOCS = ROOT / "docs"
A = "{http://www.w3.org/2005/Atom}"


@pytest.fixture(scope="module")
def records() -> list[site.SiteRecord]:
    return site.load_records(RECORDS)


def test_data_files_are_not_stale(tmp_path: Path) -> None:
    copy = tmp_path / "site"
    copy.mkdir()
    shutil.copy2(ROOT / "mkdocs.yml", copy / "mkdocs.yml")
    shutil.copytree(DOCS, copy / "docs")
    site.generate(copy, RECORDS)
    for name in (site_feed.CATALOGUE_FILE, site_feed.FEED_FILE):
        assert (DOCS / name).read_bytes() == (copy / "docs" / name).read_bytes(), \
            f"docs/{name} is stale; run `python -m relialint.site`"


def test_the_check_mode_sees_a_stale_data_file(tmp_path: Path) -> None:
    copy = tmp_path / "site"
    copy.mkdir()
    shutil.copy2(ROOT / "mkdocs.yml", copy / "mkdocs.yml")
    shutil.copytree(DOCS, copy / "docs")
    assert site.main(["--root", str(copy), "--records", str(RECORDS), "--check"]) == 0
    (copy / "docs" / site_feed.FEED_FILE).write_text("<feed/>\n", encoding="utf-8")
    assert site.main(["--root", str(copy), "--records", str(RECORDS), "--check"]) == 1


def test_catalogue_json_holds_every_record_with_its_page(records: list[site.SiteRecord]) -> None:
    doc = json.loads((DOCS / site_feed.CATALOGUE_FILE).read_text(encoding="utf-8"))
    assert doc["format"] == 1
    assert doc["site"] == SITE_URL
    assert doc["feed"] == SITE_URL + "feed.xml"
    assert doc["count"] == len(records)
    assert [e["id"] for e in doc["records"]] == [r.id for r in records]
    by_id = {r.id: r for r in records}
    for entry in doc["records"]:
        rec = by_id[entry["id"]]
        assert entry["url"] == record_url(rec.id)
        assert entry["page"] == f"records/{rec.id}/"
        assert entry["record"]["title"] == rec.data["title"]
        assert entry["record"]["published"] == str(rec.data["published"])
        assert entry["record"]["references"] == json.loads(json.dumps(rec.data["references"]))
    rl101 = next(e for e in doc["records"] if e["id"] == "RL101")
    assert rl101["affected_versions"] == "known"  # 0.9.0-0.18.1, both bounds witnessed
    assert next(e for e in doc["records"] if e["id"] == "RL302")["affected_versions"] == "unknown"  # one measurement
    assert rl101["fix_example"]["format"] == "shell"
    assert rl101["fix_example"]["given"] == {"gpu": "RTX 4090", "engine_version": "0.15.0"}
    assert "--dtype float16" in rl101["fix_example"]["after"]
    assert next(e for e in doc["records"] if e["id"] == "RL540")["affected_versions"] == "known"
    assert "fix_example" not in next(e for e in doc["records"] if e["id"] == "RL401")


def _entries() -> tuple[ET.Element, list[ET.Element]]:
    feed = ET.fromstring((DOCS / site_feed.FEED_FILE).read_text(encoding="utf-8"))
    return feed, feed.findall(f"{A}entry")


def test_atom_feed_lists_records_newest_change_first(records: list[site.SiteRecord]) -> None:
    feed, entries = _entries()
    assert feed.tag == f"{A}feed"
    assert feed.findtext(f"{A}id") == SITE_URL + "feed.xml"
    assert feed.findtext(f"{A}title") == "relialint: new and changed records"
    newest = max(str(r.data["modified"]) for r in records)
    assert feed.findtext(f"{A}updated") == f"{newest}T00:00:00Z"
    assert feed.find(f"{A}link[@rel='self']").get("href") == SITE_URL + "feed.xml"  # type: ignore[union-attr]
    assert len(entries) == len(records)
    by_id = {r.id: r.data for r in records}
    seen: list[tuple[str, str]] = []
    for entry in entries:
        rid = str(entry.findtext(f"{A}title")).split(":", 1)[0]
        data: dict[str, Any] = by_id[rid]
        assert entry.findtext(f"{A}id") == record_url(rid)
        assert entry.find(f"{A}link").get("href") == record_url(rid)  # type: ignore[union-attr]
        assert entry.findtext(f"{A}published") == f"{data['published']}T00:00:00Z"
        assert entry.findtext(f"{A}updated") == f"{data['modified']}T00:00:00Z"
        terms = [c.get("term") for c in entry.findall(f"{A}category")]
        assert terms == [data["severity"], data["impact"], *(data.get("engines") or ["engine-independent"])]
        summary = str(entry.findtext(f"{A}summary"))
        if data["modified"] == data["published"]:
            assert summary.startswith("New record. ")
        else:
            assert summary.startswith(f"Updated {data['modified']} (first published {data['published']}). ")
        seen.append((str(data["modified"]), rid))
    assert seen == sorted(seen, key=lambda t: (-int(t[0].replace("-", "")), t[1]))


def test_feed_of_a_new_and_a_changed_record(records: list[site.SiteRecord]) -> None:
    import datetime

    old, new = records[0], records[1]
    changed = site.SiteRecord({**old.data, "published": datetime.date(2026, 1, 1),
                               "modified": datetime.date(2026, 3, 1)}, old.path, old.trigger_yaml)
    fresh = site.SiteRecord({**new.data, "published": datetime.date(2026, 2, 1),
                             "modified": datetime.date(2026, 2, 1)}, new.path, new.trigger_yaml)
    feed = ET.fromstring(site_feed.atom_feed([fresh, changed]))
    entries = feed.findall(f"{A}entry")
    assert [str(e.findtext(f"{A}title")).split(":")[0] for e in entries] == [old.id, new.id]
    assert feed.findtext(f"{A}updated") == "2026-03-01T00:00:00Z"
    assert str(entries[0].findtext(f"{A}summary")).startswith("Updated 2026-03-01 (first published 2026-01-01). ")
    assert str(entries[1].findtext(f"{A}summary")).startswith("New record. ")

"""The published catalogue: generated pages are fresh, every record has a page, the site builds strictly."""

from __future__ import annotations

import difflib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from relialint import SITE_URL, record_url
from relialint.kb.loader import record_files
from relialint.site import build as site
from tests.conftest import ROOT

RECORDS = ROOT / "records"
GENERATED_DIRS = ("records", "reference", "releases")


def _record_ids(folder: Path = RECORDS) -> list[str]:
    return sorted(p.name.split("-", 1)[0] for p in record_files(folder))


def _copy_site_sources(dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy2(ROOT / "mkdocs.yml", dest / "mkdocs.yml")
    shutil.copytree(ROOT / "docs", dest / "docs")
    return dest


def _diff(a: Path, b: Path) -> str:
    old = a.read_text(encoding="utf-8").splitlines() if a.exists() else []
    new = b.read_text(encoding="utf-8").splitlines()
    return "\n".join(list(difflib.unified_diff(old, new, str(a), str(b), lineterm=""))[:40])


def test_every_record_has_a_page_and_a_row() -> None:
    ids = _record_ids()
    assert ids
    index = (ROOT / "docs" / "records" / "index.md").read_text(encoding="utf-8")
    missing = [i for i in ids if not (ROOT / "docs" / "records" / f"{i}.md").is_file()]
    assert not missing, f"records without a page: {missing}; run `python -m relialint.site`"
    assert [i for i in ids if f'data-id="{i}"' not in index] == []
    pages = sorted(p.stem for p in (ROOT / "docs" / "records").glob("RL*.md"))
    assert pages == ids, "a page without a record, or a record without a page; run `python -m relialint.site`"


def test_generated_pages_are_not_stale(tmp_path: Path) -> None:
    """Regenerate into a copy of docs/ and mkdocs.yml and compare with the committed files."""
    copy = _copy_site_sources(tmp_path)
    site.generate(copy, RECORDS)
    stale: list[str] = []
    for folder in GENERATED_DIRS:
        fresh_files = {p.relative_to(copy) for p in (copy / "docs" / folder).rglob("*.md")}
        committed = {p.relative_to(ROOT) for p in (ROOT / "docs" / folder).rglob("*.md")}
        for rel in sorted(committed - fresh_files):
            stale.append(f"{rel}: no such record any more")
        for rel in sorted(fresh_files):
            if not (ROOT / rel).exists() or (ROOT / rel).read_bytes() != (copy / rel).read_bytes():
                stale.append(_diff(ROOT / rel, copy / rel) or str(rel))
    if (ROOT / "mkdocs.yml").read_bytes() != (copy / "mkdocs.yml").read_bytes():
        stale.append(_diff(ROOT / "mkdocs.yml", copy / "mkdocs.yml"))
    assert not stale, "generated site files are stale; run `python -m relialint.site`\n" + "\n".join(stale)


def test_site_url_is_the_package_setting() -> None:
    config = YAML(typ="safe").load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["site_url"] == SITE_URL
    assert record_url("RL101") == f"{SITE_URL}records/RL101/"
    page = (ROOT / "docs" / "records" / "RL101.md").read_text(encoding="utf-8")
    assert record_url("RL101") in page


def test_check_mode_and_new_and_removed_records(tmp_path: Path) -> None:
    copy = _copy_site_sources(tmp_path / "site")
    records = tmp_path / "records"
    shutil.copytree(RECORDS, records)
    assert site.main(["--root", str(copy), "--records", str(records)]) == 0
    assert site.main(["--root", str(copy), "--records", str(records), "--check"]) == 0

    # A new record (as others add RL5xx): the check fails, the generator writes its page and its nav entry.
    source = next(records.glob("RL101-*.yaml")).read_text(encoding="utf-8")
    new = source.replace("id: RL101", "id: RL199").replace(
        "slug: nvfp4-bf16-garbled-without-native-fp4", "slug: site-test-record")
    new = new.replace("related: [RL103, RL104]", "related: [RL101]")
    (records / "RL199-site-test-record.yaml").write_text(new, encoding="utf-8")
    assert site.main(["--root", str(copy), "--records", str(records), "--check"]) == 1
    assert not (copy / "docs" / "records" / "RL199.md").exists()
    assert site.main(["--root", str(copy), "--records", str(records)]) == 0
    page = (copy / "docs" / "records" / "RL199.md").read_text(encoding="utf-8")
    assert page.startswith("---\ntitle: \"RL199: ")
    assert "records/RL199.md" in (copy / "mkdocs.yml").read_text(encoding="utf-8")
    assert 'data-id="RL199"' in (copy / "docs" / "records" / "index.md").read_text(encoding="utf-8")
    assert "[RL101: " in page  # related, as a link
    assert site.main(["--root", str(copy), "--records", str(records), "--check"]) == 0

    # The record goes away: its page and nav entry go with it.
    (records / "RL199-site-test-record.yaml").unlink()
    assert site.main(["--root", str(copy), "--records", str(records), "--check"]) == 1
    assert site.main(["--root", str(copy), "--records", str(records)]) == 0
    assert not (copy / "docs" / "records" / "RL199.md").exists()
    assert "RL199" not in (copy / "mkdocs.yml").read_text(encoding="utf-8")


def test_a_broken_record_is_reported_not_rendered(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = _copy_site_sources(tmp_path / "site")
    records = tmp_path / "records"
    records.mkdir()
    (records / "RL198-broken.yaml").write_text("id: RL198\nslug: [unclosed\n", encoding="utf-8")
    assert site.main(["--root", str(copy), "--records", str(records)]) == 2
    assert "RL198-broken.yaml" in capsys.readouterr().err


def _data(rid: str) -> dict[str, object]:
    (loaded,) = [r for r in site.load_records(RECORDS) if r.id == rid]
    return dict(loaded.data)


@pytest.mark.parametrize(
    ("rid", "kind", "word"),
    [
        ("RL107", "env", "VLLM_USE_V2_MODEL_RUNNER"),
        ("RL105", "flags", "--kv-cache-dtype"),
        ("RL101", "gpus", "Ada Lovelace"),  # B200 is its passing example: not a keyword (tests/test_site_search.py)
        ("RL101", "flags", "--dtype"),
        ("RL108", "gpus", "gfx1151"),
        ("RL108", "gpus", "Strix Halo"),
    ],
)
def test_keywords_name_what_search_must_find(rid: str, kind: str, word: str) -> None:
    kw = site.keywords(_data(rid))
    assert word in getattr(kw, kind)
    page = (ROOT / "docs" / "records" / f"{rid}.md").read_text(encoding="utf-8")
    # issue 29: the record details are folded (an admonition's body is indented)
    keyword_line = next(line for line in page.splitlines() if line.lstrip().startswith("**Keywords:**"))
    assert f"`{word}`" in keyword_line


def test_record_page_holds_every_part() -> None:
    page = (ROOT / "docs" / "records" / "RL101.md").read_text(encoding="utf-8")
    for heading in ("## Fix", "## Symptom", "## Cause", "## Evidence", "## What to monitor", "## Affected versions",
                    "## Trigger", "## Examples", "## References", "## Related", "## Record details"):
        assert f"\n{heading}\n" in page, heading
    assert "tags:\n  - \"vllm\"\n  - \"blocker\"\n  - \"wrong-output\"" in page
    # issue 29: the trigger, the examples and the details are folded under their headings (indented bodies)
    assert "    ```yaml\n    trigger:\n      when:\n" in page
    assert "    ### Fires: " in page and "    ### Passes: " in page and "    ### Possible: " in page
    assert "\n## Silence it\n" in page and "\n## Upstream and versions { #aliases }\n" in page
    assert "the GPU's compute capability is below `10.0`" in page  # the trigger in plain English
    assert "| measured | setup |" in page


def test_markdown_escaping() -> None:
    assert site.md("SM < 100 and `a<b` *x*") == r"SM &lt; 100 and `a<b` \*x\*"
    assert site.cell("a | b `c|d`") == r"a \| b `c|d`"
    assert site.code("a`b") == "``a`b``"
    assert site.fenced("```\nx\n```", "sh").startswith("````sh\n")


@pytest.mark.slow
def test_mkdocs_build_strict(tmp_path: Path) -> None:
    out = tmp_path / "site"
    started = time.monotonic()
    config = str(ROOT / "mkdocs.yml")
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", config, "-d", str(out)]
    proc = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    elapsed = time.monotonic() - started
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for rid in _record_ids():
        assert (out / "records" / rid / "index.html").is_file(), rid
    index = json.loads((out / "search" / "search_index.json").read_text(encoding="utf-8"))
    text = " ".join(doc["title"] + " " + doc["text"] for doc in index["docs"]).lower()
    for word in ("vllm_use_v2_model_runner", "kv-cache-dtype", "b200", "gfx1151", "nvfp4-bf16-garbled"):
        assert word in text, word
    print(f"mkdocs build --strict: {elapsed:.1f} s")

"""Record pages: versions said honestly, references as links and citations, the fix first as a before/after."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from relialint.site import build as site
from relialint.site.cite import SEED_CHAPTERS, CitationError, reference_markdown, seed_citation
from relialint.site.fix import before_after, names_the_fix
from relialint.site.versions import range_status, versions
from tests.conftest import ROOT
from tests.seed_excerpts import excerpts

RECORDS = ROOT / "records"
PAGES = ROOT / "docs" / "records"


@pytest.fixture(scope="module")
def records() -> dict[str, dict[str, Any]]:
    return {r.id: r.data for r in site.load_records(RECORDS)}


def _page(rid: str) -> str:
    return (PAGES / f"{rid}.md").read_text(encoding="utf-8")


# -- versions ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rng", "status"),
    [
        ({"engine": "vllm", "introduced": "0.8.5", "fixed": "0.10.0"}, "known"),
        ({"engine": "vllm", "introduced": "0.10.0", "last_affected": "0.14.0"}, "bounded"),
        ({"engine": "vllm", "last_known_good": "0.26.0", "observed": ["0.30.0"]}, "bounded"),
        ({"engine": "vllm", "fixed": "0.28.0"}, "bounded"),
        ({"engine": "vllm", "observed": ["0.23.1rc1"]}, "unknown"),
        ({"engine": "vllm", "introduced": "0"}, "every"),
        ({"engine": "vllm", "introduced": "0", "fixed": "0.5.0"}, "known"),
        ({"engine": "llama.cpp", "introduced": "b0"}, "every"),
    ],
)
def test_range_status(rng: dict[str, Any], status: str) -> None:
    assert range_status(rng) == status


def test_no_record_claims_every_version_without_saying_so(records: dict[str, dict[str, Any]]) -> None:
    for rid, data in records.items():
        says_every = any(range_status(r) == "every" for r in (data.get("trigger") or {}).get("affected") or [])
        page = _page(rid)
        section = page.split("## Affected versions", 1)[1].split("\n## ", 1)[0]
        meta = next(line for line in page.splitlines() if "versions: " in line and "rl-sev" in line)
        assert ("every version" in section.lower()) == says_every, rid
        assert ("versions: every version" in meta) == says_every, rid


def test_versions_of_each_kind_of_record(records: dict[str, dict[str, Any]]) -> None:
    statuses = {rid: versions(d).status for rid, d in records.items()}
    assert statuses["RL101"] == "known"  # introduced and fixed, both witnessed
    assert statuses["RL106"] == "bounded"  # introduced, last affected (unwitnessed) and the version it was seen on
    assert statuses["RL206"] == "bounded"  # last known good and observed
    assert statuses["RL502"] == "bounded"  # introduced, last affected, last known good
    assert statuses["RL540"] == "known"  # introduced and fixed
    assert statuses["RL401"] == "not-applicable"  # engine-independent knowledge
    assert statuses["RL507"] == "per-version"  # per-version option tables
    assert statuses["RL506"] == "per-version"  # the trigger tests engine.version itself
    no_range = {**records["RL116"], "trigger": {k: v for k, v in records["RL116"]["trigger"].items()
                                                 if k != "affected"}}  # a trigger with no range
    assert versions(no_range).status == "unknown"
    assert "no version range, so which vLLM versions have this failure is not known" in " ".join(
        versions(no_range).text)
    rl502 = "\n".join(versions(records["RL502"]).text)
    assert "**vLLM: bounded.** Affected from `0.10.0`; still affected in `0.33.0`, and no fixed version is known." \
        in rl502
    assert "| last known good | `0.9.2` |" in rl502
    assert "`args.unknown_option`" in " ".join(versions(records["RL507"]).text)
    assert "args.unknown_option_certain" not in " ".join(versions(records["RL507"]).text)


def test_bound_sources_are_shown_beside_their_bound() -> None:
    data = {"engines": ["vllm"], "trigger": {"when": {"fact": "engine.name", "eq": "vllm"}, "affected": [
        {"engine": "vllm", "introduced": "0.8.0", "fixed": "0.8.3",
         "bound_sources": {"fixed": "the first release with the fixing commit of PR #15466"}}]}}
    text = "\n".join(versions(data).text)
    assert "| fixed (first good) | `0.8.3` | the first release with the fixing commit of PR #15466 |" in text
    assert "| introduced (first affected) | `0.8.0` | not stated |" in text
    assert versions(data).status == "known"


# -- references -------------------------------------------------------------------------------------------------

_ISSUE_OR_PR = re.compile(r"\b(?:issue|PR|pull request)s? #(\d+)", re.IGNORECASE)


def test_every_issue_or_pr_a_reference_names_is_its_link(records: dict[str, dict[str, Any]]) -> None:
    """An upstream issue or pull request a reference names by number is linked, by that reference or by another of
    the record's (a fix's reference may name the issues it fixes, each cited on its own; numbers checked by hand); a
    link to one of its comments (RL244's to PR 13194's) links it too."""
    missing: list[str] = []
    for rid, data in records.items():
        urls = [str(ref.get("url") or "") for ref in data["references"]]
        for ref in data["references"]:
            for number in _ISSUE_OR_PR.findall(f"{ref['title']} {ref.get('locator') or ''}"):
                if not any(re.search(rf"/(?:issues|pull)/{number}(?:#issuecomment-\d+)?$", url) for url in urls):
                    missing.append(f"{rid}: #{number} in {ref['title']!r}")
    assert missing == []


def test_reference_values_are_not_cut_by_a_yaml_comment() -> None:
    """`key: text #123 more` is read as `text`: a value with ` #` in it must be quoted."""
    pattern = re.compile(r"^\s*(?:- )?(?:setup|locator|measured|title|name|url): *[^\"'>|{\[\s].* #")
    cut = [f"{p.name}:{n}" for p in sorted(RECORDS.glob("*.yaml"))
           for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if pattern.match(line)]
    assert cut == []


def test_seed_locators_are_cited_by_chapter_title_and_section(records: dict[str, dict[str, Any]]) -> None:
    citation = seed_citation("seed 000_92ee87cbb4f51a37, §2.3, §5")
    assert citation is not None
    assert citation.text() == ("Chapter 18, *Reliability: what actually goes wrong in production serving*, "
                               "§2.3 What to monitor; §5 The reliability checklist")
    assert seed_citation("vllm 0.33.0 wheel, vllm/envs.py:1560") is None
    with pytest.raises(CitationError):
        seed_citation("seed 000_92ee87cbb4f51a37, §9.9")
    with pytest.raises(CitationError):
        seed_citation("seed 999_unknown, §1")
    # every seed locator in the records resolves, and no page shows the machine locator
    for rid, data in records.items():
        for ref in data["references"]:
            seed_citation(ref.get("locator"))
        assert "seed 000_" not in _page(rid), rid
    assert ("- **Source**: Chapter 18, *Reliability: what actually goes wrong in production serving*, §2.2 The "
            "records, grouped by trigger (a chapter not published online)") in _page("RL101")
    assert reference_markdown({"kind": "report", "title": "A paper", "locator": "cited in seed "
                               "000_92ee87cbb4f51a37, §4.1"}) == (
        "- **Report**: A paper, as cited in Chapter 18, *Reliability: what actually goes wrong in production "
        "serving*, §4.1 Power measurement boundary")
    assert reference_markdown({"kind": "upstream", "title": "PR 1", "url": "https://example.org/pull/1",
                               "locator": "org/repo PR #1"}) == (
        "- **Upstream**: [PR 1](https://example.org/pull/1) (`org/repo PR #1`)")


@pytest.mark.parametrize("chapter_id", sorted(SEED_CHAPTERS))
def test_seed_chapter_titles_match_the_chapter(chapter_id: str) -> None:
    """The chapter's number, title and section titles, as the citations print them, are the chapter's own lines."""
    kept = excerpts(chapter_id)
    chapter = SEED_CHAPTERS[chapter_id]
    assert (kept[0].line, kept[0].text) == (1, f"{chapter.number} \u2014 {chapter.title}")
    lines = {e.text: e.line for e in kept}
    headings = [f"{number}. {title}" if "." not in number else f"{number} {title}"
                for number, title in chapter.sections.items()]
    assert all(heading in lines for heading in headings), [h for h in headings if h not in lines]
    assert [lines[h] for h in headings] == sorted(lines[h] for h in headings)  # in the chapter's order


# -- the fix first ----------------------------------------------------------------------------------------------


def test_record_page_order_summary_then_fix_then_the_rest(records: dict[str, dict[str, Any]]) -> None:
    for rid, data in records.items():
        page = _page(rid)
        body = page.split("\n# ", 1)[1]
        summary = body.index(site.md(data["summary"]))
        fix = body.index("\n## Fix\n")
        assert summary < fix, rid
        for later in ("\n## Symptom\n", "\n## Affected versions\n", "\n## References\n", "\n## Record details\n"):
            assert fix < body.index(later), (rid, later)
        assert body.index("\n## Record details\n") > body.index("\n## References\n"), rid
        assert "| field | value |" not in body[:fix], rid  # the field table is below, not above the fix


def test_before_after_from_a_passing_example(records: dict[str, dict[str, Any]]) -> None:
    pair = before_after(records["RL101"])
    assert pair is not None
    assert pair.how == "example"
    assert pair.before_name == "NVFP4 checkpoint with bf16 on an RTX 4090, 0.15.0"
    assert pair.after_name == "the fix applied (float16) on an RTX 4090"
    assert pair.after == pair.before.replace("--dtype bfloat16", "--dtype float16")
    assert pair.context == {"gpu": "RTX 4090", "engine_version": "0.15.0"}
    page = _page("RL101")
    fix = page[page.index("## Fix"):page.index("## Symptom")]
    assert "```sh\nvllm serve nvidia/Llama-3.3-70B-Instruct-FP4 \\\n  --max-model-len 8192 \\\n  --dtype float16\n```" \
        in fix
    assert "**After**, no finding: the fix applied (float16) on an RTX 4090" in fix


def test_before_after_from_the_quick_fix(records: dict[str, dict[str, Any]]) -> None:
    """RL206 has no passing example of its fix: the after is the linter's quick fix applied, and checked."""
    pair = before_after(records["RL206"])
    assert pair is not None
    assert pair.how == "quick-fix"
    assert "--attention-backend TRITON_ATTN" in pair.after and "--attention-backend" not in pair.before
    assert "relialint's quick fix applied (set `attention.backend=TRITON_ATTN`)" in _page("RL206")


def test_a_passing_example_that_is_not_the_fix_is_not_shown_as_the_fix(records: dict[str, dict[str, Any]]) -> None:
    # RL208's fix says not to turn prefix caching off; its passing example does exactly that.
    assert before_after(records["RL208"]) is None
    assert '<div class="rl-fix-pair"' not in _page("RL208")
    # RL114's fix is to pin the build and check perplexity; its passing example swaps the image for Vulkan.
    assert before_after(records["RL114"]) is None
    assert names_the_fix(records["RL207"], "--attention-backend FLASHINFER", "--attention-backend FLASH_ATTN")
    assert not names_the_fix(records["RL207"], "--speculative-config '{}' \\", "")


def test_knowledge_records_have_no_before_after(records: dict[str, dict[str, Any]]) -> None:
    for rid, data in records.items():
        if not data.get("trigger"):
            assert before_after(data) is None, rid


def test_the_after_never_fires(records: dict[str, dict[str, Any]]) -> None:
    """Every after shown is linted again here, independently of how it was found."""
    from relialint.run.examples import run_example

    for rid, data in records.items():
        pair = before_after(data)
        if pair is None:
            continue
        example = {"name": "after", "outcome": "passes", "format": pair.format, "content": pair.after,
                   **pair.context}
        outcome = run_example(data, example, 0)
        assert outcome.actual == "passes", (rid, outcome.detail)
        example = {**example, "outcome": "fires", "content": pair.before}
        assert run_example(data, example, 0).actual == "fires", rid


def test_pages_link_the_data_files() -> None:
    assert "[catalogue.json](../catalogue.json)" in _page("RL101")
    assert "[Atom feed](../feed.xml)" in _page("RL101")
    home = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert "[catalogue.json](catalogue.json)" in home and "[Atom feed](feed.xml)" in home
    head = (ROOT / "overrides" / "main.html").read_text(encoding="utf-8")
    assert 'type="application/atom+xml"' in head and "'feed.xml' | url" in head


def test_stylesheet_and_script_are_in_the_site() -> None:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "  - stylesheets/record.css\n" in config and "  - javascripts/a11y.js\n" in config
    assert Path(ROOT / "docs" / "stylesheets" / "record.css").is_file()


def test_an_unknown_seed_section_is_a_located_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    records = tmp_path / "records"
    shutil.copytree(RECORDS, records)
    path = next(records.glob("RL101-*.yaml"))
    path.write_text(path.read_text(encoding="utf-8").replace("§2.2", "§2.9", 1), encoding="utf-8")
    copy = tmp_path / "site"
    copy.mkdir()
    shutil.copy2(ROOT / "mkdocs.yml", copy / "mkdocs.yml")
    shutil.copytree(ROOT / "docs", copy / "docs")
    assert site.main(["--root", str(copy), "--records", str(records), "--check"]) == 2
    err = capsys.readouterr().err
    assert f"{path}: references: chapter 18 has no section 2.9" in err

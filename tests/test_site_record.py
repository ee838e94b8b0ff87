"""Record pages: versions said honestly, references as links and citations, the fix first as a before/after."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from relialint.site import build as site
from relialint.site.cite import SEED_CHAPTERS, CitationError, record_repository, reference_markdown, seed_citation
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
    # issue 29: the PR number a bound source names links to the record's engine's repository
    assert ("| fixed (first good) | `0.8.3` | the first release with the fixing commit of "
            "[PR #15466](https://github.com/vllm-project/vllm/pull/15466) |") in text
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
        # issue 29: issue and PR numbers in the summary are links to the record's engine's repository
        summary = body.index(site.md(data["summary"], repo=record_repository(data)))
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


# -- issue 29: the order a user needs, the source up front, JSON per record ------------------------------------


def _headings(page: str) -> list[str]:
    return [line[3:] for line in page.splitlines() if line.startswith("## ")]


def test_record_page_sections_in_the_order_a_user_needs() -> None:
    """RL206 (a record with a trigger, evidence, examples and related records): the line the linter prints, the
    summary, the fix, how to silence it, the upstream box, then the rest; long parts folded under their headings
    (search drops the ``## Examples`` section by its id ``examples``, so that heading has no attribute)."""
    page = _page("RL206")
    assert _headings(page) == ["Fix", "Silence it", "Upstream and versions { #aliases }", "Symptom", "Cause",
                               "Evidence", "What to monitor", "Affected versions", "Trigger", "Examples", "References",
                               "Related", "Record details"]
    body = page.split("\n# ", 1)[1]
    assert body.index("```text\nserve.sh:1:12: RL206 [major]") < body.index("{ .rl-lead }") < body.index("## Fix")
    for heading, fold in [("Cause", '??? note "Why it happens"'), ("Evidence", '??? note "3 measurements"'),
                          ("Trigger", '??? note "When relialint reports it"'),
                          ("Examples", '??? example "2 fire, 3 pass, 3 stay possible"'),
                          ("Record details", '??? note "Fields and keywords"')]:
        assert f"## {heading}\n\n{fold}\n\n    " in page, heading
    knowledge = _page("RL401")  # a knowledge record: no message line, nothing to silence
    assert "```text\n" not in knowledge.split("## Fix")[0] and "## Silence it" not in knowledge
    assert "## Upstream and versions { #aliases }" in knowledge


def _cli(args: list[str], cwd: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """``relialint ARGS`` in process, run in ``cwd``: exit code and stdout."""
    import os

    from relialint.cli import main

    capsys.readouterr()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        code = main(args)
    finally:
        os.chdir(old)
    return code, capsys.readouterr().out


RL206_ARGS = ["--isolated", "--gpu", "H100", "--engine-version", "0.30.0", "--fact", "attention.fa4=true",
              "--select", "RL206"]


def test_the_message_line_is_what_the_cli_prints(records: dict[str, dict[str, Any]], tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from relialint.site.fix import printed_finding

    printed = printed_finding(records["RL206"])
    assert printed is not None
    assert printed.line == (
        "serve.sh:1:12: RL206 [major] vLLM's FA4 attention on SM90 was measured ignoring num_splits on 0.30.0: "
        "decode up to 48% slower per token than 0.26.0; use --attention-backend TRITON_ATTN (recovers ~70%)")
    (tmp_path / "serve.sh").write_text(records["RL206"]["examples"][0]["content"], encoding="utf-8")
    code, out = _cli(["check", "serve.sh", *RL206_ARGS], tmp_path, capsys)
    assert code == 1 and out.splitlines()[0] == printed.line
    assert f"```text\n{printed.line}\n```" in _page("RL206")
    assert printed_finding(records["RL401"]) is None  # a knowledge record never fires


def test_the_silence_text_silences(records: dict[str, dict[str, Any]], tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    """The three ways the page gives, each applied to the example that fires: no RL206 finding is left."""
    page = _page("RL206")
    section = page.split("## Silence it", 1)[1].split("\n## ", 1)[0]
    directive = "# relialint: ignore[RL206] <why this is safe here>"
    assert f"```sh\n{directive}\n```" in section
    assert "`relialint check --ignore RL206 PATH`" in section and '`ignore = ["RL206"]`' in section
    assert '`[[tool.relialint.suppress]]` entry with `record = "RL206"`, `paths` and `reason`' in section
    content = records["RL206"]["examples"][0]["content"]
    (tmp_path / "serve.sh").write_text(content, encoding="utf-8")
    assert "RL206" in _cli(["check", "serve.sh", *RL206_ARGS], tmp_path, capsys)[1].splitlines()[0]
    (tmp_path / "serve.sh").write_text(f"{directive}\n{content}", encoding="utf-8")
    code, out = _cli(["check", "serve.sh", *RL206_ARGS], tmp_path, capsys)
    assert (code, out.splitlines()[0]) == (0, "1 file, 1 deployment: 0 definite, 0 possible, 0 errors, 1 suppressed")
    (tmp_path / "serve.sh").write_text(content, encoding="utf-8")
    code, out = _cli(["check", "serve.sh", *RL206_ARGS, "--ignore", "RL206"], tmp_path, capsys)
    assert code == 0 and "RL206" not in out
    (tmp_path / ".relialint.toml").write_text(
        '[[suppress]]\nrecord = "RL206"\npaths = ["*.sh"]\nreason = "measured on our model"\n', encoding="utf-8")
    code, out = _cli(["check", "serve.sh", *RL206_ARGS[1:]], tmp_path, capsys)
    assert code == 0 and "1 suppressed" in out.splitlines()[0]


def test_the_aliases_box_links_upstream_fix_and_versions() -> None:
    box = _page("RL101").split('<div class="rl-aliases" markdown>\n\n', 1)[1].split("\n\n</div>", 1)[0]
    lines = box.splitlines()
    assert lines[:3] == [
        "- **Upstream report**: none recorded",
        "- **Fix**: [vllm-project/vllm#34577](https://github.com/vllm-project/vllm/pull/34577)",
        "- **vLLM**: affected: from [`0.9.0`](../releases/vllm-0.9.0.md); fixed: [`0.19.0`](../releases/vllm-0.19.0.md)"
        "; older versions: not checked",
    ]
    assert lines[3].startswith("- **As data**: [RL101.json](../records/RL101.json) (OSV-like); **wrong?** "
                               "[Report a mistake]("
                               "https://github.com/relialint/relialint/issues/new?title=RL101%3A%20&amp;body=")
    rl206 = _page("RL206").split('<div class="rl-aliases" markdown>', 1)[1].split("</div>", 1)[0]
    # versions nobody checked read "not checked", never as unaffected
    assert ("after `0.33.0`: not checked; last known good: [`0.19.1`](../releases/vllm-0.19.1.md); older versions: "
            "not checked") in rl206
    rl109 = _page("RL109").split('<div class="rl-aliases" markdown>', 1)[1].split("</div>", 1)[0]
    assert "- **Upstream report**: [ggml-org/llama.cpp#28211](https://github.com/ggml-org/llama.cpp/issues/28211)" \
        in rl109
    assert "- **llama.cpp**: affected: first affected version not checked; seen on `b10566`; fixed: none known" in rl109


def test_report_a_mistake_is_a_prefilled_issue(records: dict[str, dict[str, Any]]) -> None:
    from urllib.parse import parse_qs, urlsplit

    from relialint import REPOSITORY_URL
    from relialint.site.record import report_url

    url = urlsplit(report_url(records["RL206"]))
    assert f"{url.scheme}://{url.netloc}{url.path}" == f"{REPOSITORY_URL}/issues/new"
    query = parse_qs(url.query)
    assert query["title"] == ["RL206: "]
    assert query["body"] == [
        "Page: https://relialint.dev/records/RL206/\nRecord: RL206 (modified 2026-12-02)\n\nVersions in the record:\n"
        "- vllm: introduced: 0.20.0, last_known_good: 0.19.1, last_affected: 0.33.0; observed: 0.30.0\n\n"
        "What is wrong (and the source that shows it):\n"]
    for rid in records:
        assert "[Report a mistake](" + report_url(records[rid]).replace("&", "&amp;") + ")" in _page(rid), rid


@pytest.mark.parametrize(
    ("text", "repo", "markdown"),
    [
        ("see issue 20820", "vllm-project/vllm", "see [issue 20820](https://github.com/vllm-project/vllm/issues/20820)"),
        ("PR #17885 fixes it", "vllm-project/vllm",
         "[PR #17885](https://github.com/vllm-project/vllm/pull/17885) fixes it"),
        ("(#38652)", "sgl-project/sglang", "([#38652](https://github.com/sgl-project/sglang/issues/38652))"),
        ("pull request 12 and issues 345", "a/b",
         "[pull request 12](https://github.com/a/b/pull/12) and [issues 345](https://github.com/a/b/issues/345)"),
        # the repository the text names wins over the record's engine
        ("flashinfer-ai/flashinfer#3864 and ggml-org/llama.cpp issue #28211", "vllm-project/vllm",
         "[flashinfer-ai/flashinfer#3864](https://github.com/flashinfer-ai/flashinfer/issues/3864) and "
         "[ggml-org/llama.cpp issue #28211](https://github.com/ggml-org/llama.cpp/issues/28211)"),
        ("ggml-org/llama.cpp #28604", None, "[ggml-org/llama.cpp #28604](https://github.com/ggml-org/llama.cpp/issues/28604)"),
        # no repository known: no link, never a guess
        ("see issue 20820 and #38652", None, "see issue 20820 and #38652"),
        # not issue numbers: a word before #, a fragment, a character reference, code, a single digit
        ("sm#90, a/b.py#L12, &#35;, issue 7, `#12345`", "a/b",
         "sm#90, a/b.py#L12, &amp;#35;, issue 7, `#12345`"),
        # Markdown in the label stays escaped
        ("#123*", "a/b", "[#123](https://github.com/a/b/issues/123)\\*"),
    ],
)
def test_issue_and_pr_numbers_become_links(text: str, repo: str | None, markdown: str) -> None:
    assert site.md(text, start=False, repo=repo) == markdown


def test_numbers_in_record_prose_are_links(records: dict[str, dict[str, Any]]) -> None:
    page = _page("RL109")
    assert "[ggml-org/llama.cpp issue #28211](https://github.com/ggml-org/llama.cpp/issues/28211)" in page
    assert "[#28604](https://github.com/ggml-org/llama.cpp/issues/28604)" in page
    # an engine-independent record names no repository: its numbers stay text unless the text names one
    from relialint.site.cite import record_repository

    assert record_repository({"engines": []}) is None
    assert record_repository({"engines": ["vllm", "sglang"]}) is None
    assert record_repository({"engines": ["sglang"]}) == "sgl-project/sglang"


def test_a_reference_without_url_links_the_issue_it_names() -> None:
    from relialint.site.cite import reference_url

    ref = {"kind": "fix", "title": "The fix", "locator": "ggml-org/llama.cpp #28604, as named in issue #28211"}
    # two numbers: which one is the reference is not known; with no repository for "issue #28211", one is
    assert reference_url(ref, "ggml-org/llama.cpp") is None
    assert reference_url(ref, None) == "https://github.com/ggml-org/llama.cpp/issues/28604"
    ref = {"kind": "fix", "title": "The fix", "locator": "ggml-org/llama.cpp #28604"}
    assert reference_url(ref, None) == "https://github.com/ggml-org/llama.cpp/issues/28604"
    assert reference_markdown(ref) == ("- **Fix**: [The fix](https://github.com/ggml-org/llama.cpp/issues/28604) "
                                       "(`ggml-org/llama.cpp #28604`)")
    assert reference_url({"kind": "report", "title": "vLLM PR 123"}, "vllm-project/vllm") == \
        "https://github.com/vllm-project/vllm/pull/123"
    assert reference_url({"kind": "report", "title": "vLLM PR 123"}, None) is None
    assert reference_url({"kind": "source", "title": "t", "locator": "seed 000_92ee87cbb4f51a37, §3.3"}, "a/b") is None


def test_each_record_json_has_the_shape_and_agrees_with_the_record(records: dict[str, dict[str, Any]]) -> None:
    import json

    from relialint import record_url
    from relialint.site.record_json import REFERENCE_TYPES

    files = sorted(p.stem for p in PAGES.glob("RL*.json"))
    assert files == sorted(records)
    for rid, data in records.items():
        doc = json.loads((PAGES / f"{rid}.json").read_text(encoding="utf-8"))
        assert set(doc) >= {"id", "modified", "published", "aliases", "summary", "details", "affected", "references",
                            "database_specific"}, rid
        assert doc["id"] == rid and doc["summary"] == " ".join(str(data["title"]).split())
        assert (doc["published"], doc["modified"]) == (f"{data['published']}T00:00:00Z",
                                                       f"{data['modified']}T00:00:00Z")
        assert doc["details"].startswith(" ".join(str(data["summary"]).split()))
        specific = doc["database_specific"]
        assert (specific["severity"], specific["impact"], specific["engines"], specific["url"]) == \
            (data["severity"], data["impact"], list(data.get("engines") or []), record_url(rid))
        trigger = data.get("trigger")
        assert specific["trigger"] == ({k: trigger[k] for k in ("when", "message", "locate") if k in trigger}
                                       if trigger else None), rid
        ranges = (trigger or {}).get("affected") or []
        assert len(doc["affected"]) == len(ranges), rid
        for entry, rng in zip(doc["affected"], ranges, strict=True):
            events = entry.get("ranges", [{"events": []}])[0]["events"]
            assert all(len(e) == 1 for e in events) and (not events or "introduced" in events[0]), rid
            flat = {k: v for e in events for k, v in e.items()}
            for key in ("introduced", "fixed", "last_affected"):
                if key in flat and key != "introduced":
                    assert flat[key] == str(rng[key]), (rid, key)
            assert entry.get("versions", []) == [str(v) for v in rng.get("observed") or []], rid
        urls = [str(ref["url"]) for ref in data["references"] if ref.get("url")]
        assert [u for u in [r["url"] for r in doc["references"]] if u in urls] == urls, rid
        assert all(r["type"] in REFERENCE_TYPES.values() for r in doc["references"]), rid
        assert all(re.match(r"^https://github\.com/[^/]+/[^/]+/(issues|pull)/[0-9]+", a) for a in doc["aliases"]), rid
        assert f"[{rid}.json](../records/{rid}.json)" in _page(rid)


def test_record_json_of_a_bounded_record() -> None:
    import json

    doc = json.loads((PAGES / "RL206.json").read_text(encoding="utf-8"))
    assert doc["affected"] == [{
        "package": {"ecosystem": "PyPI", "name": "vllm", "purl": "pkg:pypi/vllm"},
        "ranges": [{"type": "ECOSYSTEM", "events": [{"introduced": "0.20.0"}, {"last_affected": "0.33.0"}]}],
        "versions": ["0.30.0"],
        "database_specific": {"status": "bounded", "last_known_good": "0.19.1",
                              "not_checked": ["versions before 0.20.0 (except 0.19.1, last known good)",
                                              "versions after 0.33.0"]},
    }]
    rl101 = json.loads((PAGES / "RL101.json").read_text(encoding="utf-8"))
    assert rl101["aliases"] == ["https://github.com/vllm-project/vllm/pull/34577"]
    assert rl101["affected"][0]["ranges"][0]["events"] == [{"introduced": "0.9.0"}, {"fixed": "0.19.0"}]
    catalogue = json.loads((ROOT / "docs" / "catalogue.json").read_text(encoding="utf-8"))
    assert {e["id"]: e["json"] for e in catalogue["records"]}["RL206"] == "records/RL206.json"

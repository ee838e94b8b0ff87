"""tools/llamacpp-builds.tsv: the llama.cpp commit and build each llama-cpp-python sdist 0.2.70-0.3.36 vendors
(issue 23), and the rules of tools/llamacpp_builds.py that derive it. Needs neither the artifact cache nor the
network: the table is checked as committed, the rules on small made-up clones."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import pytest

from tests.tools import load_tool

ROOT = Path(__file__).resolve().parents[1]
TSV = ROOT / "tools" / "llamacpp-builds.tsv"
EXTRACTS = ROOT / "tools" / "llamacpp-extract"
VERSIONS = [f"0.2.{n}" for n in range(70, 91)] + [f"0.3.{n}" for n in range(37)]


T = load_tool("llamacpp_builds")


def _rows() -> list[Any]:
    return T.parse(TSV.read_text(encoding="utf-8"))


# -- the committed table -------------------------------------------------------------------------------------------

def test_one_row_per_sdist_in_release_order() -> None:
    assert TSV.read_text(encoding="utf-8").splitlines()[0] == "lcp_version\tcommit\tbuild_lo\tbuild_hi\tsource"
    assert [row.version for row in _rows()] == VERSIONS


def test_rows_are_well_formed() -> None:
    for row in _rows():
        assert re.fullmatch(r"[0-9a-f]{40}", row.commit), row
        assert 0 < row.lo <= row.hi < 100_000, row
        if row.lo == row.hi:
            assert row.source and not row.source.startswith("bracket"), row
        else:
            assert row.source.startswith("bracket; lo: ") and "; hi: " in row.source, row


def test_exact_rows_cite_the_tag_or_a_published_number() -> None:
    published = [ev.source for ev in T.PUBLIC]
    for row in _rows():
        if row.lo != row.hi:
            continue
        parts = row.source.split(" | ")
        tags = [re.fullmatch(r"sdist [0-9.]+: its vendored clone's tag b(\d+) points at it", p) for p in parts]
        assert "its vendored clone's tag b" in row.source or any(text in row.source for text in published), row
        assert all(int(tag.group(1)) == row.lo for tag in tags if tag), row


def test_builds_never_decrease_along_the_releases() -> None:
    rows = _rows()
    for prev, row in itertools.pairwise(rows):
        assert row.lo >= prev.lo and row.hi >= prev.hi, (prev, row)
        if row.commit == prev.commit:
            assert (row.lo, row.hi) == (prev.lo, prev.hi), (prev, row)
        else:
            assert row.lo > prev.lo and row.hi > prev.hi, (prev, row)


def test_agrees_with_the_flag_tables_extract_headers() -> None:
    """Every options-*.txt header names an sdist, its commit and a build (or bracket): the TSV has that commit for
    that sdist, and its number lies within the header's (equal where the header is exact)."""
    by_version = {row.version: row for row in _rows()}
    seen = 0
    for path in sorted(EXTRACTS.glob("options-*.txt")):
        header = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.startswith("#"):
                break
            key, _, value = line[1:].partition(":")
            header[key.strip()] = value.strip()
        version = re.match(r"llama-cpp-python (\S+) sdist", header["source"])
        assert version, path
        row = by_version[version.group(1)]
        assert row.commit.startswith(header["commit"]), (path.name, row)
        lo, _, hi = header["build"].partition("-")
        assert int(lo) <= row.lo <= row.hi <= int(hi or lo), (path.name, row)
        seen += 1
    assert seen == 16


def test_the_numbers_the_records_bounds_sit_between() -> None:
    """The sdists around the records' bounds (b3138 ... b9934), as the table gives them."""
    got = {row.version: (row.lo, row.hi) for row in _rows()}
    assert got["0.2.77"] == (3078, 3078) and got["0.2.78"] == (3079, 3183) and got["0.2.79"] == (3184, 3184)
    assert got["0.2.80"] == (3281, 3281) and got["0.2.82"] == (3350, 3350) and got["0.2.83"] == (3441, 3441)
    assert got["0.3.8"] == (4875, 4875) and got["0.3.9"] == (5308, 5308) and got["0.3.10"] == (5763, 5763)
    assert got["0.3.19"] == (8504, 8642) and got["0.3.20"] == (8643, 8643)
    assert got["0.3.23"] == (9102, 9102) and got["0.3.24"] == (9445, 9445)
    assert got["0.3.33"] == (9874, 9874) and got["0.3.34"] == (9976, 9976)


def test_render_and_parse_round_trip() -> None:
    text = TSV.read_text(encoding="utf-8")
    assert T.render(T.parse(text)) == text
    with pytest.raises(ValueError, match="line 2: 4 fields"):
        T.parse(text.splitlines()[0] + "\n0.2.70\tabc\t1\t2\n")


# -- the rules, on made-up clones ----------------------------------------------------------------------------------

def _sha(c: str) -> str:
    return c * 40


def _commit(c: str, parent: str, time: int) -> Any:
    return T.Commit(_sha(c), (_sha(parent),), time, f"commit {c}")


def _sdist(version: str, head: Any, tip: Any = None, tags: dict[str, str] | None = None,
           clone: int | None = None) -> Any:
    return T.Sdist(version, head, tip or head, tuple((name, _sha(c)) for name, c in (tags or {}).items()),
                   clone if clone is not None else head.time + 10)


def test_a_tag_on_the_vendored_commit_is_its_build() -> None:
    rows = T.derive([_sdist("0.1.0", _commit("a", "0", 100), tags={"b100": "a"})], public=(), first_lo=(1, "x"))
    assert (rows[0].lo, rows[0].hi) == (100, 100)
    assert rows[0].source == "sdist 0.1.0: its vendored clone's tag b100 points at it"


def test_a_tagged_master_whose_parent_is_the_vendored_commit_gives_one_less() -> None:
    s = _sdist("0.1.0", _commit("a", "0", 100), tip=_commit("c", "a", 200), tags={"b205": "c"})
    row = T.derive([s], public=(), first_lo=(1, "x"))[0]
    assert (row.lo, row.hi) == (204, 204)
    assert row.source == ("its child cccccccccc is b205: sdist 0.1.0: its vendored clone's tag b205 points at its "
                          "vendored master cccccccccc")


def test_a_published_number_for_the_parent_gives_one_more() -> None:
    s = _sdist("0.1.0", _commit("a", "9", 100))
    row = T.derive([s], public=(T.Evidence("99999999", 500, "a formula"),), first_lo=(1, "x"))[0]
    assert (row.lo, row.hi) == (501, 501)
    assert row.source == "its parent 9999999999 is b500: a formula"


def test_an_unknown_commit_gets_the_bracket_clone_times_allow() -> None:
    first = _sdist("0.1.0", _commit("a", "0", 1000), tags={"b100": "a"}, clone=1100)
    middle = _sdist("0.1.1", _commit("d", "1", 2000), clone=2100)
    last = _sdist("0.1.2", _commit("e", "2", 3000), tags={"b300": "e"}, clone=3100)
    rows = T.derive([first, middle, last], public=(), first_lo=(1, "x"))
    assert (rows[1].lo, rows[1].hi) == (101, 299)
    assert rows[1].source == ("bracket; lo: aaaaaaaaaa (b100) was on master when sdist 0.1.0 was built, before this "
                              "commit's date; hi: eeeeeeeeee (b300, sdist 0.1.2) is dated after this sdist was built")


def test_the_own_master_caps_an_unknown_commit_and_the_same_commit_shares_its_bracket() -> None:
    first = _sdist("0.1.0", _commit("a", "0", 1000), tags={"b100": "a"}, clone=1100)
    second = _sdist("0.1.1", _commit("d", "1", 2000), tip=_commit("f", "5", 2050), tags={"b250": "f"}, clone=2100)
    third = _sdist("0.1.2", _commit("d", "1", 2000), clone=2500)
    rows = T.derive([first, second, third], public=(), first_lo=(1, "x"))
    assert [(r.lo, r.hi) for r in rows] == [(100, 100), (101, 249), (101, 249)]
    assert "hi: its vendored master ffffffffff is b250 and descends from it" in rows[1].source
    assert "hi: the same commit as 0.1.1 (b249 or below)" in rows[2].source


def test_sources_that_disagree_stop_the_run() -> None:
    s = _sdist("0.1.0", _commit("a", "0", 100), tags={"b100": "a"})
    with pytest.raises(T.Inconsistent, match=r"b100 .* but b101"):
        T.derive([s], public=(T.Evidence("aaaaaaa", 101, "a forum post"),), first_lo=(1, "x"))
    with pytest.raises(T.Inconsistent, match="matches 0 sdist commits"):
        T.derive([s], public=(T.Evidence("bbbbbbb", 7, "elsewhere"),), first_lo=(1, "x"))


def test_a_published_number_outside_the_bounds_stops_the_run() -> None:
    """A shallow clone prints 'version: 1 (hash)': such a number cannot pass the bounds of the sdists around it."""
    first = _sdist("0.1.0", _commit("a", "0", 1000), tags={"b100": "a"}, clone=1100)
    middle = _sdist("0.1.1", _commit("d", "1", 2000), clone=2100)
    with pytest.raises(T.Inconsistent, match=r"0\.1\.0: b100 outside .* dddddddddd \(b1, sdist 0\.1\.1\) is dated"):
        T.derive([first, middle], public=(T.Evidence("ddddddd", 1, "a shallow build"),), first_lo=(1, "x"))


def test_no_upper_bound_is_no_row() -> None:
    with pytest.raises(T.Inconsistent, match="no finite bracket"):
        T.derive([_sdist("0.1.0", _commit("a", "0", 100))], public=(), first_lo=(1, "x"))


CHANGELOG = """# Changelog

## [Unreleased]

## [0.3.3]

- feat: Update llama.cpp to ggerganov/llama.cpp@

## [0.3.2]

- fix: something

## [0.3.1]

- feat: Update llama.cpp to ggerganov/llama.cpp@aaa1111
- feat: Update llama.cpp to ggerganov/llama.cpp@bbb2222

## [0.3.0]

- feat: Update llama.cpp to [ggml-org/llama.cpp@79e0b68c1786](https://github.com/ggml-org/llama.cpp/commit/f0d4d176df72)
"""


@pytest.mark.parametrize(("version", "expected"), [
    ("0.3.1", ("aaa1111", "")),
    ("0.3.2", ("aaa1111", "inherited from [0.3.1]")),
    ("0.3.3", (None, "its [0.3.3] line names an empty hash")),
    ("0.3.0", ("79e0b68c1786", "its link points at f0d4d176df")),
    ("0.3.9", (None, "no heading for 0.3.9")),
])
def test_changelog_commit(version: str, expected: tuple[str | None, str]) -> None:
    assert T.changelog_commit(CHANGELOG, version) == expected

#!/usr/bin/env python3
"""Which llama.cpp build each llama-cpp-python sdist vendors: ``tools/llamacpp-builds.tsv``.

A witness (issue 23) shows code present in one llama-cpp-python sdist and absent in the one before; to turn that into
llama.cpp build bounds (``bNNNN`` = ``git rev-list --count`` of a master commit, the number its release tag carries)
each sdist needs its vendored commit and that commit's build number, or an honest bracket ``[lo, hi]``. The script
reads only the sdists cached by ``tools/artifacts.py`` (no network) and writes one row per sdist::

    python tools/artifacts.py fetch llama-cpp-python --all --since 0.2.70   # once, with the registry
    python tools/llamacpp_builds.py             # rewrite the TSV and print what it saw (3-5 minutes on 2 cores)
    python tools/llamacpp_builds.py --check     # exit 1 when the committed TSV differs from what the cache gives

**The commit.** Every sdist from 0.2.70 on carries the git directory of its ``vendor/llama.cpp`` submodule
(``.git/modules/vendor/llama.cpp/``, the shallow clone made when the sdist was built). Its ``HEAD`` is the vendored
commit, and four checks back it (printed per sdist): the superproject's tree (``.git``, at the release's
``v<version>`` tag) pins the submodule's gitlink to that commit; every file of the sdist's ``vendor/llama.cpp``
has the git blob id that ``HEAD``'s tree records for it (content, not a name); the ``common/build-info.cpp`` that
older sdists ship (generated, untracked) names it; and the sdist's own ``CHANGELOG.md`` names it (the top-most
``llama.cpp@<hash>`` line under the version's heading, or, with no such line, the nearest older heading's). A
changelog that disagrees is reported, not followed: the content decides. From those git directories the script
reads only ``HEAD``, ``shallow``, ``packed-refs``, ``refs/``, ``objects/`` and the first line of ``logs/HEAD``.

**The build number**, exact only where a source gives it for that very commit:

* the clone's own release tag: a shallow clone of master fetches the tags that point at what it fetched, so a
  ``refs/tags/bNNNN`` in the submodule's git directory gives the build of the commit it points at;
* parent links: the clone holds the commit objects of ``HEAD`` and of the master it cloned (its tip), with their
  parent ids. A commit with one parent counts exactly one more than that parent, so a tagged tip whose parent is
  ``HEAD`` gives ``HEAD`` = tip - 1, and a published number for ``HEAD``'s parent gives ``HEAD`` = parent + 1;
* published numbers (``PUBLIC`` below), each cited: ``version: NNNN (hash)`` printed by ``--version``,
  ``build: hash (NNNN)`` printed by llama-bench, a Homebrew formula's ``tag: "bNNNN", revision: "<sha>"``. A
  number printed by a shallow clone or a fork counts that clone's history (``version: 1 (4227c9b)``), so a
  published number is taken only for the commit it names, and it must agree with every other source and bound
  below or the run fails.

**The bracket** where no number is known, from bounds that need no published number:

* own tip: ``HEAD`` was on master when the sdist was built, so it is an ancestor of the cloned tip: hi <= tip - 1;
* clone time (``logs/HEAD``): the tip was master's head at that moment and master only moves forward, so a commit
  whose committer date is later than an sdist's clone time landed after it and descends from everything that
  sdist holds (hi of that sdist <= its build - 1), and everything an sdist holds is an ancestor of a commit dated
  after its clone time (lo of that commit's sdist >= their build + 1). Both are applied with every commit whose
  build is known;
* sdist order: a later sdist vendors the same commit or a descendant (checked: the committer dates never go
  back), so lo and hi never decrease along the releases;
* the first sdist's lower bound: its vendored ``README-sycl.md`` names the release tag ``b2437`` as already out.

Every row's ``source`` names what gave its numbers. Consecutive sdists with the same commit, checks that fail and
commit dates that go back are printed in the report.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from packaging.version import Version

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import artifacts  # noqa: E402

PROJECT = "llama-cpp-python"
FIRST, LAST = Version("0.2.70"), Version("0.3.36")
OUT = HERE / "llamacpp-builds.tsv"
HEADER = ("lcp_version", "commit", "build_lo", "build_hi", "source")
SUBMODULE = ".git/modules/vendor/llama.cpp/"
VENDOR = "vendor/llama.cpp/"
GIT_KEEP = ("HEAD", "shallow", "packed-refs")
GIT_KEEP_DIRS = ("refs/", "objects/")
# The first sdist's lower bound: its vendored README-sycl.md says "New base line is ready: [tag b2437]".
FIRST_LO = (2438, "lo: its vendored README-sycl.md names release tag b2437 as already out")


@dataclass(frozen=True)
class Evidence:
    """A published build number for one commit (``commit`` is the hash as the source prints it)."""

    commit: str
    build: int
    source: str


# Search-index ids (``id``) let anyone re-read the quoted file with the project's search tools.
PUBLIC: tuple[Evidence, ...] = (
    Evidence("023b8807", 3281, "ggml-org/llama.cpp issue #8250: 'version: 3281 (023b8807)'"),
    Evidence("7fdb6f73", 3350, "a generated llama-config.cmake in a public repository: 'LLAMA_BUILD_COMMIT 7fdb6f73', "
             "'LLAMA_BUILD_NUMBER 3350' (id 35739844619)"),
    Evidence("1f67436c5ee6f4c99e71a8518bdfc214c27ce934", 3578, "Homebrew llama.cpp formula (Formula/l/llama.cpp.rb): "
             "tag b3578, revision 1f67436c5ee6 (id 28185451628)"),
    Evidence("1b6ff90ff8301d9fe2027be2bb9fea26177d775e", 3604, "Homebrew llama.cpp formula: tag b3604, revision "
             "1b6ff90ff830 (id 33440027403); a llama.cpp issue: 'version: 3604 (1b6ff90f)' (id 30493942633)"),
    Evidence("1d1ccce6", 3642, "ggml-org/llama.cpp issue #9243: 'version: 3642 (1d1ccce6)'"),
    Evidence("ea9c32be", 3826, "ggml-org/llama.cpp issue #9642: 'version: 3826 (ea9c32be)'"),
    Evidence("74d73dc85cc2057446bf63cc37ff649ae7cebd80", 4094, "Homebrew llama.cpp formula: tag b4094, revision "
             "74d73dc85cc2 (id 34046974550)"),
    Evidence("794fe23f", 4579, "ggml-ci run log of ggml-org/llama.cpp@794fe23f: 'build: 4579 (794fe23f)' "
             "(id 25162976814)"),
    Evidence("bf69cfe62f9ccc01112c0232a55820b95a8c1fda", 4874, "Homebrew llama.cpp formula: tag b4874, revision "
             "bf69cfe62f9c (id 23484651628)"),
    Evidence("8846aace", 5763, "ggml-org/llama.cpp issue #14406: 'version: 5763 (8846aace)'"),
    Evidence("bdca3837", 5897, "ggml-org/llama.cpp issue #14689: 'version: 5897 (bdca3837)' from the b5897 "
             "full-intel image"),
    Evidence("79e0b68c", 5904, "llama-bench output in a public repository: 'build: 79e0b68c (5904)' (id 22738990514)"),
    Evidence("9a963895", 6110, "llama-bench output in a public repository: 'build: 9a963895 (6110)' (id 25374823322)"),
    Evidence("c9dc43333", 8503, "benchmark notes in a public repository: 'llama.cpp: build c9dc43333 (8503)' "
             "(id 55734210482)"),
    Evidence("f49e91787", 8643, "llama-bench output in a public repository: 'build: f49e91787 (8643)' "
             "(id 53163570890)"),
    Evidence("57ace0d61", 8645, "notes in a public repository: 'llama.cpp Build - Versão: b8645-57ace0d61' "
             "(id 54135148444)"),
    Evidence("5594d1322", 8943, "'Release b8943, build 5594d1322' with its download URL, and server image "
             "'b8943-5594d1322', in public repositories (ids 65844614700, 54868184185)"),
    Evidence("f53577432541bb9edc1588c4ef45c66bf07e4468", 8942, "'llama-server is version 8942 at upstream commit "
             "f53577432541...' in a public repository (id 58549199715)"),
    Evidence("c5a3bc39b", 9006, "'release b9006 (commit c5a3bc39b)' in a public repository (id 65851106808)"),
    Evidence("7d442abf5", 9102, "'llama-server v9102 (7d442abf5)' in a public repository (id 60815777476)"),
    Evidence("f05cf4676", 9625, "'Build: llama.cpp b9625 (f05cf4676)' in a public repository (id 56320791651)"),
    Evidence("e3a74b299", 9665, "'version: 9665 (e3a74b299) built with Clang 21.0.0 for Android aarch64' and "
             "'engine build 9665 (e3a74b299)' in public repositories (ids 55664926578, 63153014088)"),
    Evidence("78d2f5246", 9874, "'llama-server: build 9874, commit 78d2f524...' and 'llama-server b9874 @ "
             "78d2f5246' in public repositories (ids 54982408802, 58251525996)"),
    Evidence("e3546c794", 9976, "a script's check \"version: 9976 (e3546c794)\" of llama-server --version and "
             "'llama.cpp b9976 (e3546c794)' in public repositories (ids 60923208500, 68660778864)"),
    Evidence("3cb7ffb1a1f612d5e4a46244ae5a3c77ad934a70", 10453, "'tag b10453, commit 3cb7ffb1a1f6...' and "
             "'build 10453, commit 3cb7ffb1a' in public repositories (ids 59325526458, 58714263154)"),
    Evidence("0c1e57098bba43ac29e6e3b677cdceebdd22334f", 11312, "'llama.cpp b11312, commit 0c1e57098bba...' and "
             "build 'b11312-0c1e57098' in public repositories (ids 70293650681, 70198607498)"),
)
# Seen and not used: 'main: build = 3765 (c919d5d)' (a test fixture; below 0.3.0's 3826 though c919d5d is newer),
# 'llama.cpp v616 (c0159f9)' (not a build number), 'version: 1 (4227c9b)' and '1422 (e3546c794)' (shallow clones).


# -- what one sdist holds ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Commit:
    sha: str
    parents: tuple[str, ...]
    time: int  # committer date, seconds since the epoch
    subject: str


@dataclass(frozen=True)
class Sdist:
    version: str
    head: Commit
    tip: Commit  # the master the submodule clone fetched (== head when it was pinned at master's tip)
    tags: tuple[tuple[str, str], ...]  # (name, peeled commit) in the submodule clone
    clone_time: int | None
    notes: tuple[str, ...] = ()  # what the checks saw (changelog, gitlink, content)


def _git(gitdir: Path, *args: str) -> str:
    env = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "PATH": "/usr/bin:/bin:/usr/local/bin",
           "HOME": str(gitdir)}
    done = subprocess.run(["git", "--git-dir", str(gitdir), *args], capture_output=True, text=True, env=env,
                          check=True)
    return done.stdout


def _commit(gitdir: Path, sha: str) -> Commit:
    raw = _git(gitdir, "cat-file", "commit", sha)
    head, _, message = raw.partition("\n\n")
    parents = tuple(line.split()[1] for line in head.splitlines() if line.startswith("parent "))
    committer = next(line for line in head.splitlines() if line.startswith("committer "))
    return Commit(sha, parents, int(committer.split()[-2]), message.splitlines()[0] if message else "")


def _blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def changelog_commit(text: str, version: str) -> tuple[str | None, str]:
    """The commit a CHANGELOG names for ``version``: the top-most ``llama.cpp@<hash>`` line under its heading, else
    (no such line) the nearest older heading's; with a note on what was odd (no heading, an empty hash, a link that
    points at another commit than its text, an inherited line)."""
    sections = re.split(r"^## \[", text, flags=re.M)[1:]
    names = [section.split("]", 1)[0] for section in sections]
    if version not in names:
        return None, f"no heading for {version}"
    for name, section in zip(names[names.index(version):], sections[names.index(version):], strict=True):
        for line in section.splitlines():
            match = re.search(r"llama\.cpp@([0-9a-f]*)", line)
            if not match:
                continue
            if not match.group(1):
                return None, f"its [{name}] line names an empty hash"
            notes = [] if name == version else [f"inherited from [{name}]"]
            linked = re.search(r"/commit/([0-9a-f]{7,40})", line)
            if linked and not linked.group(1).startswith(match.group(1)[:7]):
                notes.append(f"its link points at {linked.group(1)[:10]}")
            return match.group(1), ", ".join(notes)
    return None, "no llama.cpp@ line"


def scan(path: Path, version: str) -> Sdist:
    """Read one cached sdist: the vendored clone's commits and tags, and the checks on the commit."""
    changelog = ""
    build_info = ""
    logs_head = ""
    blobs: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="lcp-git-") as tmp:
        sub, sup = Path(tmp) / "sub", Path(tmp) / "super"
        with tarfile.open(path, "r:gz") as archive:
            for info in archive:
                name = info.name.split("/", 1)[1] if "/" in info.name else info.name
                if ".." in name.split("/"):
                    continue
                if name.startswith(VENDOR):
                    rel = name[len(VENDOR):]
                    if info.issym():
                        blobs[rel] = _blob_id(info.linkname.encode())
                    elif info.isfile() and rel != ".git":
                        data = _read(archive, info)
                        blobs[rel] = _blob_id(data)
                        if rel == "common/build-info.cpp":
                            build_info = data.decode("utf-8", "replace")
                    continue
                if not info.isfile():
                    continue
                if name == "CHANGELOG.md":
                    changelog = _read(archive, info).decode("utf-8", "replace")
                elif name.startswith(SUBMODULE):
                    rel = name[len(SUBMODULE):]
                    if rel == "logs/HEAD":
                        logs_head = _read(archive, info).decode("utf-8", "replace").split("\n", 1)[0]
                    elif rel in GIT_KEEP or rel.startswith(GIT_KEEP_DIRS):
                        _write(sub / rel, _read(archive, info))
                elif name.startswith(".git/") and not name.startswith(".git/modules/"):
                    rel = name[len(".git/"):]
                    if rel in GIT_KEEP or rel.startswith(GIT_KEEP_DIRS):
                        _write(sup / rel, _read(archive, info))
        head_sha = (sub / "HEAD").read_text().strip()
        tip_sha = _git(sub, "rev-parse", "--verify", "refs/remotes/origin/master^{commit}").strip()
        head, tip = _commit(sub, head_sha), _commit(sub, tip_sha)
        tags = []
        for line in _git(sub, "for-each-ref", "--format=%(refname:short) %(objectname) %(*objectname)",
                         "refs/tags").splitlines():
            parts = line.split()
            tags.append((parts[0], parts[-1]))
        notes = [*_check_gitlink(sup, version, head_sha), _check_content(sub, blobs),
                 *_check_changelog(changelog, version, head_sha), _check_build_info(build_info, head_sha)]
    clone = re.search(r"> (\d+) [+-]\d{4}\tclone:", logs_head)
    return Sdist(version, head, tip, tuple(sorted(tags)), int(clone.group(1)) if clone else None,
                 tuple(n for n in notes if n))


def _read(archive: tarfile.TarFile, info: tarfile.TarInfo) -> bytes:
    handle = archive.extractfile(info)
    return handle.read() if handle is not None else b""


def _write(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


def _check_gitlink(sup: Path, version: str, head_sha: str) -> list[str]:
    entry = _git(sup, "ls-tree", "HEAD", "vendor/llama.cpp").split()
    notes = [] if entry[2] == head_sha else [f"SUPERPROJECT GITLINK {entry[2][:10]} != HEAD"]
    tagged = _git(sup, "rev-parse", "--verify", "-q", f"refs/tags/v{version}^{{commit}}").strip()
    if tagged != _git(sup, "rev-parse", "HEAD").strip():
        notes.append(f"superproject HEAD is not tag v{version}")
    return notes


def _check_content(sub: Path, blobs: dict[str, str]) -> str:
    """Every shipped file against the blob id HEAD's tree records for it (files of a nested submodule, which the
    tree holds only as a gitlink, are counted apart)."""
    tree: dict[str, str] = {}
    nested: list[str] = []
    for line in _git(sub, "ls-tree", "-r", "-z", "HEAD").split("\0"):
        if line:
            meta, _, rel = line.partition("\t")
            _mode, kind, blob = meta.split()
            if kind == "commit":
                nested.append(rel + "/")
            else:
                tree[rel] = blob
    inside = {rel for rel in blobs if rel.startswith(tuple(nested))} if nested else set()
    differ = sorted(rel for rel, blob in blobs.items() if rel in tree and tree[rel] != blob)
    extra = sorted(rel for rel in blobs if rel not in tree and rel not in inside and rel != "common/build-info.cpp")
    same = sum(1 for rel, blob in blobs.items() if tree.get(rel) == blob)
    text = f"content: {same} files match HEAD's tree"
    if differ or extra:
        text += f"; DIFFER {differ[:5]} ({len(differ)}); NOT IN TREE {extra[:5]} ({len(extra)})"
    if inside:
        text += f"; {len(inside)} files of nested submodules {', '.join(n.rstrip('/') for n in nested)}"
    return text + f"; {len(tree) - same - len(differ)} tree files not shipped"


def _check_build_info(text: str, head_sha: str) -> str:
    """Older sdists ship the ``common/build-info.cpp`` their build generated (not in git): its commit must be HEAD;
    its number counts the shallow clone (1), which is why such builds print ``version: 1 (<hash>)``."""
    if not text:
        return ""
    commit = re.search(r'LLAMA_COMMIT\s*=\s*"([0-9a-f]+)"', text)
    number = re.search(r"LLAMA_BUILD_NUMBER\s*=\s*(\d+)", text)
    said = f"commit {commit.group(1) if commit else '?'}, number {number.group(1) if number else '?'}"
    if commit and head_sha.startswith(commit.group(1)):
        return f"generated common/build-info.cpp (untracked) says {said}: the commit matches"
    return f"GENERATED common/build-info.cpp SAYS {said}"


def _check_changelog(text: str, version: str, head_sha: str) -> list[str]:
    named, note = changelog_commit(text, version)
    if named is None:
        return [f"CHANGELOG NAMES NO COMMIT for {version} ({note})"]
    if not head_sha.startswith(named):
        return [f"CHANGELOG NAMES {named} (not the vendored commit){'; ' + note if note else ''}"]
    return [f"changelog names it{' (' + note + ')' if note else ''}"]


# -- numbers and brackets ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Row:
    version: str
    commit: str
    lo: int
    hi: int
    source: str


@dataclass
class _Known:
    build: int
    # (text, the commits it runs through: the one the evidence names first, then each link followed)
    sources: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)

    @property
    def text(self) -> str:
        return " | ".join(text for text, _ in self.sources)


class Inconsistent(ValueError):
    """Two sources give different numbers, or a number breaks a bound that needs no source."""


def _short(sha: str) -> str:
    return sha[:10]


def known_builds(sdists: Sequence[Sdist], public: Iterable[Evidence]) -> dict[str, _Known]:
    """Exact numbers for the commits the sdists hold (HEADs, tips and their parents): from the clones' tags and the
    published numbers, then along single-parent links (a child counts one more than its parent)."""
    commits = {c.sha: c for s in sdists for c in (s.head, s.tip)}
    shas = set(commits) | {p for c in commits.values() for p in c.parents}
    known: dict[str, _Known] = {}

    def add(sha: str, build: int, text: str, path: tuple[str, ...]) -> bool:
        have = known.setdefault(sha, _Known(build))
        if have.build != build:
            raise Inconsistent(f"{_short(sha)}: b{have.build} ({have.text}) but b{build} ({text})")
        if any(t == text for t, _ in have.sources):
            return False
        have.sources.append((text, path))
        return True

    for s in sdists:
        for name, target in s.tags:
            match = re.fullmatch(r"b(\d+)", name)
            if match:
                add(target, int(match.group(1)), f"sdist {s.version}: its vendored clone's tag {name} points at "
                    + ("it" if target == s.head.sha else f"its vendored master {_short(target)}"), (target,))
    for ev in public:
        matches = sorted(sha for sha in shas if sha.startswith(ev.commit))
        if len(matches) != 1:
            raise Inconsistent(f"published {ev.commit} (b{ev.build}) matches {len(matches)} sdist commits")
        add(matches[0], ev.build, ev.source, (matches[0],))
    changed = True
    while changed:
        changed = False
        for c in commits.values():
            if len(c.parents) != 1:
                continue
            parent = c.parents[0]
            for text, path in list(known[parent].sources) if parent in known else []:
                if c.sha not in path:
                    changed |= add(c.sha, known[parent].build + 1,
                                   f"its parent {_short(parent)} is b{known[parent].build}: {text}", (*path, c.sha))
            for text, path in list(known[c.sha].sources) if c.sha in known else []:
                if parent not in path:
                    changed |= add(parent, known[c.sha].build - 1,
                                   f"its child {_short(c.sha)} is b{known[c.sha].build}: {text}", (*path, parent))
    return known


def derive(sdists: Sequence[Sdist], public: Iterable[Evidence] = PUBLIC,
           first_lo: tuple[int, str] = FIRST_LO) -> list[Row]:
    """One row per sdist (in release order): the exact build, or the bracket the bounds allow."""
    known = known_builds(sdists, public)
    anchors = [(c, s) for s in sdists for c in {s.head.sha: s.head, s.tip.sha: s.tip}.values() if c.sha in known]
    bounds: list[tuple[int, str, int, str]] = []
    for index, s in enumerate(sdists):
        lo, lo_why = first_lo if index == 0 else (0, "")
        hi, hi_why = 10**9, ""
        if s.tip.sha != s.head.sha and s.tip.sha in known:
            hi, hi_why = known[s.tip.sha].build - 1, f"hi: its vendored master {_short(s.tip.sha)} is " \
                f"b{known[s.tip.sha].build} and descends from it"
        for commit, other in anchors:
            build = known[commit.sha].build
            if commit.sha == s.head.sha:
                continue
            if other.clone_time is not None and other.clone_time < s.head.time and build + 1 > lo:
                lo, lo_why = build + 1, (f"lo: {_short(commit.sha)} (b{build}) was on master when sdist "
                                         f"{other.version} was built, before this commit's date")
            if s.clone_time is not None and commit.time > s.clone_time and build - 1 < hi:
                hi, hi_why = build - 1, (f"hi: {_short(commit.sha)} (b{build}, sdist {other.version}) is dated "
                                         f"after this sdist was built")
        bounds.append((lo, lo_why, hi, hi_why))
    rows: list[Row] = []
    for index, s in enumerate(sdists):
        lo, lo_why, hi, hi_why = bounds[index]
        if s.head.sha in known:
            k = known[s.head.sha]
            if not lo <= k.build <= hi:
                raise Inconsistent(f"{s.version}: b{k.build} outside [{lo}, {hi}] ({lo_why}; {hi_why})")
            rows.append(Row(s.version, s.head.sha, k.build, k.build, k.text))
            continue
        rows.append(Row(s.version, s.head.sha, lo, hi, f"bracket; {lo_why}; {hi_why}"))
    return _by_order(sdists, rows)


def _by_order(sdists: Sequence[Sdist], rows: list[Row]) -> list[Row]:
    """Sdist order: a later release vendors the same commit or a descendant, so lo and hi never decrease along the
    releases (and sdists with the same commit share one bracket). Skipped across a commit date that goes back."""
    out = list(rows)

    def tighten(i: int, lo: int, hi: int, lo_why: str, hi_why: str) -> None:
        row = out[i]
        if lo <= row.lo and hi >= row.hi:
            return
        if row.lo == row.hi:
            raise Inconsistent(f"{row.version}: b{row.lo} is outside [{lo}, {hi}] ({lo_why}; {hi_why})")
        source = row.source
        if lo > row.lo:
            source = _replace_part(source, "lo", f"lo: {lo_why}")
        if hi < row.hi:
            source = _replace_part(source, "hi", f"hi: {hi_why}")
        out[i] = Row(row.version, row.commit, max(lo, row.lo), min(hi, row.hi), source)

    def low(row: Row) -> str:
        return f"b{row.lo}" if row.lo == row.hi else f"b{row.lo} or above"

    def high(row: Row) -> str:
        return f"b{row.hi}" if row.lo == row.hi else f"b{row.hi} or below"

    before: list[Row] = []
    while before != out:  # until nothing tightens
        before = list(out)
        for i in range(1, len(out)):
            if sdists[i].head.time < sdists[i - 1].head.time:
                continue
            prev = out[i - 1]
            same = prev.commit == out[i].commit
            tighten(i, prev.lo + (0 if same else 1), prev.hi if same else 10**9,
                    f"the same commit as {prev.version} ({low(prev)})" if same
                    else f"sdist order, after {prev.version} ({low(prev)})",
                    f"the same commit as {prev.version} ({high(prev)})")
        for i in range(len(out) - 2, -1, -1):
            if sdists[i + 1].head.time < sdists[i].head.time:
                continue
            nxt = out[i + 1]
            same = nxt.commit == out[i].commit
            tighten(i, nxt.lo if same else 0, nxt.hi - (0 if same else 1),
                    f"the same commit as {nxt.version} ({low(nxt)})",
                    f"the same commit as {nxt.version} ({high(nxt)})" if same
                    else f"sdist order, before {nxt.version} ({high(nxt)})")
    for row in out:
        if row.lo > row.hi or row.hi >= 10**9 or row.lo <= 0:
            raise Inconsistent(f"{row.version}: no finite bracket [{row.lo}, {row.hi}]")
    return out


def _replace_part(source: str, which: str, text: str) -> str:
    parts = [p for p in source.split("; ") if not p.startswith(which + ":") and p]
    parts.append(text)
    head = [p for p in parts if p == "bracket"]
    lo = [p for p in parts if p.startswith("lo:")]
    hi = [p for p in parts if p.startswith("hi:")]
    return "; ".join(head + lo + hi)


# -- the table -----------------------------------------------------------------------------------------------------

def render(rows: Sequence[Row]) -> str:
    lines = ["\t".join(HEADER)]
    lines += [f"{r.version}\t{r.commit}\t{r.lo}\t{r.hi}\t{r.source}" for r in rows]
    return "\n".join(lines) + "\n"


def parse(text: str) -> list[Row]:
    lines = text.splitlines()
    if not lines or tuple(lines[0].split("\t")) != HEADER:
        raise ValueError("the first line is not the header " + "\\t".join(HEADER))
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        parts = line.split("\t")
        if len(parts) != len(HEADER):
            raise ValueError(f"line {number}: {len(parts)} fields, not {len(HEADER)}")
        rows.append(Row(parts[0], parts[1], int(parts[2]), int(parts[3]), parts[4]))
    return rows


def cached_sdists() -> list[tuple[str, Path]]:
    folder = artifacts.cache_dir() / "pypi" / PROJECT
    found = []
    for path in folder.glob("llama_cpp_python-*.tar.gz"):
        version = path.name[len("llama_cpp_python-"):-len(".tar.gz")]
        if FIRST <= Version(version) <= LAST:
            found.append((version, path))
    return sorted(found, key=lambda item: Version(item[0]))


def report(sdists: Sequence[Sdist], rows: Sequence[Row]) -> None:
    def day(seconds: int | None) -> str:
        if seconds is None:
            return "?"
        return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%d %H:%M")

    previous: Sdist | None = None
    for s, row in zip(sdists, rows, strict=True):
        build = f"b{row.lo}" if row.lo == row.hi else f"[b{row.lo}, b{row.hi}]"
        flags = []
        if previous is not None and previous.head.sha == s.head.sha:
            flags.append(f"SAME COMMIT AS {previous.version}")
        if previous is not None and s.head.time < previous.head.time:
            flags.append(f"OLDER THAN {previous.version}'s COMMIT")
        tip = "" if s.tip.sha == s.head.sha else f" master {_short(s.tip.sha)}"
        print(f"{s.version:7} {_short(s.head.sha)} {build:18} committed {day(s.head.time)}, cloned "
              f"{day(s.clone_time)}{tip} {' '.join(flags)}")
        for note in s.notes:
            print(f"        {note}")
        previous = s


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--check", action="store_true", help="compare with --out instead of writing it")
    args = parser.parse_args(argv)
    found = cached_sdists()
    missing = sorted({f"{v}" for v in _expected_versions()} - {v for v, _ in found}, key=Version)
    if missing:
        print(f"not in the cache ({artifacts.cache_dir()}): {', '.join(missing)}; fetch them with "
              f"tools/artifacts.py fetch {PROJECT} --all --since {FIRST}", file=sys.stderr)
        return 2
    sdists = [scan(path, version) for version, path in found]
    try:
        rows = derive(sdists)
    except Inconsistent as exc:
        print(f"inconsistent: {exc}", file=sys.stderr)
        return 2
    report(sdists, rows)
    text = render(rows)
    if args.check:
        if args.out.read_text(encoding="utf-8") != text:
            print(f"{args.out} differs from what the cached sdists give", file=sys.stderr)
            return 1
        return 0
    args.out.write_text(text, encoding="utf-8")
    return 0


def _expected_versions() -> list[str]:
    """0.2.70 ... 0.2.90 and 0.3.0 ... 0.3.36: the releases the table covers."""
    return [f"0.2.{n}" for n in range(70, 91)] + [f"0.3.{n}" for n in range(0, 37)]


if __name__ == "__main__":
    sys.exit(main())

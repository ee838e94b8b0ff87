#!/usr/bin/env python3
"""Check every record's version bounds against the released code, and write what was seen.

A record's affected range carries a ``witness``: code checks (a file path inside the released artifact and a
regular expression that must be present or absent there, or a Python name the module must or must not define)
that hold exactly on the affected releases. This script evaluates those checks on every release of the engine in a
window (default: ``--since`` below), from the registry's own artifacts:

* vLLM and SGLang: the release wheel (x86_64 Linux), its Python files;
* llama.cpp: the llama.cpp source vendored by each llama-cpp-python sdist (``vendor/llama.cpp/``), whose build
  number or build bracket comes from ``tools/llamacpp-builds.tsv``.

It writes ``records/witnesses/<ID>.json``: per range, the checks as the record states them and, per release, whether
the release is affected, with the first matching line of each check (file and line number; the line's text where
the verdict changes). ``records/witnesses/_artifacts.json`` lists every artifact read: file name, size and sha256
(each download is verified against the sha256 the index publishes before it is used). ``relialint validate``
compares the records' bounds with these results (KB017); it never downloads anything.

    python tools/witness.py                  # every record; downloads what the cache lacks
    python tools/witness.py RL123 RL131      # some records
    python tools/witness.py --check          # offline: fail when a committed result differs from a fresh one
    python tools/witness.py --explore vllm 'vllm/**/*.py' 'init_fp8_kv_scales'   # where a pattern matches, per release

The cache (``RELIALINT_ARTIFACTS``, default ``~/.cache/relialint-artifacts``) is filled by ``tools/artifacts.py``;
a download resumes where it stopped. Nothing from an artifact is imported or executed: files are read as text and
Python is parsed with :mod:`ast`.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "src"))

import artifacts  # noqa: E402
from packaging.version import Version  # noqa: E402

RECORDS = ROOT / "records"
OUT = RECORDS / "witnesses"
BUILDS = HERE / "llamacpp-builds.tsv"
PROJECT = {"vllm": "vllm", "llama.cpp": "llama-cpp-python", "sglang": "sglang"}
SINCE = {"vllm": "0.6.0", "llama-cpp-python": "0.2.70", "sglang": "0.1.3"}
"""The oldest release each engine's witnesses read: a check that already holds there cannot show an introduction,
and validate says so (widen the window with ``--since ENGINE=VERSION``). SGLang: every release on the index (0.1.3
is the first), so an option or a behaviour that SGLang has had for long still gets its true first release."""
ROOTS = {"vllm": "", "sglang": "", "llama-cpp-python": "vendor/llama.cpp/"}
SEEN_TEXT = 160


@dataclass
class Release:
    """One artifact that stands for one engine release (or, for llama.cpp, a build or a bracket of builds)."""

    project: str
    version: str  # the registry's version of the artifact
    engine_version: str  # vLLM/SGLang: the same; llama.cpp: "b123" or "b100-b140"
    artifact: artifacts.Artifact
    commit: str | None = None

    def root(self) -> Path:
        suffixes, prefix = artifacts.UNPACK[self.project]
        return artifacts.unpack(self.artifact, suffixes, prefix) / ROOTS[self.project]

    def files(self, pattern: str) -> list[tuple[str, Path]]:
        root = self.root()
        if not any(ch in pattern for ch in "*?["):
            path = root / pattern
            return [(pattern, path)] if path.is_file() else []
        return sorted((p.relative_to(root).as_posix(), p) for p in root.glob(pattern) if p.is_file())

    @staticmethod
    def text(path: Path) -> str:
        return path.read_text(encoding="utf-8", errors="replace")


def _builds() -> dict[str, tuple[str, int, int]]:
    """llama-cpp-python version -> (vendored commit, build low, build high), from ``tools/llamacpp-builds.tsv``."""
    out: dict[str, tuple[str, int, int]] = {}
    if not BUILDS.exists():
        return out
    for line in BUILDS.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        version, commit, low, high = line.split("\t")[:4]
        if version == "lcp_version":
            continue
        out[version] = (commit, int(low), int(high))
    return out


def releases(project: str, since: str, offline: bool) -> list[Release]:
    """Every release of the project from ``since`` on, oldest first, as the index (or, offline, the cache) has it."""
    index = _index(project, offline)
    builds = _builds() if project == "llama-cpp-python" else {}
    out = []
    for version, art in index.items():
        if Version(version) < Version(since):
            continue
        if project == "llama-cpp-python":
            if version not in builds:
                continue  # no known vendored build: the table says where the builds are known
            commit, low, high = builds[version]
            engine_version = f"b{low}" if low == high else f"b{low}-b{high}"
            out.append(Release(project, version, engine_version, art, commit))
        else:
            out.append(Release(project, version, version, art))
    return out


def _index(project: str, offline: bool) -> dict[str, artifacts.Artifact]:
    saved = artifacts.cache_dir() / "index" / f"{project}.json"
    if offline:
        if not saved.exists():
            raise SystemExit(f"--offline: no saved index for {project} at {saved}")
        rows = json.loads(saved.read_text())
        return {r["version"]: artifacts.Artifact(**r) for r in rows}
    index = artifacts.index(project)
    saved.parent.mkdir(parents=True, exist_ok=True)
    saved.write_text(json.dumps([a.__dict__ for a in index.values()], indent=0))
    return index


# -- the checks -----------------------------------------------------------------------------------------------------


def _names(node: ast.stmt) -> list[str]:
    """The names a statement defines: a function or class, or the plain names an assignment binds."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


def _defined(tree: ast.Module, dotted: str) -> int | None:
    """The line where ``Class.method`` (any depth) is defined or assigned in the module, or None."""
    body: list[ast.stmt] = tree.body
    line = None
    for part in dotted.split("."):
        found = next((node for node in reversed(body) if part in _names(node)), None)
        if found is None:
            return None
        line = found.lineno
        body = found.body if isinstance(found, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) else []
    return line


def run_check(release: Release, check: dict[str, Any]) -> tuple[bool, str | None]:
    """Whether the check holds on the release, and where it was seen (``path:line: text``) when something matched."""
    files = release.files(check["path"])
    seen = None
    if "present" in check or "absent" in check:
        regex = re.compile(check.get("present") or check["absent"], re.MULTILINE)
        for name, path in files:
            text = release.text(path)
            match = regex.search(text)
            if match:
                line = text.count("\n", 0, match.start()) + 1
                content = text.splitlines()[line - 1].strip() if text else ""
                seen = f"{name}:{line}: {content[:SEEN_TEXT]}"
                break
        return (seen is not None) == ("present" in check), seen
    dotted = check.get("defines") or check["undefined"]
    for name, path in files:
        try:
            tree = ast.parse(release.text(path))
        except SyntaxError:
            continue
        line = _defined(tree, dotted)
        if line is not None:
            seen = f"{name}:{line}: {dotted}"
            break
    return (seen is not None) == ("defines" in check), seen


def witness_range(rels: list[Release], checks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for rel in rels:
        results = [run_check(rel, c) for c in checks]
        rows.append({"release": rel.version, "version": rel.engine_version,
                     "affected": all(ok for ok, _ in results), "seen": [s for _, s in results]})
    # keep each line's text only next to a change of verdict, where a reader checks it; elsewhere file:line
    for i, row in enumerate(rows):
        edge = any(0 <= j < len(rows) and rows[j]["affected"] != row["affected"] for j in (i - 1, i + 1))
        if not edge:
            row["seen"] = [s.split(": ", 1)[0] if s else None for s in row["seen"]]
    return rows


# -- records --------------------------------------------------------------------------------------------------------


def load_records(ids: Iterable[str], records: Path = RECORDS) -> list[dict[str, Any]]:
    from ruamel.yaml import YAML

    wanted = set(ids)
    out = []
    yaml = YAML(typ="safe")
    for path in sorted(records.glob("RL*.yaml")):
        data = yaml.load(path.read_text(encoding="utf-8"))
        if not wanted or data["id"] in wanted:
            out.append(data)
    return out


def result_for(record: dict[str, Any], since: dict[str, str], offline: bool,
               cache: dict[str, list[Release]], used: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    ranges = []
    for index, rng in enumerate((record.get("trigger") or {}).get("affected") or []):
        checks = (rng.get("witness") or {}).get("code") or []
        if not checks:
            continue
        project = PROJECT[rng["engine"]]
        if project not in cache:
            cache[project] = releases(project, since[project], offline)
        rels = cache[project]
        for rel in rels:
            used.setdefault(project, {})[rel.version] = {
                "file": rel.artifact.filename, "size": rel.artifact.size, "sha256": rel.artifact.sha256,
                **({"commit": rel.commit, "build": rel.engine_version} if rel.commit else {})}
        ranges.append({"index": index, "engine": rng["engine"], "code": checks,
                       "releases": witness_range(rels, checks)})
    if not ranges:
        return None
    return {"record": record["id"], "ranges": ranges}


def dump(result: dict[str, Any]) -> str:
    """Stable JSON with one release per line, so a changed verdict is a one-line diff."""
    lines = ["{", f' "record": {json.dumps(result["record"])},', ' "ranges": [']
    for r_i, rng in enumerate(result["ranges"]):
        lines.append(f'  {{"index": {rng["index"]}, "engine": {json.dumps(rng["engine"])}, '
                     f'"code": {json.dumps(rng["code"], sort_keys=True)},')
        lines.append('   "releases": [')
        rows = [f"    {json.dumps(row, sort_keys=True)}" for row in rng["releases"]]
        lines.append(",\n".join(rows))
        lines.append("  ]}" + ("," if r_i < len(result["ranges"]) - 1 else ""))
    lines += [" ]", "}", ""]
    return "\n".join(lines)


def explore(project: str, path: str, pattern: str, since: str, offline: bool) -> int:
    """Print, per release, where a pattern matches: the search a record writer runs before choosing a check."""
    check = {"path": path, "present": pattern}
    for rel in releases(PROJECT.get(project, project), since, offline):
        ok, seen = run_check(rel, check)
        print(f"{rel.version:>12} {rel.engine_version:>16}  {'+' if ok else '-'}  {seen or ''}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("ids", nargs="*", help="record ids (default: every record with a code witness)")
    parser.add_argument("--check", action="store_true", help="compare with the committed results; write nothing")
    parser.add_argument("--offline", action="store_true", help="use the saved index and cached artifacts only")
    parser.add_argument("--since", action="append", default=[], metavar="PROJECT=VERSION",
                        help="the oldest release to read (default: " + ", ".join(f"{k}={v}" for k, v in SINCE.items())
                        + ")")
    parser.add_argument("--explore", nargs=3, metavar=("ENGINE", "PATH", "REGEX"))
    parser.add_argument("--records", type=Path, default=RECORDS,
                        help="the records folder (results under its witnesses/; default: records/)")
    args = parser.parse_args(argv)
    out_dir = args.records / "witnesses"
    since = dict(SINCE)
    for item in args.since:
        key, _, value = item.partition("=")
        since[PROJECT.get(key, key)] = value
    if args.explore:
        engine, path, pattern = args.explore
        return explore(engine, path, pattern, since[PROJECT.get(engine, engine)], args.offline)
    started = time.monotonic()
    cache: dict[str, list[Release]] = {}
    used: dict[str, dict[str, Any]] = {}
    stale = []
    written = 0
    for record in load_records(args.ids, args.records):
        result = result_for(record, since, args.offline, cache, used)
        target = out_dir / f"{record['id']}.json"
        if result is None:
            if target.exists() and not args.ids:
                stale.append(f"{target.name}: the record has no code witness any more")
                if not args.check:
                    target.unlink()
            continue
        text = dump(result)
        old = target.read_text(encoding="utf-8") if target.exists() else None
        if old != text:
            stale.append(target.name)
            if not args.check:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text, encoding="utf-8")
                written += 1
    if used:
        manifest = out_dir / "_artifacts.json"
        merged: dict[str, Any] = json.loads(manifest.read_text()) if manifest.exists() else {}
        for project, rows in used.items():
            merged.setdefault(project, {}).update(rows)
        merged = {p: dict(sorted(rows.items(), key=lambda kv: Version(kv[0]))) for p, rows in sorted(merged.items())}
        text = json.dumps(merged, indent=1, sort_keys=False) + "\n"
        if not manifest.exists() or manifest.read_text() != text:
            stale.append(manifest.name)
            if not args.check:
                manifest.write_text(text)
    total = sum(a.size for rows in cache.values() for a in (r.artifact for r in rows))
    print(f"{len(stale)} result file(s) {'differ' if args.check else 'written'}; "
          f"{sum(len(v) for v in cache.values())} artifacts read ({total / 1e9:.2f} GB), "
          f"{time.monotonic() - started:.0f} s", file=sys.stderr)
    for name in stale:
        print(f"  {name}", file=sys.stderr)
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())

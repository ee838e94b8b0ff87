#!/usr/bin/env python3
"""Witness, per model family of ``src/relialint/data/model_families.yaml``, the first engine builds that run it.

For every family the data names an architecture (config.json ``architectures``) and a GGUF architecture (llama.cpp's
``general.architecture``). This script reads the released artifacts, offline when asked, and finds:

* vLLM: the first release wheel whose model registry (``vllm/model_executor/models/registry.py``; the models
  package's ``__init__.py`` before 0.6.3) registers the architecture (``"Arch": ("module", "Class")``; the table of
  removed models, ``"Arch": "0.23.0"``, does not count), the release before it, and the last release that still
  registers it when a newer one no longer does (``until``: vLLM removed MiniMax-M1 in 0.23.0);
* llama.cpp: the first llama-cpp-python sdist whose vendored llama.cpp names the GGUF architecture in its
  architecture table (``{ LLM_ARCH_..., "name" }`` in ``src/llama-arch.cpp``, ``src/llama.cpp`` or ``llama.cpp`` for
  older builds), and the newest sdist before it that does not; the build numbers come from
  ``tools/llamacpp-builds.tsv``, and the floor is one past the low end of the sdist without it (a bracket's low end:
  the floor never passes the true first build);
* drafters: the first vLLM release whose speculative config (``vllm/config/speculative.py``, earlier
  ``vllm/config/__init__.py`` or ``vllm/config.py``) matches the drafter's ``needle``.

It writes ``records/witnesses/model_support.json`` with each answer and the line that shows it. The data's
``vllm_since`` / ``llamacpp_since`` must equal it (``tests/test_model_families.py``).

    RELIALINT_ARTIFACTS=/work/cache python tools/model_support.py --offline          # write the result
    RELIALINT_ARTIFACTS=/work/cache python tools/model_support.py --offline --check  # compare with the committed one

Nothing from an artifact is imported or executed: files are read as text.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import witness  # noqa: E402
from ruamel.yaml import YAML  # noqa: E402

DATA = ROOT / "src" / "relialint" / "data" / "model_families.yaml"
OUT = ROOT / "records" / "witnesses" / "model_support.json"
REGISTRY = ("vllm/model_executor/models/registry.py", "vllm/model_executor/models/__init__.py")
SPECULATIVE = ("vllm/config/speculative.py", "vllm/config/__init__.py", "vllm/config.py")
LLAMA_ARCH = ("src/llama-arch.cpp", "src/llama.cpp", "llama.cpp")


def load_data() -> dict[str, Any]:
    data: dict[str, Any] = YAML(typ="safe").load(DATA.read_text(encoding="utf-8"))
    return data


def _architectures(row: dict[str, Any]) -> list[str]:
    arch = row["architecture"]
    return [arch] if isinstance(arch, str) else list(arch)


def _first_line(release: witness.Release, paths: tuple[str, ...], regex: re.Pattern[str]) -> str | None:
    """``path:line: text`` of the first match in the first of ``paths`` the release has, or None."""
    for name in paths:
        for rel, path in release.files(name):
            text = release.text(path)
            match = regex.search(text)
            if match is not None:
                line = text.count("\n", 0, match.start()) + 1
                return f"{rel}:{line}: {text.splitlines()[line - 1].strip()[:witness.SEEN_TEXT]}"
        if release.files(name):
            return None  # the newer file exists: an older one left beside it says nothing
    return None


def first_with(releases: list[witness.Release], paths: tuple[str, ...], regex: re.Pattern[str]
               ) -> dict[str, Any]:
    """The first release in which ``regex`` matches, the release before it, the last release in which it matches
    (``last``: ``None`` when that is the newest release read), and the line first seen."""
    seen = [_first_line(r, paths, regex) for r in releases]
    hits = [i for i, line in enumerate(seen) if line is not None]
    if not hits:
        return {"first": None, "last_without": releases[-1].engine_version, "seen": None}
    start, end = hits[0], hits[-1]
    before = releases[start - 1] if start > 0 else None
    return {"first": releases[start].version, "first_build": releases[start].engine_version,
            "last_without": before.version if before else None,
            "last_without_build": before.engine_version if before else None, "seen": seen[start],
            "last": releases[end].version if end < len(releases) - 1 else None,
            "gaps": [releases[i].version for i in range(start, end + 1) if seen[i] is None]}


def vllm_since(found: dict[str, Any], oldest: str) -> str:
    return str(found["first"]) if found["last_without"] is not None else f"<{oldest}"


def llamacpp_since(found: dict[str, Any], oldest_build: str) -> str:
    """One past the low end of the newest sdist that lacks the architecture (``b6111-b8501`` -> ``b6112``)."""
    if found["last_without_build"] is None:
        return f"<{oldest_build.split('-')[0]}"
    low = int(str(found["last_without_build"]).split("-")[0].lstrip("b"))
    return f"b{low + 1}"


def witness_all(offline: bool) -> dict[str, Any]:
    data = load_data()
    vllm = witness.releases("vllm", witness.SINCE["vllm"], offline)
    lcp = witness.releases("llama-cpp-python", witness.SINCE["llama-cpp-python"], offline)
    families: dict[str, Any] = {}
    for row in data["families"]:
        entry: dict[str, Any] = {}
        archs = _architectures(row)
        # a registration maps the name to its (module, class); the same name in the table of removed models maps
        # to the release that removed it and does not count
        regex = re.compile("|".join(rf'"{re.escape(a)}"\s*:\s*\(' for a in archs))
        found = first_with(vllm, REGISTRY, regex)
        entry["vllm"] = {"architecture": archs, **found, "since": vllm_since(found, vllm[0].version)
                         if found["first"] else None, "until": found.get("last")}
        if row.get("gguf"):
            gguf = re.compile(r'\{\s*LLM_ARCH_\w+\s*,\s*"' + re.escape(row["gguf"]) + r'"\s*\}')
            found = first_with(lcp, LLAMA_ARCH, gguf)
            entry["llama.cpp"] = {"architecture": row["gguf"], **found,
                                  "since": llamacpp_since(found, lcp[0].engine_version) if found["first"] else None}
        families[row["family"]] = entry
    drafters: dict[str, Any] = {}
    for row in data.get("drafters") or []:
        found = first_with(vllm, SPECULATIVE, re.compile(row["needle"]))
        drafters[row["names"]] = {"needle": row["needle"], **found,
                                  "since": vllm_since(found, vllm[0].version) if found["first"] else None}
    artifacts = {"vllm": [r.artifact.filename for r in vllm], "llama-cpp-python": [r.artifact.filename for r in lcp]}
    return {"generator": "tools/model_support.py", "families": families, "drafters": drafters,
            "read": {k: f"{v[0]} .. {v[-1]} ({len(v)} artifacts)" for k, v in artifacts.items()}}


def dump(result: dict[str, Any]) -> str:
    return json.dumps(result, indent=1, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--offline", action="store_true", help="read only the cache (RELIALINT_ARTIFACTS)")
    parser.add_argument("--check", action="store_true", help="fail when the committed result differs")
    args = parser.parse_args(argv)
    text = dump(witness_all(args.offline))
    if args.check:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT.relative_to(ROOT)} is stale: rerun tools/model_support.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Generate relialint's llama.cpp option table (``src/relialint/data/llamacpp_flags.json``).

Input: the option map of llama.cpp ``common/arg.cpp`` at commit 0c1e57098 (the copy vendored in the
llama-cpp-python 0.3.36 sdist), as listed in ``shared/reference/llamacpp/options-env-0c1e57098.txt``: one line per
option, ``SPELLINGS [| neg: SPELLINGS] | env: LLAMA_ARG_NAME``. That file is copied into the repository as
``tools/llamacpp-extract/options-env-0c1e57098.txt`` so the build is reproducible offline::

    python tools/gen_llamacpp_tables.py build                  # -> src/relialint/data/llamacpp_flags.json
    python tools/gen_llamacpp_tables.py build --input FILE --out -

The option list does not say which options take a value, so the kinds are: ``n`` for a negative spelling and
``f`` for its positive twin (void flags), ``v`` for the options in ``VALUE_OPTIONS`` (the ones the engine
reference documents with a value), ``?`` for the rest. What the reference knows about builds is added from
``BUILD_FACTS`` (each with its source): ``-fa`` takes a value from about b6327; ``--mlock``, ``--no-mmap``,
``--mmap`` and ``--direct-io`` went at about b10114 (PR #20834). Builds are bracketed where only bracketed
(``approx``); no per-build option lists exist for older builds, so an option that is not in the list is only
*unknown to this build* when the build is at or after the snapshot (b10114 is the newest bound the reference
gives for it).

``tests/test_flags.py`` runs ``build`` into a temporary file and fails when it differs from the committed table.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import tablejson

FORMAT = 1
HERE = Path(__file__).resolve().parent
INPUT = HERE / "llamacpp-extract" / "options-env-0c1e57098.txt"
OUT = HERE.parent / "src/relialint/data/llamacpp_flags.json"
SNAPSHOT = "0c1e57098"
# Options the engine reference (engine-facts.md §7) documents with a value.
VALUE_OPTIONS = {
    "--model", "--hf-repo", "--ctx-size", "--batch-size", "--ubatch-size", "--parallel", "--n-gpu-layers",
    "--flash-attn", "--split-mode", "--tensor-split", "--main-gpu", "--device", "--cache-type-k", "--cache-type-v",
    "--fit", "--override-tensor", "--n-cpu-moe", "--load-mode", "--host", "--port", "--api-key", "--threads",
    "--alias", "--threads-batch", "--predict", "--prompt", "--system-prompt", "--seed", "--temp", "--lora",
    "--mmproj", "--chat-template", "--reasoning-format", "--jinja-template", "--model-draft", "--draft-max",
    "--draft-min", "--keep", "--rope-scaling", "--rope-freq-base", "--rope-freq-scale", "--grammar",
    "--grammar-file", "--json-schema", "--timeout", "--threads-http", "--slot-save-path", "--log-file",
    "--cache-ram", "--ctx-checkpoints", "--chunks", "--fit-target", "--fit-ctx",
}
# Build facts from the engine reference, with their sources.
BUILD_FACTS: dict[str, dict[str, Any]] = {
    "--flash-attn": {"value_from": "b6327", "approx": True,
                     "source": "engine-facts.md §7: before about b6327 -fa took no value (llama.node #102, "
                               "WasmEdge #4343; numeric aliases PR #15746)"},
    "--mlock": {"gone_from": "b10114", "approx": True, "env": "LLAMA_ARG_MLOCK",
                "source": "engine-facts.md §7: deprecated by PR #20834 (about build 10114), absent at 0c1e57098"},
    "--no-mmap": {"gone_from": "b10114", "approx": True, "env": "LLAMA_ARG_NO_MMAP",
                  "source": "engine-facts.md §7: deprecated by PR #20834 (about build 10114), absent at 0c1e57098"},
    "--mmap": {"gone_from": "b10114", "approx": True,
               "source": "engine-facts.md §7: deprecated by PR #20834 (about build 10114), absent at 0c1e57098"},
    "--direct-io": {"gone_from": "b10114", "approx": True,
                    "source": "engine-facts.md §7: deprecated by PR #20834 (about build 10114), absent at 0c1e57098"},
    "--fit": {"added": "between 4227c9be (Aug 2025) and f53577432", "source": "engine-facts.md §7: PR #16653"},
}


def parse(text: str) -> dict[str, Any]:
    options: dict[str, list[Any]] = {}
    env: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        parts = [p.strip() for p in line.split("|")]
        spellings = parts[0].split()
        negs: list[str] = []
        env_name = "-"
        for part in parts[1:]:
            if part.startswith("neg:"):
                negs = part[4:].split()
            elif part.startswith("env:"):
                env_name = part[4:].strip()
        longs = [s for s in spellings if s.startswith("--")]
        canonical = longs[0] if longs else spellings[0]
        kind = "f" if negs else ("v" if canonical in VALUE_OPTIONS else "?")
        for s in spellings:
            options[s] = [kind] if s == canonical else [kind, canonical]
        for s in negs:
            options.setdefault(s, ["n", canonical])
        if env_name != "-":
            env[env_name] = canonical
    for name, fact in BUILD_FACTS.items():
        if "gone_from" in fact and name not in options:
            options[name] = ["f", None]
            if fact.get("env"):
                env[fact["env"]] = name
    return {"options": options, "env": env}


def assemble(text: str) -> dict[str, Any]:
    parsed = parse(text)
    return {
        "format": FORMAT,
        "generator": "tools/gen_llamacpp_tables.py",
        "note": ("llama.cpp common/arg.cpp options at the snapshot commit: spelling -> [kind(, canonical)]; kinds: "
                 "v value, f flag, n negative flag, ? unknown; builds: facts with the build where they change"),
        "snapshot": SNAPSHOT,
        "options": dict(sorted(parsed["options"].items())),
        "env": dict(sorted(parsed["env"].items())),
        "builds": BUILD_FACTS,
    }


def dumps(table: dict[str, Any]) -> str:
    """The committed serialisation (``tools/tablejson.py``)."""
    return tablejson.dumps(table, nested=("options", "env", "builds"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n", 1)[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_build = sub.add_parser("build")
    p_build.add_argument("--input", type=Path, default=INPUT)
    p_build.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    tablejson.write(dumps(assemble(args.input.read_text(encoding="utf-8"))), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

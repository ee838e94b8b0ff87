"""relialint on a shipped example vs yamllint on a compose file of the same size, side by side.

Runs each command alternately (so machine noise hits both alike), prints the medians and the ratio
relialint/yamllint. Target: at most 1.0 (relialint on a file costs no more than yamllint on one).

    python bench/bench_cli.py [--runs 21]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "serve-cmd.sh"


def compose_of_size(size: int) -> str:
    """A realistic compose file padded to about ``size`` bytes."""
    lines = ["services:", "  vllm:", "    image: vllm/vllm-openai:v0.30.0", "    command:",
             '      - "nvidia/Llama-3.3-70B-Instruct-FP4"', '      - "--dtype"', '      - "bfloat16"',
             "    environment:"]
    n = 0
    while len("\n".join(lines)) < size:
        lines.append(f"      VAR_{n}: value-{n}")
        n += 1
    return "\n".join(lines) + "\n"


# Both tools run as installed tools do: with their bytecode cached. (A PYTHONDONTWRITEBYTECODE environment would
# make an editable install recompile its sources on every start while the peer, installed with compiled
# bytecode, would not.)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=ENV)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    bindir = Path(sys.executable).parent
    relialint = shutil.which("relialint", path=str(bindir)) or "relialint"
    yamllint = shutil.which("yamllint", path=str(bindir)) or shutil.which("yamllint")
    if yamllint is None:
        print("yamllint not installed (pip install yamllint)")
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        compose = Path(tmp) / "compose.yaml"
        compose.write_text(compose_of_size(EXAMPLE.stat().st_size))
        ours = [relialint, str(EXAMPLE), "--gpu", "RTX 4090"]
        theirs = [yamllint, "-d", "relaxed", str(compose)]
        timed(ours), timed(theirs)  # warm caches (the compiled record cache, .pyc files)
        a: list[float] = []
        b: list[float] = []
        for _ in range(args.runs):
            a.append(timed(ours))
            b.append(timed(theirs))
    ma, mb = statistics.median(a), statistics.median(b)
    print(f"relialint {EXAMPLE.name} ({EXAMPLE.stat().st_size} B): median {ma * 1000:.1f} ms over {args.runs} runs")
    print(f"yamllint compose.yaml (same size):  median {mb * 1000:.1f} ms over {args.runs} runs")
    print(f"ratio relialint/yamllint: {ma / mb:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

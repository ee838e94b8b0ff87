"""relialint on one file of each format against yamllint on YAML of the same size, side by side (issue 18).

For each shipped example (a shell script, a compose file, a Kubernetes manifest) the two commands run alternately,
so machine noise hits both alike; the script prints each median and the ratio relialint/yamllint per format.
Target: at most 1.0 for every format (relialint on a file costs no more than yamllint on one of its size).

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
EXAMPLES = {
    "shell": ROOT / "examples" / "serve-cmd.sh",
    "compose": ROOT / "examples" / "compose.yaml",
    "kubernetes": ROOT / "examples" / "k8s-deployment.yaml",
}


def yaml_of_size(size: int) -> str:
    """A realistic compose file padded to about ``size`` bytes: what yamllint reads in the same run."""
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
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=ENV, cwd=ROOT)
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
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for fmt, example in EXAMPLES.items():
            peer = Path(tmp) / f"{fmt}.yaml"
            peer.write_text(yaml_of_size(example.stat().st_size))
            ours = [relialint, str(example.relative_to(ROOT)), "--gpu", "RTX 4090"]
            theirs = [yamllint, "-d", "relaxed", str(peer)]
            timed(ours), timed(theirs)  # warm caches (the compiled record cache, .pyc files)
            a: list[float] = []
            b: list[float] = []
            for _ in range(args.runs):
                a.append(timed(ours))
                b.append(timed(theirs))
            ma, mb = statistics.median(a), statistics.median(b)
            worst = max(worst, ma / mb)
            print(f"{fmt:<11} relialint {example.name} ({example.stat().st_size} B) {ma * 1000:6.1f} ms   "
                  f"yamllint same-size YAML {mb * 1000:6.1f} ms   ratio {ma / mb:.2f}   (median of {args.runs})")
    print(f"worst ratio relialint/yamllint: {worst:.2f} (target: at most 1.0)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

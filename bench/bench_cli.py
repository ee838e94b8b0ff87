"""relialint on one file of each format against yamllint on YAML of the same size, side by side (issue 18).

For each shipped example (a shell script, a compose file, a Kubernetes manifest) the two commands run alternately,
so machine noise hits both alike; the script prints each median and the ratio relialint/yamllint per format.
Target: at most 1.0 for every format (relialint on a file costs no more than yamllint on one of its size).

    python bench/bench_cli.py [--runs 21]
    python bench/bench_cli.py --src ../main --src .   # two checkouts side by side (issue 26)

With ``--src`` (repeatable), each checkout's ``src/`` is run (``python -m relialint`` with ``PYTHONPATH``) in turn
with yamllint, on the same files, and a row for an SGLang launch script (``sglang.sh``, written by the script) is
added: start-up with the SGLang engine registered, against a checkout where it is not.
"""

from __future__ import annotations

import argparse
import os
import resource
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


SGLANG = """#!/usr/bin/env bash
# SGLang on two GPUs
export CUDA_VISIBLE_DEVICES=0,1
exec python3 -m sglang.launch_server \\
  --model-path Qwen/Qwen3-30B-A3B-Instruct-2507-FP8 \\
  --tp-size 2 \\
  --mem-fraction-static 0.85 \\
  --context-length 32768 \\
  --kv-cache-dtype fp8_e5m2 \\
  --host 0.0.0.0 --port 30000
"""


def timed(cmd: list[str], env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env or ENV, cwd=ROOT)
    return time.perf_counter() - start


def timed_cpu(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall seconds and the child's CPU seconds (user + system): CPU time is much less moved than wall time by other
    work on a shared machine."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = timed(cmd, env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def medians(runs: list[tuple[float, float]]) -> tuple[float, float]:
    """Median wall and CPU milliseconds of (wall, CPU) seconds."""
    return statistics.median(t[0] for t in runs) * 1000, statistics.median(t[1] for t in runs) * 1000


def side_by_side(sources: list[Path], yamllint: str, runs: int) -> int:
    """Each checkout on each example (and an SGLang script), in turns with yamllint on YAML of the same size: medians
    of wall time and of CPU time, each with its ratio to yamllint's."""
    worst: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        sglang = Path(tmp) / "sglang.sh"
        sglang.write_text(SGLANG)
        for fmt, example in {**EXAMPLES, "sglang": sglang}.items():
            peer = Path(tmp) / f"{fmt}.yaml"
            peer.write_text(yaml_of_size(example.stat().st_size))
            theirs = [yamllint, "-d", "relaxed", str(peer)]
            ours = {str(src): ([sys.executable, "-m", "relialint", str(example), "--gpu", "RTX 4090"],
                               {**ENV, "PYTHONPATH": str(src.resolve() / "src")}) for src in sources}
            timed(theirs)
            for cmd, env in ours.values():
                timed(cmd, env)  # warm caches (the compiled record cache, .pyc files)
            times: dict[str, list[tuple[float, float]]] = {name: [] for name in ["yamllint", *ours]}
            names = list(ours)
            for run in range(runs):
                times["yamllint"].append(timed_cpu(theirs))
                for name in names[run % len(names):] + names[:run % len(names)]:  # who goes first rotates
                    cmd, env = ours[name]
                    times[name].append(timed_cpu(cmd, env))

            peer_wall, peer_cpu = medians(times["yamllint"])
            print(f"{fmt:<11} {example.name} ({example.stat().st_size} B)  yamllint wall {peer_wall:6.1f} ms, "
                  f"CPU {peer_cpu:6.1f} ms   (medians of {runs})")
            for name in ours:
                wall, cpu = medians(times[name])
                worst[name] = max(worst.get(name, (0.0, 0.0))[0], wall / peer_wall), \
                    max(worst.get(name, (0.0, 0.0))[1], cpu / peer_cpu)
                print(f"{'':<11} {name}: wall {wall:6.1f} ms (ratio {wall / peer_wall:.2f}), CPU {cpu:6.1f} ms "
                      f"(ratio {cpu / peer_cpu:.2f})")
    for name, (wall_ratio, cpu_ratio) in worst.items():
        print(f"worst ratio relialint/yamllint, {name}: wall {wall_ratio:.2f}, CPU {cpu_ratio:.2f} "
              "(target: at most 1.0)")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--src", type=Path, action="append", help="a checkout to run (repeatable): side by side")
    args = parser.parse_args()
    bindir = Path(sys.executable).parent
    relialint = shutil.which("relialint", path=str(bindir)) or "relialint"
    yamllint = shutil.which("yamllint", path=str(bindir)) or shutil.which("yamllint")
    if yamllint is None:
        print("yamllint not installed (pip install yamllint)")
        return 2
    if args.src:
        return side_by_side(args.src, yamllint, args.runs)
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

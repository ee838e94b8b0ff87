"""Extraction throughput of the shell reader and engine models (in process, no CLI start-up).

    python bench/bench_extract.py

Reports the time to extract deployments from one 1,000-line script and from 1,000 small scripts.
"""

from __future__ import annotations

import statistics
import time

from relialint.engines import extract
from relialint.readers import shell
from relialint.readers.opener import MemoryOpener
from relialint.run.lint import finish

SMALL = """#!/usr/bin/env bash
set -euo pipefail
export VLLM_USE_V2_MODEL_RUNNER=0
MODEL=${MODEL:-nvidia/Llama-3.3-70B-Instruct-FP4}
CUDA_VISIBLE_DEVICES=0,1 vllm serve "$MODEL" \\
  --dtype float16 \\
  --kv-cache-dtype fp8 \\
  --speculative-config '{"method": "mtp", "num_speculative_tokens": 2}' \\
  --tensor-parallel-size 2
"""


def big_script(lines: int) -> str:
    out: list[str] = []
    n = 0
    while len(out) < lines:
        out.extend(SMALL.replace("MODEL", f"M{n}").replace("V2_M{n}_RUNNER", "V2_MODEL_RUNNER").splitlines()[2:])
        out.append(f"echo step {n}")
        n += 1
    return "\n".join(out[:lines]) + "\n"


def run(text: str) -> int:
    count = 0
    for deployment in extract(shell.read(text, "bench.sh", MemoryOpener({}))):
        finish(deployment)
        count += 1
    return count


def timed(fn: object, repeat: int = 5) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    big = big_script(1000)
    run(SMALL)  # warm the parser
    t_big = timed(lambda: run(big))
    deployments = run(big)
    t_small = timed(lambda: [run(SMALL) for _ in range(1000)], repeat=3)
    print(f"1,000-line script: {t_big * 1000:.1f} ms ({deployments} deployments, "
          f"{1000 / t_big:,.0f} lines/s)")
    print(f"1,000 small scripts: {t_small * 1000:.1f} ms ({t_small:.3f} ms per script)")


if __name__ == "__main__":
    main()

"""Time ``relialint DIR`` on a generated tree of 1,000 mixed files, and yamllint on the same YAML files.

    python bench/bench_tree.py [--files 1000] [--keep DIR]
    python bench/bench_tree.py --scale      # issue 14: big single files, and 10,000 files against 1,000
    python bench/bench_tree.py --src ../main --src . [--repeat 5]   # two checkouts side by side (issue 26)

The tree mixes compose files with ``.env``, Kubernetes manifests, Helm values, vLLM ``--config`` files, unrelated
YAML (CI workflows), Dockerfiles, systemd units, shell scripts, SGLang launches (a compose service on an
``lmsysorg/sglang`` image, a shell script) and files relialint does not read (README, Python).
Prints wall time for each tool and the relialint/yamllint ratio (below 1: relialint is faster).

With ``--src`` (repeatable), each checkout's ``src/`` is run (``python -m relialint`` with ``PYTHONPATH``) on the same
tree, the checkouts and yamllint taking turns ``--repeat`` times so machine noise hits them alike; the medians and
each checkout's ratio against yamllint are printed.
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

COMPOSE = """x-gpu: &gpu
  deploy:
    resources:
      reservations:
        devices: [{{driver: nvidia, count: 1, capabilities: [gpu]}}]
services:
  vllm{i}:
    <<: *gpu
    image: vllm/vllm-openai:v0.30.0
    command: >
      Qwen/Qwen3-8B --kv-cache-dtype ${{KV_DTYPE:-auto}}
      --max-model-len 8192 --gpu-memory-utilization 0.{g}
  llama{i}:
    image: ghcr.io/ggml-org/llama.cpp:server-vulkan-b6500
    command: ["-m", "/models/m{i}-q4_k_m.gguf", "-ngl", "${{N_GPU_LAYERS:--1}}"]
"""
KUBERNETES = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: vllm-{i}}}
spec:
  template:
    spec:
      nodeSelector: {{nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.30.0
          args: [meta-llama/Llama-3.1-8B-Instruct, --tensor-parallel-size, "2", --max-model-len, "{n}"]
          env: [{{name: VLLM_USE_V2_MODEL_RUNNER, value: "0"}}]
          resources: {{limits: {{nvidia.com/gpu: 2}}}}
---
apiVersion: v1
kind: Service
metadata: {{name: vllm-{i}}}
spec: {{ports: [{{port: 8000}}]}}
"""
HELM = """servingEngineSpec:
  modelSpec:
    - name: m{i}
      repository: vllm/vllm-openai
      tag: v0.30.0
      modelURL: Qwen/Qwen3-8B
      requestGPU: 1
      vllmConfig: {{maxModelLen: {n}, enablePrefixCaching: true, extraArgs: [--kv-cache-dtype, fp8]}}
"""
VLLM_CONFIG = "model: Qwen/Qwen3-8B\ntensor_parallel_size: 2\nmax-model-len: {n}\nenforce-eager: true\n"
WORKFLOW = """name: ci-{i}
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: pytest -q
"""
DOCKERFILE = """FROM vllm/vllm-openai:v0.30.0
ENV VLLM_USE_V2_MODEL_RUNNER=0
CMD ["Qwen/Qwen3-8B", "--max-model-len", "{n}"]
"""
UNIT = """[Service]
Environment=MODEL=Qwen/Qwen3-8B
ExecStart=/opt/venv/bin/vllm serve ${{MODEL}} --max-model-len {n}
"""
SHELL = "#!/usr/bin/env bash\nexec vllm serve Qwen/Qwen3-8B --max-model-len {n} --kv-cache-dtype fp8\n"
SGLANG_COMPOSE = """services:
  sglang{i}:
    image: lmsysorg/sglang:v0.5.2-cu126
    ipc: host
    command: >
      python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --host 0.0.0.0 --port 30000
      --tp 2 --mem-fraction-static 0.8{g} --context-length {n} --kv-cache-dtype fp8_e5m2
    environment:
      SGLANG_ENABLE_TORCH_COMPILE: "0"
    deploy:
      resources:
        reservations:
          devices: [{{driver: nvidia, count: 2, capabilities: [gpu]}}]
"""
SGLANG_SHELL = """#!/usr/bin/env bash
export CUDA_VISIBLE_DEVICES=0,1
exec python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct \\
  --tp-size 2 --context-length {n} --attention-backend flashinfer --chunked-prefill-size 4096
"""
KINDS = 12
"""The kinds of app folder the tree cycles through (see :func:`build`)."""


def build(root: Path, count: int) -> list[Path]:
    """Write ``count`` files; returns the YAML files among them."""
    yaml_files: list[Path] = []
    written = 0
    i = 0
    while written < count:
        folder = root / f"svc{i // 10:03d}" / f"app{i}"
        folder.mkdir(parents=True, exist_ok=True)
        kind = i % KINDS
        n = 4096 + i
        files: list[tuple[str, str]]
        if kind == 0:
            files = [("compose.yaml", COMPOSE.format(i=i, g=5 + i % 4)), (".env", f"KV_DTYPE=fp8\n# app {i}\n")]
        elif kind == 1:
            files = [("deployment.yaml", KUBERNETES.format(i=i, n=n))]
        elif kind == 2:
            files = [("values.yaml", HELM.format(i=i, n=n))]
        elif kind == 3:
            files = [("vllm-config.yaml", VLLM_CONFIG.format(n=n))]
        elif kind == 4:
            files = [("ci.yml", WORKFLOW.format(i=i))]
        elif kind == 5:
            files = [("Dockerfile", DOCKERFILE.format(n=n))]
        elif kind == 6:
            files = [("vllm.service", UNIT.format(n=n))]
        elif kind == 7:
            files = [("serve.sh", SHELL.format(n=n))]
        elif kind == 8:
            files = [("README.md", f"# app {i}\n"), ("main.py", "print('hello')\n")]
        elif kind == 9:
            files = [("k8s.yml", KUBERNETES.format(i=i, n=n))]
        elif kind == 10:
            files = [("compose.yaml", SGLANG_COMPOSE.format(i=i, g=i % 10, n=n))]
        else:
            files = [("sglang.sh", SGLANG_SHELL.format(n=n))]
        for name, text in files:
            if written >= count:
                break
            path = folder / name
            path.write_text(text)
            written += 1
            if name.endswith((".yaml", ".yml")):
                yaml_files.append(path)
        i += 1
    return yaml_files


BIG_SERVICE = """  llm{i}:
    image: vllm/vllm-openai:v0.30.0
    command: ["Qwen/Qwen2.5-72B-Instruct", "--kv-cache-dtype", "fp8", "--max-model-len", "4096"]
"""


def big_files(root: Path) -> list[tuple[str, Path]]:
    """The single large files of issue 14: 1 MiB compose files of two shapes, 1.7 MB single-line scripts."""
    root.mkdir(parents=True, exist_ok=True)
    many = "services:\n"
    i = 0
    while len(many) < 1024 * 1024 - len(BIG_SERVICE) - 16:
        many += BIG_SERVICE.format(i=i)
        i += 1
    env = 'services:\n  llm:\n    image: vllm/vllm-openai:v0.30.0\n    command: ["m", "--kv-cache-dtype", "fp8"]\n' \
          "    environment:\n"
    j = 0
    while len(env) < 1024 * 1024 - 64:
        env += f'      VAR_{j}: "value-{j}-xxxxxxxxxxxxxxxxxxxx"\n'
        j += 1
    words = "vllm serve m " + "--x y " * 283_000 + "--kv-cache-dtype fp8\n"
    token = 'vllm serve m --kv-cache-dtype fp8 --served-model-name "' + "x" * 1_700_000 + '"\n'
    out = []
    for name, text in ((f"compose-{i}-services/compose.yaml", many), (f"compose-{j}-env/compose.yaml", env),
                       ("line-words.sh", words), ("line-token.sh", token)):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        out.append((f"{name} ({len(text.encode()) / 1e6:.2f} MB)", path))
    return out


def scale(relialint: str, root: Path) -> None:
    """Issue 14's figures: each large single file, then a tree of 10,000 files against one of 1,000."""
    for label, path in big_files(root / "big"):
        seconds, code = timed([relialint, str(path), "--gpu", "A100", "--format", "json"])
        print(f"{label:46} {seconds:7.2f} s  (exit {code})")
    times = {}
    for count in (1000, 10_000):
        build(root / f"tree{count}", count)
        times[count], code = timed([relialint, str(root / f"tree{count}"), "--format", "json"])
        print(f"tree of {count:>6} files                         {times[count]:7.2f} s  (exit {code})")
    print(f"ratio 10,000 / 1,000 files: {times[10_000] / times[1000]:.1f} (10 is proportional)")


def timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, int]:
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env)
    return time.perf_counter() - start, done.returncode


def timed_cpu(command: list[str], env: dict[str, str] | None = None) -> tuple[float, int, float]:
    """Wall seconds, exit code and the child's CPU seconds (user + system; less moved by other work on a shared
    machine than wall time)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds, code = timed(command, env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return seconds, code, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def checkout_env(src: Path) -> dict[str, str]:
    """The environment that runs ``python -m relialint`` from one checkout's ``src/`` (bytecode cached, as an
    installed tool runs)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(src.resolve() / "src")
    return env


def compare(sources: list[Path], root: Path, yaml_files: list[Path], yamllint: str | None, repeat: int) -> None:
    """Each checkout on the same tree, taking turns with yamllint ``repeat`` times after one warm-up round (which
    checkout goes first rotates from round to round); medians of wall and CPU time."""
    paths = [str(p) for p in yaml_files]
    runs: dict[str, list[tuple[float, float]]] = {}
    codes: dict[str, int] = {}
    for round_ in range(repeat + 1):
        if yamllint is not None:
            seconds, code, cpu = timed_cpu([yamllint, "-d", "relaxed", *paths])
            runs.setdefault("yamllint", []).append((seconds, cpu))
            codes["yamllint"] = code
        turn = sources[round_ % len(sources):] + sources[:round_ % len(sources)]  # who goes first rotates
        for src in turn:
            env = checkout_env(src)
            for label, target in (("DIR", [str(root)]), ("YAML", paths)):
                seconds, code, cpu = timed_cpu([sys.executable, "-m", "relialint", *target, "--format", "json"], env)
                runs.setdefault(f"{src}|{label}", []).append((seconds, cpu))
                codes[f"{src}|{label}"] = code
        if round_ == 0:  # warm-up: the compiled record cache and bytecode of each checkout
            runs.clear()

    def medians(key: str) -> tuple[float, float]:
        return statistics.median(t[0] for t in runs[key]), statistics.median(t[1] for t in runs[key])

    peer = medians("yamllint") if "yamllint" in runs else None
    if peer is not None:
        print(f"yamllint on the YAML files: wall {peer[0]:6.2f} s, CPU {peer[1]:6.2f} s  (medians of {repeat}, "
              f"exit {codes['yamllint']})")
    for src in sources:
        whole, yaml = medians(f"{src}|DIR"), medians(f"{src}|YAML")
        print(f"{src}: relialint DIR wall {whole[0]:6.2f} s, CPU {whole[1]:6.2f} s (exit {codes[f'{src}|DIR']}); "
              f"on the YAML files wall {yaml[0]:6.2f} s, CPU {yaml[1]:6.2f} s"
              + (f"; ratio to yamllint: wall {yaml[0] / peer[0]:.2f}, CPU {yaml[1] / peer[1]:.2f}" if peer else "")
              + f"  (medians of {repeat})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--keep", type=Path, help="write the tree here and keep it")
    parser.add_argument("--scale", action="store_true", help="large single files, and 10,000 files against 1,000")
    parser.add_argument("--src", type=Path, action="append", help="a checkout to run (repeatable): side by side")
    parser.add_argument("--repeat", type=int, default=5, help="rounds of turns with --src  [default: 5]")
    args = parser.parse_args()
    bindir = Path(sys.executable).parent
    relialint = shutil.which("relialint", path=str(bindir)) or "relialint"
    yamllint = shutil.which("yamllint", path=str(bindir)) or shutil.which("yamllint")
    tmp = None
    if args.keep:
        root = args.keep
        root.mkdir(parents=True, exist_ok=True)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="relialint-bench-")
        root = Path(tmp.name)
    try:
        if args.scale:
            scale(relialint, root)
            return 0
        yaml_files = build(root, args.files)
        total = sum(1 for p in root.rglob("*") if p.is_file())
        print(f"tree: {root} ({total} files, {len(yaml_files)} YAML)")
        if args.src:
            compare(args.src, root, yaml_files, yamllint, args.repeat)
            return 0
        r_time, r_code = timed([relialint, str(root), "--format", "json"])
        print(f"relialint DIR:            {r_time:7.2f} s  (exit {r_code})")
        r_yaml, _ = timed([relialint, *map(str, yaml_files), "--format", "json"])
        print(f"relialint on YAML files:  {r_yaml:7.2f} s")
        if yamllint is None:
            print("yamllint not found; no ratio")
            return 0
        y_time, y_code = timed([yamllint, "-d", "relaxed", *map(str, yaml_files)])
        print(f"yamllint on YAML files:   {y_time:7.2f} s  (exit {y_code})")
        print(f"ratio relialint/yamllint (same YAML files): {r_yaml / y_time:.2f}")
    finally:
        if tmp is not None:
            tmp.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

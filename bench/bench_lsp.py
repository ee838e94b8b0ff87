"""Editor latency of ``relialint lsp`` on a 50-line shell script, over stdio, as an editor sees it.

- start-up: spawning the server to the first ``publishDiagnostics`` of the opened file (the client sends
  ``initialize``, waits for the answer, then ``initialized`` and ``didOpen``, as editors do), median of ``--starts``
  fresh servers, and the CPU time each server used (less moved by the machine's load than the wall time);
- edit: ``didChange`` (one incremental edit, as editors send) to the ``publishDiagnostics`` of that version with
  the default settings, so the debounce is included, median of ``--edits`` edits;
- lint alone: the same with ``debounceMs: 0``, the server's own work plus the round trip.

Targets (issue 18): start-up median at most 300 ms, edit median at most 50 ms. The client is a few lines of JSON
over pipes (no LSP library), so nothing it imports is counted. relialint's modules are byte-compiled first, as
``pip install`` does (with ``PYTHONDONTWRITEBYTECODE`` set and a source checkout, every start would compile them
again). The machine's load average is printed with the figures: on a shared machine a median moves with it.

    python bench/bench_lsp.py [--starts 20] [--edits 100]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

STARTUP_TARGET_MS = 300
EDIT_TARGET_MS = 50

HEADER = """\
#!/usr/bin/env bash
# Serve an NVFP4 checkpoint on a workstation GPU, with a few helpers around it.
set -euo pipefail

MODEL=nvidia/Llama-3.3-70B-Instruct-FP4
PORT=8000
export HF_HOME=/models/hf
export VLLM_LOGGING_LEVEL=INFO
"""
HELPERS = "".join(f"log_{i}() {{ echo \"step {i}: $*\" >&2; }}\n" for i in range(24))
LAUNCH = """\
vllm serve "$MODEL" \\
  --dtype bfloat16 \\
  --kv-cache-dtype fp8 \\
  --tensor-parallel-size 2 \\
  --gpu-memory-utilization 0.90 \\
  --max-model-len {length} \\
  --max-num-batched-tokens 8192 \\
  --enable-prefix-caching \\
  --port "$PORT" \\
  --host 0.0.0.0
"""
LENGTH_LINE = "  --max-model-len "


def text(length: int) -> str:
    launch = LAUNCH.format(length=length)
    out = HEADER + HELPERS + "\n" + "wait_for_gpu() { nvidia-smi >/dev/null; }\nwait_for_gpu\n\n" + launch
    lines = out.count("\n")
    return out + "".join(f"# padding {i}\n" for i in range(50 - lines))


def server_command() -> list[str]:
    """``relialint lsp`` as an editor starts it: the console script beside this interpreter when there is one."""
    script = Path(sys.executable).parent / "relialint"
    if script.is_file():
        return [str(script), "lsp"]
    found = shutil.which("relialint")
    return [found, "lsp"] if found else [sys.executable, "-m", "relialint.cli", "lsp"]


class Client:
    """A bare LSP client: frames out on stdin, a thread reading frames from stdout into a queue with their time."""

    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.received: queue.Queue[tuple[float, dict[str, Any]]] = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = 0
            while True:
                line = stream.readline()
                if not line:
                    return
                if not line.strip():
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            body = stream.read(length)
            self.received.put((time.perf_counter(), json.loads(body)))

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def request(self, method: str, params: Any) -> Any:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        while True:
            _, message = self.received.get(timeout=60)
            if message.get("id") == self.next_id and "method" not in message:
                return message.get("result")

    def notify(self, method: str, params: Any) -> None:
        self.send({"method": method, "params": params})

    def diagnostics(self, version: int) -> tuple[float, list[Any]]:
        """When the diagnostics of ``version`` arrived, and what they were."""
        while True:
            when, message = self.received.get(timeout=60)
            params = message.get("params") or {}
            if message.get("method") == "textDocument/publishDiagnostics" and params.get("version") == version:
                return when, params["diagnostics"]

    def initialize(self, options: dict[str, Any]) -> None:
        self.request("initialize", {"processId": os.getpid(), "rootUri": None, "capabilities": {},
                                    "initializationOptions": options})
        self.notify("initialized", {})

    def open(self, uri: str, content: str) -> None:
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "sh", "version": 1, "text": content}})

    def close(self) -> float:
        """Shut the server down; the CPU time (user and system) it used, in milliseconds."""
        self.request("shutdown", None)
        self.notify("exit", None)
        _, status, usage = os.wait4(self.process.pid, 0)
        self.process.returncode = os.waitstatus_to_exitcode(status)
        return (usage.ru_utime + usage.ru_stime) * 1000


def start_up(uri: str, starts: int) -> tuple[list[float], list[float]]:
    """Spawn to first diagnostics, and the CPU time of each server (start, one lint, shutdown): the machine's load
    moves the first figure much more than the second."""
    times: list[float] = []
    cpu: list[float] = []
    for _ in range(starts):
        begin = time.perf_counter()
        client = Client(server_command())
        client.initialize({"gpu": "RTX 4090"})
        client.open(uri, text(8192))
        end, diagnostics = client.diagnostics(1)
        assert "RL101" in [d["code"] for d in diagnostics], diagnostics  # the definite finding of the sample
        times.append((end - begin) * 1000)
        cpu.append(client.close())
    return times, cpu


def edits(uri: str, count: int, options: dict[str, Any]) -> list[float]:
    """``didChange`` to the diagnostics of that version, one incremental edit each: the digits of
    ``--max-model-len`` replaced, as a user retyping the value."""
    client = Client(server_command())
    client.initialize({"gpu": "RTX 4090", **options})
    content = text(8192)
    client.open(uri, content)
    client.diagnostics(1)
    line = content.split("\n").index(LENGTH_LINE + "8192 \\")
    times: list[float] = []
    old = "8192"
    for i in range(count + 5):  # 5 warm-up edits, not counted
        new = str(8193 + i)
        start = time.perf_counter()
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": i + 2},
            "contentChanges": [{"range": {"start": {"line": line, "character": len(LENGTH_LINE)},
                                          "end": {"line": line, "character": len(LENGTH_LINE) + len(old)}},
                                "text": new}]})
        end, diagnostics = client.diagnostics(i + 2)
        assert "RL101" in [d["code"] for d in diagnostics], diagnostics
        old = new
        if i >= 5:
            times.append((end - start) * 1000)
    client.close()
    return times


def describe(name: str, times: list[float], target: float | None) -> str:
    ordered = sorted(times)
    p90 = ordered[max(int(len(ordered) * 0.9) - 1, 0)]
    goal = f" (target: median at most {target:.0f} ms)" if target is not None else ""
    return (f"{name}, {len(times)} runs: median {statistics.median(times):.1f} ms, p90 {p90:.1f} ms, "
            f"min {ordered[0]:.1f} ms, max {ordered[-1]:.1f} ms{goal}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--edits", type=int, default=100)
    args = parser.parse_args()
    import relialint

    compileall.compile_dir(str(Path(relialint.__file__).parent), quiet=1)
    load = os.getloadavg()[0]
    print(f"server: {' '.join(server_command())}; {os.cpu_count()} CPUs, load average {load:.2f} at the start")
    with tempfile.TemporaryDirectory() as folder:
        uri = (Path(folder) / "serve.sh").as_uri()
        times, cpu = start_up(uri, args.starts)
        print(describe("spawn -> first publishDiagnostics", times, STARTUP_TARGET_MS))
        print(describe("CPU time of the server (user + system), start to exit", cpu, None))
        print(describe("didChange -> publishDiagnostics, default settings (debounce included)",
                       edits(uri, args.edits, {}), EDIT_TARGET_MS))
        print(describe("didChange -> publishDiagnostics, debounceMs 0 (the lint alone)",
                       edits(uri, args.edits, {"debounceMs": 0}), None))
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()

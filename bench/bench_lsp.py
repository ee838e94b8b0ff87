"""Editor latency: time from ``didChange`` to ``publishDiagnostics`` for a 50-line file, median over 100 edits.

Runs ``relialint lsp`` as a subprocess over stdio with a real LSP client (pygls), with the debounce set to 0 so
that the figure is the server's own work (read, extract, evaluate, publish) plus the round trip; an editor adds
the debounce (150 ms by default) on top. Target: median under 20 ms.

    python bench/bench_lsp.py [--edits 100]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

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


def text(length: int) -> str:
    launch = LAUNCH.format(length=length)
    out = HEADER + HELPERS + "\n" + "wait_for_gpu() { nvidia-smi >/dev/null; }\nwait_for_gpu\n\n" + launch
    lines = out.count("\n")
    return out + "".join(f"# padding {i}\n" for i in range(50 - lines))


async def run(edits: int) -> list[float]:
    client = LanguageClient("bench", "0")
    received: asyncio.Queue[float] = asyncio.Queue()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def diagnostics(params: types.PublishDiagnosticsParams) -> None:
        received.put_nowait(time.perf_counter())

    await client.start_io(sys.executable, "-m", "relialint.cli", "lsp")
    await client.initialize_async(types.InitializeParams(
        capabilities=types.ClientCapabilities(), initialization_options={"gpu": "RTX 4090", "debounceMs": 0}))
    client.initialized(types.InitializedParams())
    with tempfile.TemporaryDirectory() as folder:
        uri = (Path(folder) / "serve.sh").as_uri()
        first = text(8192)
        assert first.count("\n") == 50, first.count("\n")
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="shellscript", version=1, text=first)))
        await received.get()
        times: list[float] = []
        for i in range(edits + 5):  # 5 warm-up edits, not counted
            new = text(8192 + i + 1)
            start = time.perf_counter()
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(uri=uri, version=i + 2),
                [types.TextDocumentContentChangeWholeDocument(text=new)]))
            end = await received.get()
            if i >= 5:
                times.append((end - start) * 1000)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--edits", type=int, default=100)
    args = parser.parse_args()
    times = asyncio.run(run(args.edits))
    ordered = sorted(times)
    p90 = ordered[int(len(ordered) * 0.9) - 1]
    print(f"didChange -> publishDiagnostics, 50-line shell script, {len(times)} edits: "
          f"median {statistics.median(times):.2f} ms, p90 {p90:.2f} ms, min {ordered[0]:.2f} ms, "
          f"max {ordered[-1]:.2f} ms (target: median under 20 ms)")


if __name__ == "__main__":
    main()

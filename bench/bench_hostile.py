"""Issue 22's hostile inputs at n, 2n and 4n: the slope of each, and a hover after 2,000 edits to a 4 MB document.

    python bench/bench_hostile.py                 # every case, this checkout
    python bench/bench_hostile.py --src ../main   # the same cases against another checkout (its src/)
    python bench/bench_hostile.py --cases env-quote,globs --limit-s 60

Each measurement runs in a fresh interpreter (``PYTHONPATH=SRC/src``) that builds the input, then times the work
alone in CPU seconds of that process (``time.process_time``: other work on the machine does not count), under
``RLIMIT_CPU`` so that an unbounded case ends (``> LIMIT``). The ratios say the slope: 2.0 from n to 2n is linear,
4.0 quadratic. The hover is timed on the clock, as an editor waits for it: a real ``relialint lsp`` over stdio.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ANSWER_S = 300
"""How long the hover bench waits for an answer before it writes it down as none."""

PRELUDE = """
import sys, time, tempfile, os
from pathlib import Path
N = int(sys.argv[1])
"""

# name -> (what it is, sizes n, 2n, 4n, the script: builds the input from N, then times `work()`)
CASES: dict[str, tuple[str, tuple[int, int, int], str]] = {
    "env-quote": ("env file, unterminated quote over N lines (lint_text)", (75_000, 150_000, 300_000), """
from relialint.run.lint import lint_text
from relialint.core.results import Options
text = 'A="\\n' + "x\\n" * N
lint_text("A=1\\n", "/tmp/b/.env", "env", Options())  # imports and records, once
def work(): lint_text(text, "/tmp/b/.env", "env", Options())
"""),
    "env-blanks": ("env file, a value with N blanks inside (lint_text)", (50_000, 100_000, 200_000), """
from relialint.run.lint import lint_text
from relialint.core.results import Options
text = "A=x" + " " * N + "y\\n"
lint_text("A=1\\n", "/tmp/b/.env", "env", Options())
def work(): lint_text(text, "/tmp/b/.env", "env", Options())
"""),
    "systemd": ("systemd ExecStart continued to the end of the file, N lines (lint_text)",
                (50_000, 100_000, 200_000), """
from relialint.run.lint import lint_text
from relialint.core.results import Options
text = "[Service]\\nExecStart=/usr/bin/vllm serve m \\\\\\n" + "  --x y \\\\\\n" * N
lint_text("[Service]\\nExecStart=vllm serve m\\n", "/tmp/b/vllm.service", "systemd", Options())
def work(): lint_text(text, "/tmp/b/vllm.service", "systemd", Options())
"""),
    "tree": ("a folder of N one-line scripts (lint_paths)", (1_000, 2_000, 4_000), """
from relialint.run.lint import lint_paths
from relialint.core.results import Options
folder = Path(tempfile.mkdtemp(prefix="relialint-bench-"))
for i in range(N):
    (folder / f"serve{i}.sh").write_text("vllm serve Qwen/Qwen3-8B --kv-cache-dtype fp8\\n")
one = Path(tempfile.mkdtemp(prefix="relialint-bench-")) / "serve.sh"
one.write_text("vllm serve Qwen/Qwen3-8B --kv-cache-dtype fp8\\n")
lint_paths([str(one)], Options())
def work(): lint_paths([str(folder)], Options())
"""),
    "probe": ("nvidia-smi CSV capture of N GPUs (probe)", (5_000, 10_000, 20_000), """
from relialint.run.probing import ProbeOptions, probe
path = Path(tempfile.mkdtemp(prefix="relialint-bench-")) / "q.csv"
path.write_text("index, uuid, utilization.gpu [%], clocks_event_reasons.active\\n"
                + "".join(f"{i}, GPU-{i:08d}, 99 %, 0x4\\n" for i in range(N)))
def work(): probe(ProbeOptions(files=[path]))
"""),
    "facts-keys": ("facts file of N keys (located)", (30_000, 60_000, 120_000), """
import json
from relialint.probe import factsfile
text = json.dumps({"facts": {f"key.{i}": i for i in range(N)}}, indent=1)
def work(): factsfile.read_text_as(text, "facts.json", ".json")
"""),
    "globs": ("glob **/ x 20 + x against a path N folders deep", (20_000, 40_000, 80_000), """
from relialint.run.config import glob_match
pattern, path = "**/" * 20 + "x", "a/" * N + "y"
def work(): glob_match(pattern, path)
"""),
    "glob-stars": ("glob *a x 20 + b against a name of N characters", (100_000, 200_000, 400_000), """
from relialint.run.config import glob_match
pattern, path = "*a" * 20 + "b", "a" * N
def work(): glob_match(pattern, path)
"""),
    "lsp-edits": ("N keystrokes all over a 4 MB document (Document.apply)", (500, 1_000, 2_000), """
import random
from relialint.lsp.text import Document
line = "vllm serve Qwen/Qwen3-8B --max-model-len 8192  # a line of a large script, about eighty characters\\n"
document = Document("file:///b/big.sh", line * (4_000_000 // len(line)), 1)
rng = random.Random(7)
edits = []
for i in range(N):
    at = {"line": rng.randrange(40_000), "character": rng.randrange(80)}
    end = {"line": at["line"], "character": at["character"] + (i % 2)}
    edits.append({"range": {"start": at, "end": end}, "text": "x" if i % 2 == 0 else ""})
def work():
    for change in edits:
        document.apply(change)
"""),
    "lsp-size": ("2,000 keystrokes to a document of N MB (Document.apply)", (1, 2, 4), """
import random
from relialint.lsp.text import Document
line = "vllm serve Qwen/Qwen3-8B --max-model-len 8192  # a line of a large script, about eighty characters\\n"
document = Document("file:///b/big.sh", line * (N * 1_000_000 // len(line)), 1)
rng = random.Random(7)
places = [{"line": rng.randrange(N * 10_000), "character": 3} for _ in range(2_000)]
edits = [{"range": {"start": at, "end": at}, "text": "x"} for at in places]
def work():
    for change in edits:
        document.apply(change)
"""),
}

TIMER = """
work_start = time.process_time()
work()
print(json.dumps(time.process_time() - work_start))
"""


def measure(src: Path, script: str, n: int, limit_s: int) -> float | None:
    """CPU seconds of the work at size ``n``; ``None`` past ``limit_s``."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (limit_s, limit_s + 5))

    code = "import json\n" + PRELUDE + script + TIMER
    done = subprocess.run([sys.executable, "-c", code, str(n)], capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONPATH": str(src / "src")}, preexec_fn=limit)
    if done.returncode != 0:
        if done.returncode in (-24, -9):  # SIGXCPU, SIGKILL: past the limit
            return None
        raise RuntimeError(done.stderr[-2000:])
    return float(done.stdout.strip().splitlines()[-1])


def frame(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def hover_after_edits(src: Path, edits: int = 2_000) -> dict[str, float]:
    """A real server over stdio: open a 4 MB script and wait for its diagnostics; type ``edits`` keystrokes and
    hover; send ``edits`` more at once and hover behind them; hover again. Clock times, as the editor sees them."""
    import random
    import threading

    line = "vllm serve Qwen/Qwen3-8B --max-model-len 8192  # a line of a large script, about eighty characters\n"
    text = "vllm serve m --kv-cache-dtype fp8\n" + line * (4_000_000 // len(line))
    folder = Path(tempfile.mkdtemp(prefix="relialint-bench-"))
    uri = (folder / "big.sh").as_uri()
    server = subprocess.Popen([sys.executable, "-m", "relialint", "lsp"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              env={**os.environ, "PYTHONPATH": str(src / "src")})
    assert server.stdin is not None and server.stdout is not None
    answers: dict[object, float] = {}
    published = threading.Event()
    got = threading.Condition()

    def read() -> None:
        out = server.stdout
        assert out is not None
        while True:
            header = out.readline()
            if not header:
                return
            length = int(header.split(b":")[1])
            out.readline()
            message = json.loads(out.read(length))
            with got:
                if "id" in message and "method" not in message:
                    answers[message["id"]] = time.perf_counter()
                elif message.get("method") == "textDocument/publishDiagnostics":
                    published.set()
                got.notify_all()

    threading.Thread(target=read, daemon=True).start()

    def send(message: dict[str, object]) -> None:
        assert server.stdin is not None
        server.stdin.write(frame(message))
        server.stdin.flush()

    def wait(request: object) -> float:
        """When the answer came; infinity when none came in ``ANSWER_S`` (a server that stopped answering)."""
        with got:
            got.wait_for(lambda: request in answers, timeout=ANSWER_S)
        return answers.get(request, float("inf"))

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {},
                                                                        "initializationOptions": {"gpu": "A100"}}})
    wait(1)
    send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "shellscript", "version": 1, "text": text}}})
    opened = time.perf_counter()
    published.wait(ANSWER_S)
    first_lint = time.perf_counter() - opened
    rng = random.Random(7)
    hover = {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 30}}
    version = 1

    def keystrokes(count: int, pause_s: float) -> None:
        nonlocal version
        for _ in range(count):
            version += 1
            at = {"line": 1 + rng.randrange(40_000), "character": rng.randrange(80)}
            send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"range": {"start": at, "end": at}, "text": "x"}]}})
            if pause_s:
                time.sleep(pause_s)

    figures: dict[str, float] = {"first lint of the 4 MB document, on open (s)": first_lint}
    start = time.perf_counter()
    keystrokes(edits, 0.005)  # typing: 200 keys a second, the debounce never runs out
    sent = time.perf_counter()
    send({"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": hover})
    figures["typed 2,000 edits (s)"] = sent - start
    figures["a hover after them, answered in (s)"] = wait(2) - sent
    start = time.perf_counter()
    keystrokes(edits, 0.0)  # 2,000 more at once, as fast as the pipe takes them, and a hover behind them
    sent = time.perf_counter()
    send({"jsonrpc": "2.0", "id": 3, "method": "textDocument/hover", "params": hover})
    figures["sent 2,000 edits at once (s)"] = sent - start
    figures["a hover queued behind them, answered in (s)"] = wait(3) - sent
    again = time.perf_counter()
    send({"jsonrpc": "2.0", "id": 4, "method": "textDocument/hover", "params": hover})
    figures["the next hover, answered in (s)"] = wait(4) - again
    send({"jsonrpc": "2.0", "id": 5, "method": "shutdown"})
    send({"jsonrpc": "2.0", "method": "exit"})
    try:
        server.wait(ANSWER_S)
    except subprocess.TimeoutExpired:
        server.kill()  # still busy with the edits: the figures above say so
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", type=Path, default=ROOT, help="the checkout to measure (its src/ is imported)")
    parser.add_argument("--cases", default=",".join([*CASES, "lsp-hover"]))
    parser.add_argument("--limit-s", type=int, default=120, help="CPU seconds one measurement may take")
    args = parser.parse_args()
    chosen = args.cases.split(",")
    print(f"{'case':11} {'n':>8} {'2n':>8} {'4n':>8} | {'t(n)':>8} {'t(2n)':>8} {'t(4n)':>8} | "
          f"{'2n/n':>5} {'4n/2n':>5}  (CPU s)")
    for name in chosen:
        if name not in CASES:
            continue
        what, sizes, script = CASES[name]
        times = [measure(args.src, script, n, args.limit_s) for n in sizes]
        shown = [f"{t:8.3f}" if t is not None else f"{'>' + str(args.limit_s):>8}" for t in times]
        ratios = [f"{b / a:5.1f}" if a and b else "    -" for a, b in pairwise(times)]
        print(f"{name:11} {sizes[0]:>8} {sizes[1]:>8} {sizes[2]:>8} | {' '.join(shown)} | {' '.join(ratios)}   "
              f"{what}")
    if "lsp-hover" in chosen:
        for label, seconds in hover_after_edits(args.src).items():
            shown = f"{seconds * 1000:10.1f} ms" if seconds != float("inf") else f"none in {ANSWER_S} s"
            print(f"lsp-hover  {label:46} {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The language server under hostile editing (issue 22): an edit costs the edit, not the document; a flood of
configuration changes or thousands of open documents leaves it answering; a lone surrogate is a located problem.

Work is counted (bytes an edit allocates, lints run before an answer, CPU seconds with a wide margin), never the
time on the clock. ``bench/bench_hostile.py`` times a hover after 2,000 edits to a 4 MB document.
"""

from __future__ import annotations

import queue
import random
import subprocess
import sys
import time
import tracemalloc
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relialint.lsp.debounce import Debounce
from relialint.lsp.rpc import process
from relialint.lsp.server import RelialintServer
from relialint.lsp.text import Document, code_points
from tests.conftest import ROOT
from tests.test_lsp_server import SERVE_CMD, Recorder, did_open, initialize
from tests.work import HANG_S, cpu_budget

LINE = "vllm serve Qwen/Qwen3-8B --max-model-len 8192  # a line of a large script, about eighty characters\n"
BIG = LINE * (4_000_000 // len(LINE))  # 4 MB


def edit(line: int, character: int, text: str, end: tuple[int, int] | None = None) -> dict[str, Any]:
    stop = {"line": end[0], "character": end[1]} if end else {"line": line, "character": character}
    return {"range": {"start": {"line": line, "character": character}, "end": stop}, "text": text}


def changes(uri: str, version: int, *edits: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "textDocument/didChange",
            "params": {"textDocument": {"uri": uri, "version": version}, "contentChanges": list(edits)}}


# -- an edit costs the edit -----------------------------------------------------------------------------------------


def _typing(count: int, lines: int) -> list[dict[str, Any]]:
    """Keystrokes all over a document: a character typed, one deleted, a line broken, a pasted word."""
    rng = random.Random(7)
    out = []
    for i in range(count):
        line, character = rng.randrange(lines), rng.randrange(80)
        kind = i % 4
        if kind == 0:
            out.append(edit(line, character, "x"))
        elif kind == 1:
            out.append(edit(line, character, "", (line, character + 1)))
        elif kind == 2:
            out.append(edit(line, character, "\n"))
        else:
            out.append(edit(line, character, "--kv-cache-dtype fp8 "))
    return out


@pytest.mark.parametrize("text", [BIG, BIG.replace("\n", " ")], ids=["4 MB of lines", "one 4 MB line"])
def test_an_edit_allocates_in_proportion_to_the_edit_not_the_document(text: str) -> None:
    document = Document("file:///big.sh", text, 1)
    edits = _typing(200, text.count("\n") + 1)
    tracemalloc.start()
    try:
        most = 0
        for change in edits:
            before, _ = tracemalloc.get_traced_memory()
            tracemalloc.reset_peak()
            document.apply(change)
            _, peak = tracemalloc.get_traced_memory()
            most = max(most, peak - before)
    finally:
        tracemalloc.stop()
    assert most < 64 * 1024  # a few chunks of 2 KB; a copy of the document is 4 MB (8 MB with its line index)


def test_2000_edits_to_a_4_mb_document_then_a_hover(tmp_path: Path) -> None:
    out = Recorder()
    server = RelialintServer(out)
    server.handle(initialize({"gpu": "RTX 4090"}))
    uri = (tmp_path / "big.sh").as_uri()
    server.handle(did_open(uri, SERVE_CMD + BIG))
    # about 0.5 s; copying the document and finding its lines at each edit: a minute or more
    with cpu_budget(10):
        for version, change in enumerate(_typing(2_000, BIG.count("\n")), start=2):
            change["range"]["start"]["line"] += 20  # below the served command, which stays as it is
            change["range"]["end"]["line"] += 20
            server.handle(changes(uri, version, change))
        server.handle({"jsonrpc": "2.0", "id": 9, "method": "textDocument/hover",
                       "params": {"textDocument": {"uri": uri}, "position": {"line": 7, "character": 4}}})
        assert out.sent[-1]["id"] == 9  # answered (from the last lint: none yet, so nothing to show)
        text = server.documents[uri].text  # every edit applied, as before the next lint
    assert text.startswith(SERVE_CMD) and text.count("--kv-cache-dtype fp8 ") > 400


def test_edits_give_the_text_a_string_would(tmp_path: Path) -> None:
    text = "a😀b\r\nsecond\rthird\n" * 700  # past one chunk, with every kind of line break
    document = Document("file:///x.sh", text, 1, "utf-16")
    rng = random.Random(3)
    for _ in range(300):
        lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        line = rng.randrange(len(lines) + 1)
        character = rng.randrange(12)
        end_line = min(line + rng.randrange(3), len(lines))
        end_character = rng.randrange(12)
        new = rng.choice(["", "x", "\r", "\n", "\r\n", "é😀", "long " * 500])
        first = _offset(text, line, character)
        last = _offset(text, end_line, end_character)
        first, last = min(first, last), max(first, last)
        text = text[:first] + new + text[last:]
        document.apply(edit(line, character, new, (end_line, end_character)))
        assert document.text == text


def _offset(text: str, line: int, character: int) -> int:
    """The protocol's position in a plain string, as the server computed it before it kept chunks (UTF-16)."""
    import re

    starts = [0, *(m.end() for m in re.finditer(r"\r\n|\r|\n", text))]
    if line >= len(starts):
        return len(text)
    end = starts[line + 1] if line + 1 < len(starts) else len(text)
    body = text[starts[line]:end].rstrip("\r\n")
    return starts[line] + code_points(body, character, "utf-16")


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab\r\n😀", max_size=60),
       st.lists(st.tuples(st.integers(0, 70), st.integers(0, 70), st.text(alphabet="ab\r\n😀", max_size=9)),
                max_size=12))
def test_the_rope_is_the_text(text: str, edits: list[tuple[int, int, str]]) -> None:
    import re

    from relialint.lsp import rope as lsprope

    real_chunk = lsprope.MAX_CHUNK
    lsprope.MAX_CHUNK = 4  # chunk boundaries everywhere: between `\r` and `\n`, inside the edits
    try:
        rope = lsprope.Rope(text)
        for start, end, new in edits:
            start, end = sorted((min(start, len(text)), min(end, len(text))))
            text = text[:start] + new + text[end:]
            rope.replace(start, end, new)
            assert rope.text == text and len(rope) == len(text)
            assert all(c and len(c) <= 5 for c in rope.chunks)  # a `\r\n` may make one longer by one
            assert not any(a.endswith("\r") and b.startswith("\n") for a, b in pairwise(rope.chunks))
            starts = [0, *(m.end() for m in re.finditer(r"\r\n|\r|\n", text))]
            assert rope.line_count() == len(starts)
            assert [rope.line_start(i) for i in range(len(starts) + 1)] == [*starts, len(text)]
    finally:
        lsprope.MAX_CHUNK = real_chunk


# -- floods ---------------------------------------------------------------------------------------------------------


def test_a_flood_of_configuration_changes_lints_each_document_once(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    server = RelialintServer(Recorder())
    linted: list[str] = []
    incoming: queue.Queue[Any] = queue.Queue()
    incoming.put(initialize({"gpu": "RTX 4090"}))
    uris = [(tmp_path / f"s{i}.sh").as_uri() for i in range(3)]
    for uri in uris:
        incoming.put(did_open(uri, SERVE_CMD))
    for i in range(1_000):
        settings = {"settings": {"gpu": "RTX 4090" if i % 2 else "H100"}}
        incoming.put({"jsonrpc": "2.0", "method": "workspace/didChangeConfiguration", "params": settings})

    def lint(document: Document) -> list[dict[str, Any]]:
        linted.append(document.uri)
        if len(linted) == len(uris):
            incoming.put(None)  # the end of the stream, once each document has been linted once
        return []

    monkeypatch.setattr(server, "lint_document", lint)
    assert process(server, incoming) == 0
    assert sorted(linted) == sorted(uris)  # once each, after the flood: 3,000 lints before


def test_a_request_waits_for_one_lint_at_most(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = Recorder()
    server = RelialintServer(out)
    incoming: queue.Queue[Any] = queue.Queue()
    linted: list[str] = []
    where = {"textDocument": {"uri": (tmp_path / "s0.sh").as_uri()}, "position": {"line": 0, "character": 0}}
    hover = {"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover", "params": where}

    def lint(document: Document) -> list[dict[str, Any]]:
        if not linted:
            incoming.put(hover)  # the request comes while the first of 3,000 documents is linted
        linted.append(document.uri)
        if len(linted) == 3_000:
            incoming.put(None)
        return []

    monkeypatch.setattr(server, "lint_document", lint)
    incoming.put(initialize({"gpu": "RTX 4090"}))
    for i in range(3_000):
        incoming.put(did_open((tmp_path / f"s{i}.sh").as_uri(), "vllm serve m\n"))
    answered: list[int] = []
    real_send = out.send

    def send(message: dict[str, Any]) -> None:
        if message.get("id") == 7:
            answered.append(len(linted))
        real_send(message)

    monkeypatch.setattr(out, "send", send)
    assert process(server, incoming) == 0
    assert answered == [1]  # after the lint in progress: all 3,000 before


def test_a_large_document_not_linted_yet_waits_for_the_debounce() -> None:
    debounce = Debounce(0.15)
    assert debounce.due("a", 10.0, size=4_000_000) == 10.15  # its lint takes seconds: edits coalesce
    assert debounce.due("a", 10.0, size=4_000) == 10.0  # a small one: at once
    debounce.linted("a", 5.0)  # the server's first lint: not a measure
    debounce.linted("a", 0.01)
    assert debounce.due("a", 10.0, size=4_000_000) == 10.0  # timed: what it cost decides


# -- bad text -------------------------------------------------------------------------------------------------------


def test_a_lone_surrogate_in_an_edit_is_a_located_problem(tmp_path: Path) -> None:
    out = Recorder()
    server = RelialintServer(out)
    server.handle(initialize({"gpu": "RTX 4090"}))
    uri = (tmp_path / "serve-cmd.sh").as_uri()
    server.handle(did_open(uri, SERVE_CMD))
    server.run_due(time.monotonic())
    server.handle(changes(uri, 2, edit(2, 3, "\ud800")))
    server.run_due(time.monotonic())
    diagnostics = out.sent[-1]["params"]["diagnostics"]
    assert [(d.get("code"), d["message"]) for d in diagnostics] == [
        ("RL101", diagnostics[0]["message"]),  # the last good lint, kept
        ("parse", "not valid Unicode (a lone surrogate, U+D800); not read")]
    assert diagnostics[1]["range"]["start"] == {"line": 2, "character": 3}


def test_the_server_with_standard_input_closed() -> None:
    proc = subprocess.run(f'exec "{sys.executable}" -m relialint lsp <&-', shell=True, capture_output=True,
                          env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"}, timeout=HANG_S, check=False)
    assert (proc.returncode, proc.stdout, proc.stderr.decode()) == (
        2, b"", "relialint: error: standard input is closed; relialint lsp needs it\n")


@pytest.mark.parametrize("command", ["", "probe", "facts"])
def test_standard_output_closed(tmp_path: Path, command: str) -> None:
    (tmp_path / "serve.sh").write_text("vllm serve m\n")
    args = f"{command} --from-nvidia-smi /dev/null" if command == "probe" else f"{command} serve.sh"
    proc = subprocess.run(f'exec "{sys.executable}" -m relialint {args} >&-', shell=True, capture_output=True,
                          cwd=tmp_path, env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"}, timeout=HANG_S,
                          check=False)
    assert (proc.returncode, proc.stderr.decode()) == (
        2, f"relialint: error: standard output is closed; relialint {command or 'check'} needs it\n")

"""The language server in-process: when it lints after an edit (a fake clock), what its message loop coalesces,
positions in the client's units, and which modules its start-up leaves unloaded."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from relialint.lsp.debounce import Debounce
from relialint.lsp.frame import Frames
from relialint.lsp.rpc import Output, process, serve
from relialint.lsp.server import RelialintServer
from relialint.lsp.text import Document, InvalidParams, choose_encoding, path_of
from tests.conftest import ROOT
from tests.work import HANG_S

SERVE_CMD = (ROOT / "examples" / "serve-cmd.sh").read_text(encoding="utf-8")


class Recorder(Output):
    """Messages the server sends, kept as objects."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)

    def published(self) -> list[tuple[int | None, list[str]]]:
        return [(m["params"].get("version"), [d.get("code") for d in m["params"]["diagnostics"]])
                for m in self.sent if m.get("method") == "textDocument/publishDiagnostics"]


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def initialize(options: dict[str, Any], capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"capabilities": capabilities or {}, "initializationOptions": options}}


def did_open(uri: str, text: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": uri, "languageId": "sh", "version": 1, "text": text}}}


def did_change(uri: str, version: int, text: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "textDocument/didChange",
            "params": {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}}


def server_with(clock: Clock, cost_s: float, options: dict[str, Any],
                monkeypatch: pytest.MonkeyPatch) -> tuple[RelialintServer, Recorder]:
    """A server whose every lint takes ``cost_s`` on ``clock`` (the lint itself is real)."""
    out = Recorder()
    server = RelialintServer(out, clock, clock)
    real = server.lint_document

    def timed(document: Document) -> list[dict[str, Any]]:
        result = real(document)
        clock.now += cost_s
        return result

    monkeypatch.setattr(server, "lint_document", timed)
    server.handle(initialize({"gpu": "RTX 4090", **options}))
    return server, out


# -- the debounce ---------------------------------------------------------------------------------------------------


def test_debounce_lints_at_once_when_the_last_lint_was_cheap() -> None:
    debounce = Debounce(0.25)  # cheap: at most 62.5 ms
    assert debounce.due("a", 10.0) == 10.0  # never linted: at once
    debounce.linted("a", 5.0)  # the server's first lint (imports, records): not a measure
    assert debounce.due("a", 10.0) == 10.0
    debounce.linted("a", 0.0625)
    assert debounce.due("a", 10.0) == 10.0  # exactly the cheap bound: at once
    debounce.linted("a", 0.125)
    assert debounce.due("a", 10.0) == 10.25  # dearer: after the debounce
    assert debounce.due("b", 10.0) == 10.0  # per document
    debounce.forget("a")
    assert debounce.due("a", 10.0) == 10.0
    off = Debounce(0.0)
    off.linted("a", 0.0)
    off.linted("a", 3.0)
    assert off.due("a", 7.0) == 7.0  # debounceMs 0: always at once


def test_a_cheap_lint_runs_at_once_after_an_edit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    server, out = server_with(clock, 0.005, {"debounceMs": 250}, monkeypatch)
    uri = (tmp_path / "serve-cmd.sh").as_uri()
    server.handle(did_open(uri, SERVE_CMD))
    assert server.next_due() == 0.0
    server.run_due(0.0)
    for version, at in ((2, 1.0), (3, 2.0)):
        clock.now = at
        server.handle(did_change(uri, version, SERVE_CMD.replace("--dtype bfloat16", "--dtype float16")))
        assert server.next_due() == at  # not 250 ms later
        server.run_due(at)
        assert server.next_due() is None
    assert out.published() == [(1, ["RL101"]), (2, []), (3, [])]


def test_a_dear_lint_waits_for_the_debounce_and_edits_coalesce(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    server, out = server_with(clock, 0.125, {"debounceMs": 250}, monkeypatch)
    uri = (tmp_path / "serve-cmd.sh").as_uri()
    server.handle(did_open(uri, SERVE_CMD))
    server.run_due(0.0)  # the first lint of the server: not recorded
    clock.now = 1.0
    server.handle(did_change(uri, 2, SERVE_CMD + "\n"))
    assert server.next_due() == 1.0  # nothing known of this document's cost yet: at once
    server.run_due(1.0)  # takes 125 ms: dearer than a quarter of the debounce
    clock.now = 2.0
    server.handle(did_change(uri, 3, SERVE_CMD.replace("bfloat16", "float1")))
    assert server.next_due() == 2.25
    clock.now = 2.125
    server.run_due(2.125)  # not due yet: nothing published
    assert out.published() == [(1, ["RL101"]), (2, ["RL101"])]
    clock.now = 2.5
    server.handle(did_change(uri, 4, SERVE_CMD.replace("bfloat16", "float16")))
    assert server.next_due() == 2.75  # the debounce starts again at the last edit
    server.run_due(2.75)
    assert out.published() == [(1, ["RL101"]), (2, ["RL101"]), (4, [])]


def test_a_lint_slowed_by_a_busy_machine_is_not_dear(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the cost is the server's CPU time: half a second on the clock spent waiting (as for a CPU that other work
    # holds) costs nothing, so the next edit is still linted at once
    out = Recorder()
    clock = Clock()  # the debounce's clock, moved by hand; what a lint costs is the server's real CPU time
    server = RelialintServer(out, clock)
    real = server.lint_document

    def waiting(document: Document) -> list[dict[str, Any]]:
        time.sleep(0.5)
        return real(document)

    monkeypatch.setattr(server, "lint_document", waiting)
    server.handle(initialize({"gpu": "RTX 4090", "debounceMs": 1000}))
    uri = (tmp_path / "serve-cmd.sh").as_uri()
    server.handle(did_open(uri, SERVE_CMD))
    server.run_due(clock())
    for version in (2, 3):
        clock.now += 10
        server.handle(did_change(uri, version, SERVE_CMD + "\n" * version))
        assert server.next_due() == clock.now  # at once, not a second later
        server.run_due(clock())
    assert out.published() == [(1, ["RL101"]), (2, ["RL101"]), (3, ["RL101"])]


def test_a_cheap_lint_is_not_held_back_by_the_debounce(tmp_path: Path) -> None:
    """A 10 s debounce, on a clock that never moves: a lint held back for it never runs. A lint of this script
    costs milliseconds of CPU (far under a quarter of the debounce), so each edit is linted at once, by the real
    message loop and the real cost clock; the exact rule, and coalescing under load, are in the tests above."""
    published: queue.Queue[dict[str, Any]] = queue.Queue()

    class Published(Output):
        def __init__(self) -> None:
            pass

        def send(self, message: dict[str, Any]) -> None:
            if message.get("method") == "textDocument/publishDiagnostics":
                published.put(message["params"])

    incoming: queue.Queue[Any] = queue.Queue()
    server = RelialintServer(Published(), clock=lambda: 0.0)
    loop = threading.Thread(target=process, args=(server, incoming, lambda: 0.0), daemon=True)
    loop.start()
    uri = (tmp_path / "serve-cmd.sh").as_uri()
    incoming.put({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "capabilities": {}, "initializationOptions": {"gpu": "RTX 4090", "debounceMs": 10_000}}})
    incoming.put({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "sh", "version": 1, "text": SERVE_CMD}}})
    assert published.get(timeout=HANG_S)["version"] == 1
    for version, dtype in ((2, "float16"), (3, "bfloat16"), (4, "float16")):
        incoming.put({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"text": SERVE_CMD.replace("bfloat16", dtype)}]}})
        params = published.get(timeout=HANG_S)  # a lint held back would wait for a clock that never moves
        assert params["version"] == version
        assert [d.get("code") for d in params["diagnostics"]] == ([] if dtype == "float16" else ["RL101"])
    incoming.put(None)
    loop.join(HANG_S)


def test_edits_received_while_busy_are_linted_once_at_their_last_version(tmp_path: Path) -> None:
    uri = (tmp_path / "serve-cmd.sh").as_uri()
    out = Recorder()
    incoming: queue.Queue[Any] = queue.Queue()
    for message in [initialize({"gpu": "RTX 4090"}), did_open(uri, SERVE_CMD),
                    *(did_change(uri, v, SERVE_CMD.replace("bfloat16", d))
                      for v, d in ((2, "float1"), (3, "float16"), (4, "bfloat16"), (5, "float16")))]:
        incoming.put(message)
    # all of it had arrived before the loop ran (as while a lint runs): handled in order, then one lint
    loop = threading.Thread(target=process, args=(RelialintServer(out), incoming))
    loop.start()
    deadline = time.monotonic() + HANG_S  # a guard against a hang, not a measure of speed
    while not out.published() and time.monotonic() < deadline:
        time.sleep(0.01)
    incoming.put({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    incoming.put({"jsonrpc": "2.0", "method": "exit"})
    loop.join(HANG_S)
    assert out.published() == [(5, [])]
    assert [m.get("id", m.get("method")) for m in out.sent] == [1, "textDocument/publishDiagnostics", 2]


def test_an_unreadable_stream_ends_the_server(capsys: pytest.CaptureFixture[str]) -> None:
    class Gone:
        def readline(self, size: int = -1) -> bytes:
            raise OSError("stdin is gone")

    assert serve(RelialintServer(Recorder()), Frames(Gone())) == 0  # type: ignore[arg-type]
    err = capsys.readouterr().err
    assert "relialint lsp: reading the client's messages failed:" in err and "OSError: stdin is gone" in err


# -- documents and positions ----------------------------------------------------------------------------------------


def test_incremental_changes_in_utf16_and_utf8_units() -> None:
    document = Document("file:///x.sh", "a😀b\r\nsecond\rthird\n", 1, "utf-16")
    assert document.line_text(0) == "a😀b" and document.line_text(1) == "second"
    assert document.line_text(2) == "third" and document.line_text(3) == ""
    assert document.client_position(0, 2) == {"line": 0, "character": 3}  # the emoji is two UTF-16 units
    document.apply({"range": {"start": {"line": 0, "character": 3}, "end": {"line": 1, "character": 3}},
                    "text": "X"})
    assert document.text == "a😀Xond\rthird\n"
    document.apply({"range": {"start": {"line": 0, "character": 2}, "end": {"line": 0, "character": 2}},
                    "text": "-"})  # inside the emoji: after it
    assert document.text == "a😀-Xond\rthird\n"
    document.apply({"range": {"start": {"line": 1, "character": 99}, "end": {"line": 9, "character": 0}},
                    "text": "!"})  # past the end of a line: its end; past the last line: the end of the text
    assert document.text == "a😀-Xond\rthird!"
    utf8 = Document("file:///x.sh", "é=1\n", 1, "utf-8")
    assert utf8.client_position(0, 1) == {"line": 0, "character": 2}
    utf8.apply({"range": {"start": {"line": 0, "character": 2}, "end": {"line": 0, "character": 3}}, "text": ":"})
    assert utf8.text == "é:1\n"
    document.apply({"text": "whole"})
    assert document.text == "whole"
    with pytest.raises(InvalidParams, match=r"`contentChanges\.range\.end\.line` must be an unsigned integer"):
        document.apply_all([{"text": "first"}, {"range": {"start": {"line": 0, "character": 0},
                                                          "end": {"line": -1, "character": 0}}, "text": "x"}])
    assert document.text == "whole"  # none of a malformed notification's changes


def test_position_encoding_and_paths() -> None:
    assert choose_encoding({}) == "utf-16"
    assert choose_encoding({"general": {"positionEncodings": ["utf-32", "utf-16"]}}) == "utf-32"
    assert choose_encoding({"general": {"positionEncodings": ["latin-1"]}}) == "utf-16"
    assert path_of("file:///srv/my%20app/serve.sh") == "/srv/my app/serve.sh"
    assert path_of("untitled:Untitled-1") == "untitled:Untitled-1"


def test_requests_before_initialize_and_unknown_methods_get_errors() -> None:
    out = Recorder()
    server = RelialintServer(out)
    server.handle({"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover", "params": {}})
    server.handle(initialize({}))
    server.handle({"jsonrpc": "2.0", "id": 8, "method": "workspace/symbol", "params": {}})
    server.handle({"jsonrpc": "2.0", "id": 9, "method": "textDocument/hover", "params": {"textDocument": {}}})
    server.handle({"jsonrpc": "2.0", "id": 10, "method": "shutdown"})
    server.handle({"jsonrpc": "2.0", "id": 11, "method": "textDocument/hover", "params": {}})
    server.handle({"jsonrpc": "2.0", "method": "exit"})
    assert [(m["id"], m["error"]["code"], m["error"]["message"]) if "error" in m else (m["id"], None, None)
            for m in out.sent if m["id"] != 1] == [
        (7, -32002, "textDocument/hover before initialize"),
        (8, -32601, "Method Not Found: workspace/symbol"),
        (9, -32602, "malformed textDocument/hover request: Invalid Params: `textDocument.uri` must be a string"),
        (10, None, None),
        (11, -32600, "textDocument/hover after shutdown"),
    ]
    assert server.exit_code == 0


# -- start-up -------------------------------------------------------------------------------------------------------

HEAVY = ["pygls", "lsprotocol", "cattrs", "attrs", "asyncio", "logging", "pydantic", "jsonschema", "ruamel.yaml",
         "yaml", "relialint.engines.fixedit", "relialint.kb.model"]
"""Modules the server does not need before its first diagnostics of a shell script."""


def test_start_up_loads_no_heavy_module_until_used(tmp_path: Path) -> None:
    uri = (tmp_path / "serve-cmd.sh").as_uri()
    script = textwrap.dedent(f"""
        import json, sys
        from relialint.lsp.server import RelialintServer
        from relialint.lsp.frame import Frames
        from relialint.lsp.rpc import Output, serve

        class Kept(Output):
            def __init__(self):
                self.sent = []
            def send(self, message):
                self.sent.append(message)

        out = Kept()
        server = RelialintServer(out)
        server.handle({json.dumps(initialize({"gpu": "RTX 4090"}))})
        server.handle({json.dumps(did_open(uri, SERVE_CMD))})
        server.run_due(server.next_due())
        first = sorted(sys.modules)
        codes = [d["code"] for d in out.sent[-1]["params"]["diagnostics"]]
        rng = out.sent[-1]["params"]["diagnostics"][0]["range"]
        server.handle({{"jsonrpc": "2.0", "id": 2, "method": "textDocument/codeAction", "params": {{
            "textDocument": {{"uri": {uri!r}}}, "range": rng, "context": {{"diagnostics": []}}}}}})
        print(json.dumps({{"codes": codes, "first": first, "actions": [a["title"] for a in out.sent[-1]["result"]],
                           "after": sorted(sys.modules)}}))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=tmp_path)
    result = json.loads(done.stdout)
    assert result["codes"] == ["RL101"]
    loaded = [name for name in HEAVY if name in result["first"]]
    assert loaded == []
    assert result["actions"] == ["Fix RL101: set serve.dtype=float16",
                                 "Ignore RL101 here (relialint directive with a reason)"]
    assert "relialint.engines.fixedit" in result["after"]  # loaded when a quick fix is asked for


COMPOSE_WITH_ENV_FILE = """services:
  vllm:
    image: vllm/vllm-openai:v0.11.0
    command: --model Qwen/Qwen3-8B
    env_file: vllm.env
"""


def test_an_unsaved_edit_to_an_env_file_relints_the_compose_file_that_names_it(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The compose file's lint reads its ``env_file`` as the editor shows it: an unsaved edit to the open env file
    changes the compose file's diagnostics at once, and closing the env buffer brings back the file on disk."""
    (tmp_path / ".git").mkdir()
    compose, env = tmp_path / "compose.yaml", tmp_path / "vllm.env"
    compose.write_text(COMPOSE_WITH_ENV_FILE, encoding="utf-8")
    env.write_text("VLLM_USE_FLASHINFER_SAMPLER=0\n", encoding="utf-8")
    clock = Clock()
    server, out = server_with(clock, 0.0, {"debounceMs": 0}, monkeypatch)

    def compose_diagnostics() -> list[tuple[str, int, int]]:
        sent = [m["params"] for m in out.sent if m.get("method") == "textDocument/publishDiagnostics"
                and m["params"]["uri"] == compose.as_uri()]
        return [(d["code"], d["range"]["start"]["line"], d["range"]["start"]["character"])
                for d in sent[-1]["diagnostics"]]

    def settle() -> None:
        while server.next_due() is not None:
            server.run_due(clock.now)

    server.handle(did_open(compose.as_uri(), COMPOSE_WITH_ENV_FILE))
    settle()
    # RL322: the hub id Qwen/Qwen3-8B with no cache volume; the sampler is off in vllm.env on disk: no RL122
    assert compose_diagnostics() == [("RL117", 3, 21), ("RL322", 3, 21)]
    server.handle(did_open(env.as_uri(), "VLLM_USE_FLASHINFER_SAMPLER=0\n"))
    settle()
    server.handle(did_change(env.as_uri(), 2, "HF_TOKEN=x\n"))  # the line that turned the sampler off, deleted
    assert compose.as_uri() in server.due  # the compose file read vllm.env: linted again
    settle()
    assert compose_diagnostics() == [("RL122", 2, 11), ("RL117", 3, 21), ("RL322", 3, 21)]  # RL122 at 3:12, the image
    assert env.read_text(encoding="utf-8") == "VLLM_USE_FLASHINFER_SAMPLER=0\n"  # nothing was saved
    server.handle({"jsonrpc": "2.0", "method": "textDocument/didClose",
                   "params": {"textDocument": {"uri": env.as_uri()}}})
    settle()
    assert compose_diagnostics() == [("RL117", 3, 21), ("RL322", 3, 21)]  # the file on disk again

"""The language server offers an engine version move as information: an edit that changes an image tag against
the text as opened or saved gets the upgrade's delta on the tag (``RelialintServer.version_diagnostics``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from relialint.lsp.server import INFORMATION, RelialintServer
from tests.test_lsp_server import Clock, Recorder, did_change, did_open, initialize

COMPOSE = """services:
  llm:
    image: vllm/vllm-openai:v0.14.1
    command: ["Qwen/Qwen3-8B", "--max-model-len", "8192"]
    environment:
      VLLM_ATTENTION_BACKEND: FLASHINFER
"""
BUMPED = COMPOSE.replace("v0.14.1", "v0.15.0")


def _server() -> tuple[RelialintServer, Recorder, Clock]:
    out, clock = Recorder(), Clock()
    server = RelialintServer(out, clock, clock)
    server.handle(initialize({}))
    return server, out, clock


def _last(out: Recorder) -> list[dict[str, Any]]:
    published = [m["params"] for m in out.sent if m.get("method") == "textDocument/publishDiagnostics"]
    diagnostics: list[dict[str, Any]] = published[-1]["diagnostics"]
    return diagnostics


def _moves(out: Recorder) -> list[dict[str, Any]]:
    return [d for d in _last(out) if d.get("code") == "upgrade"]


def test_an_edit_that_bumps_the_tag_gets_the_delta_as_information(tmp_path: Path) -> None:
    uri = (tmp_path / "compose.yaml").as_uri()
    server, out, clock = _server()
    server.handle(did_open(uri, COMPOSE))
    server.run_due(clock.now)
    assert _moves(out) == []  # as opened: nothing moved
    server.handle(did_change(uri, 2, BUMPED))
    server.run_due(clock.now)
    [move] = _moves(out)
    assert (move["severity"], move["source"], move["range"], move["data"]) == (
        INFORMATION, "relialint", {"start": {"line": 2, "character": 11}, "end": {"line": 2, "character": 35}},
        {"from": "0.14.1", "to": "0.15.0"})
    path = str(tmp_path / "compose.yaml")
    lines = move["message"].split("\n")
    assert lines[0] == f"vLLM 0.14.1 -> 0.15.0 since the saved text: 3 changes for the deployment at {path}:3:12"
    assert [line.split("] ")[0] + "]" for line in lines[1:]] == [
        "[record entered, possible]", "[record entered]", "[env unread]"]
    assert lines[3].startswith("[env unread] `VLLM_ATTENTION_BACKEND`: read by vLLM 0.14.1, not by vLLM 0.15.0")
    assert lines[3].endswith("(line 6)")
    # the finding the new version brings is a diagnostic of its own, as always
    assert "RL504" in [d.get("code") for d in _last(out)]


def test_after_a_save_the_new_tag_is_the_reference(tmp_path: Path) -> None:
    uri = (tmp_path / "compose.yaml").as_uri()
    server, out, clock = _server()
    server.handle(did_open(uri, COMPOSE))
    server.handle(did_change(uri, 2, BUMPED))
    server.run_due(clock.now)
    assert len(_moves(out)) == 1
    server.handle({"jsonrpc": "2.0", "method": "textDocument/didSave", "params": {"textDocument": {"uri": uri}}})
    server.run_due(clock.now)
    assert _moves(out) == []
    server.handle(did_change(uri, 3, COMPOSE))  # back down: the mirror image, against the saved 0.15.0
    server.run_due(clock.now)
    [move] = _moves(out)
    assert move["message"].split("\n")[0].startswith("vLLM 0.15.0 -> 0.14.1 since the saved text: 3 changes")
    assert [line.split("] ")[0] + "]" for line in move["message"].split("\n")[1:]] == [
        "[record left, possible]", "[record left]", "[env read]"]


def test_an_edit_that_moves_no_version_adds_nothing(tmp_path: Path) -> None:
    uri = (tmp_path / "compose.yaml").as_uri()
    server, out, clock = _server()
    server.handle(did_open(uri, COMPOSE))
    server.run_due(clock.now)
    opened = _last(out)
    server.handle(did_change(uri, 2, COMPOSE.replace("8192", "4096")))
    server.run_due(clock.now)
    assert _moves(out) == []
    assert [d.get("code") for d in _last(out)] == [d.get("code") for d in opened]

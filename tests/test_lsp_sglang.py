"""The language server lints SGLang files through the Engine protocol like any other: diagnostics at the option's
word, and a quick fix where the record's fix is a flag change."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

pytestmark = pytest.mark.asyncio(loop_scope="function")

SCRIPT = ('pip install "sglang[all]==0.4.6.post1"\n'
          "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --mem-fraction-statc 0.8\n")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "relialint.cli", "lsp"]))
async def client(lsp_client: LanguageClient) -> Any:
    params = types.InitializeParams(capabilities=types.ClientCapabilities(),
                                    initialization_options={"debounceMs": 0})
    await lsp_client.initialize_session(params)
    yield
    await lsp_client.shutdown_session()


async def test_sglang_file_gets_diagnostics(client: LanguageClient, tmp_path: Path) -> None:
    uri = (tmp_path / "serve.sh").as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id="shellscript", version=1, text=SCRIPT)))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    found = [(d.code, d.range.start.line, d.range.start.character, d.range.end.character, d.severity)
             for d in client.diagnostics[uri]]
    assert found == [("RL550", 1, 59, 79, types.DiagnosticSeverity.Warning)]  # major, definite on the pinned release
    [diagnostic] = client.diagnostics[uri]
    assert "did you mean `--mem-fraction-static`?" in diagnostic.message

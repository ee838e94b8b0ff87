"""End to end: a real LSP client (pytest-lsp) talking to ``relialint lsp`` over stdio."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

ROOT = Path(__file__).resolve().parents[1]
SERVE_CMD = (ROOT / "examples" / "serve-cmd.sh").read_text(encoding="utf-8")
COMPOSE_CC = """\
# relialint: gpu=H100
services:
  vllm:
    image: vllm/vllm-openai:v0.30.0
    environment:
      HF_TOKEN: x
    command: ["nvidia/Llama-3.3-70B-Instruct-FP4", "--dtype", "bfloat16", "--kv-cache-dtype", "fp8"]
"""
COMPOSE = """\
# relialint: gpu=A800
services:
  vllm:
    image: vllm/vllm-openai:v0.10.2
    environment:
      HF_TOKEN: x
    command: ["--model", "nvidia/Llama-3.3-70B-Instruct-FP4", "--dtype", "bfloat16", "--max-model-len", "8192"]
"""
ERR, WARN, INFO, HINT = (types.DiagnosticSeverity.Error, types.DiagnosticSeverity.Warning,
              types.DiagnosticSeverity.Information, types.DiagnosticSeverity.Hint)

pytestmark = pytest.mark.asyncio(loop_scope="function")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "relialint.cli", "lsp"]))
async def client(lsp_client: LanguageClient) -> Any:
    params = types.InitializeParams(capabilities=types.ClientCapabilities(),
                                    initialization_options={"gpu": "RTX 4090", "debounceMs": 0,
                                                            "showPossible": True})
    await lsp_client.initialize_session(params)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "relialint.cli", "lsp"]))
async def plain(lsp_client: LanguageClient) -> Any:
    params = types.InitializeParams(capabilities=types.ClientCapabilities(),
                                    initialization_options={"gpu": "RTX 4090", "debounceMs": 0})
    await lsp_client.initialize_session(params)
    yield
    await lsp_client.shutdown_session()


# -- helpers --------------------------------------------------------------------------------------------------------


def rng(line: int, start: int, end: int) -> types.Range:
    return types.Range(types.Position(line, start), types.Position(line, end))


def summary(diagnostics: Any) -> list[tuple[Any, int, int, int, Any]]:
    out = [(d.code, d.range.start.line, d.range.start.character, d.range.end.character, d.severity)
           for d in diagnostics]
    return sorted(out, key=lambda item: (item[1], item[2], str(item[0])))


async def open_doc(client: LanguageClient, path: Path, text: str, language: str = "shellscript") -> list[Any]:
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return list(client.diagnostics[uri])


async def change(client: LanguageClient, path: Path, version: int, text: str) -> list[Any]:
    uri = path.as_uri()
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [types.TextDocumentContentChangeWholeDocument(text=text)]))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return list(client.diagnostics[uri])


def apply(text: str, edits: list[types.TextEdit]) -> str:
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)

    def offset(p: types.Position) -> int:
        return offsets[p.line] + p.character

    for edit in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end):]
    return text


async def actions_for(client: LanguageClient, path: Path, diagnostic: types.Diagnostic) -> list[types.CodeAction]:
    result = await client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(uri=path.as_uri()), diagnostic.range,
        types.CodeActionContext(diagnostics=[diagnostic])))
    assert result is not None
    return [a for a in result if isinstance(a, types.CodeAction)]


def edits_of(action: types.CodeAction, path: Path) -> list[types.TextEdit]:
    assert action.edit is not None and action.edit.changes is not None
    return [e for e in action.edit.changes[path.as_uri()] if isinstance(e, types.TextEdit)]


def one(diagnostics: list[Any], code: str) -> types.Diagnostic:
    found = [d for d in diagnostics if d.code == code]
    assert len(found) == 1, diagnostics
    return found[0]  # type: ignore[no-any-return]


# -- tests ----------------------------------------------------------------------------------------------------------


async def test_shell_diagnostics_exact(client: LanguageClient, tmp_path: Path) -> None:
    diagnostics = await open_doc(client, tmp_path / "serve-cmd.sh", SERVE_CMD)
    # RL107 (Confidential Computing mode) is absent: an RTX 4090 has no such mode. The major possible findings that
    # depend on the unknown vLLM version (and, for RL122, the build) are shown as information with showPossible
    assert summary(diagnostics) == [
        ("RL122", 6, 0, 4, INFO),
        ("RL601", 6, 0, 4, INFO),  # whether the launch runs in a container that publishes its port: not in the file
        ("RL117", 6, 11, 19, INFO),  # an RTX 4090 runs FlashAttention 2: cascade attention before 0.18.0
        ("RL217", 6, 11, 19, HINT),  # minor, possible on the unknown vLLM version
        ("RL322", 6, 11, 19, INFO),  # a hub model: re-downloaded by every new container, if it runs in one
        ("RL606", 6, 11, 19, INFO),  # prompts logged up to 0.10.0 (no --disable-log-requests)
        ("RL101", 7, 2, 9, WARN),  # blocker, possible (no vLLM version pinned): `--dtype` of `--dtype bfloat16`
    ]
    rl101 = one(diagnostics, "RL101")
    assert rl101.source == "relialint"
    assert rl101.code_description is not None
    assert rl101.code_description.href == "https://relialint.dev/records/RL101/"
    assert "garbled" in rl101.message
    rl107 = one(await open_doc(client, tmp_path / "cc.sh", "# relialint: gpu=H100\n" + SERVE_CMD), "RL107")
    assert (rl107.range.start.line, rl107.severity) == (7, WARN)  # blocker, possible: one level lower
    assert "possible: depends on" in rl107.message and "gpu.cc_mode" in rl107.message


async def test_compose_diagnostics_with_directive(client: LanguageClient, tmp_path: Path) -> None:
    diagnostics = await open_doc(client, tmp_path / "compose.yaml", COMPOSE, "yaml")
    # `# relialint: gpu=A800` in the file overrides the editor's RTX 4090: an Ampere part (FlashAttention 2, no
    # native FP4) on 0.10.2 meets RL117 and RL101; RL122 from the CUDA image's sampler default; an Ampere part has
    # no Confidential Computing mode, so RL107 does not fire
    assert summary(diagnostics) == [
        ("RL122", 3, 11, 35, WARN),
        ("RL117", 6, 25, 60, WARN),
        ("RL322", 6, 25, 60, WARN),  # a hub model in a container with no volume over the HF cache
        ("RL101", 6, 62, 71, ERR),
    ]


async def test_edit_applying_the_fix_clears_the_diagnostic(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "serve-cmd.sh"
    assert "RL101" in {d.code for d in await open_doc(client, path, SERVE_CMD)}
    after = await change(client, path, 2, SERVE_CMD.replace("--dtype bfloat16", "--dtype float16"))
    assert "RL101" not in {d.code for d in after}
    # possible, on the unknown version (and, for RL601 and RL322, on a container the script may run in)
    assert {d.code for d in after} == {"RL117", "RL122", "RL217", "RL322", "RL601", "RL606"}


async def test_by_default_the_editor_shows_what_check_lists(plain: LanguageClient, tmp_path: Path) -> None:
    # RL107 (Confidential Computing) is possible on any vLLM on an H100 and nothing in the file points at it:
    # counted by `relialint check`, so not shown in the editor either
    diagnostics = await open_doc(plain, tmp_path / "serve-cmd.sh", "# relialint: gpu=H100\n" + SERVE_CMD)
    # RL101 is possible too (the script pins no vLLM version), but shown: the model and --dtype point at it
    assert summary(diagnostics) == [("RL101", 8, 2, 9, WARN)]
    diagnostics = await open_doc(plain, tmp_path / "serve-cmd.sh", SERVE_CMD)
    assert summary(diagnostics) == [("RL101", 7, 2, 9, WARN)]


async def test_hover(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "serve-cmd.sh"
    await open_doc(client, path, SERVE_CMD)
    hover = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri=path.as_uri()), types.Position(7, 5)))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert hover.contents.kind == types.MarkupKind.Markdown
    text = hover.contents.value
    assert text.startswith("**RL101: NVFP4")
    assert "**Fix:** Upgrade to 0.19.0 or newer. On 0.9.0-0.18.1, serve NVFP4 checkpoints with `--dtype" in text
    assert "[RL101 in the relialint catalogue](https://relialint.dev/records/RL101/)" in text
    assert hover.range == rng(7, 2, 9)
    nothing = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri=path.as_uri()), types.Position(2, 1)))
    assert nothing is None


async def test_code_actions_fix_and_ignore(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "serve-cmd.sh"
    diagnostic = one(await open_doc(client, path, SERVE_CMD), "RL101")
    actions = await actions_for(client, path, diagnostic)
    assert [a.title for a in actions] == ["Fix RL101: set serve.dtype=float16",
                                          "Ignore RL101 here (relialint directive with a reason)"]
    fix, ignore = actions
    assert fix.kind == types.CodeActionKind.QuickFix and fix.is_preferred
    assert edits_of(fix, path) == [types.TextEdit(range=rng(7, 10, 18), new_text="float16")]
    # `--dtype` is on a continuation line: the directive goes above the command
    assert edits_of(ignore, path) == [types.TextEdit(
        range=rng(6, 0, 0), new_text="# relialint: ignore[RL101] REASON: why this is safe here\n")]

    fixed = apply(SERVE_CMD, edits_of(fix, path))
    assert "--dtype float16 \\" in fixed
    assert "RL101" not in {d.code for d in await change(client, path, 2, fixed)}
    ignored = apply(SERVE_CMD, edits_of(ignore, path))
    # the placeholder is not a reason: the ignore is not applied and says so, as one without a reason
    placeholder = await change(client, path, 3, ignored)
    # (the client shows possible findings too: those are information, and not what this checks)
    assert [d for d in summary(placeholder) if d[4] not in (INFO, HINT)] == [
        ("RL001", 6, 0, 56, WARN), ("RL101", 8, 2, 9, WARN)]
    assert one(placeholder, "RL001").message == (
        "`ignore[RL101]` has the placeholder reason 'REASON: why this is safe here', so it is not applied; replace "
        "the placeholder with why this is safe here")
    reasoned = ignored.replace("REASON: why this is safe here", "fp16 fallback tested on this card")
    assert [d for d in await change(client, path, 4, reasoned)
            if d.severity not in (INFO, HINT)] == []


async def test_code_action_adds_env_var_in_compose(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "compose.yaml"
    diagnostic = one(await open_doc(client, path, COMPOSE_CC, "yaml"), "RL107")
    fix = (await actions_for(client, path, diagnostic))[0]
    assert fix.title == "Fix RL107: set env.VLLM_USE_V2_MODEL_RUNNER=0"
    assert edits_of(fix, path) == [types.TextEdit(range=rng(6, 0, 0),
                                                  new_text='      VLLM_USE_V2_MODEL_RUNNER: "0"\n')]
    after = apply(COMPOSE_CC, edits_of(fix, path))
    assert "RL107" not in {d.code for d in await change(client, path, 2, after)}
    other = tmp_path / "other" / "compose.yaml"
    other.parent.mkdir()
    rl101 = one(await open_doc(client, other, COMPOSE, "yaml"), "RL101")
    fix101 = (await actions_for(client, other, rl101))[0]
    assert edits_of(fix101, other) == [types.TextEdit(range=rng(6, 73, 83), new_text='"float16"')]
    after = {d.code for d in await change(client, other, 2, apply(COMPOSE, edits_of(fix101, other)))}
    assert after == {"RL117", "RL122", "RL322"}


async def test_code_action_adds_env_prefix_in_shell(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "serve-cmd.sh"
    text = "# relialint: gpu=H100\n" + SERVE_CMD  # a GPU with a Confidential Computing mode
    diagnostic = one(await open_doc(client, path, text), "RL107")
    fix = (await actions_for(client, path, diagnostic))[0]
    assert edits_of(fix, path) == [types.TextEdit(range=rng(7, 0, 0), new_text="VLLM_USE_V2_MODEL_RUNNER=0 ")]
    assert "RL107" not in {d.code for d in await change(client, path, 2, apply(text, edits_of(fix, path)))}


async def test_settings_change_target_gpu(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "serve-cmd.sh"
    assert "RL101" in {d.code for d in await open_doc(client, path, SERVE_CMD)}
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"relialint": {"gpu": "B200"}}))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert "RL101" not in {d.code for d in client.diagnostics[path.as_uri()]}  # native FP4 on B200
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"gpu": "RTX 4090", "facts": {"gpu.cc_mode": False}}))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert {d.code for d in client.diagnostics[path.as_uri()]} == {"RL101"}


async def test_half_typed_buffer_keeps_last_good_diagnostics(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "compose.yaml"
    good = summary(await open_doc(client, path, COMPOSE, "yaml"))
    broken = COMPOSE.replace('"fp8"]', '"fp8"').replace("    environment:", "    environment: [")
    after = await change(client, path, 2, broken)
    parse = [d for d in after if d.code == "parse"]
    assert len(parse) == 1 and parse[0].severity == ERR
    assert summary([d for d in after if d.code != "parse"]) == good
    assert summary(await change(client, path, 3, COMPOSE)) == good


async def test_unknown_gpu_setting_is_reported_not_fatal(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "serve-cmd.sh"
    await open_doc(client, path, SERVE_CMD)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"gpu": "RTX 9999"}))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    messages = [d.message for d in client.diagnostics[path.as_uri()]]
    assert any(m.startswith("relialint settings:") and "RTX 9999" in m for m in messages)
    diagnostics = await change(client, path, 2, SERVE_CMD + "\nvllm serve x --dtype\n")
    assert diagnostics  # still answering


K8S_H100 = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
spec:
  template:
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.30.0
          args: ["nvidia/Llama-3.3-70B-Instruct-FP4", "--dtype", "bfloat16", "--kv-cache-dtype", "fp8"]
"""


async def test_notes_reach_the_editor(plain: LanguageClient, tmp_path: Path) -> None:
    # the manifest selects H100 nodes: the file's GPU wins over the editor's RTX 4090, and `check` says so in notes
    diagnostics = await open_doc(plain, tmp_path / "deploy.yaml", K8S_H100, "yaml")
    notes = [(d.range, d.severity, d.message) for d in diagnostics if d.code == "note"]
    line9 = types.Range(types.Position(8, 8), types.Position(8, 53))
    assert notes == [
        (line9, INFO, "gpu.model is H100 in the file; the settings value RTX 4090 is not used"),
        (line9, INFO, "gpu.sm is 9.0 in the file; the settings value 8.9 is not used"),
        (line9, INFO, "gpu.cc_capable is true in the file; the settings value false is not used"),
    ]
    assert [d.source for d in diagnostics if d.code == "note"] == ["relialint"] * 3
    script = await open_doc(plain, tmp_path / "serve.sh", "vllm serve m --config missing/cfg.yaml\n")
    assert [(d.code, d.range.start.line, d.severity, d.message) for d in script] == [
        ("note", 0, INFO, "--config missing/cfg.yaml: file not found; its settings are unknown")]


@pytest.mark.parametrize("name", ["serve-cmd.sh", "compose.yaml", "k8s-deployment.yaml"])
async def test_diagnostics_match_check(plain: LanguageClient, tmp_path: Path, name: str) -> None:
    import json
    import subprocess

    text = (ROOT / "examples" / name).read_text(encoding="utf-8")
    path = tmp_path / name
    diagnostics = await open_doc(plain, path, text, "yaml" if name.endswith(".yaml") else "shellscript")
    done = subprocess.run([sys.executable, "-m", "relialint.cli", "check", "--gpu", "RTX 4090", "--format", "json",
                           "--stdin-filename", str(path), "-"], input=text, capture_output=True, text=True,
                          cwd=tmp_path)
    report = json.loads(done.stdout)
    assert report["findings"]  # each example has findings to compare
    assert sorted((d.code, d.range.start.line + 1, d.range.start.character + 1) for d in diagnostics
                  if d.code != "note") == sorted((f["code"], f["line"], f["column"]) for f in report["findings"]
                                                 if f["shown"])
    assert sorted(d.message for d in diagnostics if d.code == "note") == sorted(
        n.split(": ", 1)[1].replace("the cli value", "the settings value") for n in report["notes"])

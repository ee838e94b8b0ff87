"""``relialint lsp``: a Language Server Protocol server over stdio (pygls), linting unsaved buffers.

Protocol wiring only: a buffer is linted by ``lint.lint_text`` exactly as ``relialint check --stdin-filename PATH``
would lint it (configuration found from the file's folder upward, inline directives, the same targets), with the
editor's settings in place of the command-line options. Fixes as edits come from ``engines.fixedit``.
"""

from __future__ import annotations

import asyncio
import logging
import math
import re
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument

from relialint import __version__
from relialint.readers.located import MAX_FILE_BYTES
from relialint.results import Finding, Options, RunResult, Target

log = logging.getLogger(__name__)

SOURCE = "relialint"
DEFAULT_DEBOUNCE_MS = 150
_SEVERITY = {"blocker": types.DiagnosticSeverity.Error, "major": types.DiagnosticSeverity.Warning,
             "minor": types.DiagnosticSeverity.Information}
_LOWER = {types.DiagnosticSeverity.Error: types.DiagnosticSeverity.Warning,
          types.DiagnosticSeverity.Warning: types.DiagnosticSeverity.Information,
          types.DiagnosticSeverity.Information: types.DiagnosticSeverity.Hint,
          types.DiagnosticSeverity.Hint: types.DiagnosticSeverity.Hint}
REASON_PLACEHOLDER = "REASON: why this is safe here"
MAX_DOCUMENT_CHARS = MAX_FILE_BYTES
"""Documents larger than this are not linted: a diagnostic says so (the file limit of the command line)."""
MAX_DEBOUNCE_MS = 10_000


@dataclass
class Settings:
    """Editor settings: the command line's target options (``gpu``, ``engineVersion``, ``os``, ``facts``),
    ``select`` / ``ignore`` and ``showPossible`` (every possible finding, as ``--show-possible``; by default the
    editor shows what ``relialint check`` lists). ``debounceMs`` (initializationOptions) sets the delay after an
    edit."""

    gpu: str | None = None
    engine_version: str | None = None
    os: str | None = None
    facts: dict[str, str] = field(default_factory=dict)
    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    show_possible: bool = False

    @classmethod
    def parse(cls, raw: Any, problems: list[str] | None = None) -> Settings:
        """Settings from the client; a value of the wrong type is left out and said in ``problems``."""
        problems = [] if problems is None else problems
        if not isinstance(raw, dict):
            if raw is not None:
                problems.append(f"settings must be an object, not {type(raw).__name__}; ignored")
            return cls()
        if isinstance(raw.get("relialint"), dict):  # {"relialint": {...}} as VS Code-style clients send it
            raw = raw["relialint"]
        facts: dict[str, str] = {}
        given = raw.get("facts")
        if isinstance(given, dict):
            facts = {str(k): _text(v) for k, v in given.items() if v is not None}
        elif isinstance(given, list):
            for item in given:
                key, eq, value = str(item).partition("=")
                if eq and key.strip():
                    facts[key.strip()] = value.strip()
        elif given is not None:
            problems.append("`facts` must be an object or a list of KEY=VALUE strings; ignored")

        def opt(*names: str) -> str | None:
            for name in names:
                value = raw.get(name)
                if value in (None, ""):
                    continue
                if not isinstance(value, str | int | float) or isinstance(value, bool):
                    problems.append(f"`{name}` must be a string; ignored")
                    continue
                return str(value)
            return None

        def codes(name: str) -> list[str]:
            value = raw.get(name)
            if value is None:
                return []
            if isinstance(value, str):
                items = value.split(",")
            elif isinstance(value, list) and all(isinstance(v, str) for v in value):
                items = value
            else:
                problems.append(f"`{name}` must be a string or a list of strings; ignored")
                return []
            return [item.strip() for item in items if item.strip()]

        show = raw.get("showPossible", raw.get("show-possible"))
        return cls(opt("gpu"), opt("engineVersion", "engine-version", "engine_version"), opt("os"), facts,
                   codes("select"), codes("ignore"), show is True or str(show).lower() == "true")

    def options(self) -> Options:
        return Options(Target(self.gpu, self.engine_version, self.os, dict(self.facts)), list(self.select),
                       list(self.ignore), show_possible=self.show_possible)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass
class Linted:
    """The last lint of one document: what hover and code actions answer from."""

    version: int | None
    text: str
    display: str
    kind: str
    run: RunResult
    findings: list[Finding]
    diagnostics: list[types.Diagnostic]


_ANSWERED = object()
"""What ``Protocol.structure_message`` returns for a malformed request it has already answered with an error."""


class Protocol(LanguageServerProtocol):
    """pygls' protocol, answering every malformed request with a JSON-RPC error instead of dropping it."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if isinstance(data, dict) and "method" in data and isinstance(data.get("id"), int | str) \
                    and not isinstance(data.get("id"), bool):
                self._send_response(data["id"], error=types.ResponseError(
                    code=exc.code, message=f"malformed {data['method']} request: {exc.message}"))
                return _ANSWERED
            raise

    def handle_message(self, message: Any) -> None:
        if message is _ANSWERED or isinstance(message, dict):
            return  # answered already, or not JSON-RPC at all
        super().handle_message(message)


class RelialintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("relialint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         protocol_cls=Protocol)
        self.settings = Settings()
        self.debounce_s = DEFAULT_DEBOUNCE_MS / 1000
        self.pending: dict[str, asyncio.TimerHandle] = {}
        self.linted: dict[str, Linted] = {}
        self.good: dict[str, list[types.Diagnostic]] = {}
        self._records: dict[str, dict[str, Any]] | None = None

    def tell(self, problems: list[str]) -> None:
        """Settings problems, shown to the user (allowed before the initialize response too)."""
        for problem in problems:
            self.window_show_message(types.ShowMessageParams(types.MessageType.Warning, f"relialint: {problem}"))

    def records(self) -> dict[str, dict[str, Any]]:
        if self._records is None:
            from relialint.lint import load_records

            records, _ = load_records(Options())
            self._records = {r["id"]: r for r in records}
        return self._records

    # -- linting ----------------------------------------------------------------------------------------------------

    def schedule(self, uri: str, delay: float) -> None:
        handle = self.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        if delay <= 0:
            self.lint_and_publish(uri)
            return
        self.pending[uri] = asyncio.get_running_loop().call_later(delay, self.lint_and_publish, uri)

    def lint_and_publish(self, uri: str) -> None:
        self.pending.pop(uri, None)
        try:
            document = self.workspace.get_text_document(uri)
        except Exception:  # the document was closed meanwhile
            return
        try:
            diagnostics = self.lint_document(document)
        except Exception as exc:  # never let a bug take the server down: keep what was shown, say what happened
            log.error("relialint: linting %s failed:\n%s", uri, traceback.format_exc())
            diagnostics = [*self.good.get(uri, []), _file_diagnostic(f"relialint: internal error: {exc!r}",
                                                                     types.DiagnosticSeverity.Error)]
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=document.version))

    def lint_document(self, document: TextDocument) -> list[types.Diagnostic]:
        from relialint.config import ConfigError
        from relialint.lint import UsageError, lint_text
        from relialint.readers import detect

        uri = document.uri
        text = document.source
        if len(text) > MAX_DOCUMENT_CHARS:
            self.linted.pop(uri, None)
            self.good.pop(uri, None)
            return [_file_diagnostic(f"document too large to lint ({len(text)} characters; the limit is "
                                     f"{MAX_DOCUMENT_CHARS}); relialint reads files up to that size",
                                     types.DiagnosticSeverity.Warning)]
        display = _display(uri)
        kind = detect.kind_by_name(Path(display)) or detect.kind_by_content(text) or "shell"
        try:
            run = lint_text(text, display, kind, self.settings.options())
        except ConfigError as exc:
            return [*self.good.get(uri, []), _file_diagnostic(
                f"invalid configuration: {exc.path}:{exc.line}:{exc.column}: {exc.message}",
                types.DiagnosticSeverity.Error)]
        except UsageError as exc:
            return [*self.good.get(uri, []), _file_diagnostic(f"relialint settings: {exc}",
                                                              types.DiagnosticSeverity.Error)]
        errors = [e for e in run.errors if e.path == display]
        if errors:
            # a half-typed buffer: keep the last good diagnostics, and say where it does not parse
            first = errors[0]
            line, column = max(first.line - 1, 0), max(first.column - 1, 0)
            position = _client_position(document, line, column)
            parse = types.Diagnostic(
                range=types.Range(position, position), message=first.message,
                severity=types.DiagnosticSeverity.Error, source=SOURCE, code="parse")
            return [*self.good.get(uri, []), parse]
        findings = [f for f in run.listed() if f.path == display]
        diagnostics = [self.diagnostic(document, f) for f in findings]
        self.good[uri] = diagnostics
        self.linted[uri] = Linted(document.version, text, display, kind, run, findings, diagnostics)
        return diagnostics

    def diagnostic(self, document: TextDocument, finding: Finding) -> types.Diagnostic:
        severity = _SEVERITY.get(finding.severity, types.DiagnosticSeverity.Information)
        if finding.certainty == "possible":
            severity = _LOWER[severity]
        return types.Diagnostic(
            range=_client_range(document, finding), message=_editor_message(finding.message), severity=severity,
            code=finding.code, code_description=types.CodeDescription(href=finding.url), source=SOURCE,
            data={"certainty": finding.certainty, "missing_facts": finding.missing_facts})

    # -- hover and code actions -------------------------------------------------------------------------------------

    def findings_at(self, uri: str, rng: types.Range) -> list[tuple[Finding, types.Diagnostic]]:
        linted = self.linted.get(uri)
        if linted is None:
            return []
        return [(f, d) for f, d in zip(linted.findings, linted.diagnostics, strict=True)
                if _overlaps(d.range, rng)]

    def hover(self, uri: str, position: types.Position) -> types.Hover | None:
        found = self.findings_at(uri, types.Range(position, position))
        if not found:
            return None
        parts = [self.hover_text(f) for f, _ in found]
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown,
                                                        value="\n\n---\n\n".join(parts)),
                           range=found[0][1].range)

    def hover_text(self, finding: Finding) -> str:
        record = self.records().get(finding.code)
        summary = str(record.get("summary") or "").strip() if record else ""
        lines = [f"**{finding.code}: {finding.title}**", "",
                 f"*{finding.severity}, {finding.certainty}*: {_editor_message(finding.message)}"]
        if summary:
            lines += ["", " ".join(summary.split())]
        if finding.fix:
            lines += ["", f"**Fix:** {' '.join(finding.fix.split())}"]
        lines += ["", f"[{finding.code} in the relialint catalogue]({finding.url})"]
        return "\n".join(lines)

    def code_actions(self, uri: str, rng: types.Range) -> list[types.CodeAction]:
        linted = self.linted.get(uri)
        if linted is None:
            return []
        actions: list[types.CodeAction] = []
        for finding, diagnostic in self.findings_at(uri, rng):
            fix = self.fix_action(uri, linted, finding, diagnostic)
            if fix is not None:
                actions.append(fix)
            actions.append(self.ignore_action(uri, linted, finding, diagnostic))
        return actions

    def ignore_action(self, uri: str, linted: Linted, finding: Finding,
                      diagnostic: types.Diagnostic) -> types.CodeAction:
        lines = linted.text.split("\n")
        line = _directive_line(lines, linted.kind, finding, linted.run)
        indent = re.match(r"[ \t]*", lines[line - 1] if line - 1 < len(lines) else "").group(0)  # type: ignore[union-attr]
        comment = f"{indent}# relialint: ignore[{finding.code}] {REASON_PLACEHOLDER}\n"
        position = types.Position(line - 1, 0)
        edit = types.TextEdit(range=types.Range(position, position), new_text=comment)
        return types.CodeAction(
            title=f"Ignore {finding.code} here (relialint directive with a reason)",
            kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
            edit=types.WorkspaceEdit(changes={uri: [edit]}))

    def fix_action(self, uri: str, linted: Linted, finding: Finding,
                   diagnostic: types.Diagnostic) -> types.CodeAction | None:
        from relialint.engines import fixedit
        from relialint.files import read_file

        record = self.records().get(finding.code)
        fix_set = ((record or {}).get("trigger") or {}).get("fix_edit", {}) or {}
        fix_set = fix_set.get("set") or {}
        if not fix_set:
            return None
        deployment = _deployment_of(linted.run, finding)
        if deployment is None:
            return None
        result = read_file(linted.text, linted.display, linted.kind)
        edits = fixedit.fix_edits(result, deployment, fix_set)
        if not edits:
            return None
        document = self.workspace.get_text_document(uri)
        text_edits = [types.TextEdit(range=types.Range(
            _client_position(document, e.line - 1, e.column - 1),
            _client_position(document, e.end_line - 1, e.end_column - 1)), new_text=e.new_text) for e in edits]
        what = ", ".join(f"{k}={fixedit.render_value(v)}" for k, v in fix_set.items())
        return types.CodeAction(
            title=f"Fix {finding.code}: set {what}", kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
            is_preferred=True, edit=types.WorkspaceEdit(changes={uri: text_edits}))

    # -- settings ---------------------------------------------------------------------------------------------------

    def configure(self, raw: Any) -> None:
        """New settings replace the old ones; an empty notification (no settings) keeps them and re-lints."""
        if raw:
            problems: list[str] = []
            self.settings = Settings.parse(raw, problems)
            self.tell(problems)
        for uri in list(self.workspace.text_documents):
            self.lint_and_publish(uri)


def _display(uri: str) -> str:
    path = to_fs_path(uri)
    return path if path else uri


def _editor_message(message: str) -> str:
    """The command line's ways to supply a fact, as editor settings."""
    return (message.replace("--gpu NAME", "the `gpu` setting").replace("--engine-version V", "the `engineVersion` "
            "setting").replace("--os NAME", "the `os` setting"))


def _file_diagnostic(message: str, severity: types.DiagnosticSeverity) -> types.Diagnostic:
    start = types.Position(0, 0)
    return types.Diagnostic(range=types.Range(start, start), message=message, severity=severity, source=SOURCE)


def _client_position(document: TextDocument, line: int, column: int) -> types.Position:
    lines = document.lines
    if line >= len(lines):
        return types.Position(line, column)
    return document.position_codec.position_to_client_units(lines, types.Position(line, column))


def _client_range(document: TextDocument, finding: Finding) -> types.Range:
    return types.Range(_client_position(document, finding.line - 1, finding.column - 1),
                       _client_position(document, finding.end_line - 1, finding.end_column - 1))


def _overlaps(a: types.Range, b: types.Range) -> bool:
    def key(p: types.Position) -> tuple[int, int]:
        return p.line, p.character

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def _deployment_of(run: RunResult, finding: Finding) -> Any:
    for deployment in run.deployments:
        if deployment.path != finding.path:
            continue
        if finding.about and not finding.about.startswith("deployment:"):
            fact = deployment.facts.facts.get(finding.about)
            if fact is not None and (fact.line, fact.column) == (finding.line, finding.column):
                return deployment
        elif (deployment.span.line, deployment.span.column) == (finding.line, finding.column):
            return deployment
    return None


_BLOCK_SCALAR = re.compile(r":\s*[|>][-+0-9]*\s*(#.*)?$")


def _directive_line(lines: list[str], kind: str, finding: Finding, run: RunResult) -> int:
    """The 1-based line to put an ``ignore`` directive above: the finding's line where a comment line there is
    safe, else the first line of the deployment (a shell continuation, a YAML block scalar would swallow it)."""
    line = finding.line
    deployment = _deployment_of(run, finding)
    start = deployment.span.line if deployment is not None else line

    def continued(number: int) -> bool:
        return number > 1 and lines[number - 2].rstrip().endswith("\\")

    def in_block_scalar(number: int) -> bool:
        text = lines[number - 1] if number - 1 < len(lines) else ""
        indent = len(text) - len(text.lstrip())
        for above in range(number - 1, 0, -1):
            candidate = lines[above - 1]
            if not candidate.strip():
                continue
            if len(candidate) - len(candidate.lstrip()) < indent:
                return bool(_BLOCK_SCALAR.search(candidate))
        return False

    yaml = kind in ("compose", "kubernetes", "helm", "vllm-config", "yaml")
    if (continued(line) and kind != "dockerfile") or (yaml and in_block_scalar(line)):
        line = start
        while kind != "dockerfile" and continued(line):
            line -= 1
    return line


# -- the server -----------------------------------------------------------------------------------------------------


def make_server() -> RelialintServer:
    server = RelialintServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: RelialintServer, params: types.InitializeParams) -> None:
        options = params.initialization_options
        problems: list[str] = []
        ls.settings = Settings.parse(options, problems)
        debounce = options.get("debounceMs") if isinstance(options, dict) else None
        if isinstance(debounce, int | float) and not isinstance(debounce, bool) and math.isfinite(debounce):
            ls.debounce_s = min(max(float(debounce), 0.0), MAX_DEBOUNCE_MS) / 1000
        elif debounce is not None:
            problems.append("`debounceMs` must be a number of milliseconds; ignored")
        ls.tell(problems)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: RelialintServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: RelialintServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, ls.debounce_s)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: RelialintServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: RelialintServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        handle = ls.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        ls.linted.pop(uri, None)
        ls.good.pop(uri, None)
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(ls: RelialintServer, params: types.DidChangeConfigurationParams) -> None:
        ls.configure(params.settings)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: RelialintServer, params: types.HoverParams) -> types.Hover | None:
        return ls.hover(params.text_document.uri, params.position)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
    def code_action(ls: RelialintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        return ls.code_actions(params.text_document.uri, params.range)

    return server


def main() -> None:
    import sys

    from relialint.lspframe import Frames

    logging.basicConfig(level=logging.WARNING)
    frames = Frames(sys.stdin.buffer, lambda message, _: log.warning("relialint lsp: %s", message))
    make_server().start_io(frames,  # type: ignore[arg-type]  # pygls reads only readline() and read(n)
                           sys.stdout.buffer)

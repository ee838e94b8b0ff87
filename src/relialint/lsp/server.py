"""``relialint lsp``: a Language Server Protocol server over stdio, linting unsaved buffers.

Protocol wiring only: a buffer is linted by ``lint.lint_text`` exactly as ``relialint check --stdin-filename PATH``
would lint it (configuration found from the file's folder upward, inline directives, the same targets), with the
editor's settings in place of the command-line options. The notes ``check`` prints under its findings (a GPU in the
file over the one in the settings, a ``--config`` file not found) are information diagnostics. Fixes as edits come
from ``engines.fixedit``. The protocol itself (messages, life cycle, the loop) is ``lsp.rpc``; documents and
positions are ``lsp.text``; when to lint after an edit is ``lsp.debounce``.
"""

from __future__ import annotations

import math
import os
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from relialint import __version__
from relialint.base import lazyre
from relialint.core.results import Finding, Options, RunResult, Target
from relialint.lsp.debounce import Debounce
from relialint.lsp.rpc import Output, Server, log, log_failure
from relialint.lsp.text import Document, InvalidParams, choose_encoding, document_uri, path_of, position, span
from relialint.readers.located import MAX_FILE_BYTES
from relialint.readers.opener import FileOpener, Opened, checked_text
from relialint.run.suppress import PLACEHOLDER_REASON

SOURCE = "relialint"
DEFAULT_DEBOUNCE_MS = 150
ERROR, WARNING, INFORMATION, HINT = 1, 2, 3, 4
"""``DiagnosticSeverity``."""
_SEVERITY = {"blocker": ERROR, "major": WARNING, "minor": INFORMATION}
_LOWER = {ERROR: WARNING, WARNING: INFORMATION, INFORMATION: HINT, HINT: HINT}
REASON_PLACEHOLDER = PLACEHOLDER_REASON
MAX_DOCUMENT_CHARS = MAX_FILE_BYTES
"""Documents larger than this are not linted: a diagnostic says so (the file limit of the command line)."""
MAX_DEBOUNCE_MS = 10_000
SAVED = "the saved text"
"""What an edit's version move is against: the document as opened or last saved."""
_NOTE = lazyre.compile(r"(\d+)(?::\d+)?: (.*)", re.DOTALL)

Diagnostic = dict[str, Any]


def _key(path: str) -> str:
    """A path as the buffers are looked up by: absolute, ``.`` and ``..`` folded (``./x.env`` names the buffer of
    ``x.env``); symlinks are not followed, as an editor names a file by the path it opened."""
    return os.path.abspath(path)


class BufferOpener(FileOpener):
    """What a linted buffer's siblings read in the editor: the text of an open buffer (unsaved edits included)
    for its path, the disk otherwise, both under the run's limits (``disk`` decides what is outside the project
    root; a buffer there is not read either)."""

    def __init__(self, buffers: Mapping[str, Document], disk: FileOpener) -> None:
        self.buffers = buffers
        self.disk = disk
        self.asked: set[str] = set()
        """Every file a lint asked for (``_key``), read or not: an edit to one of them makes the linted buffer
        due again (a missing file the editor creates counts too)."""

    def refusal(self, path: str, referrer: str) -> str | None:
        self.asked.add(_key(path))
        return self.disk.refusal(path, referrer)

    def read(self, path: str) -> Opened:
        document = self.buffers.get(_key(path))
        if document is None:
            return self.disk.read(path)
        return checked_text(path, document.text)


class Settings:
    """Editor settings: the command line's target options (``gpu``, ``engineVersion``, ``os``, ``facts``),
    ``select`` / ``ignore`` and ``showPossible`` (every possible finding, as ``--show-possible``; by default the
    editor shows what ``relialint check`` lists). ``debounceMs`` (initializationOptions) sets the delay after an
    edit. (Plain classes here and below: a dataclass costs start-up time.)"""

    def __init__(self, gpu: str | None = None, engine_version: str | None = None, os: str | None = None,
                 facts: dict[str, str] | None = None, select: list[str] | None = None,
                 ignore: list[str] | None = None, show_possible: bool = False) -> None:
        self.gpu = gpu
        self.engine_version = engine_version
        self.os = os
        self.facts = facts or {}
        self.select = select or []
        self.ignore = ignore or []
        self.show_possible = show_possible

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


class Linted:
    """The last lint of one document: what hover and code actions answer from."""

    def __init__(self, version: int | None, text: str, display: str, kind: str, run: RunResult,
                 findings: list[Finding], diagnostics: list[Diagnostic], opener: FileOpener | None = None) -> None:
        self.version = version
        self.opener = opener
        """The opener the lint read the files the document names with (a quick fix reads them the same way)."""
        self.text = text
        self.display = display
        self.kind = kind
        self.run = run
        self.findings = findings
        self.diagnostics = diagnostics


class RelialintServer(Server):
    def __init__(self, out: Output, clock: Callable[[], float] = time.monotonic,
                 cost_clock: Callable[[], float] = time.thread_time) -> None:
        """``clock`` times the debounce; ``cost_clock`` what a lint costs (the server's CPU time: other work on the
        machine makes a lint slower, not dearer)."""
        super().__init__(out)
        self.clock = clock
        self.cost_clock = cost_clock
        self.settings = Settings()
        self.debounce = Debounce(DEFAULT_DEBOUNCE_MS / 1000)
        self.encoding = "utf-16"
        self.documents: dict[str, Document] = {}
        self.due: dict[str, float] = {}
        self.linted: dict[str, Linted] = {}
        self.reads: dict[str, set[str]] = {}
        """The files each document's last lint asked its opener for (``_key`` paths)."""
        self.good: dict[str, list[Diagnostic]] = {}
        self.saved: dict[str, str] = {}
        """Each document's text as opened or last saved: an edit that moves an engine version against it gets the
        upgrade's delta as information (:meth:`version_diagnostics`)."""
        self._records: dict[str, dict[str, Any]] | None = None
        from relialint.core.evaluator import Evaluator

        self.evaluator = Evaluator()
        """The memo of this server's lints, one for its life; used only on the thread that handles messages (the
        reader thread of ``lsp.rpc.serve`` only queues them), so it needs no lock."""
        self.requests = {"textDocument/hover": self.on_hover, "textDocument/codeAction": self.on_code_action}
        self.notifications = {
            "textDocument/didOpen": self.on_open, "textDocument/didChange": self.on_change,
            "textDocument/didSave": self.on_save, "textDocument/didClose": self.on_close,
            "workspace/didChangeConfiguration": self.on_configuration}

    def tell(self, problems: list[str]) -> None:
        """Settings problems, shown to the user (allowed before the initialize response too)."""
        for problem in problems:
            self.out.notify("window/showMessage", {"type": WARNING, "message": f"relialint: {problem}"})

    def records(self) -> dict[str, dict[str, Any]]:
        if self._records is None:
            from relialint.run.lint import load_records

            records, _ = load_records(Options())
            self._records = {r["id"]: r for r in records}
        return self._records

    # -- the life cycle and the documents ---------------------------------------------------------------------------

    def initialize(self, params: Any) -> Any:
        params = params if isinstance(params, dict) else {}
        options = params.get("initializationOptions")
        problems: list[str] = []
        self.settings = Settings.parse(options, problems)
        debounce = options.get("debounceMs") if isinstance(options, dict) else None
        if isinstance(debounce, int | float) and not isinstance(debounce, bool) and math.isfinite(debounce):
            self.debounce.delay_s = min(max(float(debounce), 0.0), MAX_DEBOUNCE_MS) / 1000
        elif debounce is not None:
            problems.append("`debounceMs` must be a number of milliseconds; ignored")
        self.encoding = choose_encoding(params.get("capabilities"))
        self.tell(problems)
        return {"capabilities": {"positionEncoding": self.encoding,
                                 "textDocumentSync": {"openClose": True, "change": 2, "save": True},
                                 "hoverProvider": True, "codeActionProvider": {"codeActionKinds": ["quickfix"]}},
                "serverInfo": {"name": "relialint", "version": __version__}}

    def on_open(self, params: Any) -> None:
        item = params.get("textDocument") if isinstance(params, dict) else None
        uri = document_uri(params)
        if not isinstance(item, dict):
            raise InvalidParams("`textDocument` must be an object")
        text, version = item.get("text"), item.get("version")
        if not isinstance(text, str):
            raise InvalidParams("`textDocument.text` must be a string")
        self.documents[uri] = Document(uri, text, version if _integer(version) else None, self.encoding)
        self.saved[uri] = text
        self.due[uri] = self.clock()
        self.siblings_due(uri, self.due[uri])

    def on_change(self, params: Any) -> None:
        uri = document_uri(params)
        document = self.documents.get(uri)
        changes = params.get("contentChanges")
        if document is None:
            raise InvalidParams(f"{uri} is not open")
        if not isinstance(changes, list):
            raise InvalidParams("`contentChanges` must be a list")
        document.apply_all(changes)
        version = params["textDocument"].get("version")
        document.version = version if _integer(version) else None
        self.due[uri] = self.debounce.due(uri, self.clock(), document.size_hint())
        self.siblings_due(uri, self.due[uri])

    def on_save(self, params: Any) -> None:
        uri = document_uri(params)
        if uri in self.documents:
            text = params.get("text")  # sent where the client was asked for it; else the buffer is what was saved
            self.saved[uri] = text if isinstance(text, str) else self.documents[uri].text
            self.due[uri] = self.clock()

    def on_close(self, params: Any) -> None:
        uri = document_uri(params)
        self.documents.pop(uri, None)
        self.due.pop(uri, None)
        self.linted.pop(uri, None)
        self.good.pop(uri, None)
        self.reads.pop(uri, None)
        self.saved.pop(uri, None)
        self.debounce.forget(uri)
        self.siblings_due(uri, self.clock())  # the file on disk applies again
        self.out.notify("textDocument/publishDiagnostics", {"uri": uri, "diagnostics": []})

    def on_configuration(self, params: Any) -> None:
        """New settings replace the old ones; an empty notification (no settings) keeps them and re-lints. Every
        open document is due at once, linted one at a time between messages: a flood of changes is linted once,
        and requests are answered in between."""
        raw = params.get("settings") if isinstance(params, dict) else None
        if raw:
            problems: list[str] = []
            self.settings = Settings.parse(raw, problems)
            self.tell(problems)
        self.due.update(dict.fromkeys(self.documents, self.clock()))

    def siblings_due(self, uri: str, when: float) -> None:
        """The open documents whose last lint read the file of ``uri`` (a compose file's ``env_file``, a unit's
        ``EnvironmentFile=``) are linted again with its new text, by ``when``."""
        key = _key(path_of(uri))
        for other, read in self.reads.items():
            if other != uri and key in read and other in self.documents:
                self.due[other] = min(self.due.get(other, when), when)

    # -- linting ----------------------------------------------------------------------------------------------------

    def next_due(self) -> float | None:
        return min(self.due.values(), default=None)

    def run_due(self, now: float) -> None:
        """Lint the document due first, if it is due: one lint, then back to the messages (``lsp.rpc.process``
        calls again while one is due), so that a request waits for one lint at most, never for every open
        document."""
        if not self.due:
            return
        uri = min(self.due, key=self.due.__getitem__)
        if self.due[uri] <= now:
            self.lint_and_publish(uri)

    def lint_and_publish(self, uri: str) -> None:
        self.due.pop(uri, None)
        document = self.documents.get(uri)
        if document is None:
            return
        started = self.cost_clock()
        try:
            diagnostics = self.lint_document(document)
        except Exception as exc:  # never let a bug take the server down: keep what was shown, say what happened
            log_failure(f"linting {uri}")
            diagnostics = [*self.good.get(uri, []), _file_diagnostic(f"relialint: internal error: {exc!r}", ERROR)]
        self.debounce.linted(uri, self.cost_clock() - started)
        params: dict[str, Any] = {"uri": uri, "diagnostics": diagnostics}
        if document.version is not None:
            params["version"] = document.version
        self.out.notify("textDocument/publishDiagnostics", params)

    def lint_document(self, document: Document) -> list[Diagnostic]:
        from relialint.readers import detect
        from relialint.run.config import ConfigError
        from relialint.run.lint import UsageError, lint_text

        uri = document.uri
        text = document.text
        if len(text) > MAX_DOCUMENT_CHARS:
            self.linted.pop(uri, None)
            self.good.pop(uri, None)
            return [_file_diagnostic(f"document too large to lint ({len(text)} characters; the limit is "
                                     f"{MAX_DOCUMENT_CHARS}); relialint reads files up to that size", WARNING)]
        display = path_of(uri)
        kind = detect.kind_by_name(Path(display)) or detect.kind_by_content(text) or "shell"
        made: list[BufferOpener] = []

        def over(disk: FileOpener) -> FileOpener:
            made.append(self.opener_over(disk))
            return made[-1]

        try:
            run = lint_text(text, display, kind, self.settings.options(), self.evaluator, over)
        except ConfigError as exc:
            return [*self.good.get(uri, []), _file_diagnostic(_editor_message(
                f"invalid configuration: {exc.path}:{exc.line}:{exc.column}: {exc.message}"), ERROR)]
        except UsageError as exc:
            return [*self.good.get(uri, []), _file_diagnostic(_editor_message(f"relialint settings: {exc}"), ERROR)]
        self.reads[uri] = set().union(*(opener.asked for opener in made))
        errors = [e for e in run.errors if e.path == display]
        if errors:
            # a half-typed buffer: keep the last good diagnostics, and say where it does not parse
            first = errors[0]
            where = document.client_position(max(first.line - 1, 0), max(first.column - 1, 0))
            parse = {"range": {"start": where, "end": where}, "message": _editor_message(first.message),
                     "severity": ERROR, "source": SOURCE, "code": "parse"}
            return [*self.good.get(uri, []), parse]
        findings = [f for f in run.listed() if f.path == display]
        diagnostics = [self.diagnostic(document, f) for f in findings]
        self.good[uri] = [*diagnostics, *(_note_diagnostic(document, display, note) for note in run.notes),
                          *self.version_diagnostics(document, display, kind, run, over)]
        self.linted[uri] = Linted(document.version, text, display, kind, run, findings, diagnostics,
                                  made[-1] if made else None)
        # errors of another file the lint read (a facts file the configuration names), at the top of the buffer
        elsewhere = [_file_diagnostic(f"{e.path}:{e.line}:{e.column}: {e.message}", ERROR) for e in run.errors]
        return [*self.good[uri], *elsewhere]

    def version_diagnostics(self, document: Document, display: str, kind: str, run: RunResult,
                            over: Callable[[FileOpener], FileOpener]) -> list[Diagnostic]:
        """Where the buffer moves a deployment's engine version (an image tag, a pin, a build) against the text as
        opened or saved: one information diagnostic on the version's word, with the upgrade's delta (the shared
        ``run.upgrade``, as ``check --since`` reports it). A diagnostic rather than a hover: every editor shows it
        without the cursor having to rest on the tag (problems list, gutter, virtual text), and hovering the tag
        shows it too; information, because a move is news, not a fault (its findings are the other diagnostics)."""
        from relialint.engines.registry import default_registry
        from relialint.run.files import DiskOpener, read_file
        from relialint.run.lint import MAX_DEPLOYMENTS
        from relialint.run.since import move_changes, moves_between, stated_version
        from relialint.run.upgrade import Request, upgrade_text

        saved = self.saved.get(document.uri)
        now = [d for d in run.deployments if d.path == display]
        if saved is None or saved == document.text or not any(stated_version(d) for d in now):
            return []
        opener = over(DiskOpener())
        before = default_registry().extract(read_file(saved, display, kind, opener), opener, MAX_DEPLOYMENTS)
        moves = [m for m in moves_between(now, before, lambda path: document.text if path == display else None)
                 if m.path == display]  # a version another file writes is that file's buffer's news
        if not moves:
            return []
        options = self.settings.options()

        def upgrade(path: str, request: Request) -> Any:
            return upgrade_text(document.text, path, kind, options, request, over=over)

        diagnostics: list[Diagnostic] = []
        lines: list[list[str]] = []
        for change in move_changes(moves, SAVED, options, upgrade=upgrade):
            if change.kind == "version":
                start = document.client_position(change.line - 1, change.column - 1)
                end = document.client_position(change.end_line - 1, change.end_column - 1)
                diagnostics.append({"range": {"start": start, "end": end}, "severity": INFORMATION, "source": SOURCE,
                                    "code": "upgrade", "data": {"from": change.old, "to": change.new}})
                lines.append([f"{change.title()}: {change.message}"])
            elif lines:
                at = f" (line {change.at[1]})" if change.at is not None and change.at[0] == display else ""
                lines[-1].append(f"[{change.tag()}] {change.message}{at}")
        for diagnostic, parts in zip(diagnostics, lines, strict=True):
            diagnostic["message"] = "\n".join(_editor_message(part) for part in parts)  # one item a line
        return diagnostics

    def opener_over(self, disk: FileOpener) -> BufferOpener:
        """The open buffers over the run's disk opener: a linted file reads its siblings as the editor shows them."""
        buffers = {_key(path_of(uri)): document for uri, document in self.documents.items()
                   if path_of(uri) != uri}  # file: URIs only; another scheme names no file a sibling could be
        return BufferOpener(buffers, disk)

    def diagnostic(self, document: Document, finding: Finding) -> Diagnostic:
        severity = _SEVERITY.get(finding.severity, INFORMATION)
        if finding.certainty == "possible":
            severity = _LOWER[severity]
        return {"range": _client_range(document, finding), "message": _editor_message(finding.message),
                "severity": severity, "code": finding.code, "codeDescription": {"href": finding.url},
                "source": SOURCE, "data": {"certainty": finding.certainty, "missing_facts": finding.missing_facts}}

    # -- hover and code actions -------------------------------------------------------------------------------------

    def findings_at(self, uri: str, rng: dict[str, Any]) -> list[tuple[Finding, Diagnostic]]:
        linted = self.linted.get(uri)
        if linted is None:
            return []
        return [(f, d) for f, d in zip(linted.findings, linted.diagnostics, strict=True)
                if _overlaps(d["range"], rng)]

    def on_hover(self, params: Any) -> Any:
        uri = document_uri(params)
        line, character = position(params.get("position"))
        where = {"line": line, "character": character}
        found = self.findings_at(uri, {"start": where, "end": where})
        if not found:
            return None
        parts = [self.hover_text(f) for f, _ in found]
        return {"contents": {"kind": "markdown", "value": "\n\n---\n\n".join(parts)}, "range": found[0][1]["range"]}

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

    def on_code_action(self, params: Any) -> list[dict[str, Any]]:
        uri = document_uri(params)
        (start_line, start_character), (end_line, end_character) = span(params.get("range"))
        rng = {"start": {"line": start_line, "character": start_character},
               "end": {"line": end_line, "character": end_character}}
        linted = self.linted.get(uri)
        if linted is None:
            return []
        actions: list[dict[str, Any]] = []
        for finding, diagnostic in self.findings_at(uri, rng):
            fix = self.fix_action(uri, linted, finding, diagnostic)
            if fix is not None:
                actions.append(fix)
            actions.append(self.ignore_action(uri, linted, finding, diagnostic))
        return actions

    def ignore_action(self, uri: str, linted: Linted, finding: Finding, diagnostic: Diagnostic) -> dict[str, Any]:
        lines = linted.text.split("\n")
        line = _directive_line(lines, linted.kind, finding, linted.run)
        indent = re.match(r"[ \t]*", lines[line - 1] if line - 1 < len(lines) else "").group(0)  # type: ignore[union-attr]
        comment = f"{indent}# relialint: ignore[{finding.code}] {REASON_PLACEHOLDER}\n"
        where = {"line": line - 1, "character": 0}
        edit = {"range": {"start": where, "end": where}, "newText": comment}
        return {"title": f"Ignore {finding.code} here (relialint directive with a reason)", "kind": "quickfix",
                "diagnostics": [diagnostic], "edit": {"changes": {uri: [edit]}}}

    def fix_action(self, uri: str, linted: Linted, finding: Finding,
                   diagnostic: Diagnostic) -> dict[str, Any] | None:
        from relialint.engines import fixedit
        from relialint.engines.registry import default_registry
        from relialint.run.files import DiskOpener, read_file

        record = self.records().get(finding.code)
        fix_set = ((record or {}).get("trigger") or {}).get("fix_edit", {}) or {}
        fix_set = fix_set.get("set") or {}
        if not fix_set:
            return None
        deployment = _deployment_of(linted.run, finding)
        if deployment is None:
            return None
        opener = linted.opener or self.opener_over(DiskOpener())
        result = read_file(linted.text, linted.display, linted.kind, opener)
        engine = default_registry().get(deployment.engine)
        edits = engine.fix_edits(result, deployment, fix_set) if engine is not None else None
        if not edits:
            return None
        document = Document(uri, linted.text, linted.version, self.encoding)  # the text the findings are of
        text_edits = [{"range": {"start": document.client_position(e.line - 1, e.column - 1),
                                 "end": document.client_position(e.end_line - 1, e.end_column - 1)},
                       "newText": e.new_text} for e in edits]
        what = ", ".join(f"{k}={fixedit.render_value(v)}" for k, v in fix_set.items())
        return {"title": f"Fix {finding.code}: set {what}", "kind": "quickfix", "diagnostics": [diagnostic],
                "isPreferred": True, "edit": {"changes": {uri: text_edits}}}


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _editor_message(message: str) -> str:
    """The command line's ways to supply a fact, as editor settings; control and bidirectional characters the
    message echoes from the file as visible escapes (``printable.field``), as in the terminal."""
    from relialint.base.printable import field

    return (field(message).replace("--gpu NAME", "the `gpu` setting")
            .replace("--engine-version V", "the `engineVersion` setting").replace("--os NAME", "the `os` setting")
            .replace("the cli value", "the settings value"))


def _file_diagnostic(message: str, severity: int) -> Diagnostic:
    start = {"line": 0, "character": 0}
    return {"range": {"start": start, "end": start}, "message": message, "severity": severity, "source": SOURCE}


def _note_diagnostic(document: Document, display: str, note: str) -> Diagnostic:
    """A note of the run (``PATH:LINE: text``) as an information diagnostic on its line, or at the top of the
    buffer, with its location, where it is about another file."""
    located = _NOTE.fullmatch(note[len(display) + 1:]) if note.startswith(f"{display}:") else None
    if located is None:
        return {**_file_diagnostic(_editor_message(note), INFORMATION), "code": "note"}
    line = int(located.group(1)) - 1
    text = document.line_text(line)
    start = document.client_position(line, len(text) - len(text.lstrip()))
    end = document.client_position(line, len(text))
    return {"range": {"start": start, "end": end}, "message": _editor_message(located.group(2)),
            "severity": INFORMATION, "source": SOURCE, "code": "note"}


def _client_range(document: Document, finding: Finding) -> dict[str, Any]:
    return {"start": document.client_position(finding.line - 1, finding.column - 1),
            "end": document.client_position(finding.end_line - 1, finding.end_column - 1)}


def _overlaps(a: dict[str, Any], b: dict[str, Any]) -> bool:
    def key(p: dict[str, int]) -> tuple[int, int]:
        return p["line"], p["character"]

    return key(a["start"]) <= key(b["end"]) and key(b["start"]) <= key(a["end"])


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


_BLOCK_SCALAR = lazyre.compile(r":\s*[|>][-+0-9]*\s*(#.*)?$")


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


def main() -> None:
    import os
    import sys

    from relialint.lsp.frame import Frames
    from relialint.lsp.rpc import serve

    frames = Frames(sys.stdin.buffer, lambda message, _: log(message))
    code = serve(RelialintServer(Output(sys.stdout.buffer)), frames)
    sys.stdout.flush()
    sys.stderr.flush()
    # at once: the thread reading stdin may be inside a read, which the interpreter's shutdown would wait for
    os._exit(code)

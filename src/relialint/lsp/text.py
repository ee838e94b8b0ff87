"""Open documents of the language server: their text kept in step with the editor's changes, and positions
converted between the editor's units (UTF-16 code units by default, UTF-8 or UTF-32 where the client prefers) and
the code points relialint counts columns in.
"""

from __future__ import annotations

import os
from typing import Any

from relialint.base import lazyre
from relialint.base.errors import RelialintError
from relialint.lsp.rope import Rope

ENCODINGS = ("utf-8", "utf-16", "utf-32")
DEFAULT_ENCODING = "utf-16"
_DRIVE = lazyre.compile(r"^/[A-Za-z]:")


class InvalidParams(RelialintError, ValueError):
    """A request's parameters do not have the shape the protocol says (answered with a JSON-RPC error)."""


def choose_encoding(capabilities: Any) -> str:
    """The position encoding: the client's first preference that is one of ``ENCODINGS``, else UTF-16."""
    general = capabilities.get("general") if isinstance(capabilities, dict) else None
    offered = general.get("positionEncodings") if isinstance(general, dict) else None
    if isinstance(offered, list):
        for encoding in offered:
            if encoding in ENCODINGS:
                return str(encoding)
    return DEFAULT_ENCODING


def units(text: str, encoding: str) -> int:
    """The length of ``text`` in the encoding's code units."""
    if encoding == "utf-32" or text.isascii():
        return len(text)
    if encoding == "utf-8":
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def code_points(line: str, count: int, encoding: str) -> int:
    """The code-point index of ``count`` code units into ``line``: past its end, its end; inside a character, after
    it."""
    if encoding == "utf-32" or line.isascii():
        return min(count, len(line))
    seen = 0
    for index, char in enumerate(line):
        if seen >= count:
            return index
        seen += units(char, encoding)
    return len(line)


def path_of(uri: str) -> str:
    """The file system path of a ``file:`` URI; any other URI as it is (it names the buffer in messages)."""
    from urllib.parse import unquote, urlsplit

    parts = urlsplit(uri)
    if parts.scheme != "file":
        return uri
    path = unquote(parts.path)
    if parts.netloc and path:
        path = f"//{parts.netloc}{path}"  # a UNC path: file://server/share/x
    elif _DRIVE.match(path):
        path = path[1].lower() + path[2:]  # file:///C:/x
    return path.replace("/", "\\") if os.name == "nt" else path


def position(raw: Any, name: str = "position") -> tuple[int, int]:
    """A protocol ``Position`` as ``(line, character)``; ``InvalidParams`` where it is not one."""
    if not isinstance(raw, dict):
        raise InvalidParams(f"`{name}` must be an object with `line` and `character`")
    out = []
    for key in ("line", "character"):
        value = raw.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**31:
            raise InvalidParams(f"`{name}.{key}` must be an unsigned integer")
        out.append(value)
    return out[0], out[1]


def span(raw: Any, name: str = "range") -> tuple[tuple[int, int], tuple[int, int]]:
    """A protocol ``Range`` as two ``(line, character)`` pairs."""
    if not isinstance(raw, dict):
        raise InvalidParams(f"`{name}` must be an object with `start` and `end`")
    return position(raw.get("start"), f"{name}.start"), position(raw.get("end"), f"{name}.end")


def document_uri(params: Any) -> str:
    """``params.textDocument.uri``."""
    document = params.get("textDocument") if isinstance(params, dict) else None
    uri = document.get("uri") if isinstance(document, dict) else None
    if not isinstance(uri, str):
        raise InvalidParams("`textDocument.uri` must be a string")
    return uri


class Document:
    """One open document: its URI, text and version. The text is a ``Rope``: an edit costs the edit, however
    large the document (``lsp.rope``). Edits are checked when they come and applied when the text is next read
    (to lint it, or to place a diagnostic): a request that comes after a burst of edits does not wait for them."""

    MAX_PENDING = 10_000
    """Edits kept unapplied at most; past them they are applied (each still costs only itself)."""

    def __init__(self, uri: str, text: str, version: int | None, encoding: str = DEFAULT_ENCODING) -> None:
        self.uri = uri
        self.version = version
        self.encoding = encoding
        self._rope = Rope(text)
        self._pending: list[dict[str, Any]] = []
        self._inserted = 0

    @property
    def rope(self) -> Rope:
        """The text with every edit received applied."""
        return self.settle()

    def settle(self) -> Rope:
        """Apply the edits received and not yet applied, in order; the text with all of them."""
        pending, self._pending, self._inserted = self._pending, [], 0
        for change in pending:
            self._apply(change)
        return self._rope

    @property
    def text(self) -> str:
        """The whole text (joined once per version, when it is linted)."""
        return self.rope.text

    def __len__(self) -> int:
        return len(self.rope)

    def size_hint(self) -> int:
        """The length of the text, give or take what the edits not yet applied delete (nothing is applied)."""
        return len(self._rope) + self._inserted

    def line_text(self, line: int) -> str:
        """Line ``line`` (0-based) without its line break; empty past the end."""
        rope = self.rope
        if line >= rope.line_count():
            return ""
        return rope.slice(rope.line_start(line), rope.line_end(line))

    def offset(self, where: tuple[int, int]) -> int:
        """The offset in the text of a position in client units (past the last line: the end of the text; past
        the end of a line: the end of that line). Only the pieces of the line up to the position are read."""
        rope = self.rope
        line, character = where
        if line >= rope.line_count():
            return len(rope)
        start, end = rope.line_start(line), rope.line_end(line)
        if self.encoding == "utf-32":
            return min(start + character, end)
        remaining = character
        for offset, piece in rope.pieces(start, end):
            size = units(piece, self.encoding)
            if remaining <= size:
                return offset + code_points(piece, remaining, self.encoding)
            remaining -= size
        return end

    def client_position(self, line: int, column: int) -> dict[str, int]:
        """A 0-based line and code-point column as a protocol ``Position`` in client units (a line past the end
        as given)."""
        rope = self.rope
        if line >= rope.line_count():
            return {"line": line, "character": column}
        start, end = rope.line_start(line), rope.line_end(line)
        before = rope.slice(start, min(start + column, end))
        return {"line": line, "character": units(before, self.encoding) + max(column - (end - start), 0)}

    def apply_all(self, changes: list[Any]) -> None:
        """The changes of one ``didChange``, in order: all of them, or (one malformed) none. Each ``change`` is
        checked before any is kept, so nothing has to be undone; they are applied when the text is read."""
        for change in changes:
            _check_change(change)
        for change in changes:
            if change.get("range") is None:  # the whole text: what came before it no longer matters
                self._rope, self._pending, self._inserted = Rope(change["text"]), [], 0
            else:
                self._pending.append(change)
                self._inserted += len(change["text"])
        if len(self._pending) > self.MAX_PENDING:
            self.settle()  # the edits kept stay bounded

    def apply(self, change: Any) -> None:
        """One ``TextDocumentContentChangeEvent``: the whole text, or a range replaced (applied at once)."""
        self.apply_all([change])
        self.settle()

    def _apply(self, change: dict[str, Any]) -> None:
        start, end = span(change["range"], "contentChanges.range")
        first, last = self.offset(start), self.offset(end)
        if last < first:
            first, last = last, first
        self._rope.replace(first, last, change["text"])


def _check_change(change: Any) -> None:
    """``InvalidParams`` where ``change`` is not a ``TextDocumentContentChangeEvent``."""
    if not isinstance(change, dict) or not isinstance(change.get("text"), str):
        raise InvalidParams("a content change must be an object with `text`")
    if change.get("range") is not None:
        span(change["range"], "contentChanges.range")

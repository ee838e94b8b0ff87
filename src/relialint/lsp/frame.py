"""Bounded, self-resynchronising LSP framing: the client's raw stream in, one JSON message at a time out.

The LSP wire format is ``Content-Length: N`` headers and then exactly ``N`` bytes. A hostile or broken client
(``Content-Length: abc``, ``-5``, ``1000000000000``, LF-only headers, random bytes, a body shorter than its header)
must not leave the server dead or deaf. ``Frames`` reads the raw stream with bounded reads, hands on only messages
of valid JSON within ``MAX_MESSAGE_BYTES``, reports what it dropped through ``on_error``, and resynchronises at the
next ``Content-Length`` header.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, BinaryIO

MAX_MESSAGE_BYTES = 64 * 1024 * 1024
"""The largest message read; a larger ``Content-Length`` is dropped unread (the document bound is smaller)."""

MAX_HEADER_LINE = 8192
"""The longest header line read at once; longer lines are garbage, skipped in bounded pieces."""

_LENGTH = re.compile(rb"^content-length[ \t]*:[ \t]*(\S*)[ \t]*$", re.IGNORECASE)
_HEADER_START = re.compile(rb"content-length[ \t]*:", re.IGNORECASE)


class Frames:
    """The messages of a raw LSP stream: ``read_message`` gives the next JSON object or array."""

    def __init__(self, raw: BinaryIO, on_error: Callable[[str, object], None] | None = None) -> None:
        self.raw = raw
        self.on_error = on_error or (lambda message, request_id: None)
        self.pending = bytearray()  # raw bytes pushed back for re-reading
        self.eof = False

    def read_message(self) -> Any:
        """The next well-formed message (a ``dict`` or ``list``); ``None`` at the end of the stream."""
        while not self.eof:
            message = self._next()
            if message is not None:
                return message
        return None

    # -- the raw side -----------------------------------------------------------------------------------------------
    def _raw_line(self) -> bytes:
        """One raw line (at most ``MAX_HEADER_LINE`` bytes), pushed-back bytes first."""
        if self.pending:
            end = self.pending.find(b"\n", 0, MAX_HEADER_LINE)
            if end >= 0 or len(self.pending) >= MAX_HEADER_LINE:
                cut = end + 1 if end >= 0 else MAX_HEADER_LINE
                line = bytes(self.pending[:cut])
                del self.pending[:cut]
                return line
            head = bytes(self.pending)
            self.pending.clear()
            return head + self.raw.readline(MAX_HEADER_LINE - len(head))
        return self.raw.readline(MAX_HEADER_LINE)

    def _raw_read(self, n: int) -> bytes:
        taken = bytes(self.pending[:n])
        del self.pending[:n]
        parts = [taken]
        remaining = n - len(taken)
        while remaining > 0:
            chunk = self.raw.read(remaining)
            if not chunk:
                break
            parts.append(chunk)
            remaining -= len(chunk)
        return b"".join(parts)

    def _next(self) -> Any:
        """One message, or ``None`` when what was read was dropped (the caller reads on)."""
        length: int | None = None
        bad: str | None = None
        seen_header = False
        while True:
            line = self._raw_line()
            if not line:
                self.eof = True
                return None
            stripped = line.strip()
            if not stripped:
                if seen_header:
                    break
                continue  # blank lines between frames
            match = _LENGTH.match(stripped)
            if match:
                seen_header = True
                value = match.group(1)
                if not value.isdigit():
                    bad = f"invalid Content-Length {value[:40].decode('ascii', 'replace')!r}"
                elif int(value[:12]) > MAX_MESSAGE_BYTES or len(value) > 12:
                    bad = f"message larger than {MAX_MESSAGE_BYTES} bytes; not read"
                else:
                    length = int(value)
                continue
            if seen_header and b":" in stripped and len(line) < MAX_HEADER_LINE and stripped.isascii():
                continue  # another header (Content-Type)
            # garbage: drop it and look for the next header inside what was read
            found = _HEADER_START.search(line)
            if found is not None and found.start() > 0:
                self.pending[:0] = line[found.start():]
            self.on_error("unreadable input before a Content-Length header; skipped", None)
            return None
        if bad is not None or length is None:
            self.on_error(bad or "a message without Content-Length; skipped", None)
            return None
        body = self._raw_read(length)
        if len(body) < length:
            self.eof = True
            self.on_error("the stream ended inside a message", None)
            return None
        try:
            message = json.loads(body)
        except (ValueError, RecursionError):
            # a body shorter than its header swallows the next frame: resynchronise at that frame's header
            found = _HEADER_START.search(body)
            if found is not None:
                self.pending[:0] = body[found.start():]
            self.on_error("a message that is not valid JSON; skipped", None)
            return None
        if not isinstance(message, dict | list):
            self.on_error("a message that is not a JSON object; skipped", None)
            return None
        return message

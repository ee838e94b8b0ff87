"""Text that is safe to print to a terminal or into a CI log, whatever the input it echoes.

Every human-readable output (``check`` text and ``--format github``, ``facts``, ``validate``, ``explain``,
``records``, ``probe``, errors on stderr) echoes strings that come from its input: file names, quoted options and
values, suppression reasons, configuration keys, baseline entries, error messages. Two layers make that safe:

``field(text)``
    One echoed string, escaped where it is interpolated: C0 and C1 control characters, DEL, the bidirectional
    overrides and isolates of "Trojan Source" (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C), the line and
    paragraph separators and lone surrogates become visible escapes (``\\n``, ``\\r``, ``\\t``, ``\\x1b``,
    ``\\u202e``; a byte of a file name that is not UTF-8 is ``\\xNN`` with NN of 80 or more). A backslash is doubled
    where it would otherwise read as the start of one of those escapes, and at the end of the string (so that what
    follows it in a line cannot make one): the escaping is reversible, for one string and for a line made of several
    (``tests/test_output_safety.py`` decodes it). A newline in a file name can then never start a line.

``lines(text)``
    The pass over a whole output, once, just before it is written. It makes sure no line is a GitHub Actions
    workflow command: the runner reads ``::command ...::`` where a line starts (after leading white space) and the
    older ``##[command]`` anywhere in a line (``ActionCommand.TryParseV2`` / ``TryParse`` in actions/runner). A
    ``::`` that starts a line is written ``\\x3a:`` and every ``##[`` is written ``#\\x23[`` (the same escapes, so
    nothing is lost). It is also the safety net for a string a formatter forgot to pass through ``field``: any raw
    control character left but the newline is escaped (and, with ``color``, relialint's own SGR colour codes kept).

JSON outputs keep exact data: ``json_text`` writes the same characters as JSON ``\\u`` escapes (still the same
string to every JSON parser) so that the JSON printed to a terminal or a CI log carries no raw control character,
bidirectional override or ``##[``.
"""

from __future__ import annotations

import re

BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Bidirectional marks, embeddings, overrides and isolates (Unicode TR9), which reorder what a reader sees."""

SEPARATORS = frozenset("\u2028\u2029")
"""Line and paragraph separators, which some viewers break lines at."""

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_AFTER_BACKSLASH = frozenset("\\xunrt")
"""Characters that, after a backslash, would read as one of the escapes: such a backslash is doubled."""

_SGR = re.compile(r"\x1b\[[0-9;]*m")
_RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                  "\ud800-\udfff]")
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]|##\\[")


def escaped(char: str) -> bool:
    """Whether ``field`` writes ``char`` as an escape."""
    code = ord(char)
    return code < 0x20 or 0x7F <= code <= 0x9F or char in BIDI or char in SEPARATORS or 0xD800 <= code <= 0xDFFF


def _escape(char: str) -> str:
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    if code < 0x80:
        return f"\\x{code:02x}"
    if 0xDC80 <= code <= 0xDCFF:  # a byte of a file name that is not UTF-8 (Python's surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"


def field(text: str, keep: str = "") -> str:
    """One echoed string with every control, bidirectional and separator character as a visible escape.

    ``keep``: characters left as they are, for a caller that escapes them its own way (a GitHub workflow command's
    property, where ``%0A`` gives the runner the exact file name back)."""
    if not any(escaped(c) or c == "\\" for c in text):
        return text
    out: list[str] = []
    last = len(text) - 1
    for i, char in enumerate(text):
        if char == "\\":
            following = text[i + 1] if i < last else ""
            special = not following or following in _AFTER_BACKSLASH or (escaped(following)
                                                                          and following not in keep)
            out.append("\\\\" if special else "\\")
        elif escaped(char) and char not in keep:
            out.append(_escape(char))
        else:
            out.append(char)
    return "".join(out)


def _raw(match: re.Match[str]) -> str:
    return _escape(match.group(0))


def _line(line: str, color: bool) -> str:
    if _RAW.search(line):
        if color and "\x1b" in line:
            parts = _SGR.split(line)
            codes = _SGR.findall(line)
            line = "".join(_RAW.sub(_raw, part) + (codes[i] if i < len(codes) else "") for i, part in enumerate(parts))
        else:
            line = _RAW.sub(_raw, line)
    if "##[" in line:
        line = line.replace("##[", "#\\x23[")
    stripped = line.lstrip()
    if stripped.startswith("::"):
        line = line[: len(line) - len(stripped)] + "\\x3a" + stripped[1:]
    return line


def lines(text: str, color: bool = False) -> str:
    """A whole output, line by line, with no line a workflow command and no raw control character but the newline
    (``color``: relialint's own SGR colour codes are kept)."""
    return "\n".join(_line(line, color) for line in text.split("\n"))


def no_legacy_commands(text: str) -> str:
    """``##[`` written ``#\\x23[`` (data of a ``::`` workflow command, which is never read again as a ``##[`` one, but
    shows what the text output shows)."""
    return text.replace("##[", "#\\x23[")


def _json_escape(match: re.Match[str]) -> str:
    found = match.group(0)
    if found == "##[":
        return "#\\u0023["
    return f"\\u{ord(found):04x}"


def json_text(text: str) -> str:
    """JSON text (from ``json.dumps``) with DEL, C1 controls, bidirectional and separator characters and ``##[`` as
    ``\\u`` escapes: the same data to a JSON parser, nothing a terminal or a CI runner acts on. (``json.dumps``
    already escapes C0 controls; these characters occur only inside JSON strings.)"""
    return _JSON_UNSAFE.sub(_json_escape, text)

"""Env files (``.env``, ``*.env``, systemd ``EnvironmentFile=``, compose ``env_file:``): located assignments.

``KEY=value``, ``export KEY=value``, single and double quotes, ``#`` comments (whole line, or after an unquoted
value following a space). Nothing is expanded except ``${VAR}`` references to keys defined earlier in the same
file, as compose does; a reference to anything else leaves the value unknown.
"""

from __future__ import annotations

import re

from relialint.base import bounds
from relialint.readers import bounded
from relialint.readers.located import Command, EnvVar, FileResult, ReadError, Span
from relialint.readers.opener import FileOpener, Opened

_ASSIGN = re.compile(r"[ \t]*(?:export[ \t]+)?(?P<key>[A-Za-z_][A-Za-z0-9_.\-]*)[ \t]*=[ \t]*")
_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
_DOUBLE_QUOTED = re.compile(r'[^"\\]*(?:\\[\s\S][^"\\]*)*')
"""The inside of a double-quoted value up to its closing quote or a lone backslash at the end (linear: an
unrolled loop, whose parts never match the same text)."""


def parse(text: str, path: str) -> tuple[list[EnvVar], list[ReadError]]:
    """Every assignment in order, each spanning its line; later ones win where a name repeats. Linear in the text:
    a quoted value that runs over lines (or, unterminated, to the end of the file) is scanned once."""
    out: list[EnvVar] = []
    errors: list[ReadError] = []
    known: dict[str, str | None] = {}
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        raw = lines[index].rstrip("\r")
        number = index + 1
        index += 1
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        match = _ASSIGN.match(raw)
        if match is None:
            errors.append(ReadError(path, number, len(raw) - len(raw.lstrip()) + 1,
                                    "not a KEY=value line; ignored", "warning"))
            continue
        value = raw[match.end():].rstrip(" \t")
        end_line, end_col = number, len(raw) + 1
        parsed: str | None
        if value[:1] in ("'", '"'):
            quote = value[0]
            pieces = [value[1:]]
            close, escaped = _closing(pieces[0], quote, False)
            while close < 0 and index < len(lines):
                piece = "\n" + lines[index].rstrip("\r")
                index += 1
                end_line, end_col = index, len(piece)
                close, escaped = _closing(piece, quote, escaped)
                pieces.append(piece)
            if close < 0:
                errors.append(ReadError(path, number, match.end() + 1, "unterminated quote", "warning"))
                parsed = "".join(pieces)
            else:
                pieces[-1] = pieces[-1][:close]
                parsed = "".join(pieces)
                if quote == '"':
                    parsed = re.sub(r'\\([\\"$])', r"\1", parsed.replace("\\n", "\n"))
        else:
            comment = re.search(r"[ \t]#", value)
            parsed = value[: comment.start()].rstrip() if comment else value
        if parsed is not None and (value[:1] != "'"):
            parsed = _expand(parsed, known)
        span = Span(path, number, match.start("key") + 1, end_line, end_col)
        name = match.group("key")
        known[name] = parsed
        out.append(EnvVar(name, parsed, span))
    return out, errors


def _closing(piece: str, quote: str, escaped: bool) -> tuple[int, bool]:
    """Where ``quote`` closes in ``piece`` (-1: not in it) and, for a double quote, whether a backslash at its end
    escapes what follows; ``escaped``: the first character of ``piece`` is escaped."""
    if quote == "'":
        return piece.find("'"), False
    start = 1 if escaped else 0
    end = _DOUBLE_QUOTED.match(piece, min(start, len(piece))).end()  # type: ignore[union-attr]
    if end < len(piece) and piece[end] == '"':
        return end, False
    return -1, end < len(piece)  # stopped at a lone backslash at the end


def _expand(value: str, known: dict[str, str | None]) -> str | None:
    if "$" not in value:
        return value
    unknown = False

    def sub(match: re.Match[str]) -> str:
        nonlocal unknown
        name = match.group(1) or match.group(2)
        found = known.get(name)
        if found is None:
            unknown = True
            return ""
        return found

    result = bounds.sub(_REF, sub, value)
    return None if unknown else result


@bounded.budgeted
def load(opened: Opened) -> tuple[list[EnvVar] | None, ReadError | None]:
    """The assignments of an env file another file names, as its opener gave it; ``None`` with the reason when it
    could not be read or was left unread (outside the project root: ``reach``)."""
    if opened.text is None:
        return None, opened.error
    env, _ = parse(opened.text, opened.path)
    return env, None


@bounded.budgeted
def read(text: str, path: str, opener: FileOpener) -> FileResult:
    """An env file on its own: one ``env`` command carrying its assignments (an engine model decides whether they
    configure a deployment). It names no other file: ``opener`` is not used."""
    del opener
    result = FileResult(path, "env", text=text)
    env, errors = parse(text, path)
    result.errors.extend(errors)
    if env:
        result.commands.append(Command("env", [], env[0].span, env, env_complete=False, argv_complete=False))
    return result

r"""Windows launch scripts: batch files (``.bat``, ``.cmd``) and the plain command lines of PowerShell (``.ps1``).

Static reading only, as for shell scripts: ``set VAR=x`` / ``set "VAR=x"`` and ``$env:VAR = "x"`` / ``$VAR = "x"``
assignments earlier in the file are substituted (``%VAR%``, ``$env:VAR``, ``$VAR``); anything else is unknown.

Batch follows cmd's order: ``%VAR%`` is replaced in the line's text before the line is split into words, so a
value's quotes and blanks take part in the splitting (``set MODEL="C:\My Models\m.gguf"`` keeps the quotes in the
variable, and ``-m %MODEL%`` passes the path without them as one word; ``set "OPTS=-ngl 99 -c 8192"`` then
``%OPTS%`` gives four words). ``set "VAR=x"`` takes the text up to the line's last quote; ``set VAR=x`` the rest of
the line, quotes included. A word made from a substitution is located at the ``%VAR%`` reference, with the
assignment as its source.
Lines continue with ``^`` (batch) or a backtick (PowerShell) at the end. ``start "" /b PROGRAM``, ``call
PROGRAM``, ``& "PROGRAM"`` and ``Start-Process -FilePath PROGRAM -ArgumentList "..."`` are looked through. Control
flow (``if``, ``for``, ``goto``, blocks) is not followed: each command line is read where it stands.
"""

from __future__ import annotations

import re

from relialint.base import bounds
from relialint.readers import bounded
from relialint.readers.located import Command, EnvVar, FileResult, Span, Word, file_name_tail
from relialint.readers.opener import FileOpener

_Char = tuple[str, int, int]  # a character with its line and column


def _logical_lines(text: str, continuation: str) -> list[list[_Char]]:
    """The file's lines, each a list of located characters, with continued lines joined."""
    out: list[list[_Char]] = []
    current: list[_Char] = []
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip("\r")
        chars = [(c, number, i + 1) for i, c in enumerate(line)]
        stripped = line.rstrip()
        if stripped.endswith(continuation) and not stripped.endswith(continuation * 2):
            current.extend(chars[: len(stripped) - 1])
            current.append((" ", number, len(stripped)))
            continue
        current.extend(chars)
        out.append(current)
        current = []
    if current:
        out.append(current)
    return out


def _tokens(chars: list[_Char], escape: str | None) -> list[tuple[str, list[_Char], bool]]:
    """Words split on blanks; double quotes (and PowerShell single quotes) group, and are dropped. Each token:
    its text, its located characters, and whether any part was single-quoted (no expansion)."""
    out: list[tuple[str, list[_Char], bool]] = []
    text: list[str] = []
    located: list[_Char] = []
    quote: str | None = None
    literal = False
    started = False
    i = 0
    while i < len(chars):
        char = chars[i]
        c = char[0]
        if escape and c == escape and i + 1 < len(chars) and quote != "'":
            nxt = chars[i + 1]
            text.append(nxt[0])
            located.append(nxt)
            started = True
            i += 2
            continue
        if quote is None and c in " \t":
            if started:
                out.append(("".join(text), located, literal))
            text, located, literal, started = [], [], False, False
        elif quote is None and (c == '"' or (c == "'" and escape == "`")):
            quote, started = c, True
            literal = literal or c == "'"
            located.append(char)
        elif quote is not None and c == quote:
            quote = None
            located.append(char)
        else:
            text.append(c)
            located.append(char)
            started = True
        i += 1
    if started:
        out.append(("".join(text), located, literal))
    return out


def _span(path: str, located: list[_Char]) -> Span:
    first, last = located[0], located[-1]
    return Span(path, first[1], first[2], last[1], last[2] + 1)


class _Script:
    def __init__(self, text: str, path: str, powershell: bool) -> None:
        self.path = path
        self.powershell = powershell
        self.vars: dict[str, tuple[str, str | None, Span, bool]] = {}  # name as written, value, where, env
        self.tails: dict[str, str] = {}  # an unknown variable's literal file name (``$M = "$env:X\m.gguf"``)
        self.result = FileResult(path, "powershell" if powershell else "batch", text=text)
        self.text = text
        self.substituted: dict[tuple[int, int], Span] = {}  # where a batch ``%VAR%`` was replaced: its assignment
        self.arrays: dict[str, list[Word]] = {}  # PowerShell ``$A = @(...)``: its elements, read where assigned
        self.delayed = False  # batch ``setlocal EnableDelayedExpansion`` seen: ``!VAR!`` expands too

    def expand(self, raw: str, literal: bool) -> tuple[str | None, Span | None]:
        """A token with the file's own assignments substituted; ``None`` when a reference is unknown."""
        pattern = r"\$env:([A-Za-z_][A-Za-z0-9_]*)|\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?" if self.powershell \
            else r"%([A-Za-z_][A-Za-z0-9_]*)%|(%~[a-z]*[0-9*])"
        if literal:
            return raw, None
        unknown = False
        source: Span | None = None

        def sub(match: re.Match[str]) -> str:
            nonlocal unknown, source
            name = match.group(1) or match.group(2) or ""
            found = self.vars.get(name.upper())
            if found is None or found[1] is None:
                unknown = True
                return match.group(0)
            source = source or found[2]
            return found[1]

        value = bounds.sub(re.compile(pattern), sub, raw)
        if unknown or value is None:
            return None, None
        return value, source

    def word(self, raw: str, located: list[_Char], literal: bool, program: bool) -> Word:
        span = _span(self.path, located)
        value, source = self.expand(raw, literal)
        source = source or next((self.substituted[(c[1], c[2])] for c in located if (c[1], c[2]) in self.substituted),
                                None)
        if not self.powershell and not program and re.fullmatch(r"%(\*|~?[a-z]*[0-9])", raw):
            return Word(None, span, splice=True)  # the script's own arguments: none, one or (``%*``) any number
        if value is None and program and re.search(r"[\\/][A-Za-z0-9._+\-]+$", raw):
            return Word(raw, span)  # ``%~dp0llama-server.exe``: the file name says which program runs
        relative = re.fullmatch(r"(%~[a-z]*[0-9*])([A-Za-z0-9._+\-]+)", raw) if value is None and program else None
        if relative is not None:  # ``%~dp0`` ends with a backslash: the rest is the file name
            return Word(relative.group(1) + "\\" + relative.group(2), span)
        if value is None and not literal:  # the file name written after an unknown directory (Word.tail)
            lone = re.fullmatch(r"\$(?:env:)?([A-Za-z_][A-Za-z0-9_]*)|%([A-Za-z_][A-Za-z0-9_]*)%", raw, re.I)
            tail = self.tails.get((lone.group(1) or lone.group(2)).upper()) if lone else file_name_tail(raw)
            return Word(None, span, tail=tail)
        return Word(value, span, source=source)

    def assigned(self, name: str, value: str | None, raw: str, span: Span, is_env: bool) -> None:
        self.vars[name.upper()] = (name, value, span, is_env)
        self.arrays.pop(name.upper(), None)
        tail = file_name_tail(raw) if value is None and re.fullmatch(r"[^;|()@{}\[\]]*", raw) else None
        if tail is None:
            self.tails.pop(name.upper(), None)
        else:
            self.tails[name.upper()] = tail

    def run(self) -> FileResult:
        in_block_comment = False
        lines = _logical_lines(self.text, "`" if self.powershell else "^")
        index = 0
        while index < len(lines):
            chars = lines[index]
            index += 1
            line = "".join(c for c, _, _ in chars).strip()
            if self.powershell:
                if in_block_comment:
                    in_block_comment = "#>" not in line
                    continue
                if line.startswith("<#"):
                    in_block_comment = "#>" not in line
                    continue
            if not line or line.startswith(("#", "::", "@rem", "rem ", "REM ", "Rem ")) or line.lower() == "rem":
                continue
            lead = len(chars) - len("".join(c for c, _, _ in chars).lstrip())
            chars = chars[lead:]
            if chars and chars[0][0] == "@":
                chars = chars[1:]
            if self.powershell:
                array = re.match(r"\$([A-Za-z_]\w*)\s*=\s*@\(", line, re.ASCII)
                if array is not None:
                    index = self.array_assignment(array.group(1), chars, lines, index)
                    continue
                listed = re.match(r"\$([A-Za-z_]\w*)\s*=\s*(?=[\"'$\w-])", line, re.ASCII)
                if listed is not None and _top_level_comma(chars[listed.end():]):
                    self.comma_list(listed.group(1), chars, listed.end())
                    continue
                self.powershell_line(chars)
            else:
                self.batch_line(chars)
        return self.result

    # -- batch -------------------------------------------------------------------------------------------------
    def batch_line(self, chars: list[_Char]) -> None:
        chars = self.percent_expand(chars)
        text = "".join(c for c, _, _ in chars)
        if re.match(r"(?i)setlocal\b.*\benabledelayedexpansion\b", text):
            self.delayed = True
        match = re.match(r"(?i)set\s+(?!/[ap]\b)(?:\"([A-Za-z_]\w*)=(.*)\"|([A-Za-z_]\w*)=(.*))", text, re.ASCII)
        if match:
            quoted = match.group(1) is not None
            group = 1 if quoted else 3
            if quoted:  # ``set "VAR=x" rest``: up to the last quote of the line
                end = text.rfind('"')
                raw = text[match.start(2) : end]
            else:  # ``set VAR=x``: the rest of the line, quotes and all, a ``^`` escaping the next character
                raw = _unescape_carets(match.group(4))
                end = match.end(4)
            value, _ = self.expand(raw, False)
            span = _span(self.path, chars[match.start(group) : max(end, match.start(group) + 1)])
            self.assigned(match.group(group), value, raw, span, True)
            return
        if re.match(r"(?i)(set|setlocal|endlocal|echo|cd|pushd|popd|goto|if|for|exit|pause|title|chcp|"
                    r"timeout|cls|mkdir|md|del|copy|xcopy|type|where)\b|:", text):
            return
        tokens = _tokens(chars, None)
        tokens = _look_through_batch(tokens)
        self.emit(tokens)

    def percent_expand(self, chars: list[_Char]) -> list[_Char]:
        """cmd's first pass over a line: each ``%VAR%`` the file assigned a known value is replaced by that value
        (located at the reference, the first character at its ``%``, the last at its closing ``%``), ``%%`` by
        ``%``; an unknown reference stays as written. After ``setlocal EnableDelayedExpansion``, ``!VAR!`` too:
        cmd expands it after splitting, but the program's own argument parsing (the C runtime's) splits the
        expanded text the same way, so the words it receives are the same."""
        text = "".join(c for c, _, _ in chars)
        out: list[_Char] = []
        last = 0
        pattern = r"%%|%([A-Za-z_]\w*)%|!([A-Za-z_]\w*)!" if self.delayed else r"%%|%([A-Za-z_]\w*)%"
        for match in re.finditer(pattern, text, re.ASCII):
            out.extend(chars[last : match.start()])
            last = match.end()
            name = match.group(1) or (match.group(2) if self.delayed else None)
            if name is None:
                out.append(chars[match.start()])
                continue
            found = self.vars.get(name.upper())
            if found is None or found[1] is None or not bounds.within(len(out) + len(found[1])) \
                    or not bounds.charge(len(found[1])):
                out.extend(chars[match.start() : match.end()])  # unknown (or past the bounds): the word says so
                continue
            first, end = chars[match.start()], chars[match.end() - 1]
            value = found[1]
            for index, c in enumerate(value):
                where = first if index < len(value) - 1 or len(value) == 1 else end
                out.append((c, where[1], where[2]))
            self.substituted[(first[1], first[2])] = found[2]
            self.substituted[(end[1], end[2])] = found[2]
        out.extend(chars[last:])
        return out

    # -- PowerShell --------------------------------------------------------------------------------------------
    def powershell_line(self, chars: list[_Char]) -> None:
        text = "".join(c for c, _, _ in chars)
        match = re.match(r"\$(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$", text, re.I)
        if match:
            raw = match.group(2)
            literal = raw.startswith("'")
            body = raw[1:-1] if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"" else raw
            value = self.expand(body, literal)[0] if re.fullmatch(r"[^;|()@{}\[\]]*", body) else None
            span = _span(self.path, chars[match.start(1) : max(match.end(2), match.start(1) + 1)])
            is_env = text[1:5].lower() == "env:"
            self.assigned(match.group(1), value, "" if literal else body, span, is_env)
            return
        if re.match(r"(?i)(if|else|elseif|foreach|for|while|function|param|write-host|write-output|echo|"
                    r"set-location|cd|try|catch|finally|return|exit|\}|\{|\[)", text):
            return
        tokens = _tokens(chars, "`")
        if tokens and tokens[0][0] in ("&", "."):
            tokens = tokens[1:]
        if tokens and tokens[0][0].lower() == "start-process":
            tokens = self.start_process(tokens[1:])
        self.emit(tokens)

    def array_assignment(self, name: str, chars: list[_Char], lines: list[list[_Char]], index: int) -> int:
        """``$Name = @( "a", $b, "c" )`` over one or more lines: each element one word (PowerShell passes an array's
        elements to a program as separate arguments, with ``@Name`` or ``$Name``). Returns the index of the first
        line after the array."""
        start = next(i for i, c in enumerate(chars) if c[0] == "(") + 1
        body: list[_Char] = []
        depth = 1
        current = chars[start:]
        while True:
            closed = _array_body(current, body, depth)
            if closed >= 0:
                depth = 0
                break
            depth = -closed
            if index >= len(lines):
                break
            current = lines[index]
            index += 1
        span = _span(self.path, chars[: max(start, 1)])
        self.assigned(name, None, "", span, False)
        if depth == 0:  # a closed array of plain elements; anything else stays unknown
            self.arrays[name.upper()] = [self.word(raw, located, literal, False)
                                         for raw, located, literal in _tokens(body, "`")]
        return index

    def comma_list(self, name: str, chars: list[_Char], start: int) -> None:
        """``$Name = "a", $b, "c"``: an array without ``@( )``, one word per element."""
        body: list[_Char] = []
        _array_body(chars[start:], body, 1)
        self.assigned(name, None, "", _span(self.path, chars[:start]), False)
        self.arrays[name.upper()] = [self.word(raw, located, literal, False)
                                     for raw, located, literal in _tokens(body, "`")]

    def start_process(self, tokens: list[tuple[str, list[_Char], bool]]) -> list[tuple[str, list[_Char], bool]]:
        """``Start-Process -FilePath X -ArgumentList "a b", "c"``: the program and its arguments."""
        program: list[tuple[str, list[_Char], bool]] = []
        args: list[tuple[str, list[_Char], bool]] = []
        i = 0
        while i < len(tokens):
            name = tokens[i][0].lower()
            if name in ("-filepath", "-file") and i + 1 < len(tokens):
                program = [tokens[i + 1]]
                i += 2
                continue
            if name in ("-argumentlist", "-args") and i + 1 < len(tokens):
                i += 1
                while (i < len(tokens) and not tokens[i][0].startswith("-")) or (
                        i < len(tokens) and tokens[i][1] and tokens[i][1][0][0] in "\"'"):
                    _, located, literal = tokens[i]
                    inner = [c for c in located if c[0] not in "\"'"]
                    for part in _tokens(inner, None):
                        lead = len(part[0]) - len(part[0].lstrip("@(,"))
                        text = part[0][lead:].rstrip(",)")
                        if text:
                            args.append((text, part[1][lead : lead + len(text)], literal))
                    i += 1
                continue
            if not name.startswith("-") and not program:
                program = [tokens[i]]
            i += 1
        return program + args

    # -- both --------------------------------------------------------------------------------------------------
    def emit(self, tokens: list[tuple[str, list[_Char], bool]]) -> None:
        if not tokens:
            return
        words: list[Word] = []
        for index, (raw, located, literal) in enumerate(tokens):
            if len(words) > bounds.MAX_WORDS:
                break  # splatting an array many times: ``bounded`` reports the command's words past the bound
            splat = re.fullmatch(r"([@$])([A-Za-z_]\w*)", raw, re.ASCII) if index and self.powershell else None
            if splat is not None and not literal and splat.group(2).upper() in self.arrays:
                words.extend(self.arrays[splat.group(2).upper()])  # ``@Args`` / ``$Args`` of an array
            elif splat is not None and not literal and splat.group(1) == "@":
                words.append(Word(None, _span(self.path, located), splice=True))  # an unknown splat: any words
            else:
                words.append(self.word(raw, located, literal, index == 0))
        env = [EnvVar(name, value, span) for name, value, span, is_env in self.vars.values() if is_env]
        self.result.commands.append(Command("shell", words, words[0].span, env, env_complete=False,
                                            argv_complete=True))


def _array_body(chars: list[_Char], body: list[_Char], depth: int) -> int:
    """One line of an ``@( ... )`` array: its characters appended to ``body`` with commas and a ``#`` comment
    blanked; the array's end as an index of ``chars`` when its ``)`` is on this line, else ``-depth`` (the nesting
    still open, which a nested ``(`` makes more than one)."""
    quote: str | None = None
    for i, char in enumerate(chars):
        c = char[0]
        if quote is not None:
            quote = None if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c == "#":
            break
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        if quote is None and c == ",":
            body.append((" ", char[1], char[2]))
            continue
        body.append(char)
    body.append((" ", chars[-1][1] if chars else 0, (chars[-1][2] + 1) if chars else 0))
    return -depth


def _unescape_carets(text: str) -> str:
    """cmd's ``^`` escape outside double quotes (``a^&b`` is ``a&b``); inside quotes a caret is itself."""
    out: list[str] = []
    quoted = False
    i = 0
    while i < len(text):
        c = text[i]
        if c == '"':
            quoted = not quoted
        elif c == "^" and not quoted and i + 1 < len(text):
            i += 1
            c = text[i]
        out.append(c)
        i += 1
    return "".join(out)


def _top_level_comma(chars: list[_Char]) -> bool:
    """Whether a comma outside quotes and brackets separates the text (a PowerShell array literal)."""
    quote: str | None = None
    depth = 0
    for c, _, _ in chars:
        if quote is not None:
            quote = None if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c == "#":
            return False
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            return True
    return False


def _look_through_batch(tokens: list[tuple[str, list[_Char], bool]]) -> list[tuple[str, list[_Char], bool]]:
    """``start "title" /b /wait PROGRAM ...`` and ``call PROGRAM ...``: the program and its arguments."""
    if tokens and tokens[0][0].lower() == "call":
        return tokens[1:]
    if tokens and tokens[0][0].lower() == "start":
        rest = tokens[1:]
        if rest and rest[0][1] and rest[0][1][0][0] == '"':
            rest = rest[1:]  # the window title
        while rest and rest[0][0].startswith("/"):
            flag = rest[0][0].lower()
            rest = rest[1:]
            if flag in ("/d", "/affinity", "/node") and rest:
                rest = rest[1:]
        return rest
    return tokens


@bounded.budgeted
def read(text: str, path: str, opener: FileOpener) -> FileResult:
    """A ``.bat`` / ``.cmd`` (batch) or ``.ps1`` (PowerShell) script. It reads no file it names: ``opener`` is not
    used."""
    del opener
    return _Script(text, path, path.lower().endswith(".ps1")).run()

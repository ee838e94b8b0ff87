"""Shell scripts (tree-sitter-bash) to located commands.

Static reading only: variables resolve from literal assignments earlier in the same file; anything else
(``$(...)``, a variable the file never assigns, ``"$@"``) is unknown, never guessed and never run. Wrappers
(``exec``, ``nohup``, ``env``, ``sudo``, ``systemd-run --scope``, ``time``, ``nice``, ``timeout``) are looked
through, ``docker run``/``podman run`` become container commands, and heredocs that write a file are kept so a
later ``--config FILE`` can read them.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from functools import lru_cache
from typing import TYPE_CHECKING

from relialint.base import bounds
from relialint.base.plain import replace
from relialint.readers import bounded
from relialint.readers.dockerrun import docker_run
from relialint.readers.located import Command, EnvVar, FileResult, ReadError, Span, Word, file_name_tail
from relialint.readers.opener import FileOpener
from relialint.readers.wrappers import shell_script, unwrap

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

_CONDITIONAL = {
    "if_statement",
    "elif_clause",
    "else_clause",
    "while_statement",
    "for_statement",
    "c_style_for_statement",
    "case_statement",
    "function_definition",
    "subshell",
}
_EXPANSION = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-=+?])(.*))?\}$", re.DOTALL)
_CONTINUATION = re.compile(rb"[\x80-\xbf]")
_SPLICE_EXPANSION = re.compile(r"^\$\{[A-Za-z_][A-Za-z0-9_]*\[[@*]\]\}$")


@lru_cache(maxsize=1)
def _parser() -> Parser:
    from tree_sitter import Language, Parser

    return Parser(Language(_bash_language()))


def _bash_language() -> object:
    """The bash grammar, loaded from the package's compiled binding alone. The package's ``__init__`` imports
    ``importlib.resources`` (and through it tempfile, shutil, bz2, lzma and random) only to read highlight queries
    relialint never uses: about 4 ms of every start. Any surprise in the package's layout falls back to the plain
    import."""
    import importlib.machinery
    import importlib.util

    try:
        spec = importlib.util.find_spec("tree_sitter_bash")
        folder = next(iter(spec.submodule_search_locations or ())) if spec is not None else None
        if folder is not None:
            # the import system's own finder for one folder of extension modules (the reader lists nothing itself)
            finder = importlib.machinery.FileFinder(
                folder, (importlib.machinery.ExtensionFileLoader, importlib.machinery.EXTENSION_SUFFIXES))
            binding = finder.find_spec("tree_sitter_bash._binding")
            if binding is not None and binding.loader is not None:
                module = importlib.util.module_from_spec(binding)
                binding.loader.exec_module(module)
                return module.language()
    except (ImportError, OSError, AttributeError, ValueError):
        pass
    import tree_sitter_bash

    return tree_sitter_bash.language()


class _Var:
    value: str | None
    span: Span | None
    exported: bool = False
    items: list[Word] | None = None  # a bash array's elements, located where they were written
    items_complete: bool = True
    script: _Script | None = None  # the value as text with each character's place in the file
    partial: str | None = None  # a path whose directory is unknown but whose file name is literal

    def __init__(self, value: str | None, span: Span | None, exported: bool = False, items: list[Word] | None = None,
                 items_complete: bool = True, script: _Script | None = None, partial: str | None = None) -> None:
        self.value = value
        self.span = span
        self.exported = exported
        self.items = items
        self.items_complete = items_complete
        self.script = script
        self.partial = partial


class _Script:
    """Text that a shell will parse again (``bash -c``, ``eval``, ``exec $CMD``), each character's file position."""

    text: str
    places: list[tuple[int, int]]
    end: tuple[int, int]

    def __init__(self, text: str, places: list[tuple[int, int]], end: tuple[int, int]) -> None:
        self.text = text
        self.places = places
        self.end = end


class _Value:
    """A word's value while it is built: ``None`` text means unknown."""

    text: str | None
    splice: bool = False
    source: Span | None = None
    variable: str | None = None

    def __init__(self, text: str | None, splice: bool = False, source: Span | None = None,
                 variable: str | None = None) -> None:
        self.text = text
        self.splice = splice
        self.source = source
        self.variable = variable


class _State:
    path: str
    data: bytes
    line_starts: list[int]
    vars: dict[str, _Var]
    result: FileResult

    def __init__(self, path: str, data: bytes, line_starts: list[int], result: FileResult,
                 vars: dict[str, _Var] | None = None) -> None:
        self.path = path
        self.data = data
        self.line_starts = line_starts
        self.vars = {} if vars is None else vars
        self.result = result


_MAX_DEPTH = 4
"""Scripts inside scripts (``bash -c "..."`` inside ``eval``...) are read this deep, no deeper."""


def _looked_up(raw: str) -> str | None:
    """``$(which NAME)``, ``$(command -v NAME)``, ``$(type -P NAME)`` (quoted or not): the program the shell's
    PATH finds for NAME, the same one a command written ``NAME`` runs; its name, or ``None``."""
    match = re.fullmatch(r'"?\$\((?:which|command -v|type -P)\s+([A-Za-z0-9._+\-]+)\s*\)"?', raw)
    return match.group(1) if match else None


def _interpreter(text: str, path: str) -> Word | None:
    """The ``#!`` line's interpreter path (``#!/usr/bin/env bash`` gives ``/usr/bin/env``)."""
    match = re.match(r"\ufeff?#!\s*(\S+)", text)
    if match is None:
        return None
    return Word(match.group(1), Span(path, 1, match.start(1) + 1, 1, match.end(1) + 1))


class _Reader:
    def __init__(self, text: str, path: str, opener: FileOpener, depth: int = 0) -> None:
        self.opener = opener
        data = text.encode("utf-8", errors="surrogateescape")
        starts = [0, *(match.end() for match in re.finditer(b"\n", data))]
        self.state = _State(path, data, starts, FileResult(path, "shell", text=text))
        if depth == 0:
            self.state.result.interpreter = _interpreter(text, path)
        self.branch: tuple[tuple[int, int, int], ...] = ()
        self.depth = depth
        self._continuations: dict[int, list[int]] = {}
        self._ascii = data.isascii()

    # -- positions ---------------------------------------------------------------------------------------------
    def _col(self, row: int, byte_col: int) -> int:
        """The 1-based character column of a byte column: the bytes minus the UTF-8 continuation bytes before it,
        found by bisection in a per-line table built once (linear in the line, however many words it holds)."""
        if self._ascii:
            return byte_col + 1
        inner = self._continuations.get(row)
        if inner is None:
            starts = self.state.line_starts
            start = starts[row] if row < len(starts) else 0
            end = starts[row + 1] if row + 1 < len(starts) else len(self.state.data)
            inner = self._continuations[row] = [m.start() for m in _CONTINUATION.finditer(self.state.data, start, end)]
            inner[:] = [offset - start for offset in inner]
        return byte_col - bisect_left(inner, byte_col) + 1

    def span(self, node: Node) -> Span:
        (r0, c0), (r1, c1) = node.start_point, node.end_point
        return Span(self.state.path, r0 + 1, self._col(r0, c0), r1 + 1, self._col(r1, c1))

    def text(self, node: Node) -> str:
        return self.state.data[node.start_byte : node.end_byte].decode("utf-8", errors="replace")

    # -- walking -----------------------------------------------------------------------------------------------
    def run(self) -> FileResult:
        tree = _parser().parse(parse_safe(self.state.data))
        result = self.state.result
        self.walk(tree.root_node, conditional=False)
        if tree.root_node.has_error:
            self.report_errors(tree.root_node)
        return result

    def report_errors(self, root: Node) -> None:
        result = self.state.result
        stack = [root]
        seen = 0
        while stack and seen < 5:
            node = stack.pop()
            if node.type == "ERROR" or node.is_missing:
                span = self.span(node)
                what = f"missing {node.type}" if node.is_missing else "cannot parse this part of the script"
                result.errors.append(ReadError(self.state.path, span.line, span.column,
                                               f"{what}; commands elsewhere in the file were still read", "warning"))
                seen += 1
                continue
            stack.extend(reversed(node.children))

    def walk(self, node: Node, conditional: bool) -> None:
        kind = node.type
        if kind == "command":
            self.command(node, conditional)
            return
        if kind == "variable_assignment":
            self.assign(node, conditional, exported=False)
            return
        if kind == "declaration_command":
            self.declaration(node, conditional)
            return
        if kind == "redirected_statement":
            self.redirected(node, conditional)
            return
        if kind in ("if_statement", "case_statement"):
            self.arms(node)
            return
        inner = conditional or kind in _CONDITIONAL
        for child in node.children:
            self.walk(child, inner)

    def arms(self, node: Node) -> None:
        """``if``/``elif``/``else`` and ``case`` arms: each command records which arm it is in."""
        outer = self.branch
        span = self.span(node)
        arm = -1  # the condition of an ``if`` (and the ``case`` word) runs whichever arm follows
        for child in node.children:
            if child.type in ("then", "elif_clause", "else_clause", "case_item"):
                arm += 1
            self.branch = (*outer, (span.line, span.column, arm)) if arm >= 0 else outer
            self.walk(child, True)
        self.branch = outer

    def assign(self, node: Node, conditional: bool, exported: bool) -> None:
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        if name_node is None:
            return
        name = self.text(name_node)
        previous = self.state.vars.get(name)
        keep_exported = exported or bool(previous and previous.exported)
        if value_node is not None and value_node.type == "array":
            items = [self.word(child) for child in value_node.named_children if child.type != "comment"]
            appended = any(child.type == "+=" for child in node.children)
            if appended and previous is not None and previous.items is not None:
                items = previous.items + items
                complete = previous.items_complete and not conditional
            else:
                complete = not conditional and not (appended and previous is not None)
            complete = complete and not any(item.splice for item in items)
            self.state.vars[name] = _Var(None, self.span(node), keep_exported, items, complete)
            return
        value = self.value(value_node) if value_node is not None else _Value("")
        known = None if conditional or value.splice else value.text
        var = _Var(known, self.span(node), keep_exported)
        if not conditional and value_node is not None:
            command_like = known is not None and (" " in known or "\t" in known)  # what eval / exec $CMD run
            var.script = self.script(value_node) if command_like else None
            var.partial = self.partial(value_node) if known is None else None
        self.state.vars[name] = var

    def declaration(self, node: Node, conditional: bool) -> None:
        keyword = node.children[0].type if node.children else ""
        exported = keyword == "export"
        for child in node.children[1:]:
            if child.type == "variable_assignment":
                self.assign(child, conditional, exported)
            elif child.type == "variable_name" and exported:
                name = self.text(child)
                var = self.state.vars.get(name)
                if var is not None:
                    var.exported = True
                else:
                    self.state.vars[name] = _Var(None, self.span(child), True)

    def redirected(self, node: Node, conditional: bool) -> None:
        target: str | None = None
        body: Node | None = None
        for child in node.children:
            if child.type == "file_redirect":
                dest = child.child_by_field_name("destination")
                if dest is not None and any(c.type in (">", ">|") for c in child.children):
                    target = self.value(dest).text
            elif child.type == "heredoc_redirect":
                for part in child.children:
                    if part.type == "heredoc_body":
                        body = part
                    elif part.type == "file_redirect":
                        dest = part.child_by_field_name("destination")
                        if dest is not None:
                            target = self.value(dest).text
        if body is not None and target:
            result = self.state.result
            result.written_files[target] = (self.text(body), self.span(body))
        for child in node.children:
            if child.type not in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
                self.walk(child, conditional)

    # -- values ------------------------------------------------------------------------------------------------
    def lookup(self, name: str) -> _Value:
        var = self.state.vars.get(name)
        if var is None or var.value is None or not bounds.charge(len(var.value)):
            return _Value(None)
        return _Value(var.value, source=var.span)

    def expansion(self, node: Node) -> _Value:
        raw = self.text(node)
        if _SPLICE_EXPANSION.match(raw):
            return _Value(None, splice=True)
        match = _EXPANSION.match(raw)
        if not match:
            return _Value(None)
        name, op, default = match.group(1), match.group(2), match.group(3)
        current = self.lookup(name)
        if op is None:
            return current
        default_value = _strip_quotes(default or "")
        if "$" in default_value or "`" in default_value:
            default_known: str | None = None
        else:
            default_known = default_value
        var = self.state.vars.get(name)
        assigned = var is not None and var.value is not None
        if op in (":-", ":="):
            if assigned and current.text:
                return current
            if op == ":=" and not assigned:
                self.state.vars[name] = _Var(default_known, self.span(node))
            return _Value(default_known, source=self.span(node))
        if op in ("-", "="):
            if assigned:
                return current
            if op == "=":
                self.state.vars[name] = _Var(default_known, self.span(node))
            return _Value(default_known, source=self.span(node))
        return _Value(None)

    def value(self, node: Node) -> _Value:
        kind = node.type
        if kind in ("word", "number"):
            return _Value(_unescape(self.text(node)))
        if kind == "raw_string":
            return _Value(self.text(node)[1:-1])
        if kind == "ansi_c_string":
            return _Value(None)
        if kind == "simple_expansion":
            name = self.text(node)[1:]
            if name in ("@", "*"):
                return _Value(None, splice=True)
            value = self.lookup(name)
            if value.text is None or " " in value.text or "\t" in value.text:
                # unquoted: word splitting may give any number of words
                return _Value(None, splice=True, variable=name if value.text is None else None)
            return value
        if kind == "expansion":
            value = self.expansion(node)
            if value.text is None or " " in value.text or "\t" in value.text:
                match = _EXPANSION.match(self.text(node))
                plain = match is not None and match.group(2) is None and value.text is None
                return _Value(None, splice=True, variable=match.group(1) if plain and match else None)
            return value
        if kind == "string":
            return self.string(node)
        if kind == "concatenation":
            parts = [self.value(child) for child in node.children]
            if any(p.text is None for p in parts):
                return _Value(None, splice=any(p.splice for p in parts))
            source = next((p.source for p in parts if p.source is not None), None)
            if not bounds.within(sum(len(p.text or "") for p in parts)):
                return _Value(None)
            return _Value("".join(p.text or "" for p in parts), source=source)
        return _Value(None)

    def string(self, node: Node) -> _Value:
        pieces: list[str] = []
        source: Span | None = None
        inner = self.text(node)[1:-1]
        if not node.named_children:
            return _Value(_unescape_double(inner))
        cursor = node.start_byte + 1
        for child in node.children:
            if child.type == '"':
                continue
            if child.start_byte > cursor:
                pieces.append(_unescape_double(self.state.data[cursor : child.start_byte].decode("utf-8", "replace")))
            if child.type == "string_content":
                pieces.append(_unescape_double(self.text(child)))
            elif child.type == "simple_expansion":
                name = self.text(child)[1:]
                if name in ("@", "*"):
                    return _Value(None, splice=name == "@")
                value = self.lookup(name)
                if value.text is None:
                    return _Value(None)
                source = source or value.source
                pieces.append(value.text)
            elif child.type == "expansion":
                value = self.expansion(child)
                if value.text is None:
                    return _Value(None, splice=value.splice)
                source = source or value.source
                pieces.append(value.text)
            else:
                return _Value(None)
            cursor = child.end_byte
        end = node.end_byte - 1
        if end > cursor:
            pieces.append(_unescape_double(self.state.data[cursor:end].decode("utf-8", "replace")))
        if not bounds.within(sum(len(p) for p in pieces)):
            return _Value(None)
        return _Value("".join(pieces), source=source)

    def word(self, node: Node) -> Word:
        value = self.value(node)
        tail = self.tail(node) if value.text is None else None
        return Word(value.text, self.span(node), value.splice, value.source, value.variable, tail)

    def tail(self, node: Node) -> str | None:
        """An unknown word's literal file name (``"$HOME/m/x.gguf"``, or ``$MODEL`` assigned so): see
        :attr:`Word.tail`."""
        raw = self.as_written(node)
        return file_name_tail(raw) if raw else None

    def as_written(self, node: Node) -> str | None:
        """A word's text with its unknown parts as written (``$HOME/m/x.gguf``): a lone variable's assigned
        text, or the literal and variable pieces of a string or concatenation; ``None`` for any other word."""
        target = node.named_children[0] if node.type == "string" and len(node.named_children) == 1 else node
        if target.type in ("simple_expansion", "expansion"):
            var = self.state.vars.get(self.text(target).lstrip("${").rstrip("}"))
            return var.partial if var is not None else None
        if node.type in ("string", "concatenation"):
            return self.partial(node)
        return None

    # -- text that is parsed again -----------------------------------------------------------------------------
    def place(self, node: Node) -> tuple[int, int]:
        span = self.span(node)
        return span.line, span.column

    def script(self, node: Node) -> _Script | None:
        """A word's value as a shell would hand it on, with the file position of every character: literal text
        keeps its own place, a known variable's value the place of its assignment; ``None`` when unknown."""
        kind = node.type
        if kind == "raw_string":
            return self.verbatim(node, 1, 1, unescape=None)
        if kind in ("word", "number"):
            return self.verbatim(node, 0, 0, unescape="all")
        if kind in ("simple_expansion", "expansion"):
            name = self.text(node).lstrip("${").rstrip("}")
            var = self.state.vars.get(name)
            if var is None or var.value is None:
                return None
            if var.script is not None and var.script.text == var.value:
                return var.script
            at = self.place(node)
            return _Script(var.value, [at] * len(var.value), at)
        if kind == "string":
            texts: list[str] = []
            places: list[tuple[int, int]] = []
            for child in node.children:
                if child.type == '"':
                    continue
                part = self.verbatim(child, 0, 0, unescape="double") if child.type == "string_content" \
                    else self.script(child)
                if part is None:
                    return None
                texts.append(part.text)
                places.extend(part.places)
            end = self.span(node)
            return _Script("".join(texts), places, (end.end_line, end.end_column - 1))
        if kind == "concatenation":
            parts = [self.script(child) for child in node.children]
            if any(part is None for part in parts):
                return None
            return _Script("".join(p.text for p in parts if p), [x for p in parts if p for x in p.places],
                           parts[-1].end if parts and parts[-1] else self.place(node))
        return None

    def verbatim(self, node: Node, skip_start: int, skip_end: int, unescape: str | None) -> _Script:
        """A node's own characters with their places, quotes cut and backslash escapes resolved."""
        raw = self.text(node)
        span = self.span(node)
        line, column = span.line, span.column
        texts: list[str] = []
        places: list[tuple[int, int]] = []
        body = raw[skip_start : len(raw) - skip_end]
        column += skip_start
        i = 0
        while i < len(body):
            char = body[i]
            if unescape and char == "\\" and i + 1 < len(body) and (
                    unescape == "all" or body[i + 1] in '$`"\\\n'):
                if body[i + 1] == "\n":
                    line, column, i = line + 1, 1, i + 2
                    continue
                column += 1
                i += 1
                char = body[i]
            texts.append(char)
            places.append((line, column))
            if char == "\n":
                line, column = line + 1, 1
            else:
                column += 1
            i += 1
        return _Script("".join(texts), places, (line, column))

    def partial(self, node: Node) -> str | None:
        """``"$DIR/bin/llama-server"``: the path as written when only its directory is unknown (a program word's
        file name is what says which program runs)."""
        raw = self.text(node)
        looked_up = _looked_up(raw)
        if looked_up is not None:
            return looked_up
        if node.type == "string":
            raw = raw[1:-1]
        head, slash, name = raw.rpartition("/")
        if not slash or not head or not re.fullmatch(r"[A-Za-z0-9._+\-]+", name):
            return None
        return raw

    def inner(self, script: _Script, table: dict[str, _Var]) -> list[Command]:
        """The commands of a script held in a string, located where its text was written in this file."""
        if self.depth >= _MAX_DEPTH:
            return []
        reader = _Reader(script.text, self.state.path, self.opener, self.depth + 1)
        reader.state.vars = table
        reader.branch = self.branch
        found = reader.run()
        starts = [0]
        for index, char in enumerate(script.text):
            if char == "\n":
                starts.append(index + 1)

        def place(line: int, column: int) -> tuple[int, int]:
            offset = starts[min(line, len(starts)) - 1] + column - 1
            return script.places[offset] if 0 <= offset < len(script.places) else script.end

        def remap(span: Span) -> Span:
            (l0, c0), (l1, c1) = place(span.line, span.column), place(span.end_line, span.end_column - 1)
            return Span(span.path, l0, c0, l1, c1 + 1)

        outer = {id(var.span) for var in table.values() if var.span is not None}

        def moved(span: Span | None) -> Span | None:
            return span if span is None or id(span) in outer else remap(span)

        def word(w: Word) -> Word:
            return replace(w, span=remap(w.span), source=moved(w.source))

        out: list[Command] = []
        for command in found.commands:
            branch = tuple((*place(line, col), arm) if i >= len(self.branch) else (line, col, arm)
                           for i, (line, col, arm) in enumerate(command.branch))
            out.append(Command(command.kind, [word(w) for w in command.argv], remap(command.span),
                               [replace(v, span=moved(v.span) or v.span, source=moved(v.source))
                                for v in command.env],
                               command.env_complete, word(command.image) if command.image else None,
                               [word(w) for w in command.entrypoint] if command.entrypoint is not None else None,
                               command.name, command.gpu_count,
                               remap(command.gpu_count_span) if command.gpu_count_span else None,
                               argv_complete=command.argv_complete, branch=branch))
            out[-1].container_labels = [(label, value, remap(at)) for label, value, at in command.container_labels]
        return out

    # -- commands ----------------------------------------------------------------------------------------------
    def command(self, node: Node, conditional: bool) -> None:
        result = self.state.result
        if len(result.commands) >= bounds.MAX_COMMANDS:
            bounded.too_many_commands(result, self.span(node))
            return
        env: list[EnvVar] = []
        words: list[Word] = []
        nodes: dict[int, Node] = {}
        for child in node.children:
            if len(words) >= bounds.MAX_WORDS:
                span = self.span(child)
                words.append(Word(None, span, splice=True))  # the rest is unknown, never read word by word
                bounded.too_many_words(result, span)
                break
            if child.type == "variable_assignment":
                name_node = child.child_by_field_name("name")
                value_node = child.child_by_field_name("value")
                if name_node is None:
                    continue
                value = self.value(value_node) if value_node is not None else _Value("")
                env.append(EnvVar(self.text(name_node), value.text, self.span(child), value.source))
            elif child.type == "command_name":
                for part in child.children:
                    self.add_word(part, words, nodes)
            elif child.type in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
                continue
            elif child.is_named and child.type != "comment":
                self.add_word(child, words, nodes)
        if not words:
            for assignment in node.children:
                if assignment.type == "variable_assignment":
                    self.assign(assignment, conditional, exported=False)
            return
        if words[0].text == ":":
            for word_node in node.children[1:]:
                if word_node.type in ("string", "expansion", "concatenation"):
                    self.value(word_node)
            return
        words, env = unwrap(words, env)
        if not words:
            return
        result = self.state.result
        full_env = self.exported_env() + env
        nested = self.nested(words, nodes, env)
        if nested is not None:
            result.commands.extend(nested)
            return
        container: Command | None = None
        if words[0].text in ("docker", "podman") and len(words) > 1 and words[1].text == "run":
            container = docker_run(words[2:], full_env, words[0].span, self.opener)
        elif words[0].text in ("docker", "podman") and len(words) > 2 and words[1].text == "container" \
                and words[2].text == "run":
            container = docker_run(words[3:], full_env, words[0].span, self.opener)
        if container is not None:
            container.branch = self.branch
            result.errors.extend(container.problems)
            result.commands.extend(self.container_script(container, nodes) or [container])
            return
        if words[0].text is None:
            words[0] = self.program(words[0], nodes)
        result.commands.append(Command("shell", words, words[0].span, full_env,
                                       argv_complete=not any(w.splice for w in words), branch=self.branch))

    def add_word(self, node: Node, words: list[Word], nodes: dict[int, Node]) -> None:
        """One word, or a bash array's elements for ``"${ARGS[@]}"`` (each located where it was written)."""
        target = node
        if node.type == "string" and len(node.named_children) == 1:
            target = node.named_children[0]
        if target.type == "expansion" and _SPLICE_EXPANSION.match(self.text(target)):
            name = self.text(target)[2:].split("[", 1)[0]
            var = self.state.vars.get(name)
            if var is not None and var.items is not None:
                words.extend(var.items)
                if not var.items_complete:
                    words.append(Word(None, self.span(node), splice=True))
                return
        word = self.word(node)
        if word.text == "" and _unquoted_expansion(node):
            return  # ${EXTRA_ARGS:-} unset, $EMPTY known empty: field splitting leaves no word at all
        nodes[id(word)] = node
        words.append(word)

    def program(self, word: Word, nodes: dict[int, Node]) -> Word:
        """A program word whose directory is unknown (``"$HOME_DIR/bin/llama-server"``, ``$BIN`` assigned so):
        the path as written, so its file name still says which program runs."""
        node = nodes.get(id(word))
        if node is None:
            return word
        looked_up = _looked_up(self.text(node))
        if looked_up is not None:
            return Word(looked_up, word.span)
        partial = self.as_written(node)
        return Word(partial, word.span) if partial is not None else word

    def nested(self, words: list[Word], nodes: dict[int, Node], env: list[EnvVar]) -> list[Command] | None:
        """Commands held in a string: ``eval "$CMD"``, ``exec $CMD`` (a static command line in a variable) and
        ``bash -c "..."``; ``None`` when the words are not one of these or the string is not known."""
        head = words[0]
        if head.text == "eval" and len(words) > 1:
            parts = [self.script(nodes[id(w)]) if id(w) in nodes else None for w in words[1:]]
            if any(part is None for part in parts):
                return None
            text = " ".join(p.text for p in parts if p)
            places: list[tuple[int, int]] = []
            for p in parts:
                if p is not None:
                    places.extend([*p.places, p.end])
            return self.inner(_Script(text, places[: len(text)], places[-1]), self.state.vars)
        node = nodes.get(id(head))
        if head.text is None and head.splice and node is not None and node.type in ("simple_expansion",
                                                                                        "expansion"):
            script = self.script(node)
            if script is None or not re.fullmatch(r"[^'\"\\$`;|&<>()*?\[\]{}]+", script.text):
                return None
            commands = self.inner(script, self.state.vars)
            if commands:
                commands[-1].argv.extend(words[1:])
                commands[-1].argv_complete = commands[-1].argv_complete and not any(w.splice for w in words[1:])
                for command in commands:
                    command.env = command.env + env
            return commands
        found = shell_script(words)
        if found is None:
            return None
        script_node = nodes.get(id(found))
        script = self.script(script_node) if script_node is not None else None
        if script is None:
            return None
        table = {name: var for name, var in self.state.vars.items() if var.exported}
        for var in env:
            table[var.name] = _Var(var.value, var.span, exported=True)
        return self.inner(script, table)

    def container_script(self, container: Command, nodes: dict[int, Node]) -> list[Command] | None:
        """``docker run IMAGE bash -lc "..."``: the script's commands, each run in that container."""
        words = container.argv if container.entrypoint is None else container.entrypoint + container.argv
        found = shell_script(words)
        script_node = nodes.get(id(found)) if found is not None else None
        script = self.script(script_node) if script_node is not None else None
        if script is None:
            return None
        table = {var.name: _Var(var.value, var.span, exported=True) for var in container.env}
        out: list[Command] = []
        for command in self.inner(script, table):
            if command.image is not None:
                continue
            out.append(Command("container", [], command.span, command.env, container.env_complete,
                               container.image, command.argv, container.name, container.gpu_count,
                               container.gpu_count_span, argv_complete=command.argv_complete,
                               branch=command.branch))
            out[-1].container_labels = list(container.container_labels)
        return out

    def exported_env(self) -> list[EnvVar]:
        out = []
        for name, var in self.state.vars.items():
            if var.exported and var.span is not None:
                out.append(EnvVar(name, var.value, var.span))
        return out


def _unquoted_expansion(node: Node) -> bool:
    """Whether a word is made only of unquoted parameter expansions (``${A:-}``, ``$B``, ``${A:-}$B``): when it
    comes to the empty string, field splitting removes it (POSIX 2.6.5/2.6.7), while a quoted ``"${A:-}"`` or a
    literal ``''`` stays one empty word."""
    parts = node.children if node.type == "concatenation" else [node]
    return bool(parts) and all(part.type in ("expansion", "simple_expansion") for part in parts)


def _strip_quotes(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def _unescape(text: str) -> str:
    if "\\" not in text:
        return text
    return re.sub(r"\\(.)", r"\1", text.replace("\\\n", ""))


def _unescape_double(text: str) -> str:
    if "\\" not in text:
        return text
    return re.sub(r'\\([$`"\\])', r"\1", text.replace("\\\n", ""))


# tree-sitter-bash 0.25's scanner crashes now and then (a segmentation fault, not an exception) on a `{` followed
# by non-ASCII text (`{㉎𭀉`, `{` and a private-use code point): it reads past a table indexed by the code point.
# Bash itself treats every byte from 0x80 up as an ordinary word character, so the parser is handed `_` for each
# of them: the byte length stays, so every position and every word's text (taken from the original bytes) is as
# written, and the tokens are the ones bash would see.
_ASCII_ONLY = bytes(range(128)) + b"_" * 128


def parse_safe(data: bytes) -> bytes:
    """The bytes handed to the parser: each byte from 0x80 up as ``_``."""
    return data.translate(_ASCII_ONLY)


@bounded.budgeted
def read(text: str, path: str, opener: FileOpener, env: list[EnvVar] | None = None) -> FileResult:
    """Read a shell script. Never raises on bad input; parse problems are located warnings. ``env``: variables
    the script starts with (a systemd unit's ``Environment=``, a container's env), as exported ones; ``opener``
    reads the files its commands name (``docker run --env-file``)."""
    try:
        reader = _Reader(text, path, opener)
        for var in env or []:
            reader.state.vars[var.name] = _Var(var.value, var.span, exported=True)
        return reader.run()
    except RecursionError:
        result = FileResult(path, "shell", text=text)
        result.errors.append(ReadError(path, 1, 1, "script nested too deeply to read"))
        return result

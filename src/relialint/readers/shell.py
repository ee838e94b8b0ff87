"""Shell scripts (tree-sitter-bash) to located commands.

Static reading only: variables resolve from literal assignments earlier in the same file; anything else
(``$(...)``, a variable the file never assigns, ``"$@"``) is unknown, never guessed and never run. Wrappers
(``exec``, ``nohup``, ``env``, ``sudo``, ``systemd-run --scope``, ``time``, ``nice``, ``timeout``) are looked
through, ``docker run``/``podman run`` become container commands, and heredocs that write a file are kept so a
later ``--config FILE`` can read them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from relialint.readers.located import Command, EnvVar, FileResult, ReadError, Span, Word

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
_SPLICE_EXPANSION = re.compile(r"^\$\{[A-Za-z_][A-Za-z0-9_]*\[[@*]\]\}$")


@lru_cache(maxsize=1)
def _parser() -> Parser:
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_bash.language()))


@dataclass(repr=False, eq=False)
class _Var:
    value: str | None
    span: Span | None
    exported: bool = False


@dataclass(repr=False, eq=False)
class _Value:
    """A word's value while it is built: ``None`` text means unknown."""

    text: str | None
    splice: bool = False
    source: Span | None = None


@dataclass(repr=False, eq=False)
class _State:
    path: str
    data: bytes
    line_starts: list[int]
    vars: dict[str, _Var] = field(default_factory=dict)
    result: FileResult | None = None


class _Reader:
    def __init__(self, text: str, path: str) -> None:
        data = text.encode("utf-8", errors="surrogateescape")
        starts = [0]
        for index, byte in enumerate(data):
            if byte == 10:
                starts.append(index + 1)
        self.state = _State(path, data, starts, result=FileResult(path, "shell", text=text))

    # -- positions ---------------------------------------------------------------------------------------------
    def _col(self, row: int, byte_col: int) -> int:
        start = self.state.line_starts[row] if row < len(self.state.line_starts) else 0
        return len(self.state.data[start : start + byte_col].decode("utf-8", errors="replace")) + 1

    def span(self, node: Node) -> Span:
        (r0, c0), (r1, c1) = node.start_point, node.end_point
        return Span(self.state.path, r0 + 1, self._col(r0, c0), r1 + 1, self._col(r1, c1))

    def text(self, node: Node) -> str:
        return self.state.data[node.start_byte : node.end_byte].decode("utf-8", errors="replace")

    # -- walking -----------------------------------------------------------------------------------------------
    def run(self) -> FileResult:
        tree = _parser().parse(self.state.data)
        result = self.state.result
        assert result is not None
        self.walk(tree.root_node, conditional=False)
        if tree.root_node.has_error:
            self.report_errors(tree.root_node)
        return result

    def report_errors(self, root: Node) -> None:
        result = self.state.result
        assert result is not None
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
        inner = conditional or kind in _CONDITIONAL
        for child in node.children:
            self.walk(child, inner)

    def assign(self, node: Node, conditional: bool, exported: bool) -> None:
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        if name_node is None:
            return
        name = self.text(name_node)
        value = self.value(value_node) if value_node is not None else _Value("")
        known = None if conditional or value.splice else value.text
        previous = self.state.vars.get(name)
        self.state.vars[name] = _Var(known, self.span(node), exported or bool(previous and previous.exported))

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
            assert result is not None
            result.written_files[target] = (self.text(body), self.span(body))
        for child in node.children:
            if child.type not in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
                self.walk(child, conditional)

    # -- values ------------------------------------------------------------------------------------------------
    def lookup(self, name: str) -> _Value:
        var = self.state.vars.get(name)
        if var is None or var.value is None:
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
                return _Value(None, splice=True)  # unquoted: word splitting may give any number of words
            return value
        if kind == "expansion":
            value = self.expansion(node)
            if value.text is None or " " in value.text or "\t" in value.text:
                return _Value(None, splice=True)
            return value
        if kind == "string":
            return self.string(node)
        if kind == "concatenation":
            parts = [self.value(child) for child in node.children]
            if any(p.text is None for p in parts):
                return _Value(None, splice=any(p.splice for p in parts))
            source = next((p.source for p in parts if p.source is not None), None)
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
        return _Value("".join(pieces), source=source)

    def word(self, node: Node) -> Word:
        value = self.value(node)
        return Word(value.text, self.span(node), value.splice, value.source)

    # -- commands ----------------------------------------------------------------------------------------------
    def command(self, node: Node, conditional: bool) -> None:
        env: list[EnvVar] = []
        words: list[Word] = []
        for child in node.children:
            if child.type == "variable_assignment":
                name_node = child.child_by_field_name("name")
                value_node = child.child_by_field_name("value")
                if name_node is None:
                    continue
                value = self.value(value_node) if value_node is not None else _Value("")
                env.append(EnvVar(self.text(name_node), value.text, self.span(child), value.source))
            elif child.type == "command_name":
                for part in child.children:
                    words.append(self.word(part))
            elif child.type in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
                continue
            elif child.is_named and child.type != "comment":
                words.append(self.word(child))
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
        words, env = _unwrap(words, env)
        if not words:
            return
        result = self.state.result
        assert result is not None
        full_env = self.exported_env() + env
        if words[0].text in ("docker", "podman") and len(words) > 1 and words[1].text == "run":
            result.commands.append(_container(words[2:], full_env, words[0].span))
            return
        if words[0].text in ("docker", "podman") and len(words) > 2 and words[1].text == "container" \
                and words[2].text == "run":
            result.commands.append(_container(words[3:], full_env, words[0].span))
            return
        result.commands.append(Command("shell", words, words[0].span, full_env,
                                       argv_complete=not any(w.splice for w in words)))

    def exported_env(self) -> list[EnvVar]:
        out = []
        for name, var in self.state.vars.items():
            if var.exported and var.span is not None:
                out.append(EnvVar(name, var.value, var.span))
        return out


_WRAPPERS_SIMPLE = {"exec", "nohup", "time", "command", "builtin", "stdbuf", "setsid"}


def _unwrap(words: list[Word], env: list[EnvVar]) -> tuple[list[Word], list[EnvVar]]:
    """Look through ``exec``/``nohup``/``env``/``sudo``/``systemd-run``/``nice``/``timeout``."""
    changed = True
    while changed and words:
        changed = False
        head = words[0].text
        if head in _WRAPPERS_SIMPLE:
            words = words[1:]
            while words and head == "stdbuf" and (words[0].text or "").startswith("-"):
                words = words[1:]
            changed = True
        elif head == "env":
            words = words[1:]
            while words and words[0].text is not None and ("=" in words[0].text or words[0].text.startswith("-")):
                text = words[0].text
                if "=" in text and not text.startswith("-"):
                    name, _, value = text.partition("=")
                    env = [*env, EnvVar(name, value, words[0].span, words[0].source)]
                elif text in ("-u", "--unset", "-C", "--chdir", "-S"):
                    words = words[1:]
                words = words[1:]
            changed = True
        elif head == "sudo":
            words = words[1:]
            while words and (words[0].text or "").startswith("-"):
                flag = words[0].text or ""
                words = words[1:]
                if flag in ("-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U") and words:
                    words = words[1:]
            changed = True
        elif head in ("nice", "ionice", "taskset", "numactl", "chrt"):
            words = words[1:]
            while words and (words[0].text or "").startswith("-"):
                flag = words[0].text or ""
                words = words[1:]
                if flag in ("-n", "-c", "-p") and words and not (words[0].text or "").startswith("-"):
                    words = words[1:]
            if head in ("taskset", "chrt") and words:
                words = words[1:]
            changed = True
        elif head == "timeout":
            words = words[1:]
            while words and (words[0].text or "").startswith("-"):
                flag = words[0].text or ""
                words = words[1:]
                if flag in ("-s", "--signal", "-k", "--kill-after") and words:
                    words = words[1:]
            if words:
                words = words[1:]
            changed = True
        elif head == "systemd-run":
            words = words[1:]
            while words and (words[0].text or "").startswith("-"):
                flag = words[0].text or ""
                words = words[1:]
                if flag in ("-p", "--property", "-u", "--unit", "-E", "--setenv", "--slice", "--uid", "--gid",
                            "-M", "--machine", "--description") and words:
                    if flag in ("-E", "--setenv") and words[0].text and "=" in words[0].text:
                        name, _, value = words[0].text.partition("=")
                        env = [*env, EnvVar(name, value, words[0].span)]
                    words = words[1:]
            changed = True
    return words, env


_DOCKER_VALUE_FLAGS = {
    "-e", "--env", "--env-file", "--gpus", "--entrypoint", "-v", "--volume", "-p", "--publish", "--name",
    "--network", "--net", "--ipc", "--shm-size", "-w", "--workdir", "-u", "--user", "--runtime", "--device",
    "--mount", "--label", "-l", "--memory", "-m", "--cpus", "--ulimit", "--restart", "--platform", "-h",
    "--hostname", "--add-host", "--cap-add", "--security-opt", "--pull", "--log-driver", "--log-opt",
    "--health-cmd", "--group-add", "--cpuset-cpus", "--pid", "--uts", "--stop-signal", "--tmpfs",
}


def _container(words: list[Word], env: list[EnvVar], span: Span) -> Command:
    """``docker run [options] IMAGE [args]`` as a container command."""
    run_env = list(env)
    entrypoint: list[Word] | None = None
    gpu_count: int | None = None
    gpu_span: Span | None = None
    env_files: list[Word] = []
    labels: list[tuple[str, str, Span]] = []
    i = 0
    while i < len(words):
        word = words[i]
        text = word.text or ""
        if not text.startswith("-") or text == "-":
            break
        flag, eq, inline = text.partition("=")
        if flag in _DOCKER_VALUE_FLAGS:
            value: Word | None
            if eq:
                value = Word(inline, word.span, source=word.source)
            else:
                value = words[i + 1] if i + 1 < len(words) else None
                i += 1
            if value is not None:
                if flag in ("-e", "--env") and value.text is not None:
                    name, has_value, val = value.text.partition("=")
                    run_env.append(EnvVar(name, val if has_value else None, value.span, value.source))
                elif flag == "--entrypoint":
                    entrypoint = [value]
                elif flag == "--gpus" and value.text is not None:
                    gpu_count, gpu_span = _gpus(value.text), value.span
                elif flag == "--device" and value.text is not None:
                    labels.append(("compose.device", value.text, value.span))
                elif flag == "--runtime" and value.text in ("nvidia", "amd"):
                    labels.append(("compose.runtime", value.text, value.span))
                elif flag == "--env-file":
                    env_files.append(value)
        i += 1
    image = words[i] if i < len(words) else None
    argv = words[i + 1 :]
    from_files, complete = _env_files(env_files, span.path)
    command = Command("container", argv, image.span if image else span, from_files + run_env, image=image,
                      entrypoint=entrypoint, gpu_count=gpu_count, gpu_count_span=gpu_span,
                      env_complete=complete, argv_complete=not any(w.splice for w in argv), gpu_labels=labels)
    return command


def _env_files(words: list[Word], script: str) -> tuple[list[EnvVar], bool]:
    """``--env-file FILE`` variables, read relative to the script (never sourced or expanded); ``-e`` wins."""
    from pathlib import Path

    from relialint.readers.envfile import load

    env: list[EnvVar] = []
    complete = True
    for word in words:
        if word.text is None:
            complete = False
            continue
        target = Path(word.text) if Path(word.text).is_absolute() else Path(script).parent / word.text
        loaded, _ = load(target, str(target))
        if loaded is None:
            complete = False
            continue
        env.extend(loaded)
    return env, complete


def _gpus(text: str) -> int | None:
    value = text.strip().strip('"').strip("'")
    if value.isdigit():
        return int(value)
    match = re.search(r"device=([0-9,]+)", value)
    if match:
        return len([d for d in match.group(1).split(",") if d])
    return None


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


def read(text: str, path: str) -> FileResult:
    """Read a shell script. Never raises on bad input; parse problems are located warnings."""
    try:
        return _Reader(text, path).run()
    except RecursionError:
        result = FileResult(path, "shell", text=text)
        result.errors.append(ReadError(path, 1, 1, "script nested too deeply to read"))
        return result

"""Records' ``fix_edit`` as text edits: the engine-neutral part (edit type, value and env-var edits per file kind).

A record whose fix is a pure edit of the same invocation says so with ``trigger.fix_edit: {set: {fact: value}}``.
Turning that into text needs the engine's spelling of the fact (a flag, an env var): each engine module has a
``fix_edits(result, deployment, fix_set)``; this module dispatches to it and holds what every engine shares. An
edit that cannot be made safely (a value spliced from a variable, a flag set in a ``--config`` file, a file kind
whose syntax is not handled) gives ``None``: no quick fix rather than a wrong one.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from relialint.base.plain import Frozen
from relialint.core import facts
from relialint.core.deployment import Deployment
from relialint.readers.located import Command, EnvVar, FileResult, Span, Word

FixValue = str | bool | int | float


class TextEdit(Frozen):
    """Replace a 1-based, end-exclusive region (code-point columns, like every span) with ``new_text``.

    An insertion has ``(line, column) == (end_line, end_column)``."""

    line: int
    column: int
    end_line: int
    end_column: int
    new_text: str

    _fields = ("line", "column", "end_line", "end_column", "new_text")

    def __init__(self, line: int, column: int, end_line: int, end_column: int, new_text: str) -> None:
        self.line = line
        self.column = column
        self.end_line = end_line
        self.end_column = end_column
        self.new_text = new_text


def fill_settings(text: str, deployment: Deployment,
                  spell: Callable[[Deployment, str, str], str | None] | None = None) -> str:
    """``{set:KEY=VALUE}`` in a record's message: the setting as the deployment's engine spells it on the versions
    the deployment can be on (``spell``; vLLM: ``--attention-backend FLASH_ATTN`` from 0.13.0,
    ``VLLM_ATTENTION_BACKEND=FLASH_ATTN`` before); ``KEY=VALUE`` as written where the engine does not say."""
    if spell is None:
        return facts.fill_settings(text)
    return facts.fill_settings(text, lambda key, value: spell(deployment, key, value))


# -- shared helpers -------------------------------------------------------------------------------------------------


def lines_of(text: str) -> list[str]:
    return text.split("\n")


def span_text(lines: list[str], span: Span) -> str | None:
    """The source text of a one-line span (``None`` for a span over several lines or out of range)."""
    if span.line != span.end_line or not 1 <= span.line <= len(lines):
        return None
    return lines[span.line - 1][span.column - 1 : span.end_column - 1]


def render_value(value: FixValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def quoted_like(original: str, value: str) -> str:
    """``value`` in the quotes ``original`` had (``"bfloat16"`` -> ``"float16"``)."""
    if len(original) >= 2 and original[0] in "\"'" and original[-1] == original[0]:
        return f"{original[0]}{value}{original[0]}"
    return value


def replace_word(lines: list[str], word: Word, value: str) -> TextEdit | None:
    """The whole word replaced by ``value``, keeping its quotes; ``None`` for a word not written literally here."""
    if word.source is not None or word.text is None or word.splice:
        return None
    original = span_text(lines, word.span)
    if original is None or not original.strip("\"'"):
        return None
    s = word.span
    return TextEdit(s.line, s.column, s.end_line, s.end_column, quoted_like(original, value))


def replace_after_equals(lines: list[str], span: Span, value: str) -> TextEdit | None:
    """In ``NAME=value`` (or ``--flag=value``, possibly quoted), the part after the first ``=`` replaced."""
    original = span_text(lines, span)
    if original is None or "=" not in original:
        return None
    start = original.index("=") + 1
    end = len(original)
    if original[0] in "\"'" and original.endswith(original[0]) and end - 1 >= start:
        end -= 1
    value_text = original[start:end]
    if "$" in value_text or "`" in value_text:
        return None
    if value_text[:1] in "\"'" and value_text.endswith(value_text[:1]) and len(value_text) >= 2:
        value = quoted_like(value_text, value)
    return TextEdit(span.line, span.column + start, span.line, span.column + end, value)


def append_words(lines: list[str], result: FileResult, words: list[Word], addition: list[str]) -> TextEdit | None:
    """``addition`` (an option and its value) after the last of a launch's ``words``: on a shell line, or inside a
    one-line YAML flow list (``command: [..., "--x"]``, quoted like the last item); ``None`` anywhere else."""
    last = words[-1]
    if last.span.path != result.path or last.span.line != last.span.end_line:
        return None
    s = last.span
    rest = lines[s.line - 1][s.end_column - 1 :] if 1 <= s.line <= len(lines) else ""
    if result.kind == "shell":
        return TextEdit(s.line, s.end_column, s.line, s.end_column, " " + " ".join(addition))
    if result.kind in ("compose", "kubernetes", "helm") and rest.lstrip().startswith("]"):
        original = span_text(lines, s) or ""
        quote = original[0] if original[:1] in "\"'" else '"'
        return TextEdit(s.line, s.end_column, s.line, s.end_column,
                        "".join(f", {quote}{word}{quote}" for word in addition))
    return None


def _yaml_string(value: str) -> str:
    return f'"{value}"'


def set_env(result: FileResult, command: Command, name: str, value: str) -> TextEdit | None:
    """``name=value`` in the environment of ``command``, in the syntax of the file it is written in."""
    lines = lines_of(result.text)
    here = [var for var in command.env if var.span.path == result.path]
    existing = [var for var in here if var.name == name]
    if existing:
        var = existing[-1]
        if var.source is not None:
            return None
        if result.kind in ("compose", "kubernetes", "helm"):
            return _yaml_env_value(lines, var.span, name, value)
        return replace_after_equals(lines, var.span, value)
    if result.kind == "shell":
        return _shell_add_env(lines, command, name, value)
    if result.kind == "compose":
        return _compose_add_env(lines, command, here, name, value)
    if result.kind == "dockerfile":
        # before the CMD/ENTRYPOINT that launches it (after the FROM line when the image's own command runs)
        words = [w for w in [*(command.entrypoint or []), *command.argv] if w.span.path == result.path]
        line = min(w.span.line for w in words) if words else command.span.line + 1
        while line > 1 and lines[line - 2].rstrip().endswith("\\"):
            line -= 1
        return TextEdit(line, 1, line, 1, f"ENV {name}={value}\n")
    if result.kind == "systemd":
        line = command.span.line
        return TextEdit(line, 1, line, 1, f"Environment={name}={value}\n")
    if result.kind == "env":
        last = len(lines)
        end = len(lines[-1]) + 1
        prefix = "" if not lines[-1] else "\n"
        return TextEdit(last, end, last, end, f"{prefix}{name}={value}\n")
    return None


def _yaml_env_value(lines: list[str], span: Span, name: str, value: str) -> TextEdit | None:
    """An existing YAML env entry: ``NAME: v`` (map), ``- NAME=v`` (list), or Kubernetes ``value: v``."""
    if span.line == span.end_line:
        original = span_text(lines, span)
        if original is None:
            return None
        mapped = re.match(rf"{re.escape(name)}\s*:\s*", original)
        if mapped:
            start = span.column + mapped.end()
            return TextEdit(span.line, start, span.line, span.end_column, _yaml_string(value))
        return replace_after_equals(lines, span, value)
    for number in range(span.line, span.end_line + 1):  # Kubernetes: `- name: X` then `value: "1"`
        text = lines[number - 1]
        found = re.search(r"(?<![\w-])value\s*:\s*", text)
        if found:
            end = len(text.rstrip())
            return TextEdit(number, found.end() + 1, number, end + 1, _yaml_string(value))
    return None


_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=\S*")


def _shell_add_env(lines: list[str], command: Command, name: str, value: str) -> TextEdit | None:
    if command.image is not None:  # `docker run ... IMAGE`: a `-e` option before the image
        s = command.image.span
        return TextEdit(s.line, s.column, s.line, s.column, f"-e {name}={value} ")
    if not command.argv:
        return None
    s = command.argv[0].span
    before = lines[s.line - 1][: s.column - 1] if 1 <= s.line <= len(lines) else ""
    if all(_ASSIGNMENT.fullmatch(part) for part in before.split()):
        # only indentation and other assignments before the program: a prefix assignment for this invocation
        return TextEdit(s.line, s.column, s.line, s.column, f"{name}={value} ")
    # `exec vllm ...`, `cd x && vllm ...`: an export on a line of its own above the command (and its continuation)
    line = s.line
    while line > 1 and lines[line - 2].rstrip().endswith("\\"):
        line -= 1
    indent = re.match(r"\s*", lines[line - 1]).group(0)  # type: ignore[union-attr]
    return TextEdit(line, 1, line, 1, f"{indent}export {name}={value}\n")


def _compose_add_env(lines: list[str], command: Command, env: list[EnvVar], name: str,
                     value: str) -> TextEdit | None:
    if env:
        last = env[-1]
        line_text = lines[last.span.line - 1]
        indent = re.match(r"\s*", line_text).group(0)  # type: ignore[union-attr]
        entry = f"- {name}={value}" if line_text.lstrip().startswith("-") else f"{name}: {_yaml_string(value)}"
        after = last.span.end_line + 1
        return TextEdit(after, 1, after, 1, f"{indent}{entry}\n")
    if command.image is None:
        return None
    # no `environment:` in this service: one before the `image:` line, at the service keys' indentation
    line = command.image.span.line
    text = lines[line - 1]
    if not re.match(r"\s*image\s*:", text):
        return None
    indent = re.match(r"\s*", text).group(0)  # type: ignore[union-attr]
    return TextEdit(line, 1, line, 1, f"{indent}environment:\n{indent}  {name}: {_yaml_string(value)}\n")

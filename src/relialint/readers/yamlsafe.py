"""YAML to located values, safely.

A YAML library composes the node graph (no object construction, no tags executed); this module converts nodes
into ``YMap``/``YSeq``/``YScalar`` values that keep ``line:col`` for every key and value. Aliases are expanded
with a budget, so an alias bomb ("billion laughs") is an error after a bounded amount of work, and ``<<`` merge
keys are applied as YAML 1.1 defines them.

Two composers give the same located values: libyaml's, through PyYAML's ``CSafeLoader`` (about 12 times faster
than a pure-Python parser, which is what keeps a large compose file or manifest cheap), and ruamel.yaml's pure
one where libyaml is not available (or ``RELIALINT_YAML=ruamel``). Plain scalars are resolved here by the YAML 1.2
core schema whichever composer ran, so ``yes`` stays a string and ``0o17`` is a number in both.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterator
from typing import Any, ClassVar

from relialint.base import bounds
from relialint.base.errors import RelialintError
from relialint.base.plain import Fields
from relialint.readers.located import ReadError, Span

MAX_NODES = 200_000
"""Nodes one document may expand to (aliases included)."""
MAX_DEPTH = 200


class YNode(Fields):
    span: Span

    _fields: ClassVar[tuple[str, ...]] = ("span",)

    def __init__(self, span: Span) -> None:
        self.span = span


class YScalar(YNode):
    value: str | int | float | bool | None
    text: str
    quoted: bool = False

    _fields = ("span", "value", "text", "quoted")

    def __init__(self, span: Span, value: str | int | float | bool | None, text: str, quoted: bool = False) -> None:
        self.span = span
        self.value = value
        self.text = text
        self.quoted = quoted


class YSeq(YNode):
    items: list[YNode]

    _fields = ("span", "items")

    def __init__(self, span: Span, items: list[YNode] | None = None) -> None:
        self.span = span
        self.items = [] if items is None else items


class YMap(YNode):
    items: list[tuple[YScalar, YNode]]

    _fields = ("span", "items")

    def __init__(self, span: Span, items: list[tuple[YScalar, YNode]] | None = None) -> None:
        self.span = span
        self.items = [] if items is None else items

    def get(self, key: str) -> YNode | None:
        for k, v in self.items:
            if k.text == key:
                return v
        return None

    def keys(self) -> list[str]:
        return [k.text for k, _ in self.items]


class YamlError(RelialintError):
    def __init__(self, error: ReadError) -> None:
        super().__init__(error.message)
        self.error = error


_CORE_NULL = {"", "~", "null", "Null", "NULL"}
_CORE_TRUE = {"true", "True", "TRUE"}
_CORE_FALSE = {"false", "False", "FALSE"}
_CORE_INT = re.compile(r"^[-+]?[0-9]+$")
_CORE_OCT = re.compile(r"^0o[0-7]+$")
_CORE_HEX = re.compile(r"^0x[0-9a-fA-F]+$")
_CORE_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_CORE_INF = re.compile(r"^[-+]?\.(inf|Inf|INF)$")
_CORE_NAN = re.compile(r"^\.(nan|NaN|NAN)$")


# First characters that no null, boolean or number of the core schema starts with: most scalars (names, images,
# paths) are decided by their first character alone.
_NEVER_CORE = frozenset("abcdeghijklmopqrsuvwxyzABCDEGHIJKLMOPQRSUVWXYZ/_$\"'{}[]()!@%&*|<>=,;:?`^")


def _core_value(tag: str, text: str) -> str | int | float | bool | None:
    """A plain scalar by the YAML 1.2 core schema; an explicit non-core tag keeps the text."""
    if tag == "tag:yaml.org,2002:str" and text[:1] in _NEVER_CORE:
        return text
    kind = tag.rsplit(":", 1)[-1]
    if kind not in ("null", "bool", "int", "float", "str"):
        return text
    if kind == "str" and not tag.startswith("tag:yaml.org,2002:"):
        return text
    if text in _CORE_NULL:
        return None
    if text in _CORE_TRUE:
        return True
    if text in _CORE_FALSE:
        return False
    if _CORE_INT.match(text):
        return int(text)
    if _CORE_OCT.match(text):
        return int(text[2:], 8)
    if _CORE_HEX.match(text):
        return int(text[2:], 16)
    if _CORE_FLOAT.match(text):
        return float(text)
    if _CORE_INF.match(text):
        return -math.inf if text.startswith("-") else math.inf
    if _CORE_NAN.match(text):
        return math.nan
    return text


class _Converter:
    def __init__(self, path: str) -> None:
        self.path = path
        self.budget = MAX_NODES
        self.stack: set[int] = set()

    def span(self, node: object) -> Span:
        start = node.start_mark  # type: ignore[attr-defined]
        end = node.end_mark  # type: ignore[attr-defined]
        return Span(self.path, start.line + 1, start.column + 1, end.line + 1, end.column + 1)

    def fail(self, node: object, message: str) -> YamlError:
        span = self.span(node)
        return YamlError(ReadError(self.path, span.line, span.column, message))

    def convert(self, node: Any, depth: int = 0) -> YNode:
        self.budget -= 1
        if self.budget < 0:
            raise self.fail(node, f"YAML expands to more than {MAX_NODES} nodes (an alias bomb?); not read")
        if depth > MAX_DEPTH:
            raise self.fail(node, f"YAML nested deeper than {MAX_DEPTH} levels; not read")
        kind = type(node).__name__
        if kind == "ScalarNode":
            quoted = node.style in ("'", '"')
            plain_style = node.style in (None, "")
            text = str(node.value)
            try:
                value = _core_value(str(node.tag), text) if plain_style else text
            except ValueError:  # an integer past Python's conversion limit
                raise self.fail(node, f"integer of more than {bounds.MAX_INT_DIGITS} digits; not read") from None
            return YScalar(self.span(node), value, text, quoted)
        if id(node) in self.stack:
            raise self.fail(node, "recursive YAML alias; not read")
        self.stack.add(id(node))
        try:
            if kind == "SequenceNode":
                return YSeq(self.span(node), [self.convert(child, depth + 1) for child in node.value])
            if kind == "MappingNode":
                return self.mapping(node, depth)
        finally:
            self.stack.discard(id(node))
        raise self.fail(node, "unsupported YAML node")

    def mapping(self, node: object, depth: int) -> YMap:
        result = YMap(self.span(node))
        merged: list[tuple[YScalar, YNode]] = []
        seen: dict[str, int] = {}
        for key_node, value_node in node.value:  # type: ignore[attr-defined]
            if key_node.tag.endswith(":merge") or (key_node.value == "<<" and key_node.style in (None, "")):
                value = self.convert(value_node, depth + 1)
                sources = value.items if isinstance(value, YSeq) else [value]
                for source in sources:
                    if isinstance(source, YMap):
                        merged.extend(source.items)
                continue
            key = self.convert(key_node, depth + 1)
            if not isinstance(key, YScalar):
                key = YScalar(key.span, None, "", False)
            first = seen.get(key.text) if isinstance(key_node.value, str) else None
            if first is not None:
                raise self.fail(key_node, f"duplicate key {key.text!r} (first at line {first}); YAML does not allow "
                                          "the same key twice in one mapping")
            seen[key.text] = key.span.line
            result.items.append((key, self.convert(value_node, depth + 1)))
        own = set(result.keys())
        for key, value in merged:
            if key.text not in own:
                own.add(key.text)
                result.items.append((key, value))
        return result


def _compose_all(text: str) -> Iterator[Any]:
    """Nodes of each document, from libyaml when PyYAML has it, else from ruamel.yaml's pure composer."""
    if os.environ.get("RELIALINT_YAML") != "ruamel":
        try:
            import yaml
        except ImportError:  # pragma: no cover - PyYAML is a dependency
            pass
        else:
            loader = getattr(yaml, "CSafeLoader", None)
            if loader is not None:
                yield from yaml.compose_all(text, Loader=loader)
                return
    from ruamel.yaml import YAML

    yield from YAML(typ="safe", pure=True).compose_all(text)


def _yaml_errors() -> tuple[type[Exception], ...]:
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    errors: list[type[Exception]] = [MarkedYAMLError, YAMLError]
    try:
        import yaml

        errors[:0] = [yaml.MarkedYAMLError, yaml.YAMLError]
    except ImportError:  # pragma: no cover
        pass
    return tuple(errors)


def load_all(text: str, path: str) -> list[YNode | None]:
    """Every document of a YAML stream as located values (``None`` for an empty document).

    Raises ``YamlError`` with a location for syntax errors, alias bombs and recursion.
    """
    converter = _Converter(path)
    documents: list[YNode | None] = []
    try:
        for node in _compose_all(text):
            documents.append(None if node is None else converter.convert(node))
    except YamlError:
        raise
    except RecursionError:
        raise YamlError(ReadError(path, 1, 1, "YAML nested too deeply; not read")) from None
    except _yaml_errors() as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = mark.line + 1 if mark is not None else 1
        column = mark.column + 1 if mark is not None else 1
        problem = getattr(exc, "problem", None) or getattr(exc, "context", None) or str(exc) or "invalid YAML"
        raise YamlError(ReadError(path, line, column, f"invalid YAML: {problem}")) from None
    return documents


def plain(node: YNode | None) -> object:
    """A located value as plain Python data (for pydantic)."""
    if node is None:
        return None
    if isinstance(node, YScalar):
        return node.value
    if isinstance(node, YSeq):
        return [plain(item) for item in node.items]
    if isinstance(node, YMap):
        return {key.value if key.value is not None else key.text: plain(value) for key, value in node.items}
    return None


def find(node: YNode | None, path: tuple[str | int, ...]) -> YNode | None:
    """The node at a key path (``("examples", 0, "content")``), or ``None``."""
    current = node
    for part in path:
        if isinstance(part, int) and isinstance(current, YSeq) and 0 <= part < len(current.items):
            current = current.items[part]
        elif isinstance(part, str) and isinstance(current, YMap):
            found = None
            for key, value in current.items:
                if key.text == part:
                    found = (key, value)
            if found is None:
                return None
            current = found[1]
        else:
            return None
    return current


def key_span(node: YNode | None, path: tuple[str | int, ...]) -> Span | None:
    """The span of the key at the end of ``path`` (for "unknown field" errors), else of the value."""
    if not path:
        return node.span if node is not None else None
    parent = find(node, path[:-1])
    last = path[-1]
    if isinstance(parent, YMap) and isinstance(last, str):
        for key, _ in parent.items:
            if key.text == last:
                return key.span
    target = find(node, path)
    return target.span if target is not None else (parent.span if parent is not None else None)

"""YAML to located values, safely.

ruamel.yaml composes the node graph (no object construction, no tags executed); this module converts nodes into
``YMap``/``YSeq``/``YScalar`` values that keep ``line:col`` for every key and value. Aliases are expanded with a
budget, so an alias bomb ("billion laughs") is an error after a bounded amount of work, and ``<<`` merge keys are
applied as YAML 1.1 defines them.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from relialint.readers.located import ReadError, Span

MAX_NODES = 200_000
"""Nodes one document may expand to (aliases included)."""
MAX_DEPTH = 200


@dataclass
class YNode:
    span: Span


@dataclass
class YScalar(YNode):
    value: str | int | float | bool | None
    text: str
    quoted: bool = False


@dataclass
class YSeq(YNode):
    items: list[YNode] = field(default_factory=list)


@dataclass
class YMap(YNode):
    items: list[tuple[YScalar, YNode]] = field(default_factory=list)

    def get(self, key: str) -> YNode | None:
        for k, v in self.items:
            if k.text == key:
                return v
        return None

    def keys(self) -> list[str]:
        return [k.text for k, _ in self.items]


class YamlError(Exception):
    def __init__(self, error: ReadError) -> None:
        super().__init__(error.message)
        self.error = error


_INT = re.compile(r"^[-+]?(0|[1-9][0-9_]*)$")


def _scalar_value(tag: str, text: str) -> str | int | float | bool | None:
    kind = tag.rsplit(":", 1)[-1]
    try:
        if kind == "null":
            return None
        if kind == "bool":
            return text.lower() in ("true", "yes", "on", "y")
        if kind == "int":
            clean = text.replace("_", "")
            if clean.lower().startswith(("0x", "-0x", "+0x")):
                return int(clean, 16)
            if clean.lower().startswith(("0o", "-0o", "+0o")):
                return int(clean.replace("o", "").replace("O", ""), 8)
            return int(clean, 10) if _INT.match(clean) or clean.lstrip("+-").isdigit() else text
        if kind == "float":
            low = text.lower().replace("_", "")
            if low in (".nan",):
                return math.nan
            if low in (".inf", "+.inf"):
                return math.inf
            if low == "-.inf":
                return -math.inf
            return float(low)
    except ValueError:
        return text
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

    def convert(self, node: object, depth: int = 0) -> YNode:
        from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode

        self.budget -= 1
        if self.budget < 0:
            raise self.fail(node, f"YAML expands to more than {MAX_NODES} nodes (an alias bomb?); not read")
        if depth > MAX_DEPTH:
            raise self.fail(node, f"YAML nested deeper than {MAX_DEPTH} levels; not read")
        if isinstance(node, ScalarNode):
            quoted = node.style in ("'", '"')
            value = node.value if quoted else _scalar_value(str(node.tag), str(node.value))
            return YScalar(self.span(node), value, node.value, quoted)
        if id(node) in self.stack:
            raise self.fail(node, "recursive YAML alias; not read")
        self.stack.add(id(node))
        try:
            if isinstance(node, SequenceNode):
                return YSeq(self.span(node), [self.convert(child, depth + 1) for child in node.value])
            if isinstance(node, MappingNode):
                return self.mapping(node, depth)
        finally:
            self.stack.discard(id(node))
        raise self.fail(node, "unsupported YAML node")

    def mapping(self, node: object, depth: int) -> YMap:
        result = YMap(self.span(node))
        merged: list[tuple[YScalar, YNode]] = []
        for key_node, value_node in node.value:  # type: ignore[attr-defined]
            if key_node.tag.endswith(":merge") or (key_node.value == "<<" and key_node.style is None):
                value = self.convert(value_node, depth + 1)
                sources = value.items if isinstance(value, YSeq) else [value]
                for source in sources:
                    if isinstance(source, YMap):
                        merged.extend(source.items)
                continue
            key = self.convert(key_node, depth + 1)
            if not isinstance(key, YScalar):
                key = YScalar(key.span, None, "", False)
            result.items.append((key, self.convert(value_node, depth + 1)))
        own = set(result.keys())
        for key, value in merged:
            if key.text not in own:
                own.add(key.text)
                result.items.append((key, value))
        return result


def load_all(text: str, path: str) -> list[YNode | None]:
    """Every document of a YAML stream as located values (``None`` for an empty document).

    Raises ``YamlError`` with a location for syntax errors, alias bombs and recursion.
    """
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    yaml = YAML(typ="safe", pure=True)
    converter = _Converter(path)
    documents: list[YNode | None] = []
    try:
        for node in yaml.compose_all(text):
            documents.append(None if node is None else converter.convert(node))
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        column = mark.column + 1 if mark is not None else 1
        problem = exc.problem or exc.context or "invalid YAML"
        raise YamlError(ReadError(path, line, column, f"invalid YAML: {problem}")) from None
    except YAMLError as exc:
        raise YamlError(ReadError(path, 1, 1, f"invalid YAML: {exc}")) from None
    except RecursionError:
        raise YamlError(ReadError(path, 1, 1, "YAML nested too deeply; not read")) from None
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

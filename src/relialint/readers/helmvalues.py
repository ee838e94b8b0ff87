"""What Helm does with a values file, shared by the chart mappings: Go template truthiness, the text a value
renders to, the chart a values file belongs to (``Chart.yaml`` beside it), image references and env lists.

Helm reads values through JSON, so every number is a float64 when a template prints it: ``{{ .x }}`` and
``{{ .x | quote }}`` give Go's ``%v`` of that float (``131072`` stays ``131072``, ``1048576`` becomes
``1.048576e+06``). ``render`` reproduces that, so a value the chart mangles is read as mangled.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal

from relialint.base.plain import Frozen
from relialint.readers.located import EnvVar, Span, Word
from relialint.readers.opener import FileOpener
from relialint.readers.yamlsafe import YamlError, YMap, YNode, YScalar, YSeq, load_all
from relialint.readers.yamlwords import map_items, scalar_text, seq_items


class Chart(Frozen):
    """The chart a values file is rendered with, from ``Chart.yaml`` beside it (``None`` fields: not known)."""

    name: str | None = None
    version: str | None = None

    _fields = ("name", "version")

    def __init__(self, name: str | None = None, version: str | None = None) -> None:
        self.name = name
        self.version = version


def chart_beside(path: str, dependency: str, opener: FileOpener) -> Chart:
    """``Chart.yaml`` in the values file's folder (read through ``opener``): its own name and version, or, for an
    umbrella chart, the version of its dependency named ``dependency`` when that is an exact version (a range says
    nothing)."""
    for name in ("Chart.yaml", "Chart.yml"):
        opened = opener.open(path, name)
        if opened.refused:
            return Chart()  # a symlink out of the project: the chart is unknown
        if not opened.exists:
            continue
        if opened.text is None:
            return Chart()
        try:
            docs = load_all(opened.text, opened.path)
        except YamlError:
            return Chart()
        root = docs[0] if docs else None
        if not isinstance(root, YMap):
            return Chart()
        own = Chart(scalar_text(root.get("name")), scalar_text(root.get("version")))
        if own.name == dependency:
            return own
        for item in seq_items(root.get("dependencies")):
            if isinstance(item, YMap) and scalar_text(item.get("name")) == dependency:
                version = scalar_text(item.get("version"))
                exact = version if version and re.fullmatch(r"v?\d+\.\d+\.\d+", version) else None
                return Chart(dependency, exact.lstrip("v") if exact else None)
        return own
    return Chart()


def version_tuple(version: str | None) -> tuple[int, ...] | None:
    match = re.fullmatch(r"v?(\d+)\.(\d+)\.(\d+)", version or "")
    return tuple(int(part) for part in match.groups()) if match else None


def truthy(node: YNode | None) -> bool:
    """Go template truthiness (``{{ if .x }}``): false, 0, "", null and empty maps or lists are false; the
    string ``"false"`` is true."""
    if node is None:
        return False
    if isinstance(node, YScalar):
        value = node.value
        if value is None:
            return False
        if isinstance(value, bool):
            return value
        if isinstance(value, int | float):
            return value != 0
        return value != ""
    if isinstance(node, YMap | YSeq):
        return bool(node.items)
    return True


def render(node: YScalar) -> str:
    """The text ``{{ .x }}`` or ``{{ .x | quote }}`` prints for a scalar value."""
    value = node.value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return go_float(float(value))
    if value is None:
        return ""
    return node.text


def render_yaml(node: YScalar) -> str:
    """The text ``toYaml`` gives a scalar inside a list (Helm marshals through JSON: whole numbers below 1e21 stay
    whole, ``1048576`` is ``1048576``)."""
    value = node.value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        x = float(value)
        if x.is_integer() and abs(x) < 1e21:
            return str(int(x))
        return repr(x)
    if value is None:
        return "null"
    return node.text


def render_any(node: YScalar) -> str | None:
    """A list item of a chart whose template is not known: ``{{ . }}`` and ``toYaml`` give the same text for
    strings and most numbers; where they differ (1e+06 against 1000000) the word is not known."""
    printed, marshalled = render(node), render_yaml(node)
    return printed if printed == marshalled else None


def go_float(x: float) -> str:
    """Go's ``%v`` of a float64 (``strconv`` shortest ``%g``: the exponent form from 1e+06 and below 1e-04)."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "+Inf" if x > 0 else "-Inf"
    if x == 0:
        return "0"
    sign, digit_tuple, exponent = Decimal(repr(x)).normalize().as_tuple()
    digits = "".join(str(d) for d in digit_tuple)
    point = len(digits) + int(exponent)  # position of the decimal point within the digits
    prefix = "-" if sign else ""
    exp = point - 1
    if exp < -4 or exp >= 6:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{prefix}{mantissa}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    if point <= 0:
        return f"{prefix}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return prefix + digits + "0" * (point - len(digits))
    return f"{prefix}{digits[:point]}.{digits[point:]}"


def pair_span(key: YScalar, value: YNode) -> Span:
    """From a key to the end of its value."""
    return Span(key.span.path, key.span.line, key.span.column, value.span.end_line, value.span.end_column)


def image_word(image: YNode | None, default_tag: str | None = None) -> Word | None:
    """``repository:tag`` of an ``image:`` map (or the image string itself), located at the tag where there is
    one. Without a tag the reference has none (charts default it to their appVersion, which the values do not
    show), unless ``default_tag`` is given."""
    if isinstance(image, YScalar) and image.value is not None:
        return Word(image.text, image.span)
    if not isinstance(image, YMap):
        return None
    repository = image.get("repository")
    if not isinstance(repository, YScalar) or repository.value is None:
        return None
    registry = scalar_text(image.get("registry"))
    name = f"{registry}/{repository.text}" if registry else repository.text
    tag = image.get("tag")
    if isinstance(tag, YScalar) and tag.value is not None and tag.text:
        return Word(f"{name}:{render(tag)}", tag.span)
    if default_tag is not None:
        return Word(f"{name}:{default_tag}", repository.span)
    return Word(name, repository.span)


def env_map(node: YNode | None) -> list[EnvVar]:
    """An ``env:`` given as a map (``NAME: value`` or ``NAME: {value: ...}``; ``valueFrom`` is unknown, and so is a
    number the chart may print either way)."""
    out: list[EnvVar] = []
    for key, value in map_items(node):
        if isinstance(value, YScalar):
            out.append(EnvVar(key.text, render_any(value) if value.value is not None else "", pair_span(key, value)))
        elif isinstance(value, YMap):
            inner = value.get("value")
            if isinstance(inner, YScalar):
                out.append(EnvVar(key.text, render_any(inner), pair_span(key, value)))
            else:
                out.append(EnvVar(key.text, None, pair_span(key, value)))
    return out

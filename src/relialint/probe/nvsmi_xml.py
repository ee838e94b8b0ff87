"""``nvidia-smi -q -x`` output: one sample per ``<gpu>``, with the driver and CUDA versions of the log.

Parsed with expat and nothing else: no DTD is fetched, and a document that declares entities is refused (an
entity bomb is bad input, not a slow parse). Every value keeps the line and column of its element.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from xml.parsers import expat

from relialint.base.errors import RelialintError
from relialint.probe.reading import REASON_BITS, Capture, Sample
from relialint.probe.units import convert
from relialint.readers.located import ReadError


@dataclass(repr=False, eq=False)
class Node:
    tag: str
    line: int
    column: int
    children: list[Node] = field(default_factory=list)
    text: str = ""

    def find(self, *path: str) -> Node | None:
        node = self
        for tag in path:
            child = next((c for c in node.children if c.tag == tag), None)
            if child is None:
                return None
            node = child
        return node

    def all(self, tag: str) -> list[Node]:
        return [c for c in self.children if c.tag == tag]


class XmlError(RelialintError, ValueError):
    def __init__(self, line: int, column: int, message: str) -> None:
        super().__init__(message)
        self.line, self.column = line, column


def parse(text: str) -> Node:
    """The element tree with positions; ``XmlError`` for malformed XML or an entity declaration."""
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    root = Node("#document", 1, 1)
    stack = [root]

    def start(tag: str, _attrs: dict[str, str]) -> None:
        node = Node(tag, parser.CurrentLineNumber, parser.CurrentColumnNumber + 1)
        stack[-1].children.append(node)
        stack.append(node)

    def end(_tag: str) -> None:
        node = stack.pop()
        node.text = node.text.strip()

    def data(chunk: str) -> None:
        stack[-1].text += chunk

    def entity(*_args: object) -> None:
        raise XmlError(parser.CurrentLineNumber, parser.CurrentColumnNumber + 1, "entity declarations are not read")

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = data
    parser.EntityDeclHandler = entity
    try:
        parser.Parse(text, True)
    except expat.ExpatError as exc:
        raise XmlError(exc.lineno, exc.offset + 1, f"not well-formed XML: {expat.ErrorString(exc.code)}") from exc
    return root


def looks_like(text: str) -> bool:
    return "<nvidia_smi_log" in text[:4096]


# (path below <gpu>, field, kind)
_GPU_FIELDS: list[tuple[tuple[str, ...], str, str]] = [
    (("product_name",), "name", "str"),
    (("uuid",), "uuid", "str"),
    (("pci", "pci_bus_id"), "bus_id", "str"),
    (("fb_memory_usage", "total"), "memory_total_mib", "int"),
    (("temperature", "gpu_temp"), "temperature", "int"),
    (("utilization", "gpu_util"), "utilization", "int"),
    (("gpu_power_readings", "average_power_draw"), "power_draw", "float"),
    (("gpu_power_readings", "current_power_limit"), "power_limit", "float"),
    (("gpu_power_readings", "default_power_limit"), "power_default_limit", "float"),
    (("power_readings", "power_draw"), "power_draw", "float"),
    (("power_readings", "enforced_power_limit"), "power_limit", "float"),
    (("power_readings", "default_power_limit"), "power_default_limit", "float"),
    (("clocks", "sm_clock"), "sm_clock", "int"),
    (("max_clocks", "sm_clock"), "sm_clock_max", "int"),
    (("applications_clocks", "graphics_clock"), "app_clock", "int"),
    (("ecc_mode", "current_ecc"), "ecc_mode", "bool"),
    (("remapped_rows", "remapped_row_pending"), "remapped_pending", "bool"),
]
_REASON_SECTIONS = (("clocks_event_reasons", "clocks_event_reason_"), ("clocks_throttle_reasons",
                                                                       "clocks_throttle_reason_"))


def read(text: str, path: str) -> Capture:
    capture = Capture("nvidia-smi-xml")
    try:
        root = parse(text)
    except XmlError as exc:
        capture.errors.append(ReadError(path, exc.line, exc.column, str(exc)))
        return capture
    log = root.find("nvidia_smi_log")
    if log is None:
        capture.errors.append(ReadError(path, 1, 1, "not an nvidia-smi -q -x log (no <nvidia_smi_log>)"))
        return capture
    shared = [(log.find("driver_version"), "driver"), (log.find("cuda_version"), "cuda")]
    stamp = log.find("timestamp")
    for index, gpu in enumerate(log.all("gpu")):
        sample = Sample(gpu="", index=index, path=path, line=gpu.line)
        sample.put("vendor", "nvidia")  # index: the log lists the GPUs in nvidia-smi's index order
        for node, name in shared:
            if node is not None:
                sample.put(name, convert("str", node.text), node.line, node.column)
        if stamp is not None:
            sample.put("timestamp", convert("str", stamp.text), stamp.line, stamp.column)
        for where, name, kind in _GPU_FIELDS:
            node = gpu.find(*where)
            if node is not None and name not in sample.values:
                sample.put(name, convert(kind, node.text), node.line, node.column)
        for section, prefix in _REASON_SECTIONS:
            block = gpu.find(section)
            if block is None:
                continue
            for reason in REASON_BITS:
                node = block.find(prefix + reason)
                if node is not None:
                    sample.put(f"reason.{reason}", convert("bool", node.text), node.line, node.column)
        _ecc(gpu, sample)
        sample.gpu = str(sample.get("uuid") or sample.get("bus_id") or sample.index)
        capture.samples.append(sample)
    if not capture.samples:
        capture.errors.append(ReadError(path, log.line, log.column, "nvidia-smi log with no <gpu>"))
    return capture


def _ecc(gpu: Node, sample: Sample) -> None:
    aggregate = gpu.find("ecc_errors", "aggregate")
    if aggregate is not None:
        total = 0
        seen = False
        for child in aggregate.children:
            if "uncorrectable" in child.tag:
                value = convert("int", child.text)
                if isinstance(value, int):
                    total += value
                    seen = True
        if seen:
            sample.put("ecc_uncorrectable", total, aggregate.line, aggregate.column)
    retired = gpu.find("retired_pages")
    if retired is not None:
        counts = []
        for cause in ("multiple_single_bit_retirement", "double_bit_retirement"):
            node = retired.find(cause, "retired_count")
            value = convert("int", node.text) if node is not None else None
            if isinstance(value, int):
                counts.append(value)
        if counts:
            sample.put("retired_pages", sum(counts), retired.line, retired.column)

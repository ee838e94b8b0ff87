"""The catalogue's hardware pages: ``docs/hardware/index.md`` and one page per GPU family
(``docs/hardware/<family>.md``), each GPU with its anchor (``#gpu-mi300x``) and the records that can apply to it.

Which records those are is decided by the linter itself, as ``relialint check --gpu NAME`` decides them: each record is
evaluated (:func:`relialint.core.findings.evaluate`) on a deployment of each of its engines that states nothing but
the GPU, given the way the command line gives it (:func:`relialint.run.targets.apply_target`, so that vLLM on an AMD
GPU runs its HIP build as it does for the CLI). A record is *about hardware* when the evaluator rules it out on at
least one catalogue GPU; such a record is listed on every GPU where it is not ruled out: *definite* where it holds on
that GPU whatever the configuration says, *possible* otherwise, with what decides it in the configuration's words (the
flag, the variable, the model, the engine version). Records that no GPU rules out (most flag records) hold on any
GPU and are left to the catalogue and "my setup". Nothing here decides certainty: the evaluator does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from relialint.core.hardware import Gpu
from relialint.site.markup import cell, code

if TYPE_CHECKING:
    from relialint.core.deployment import Deployment
    from relialint.core.evaluator import Evaluator
    from relialint.engines.protocol import Engine

HARDWARE_DIR = "hardware"
HARDWARE_PATH = "(hardware page)"
"""The path of the deployments the pages evaluate (never shown)."""
VENDORS = {"nvidia": "NVIDIA", "amd": "AMD", "intel": "Intel"}
SHOWN_DECIDING = 6
"""How many of the things that decide a possible record a row names; the record's page lists its whole trigger."""
NAV_BEGIN = "# BEGIN generated hardware nav (python -m relialint.site)"
NAV_END = "# END generated hardware nav"


def gpu_anchor(name: str) -> str:
    """The id of a GPU on its family page and on the hardware catalogue (``#gpu-h100``)."""
    return "gpu-" + re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def family_name(gpu: Gpu) -> str:
    """The family a GPU is grouped under: its architecture family, else its vendor's name."""
    return gpu.family or VENDORS.get(gpu.vendor, gpu.vendor)


def family_slug(gpu: Gpu) -> str:
    """The family page's file name without ``.md`` (``Ada Lovelace``: ``ada-lovelace``, ``RDNA3.5``: ``rdna3-5``)."""
    return re.sub(r"[^a-z0-9]+", "-", family_name(gpu).lower()).strip("-")


def gpu_page(gpu: Gpu) -> str:
    """The GPU's place on the site, relative to ``docs/`` (``hardware/hopper.md#gpu-h100``)."""
    return f"{HARDWARE_DIR}/{family_slug(gpu)}.md#{gpu_anchor(gpu.name)}"


# -- the verdicts ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GpuRecord:
    """A record that can apply on one GPU: ``definite`` where it holds there whatever the configuration says;
    otherwise ``decides`` says, per engine label, what in the configuration decides it."""

    id: str
    title: str
    definite: bool
    engines: tuple[str, ...]
    decides: tuple[tuple[str, tuple[str, ...]], ...]


def gpu_deployment(engine: str, gpu: Gpu) -> Deployment:
    """A deployment of ``engine`` that states only ``gpu``, given as ``--gpu NAME`` gives it (a benchmark's
    ``bench.`` facts known to be unset, as for every serving deployment)."""
    from relialint.core.deployment import Deployment
    from relialint.core.facts import Fact
    from relialint.core.results import Target
    from relialint.readers.located import Span
    from relialint.run.targets import apply_target, target_facts

    deployment = Deployment(engine, "hardware", Span(HARDWARE_PATH, 1, 1, 1, 1))
    deployment.facts.set("engine.name", Fact(engine, "inferred"))
    deployment.facts.closed.add("bench.")
    apply_target(deployment, target_facts(Target(gpu=gpu.name)), [])
    return deployment


def _engines() -> dict[str, Engine]:
    from relialint.engines.registry import default_registry

    return {engine.name: engine for engine in default_registry().versioned()}


def _verdict(record: Mapping[str, Any], engine: Engine, gpu: Gpu,
             evaluator: Evaluator) -> tuple[bool, tuple[str, ...]] | None:
    """``(definite, missing facts)`` of the record on ``gpu`` alone, or ``None`` where the evaluator rules it out."""
    from relialint.core.findings import evaluate

    found = evaluate(gpu_deployment(engine.name, gpu), [dict(record)], engine, evaluator)
    if not found:
        return None
    if any(f.certainty == "definite" for f in found):
        return True, ()
    return False, tuple(sorted({m for f in found for m in f.missing_facts}))


_GPU_WORDS = {
    "gpu.count": "how many GPUs it uses",
    "gpu.memory_gb": "the board's memory size",
    "gpu.native_fp4": "whether the GPU has native FP4",
    "gpu.native_fp8": "whether the GPU has native FP8",
    "gpu.cc_capable": "the board's edition (Confidential Computing)",
    "gpu.cc_mode": "whether Confidential Computing mode is on",
}


def user_words(engine: Engine, key: str) -> tuple[str, ...]:
    """What sets fact ``key`` in a configuration of ``engine``, as a user would name it: the options, the variable,
    the build option, the model, the engine version; the fact's description where nothing else names it."""
    from relialint.core.facts import spec_for

    if key == "engine.version":
        return (f"the {engine.label} version",)
    if key == "engine.backend":
        return (f"the backend {engine.label} is built for",)
    if key.startswith("env."):
        return (code(key[len("env."):]),)
    if key.startswith("build."):
        return ("the build option " + code(key[len("build."):]),)
    if key.startswith("model."):
        return ("the model",)
    if key in _GPU_WORDS:
        return (_GPU_WORDS[key],)
    if key == "host.os":
        return ("the operating system",)
    flags = engine.option_flags(key)
    if flags:
        # llama.cpp's engine names its raw flag facts without the dashes (``cache-type-v``)
        return tuple(code(f if f.startswith("-") else "--" + f) for f in flags)
    spec = spec_for(key)
    return (spec.description if spec is not None else key,)


def _words(engine: Engine, missing: Sequence[str]) -> tuple[str, ...]:
    """What decides a possible record, the GPU's own open facts first (the catalogue row leaves them unknown)."""
    out: list[str] = []
    for key in sorted(missing, key=lambda m: (not m.startswith("gpu."), m)):
        out += [w for w in user_words(engine, key) if w not in out]
    return tuple(out)


def _gpu_key(gpu: Gpu, by_model: bool) -> tuple[tuple[str, str], ...]:
    """What a GPU's verdicts depend on: every fact its catalogue row sets (an engine's defaults may read facts the
    trigger does not), the name only where the trigger reads it."""
    return tuple(sorted((k, str(v)) for k, v in gpu.facts().items() if by_model or k != "gpu.model"))


def record_on_gpus(record: Mapping[str, Any], gpus: Sequence[Gpu]) -> dict[str, GpuRecord]:
    """The record on each GPU of ``gpus`` where it can apply, by GPU name; empty when no GPU rules it out (the
    record is not about hardware) or it has no trigger. GPUs whose catalogue rows set the same facts (the name aside
    where the trigger does not read it) share one evaluation."""
    from relialint.core.evaluator import Evaluator

    evaluator = Evaluator()
    trigger = evaluator.trigger(dict(record))
    if trigger is None or record.get("status") == "withdrawn":
        return {}
    by_model = "gpu.model" in trigger.keys
    engines = [e for name, e in _engines().items() if not record.get("engines") or name in record["engines"]]
    memo: dict[tuple[str, tuple[tuple[str, str], ...]], tuple[bool, tuple[str, ...]] | None] = {}
    cells: dict[str, dict[str, tuple[bool, tuple[str, ...]]]] = {}
    for gpu in gpus:
        row: dict[str, tuple[bool, tuple[str, ...]]] = {}
        for engine in engines:
            key = (engine.name, _gpu_key(gpu, by_model))
            if key not in memo:
                memo[key] = _verdict(record, engine, gpu, evaluator)
            found = memo[key]
            if found is not None:
                row[engine.label] = found
        if row:
            cells[gpu.name] = row
    if len(cells) == len(gpus):
        return {}
    by_label = {e.label: e for e in engines}
    out: dict[str, GpuRecord] = {}
    for name, row in cells.items():
        definite = any(sure for sure, _ in row.values())
        decides = tuple((label, _words(by_label[label], missing)) for label, (_, missing) in row.items()
                        if not definite)
        out[name] = GpuRecord(str(record["id"]), str(record["title"]), definite, tuple(row), decides)
    return out


def gpu_records(records: Sequence[Mapping[str, Any]], gpus: Sequence[Gpu]) -> dict[str, list[GpuRecord]]:
    """Per GPU of ``gpus``, the records that can apply to it (:func:`record_on_gpus`), in id order."""
    out: dict[str, list[GpuRecord]] = {g.name: [] for g in gpus}
    for record in sorted(records, key=lambda r: str(r["id"])):
        for name, entry in record_on_gpus(record, gpus).items():
            out[name].append(entry)
    return out


# -- the pages -------------------------------------------------------------------------------------------------------


def families(gpus: Sequence[Gpu]) -> dict[str, list[Gpu]]:
    """The GPUs by family page (slug), in catalogue order."""
    out: dict[str, list[Gpu]] = {}
    for gpu in gpus:
        out.setdefault(family_slug(gpu), []).append(gpu)
    return out


def _applies(entry: GpuRecord, engines: int) -> str:
    scope = f" (with {', '.join(entry.engines)})" if len(entry.engines) < engines else ""
    if entry.definite:
        return f"**yes**{scope}, whatever the configuration says"
    def listed(words: Sequence[str]) -> str:
        shown = list(words[:SHOWN_DECIDING])
        if len(words) > SHOWN_DECIDING:
            shown.append(f"{len(words) - SHOWN_DECIDING} more (see the record)")
        return ", ".join(shown) or "nothing a configuration states (the record's sources leave it open)"

    if len({words for _, words in entry.decides}) == 1:
        return f"possibly{scope}; decided by {listed(entry.decides[0][1])}"
    return f"possibly{scope}; decided " + "; ".join(f"with {label} by {listed(words)}"
                                                    for label, words in entry.decides)


def _gpu_facts(gpu: Gpu) -> str:
    parts = [VENDORS.get(gpu.vendor, gpu.vendor)]
    if gpu.sm is not None:
        parts.append(f"compute capability {gpu.sm}")
    if gpu.arch is not None:
        parts.append(f"target {code(gpu.arch)}")
    if gpu.memory_gb is not None:
        parts.append(f"{gpu.memory_gb} GB")
    return ", ".join(parts)


def family_page(banner: str, slug: str, gpus: Sequence[Gpu], about: Mapping[str, Sequence[GpuRecord]],
                record_engines: Mapping[str, int]) -> str:
    """One family's page: per GPU, its anchor, its catalogue row and the records that can apply to it."""
    name = family_name(gpus[0])
    vendor = VENDORS.get(gpus[0].vendor, gpus[0].vendor)
    title = name if name == vendor else f"{vendor} {name}"
    out = [
        "---", f"title: {title} GPUs", "---", "", banner, "",
        f"# {title} GPUs",
        "",
        "The records that can apply on each GPU of this family, as `relialint check --gpu NAME` decides them for a "
        "configuration that says nothing else: **yes** where the record holds on that GPU whatever the "
        "configuration says, *possibly* where the configuration decides it (the option, variable, model or version "
        "named). Records that hold on any GPU alike (most option records) are not repeated here; "
        "[my setup](../setup.md) lists every record for an engine, a version and a GPU. "
        "[All families](index.md) · [hardware catalogue](../reference/hardware.md).",
        "",
    ]
    for gpu in gpus:
        entries = about.get(gpu.name, [])
        out += [f"## {cell(gpu.name)} {{ #{gpu_anchor(gpu.name)} }}", "",
                f"{_gpu_facts(gpu)}. [Catalogue row](../reference/hardware.md#{gpu_anchor(gpu.name)}).", ""]
        if not entries:
            out += ["No record is about this GPU: every record that can apply here applies on any GPU alike.", ""]
            continue
        out += ["| record | title | applies |", "| --- | --- | --- |"]
        out += [f"| [{e.id}](../records/{e.id}.md) | {cell(e.title)} | {cell(_applies(e, record_engines[e.id]))} |"
                for e in entries]
        out.append("")
    return "\n".join(out)


def index_page(banner: str, grouped: Mapping[str, Sequence[Gpu]], about: Mapping[str, Sequence[GpuRecord]]) -> str:
    """The list of families, each with its GPUs and how many records can apply to each."""
    out = ["---", "title: Hardware", "---", "", banner, "", "# Hardware", "",
           "One page per GPU family: the records that can apply on each GPU of the "
           "[hardware catalogue](../reference/hardware.md), as the linter decides them with `--gpu NAME`.", ""]
    vendor = ""
    for slug, gpus in grouped.items():
        label = VENDORS.get(gpus[0].vendor, gpus[0].vendor)
        if label != vendor:
            out += [*([""] if vendor else []), f"## {label}", ""]
            vendor = label
        names = ", ".join(f"[{cell(g.name)}]({slug}.md#{gpu_anchor(g.name)}) ({len(about.get(g.name, []))})"
                          for g in gpus)
        out.append(f"- **[{cell(family_name(gpus[0]))}]({slug}.md)**: {names}")
    out.append("")
    return "\n".join(out)


def hardware_pages(banner: str, records: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Every hardware page by path relative to ``docs/``."""
    from relialint.core.hardware import catalogue

    gpus = catalogue()
    about = _about(records, gpus)
    engines = len(_engines())
    record_engines = {str(r["id"]): len(r.get("engines") or []) or engines for r in records}
    grouped = families(gpus)
    pages = {f"{HARDWARE_DIR}/index.md": index_page(banner, grouped, about)}
    for slug, members in grouped.items():
        pages[f"{HARDWARE_DIR}/{slug}.md"] = family_page(banner, slug, members, about, record_engines)
    return pages


def _about(records: Sequence[Mapping[str, Any]], gpus: Sequence[Gpu]) -> dict[str, list[GpuRecord]]:
    import json

    return _cached_about(json.dumps([dict(r) for r in records], sort_keys=True, default=str), tuple(gpus))


@lru_cache(maxsize=4)
def _cached_about(records_json: str, gpus: tuple[Gpu, ...]) -> dict[str, list[GpuRecord]]:
    """The verdicts of one set of records (the catalogue table and the family pages read the same)."""
    import json

    return gpu_records(json.loads(records_json), gpus)


def gpu_record_count(records: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """How many records can apply on each catalogue GPU (the hardware catalogue's column)."""
    from relialint.core.hardware import catalogue

    gpus = catalogue()
    return {name: len(entries) for name, entries in _about(records, gpus).items()}


def nav_block(indent: str) -> list[str]:
    """The hardware pages' navigation, between :data:`NAV_BEGIN` and :data:`NAV_END` in ``mkdocs.yml``."""
    from relialint.core.hardware import catalogue

    lines = [f"{indent}{NAV_BEGIN}", f"{indent}- {HARDWARE_DIR}/index.md"]
    for slug, gpus in families(catalogue()).items():
        vendor = VENDORS.get(gpus[0].vendor, gpus[0].vendor)
        name = family_name(gpus[0])
        label = name if name == vendor else f"{vendor} {name}"
        lines.append(f'{indent}- "{label}": {HARDWARE_DIR}/{slug}.md')
    lines.append(f"{indent}{NAV_END}")
    return lines

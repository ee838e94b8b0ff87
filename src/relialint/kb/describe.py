"""Records for people: triggers in plain English and whole records as terminal text."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping
from typing import Any

from relialint import record_url
from relialint.core.triggers import (
    All,
    Leaf,
    Not,
    Predicate,
    PredicateError,
    Trigger,
    compile_predicate,
    compile_trigger,
)
from relialint.core.triggers import Any as AnyOf
from relialint.core.triggers import leaves as walk

_PHRASES: dict[str, str] = {
    "engine.name": "the engine is {v}",
    "spec_decode.enabled": "speculative decoding is {on}",
    "prefix_caching.enabled": "prefix caching is {on}",
    "cuda_graphs.enabled": "CUDA graphs are {on}",
    "gpu.native_fp4": "the GPU {has} native FP4",
    "gpu.native_fp8": "the GPU {has} native FP8",
    "gpu.cc_mode": "the GPU {is} in Confidential Computing mode",
    "gpu.cc_capable": "the GPU {is} capable of Confidential Computing mode",
    "host.rebar": "Resizable BAR {is} enabled",
    "model.weight_only": "the checkpoint {is} weight-only",
    "model.kv_cache_scheme": "the checkpoint {does} declare a KV-cache quantization scheme",
    "model.fp8_block": "the checkpoint's FP8 weights {are} block-scaled",
    "model.moe": "the model {is} a mixture of experts",
    "model.hybrid": "the model {is} hybrid (Mamba or linear-attention layers)",
    "model.sliding_window": "the model {uses} sliding-window attention",
    "engine.flashinfer": "FlashInfer {is} installed",
    "engine.v1": "the V1 engine {is} on",
    "engine.v2_model_runner": "the V2 model runner {is} on",
    "attention.flashinfer_q_quant": "FlashInfer Q-quantization {is} enabled",
    "bench.reports_tail": "the benchmark {does} report a percentile above p50",
    "bench.clocks_locked": "GPU clocks {are} locked before the benchmark",
}
_VALUE_PHRASES: dict[str, str] = {
    "spec_decode.method": "speculative decoding uses {v}",
    "serve.dtype": "the compute dtype is {v}",
    "kv_cache.dtype": "the KV cache dtype is {v}",
    "model.quantization": "the checkpoint is quantized as {v}",
    "model.family": "the model is of the {v} family",
    "model.kv_cache_scales": "the checkpoint ships calibrated KV-cache scales ({v})",
    "attention.backend": "the attention backend is {v}",
    "moe.backend": "the MoE backend is {v}",
    "engine.backend": "the compute backend is {v}",
    "gpu.arch": "the GPU is {v}",
    "host.os": "the host runs {v}",
}
_VALUE_NAMES = {"mtp": "MTP", "eagle": "EAGLE", "eagle3": "EAGLE-3", "draft_model": "a draft model", "ngram": "n-gram",
                "nvfp4": "NVFP4", "mxfp4": "MXFP4", "fp8": "FP8", "hip": "HIP/ROCm", "vulkan": "Vulkan",
                "windows": "Windows"}
_OPS = {"eq": "is", "ne": "is not", "lt": "is below", "le": "is at most", "gt": "is above", "ge": "is at least",
        "in": "is one of", "not_in": "is none of", "matches": "matches"}


def _fmt(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(_fmt(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return f"`{value}`"


def _verbs(positive: bool) -> dict[str, str]:
    """The words a :data:`_PHRASES` entry is filled with, for the fact true or false."""
    return {"on": "on" if positive else "off", "has": "has" if positive else "has no",
            "is": "is" if positive else "is not", "uses": "uses" if positive else "does not use",
            "does": "does" if positive else "does not", "are": "are" if positive else "are not"}


def fact_phrase(key: str) -> str | None:
    """A boolean fact said as true in plain English ("the GPU has native FP4"), where the vocabulary of phrases
    has one."""
    phrase = _PHRASES.get(key)
    if phrase is None or "{v}" in phrase:
        return None
    return phrase.format(**_verbs(True))


def leaf_english(leaf: Leaf) -> str:
    key, op, value = leaf.key, leaf.op, leaf.arg
    if op == "present":
        return f"{key} is {'set' if value else 'not set'}"
    phrase = _PHRASES.get(key)
    if phrase and op in ("eq", "ne") and isinstance(value, bool):
        return phrase.format(**_verbs(value if op == "eq" else not value))
    if phrase and key == "engine.name" and op == "eq":
        return phrase.format(v=value)
    if key in _VALUE_PHRASES and op in ("eq", "in"):
        values = value if isinstance(value, list) else [value]
        shown = " or ".join(_VALUE_NAMES.get(str(v), f"`{v}`") for v in values)
        return _VALUE_PHRASES[key].format(v=shown)
    if key == "gpu.sm" and op in _OPS:
        return f"the GPU's compute capability {_OPS[op]} {_fmt(value)}"
    return f"{key} {_OPS[op]} {_fmt(value)}"


def english(pred: Predicate | Mapping[str, Any]) -> str:
    """A predicate (compiled, or its dict) in words."""
    node = compile_predicate(pred) if isinstance(pred, Mapping) else pred
    if isinstance(node, All):
        return " and ".join(_group(p) for p in node.parts)
    if isinstance(node, AnyOf):
        return " or ".join(_group(p) for p in node.parts)
    if isinstance(node, Not):
        return f"not ({english(node.part)})"
    if isinstance(node, Leaf):
        return leaf_english(node)
    raise PredicateError(node.error)


def _group(node: Predicate) -> str:
    text = english(node)
    return f"({text})" if isinstance(node, All | AnyOf) and len(node.parts) > 1 else text


def range_english(rng: dict[str, Any]) -> str:
    parts = []
    if rng.get("introduced"):
        parts.append(f"from {rng['introduced']}")
    if rng.get("fixed"):
        parts.append(f"fixed in {rng['fixed']}")
    if rng.get("last_affected"):
        parts.append(f"last known affected {rng['last_affected']}")
    if rng.get("last_known_good"):
        parts.append(f"last known good {rng['last_known_good']}")
    if rng.get("observed"):
        parts.append(f"observed on {', '.join(rng['observed'])}")
    return f"{rng['engine']}: " + "; ".join(parts)


def trigger_english(trigger: dict[str, Any]) -> str:
    text = "fires when " + english(trigger["when"])
    if trigger.get("affected"):
        text += ", on affected versions (" + " | ".join(range_english(r) for r in trigger["affected"]) + ")"
    return text


def explain(record: dict[str, Any], width: int = 100) -> str:
    """A whole record as terminal text."""

    def para(title: str, body: str | None) -> list[str]:
        if not body:
            return []
        wrapped = textwrap.fill(" ".join(str(body).split()), width=width, initial_indent="  ",
                                subsequent_indent="  ", break_on_hyphens=False, break_long_words=False)
        return [title, wrapped, ""]

    out = [f"{record['id']} {record['slug']}", record["title"],
           f"severity: {record['severity']}   impact: {record['impact']}   engines: "
           f"{', '.join(record.get('engines') or []) or 'any'}   status: {record.get('status', 'active')}", ""]
    out += para("Summary", record.get("summary"))
    out += para("Symptom", record.get("symptom"))
    out += para("Cause", record.get("cause"))
    if record.get("evidence"):
        out.append("Evidence")
        for item in record["evidence"]:
            out.append(textwrap.fill(f"- {item['measured']} (setup: {item['setup']})", width=width,
                                     initial_indent="  ", subsequent_indent="    ", break_on_hyphens=False,
                                     break_long_words=False))
        out.append("")
    out += para("Fix", record.get("fix"))
    out += para("Cost of the fix", record.get("fix_cost"))
    out += para("Detect", record.get("detect"))
    trigger = record.get("trigger")
    runtime = record.get("runtime_trigger")
    if trigger:
        out += para("Trigger", trigger_english(trigger))
    elif runtime:
        out += para("Trigger", "none for configuration files (no config shows it); relialint probe reports it")
    else:
        out += para("Trigger", "none: a knowledge record (no config shows it; see Detect)")
    if runtime:
        out += para("Runtime trigger", "relialint probe " + trigger_english(runtime))
    if record.get("related"):
        out += ["Related", "  " + ", ".join(record["related"]), ""]
    if record.get("references"):
        out.append("References")
        for ref in record["references"]:
            extra = " ".join(x for x in (ref.get("locator"), ref.get("url")) if x)
            out.append(f"  [{ref['kind']}] {ref['title']}" + (f" ({extra})" if extra else ""))
        out.append("")
    examples = record.get("examples") or []
    if examples:
        counts = {k: sum(1 for e in examples if e["outcome"] == k) for k in ("fires", "passes", "possible")}
        out.append(f"Examples: {counts['fires']} fire, {counts['passes']} pass, {counts['possible']} possible")
    out.append(f"See: {record_url(record['id'])}")
    return "\n".join(out) + "\n"


_PER_VERSION_FACT = re.compile(r"detected (vLLM )?version|build\(s\)|every build|depends on the (engine version|build)")


def leaves(pred: Predicate | Mapping[str, Any]) -> list[Leaf]:
    """The leaves of a predicate (compiled, or its dict), in order."""
    node = compile_predicate(pred) if isinstance(pred, Mapping) else pred
    return [leaf for leaf, _ in walk(node)]


def per_version_facts(trigger: Trigger | Mapping[str, Any]) -> list[str]:
    """The facts of a trigger that depend on the deployment's engine version (a fact derived per version world
    is named by the located fact it decides)."""
    from relialint.core.facts import PER_VERSION, VOCABULARY

    out: list[str] = []
    compiled = trigger if isinstance(trigger, Trigger) else compile_trigger(trigger)
    for leaf in compiled.leaves:
        key = leaf.key
        spec = VOCABULARY.get(key)
        version_fact = key in ("engine.version", "engine.version_range") or key in PER_VERSION
        if not (version_fact or (spec is not None and _PER_VERSION_FACT.search(spec.description))):
            continue
        key = PER_VERSION.get(key, key)
        if key not in out:
            out.append(key)
    return out

"""What a model's name gives away: quantization, weight-only scheme, mixture of experts, sliding-window attention.

Every inference names the token that decided it (``-AWQ``, ``Q4_K_M``, ``A3B``, a known family). A name that says
nothing leaves the facts unknown, with one exception: a hub id (``publisher/name``) from a publisher that releases
full-precision weights under plain names, with no quantization token, is known to be unquantized
(``model.quantization`` unset, and ``model.kv_cache_scales`` unset: such a checkpoint ships no calibrated KV-cache
scales). A local path never is (a local folder can hold anything), and an explicit
``--quantization`` or a local checkpoint's ``config.json`` overrides what the name says (the engine modules apply
those after this).

Families (``model.family``, and with it ``model.moe``, ``model.hybrid``, ``model.sliding_window`` and the weights'
native quantization) come from ``data/model_families.yaml`` (``engines.model_families``), each row with its source
(the model's ``config.json`` on its hub page) and the first engine builds that run it, witnessed in the released
artifacts; a family is recognised only from a hub id or a GGUF name, never from a local path. What this module
still reads from any name are tokens: a quantization scheme (``-AWQ``, ``-FP8``, ``Q4_K_M``), total and active
parameters (``30B-A3B``, ``8x7B``, ``17B-16E``: mixture of experts), and a few families the data file does not
list, each with its source:

* DeepSeek-V2 and ``deepseek-coder-v2``: mixture of experts (``n_routed_experts``); DeepSeek-V3.2 is FP8 like V3.
* Mixtral ``8x7B`` / ``8x22B`` (``num_local_experts: 8``); ``Qwen1.5-MoE``; DBRX, Phi-3.5-MoE, OLMoE, Jamba, Arctic,
  Grok-1: mixture of experts.
* Sliding-window attention: Mistral-7B v0.1 (``sliding_window: 4096``; v0.2 and later set it to ``null``),
  Gemma 2 (``sliding_window: 4096`` on alternate layers). Not used: Llama 2 / 3.x (no sliding window in the
  architecture), Qwen2.5 (``use_sliding_window: false``), Mistral-7B v0.2 / v0.3 (``sliding_window: null``).
* Dense (``model.moe`` false): Llama 2 / 3.x, Qwen2.5 ``-<size>B`` models without an active-parameter token,
  Gemma 2, Mistral-7B.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from relialint.base import lazyre

if TYPE_CHECKING:
    from relialint.engines import model_families

Value = str | bool | None


class Inference(NamedTuple):  # a NamedTuple: cheaper to create at start-up than a dataclass
    """One fact a name implies, with the token that decided it."""

    key: str
    value: Value
    token: str

    @property
    def note(self) -> str:
        return f"from the model name: {self.token}"


_B = r"(?<![a-z0-9])"  # token boundary before
_E = r"(?![a-z0-9])"  # token boundary after


def _rx(pattern: str) -> re.Pattern[str]:
    """Case-insensitive, compiled on first use: most runs read a model name they have read before (the answers are
    cached on disk), and then none of these patterns is needed."""
    return lazyre.compile(pattern, re.IGNORECASE)


# (pattern, scheme, the scheme's own weight-only answer); the first match wins, so specific tokens come first
_QUANT: list[tuple[re.Pattern[str], str, bool | None]] = [
    (_rx(_B + r"nv-?fp4" + _E), "nvfp4", None),
    (_rx(_B + r"mxfp4" + _E), "mxfp4", None),
    (_rx(_B + r"fp4" + _E), "nvfp4", None),
    (_rx(_B + r"fp8(?:[-_]dynamic|[-_]block|[-_]e4m3)?" + _E), "fp8", False),
    (_rx(_B + r"awq" + _E), "awq", True),
    (_rx(_B + r"gptq(?:[-_]int[48])?" + _E), "gptq", True),
    (_rx(_B + r"bnb[-_]?[48]bit" + _E), "bitsandbytes", True),
    (_rx(_B + r"w4a(?:16|8|4)" + _E), "int4", None),
    (_rx(_B + r"w8a(?:16|8)" + _E), "int8", None),
    (_rx(_B + r"int4" + _E), "int4", None),
    (_rx(_B + r"int8" + _E), "int8", None),
]
_WEIGHT_ONLY = _rx(_B + r"w\d+a16" + _E)
"""``W4A16``, ``W8A16``: weights quantized, activations in 16 bits (weight-only), whatever the scheme."""
_WEIGHT_AND_ACTIVATION = _rx(_B + r"w\d+a[48]" + _E)
_UNQUANTIZED_TOKEN = _rx(_B + r"(bf16|fp16|f16|fp32)" + _E)
_GGUF_QUANT = _rx(_B + r"(i?q[0-9]_[a-z0-9_]+|q[0-9]_[0-9k]|tq[12]_0|mxfp4|bf16|f16|f32)(?=\.gguf$|[-_.]|$)")
_NOT_PLAIN = _rx(r"mlx|\d(?:\.\d+)?-?bits?(?![a-z])|exl[23]|onnx|openvino|qat|bitnet|b1\.58|gguf|ggml|hqq|eetq|quant")
"""Tokens of other formats and quantizers: a name that has one is never taken for a full-precision checkpoint."""
_DISTILLED = _rx(r"distill|qwen|llama")
"""DeepSeek-R1 distillations (``DeepSeek-R1-Distill-Qwen-7B``, ``DeepSeek-R1-0528-Qwen3-8B``) are dense BF16."""
_MOE_TOKENS: list[re.Pattern[str]] = [
    _rx(r"\d+(?:\.\d+)?[bm][-_]a\d+(?:\.\d+)?[bm]" + _E),  # Qwen3-30B-A3B, granite-3.1-3b-a800m
    _rx(r"(?<=[-_])a\d+(?:\.\d+)?b" + _E),  # Qwen1.5-MoE-A2.7B, ...-A22B
    _rx(_B + r"\d+x\d+(?:\.\d+)?b" + _E),  # Mixtral-8x7B
    _rx(r"\d+b[-_]\d+e" + _E),  # Llama-4-Scout-17B-16E
    _rx(_B + r"moe" + _E),
]
_MOE_FAMILIES: list[tuple[re.Pattern[str], str]] = [
    (_rx(r"mixtral"), "Mixtral"),
    (_rx(_B + r"deepseek-(?:v2|v2\.5|v3(?:\.\d)?|r1)" + _E), "DeepSeek-V2/V3/R1"),
    (_rx(_B + r"deepseek-coder-v2"), "DeepSeek-Coder-V2"),
    (_rx(_B + r"dbrx"), "DBRX"),
    (_rx(_B + r"olmoe"), "OLMoE"),
    (_rx(_B + r"jamba"), "Jamba"),
    (_rx(_B + r"snowflake-arctic-instruct|arctic-base"), "Snowflake Arctic"),
    (_rx(_B + r"grok-1"), "Grok-1"),
]
_DENSE: list[tuple[re.Pattern[str], str]] = [
    (_rx(_B + r"(?:meta-)?llama-(?:2|3(?:\.\d)?)-\d+b"), "Llama 2/3.x"),
    (_rx(_B + r"qwen(?:2\.5|3)(?:-coder|-math)?-\d+(?:\.\d+)?b" + _E), "Qwen2.5/Qwen3"),
    (_rx(_B + r"gemma-[23]-\d+b"), "Gemma 2/3"),
    (_rx(_B + r"mistral-7b"), "Mistral-7B"),
]
_FP8_FAMILIES = _rx(_B + r"deepseek-(?:v3(?:\.\d)?|r1)" + _E)
_SLIDING: list[tuple[re.Pattern[str], bool, str]] = [
    (_rx(_B + r"mistral-7b(?:-instruct)?-v0\.1" + _E), True, "Mistral-7B v0.1"),
    (_rx(_B + r"mistral-7b(?:-instruct)?-v0\.[23]" + _E), False, "Mistral-7B v0.2/v0.3"),
    (_rx(_B + r"gemma-2-\d+b"), True, "Gemma 2"),
    (_rx(_B + r"(?:meta-)?llama-(?:2|3(?:\.\d)?)-\d+b"), False, "Llama 2/3.x"),
    (_rx(_B + r"qwen2\.5(?:-coder|-math)?-\d+(?:\.\d+)?b"), False, "Qwen2.5"),
]

FULL_PRECISION_PUBLISHERS = frozenset({
    "meta-llama", "qwen", "google", "microsoft", "ibm-granite", "allenai", "huggingfacetb", "tiiuae", "eleutherai",
    "bigscience", "facebook", "internlm", "thudm", "zai-org", "01-ai",
})
"""Publishers whose plain model ids are full-precision (BF16/FP16) checkpoints and whose quantized releases carry
a token in the name (Qwen's ``-FP8``/``-AWQ``/``-GPTQ-Int4``, Meta's ``-FP8``, Google's ``-qat-...``). Left out on
purpose: publishers that ship quantized weights under plain names (``mistralai``'s FP8 Mistral 3 releases,
``moonshotai``'s Kimi K2, ``nvidia``'s ModelOpt checkpoints, ``openai``'s MXFP4 gpt-oss, ``deepseek-ai``, whose
V3-based releases such as DeepSeek-Prover-V2-671B are FP8 under names without a token); DeepSeek-V3/R1 themselves
are handled as FP8 above."""


def _hub_id(name: str) -> tuple[str, str] | None:
    """``publisher/model`` of a hub id, or ``None`` for a local path or anything else."""
    if name.startswith(("/", ".", "~")) or "\\" in name or name.count("/") != 1 or ":" in name:
        return None
    publisher, model = name.split("/")
    if not publisher or not model:
        return None
    return publisher, model


def infer(name: str, gguf: bool = False) -> tuple[Inference, ...]:
    """What the name implies (see :func:`read_name`), from the on-disk cache when this name was read before by
    the same relialint."""
    key = f"{int(gguf)}{name}"
    seen = _seen()
    hit = seen.get(key)
    if isinstance(hit, list):
        return tuple(Inference(str(k), v, str(t)) for k, v, t in hit)
    found = read_name(name, gguf)
    if len(seen) < _SEEN_MAX:
        seen[key] = [[i.key, i.value, i.token] for i in found]
        if not _DIRTY:
            import atexit

            atexit.register(_save)
        _DIRTY.append(key)
    return found


_SEEN_MAX = 4096
_DIRTY: list[str] = []


def _save() -> None:
    """Write the names read in this process to the cache, once, at exit."""
    from relialint.base import cache

    cache.write("model-names", _seen_key(), _seen())

@lru_cache(maxsize=1)
def _seen_key() -> str:
    from pathlib import Path

    from relialint.base import cache
    from relialint.engines import model_families

    return cache.digest([Path(__file__), Path(model_families.__file__), model_families.DATA])


@lru_cache(maxsize=1)
def _seen() -> dict[str, list[list[Value]]]:
    from relialint.base import cache

    data = cache.read("model-names", _seen_key())
    return data if isinstance(data, dict) else {}


@lru_cache(maxsize=4096)
def read_name(name: str, gguf: bool = False) -> tuple[Inference, ...]:
    """Facts the name implies (``model.family``, ``model.quantization``, ``model.weight_only``,
    ``model.kv_cache_scales``, ``model.moe``, ``model.hybrid``, ``model.sliding_window``), each with its token;
    empty when the name says nothing (cached: names repeat). ``gguf``: the name is a GGUF repository, optionally
    with its quant type after a colon (llama.cpp ``-hf org/model-GGUF:Q4_K_M``)."""
    from relialint.engines import model_families

    family = model_families.find(name, gguf)
    kind = family or model_families.resembles(name.partition(":")[0] if gguf else name)
    quant_type = ""
    if gguf and ":" in name:
        name, _, quant_type = name.partition(":")
    base = name.rstrip("/").replace("\\", "/").rsplit("/", 1)[-1]
    out: list[Inference] = []
    lower = name.lower()
    if gguf or lower.endswith(".gguf") or "gguf" in lower:
        quant = _GGUF_QUANT.search(quant_type or base)
        if quant is not None:
            out.append(Inference("model.quantization", f"gguf-{quant.group(1).lower()}", quant.group(1)))
    else:
        out += _quantization(name, base, family)
    if kind is not None:
        out += _family_facts(base, kind, identified=family is not None)
    if kind is None or kind.moe is None:
        out += _moe(name)
    if kind is None or kind.sliding_window is None:
        for pattern, value, label in _SLIDING:
            found = pattern.search(name)
            if found is not None:
                out.append(Inference("model.sliding_window", value, f"{found.group(0)} ({label})"))
                break
    return tuple(out)


def _family_facts(base: str, family: model_families.Family, identified: bool) -> list[Inference]:
    """What the family of the data file says: its name (with the engine builds that first run it) when the name
    identifies the checkpoint, and its mixture-of-experts, hybrid and sliding-window answers where the family has
    one (those also from a local folder's name, as the token rules read it)."""
    out = [Inference("model.family", family.family, f"{base}: {family.describe()}")] if identified else []
    for key, value in (("model.moe", family.moe), ("model.hybrid", family.hybrid),
                       ("model.sliding_window", family.sliding_window)):
        if value is not None:
            out.append(Inference(key, value, f"{base} ({family.family})"))
    return out


def _quantization(name: str, base: str, family: model_families.Family | None) -> list[Inference]:
    for pattern, scheme, weight_only in _QUANT:
        found = pattern.search(base)
        if found is not None:
            out = [Inference("model.quantization", scheme, found.group(0))]
            explicit = _WEIGHT_ONLY.search(base) or _WEIGHT_AND_ACTIVATION.search(base)
            if explicit is not None:
                weight_only_scheme = explicit.re.pattern == _WEIGHT_ONLY.pattern
                out.append(Inference("model.weight_only", weight_only_scheme, explicit.group(0)))
            elif weight_only is not None:
                out.append(Inference("model.weight_only", weight_only, found.group(0)))
            return out
    hub = _hub_id(name)
    if family is not None and family.quantization is not None and hub is not None \
            and hub[0].lower() in family.publishers:
        token = f"{hub[1]} (released in {family.quantization.upper()})"
        out = [Inference("model.quantization", family.quantization, token)]
        if family.weight_only is not None:
            out.append(Inference("model.weight_only", family.weight_only, token))
        return out
    fp8 = _FP8_FAMILIES.search(base)
    if fp8 is not None and hub is not None and hub[0].lower() == "deepseek-ai" and not _DISTILLED.search(base):
        return [Inference("model.quantization", "fp8", f"{fp8.group(0)} (released in FP8)"),
                Inference("model.weight_only", False, f"{fp8.group(0)} (released in FP8)")]
    if hub is not None and hub[0].lower() in FULL_PRECISION_PUBLISHERS and not _NOT_PLAIN.search(base):
        plain = _UNQUANTIZED_TOKEN.search(base)
        token = plain.group(0) if plain is not None else (
            f"no quantization token, and {hub[0]} publishes full-precision weights under plain names")
        # a full-precision checkpoint has no quantization_config, so no calibrated KV-cache scales either
        return [Inference("model.quantization", None, token), Inference("model.kv_cache_scales", None, token)]
    return []


def _moe(name: str) -> list[Inference]:
    base = name.rstrip("/").replace("\\", "/").rsplit("/", 1)[-1]
    for pattern in _MOE_TOKENS:
        found = pattern.search(base)
        if found is not None:
            return [Inference("model.moe", True, found.group(0))]
    for pattern, family in _MOE_FAMILIES:
        found = pattern.search(base)
        if found is not None and not (family == "DeepSeek-V2/V3/R1" and _DISTILLED.search(base)):
            return [Inference("model.moe", True, f"{found.group(0)} ({family})")]
    for pattern, family in _DENSE:
        found = pattern.search(base)
        if found is not None:
            return [Inference("model.moe", False, f"{found.group(0)} ({family}, dense)")]
    return []

"""The model families and drafters of ``data/model_families.yaml``: what a model's name certainly says about it, and
the first engine builds that can run it (witnessed by ``tools/model_support.py`` in the released artifacts).

A family is recognised only from a name that identifies the checkpoint: a hub id (``publisher/model``, any
publisher: quantized and fine-tuned uploads keep the architecture) or a GGUF file or repository name. A local
path (``/models/gpt-oss-120b``) is a folder someone named: it never identifies a family.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from relialint.base import lazyre

DATA = Path(__file__).resolve().parent.parent / "data" / "model_families.yaml"


class Family:
    """One family row (see the data file's header for each field)."""

    __slots__ = (
        "architecture",
        "family",
        "gguf",
        "hybrid",
        "llamacpp_since",
        "moe",
        "pattern",
        "publishers",
        "quantization",
        "sliding_window",
        "source",
        "vllm_since",
        "vllm_until",
        "weight_only",
    )

    def __init__(self, row: dict[str, Any]) -> None:
        self.family = str(row["family"])
        self.pattern = lazyre.compile(str(row["names"]), re.IGNORECASE)
        arch = row["architecture"]
        self.architecture = (arch,) if isinstance(arch, str) else tuple(arch)
        self.gguf: str | None = row.get("gguf")
        self.moe: bool | None = row.get("moe")
        self.hybrid: bool | None = row.get("hybrid")
        self.sliding_window: bool | None = row.get("sliding_window")
        quant = row.get("quantization") or {}
        self.quantization: str | None = quant.get("value")
        self.weight_only: bool | None = quant.get("weight_only")
        self.publishers = frozenset(p.lower() for p in quant.get("publishers") or ())
        self.vllm_since: str | None = row.get("vllm_since")
        self.vllm_until: str | None = row.get("vllm_until")
        self.llamacpp_since: str | None = row.get("llamacpp_since")
        self.source = str(row.get("source") or "")

    def floor(self, engine: str) -> str | None:
        """The first release (vLLM) or lowest build (llama.cpp) that can run the family; ``None`` when every build
        read already can (``<0.6.0``) or none was witnessed."""
        since = self.vllm_since if engine == "vllm" else self.llamacpp_since if engine == "llama.cpp" else None
        return since if since and not since.startswith("<") else None

    def describe(self) -> str:
        """``gpt-oss (GptOssForCausalLM; vLLM >= 0.10.1, llama.cpp >= b5905, witnessed)``."""
        floors = [f"{label} >= {since}" for label, since in (("vLLM", self.floor("vllm")),
                                                               ("llama.cpp", self.floor("llama.cpp"))) if since]
        if self.vllm_until:
            floors.append(f"vLLM <= {self.vllm_until}")
        tail = f"; {', '.join(floors)} (witnessed in the released code)" if floors else ""
        return f"{self.family} ({'/'.join(self.architecture)}{tail})"


class Drafter:
    """A speculative-decoding draft checkpoint whose name decides vLLM's method (``method`` ``None``: the release
    decides, but it is no separate draft model); ``floor``: a release before ``vllm_since`` cannot load it."""

    __slots__ = ("by_name", "floor", "method", "pattern", "source", "vllm_since")

    def __init__(self, row: dict[str, Any]) -> None:
        self.pattern = lazyre.compile(str(row["names"]), re.IGNORECASE)
        self.by_name = row.get("rule") == "name"
        self.method: str | None = row.get("method")
        self.floor = bool(row.get("floor"))
        self.vllm_since = str(row["vllm_since"])
        self.source = str(row.get("source") or "")


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    from relialint.base import cache

    key = cache.digest([DATA])
    data: Any = cache.read("model-families", key)
    if not isinstance(data, dict):
        from relialint.readers.yamlsafe import load_all, plain

        data = plain(load_all(DATA.read_text(encoding="utf-8"), "model_families.yaml")[0])
        cache.write("model-families", key, data)
    return data  # type: ignore[no-any-return]


@lru_cache(maxsize=1)
def families() -> tuple[Family, ...]:
    return tuple(Family(row) for row in _data()["families"])


@lru_cache(maxsize=1)
def drafters() -> tuple[Drafter, ...]:
    return tuple(Drafter(row) for row in _data().get("drafters") or ())


def identifying_part(name: str, gguf: bool = False) -> str | None:
    """The part of a model name that identifies a checkpoint: a hub id's model name, a GGUF file's or repository's
    name; ``None`` for a local path or folder, a URL, or anything else (which never identifies a family)."""
    text = name.strip()
    if gguf and ":" in text:
        text = text.partition(":")[0]  # -hf org/model-GGUF:Q4_K_M
    base = text.rstrip("/").replace("\\", "/").rsplit("/", 1)[-1]
    if base.lower().endswith(".gguf"):
        return base  # a GGUF file's name is the checkpoint's own (converters write it)
    if ":" in text or text.startswith(("/", ".", "~")) or "\\" in name or text.count("/") != 1:
        return None
    publisher, model = text.split("/")
    return model if publisher and model else None


def find(name: str, gguf: bool = False) -> Family | None:
    """The family a model name identifies with certainty, or ``None``."""
    part = identifying_part(name, gguf)
    if part is None:
        return None
    return next((f for f in families() if f.pattern.search(part)), None)


def resembles(name: str) -> Family | None:
    """The family whose pattern the name's last path part matches, whatever the name is (a local folder too): what
    the name says of the model's kind, as the token rules read any name. It identifies nothing: no
    ``model.family`` and no engine floor come from it (:func:`find` does that)."""
    base = name.strip().rstrip("/").replace("\\", "/").rsplit("/", 1)[-1]
    return next((f for f in families() if f.pattern.search(base)), None) if base else None


def by_name(family: str) -> Family | None:
    return next((f for f in families() if f.family == family), None)


def publisher(name: str) -> str | None:
    """A hub id's publisher, lower case; ``None`` for anything else."""
    text = name.strip()
    if text.startswith(("/", ".", "~")) or ":" in text or text.count("/") != 1:
        return None
    return text.split("/")[0].lower() or None


def drafter(name: str) -> Drafter | None:
    """The drafter row a draft model matches (first wins), or ``None``: a ``name`` rule reads the name as written
    (vLLM tests the string itself), a ``checkpoint`` rule only a hub id's model name."""
    part = identifying_part(name)
    for row in drafters():
        text = name if row.by_name else part
        if text is not None and row.pattern.search(text):
            return row
    return None


def engine_ceiling(facts: Any, engine: str) -> str | None:
    """The newest vLLM release that can run the model, when the family's architecture was removed after it
    (``vllm_until``); ``None`` otherwise (llama.cpp removes no architecture the data lists)."""
    fact = facts.get("model.family")
    family = by_name(str(fact.value)) if fact is not None and fact.value is not None else None
    return family.vllm_until if family is not None and engine == "vllm" else None


def engine_floor(facts: Any, engine: str) -> str | None:
    """The oldest release (vLLM) or build (llama.cpp) a deployment can run, from what its model facts identify
    with certainty: the model's family (``model.family``, whose note names the floor) and, for vLLM, a drafter that
    older releases cannot load (``spec_decode.draft_model``; ``spec_decode.method``'s note names it). ``None``:
    nothing sets a floor."""
    from relialint.core.versions import parse_version

    found: list[str] = []
    fact = facts.get("model.family")
    family = by_name(str(fact.value)) if fact is not None and fact.value is not None else None
    since = family.floor(engine) if family is not None else None
    if since is not None:
        found.append(since)
    draft = facts.get("spec_decode.draft_model") if engine == "vllm" else None
    row = drafter(str(draft.value)) if draft is not None and draft.value is not None else None
    if row is not None and row.floor:
        found.append(row.vllm_since)
    return max(found, key=parse_version) if found else None

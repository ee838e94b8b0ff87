"""The facts SGLang sets itself when a launch says nothing, by release (``origin: default``), in the rows of
``vllm_defaults`` (one small reader for both engines). Only what the released wheels show
(``sglang/srt/server_args.py`` and, from 0.5.14, ``sglang/srt/arg_groups/``: the ``ServerArgs`` field defaults
and the ``__post_init__`` / resolution code that overrides them); where a release's start-up turns a setting off
for a case the facts cannot tell (a model architecture, a disaggregation role, a backend), the row's conditions
leave the fact unknown instead.

* ``prefix_caching.enabled``: ``disable_radix_cache = False`` from 0.1.13 (the field is absent before). Turned off
  at start-up with EAGLE speculative decoding in 0.4.1.post4-0.4.3.post0, on the decode server of a
  prefill/decode disaggregation (0.4.5.post3 on), with the dual-chunk attention backend (0.5.0rc1 on), with
  ``--enable-mis`` (0.5.11-0.5.13), with deterministic inference on some backends (0.5.3rc2 on), and for
  hybrid (Mamba-type) models the release cannot cache (0.5.4.post2 on).
* ``cuda_graphs.enabled``: ``disable_cuda_graph = False`` from 0.1.20. Turned off on the prefill server of a
  disaggregation (0.4.4.post2 on), with dual-chunk attention (0.5.0rc1-0.5.3rc0), with ``--enable-mis``; a CPU
  build captures none.
* ``torch_compile.enabled``: ``enable_torch_compile = False`` from 0.1.24.
* ``chunked_prefill.enabled``: ``chunked_prefill_size`` ``None`` (off) in 0.2.7-0.2.11 and ``-1`` (off, read as
  ``None``) in 0.2.12; ``8192`` in 0.2.13-0.3.6; ``None`` resolved to 2048-32768 by GPU memory from 0.4.0; set to
  ``-1`` with EAGLE in 0.4.1.post4-0.4.3.post0 and with ``--enable-mis`` in 0.5.11-0.5.18. Not claimed from
  0.5.19, whose resolution code moved where the tables were not read for it.
* ``spec_decode.enabled`` false and ``spec_decode.method`` unset without ``--speculative-algorithm`` (or a draft
  model): ``speculative_algorithm = None`` in every release, and none sets it at start-up.
* ``sglang.dp_attention`` false: ``enable_dp_attention = False``; 0.5.3rc2-0.5.13 turn it on for DeepSeek NSA models
  (``is_deepseek_nsa``: DeepSeek V3.2), so there the model must be known and not one. Not claimed from 0.5.14, where
  the resolution moved into ``arg_groups``.
* ``parallel.tensor`` 1 (``tp_size = 1``, never set at start-up); ``parallel.data`` 1 (``dp_size = 1``; DP attention
  sets it to ``tp_size`` in 0.3.6-0.4.3.post2 and for NSA models in 0.5.3rc2-0.5.13); ``parallel.expert`` 1 up to
  0.5.13 (``ep_size = 1``; ``--enable-ep-moe``, ``--enable-deepep-moe``, an all-to-all MoE backend and NSA prefill
  context parallelism set it to ``tp_size``).
* ``limits.max_num_seqs`` unset (``max_running_requests = None``: the server sizes it).
* ``kv_cache.dtype`` ``auto`` before 0.5.3rc2 (from then some models switch it at start-up).
"""

from __future__ import annotations

from bisect import bisect_right
from functools import lru_cache

from relialint.base.plain import Frozen
from relialint.core.facts import FactSet
from relialint.core.versions import Version
from relialint.engines.vllm_defaults import EVERY, Closed, Const, HasValue, Row, Unknown, Unset, before, between, since

FLAGS = Closed("flag.sglang.")


class NotOneOf(Frozen):
    """The fact is not one of ``values`` (compared lower-case): known unset, or set to another value; with
    ``unknown``, also where it is unknown."""

    key: str
    values: frozenset[str]
    unknown: bool
    _fields = ("key", "values", "unknown")

    def __init__(self, key: str, values: frozenset[str], unknown: bool = False) -> None:
        self.key = key
        self.values = values
        self.unknown = unknown

    def holds(self, facts: FactSet) -> bool:
        fact = facts.get(self.key)
        if fact is None:
            return self.unknown
        return fact.value is None or str(fact.value).lower() not in self.values


class NotTrue(Frozen):
    """The fact is not ``True`` (unknown counts as not true: the note of the row says so)."""

    key: str
    _fields = ("key",)

    def __init__(self, key: str) -> None:
        self.key = key

    def holds(self, facts: FactSet) -> bool:
        fact = facts.get(self.key)
        return fact is None or fact.value is not True


SPEC = HasValue("flag.sglang.speculative-algorithm")
NO_DISAGGREGATION = Unset("flag.sglang.disaggregation-mode")
NO_MIS = Unset("flag.sglang.enable-mis")
NO_DETERMINISTIC = Unset("flag.sglang.enable-deterministic-inference")
NO_DUAL_CHUNK = NotOneOf("flag.sglang.attention-backend", frozenset({"dual_chunk_flash_attn"}))
NOT_CPU = NotOneOf("engine.backend", frozenset({"cpu"}), unknown=True)
NOT_HYBRID = NotTrue("model.hybrid")
EAGLE_ERA = between("0.4.1.post4", "0.4.3.post1")
NO_SPEC = Unset("flag.sglang.speculative-algorithm")
NO_DRAFT = Unset("flag.sglang.speculative-draft-model-path")
NO_ATTN_DP = Unset("flag.sglang.attn-dp-size")
NO_DP_ATTENTION = Unset("flag.sglang.enable-dp-attention")
NOT_NSA = NotOneOf("model.family", frozenset({"deepseek-v3.2"}))
"""The model is known and is no DeepSeek NSA model (``is_deepseek_nsa``: DeepSeek V3.2), for which SGLang
0.5.3rc2-0.5.13 turn DP attention on at start-up."""
NO_EP_SWITCH = (Unset("flag.sglang.enable-ep-moe"), Unset("flag.sglang.enable-deepep-moe"),
                Unset("flag.sglang.moe-a2a-backend"), Unset("flag.sglang.enable-nsa-prefill-context-parallel"))
SPEC_NOTE = "SGLang's default: no --speculative-algorithm, no speculative decoding"
DP_NOTE = "SGLang's default (enable_dp_attention = False)"

RADIX_NOTE = ("SGLang's default (disable_radix_cache = False); its start-up still turns it off for some models "
              "(hybrid Mamba-type architectures) and modes the launch does not show")
GRAPH_NOTE = "SGLang's default (disable_cuda_graph = False)"

ROWS: tuple[Row, ...] = (
    Row("prefix_caching.enabled", EAGLE_ERA, (SPEC,), Unknown(),
        why="0.4.1.post4-0.4.3.post0 server_args.py: EAGLE sets disable_radix_cache = True"),
    Row("prefix_caching.enabled", since("0.1.13"),
        (FLAGS, NO_DISAGGREGATION, NO_MIS, NO_DETERMINISTIC, NO_DUAL_CHUNK, NOT_HYBRID), Const(True),
        note=RADIX_NOTE, why="server_args.py ServerArgs.disable_radix_cache: bool = False, 0.1.13 on"),
    Row("cuda_graphs.enabled", since("0.1.20"), (FLAGS, NO_DISAGGREGATION, NO_MIS, NO_DUAL_CHUNK, NOT_CPU),
        Const(True), note=GRAPH_NOTE, why="server_args.py ServerArgs.disable_cuda_graph: bool = False, 0.1.20 on"),
    Row("torch_compile.enabled", since("0.1.24"), (FLAGS,), Const(False),
        note="SGLang's default (enable_torch_compile = False)",
        why="server_args.py ServerArgs.enable_torch_compile: bool = False, 0.1.24 on"),
    Row("chunked_prefill.enabled", EAGLE_ERA, (SPEC,), Unknown(),
        why="0.4.1.post4-0.4.3.post0 server_args.py: EAGLE sets chunked_prefill_size = -1"),
    Row("chunked_prefill.enabled", between("0.2.7", "0.2.13"), (FLAGS,), Const(False),
        note="SGLang's default (chunked_prefill_size None or -1: off)",
        why="server_args.py 0.2.7-0.2.11 chunked_prefill_size = None, 0.2.12 -1 (read as None)"),
    Row("chunked_prefill.enabled", between("0.2.13", "0.5.19"), (FLAGS, NO_MIS), Const(True),
        note="SGLang's default (a chunk of 8192 tokens, or from 0.4.0 one chosen by GPU memory)",
        why="server_args.py 0.2.13-0.3.6 chunked_prefill_size = 8192; 0.4.0 on None, set in __post_init__"),
    Row("spec_decode.enabled", EVERY, (FLAGS, NO_SPEC, NO_DRAFT), Const(False), note=SPEC_NOTE,
        why="ServerArgs.speculative_algorithm = None in every release that has it; no release sets it otherwise"),
    Row("spec_decode.method", EVERY, (FLAGS, NO_SPEC, NO_DRAFT), Const(None), note=SPEC_NOTE,
        why="ServerArgs.speculative_algorithm = None"),
    Row("sglang.dp_attention", before("0.5.3rc2"), (FLAGS,), Const(False), note=DP_NOTE,
        why="ServerArgs.enable_dp_attention = False, 0.3.6 on (no DP attention before)"),
    Row("sglang.dp_attention", between("0.5.3rc2", "0.5.14"), (FLAGS, NO_ATTN_DP, NOT_NSA), Const(False),
        note=DP_NOTE, why="0.5.3rc2-0.5.13: DP attention turned on for DeepSeek NSA models (is_deepseek_nsa) only"),
    Row("parallel.tensor", EVERY, (FLAGS,), Const(1), note="SGLang's default (tp_size = 1)",
        why="ServerArgs.tp_size = 1; no release sets it at start-up"),
    Row("parallel.data", before("0.5.3rc2"), (FLAGS, NO_DP_ATTENTION), Const(1), note="SGLang's default (dp_size = 1)",
        why="ServerArgs.dp_size = 1; with DP attention 0.3.6-0.4.3.post2 set it to tp_size"),
    Row("parallel.data", between("0.5.3rc2", "0.5.14"), (FLAGS, NO_DP_ATTENTION, NOT_NSA), Const(1),
        note="SGLang's default (dp_size = 1)", why="0.5.3rc2-0.5.13: DeepSeek NSA models set dp_size = tp_size"),
    Row("parallel.expert", before("0.5.14"), (FLAGS, *NO_EP_SWITCH), Const(1), note="SGLang's default (ep_size = 1)",
        why="ServerArgs.ep_size = 1; set to tp_size with --enable-ep-moe, --enable-deepep-moe, an all-to-all MoE "
            "backend, or NSA prefill context parallelism"),
    Row("limits.max_num_seqs", EVERY, (FLAGS,), Const(None),
        note="SGLang's default: no --max-running-requests, the server sizes it from the KV pool",
        why="ServerArgs.max_running_requests = None"),
    Row("kv_cache.dtype", before("0.5.3rc2"), (FLAGS,), Const("auto"), note="SGLang's default (kv_cache_dtype auto)",
        why="ServerArgs.kv_cache_dtype = 'auto'; from 0.5.3rc2 some models switch it at start-up"),
)


def _thresholds() -> tuple[Version, ...]:
    return tuple(sorted({bound for row in ROWS for bound in row.versions.bounds()}))


@lru_cache(maxsize=1024)
def version_class(version: Version) -> tuple[object, ...]:
    """How many thresholds of the rows the version has reached: versions of one class get the same defaults."""
    return (bisect_right(_thresholds(), version),)


def version_defaults(facts: FactSet) -> None:
    """Each fact not already settled takes the first of its rows that applies, if any."""
    fact = facts.get("engine.version")
    version = fact.value if fact is not None and isinstance(fact.value, Version) else None
    version = version if version is not None and version.scheme == "pep440" else None
    for key in dict.fromkeys(row.fact for row in ROWS):
        if facts.settled(key):
            continue
        for row in ROWS:
            if row.fact == key and row.applies(version, facts):
                row.apply(facts)
                break

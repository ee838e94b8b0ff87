"""vLLM's argument parser (``FlexibleArgumentParser``) as relialint reads it: ``_``/``-`` interchangeable in long
names, ``--flag=value``, ``--no-X``, short aliases, JSON-valued configs with dotted keys merged, unique prefixes,
and a ``--config`` YAML turned into options the way the engine expands it. Which options take a value comes from
the per-version tables (``flagcheck``) where they know, else from the lists below."""

from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from typing import Any

from relialint.base import bounds
from relialint.core.versions import Version, parse_in_family
from relialint.engines import flagcheck
from relialint.engines.common import model_slot_variable
from relialint.readers.located import Span, Word

BOOLEAN_FLAGS = {
    "enforce-eager", "trust-remote-code", "enable-prefix-caching", "disable-log-requests", "enable-log-requests",
    "disable-log-stats", "enable-chunked-prefill", "enable-auto-tool-choice", "enable-expert-parallel",
    "disable-custom-all-reduce", "enable-lora", "enable-sleep-mode", "skip-tokenizer-init",
    "disable-frontend-multiprocessing",
    "enable-prompt-tokens-details", "enable-server-load-tracking", "disable-fastapi-docs", "enable-request-id-headers",
    "disable-uvicorn-access-log", "headless", "enable-eplb", "enable-dbo", "async-scheduling", "enable-log-outputs",
    "enable-force-include-usage", "enable-tokenizer-info-endpoint", "return-tokens-as-token-ids",
    "disable-sliding-window", "disable-cascade-attn", "enable-return-routed-experts", "fully-sharded-loras",
    "calculate-kv-scales", "enable-reasoning", "use-v2-block-manager", "disable-async-output-proc",
    "disable-mm-preprocessor-cache", "enable-mfu-metrics", "allow-deprecated-quantization",
}
JSON_FLAGS = {
    "speculative-config", "compilation-config", "attention-config", "kv-transfer-config", "kv-events-config",
    "hf-overrides", "override-generation-config", "limit-mm-per-prompt", "mm-processor-kwargs",
    "model-loader-extra-config", "additional-config", "structured-outputs-config", "override-pooler-config",
    "pooler-config", "ec-transfer-config", "kernel-config", "observability-config", "profiler-config",
}
SHORT_ALIASES = {
    "-tp": "tensor-parallel-size", "-pp": "pipeline-parallel-size", "-q": "quantization",
    "-dp": "data-parallel-size", "-sc": "speculative-config", "-cc": "compilation-config",
    "-ac": "attention-config", "-ep": "enable-expert-parallel", "-asc": "api-server-count",
    "-dcp": "decode-context-parallel-size", "-n": "nnodes", "-r": "node-rank",
}
FACT_FLAGS = {
    "model", "dtype", "kv-cache-dtype", "enforce-eager", "compilation-config", "speculative-config",
    "speculative-model", "num-speculative-tokens", "enable-prefix-caching", "attention-backend", "attention-config",
    "moe-backend", "tensor-parallel-size", "pipeline-parallel-size", "gpu-memory-utilization",
    "max-model-len", "max-num-batched-tokens", "quantization", "config", "optimization-level",
    "served-model-name", "host", "port",
}
_PREFIX_POOL = sorted(BOOLEAN_FLAGS | JSON_FLAGS | FACT_FLAGS | set(SHORT_ALIASES.values()))


class Opt:
    """One option as the parser would store it."""

    name: str
    value: str | None
    flag: Word
    value_word: Word | None = None
    keys: tuple[str, ...] = ()
    equals: bool = False
    negated: bool = False
    known: bool = True
    from_config: bool = False

    def __init__(self, name: str, value: str | None, flag: Word, value_word: Word | None = None,
                 keys: tuple[str, ...] = (), equals: bool = False, negated: bool = False, known: bool = True,
                 from_config: bool = False) -> None:
        self.name = name
        self.value = value
        self.flag = flag
        self.value_word = value_word
        self.keys = keys
        self.equals = equals
        self.negated = negated
        self.known = known
        self.from_config = from_config


class Parsed:
    opts: list[Opt]
    positionals: list[Word]
    complete: bool = True

    def __init__(self, opts: list[Opt] | None = None, positionals: list[Word] | None = None,
                 complete: bool = True) -> None:
        self.opts = [] if opts is None else opts
        self.positionals = [] if positionals is None else positionals
        self.complete = complete


@lru_cache(maxsize=4096)
def canonical(name: str) -> str:
    """Underscores to dashes in the part before the first dot; unique prefixes expanded."""
    head, dot, rest = name.partition(".")
    head = head.replace("_", "-")
    if not head.startswith("no-") and len(head) >= 3:
        match, _ = flagcheck.resolve_long("--" + head, None)  # the real option set of every covered version
        if match is not None:
            return match[2:] + dot + rest
    if head not in _PREFIX_POOL and not head.startswith("no-"):
        matches = [n for n in _PREFIX_POOL if n.startswith(head)]
        if len(matches) == 1 and len(head) >= 3:
            head = matches[0]
    return head + dot + rest


def parse_args(words: list[Word]) -> Parsed:
    parsed = Parsed()
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word.splice and not (not parsed.positionals and model_slot_variable(word)):
            parsed.complete = False
            continue
        text = word.text
        if text is None and word.held is not None and word.held.startswith("-") and "=" in word.held:
            # --api-key=$(KEY) with KEY from a secret: the option is passed, its value is not in the file
            name, _, _ = _option_name(word.held)
            base, _, dotted = name.partition(".")
            lookup, negated = _positive(base)
            parsed.opts.append(Opt(lookup, None, word, word, tuple(dotted.split(".")) if dotted else (), True,
                                   negated, known=False))
            continue
        if text is None:
            parsed.positionals.append(word)
            continue
        if text == "--":
            parsed.positionals.extend(words[i:])
            break
        if not text.startswith("-") or re.fullmatch(r"-\d+(\.\d+)?", text):
            parsed.positionals.append(word)
            continue
        name, eq, inline = _option_name(text)
        base, _, dotted = name.partition(".")
        keys = tuple(dotted.split(".")) if dotted else ()
        lookup, negated = _positive(base)
        if eq:
            parsed.opts.append(Opt(lookup, inline, word, word, keys, True, negated))
            continue
        table_says = None if negated else flagcheck.takes_value(lookup, None)
        takes_value = bool(keys) or (table_says if table_says is not None else lookup not in BOOLEAN_FLAGS)
        if takes_value and i < len(words) and _is_value(words[i]):
            value_word = words[i]
            i += 1
            if value_word.splice and lookup == "model" and model_slot_variable(value_word):
                parsed.opts.append(Opt(lookup, None, word, value_word, keys, False, negated, known=False))
                continue
            if value_word.splice:
                parsed.complete = False
                parsed.opts.append(Opt(lookup, None, word, value_word, keys, False, negated, known=False))
                continue
            parsed.opts.append(Opt(lookup, value_word.text, word, value_word, keys, False, negated,
                                   known=value_word.text is not None))
        else:
            parsed.opts.append(Opt(lookup, None, word, None, keys, False, negated))
    return parsed


def _option_name(text: str) -> tuple[str, str, str]:
    """An option word as ``(name, "=" or "", inline value)``: a long name canonical (dashes, a unique prefix
    expanded), a short alias by its long name (``-tp``, ``-cc.mode``), ``-O3`` as ``optimization-level=3``."""
    name, eq, inline = text.partition("=")
    if name.startswith("--"):
        name = canonical(name[2:])
    elif re.fullmatch(r"-O\d", name):
        inline, eq, name = name[2:], "=", "optimization-level"
    elif name.split(".", 1)[0] in SHORT_ALIASES:
        head, dot, rest = name.partition(".")
        name = SHORT_ALIASES[head] + dot + rest
    elif name.startswith("-O"):
        name = "optimization-level" + name[2:]
    else:
        name = name[1:]
    return name, eq, inline


def _positive(base: str) -> tuple[str, bool]:
    """The option a negative spelling turns off (``no-enforce-eager``, ``disable-prefix-caching``, a negative the
    tables know), and whether ``base`` is one."""
    if base.startswith("no-") and base[3:] in BOOLEAN_FLAGS | {"enable-prefix-caching"}:
        return base[3:], True
    if base == "disable-prefix-caching":
        return "enable-prefix-caching", True
    positive = flagcheck.negative_of(base)
    return (positive, True) if positive is not None else (base, False)


def _is_value(word: Word) -> bool:
    text = word.text
    if text is None:
        return True
    return not text.startswith("-") or bool(re.fullmatch(r"-\d+(\.\d+)?", text)) or text == "-"


def _json(opt: Opt) -> dict[str, Any] | None:
    if opt.value is None:
        return None
    try:
        value = bounds.json_loads(opt.value)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _dotted_value(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return bounds.json_loads(text)
    except ValueError:
        return text


def _merge_json(opts: list[Opt], name: str) -> tuple[dict[str, Any], Opt] | None:
    """The JSON config of ``name`` with dotted keys merged; the last full value wins, dotted keys apply after."""
    merged: dict[str, Any] = {}
    last: Opt | None = None
    for opt in opts:
        if opt.name != name:
            continue
        last = opt
        if opt.keys:
            target: Any = merged
            for key in opt.keys[:-1]:
                target = target.setdefault(key, {})
                if not isinstance(target, dict):
                    break  # `--x.a 1 --x.a.b 2`: a.b under a value that is not a mapping; vLLM rejects it
            else:
                target[opt.keys[-1]] = _dotted_value(opt.value)
        else:
            value = _json(opt)
            if value is not None:
                merged = {**merged, **value}
    return (merged, last) if last is not None else None


def config_file_opts(text: str, display: str, line_offset: int = 0) -> list[Opt]:
    """A vLLM ``--config`` YAML file as options (keys with ``-`` or ``_``; true as the flag, false as ``--no-``)."""
    from relialint.readers.yamlsafe import YamlError, YMap, YScalar, YSeq, load_all

    path = display.split("#heredoc:", 1)[0]
    offset = int(display.split("#heredoc:", 1)[1]) - 1 if "#heredoc:" in display else line_offset
    try:
        docs = load_all(text, path)
    except YamlError:
        return []
    if not docs or not isinstance(docs[0], YMap):
        return []
    opts: list[Opt] = []
    for key, value in docs[0].items:
        span = Span(path, key.span.line + offset, key.span.column, key.span.end_line + offset, key.span.end_column)
        flag = Word(key.text, span)
        name = canonical(key.text)
        if isinstance(value, YScalar):
            if value.value is True:
                opts.append(Opt(name, None, flag))
            elif value.value is False:
                opts.append(Opt(name, None, flag, negated=True))
            elif value.value is not None:
                opts.append(Opt(name, value.text, flag, flag))
        elif isinstance(value, YMap):
            from relialint.readers.yamlsafe import plain

            opts.append(Opt(name, json.dumps(plain(value)), flag, flag))
        elif isinstance(value, YSeq):
            opts.append(Opt(name, " ".join(str(item.text) for item in value.items if isinstance(item, YScalar)),
                            flag, flag))
    return opts


# Options declared with vLLM's ``StoreBoolean`` action (0.6.6.post1-0.8.4): a ``--config`` key spelled exactly as
# the option's dest is passed on with its false value, so the false is not dropped for these spellings.
_STORE_BOOLEAN_DESTS = {"enable_chunked_prefill", "multi_step_stream_outputs", "disable_logprobs_during_spec_decoding",
                        "disable_chunked_mm_input"}
_STORE_BOOLEAN_UNTIL = parse_in_family(False, "0.8.5")
_FALSE_PASSED_FROM = parse_in_family(False, "0.28.0")


def config_false(opts: list[Opt]) -> Opt | None:
    """The first ``--config`` YAML key whose value is ``false`` (read from the file, not the command line)."""
    for opt in opts:
        if opt.from_config and opt.negated and opt.value is None and opt.flag.text not in _STORE_BOOLEAN_DESTS:
            return opt
    return None


def drop_config_false(opts: list[Opt], version: Version | None) -> tuple[list[Opt], list[Opt]]:
    """The options the parser receives and the ``--config`` false keys it never sees: before 0.28.0 the file's
    expansion leaves a false value out (keys spelled as a ``StoreBoolean`` dest are passed on up to 0.8.4).
    With the version unknown nothing is dropped; RL540 says what would be."""
    if version is None or version.scheme != "pep440" or not version < _FALSE_PASSED_FROM:
        return opts, []
    kept: list[Opt] = []
    dropped: list[Opt] = []
    for opt in opts:
        false = opt.from_config and opt.negated and opt.value is None
        if false and not (opt.flag.text in _STORE_BOOLEAN_DESTS and version < _STORE_BOOLEAN_UNTIL):
            dropped.append(opt)
        else:
            kept.append(opt)
    return kept, dropped


def _number(text: str | None, kind: type) -> int | float | None:
    if text is None:
        return None
    raw = text.strip()
    scale = 1
    if kind is int and raw[-1:] in ("k", "m", "g", "K", "M", "G"):
        # vLLM's human-readable ints: lower case is decimal (1k = 1000), upper case binary (1K = 1024)
        scale = {"k": 1000, "m": 1000**2, "g": 1000**3, "K": 1024, "M": 1024**2, "G": 1024**3}[raw[-1]]
        raw = raw[:-1]
    try:
        value = float(raw) * scale
    except ValueError:
        return None
    if not math.isfinite(value):
        return None
    return int(value) if kind is int else value

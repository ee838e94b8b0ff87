"""Quick fixes for SGLang deployments: a record's ``fix_edit`` as text edits of the launch (the language server's
quick fix, the site's before/after), and ``{set:KEY=VALUE}`` spelled as SGLang's command line writes it."""

from __future__ import annotations

from typing import Any, NamedTuple

from relialint.core.deployment import Deployment
from relialint.core.facts import Value
from relialint.engines.sglang import Launch, recognise
from relialint.engines.sglang_args import Parsed, parse_args
from relialint.readers.located import FileResult


class FixFlag(NamedTuple):
    """How a quick fix sets a fact on SGLang's command line: the option, and for a switch the value it gives (the
    other value has no switch to write: removing one is not offered)."""

    option: str
    switch: Value | None = None
    lower: bool = False
    off: str | None = None
    """For a value that turns something off (``chunked_prefill.enabled`` false): the value to write."""


FIX_FLAGS: dict[str, FixFlag] = {
    "attention.backend": FixFlag("attention-backend", lower=True),
    "kv_cache.dtype": FixFlag("kv-cache-dtype"),
    "serve.dtype": FixFlag("dtype"),
    "moe.backend": FixFlag("moe-runner-backend"),
    "model.quantization": FixFlag("quantization"),
    "memory.gpu_utilization": FixFlag("mem-fraction-static"),
    "limits.max_model_len": FixFlag("context-length"),
    "limits.max_num_seqs": FixFlag("max-running-requests"),
    "sglang.chunked_prefill_size": FixFlag("chunked-prefill-size"),
    "sglang.cuda_graph_max_bs": FixFlag("cuda-graph-max-bs"),
    "sglang.max_total_tokens": FixFlag("max-total-tokens"),
    "prefix_caching.enabled": FixFlag("disable-radix-cache", switch=False),
    "cuda_graphs.enabled": FixFlag("disable-cuda-graph", switch=False),
    "torch_compile.enabled": FixFlag("enable-torch-compile", switch=True),
    "sglang.dp_attention": FixFlag("enable-dp-attention", switch=True),
    "chunked_prefill.enabled": FixFlag("chunked-prefill-size", off="-1"),
}
"""Facts a quick fix can set, by the option that sets them."""


def _spelled(key: str, value: Any) -> list[str] | None:
    """The words that set ``key`` to ``value``; ``None`` where no option does (a switch's other value)."""
    from relialint.engines import fixedit

    fix = FIX_FLAGS.get(key)
    if fix is None:
        return None
    if fix.switch is not None:
        return [f"--{fix.option}"] if value == fix.switch else None
    if fix.off is not None:
        return [f"--{fix.option}", fix.off] if value is False else None
    text = fixedit.render_value(value)
    return [f"--{fix.option}", text.lower() if fix.lower else text]


def setting_text(deployment: Deployment, key: str, value: Any) -> str | None:
    """``key`` set to ``value`` as the user writes it on SGLang's command line (or as a variable)."""
    from relialint.engines import fixedit

    del deployment
    if key.startswith("env."):
        return f"{key[4:]}={fixedit.render_value(value)}"
    words = _spelled(key, value)
    return " ".join(words) if words is not None else None


def fix_edits(result: FileResult, deployment: Deployment, fix_set: Any) -> list[Any] | None:
    """``fix_set`` (fact -> value) as text edits of this deployment's launch, or ``None`` when one of them cannot be
    made as a pure, safe edit (a value from a variable, a switch to remove, an unhandled syntax)."""
    from relialint.engines import fixedit, sglang_checks

    launch = next((found for command in result.commands
                   if (found := recognise(command)) is not None and found.start.span == deployment.span), None)
    if launch is None:
        return None
    parsed = parse_args(launch.args, sglang_checks.takes_value, sglang_checks.expand)
    lines = fixedit.lines_of(result.text)
    edits: list[fixedit.TextEdit] = []
    for key, value in fix_set.items():
        edit: fixedit.TextEdit | None
        if key.startswith("env."):
            edit = fixedit.set_env(result, launch.command, key[4:], fixedit.render_value(value))
        else:
            edit = _flag_edit(lines, result, launch, parsed, deployment, key, value)
        if edit is None:
            return None
        edits.append(edit)
    return edits


def _flag_edit(lines: list[str], result: FileResult, launch: Launch, parsed: Parsed, deployment: Deployment,
               key: str, value: Any) -> Any:
    from relialint.engines import fixedit

    words = _spelled(key, value)
    fix = FIX_FLAGS.get(key)
    if words is None or fix is None:
        return None
    written = [opt for opt in parsed.opts if opt.name == fix.option]
    if written:
        opt = written[-1]
        if len(words) == 1:
            return None  # the switch is already written: nothing to add
        if opt.equals:
            return fixedit.replace_after_equals(lines, opt.flag.span, words[1]) if opt.flag.source is None else None
        if opt.value_word is None or opt.value_word is opt.flag:
            return None
        return fixedit.replace_word(lines, opt.value_word, words[1])
    current = deployment.facts.get(key)
    if current is not None and current.origin not in ("default", "inferred"):
        return None  # set another way (an env var): adding the option would not be the same edit
    return fixedit.append_words(lines, result, launch.command.argv or [launch.start], words)

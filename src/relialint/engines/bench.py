"""Benchmark runs (``vllm bench serve``, ``llama-bench``, ``guidellm``, ``genai-perf``, SGLang's
``python -m sglang.bench_serving``) as deployments with ``bench.*`` facts, and whether GPU clocks were locked
(``nvidia-smi -lgc``) earlier in the same script."""

from __future__ import annotations

import re

from relialint.core.deployment import Deployment
from relialint.core.facts import Fact
from relialint.engines.common import FileOpener, at, program, word_fact
from relialint.readers.located import Command, FileResult, Span, Word

VLLM_DEFAULT_PERCENTILES = "99"
SGLANG_PERCENTILES = "50,99"
"""What every SGLang ``bench_serving`` prints, with no option to change it: the median and P99 of end-to-end
latency, TTFT and TPOT (python/sglang/bench_serving.py); it has no duration option."""
SGLANG_MODULES = {"sglang.bench_serving": "sglang-bench-serving"}


def _clock_lock(command: Command) -> Span | None:
    words = command.argv
    if not words or program(words[0]) != "nvidia-smi":
        return None
    for word in words[1:]:
        text = word.text or ""
        if text in ("-lgc", "--lock-gpu-clocks") or text.startswith(("--lock-gpu-clocks=", "-lgc=")):
            return word.span
    return None


def _tool(words: list[Word]) -> tuple[str, int] | None:
    if not words:
        return None
    head = program(words[0])
    if head == "vllm" and len(words) > 2 and words[1].text == "bench" and words[2].text in ("serve", "throughput",
                                                                                            "latency"):
        return f"vllm-bench-{words[2].text}", 3
    if head in ("llama-bench", "llama-batched-bench"):
        return head, 1
    if head == "llama" and len(words) > 1 and words[1].text in ("bench", "batched-bench"):
        return f"llama-{words[1].text}", 2
    if head == "guidellm" and len(words) > 1 and words[1].text == "benchmark":
        return "guidellm", 2
    if head == "genai-perf":
        return "genai-perf", 1
    if re.fullmatch(r"python(\d(\.\d+)?)?", head) and len(words) > 2 and words[1].text == "-m" \
            and words[2].text in SGLANG_MODULES:
        return SGLANG_MODULES[words[2].text or ""], 3
    return None


def _value(words: list[Word], names: tuple[str, ...]) -> tuple[str | None, Word] | None:
    found = None
    for index, word in enumerate(words):
        text = word.text or ""
        for name in names:
            if text == name and index + 1 < len(words):
                found = (words[index + 1].text, word)
            elif text.startswith(name + "="):
                found = (text.split("=", 1)[1], word)
    return found


def extract(result: FileResult, opener: FileOpener | None, limit: int | None = None) -> list[Deployment]:
    del opener
    deployments: list[Deployment] = []
    locked: Span | None = None
    for command in result.commands:
        if limit is not None and len(deployments) >= limit:
            break  # a generated file: the first deployments are enough (the caller says the rest are left out)
        span = _clock_lock(command)
        if span is not None:
            locked = span
            continue
        # a container with an entrypoint override runs entrypoint + args (Kubernetes `command:`)
        words = command.entrypoint + command.argv if command.entrypoint is not None else command.argv
        found = _tool(words)
        if found is None:
            continue
        tool, start = found
        args = words[start:]
        deployment = Deployment("bench", result.kind, words[0].span)
        facts = deployment.facts
        facts.set("bench.tool", at(tool, "flag", words[0].span))
        if locked is not None:
            facts.set("bench.clocks_locked", at(True, "inferred", locked, "nvidia-smi --lock-gpu-clocks earlier"))
        elif command.argv_complete:
            facts.set("bench.clocks_locked", at(False, "inferred", words[0].span,
                                                "no nvidia-smi --lock-gpu-clocks before this benchmark"))
        if tool.startswith("vllm-bench"):
            pct = _value(args, ("--metric-percentiles",))
            if pct is not None and pct[0] is not None:
                _percentiles(deployment, pct[0], pct[1])
            elif command.argv_complete:
                facts.set("bench.percentiles", Fact(VLLM_DEFAULT_PERCENTILES, "default"))
                facts.set("bench.reports_tail", Fact(True, "default"))
        if tool.startswith("sglang-bench") and command.argv_complete:
            facts.set("bench.percentiles", Fact(SGLANG_PERCENTILES, "default"))
            facts.set("bench.reports_tail", Fact(True, "default"))
        duration = _value(args, ("--max-seconds", "--duration", "--measurement-interval"))
        if duration is not None and duration[0] is not None:
            seconds = _seconds(duration[0], duration[1].text or "")
            if seconds is not None:
                facts.set("bench.duration_s", word_fact(seconds, "flag", duration[1]))
        deployments.append(deployment)
    return deployments


def _percentiles(deployment: Deployment, text: str, word: Word) -> None:
    values = [p.strip() for p in text.split(",") if p.strip()]
    deployment.facts.set("bench.percentiles", word_fact(",".join(values), "flag", word))
    try:
        tail = any(float(p) > 50 for p in values)
    except ValueError:
        return
    deployment.facts.set("bench.reports_tail", word_fact(tail, "flag", word))


def _seconds(text: str, flag: str) -> float | None:
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*(ms|s|m|min|h)?", text.strip())
    if not match:
        return None
    value = float(match.group(1))
    unit = match.group(2) or ("ms" if flag.startswith("--measurement-interval") else "s")
    return value * {"ms": 0.001, "s": 1, "m": 60, "min": 60, "h": 3600}[unit]

"""SGLang: launch forms (``python -m sglang.launch_server``, ``sglang serve`` from 0.5.5, the router's
``python -m sglang_router.launch_server`` whose worker options are SGLang's, ``lmsysorg/sglang`` images), and the
mapping of parsed options and env vars onto facts (the fact contract of issue 26). The parser's rules are in
``sglang_args``; option and variable checks and defaults by release in ``sglang_checks``."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, NamedTuple

from relialint.base import lazyre
from relialint.core.deployment import Deployment
from relialint.core.facts import Fact, FactSet, Origin, Value, Withheld
from relialint.core.versions import Version, VersionError, parse_in_family
from relialint.engines import evidence
from relialint.engines.common import (
    FileOpener,
    apply_env,
    at,
    checkpoint_facts,
    extract_launches,
    model_facts,
    pip_pin,
    program,
    word_fact,
)
from relialint.engines.sglang_args import Opt, Parsed, number, parse_args
from relialint.readers.located import Command, FileResult, Span, Word

SERVER_MODULE = "sglang.launch_server"
ROUTER_MODULE = "sglang_router.launch_server"
CLI_MODULE = "sglang.cli.main"
SERVE_SINCE = "0.5.5"
SERVE_NOTE = ("`sglang serve` is the console script `sglang = sglang.cli.main:main` of the wheels' entry_points.txt, "
              "first in 0.5.5")

_IMAGE = lazyre.compile(r"^(?:[\w.\-]+(?::\d+)?/)*(?P<repo>lmsysorg/sglang)(?::(?P<tag>[\w.\-]+))?(?:@.*)?$")
_TAG_VERSION = lazyre.compile(r"^v?(\d+\.\d+\.\d+(?:\.\d+|\.post\d+)?(?:rc\d+)?)(?=$|-)")
_ROLLING = ("latest", "dev", "nightly")
_OTHER_PLATFORMS = frozenset({"musa", "hpu", "gaudi", "tpu", "mlu", "vulkan", "metal", "mps", "rocm"})
"""Tag words of platforms besides those read above: a tag with one says nothing of CUDA."""
_PYTHON = lazyre.compile(r"python(\d(\.\d+)?)?")


class Launch(NamedTuple):  # a NamedTuple: cheaper to create at start-up than a dataclass
    command: Command
    form: str  # "launch_server" | "serve" | "router"
    args: list[Word]
    start: Word
    image: Word | None = None
    inferred: None = None


def recognise(command: Command) -> Launch | None:
    """An SGLang server launch: the program words (after an image's entrypoint, if any), else nothing. An
    ``lmsysorg/sglang`` image with no launch command runs no server (its image command is a shell)."""
    if command.kind == "env":
        return None
    words = (command.entrypoint or []) + command.argv if command.image is not None else command.argv
    launch = _recognise_words(command, words)
    if launch is not None and command.image is not None and _IMAGE.match(command.image.text or ""):
        return launch._replace(image=command.image)
    return launch


def _recognise_words(command: Command, words: list[Word]) -> Launch | None:
    if not words:
        return None
    head = program(words[0])
    if head == "sglang" and len(words) > 1 and words[1].text == "serve":
        return _serve(command, words[2:], words[0])
    rest = words[1:]
    if head == "uv" and rest and rest[0].text == "run":
        rest = rest[1:]
        while rest and (rest[0].text or "").startswith("-"):
            rest = rest[1:]
        if rest and _PYTHON.fullmatch(program(rest[0])):
            rest = rest[1:]
    elif not (_PYTHON.fullmatch(head) or (head == "" and words[0].text is None)):
        return None
    for index, word in enumerate(rest[:-1]):
        if word.text != "-m":
            continue
        module = rest[index + 1].text
        if module == SERVER_MODULE:
            return Launch(command, "launch_server", rest[index + 2:], words[0])
        if module == ROUTER_MODULE:
            return Launch(command, "router", rest[index + 2:], words[0])
        if module == CLI_MODULE and len(rest) > index + 2 and rest[index + 2].text == "serve":
            return _serve(command, rest[index + 3:], words[0])
        return None
    return None


def _serve(command: Command, args: list[Word], start: Word) -> Launch | None:
    """``sglang serve``: the language-model server, unless ``--model-type`` picks another backend (from 0.5.10rc0
    sglang/cli/serve.py takes the option out of the arguments and hands the rest to the backend it names: ``llm``,
    ``diffusion`` or an installed plug-in's; ``auto`` detects a diffusion model by its files)."""
    kept: list[Word] = []
    index = 0
    while index < len(args):
        text = args[index].text or ""
        if text == "--model-type" and index + 1 < len(args):
            if args[index + 1].text not in ("llm", "auto", None):  # a value not seen: the common llm server
                return None  # a diffusion or plug-in server: not SGLang's language-model server
            index += 2
            continue
        if text.startswith("--model-type="):
            if text.split("=", 1)[1] not in ("llm", "auto"):
                return None
            index += 1
            continue
        kept.append(args[index])
        index += 1
    return Launch(command, "serve", kept, start)


# -- images ---------------------------------------------------------------------------------------------------------


class ImageFacts(NamedTuple):
    version: Version | None
    rolling: bool
    backend: str | None
    arch: str | None


def image_facts(image: str) -> ImageFacts | None:
    """What an ``lmsysorg/sglang`` tag says: the release (``v0.4.6.post1-cu124``), a tag that follows the newest
    release or the development branch (``latest``, ``dev``, ``nightly-*``), the backend (``rocm``, ``-mi30x`` /
    ``-mi35x``: hip; ``cuNNN``: cuda; ``-cpu`` / ``xeon``: cpu; ``npu`` / ``ascend``: npu; ``xpu``; no platform
    word at all: cuda, SGLang's default build) and the AMD target the ROCm builds are for (``mi30x``: gfx942,
    ``mi35x``: gfx950). ``None``: not SGLang's image."""
    match = _IMAGE.match(image)
    if not match:
        return None
    tag = (match.group("tag") or "latest").lower()
    version: Version | None = None
    found = _TAG_VERSION.match(tag)
    if found:
        try:
            version = parse_in_family(False, found.group(1))
        except VersionError:
            version = None
    parts = re.split(r"[-_]", tag)
    rolling = version is None and (parts[0] in _ROLLING or tag.startswith("nightly"))
    backend: str | None = None
    arch: str | None = None
    if "rocm" in tag or "mi30x" in parts or "mi35x" in parts:
        backend = "hip"
        arch = "gfx942" if "mi30x" in parts else "gfx950" if "mi35x" in parts else None
    elif any(re.fullmatch(r"cu\d+", p) for p in parts):
        backend = "cuda"
    elif "cpu" in parts or "xeon" in parts:
        backend = "cpu"
    elif "npu" in parts or "ascend" in parts or any(p.startswith("cann") for p in parts):
        backend = "npu"
    elif "xpu" in parts:
        backend = "xpu"
    elif not any(p in _OTHER_PLATFORMS for p in parts):
        backend = "cuda"  # SGLang's images without a platform suffix (`latest`, `v0.5.18`, `dev`) are CUDA builds
    return ImageFacts(version, rolling, backend, arch)


# -- facts ----------------------------------------------------------------------------------------------------------


def extract(result: FileResult, opener: FileOpener | None, limit: int | None = None) -> list[Deployment]:
    pins = _PipPins()

    def apply(deployment: Deployment, command: Command, launch: Launch) -> None:
        _apply_launch(deployment, command, launch, opener, pins.pinned)

    return extract_launches(result, "sglang", limit, recognise, apply, pins.observe)


class _PipPins:
    """The latest ``pip install sglang...`` pin of the file so far: a version, or a PEP 440 specifier."""

    pinned: tuple[Version | str, Span] | None = None

    def observe(self, command: Command) -> bool:
        pin = pip_pin(command, "sglang")
        if pin is not None:
            self.pinned = pin
        return pin is not None


def _apply_launch(deployment: Deployment, command: Command, launch: Launch, opener: FileOpener | None,
                  pinned: tuple[Version | str, Span] | None) -> None:
    from relialint.engines import sglang_checks

    facts = deployment.facts
    facts.set("sglang.launch_form", word_fact(launch.form, "inferred", launch.start))
    clues = _version_facts(facts, launch, pinned)
    apply_env(deployment, command, ("SGLANG_", "SGL_"))
    _apply_args(deployment, launch, opener)
    _releasable(facts)
    if facts.get("engine.version") is None and facts.get("engine.version_range") is None:
        # the options the launch passes say which releases it can run on (any other refuses to start)
        window = sglang_checks.options_range(deployment)
        if launch.form == "serve":
            floor = f">={SERVE_SINCE}"
            ceiling = [part for part in (window[0].split(",") if window is not None else []) if part.startswith("<")]
            spec = ",".join([floor, *ceiling])
            facts.set("engine.version_range", word_fact(spec, "inferred", launch.start, SERVE_NOTE))
        elif window is not None:
            spec, word, why = window
            facts.set("engine.version_range", word_fact(spec, "inferred", word, why))
    evidence.apply(deployment, clues + evidence.command_clues(command, deployment.kind))


def _version_facts(facts: FactSet, launch: Launch, pinned: tuple[Version | str, Span] | None
                   ) -> list[evidence.Clue]:
    """The release the launch runs, from the first that says: the image's tag, a ``pip install`` pin earlier in the
    file, a rolling tag (the newest release or later); the clues the tag gives about the accelerator."""
    from relialint.engines import sglang_checks

    clues: list[evidence.Clue] = []
    said = image_facts(launch.image.text or "") if launch.image is not None else None
    if launch.image is not None and said is not None:
        image = launch.image
        if said.version is not None:
            facts.set("engine.version", word_fact(said.version, "image", image,
                                                  f"SGLang version read from the image tag {image.text}"))
        if said.backend is not None:
            why = f"the SGLang image {image.text} is a {said.backend} build"
            clues.append(evidence.Clue("engine.backend", said.backend, "image", image.span, why, image.source))
        if said.arch is not None:
            why = f"the SGLang image {image.text} is built for {said.arch}"
            clues.append(evidence.Clue("gpu.arch", said.arch, "image", image.span, why, image.source))
    if facts.get("engine.version") is not None:
        return clues
    if pinned is not None and isinstance(pinned[0], str):
        facts.set("engine.version_range", at(pinned[0], "inferred", pinned[1],
                                             "pip install requirement earlier in the file"))
    elif pinned is not None:
        facts.set("engine.version", at(pinned[0], "inferred", pinned[1], "pip install pin earlier in the file"))
    elif launch.image is not None and said is not None and said.rolling:
        newest = sglang_checks.newest()
        if newest is not None:
            facts.set("engine.version_range", word_fact(
                f">={newest}", "image", launch.image,
                f"the {launch.image.text} tag pulls the newest release or the development branch ({newest} or "
                "later)"))
    return clues


def _releasable(facts: FactSet) -> None:
    """``memory.releasable``: SGLang frees its GPU memory while running (``/release_memory_occupation``) only with
    ``--enable-memory-saver``; without it the scheduler's memory saver is a no-op
    (``TorchMemorySaverAdapter.create(enable)`` gives ``_TorchMemorySaverAdapterNoop``, sglang/srt/utils/
    torch_memory_saver_adapter.py, 0.5.4). Unknown where the option is unknown."""
    flag = facts.get("flag.sglang.enable-memory-saver")
    if flag is None or isinstance(flag.value, Withheld):
        return
    if flag.value is None:
        facts.set("memory.releasable", Fact(False, "inferred", note="no --enable-memory-saver: releasing memory "
                                                                    "frees nothing"))
    else:
        facts.set("memory.releasable", Fact(True, "flag", flag.path, flag.line, flag.column, flag.end_line,
                                            flag.end_column, note="--enable-memory-saver: "
                                            "/release_memory_occupation frees the GPU memory while the server runs"))


def _apply_args(deployment: Deployment, launch: Launch, opener: FileOpener | None) -> None:
    """The launch's arguments as facts: each option as written (``flag.sglang.*``), the model, and the facts the
    options set (:data:`OPTION_RULES`)."""
    from relialint.engines import sglang_checks

    facts = deployment.facts
    parsed = parse_args(launch.args, sglang_checks.takes_value, sglang_checks.expand)
    opts = [opt for opt in parsed.opts if not (launch.form == "router" and opt.name.startswith("router-"))]
    sglang_checks.record_launch(deployment, opts)
    config = next((opt for opt in opts if opt.name == "config"), None)
    if config is not None:
        # from 0.5.3rc2 `--config FILE` merges a YAML file's options into the command line (prepare_server_args,
        # server_args_config_parser.py): they are not read here, so any option may be set
        deployment.notes.append(f"--config {config.value or '(value not seen)'}: the options of the file are not "
                                "read; any option may be set there")
    complete = parsed.complete and launch.command.argv_complete and config is None
    if complete:
        facts.closed.add("flag.sglang.")
    last = _written_options(facts, opts)
    _apply_model(deployment, launch, parsed, last, opener)
    for name, rule in OPTION_RULES.items():
        opt = last.get(name)
        if opt is None:
            continue
        if not opt.known:
            for key in rule.keys:
                facts.unknown(key)
            continue
        for key, value in rule.facts(opt):
            _option_fact(facts, opt, key, value)
    if not complete and config is None:
        deployment.notes.append("arguments spliced from a variable: options not seen may still be set")


def _written_options(facts: FactSet, opts: list[Opt]) -> dict[str, Opt]:
    """Each option as written, ``flag.sglang.NAME`` (unknown where its value is not seen); the last occurrence of
    each option, the one ``argparse`` keeps."""
    last: dict[str, Opt] = {}
    for opt in opts:
        last[opt.name] = opt
        key = f"flag.sglang.{opt.name}"
        if opt.known:
            facts.set(key, word_fact(opt.value if opt.value is not None else "true", "flag", opt.flag))
            continue
        held = opt.value_word.held_by if opt.value_word is not None else None
        if held is not None:
            facts.set(key, word_fact(Withheld(held), "flag", opt.flag, "the value is not in the file"))
        else:
            facts.unknown(key)
    return last


def _option_fact(facts: FactSet, opt: Opt, key: str, value: Value) -> None:
    origin: Origin = "flag"
    source = opt.value_word.source if opt.value_word is not None and opt.value_word is not opt.flag else None
    facts.set(key, word_fact(value, origin, opt.flag, source=source))


def _apply_model(deployment: Deployment, launch: Launch, parsed: Parsed, last: dict[str, Opt],
                 opener: FileOpener | None) -> None:
    """``model.name`` (``--model-path``, or ``sglang serve MODEL``, which the CLI turns into ``--model-path``) and
    what the name and a local checkpoint's ``config.json`` give away; before the options' facts, so that
    ``--quantization`` wins over what the name suggests."""
    facts = deployment.facts
    word: Word | None = None
    opt = last.get("model-path")
    if opt is not None and opt.value_word is not None:
        word = Word(opt.value, opt.flag.span, source=opt.flag.source) if opt.equals else opt.value_word
    elif launch.form == "serve" and parsed.positionals:
        word = parsed.positionals[0]
    if word is None or word.text is None:
        if opt is not None and not opt.known:
            facts.unknown("model.name")
        return
    for key, fact in model_facts(word.text, word).items():
        facts.set(key, fact)
    for key, fact in checkpoint_facts(word.text, deployment.path, opener, deployment.notes).items():
        facts.set(key, fact)


# -- the facts each option sets -------------------------------------------------------------------------------------


class OptionRule(NamedTuple):  # a NamedTuple: cheaper to create at start-up than a dataclass
    """What one SGLang option sets: every fact it can set (all unknown when its value is not seen) and the facts
    of its last occurrence."""

    keys: tuple[str, ...]
    facts: Callable[[Opt], list[tuple[str, Value]]]


def _one(key: str, convert: Callable[[Opt], Value | None]) -> OptionRule:
    def facts(opt: Opt) -> list[tuple[str, Value]]:
        value = convert(opt)
        return [] if value is None else [(key, value)]

    return OptionRule((key,), facts)


def _as_written(opt: Opt) -> str | None:
    return opt.value or None


def _lower(opt: Opt) -> str | None:
    return opt.value.lower() if opt.value else None


def _upper(opt: Opt) -> str | None:
    return opt.value.upper() if opt.value else None


def _integer(opt: Opt) -> Value | None:
    return number(opt.value, int)


def _fraction(opt: Opt) -> Value | None:
    return number(opt.value, float)


def _switch(value: bool) -> Callable[[Opt], Value | None]:
    """A ``store_true`` switch: ``value`` when written (with no value; a value written with ``=`` is refused by
    argparse, so nothing is set)."""
    return lambda opt: value if opt.value is None else None


def _chunked(opt: Opt) -> list[tuple[str, Value]]:
    size = number(opt.value, int)
    if not isinstance(size, int):
        return []
    return [("sglang.chunked_prefill_size", size), ("chunked_prefill.enabled", size != -1)]


_SPEC_METHODS = {"EAGLE": "eagle", "EAGLE3": "eagle3", "NEXTN": "mtp", "MTP": "mtp", "STANDALONE": "draft_model",
                 "NGRAM": "ngram", "LOOKAHEAD": "ngram"}


def _speculative(opt: Opt) -> list[tuple[str, Value]]:
    """``--speculative-algorithm``: speculative decoding on, with the method by the facts' names (NEXTN is SGLang's
    MTP, STANDALONE a separate draft model); a name not listed leaves the method unset."""
    if not opt.value:
        return []
    out: list[tuple[str, Value]] = [("spec_decode.enabled", True)]
    method = _SPEC_METHODS.get(opt.value.upper())
    if method is not None:
        out.append(("spec_decode.method", method))
    return out


OPTION_RULES: dict[str, OptionRule] = {
    "tensor-parallel-size": _one("parallel.tensor", _integer),
    "pipeline-parallel-size": _one("parallel.pipeline", _integer),
    "data-parallel-size": _one("parallel.data", _integer),
    "expert-parallel-size": _one("parallel.expert", _integer),
    "enable-dp-attention": _one("sglang.dp_attention", _switch(True)),
    "quantization": _one("model.quantization", _lower),
    "dtype": _one("serve.dtype", _as_written),
    "kv-cache-dtype": _one("kv_cache.dtype", _as_written),
    "attention-backend": _one("attention.backend", _upper),
    "prefill-attention-backend": _one("sglang.prefill_attention_backend", _upper),
    "decode-attention-backend": _one("sglang.decode_attention_backend", _upper),
    "mem-fraction-static": _one("memory.gpu_utilization", _fraction),
    "context-length": _one("limits.max_model_len", _integer),
    "max-running-requests": _one("limits.max_num_seqs", _integer),
    "max-total-tokens": _one("sglang.max_total_tokens", _integer),
    "chunked-prefill-size": OptionRule(("sglang.chunked_prefill_size", "chunked_prefill.enabled"), _chunked),
    "max-prefill-tokens": _one("sglang.max_prefill_tokens", _integer),
    "disable-radix-cache": _one("prefix_caching.enabled", _switch(False)),
    "disable-cuda-graph": _one("cuda_graphs.enabled", _switch(False)),
    "cuda-graph-max-bs": _one("sglang.cuda_graph_max_bs", _integer),
    "enable-torch-compile": _one("torch_compile.enabled", _switch(True)),
    "speculative-algorithm": OptionRule(("spec_decode.enabled", "spec_decode.method"), _speculative),
    "speculative-num-draft-tokens": _one("spec_decode.num_tokens", _integer),
    "speculative-draft-model-path": _one("spec_decode.draft_model", _as_written),
    "speculative-num-steps": _one("sglang.speculative_num_steps", _integer),
    "speculative-eagle-topk": _one("sglang.speculative_eagle_topk", _integer),
    "moe-runner-backend": _one("moe.backend", _as_written),
    "moe-a2a-backend": _one("sglang.moe_a2a_backend", _as_written),
    "sampling-backend": _one("sglang.sampling_backend", _as_written),
    "grammar-backend": _one("sglang.grammar_backend", _as_written),
}
"""The facts each SGLang option sets (by the spelling :data:`sglang_args.ALIASES` gives), in the order applied."""
OPTION_FACTS: dict[str, tuple[str, ...]] = {name: rule.keys for name, rule in OPTION_RULES.items()}
"""Option -> every fact it can set (the site and the quick fixes name the options that decide a fact)."""


# -- fixes as edits (records' `fix_edit`, for editors) --------------------------------------------------------------


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

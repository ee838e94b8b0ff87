"""SGLang: launch forms (``python -m sglang.launch_server``, ``sglang serve`` from 0.5.5, the router's
``python -m sglang_router.launch_server`` whose worker options are SGLang's, ``lmsysorg/sglang`` images), and the
mapping of parsed options and env vars onto facts (the fact contract of issue 26). The parser's rules are in
``sglang_args``; option and variable checks in ``sglang_checks``, defaults by release in ``sglang_defaults``, quick
fixes in ``sglang_fixes``."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from relialint.base import lazyre
from relialint.base.plain import replace
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
    serve_facts,
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
    serve_facts(deployment, "flag.sglang.", ("api-key",), ())
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
    evidence.container_facts(deployment, command)


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
    config = next((opt for opt in parsed.opts if opt.name == "config"), None)
    unread = False
    if config is not None:
        config_words = _config_words(config, deployment, opener)
        if config_words is None:
            unread = True
        else:
            # the file's options go first, so that the command line wins (ConfigArgumentMerger)
            merged = parse_args(config_words + [w for w in launch.args if not _is_config_word(w, config)],
                                sglang_checks.takes_value, sglang_checks.expand)
            for merged_opt in merged.opts:
                merged_opt.from_config = any(merged_opt.flag is word for word in config_words)
            merged.opts.append(config)  # the option itself (0.5.3rc2 on) still narrows the releases
            parsed = merged
    opts = [opt for opt in parsed.opts if not (launch.form == "router" and opt.name.startswith("router-"))]
    sglang_checks.record_launch(deployment, opts)
    complete = parsed.complete and launch.command.argv_complete and not unread
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
    if not complete and not unread:
        deployment.notes.append("arguments spliced from a variable: options not seen may still be set")


def _is_config_word(word: Word, config: Opt) -> bool:
    return word is config.flag or word is config.value_word


def _config_words(config: Opt, deployment: Deployment, opener: FileOpener | None) -> list[Word] | None:
    """``--config FILE`` (0.5.3rc2 on): the YAML file's keys as the words ``ConfigArgumentMerger`` puts before the
    command line (sglang/srt/server_args_config_parser.py): ``--KEY VALUE`` with the key as written, a list as its
    items, ``true`` as the bare switch, ``false`` left out for a switch, each word located at its key in the file.
    ``None`` (with a note) where the file is not read: its options are then unknown."""
    from relialint.readers.located import ReadError
    from relialint.readers.yamlsafe import YamlError, YMap, YScalar, YSeq, load_all

    found = opener(deployment.path, config.value) if opener is not None and config.value else None
    if found is None or isinstance(found, ReadError):
        why = "not found" if found is None else found.message
        deployment.notes.append(f"--config {config.value or '(value not seen)'}: {why}; the options of the file "
                                "are unknown")
        return None
    text, display = found
    try:
        docs = load_all(text, display)
    except YamlError:
        docs = []
    if not docs or not isinstance(docs[0], YMap):
        deployment.notes.append(f"--config {config.value}: not a YAML mapping; SGLang refuses it")
        return None
    from relialint.engines import sglang_checks

    words: list[Word] = []
    for key, value in docs[0].items:
        flag = Word(f"--{key.text}", key.span)
        if isinstance(value, YScalar) and isinstance(value.value, bool):
            if value.value:
                words.append(flag)
            elif sglang_checks.takes_value(flag.text or "") is not False:
                words.extend([flag, Word("false", key.span)])
        elif isinstance(value, YSeq):
            items = [Word(str(item.text), item.span) for item in value.items if isinstance(item, YScalar)]
            if items:
                words.extend([flag, *items])
        elif isinstance(value, YScalar) and value.value is not None:
            words.extend([flag, Word(value.text, key.span)])
    return words


def _written_options(facts: FactSet, opts: list[Opt]) -> dict[str, Opt]:
    """Each option as written, ``flag.sglang.NAME`` (unknown where its value is not seen); the last occurrence of
    each option, the one ``argparse`` keeps."""
    last: dict[str, Opt] = {}
    for opt in opts:
        last[opt.name] = opt
        key = f"flag.sglang.{opt.name}"
        origin: Origin = "config-file" if opt.from_config else "flag"
        if opt.known:
            facts.set(key, word_fact(opt.value if opt.value is not None else "true", origin, opt.flag))
            continue
        held = opt.value_word.held_by if opt.value_word is not None else None
        if held is not None:
            facts.set(key, word_fact(Withheld(held), origin, opt.flag, "the value is not in the file"))
        else:
            facts.unknown(key)
    return last


def _option_fact(facts: FactSet, opt: Opt, key: str, value: Value) -> None:
    origin: Origin = "config-file" if opt.from_config else "flag"
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
        from_config = opt is not None and opt.from_config and fact.origin == "flag"
        facts.set(key, replace(fact, origin="config-file") if from_config else fact)
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

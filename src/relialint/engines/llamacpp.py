"""llama.cpp: binaries, images, flags (no ``--flag=value``), ``LLAMA_ARG_*`` variables and build options.

Precedence is config file < environment < command line. ``-fa``/``--flash-attn`` takes a value (on/off/auto)
where the option tables of every build the version allows say so (from b8502, and releases); elsewhere a following
on/off/auto is read as its value (RL506).
"""

from __future__ import annotations

import re

from relialint.base import lazyre
from relialint.base.plain import replace
from relialint.core.deployment import Deployment
from relialint.core.facts import ByVersion, Fact, FactSet
from relialint.core.versions import Version, VersionBound, VersionError, parse_in_family
from relialint.engines import evidence, llamacpp_flags, llamacpp_image
from relialint.engines.common import (
    UNSEEN,
    FileOpener,
    apply_env,
    at,
    extract_launches,
    llama_lora_paths,
    lora_fact,
    model_facts,
    model_slot_variable,
    model_tail_facts,
    program,
    serve_facts,
    word_fact,
)
from relialint.engines.inference import Inferred, engine_of
from relialint.readers.located import Command, EnvVar, FileResult, Span, Word

BINARIES = {"llama-server", "llama-cli", "llama-bench", "llama-perplexity", "server", "main", "llama-completion"}
_IMAGE = lazyre.compile(r"^(?:ghcr\.io/)?(?:ggml-org|ggerganov)/llama\.cpp(?::(?P<tag>[\w.\-]+))?(?:@.*)?$")
_CMAKE_BACKENDS = {"GGML_CUDA": "cuda", "GGML_HIP": "hip", "GGML_HIPBLAS": "hip", "LLAMA_HIPBLAS": "hip",
                   "GGML_VULKAN": "vulkan", "GGML_SYCL": "sycl", "GGML_METAL": "metal", "LLAMA_CUDA": "cuda",
                   "GGML_MUSA": "musa", "LLAMA_METAL": "metal", "LLAMA_SYCL": "sycl", "LLAMA_VULKAN": "vulkan"}
_GPU_OPTION = lazyre.compile(r"^(?:GGML|LLAMA)_(?:CUDA|CUBLAS|HIP|HIPBLAS|VULKAN|SYCL|METAL|MUSA|OPENCL|CLBLAST|CANN|"
                             r"KOMPUTE|WEBGPU|ZDNN|OPENVINO|HEXAGON|RPC)$")
"""A build option that turns on a GPU (or remote) backend: every one of them defaults to OFF on Linux (engine-facts
§8; only Metal defaults ON, on Apple), so a llama.cpp configure line without any of them on builds the CPU backend."""
_OFF = {"OFF", "0", "FALSE", "NO", "N"}
_BUILD_DIR = lazyre.compile(r"(?:^|/)build[-_](rocm|hip|vulkan|cuda|sycl|metal|musa|cpu)(?:/|$)", re.I)
_DIR_BACKENDS = {"rocm": "hip"}
_CMAKE_TARGETS = ("AMDGPU_TARGETS", "GPU_TARGETS", "CMAKE_HIP_ARCHITECTURES")
"""CMake options naming the AMD targets a HIP build is compiled for (llama.cpp's build docs use the first two)."""
# Official release archives: llama-b6400-bin-win-cuda-cu12.4-x64, -win-hip-x64-gfx1100, -win-vulkan-x64,
# -win-sycl-x64, -win-avx2-x64, -ubuntu-x64, -ubuntu-vulkan-x64, -macos-arm64 (the release workflow's asset names)
_RELEASE_DIR = lazyre.compile(r"(?:^|/)llama-(b\d+)-bin-(win|ubuntu|linux|macos)"
                              r"(?:-(cuda|hip|vulkan|sycl|avx512|avx2|avx|noavx|openblas|cpu|kompute))?-?([a-z0-9]*)",
                              re.I)
_RELEASE_BACKENDS = {"cuda": "cuda", "hip": "hip", "vulkan": "vulkan", "sycl": "sycl", "kompute": "vulkan",
                     "avx512": "cpu", "avx2": "cpu", "avx": "cpu", "noavx": "cpu", "openblas": "cpu", "cpu": "cpu"}
_RELEASE_PLAIN = {("ubuntu", "x64"): "cpu", ("linux", "x64"): "cpu", ("macos", "arm64"): "metal",
                  ("macos", "x64"): "cpu"}
FA_VALUES = {"on", "off", "auto", "1", "0", "-1", "enabled", "disabled", "true", "false"}  # the parser's words

# short and long spellings onto one canonical long name; the value-taking ones, with their fact
OPTIONS: dict[str, str] = {
    "-m": "model", "--model": "model", "-ub": "ubatch-size", "--ubatch-size": "ubatch-size",
    "-b": "batch-size", "--batch-size": "batch-size", "-ngl": "n-gpu-layers", "--gpu-layers": "n-gpu-layers",
    "--n-gpu-layers": "n-gpu-layers", "-sm": "split-mode", "--split-mode": "split-mode",
    "-fa": "flash-attn", "--flash-attn": "flash-attn", "-c": "ctx-size", "--ctx-size": "ctx-size",
    "-ctk": "cache-type-k", "--cache-type-k": "cache-type-k", "-ctv": "cache-type-v",
    "--cache-type-v": "cache-type-v", "-ts": "tensor-split", "--tensor-split": "tensor-split",
    "-dev": "device", "--device": "device", "-hf": "hf-repo", "-hfr": "hf-repo", "--hf-repo": "hf-repo",
    "-hff": "hf-file", "--hf-file": "hf-file",
    "-np": "parallel", "--parallel": "parallel", "-t": "threads", "--threads": "threads",
    "--host": "host", "--port": "port", "-mg": "main-gpu", "--main-gpu": "main-gpu",
    "-a": "alias", "--alias": "alias", "--api-key": "api-key", "--api-key-file": "api-key-file",
    "-ot": "override-tensor",
    "--override-tensor": "override-tensor", "-ncmoe": "n-cpu-moe", "--n-cpu-moe": "n-cpu-moe",
    "-lm": "load-mode", "--load-mode": "load-mode", "-fit": "fit", "--fit": "fit",
    "--keep": "keep", "--grammar-file": "grammar-file", "--spec-type": "spec-type",
    "-sp": "special", "--special": "special", "-kvu": "kv-unified", "--kv-unified": "kv-unified",
    "-no-kvu": "kv-unified", "--no-kv-unified": "kv-unified",
    "-v": "verbose", "--verbose": "verbose", "--log-verbose": "verbose",
    "-lv": "verbosity", "--verbosity": "verbosity", "--log-verbosity": "verbosity",
    "--chat-template": "chat-template", "--jinja": "jinja", "--no-jinja": "jinja",
    "-n": "n-predict", "--predict": "n-predict", "--n-predict": "n-predict",
    "--context-shift": "context-shift", "--no-context-shift": "context-shift", "--swa-full": "swa-full",
    "--cache-reuse": "cache-reuse", "-mm": "mmproj", "--mmproj": "mmproj", "-mmu": "mmproj-url",
    "--mmproj-url": "mmproj-url",
    "--rope-scaling": "rope-scaling", "--rope-scale": "rope-scale", "--yarn-orig-ctx": "yarn-orig-ctx",
    "--mlock": "mlock",
}
FACTS = {"ubatch-size": ("llama.ubatch", int), "batch-size": ("llama.batch", int),
         "n-gpu-layers": ("llama.n_gpu_layers", str), "split-mode": ("llama.split_mode", str),
         "flash-attn": ("llama.flash_attn", str), "ctx-size": ("llama.ctx_size", int),
         "cache-type-k": ("kv_cache.dtype", str), "threads": ("llama.threads", int),
         "parallel": ("llama.parallel", int)}
VOID = {"-cb", "--cont-batching", "-nocb", "--no-cont-batching", "--mlock", "--no-mmap", "--mmap", "--jinja",
        "--metrics", "--embedding", "--embeddings", "--verbose", "-v", "--log-verbose", "--no-webui", "--slots",
        "--no-slots",
        "-cmoe", "--cpu-moe", "--direct-io", "--reranking", "--rerank", "-fa-legacy", "--check-tensors",
        "--no-warmup", "--log-disable", "--swa-full", "--kv-unified", "-kvu", "-sp", "--special",
        "--context-shift"}
NEGATED = {"-no-kvu", "--no-kv-unified", "--no-jinja", "--no-context-shift"}
"""Switches that turn an option off: recorded as ``false`` under the option's canonical name (RL320 reads
``flag.llama.cpp.kv-unified``)."""


class Opt:
    name: str
    value: str | None
    flag: Word
    raw: str
    value_word: Word | None = None

    def __init__(self, name: str, value: str | None, flag: Word, raw: str, value_word: Word | None = None) -> None:
        self.name = name
        self.value = value
        self.flag = flag
        self.raw = raw
        self.value_word = value_word


class Launch:
    command: Command
    args: list[Word]
    start: Word
    version: tuple[Version, Word] | None = None
    backend: tuple[str, Word] | None = None
    inferred: Inferred | None = None
    server: bool = False  # llama-server's parser reads the arguments (its option tables apply)

    def __init__(self, command: Command, args: list[Word], start: Word, version: tuple[Version, Word] | None = None,
                 backend: tuple[str, Word] | None = None, inferred: Inferred | None = None,
                 server: bool = False) -> None:
        self.command = command
        self.args = args
        self.start = start
        self.version = version
        self.backend = backend
        self.inferred = inferred
        self.server = server


def recognise(command: Command) -> Launch | None:
    if command.kind == "env":  # an env file on its own configures llama-server when it sets LLAMA_ARG_*
        if any(var.name.startswith("LLAMA_ARG_") for var in command.env):
            return Launch(command, [], Word("llama-server", command.span))
        return None
    if command.image is not None:
        match = _IMAGE.match(command.image.text or "")
        if not match:  # another image: the entrypoint and command may still run a llama.cpp binary
            words = (command.entrypoint or []) + command.argv
            found = recognise(Command(command.kind, words, command.span, command.env, command.env_complete,
                                      argv_complete=command.argv_complete, branch=command.branch)) if words else None
            if found is not None:
                return found
            inferred = engine_of(command)
            if inferred is None or inferred.engine != "llama.cpp":
                return None
            return Launch(command, command.argv, command.image, inferred=inferred)
        tag = llamacpp_image.parse_tag(match.group("tag") or "")
        version = backend = None
        args = command.argv
        if tag is not None:
            if tag.version is not None:
                version = (parse_in_family(True, tag.version), command.image)
            if tag.backend is not None:
                backend = (tag.backend, command.image)
            if tag.kind == "full" and command.entrypoint is None:
                if not args or args[0].text not in ("--server", "-s"):
                    return None
                args = args[1:]
        server = tag is not None and tag.kind in ("server", "full")
        if command.entrypoint is not None:
            words = command.entrypoint + command.argv
            if not words or program(words[0]) not in BINARIES:
                return None
            args = words[1:]
            server = _server_program(words[0])
        return Launch(command, args, command.image, version, backend, server=server)
    words = command.argv
    if not words:
        return None
    head = program(words[0])
    if head in BINARIES and (head not in ("server", "main") or "/" in (words[0].text or "") or len(words) > 1):
        if head in ("server", "main") and not any((w.text or "").startswith("-m") for w in words[1:]):
            return None
        return Launch(command, words[1:], words[0], server=_server_program(words[0]))
    if head == "llama" and len(words) > 1 and words[1].text in ("serve", "server", "cli", "bench", "perplexity"):
        return Launch(command, words[2:], words[0], server=words[1].text in ("serve", "server"))
    return None


def _server_program(word: Word) -> bool:
    return program(word) in ("llama-server", "llama-server.exe")


def parse(args: list[Word], build: Version | None) -> list[Opt]:
    opts: list[Opt] = []
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        text = word.text
        if text is None or not text.startswith("-"):
            continue
        key = text if not text.startswith("--") else "--" + text[2:].replace("_", "-")
        name = OPTIONS.get(key)
        if name is None:
            continue
        if name == "flash-attn":
            nxt = args[i].text if i < len(args) else None
            takes = nxt is not None and nxt in FA_VALUES
            if build is not None and i < len(args) and llamacpp_flags.kinds_of("-fa", build) == {"v"}:
                takes = True  # builds whose option tables all give -fa a value take the next token (RL506)
            if takes:
                opts.append(Opt(name, args[i].text, word, text, args[i]))
                i += 1
            else:
                opts.append(Opt(name, "on", word, text))
            continue
        if key in VOID or key in NEGATED:  # a switch: recorded as set (or, for its negative spelling, as unset)
            opts.append(Opt(name, "false" if key in NEGATED else "true", word, text))
            continue
        if i < len(args):
            opts.append(Opt(name, args[i].text, word, text, args[i]))
            i += 1
    return opts


def extract(result: FileResult, opener: FileOpener | None, limit: int | None = None) -> list[Deployment]:
    del opener
    builds = _Builds()

    def apply(deployment: Deployment, command: Command, launch: Launch) -> None:
        _apply_launch(deployment, command, launch, result.kind, builds, result.interpreter)

    return extract_launches(result, "llama.cpp", limit, recognise, apply, builds.observe)


class _Builds:
    """The ``cmake`` configure lines of the file so far, and their ``-D`` options as ``build.*`` facts (a later
    line's value wins)."""

    lines: list[Build]
    facts: dict[str, tuple[str, Span]]

    def __init__(self) -> None:
        self.lines = []
        self.facts = {}

    def observe(self, command: Command) -> bool:
        configured = _cmake(command, self.facts)
        if configured is not None:
            self.lines.append(configured)
        return False  # a configure line is still shown to `recognise`, like every command


def _apply_launch(deployment: Deployment, command: Command, launch: Launch, kind: str, builds: _Builds,
                  interpreter: Word | None = None) -> None:
    """One launch's facts, in order: its version and backend, the file's build options, its environment and what
    the command and the builds give away, the options its ``LLAMA_ARG_*`` variables set, then its own options
    (which win over the variables)."""
    facts = deployment.facts
    _version_facts(facts, launch)
    if launch.backend:
        facts.set("engine.backend", word_fact(launch.backend[0], "image", launch.backend[1]))
    for key, (value, span) in builds.facts.items():
        facts.set(key, at(value, "build", span))
    if builds.lines:
        facts.closed.add("build.")  # the file configures the build: an option it does not set is not set
    # else the binary comes from elsewhere (an image, a release archive): its build options are unknown
    apply_env(deployment, command, ("LLAMA_ARG_",))
    if launch.inferred is not None and launch.inferred.unseen:
        facts.closed.discard("env.")  # the image's own ENV is not seen either
        deployment.notes.append(UNSEEN)
    platform = evidence.interpreter_clues(interpreter)  # a Termux script: Android, where a build is Linux's
    evidence.apply(deployment, evidence.command_clues(command, kind) + platform
                   + _build_clues(builds.lines, launch.start, kind == "dockerfile" or bool(platform)))
    evidence.container_facts(deployment, command)
    setattr(deployment, _ENV, (list(command.env), _version(facts)))
    _env_options(facts, command.env, _version(facts), [w.text for w in launch.args] if launch.server else [])
    llamacpp_flags.record_launch(deployment, launch.args)
    if launch.server:
        setattr(deployment, _WORDS, list(launch.args))
    _option_facts(facts, parse(launch.args, launch.version[0] if launch.version else None))
    if launch.server:
        _env_overridden(facts, command.env)
    if _complete(launch):
        facts.closed.add("flag.llama.cpp.")
        if "env." not in facts.closed and launch.server:
            _env_open_options(facts, [w.text for w in launch.args], _version(facts))
    serve_facts(deployment, "flag.llama.cpp.", ("api-key", "api-key-file"), ("LLAMA_API_KEY", "LLAMA_ARG_API_KEY_FILE"),
                env_sets=False, host_env=("LLAMA_ARG_HOST",))
    lora_fact(deployment, llama_lora_paths(launch.args) if launch.server else [], "flag.llama.cpp." in facts.closed)


def _version_facts(facts: FactSet, launch: Launch) -> None:
    """The build the launch runs: the image's tag, else the release archive the program was unpacked from."""
    if launch.version:
        facts.set("engine.version", word_fact(launch.version[0], "image", launch.version[1]))
        return
    released = release_build(launch.start)
    if released is not None:
        facts.set("engine.version", at(released, "build", launch.start.span,
                                       "the build number of the release archive the program is in"))


def _env_options(facts: FactSet, env: list[EnvVar], version: Version | None, words: list[str | None]) -> None:
    """The options ``LLAMA_ARG_*`` variables set (``flag.llama.cpp.*``, their facts, the model) in the builds the
    deployment may run (``llamacpp_flags.env_effect``, build by build), with the variable and the builds in each
    fact's note. Where every one of them sets the same value, the option is set. Where some builds do nothing with
    the variable (they do not read it, or ignore its value: RL527 reports those builds), the option as written
    (``flag.llama.cpp.*``) is unknown, and its typed fact (:data:`FACTS`, ``llama.flash_attn``) takes the value of
    the builds that apply it, the only value the variable ever sets. Where the builds that apply it set different
    values, both are unknown. A flag on the command line wins (applied after, and never replaced here)."""
    pool = llamacpp_flags.env_pool(words, version)
    read = llamacpp_flags.table().env
    for var in env:
        if var.value is None or var.name not in read:
            continue
        effects = [llamacpp_flags.env_effect(var.name, var.value, i) for i in pool]
        applied = [(i, e) for i, e in zip(pool, effects, strict=True) if e.kind == "set"]
        named = {(OPTIONS.get(e.option or ""), _env_value(e.option, e.value)) for _, e in applied}
        for name, value in named:
            if name is None:
                continue
            key = f"flag.llama.cpp.{name}"
            current = facts.get(key)
            if current is not None and current.origin == "flag":
                continue
            builds = [i for i, e in applied if OPTIONS.get(e.option or "") == name]
            option = next(e.option for _, e in applied if OPTIONS.get(e.option or "") == name)
            note = llamacpp_flags.env_note(var.name, option or f"--{name}", builds)
            if len(named) > 1:  # the builds that apply it set different values
                facts.unknown(key)
                if name in FACTS:
                    facts.unknown(FACTS[name][0])
                continue
            if len(builds) < len(pool):
                facts.unknown(key)
            else:
                facts.set(key, at(value, "env", var.span, note))
            if name in FACTS and value is not None:
                fact_key, kind = FACTS[name]
                typed = _typed(value, kind)
                if typed is not None:
                    facts.set(fact_key, at(typed, "env", var.span, note))
            if name in ("model", "hf-repo") and value:  # LLAMA_ARG_MODEL / LLAMA_ARG_HF_REPO
                for fact_key, fact in model_facts(value, Word(value, var.span, source=var.source),
                                                  name == "hf-repo").items():
                    facts.set(fact_key, replace(fact, origin="env") if fact_key == "model.name" else fact)


def _env_open_options(facts: FactSet, words: list[str | None], version: Version | None) -> None:
    """Where the environment is open (a Windows launcher, a Dockerfile's image run by someone else), an option the
    command line leaves out may still be set by its ``LLAMA_ARG_*`` variable, which llama-server reads before the
    command line (``common_params_parse_ex``): each option some build of the deployment reads from a variable, and
    its typed fact (:data:`FACTS`), is unknown unless the file sets it. Options no variable sets stay known
    unset."""
    pool = set(llamacpp_flags.env_pool(words, version))
    for ranges in llamacpp_flags.table().env.values():
        for lo, hi, option, _handler in ranges:
            name = OPTIONS.get(str(option))
            if name is None or not any(lo <= i <= hi for i in pool):
                continue
            key = f"flag.llama.cpp.{name}"
            if not facts.settled(key):
                facts.unknown(key)
            if name in FACTS and not facts.settled(FACTS[name][0]):
                facts.unknown(FACTS[name][0])


def _env_overridden(facts: FactSet, env: list[EnvVar]) -> None:
    """``llama.env_overridden``: the first ``LLAMA_ARG_*`` variable (at the variable) whose option the command line
    also gives (``flag.llama.cpp.*`` of origin ``flag``), in any build that reads it; known unset where none is."""
    read = llamacpp_flags.table().env
    for var in env:
        if var.name not in read or var.span is None:
            continue
        for _lo, _hi, option, _handler in read[var.name]:
            name = OPTIONS.get(str(option))
            current = facts.get(f"flag.llama.cpp.{name}") if name is not None else None
            if current is not None and current.origin == "flag":
                facts.set("llama.env_overridden", at(var.name, "env", var.span,
                                                     f"the command line's --{name} is applied after {var.name}"))
                return
    facts.set("llama.env_overridden", Fact(None, "inferred"))


def _env_value(option: str | None, value: str | None) -> str | None:
    """The value a variable gives its option, as the option's canonical name reads it: llama.cpp's on/off/auto words
    for ``--flash-attn``, and a negative switch (``--no-context-shift``) set to true read as its option set to false."""
    name = OPTIONS.get(option or "")
    if name == "flash-attn":
        return _fa(value or "")
    if option in NEGATED and value in ("true", "false"):
        return "false" if value == "true" else "true"
    return value


def _forget_env_options(facts: FactSet, env: list[EnvVar]) -> None:
    """Drop what :func:`_env_options` set from these variables (facts of origin ``env`` of every option a variable
    sets in some build), before it judges them again over other builds."""
    for var in env:
        for _lo, _hi, option, _handler in llamacpp_flags.table().env.get(var.name) or []:
            name = OPTIONS.get(str(option))
            if name is None or name in ("model", "hf-repo"):
                continue
            for key in (f"flag.llama.cpp.{name}", *((FACTS[name][0],) if name in FACTS else ())):
                fact = facts.facts.get(key)
                if fact is not None and fact.origin == "env":
                    del facts.facts[key]


def _version(facts: FactSet) -> Version | None:
    """The deployment's llama.cpp build or release as known so far (``None`` for anything else)."""
    fact = facts.get("engine.version")
    value = fact.value if fact is not None else None
    return value if isinstance(value, Version) and value.scheme in ("build", "release") else None


def _option_facts(facts: FactSet, opts: list[Opt]) -> None:
    """Each option as written (``flag.llama.cpp.*``), the model, the facts of :data:`FACTS`, and the GPU count a
    list of devices or a tensor split gives."""
    for opt in opts:
        facts.set(f"flag.llama.cpp.{opt.name}", word_fact(opt.value, "flag", opt.flag))
        if opt.name in ("model", "hf-repo") and opt.value:
            for key, fact in model_facts(opt.value, opt.value_word or opt.flag, opt.name == "hf-repo").items():
                facts.set(key, fact)
        elif opt.name == "model" and opt.value_word is not None:  # `-m "$HOME/models/m-Q6_K.gguf"`
            for key, fact in model_tail_facts(opt.value_word).items():
                facts.set(key, fact)
        if opt.name in FACTS and opt.value is not None:
            key, kind = FACTS[opt.name]
            typed = _typed(opt.value if opt.name != "flash-attn" else _fa(opt.value), kind)
            if typed is not None:
                source = opt.value_word.source if opt.value_word is not None else None
                facts.set(key, word_fact(typed, "flag", opt.flag, source=source))
        if opt.name in ("tensor-split", "device") and opt.value:
            parts = [p for p in re.split(r"[,/]", opt.value) if p.strip()]
            if len(parts) > 1 and opt.value != "none":
                facts.set("gpu.count", word_fact(len(parts), "flag", opt.flag))


def _complete(launch: Launch) -> bool:
    """No word may hide options: every splice is a model slot (``-m $MODEL``, read as one word)."""
    if launch.inferred is not None and launch.inferred.unseen:
        return False  # the image's own command: any option may be in it
    if not launch.command.argv_complete:
        if not any(w.splice for w in launch.command.argv):
            return False  # an env file: the command line is not seen at all
        for index, word in enumerate(launch.args):
            previous = launch.args[index - 1].text if index else None
            if word.splice and not (previous in ("-m", "--model") and model_slot_variable(word)):
                return False
        if any(w.splice for w in launch.command.argv if not any(w is a for a in launch.args)):
            return False
    return True


def _fa(value: str) -> str:
    """llama.cpp's on/off/auto words (``arg.cpp``: on, enabled, true, 1 / off, disabled, false, 0 / auto, -1)."""
    word = value.strip().lower()
    if word in ("on", "enabled", "true", "1"):
        return "on"
    if word in ("off", "disabled", "false", "0"):
        return "off"
    if word in ("auto", "-1"):
        return "auto"
    return value


def _typed(value: str, kind: type) -> int | str | None:
    if kind is int:
        try:
            return int(value)
        except ValueError:
            return None
    return value


class Build:
    """One ``cmake`` configure line: its build folder (``-B DIR``) where written, and its ``-D`` options."""

    folder: str | None
    options: dict[str, tuple[str, Span]]
    span: Span | None = None  # the ``cmake`` word

    def __init__(self, folder: str | None, options: dict[str, tuple[str, Span]], span: Span | None = None) -> None:
        self.folder = folder
        self.options = options
        self.span = span


def _cmake(command: Command, build_facts: dict[str, tuple[str, Span]]) -> Build | None:
    words = command.argv
    if not words or program(words[0]) != "cmake":
        return None
    build = Build(None, {}, words[0].span)
    for index, word in enumerate(words):
        text = word.text or ""
        if text == "-D" and index + 1 < len(words):
            text = "-D" + (words[index + 1].text or "")
        if text == "-B" and index + 1 < len(words):
            build.folder = (words[index + 1].text or "").rstrip("/").removeprefix("./") or None
        elif text.startswith("-B") and len(text) > 2:
            build.folder = text[2:].rstrip("/").removeprefix("./") or None
        match = re.fullmatch(r"-D([A-Za-z0-9_]+)(?::[A-Z]+)?=(.*)", text)
        if match:
            build_facts[f"build.{match.group(1)}"] = (match.group(2), word.span)
            build.options[match.group(1)] = (match.group(2), word.span)
    return build if build.options else None


def _build_clues(builds: list[Build], start: Word, linux: bool = False) -> list[evidence.Clue]:
    """Backend (and, for SYCL, vendor) from the build lines of the same file that this launch runs: the build whose
    ``-B`` folder holds the program (``build-rocm/bin/llama-server``), else every build of the file; and the build
    folder's own name (``build-vulkan``). ``linux``: the builds run on Linux (a Dockerfile's own ``RUN cmake``), where
    a llama.cpp configure line (a ``GGML_*``/``LLAMA_*`` option) that turns on no GPU backend builds the CPU one."""
    path = (start.text or "").replace("\\", "/").removeprefix("./")
    mine = [b for b in builds if b.folder and (path.startswith(b.folder + "/") or f"/{b.folder}/" in path)]
    out: list[evidence.Clue] = []
    for build in mine or builds:
        if linux and _cpu_only(build):
            out.append(evidence.Clue("engine.backend", "cpu", "build", build.span or start.span,
                                     "a llama.cpp cmake configure line on Linux with no GPU backend option on (they "
                                     "default to OFF): the CPU backend"))
        for option, (value, span) in build.options.items():
            if option in _CMAKE_TARGETS and re.fullmatch(r"gfx[0-9a-f]{3,4}", value.strip().lower()):
                # one AMD target the HIP build is compiled for (several: the GPU could be any of them)
                out.append(evidence.Clue("gpu.arch", value.strip().lower(), "build", span, f"-D{option}={value}"))
                continue
            if option not in _CMAKE_BACKENDS or value.upper() not in ("ON", "1", "TRUE"):
                continue
            backend = _CMAKE_BACKENDS[option]
            out.append(evidence.Clue("engine.backend", backend, "build", span, f"-D{option}={value}"))
            if backend == "sycl":
                target, where = build.options.get("GGML_SYCL_TARGET", ("INTEL", span))
                vendor = {"INTEL": "intel", "NVIDIA": "nvidia", "AMD": "amd"}.get(target.upper())
                if vendor is not None:
                    out.append(evidence.Clue("gpu.vendor", vendor, "build", where,
                                             f"a SYCL build for GGML_SYCL_TARGET={target.upper()} (INTEL unless "
                                             "set; llama.cpp ggml/CMakeLists.txt)"))
    folder = _BUILD_DIR.search(path) if "/" in path else None
    if folder is not None:
        name = folder.group(1).lower()
        out.append(evidence.Clue("engine.backend", _DIR_BACKENDS.get(name, name), "build", start.span,
                                 f"the program is in the build folder {folder.group(0).strip('/')}"))
    archive = _RELEASE_DIR.search(path)
    if archive is not None:
        system, variant = archive.group(2).lower(), (archive.group(3) or "").lower()
        kind = _RELEASE_BACKENDS.get(variant) or _RELEASE_PLAIN.get((system, variant or archive.group(4)))
        why = f"the program is in the release archive {archive.group(0).strip('/')}"
        if kind is not None:
            out.append(evidence.Clue("engine.backend", kind, "build", start.span, why))
        gfx = re.search(r"-(gfx[0-9a-f]{3,4})\b", path, re.I)
        if kind == "hip" and gfx is not None:
            out.append(evidence.Clue("gpu.arch", gfx.group(1).lower(), "build", start.span, why))
    return out


def _cpu_only(build: Build) -> bool:
    options = build.options
    return any(o.startswith(("GGML_", "LLAMA_")) for o in options) and not any(
        _GPU_OPTION.match(o) and v.strip().upper() not in _OFF for o, (v, _) in options.items())


def release_build(start: Word) -> Version | None:
    """The build number of an official release archive the program was unpacked from
    (``llama-b6400-bin-win-cuda-cu12.4-x64/llama-server.exe``)."""
    found = _RELEASE_DIR.search((start.text or "").replace("\\", "/"))
    if found is None:
        return None
    try:
        return parse_in_family(True, found.group(1))
    except VersionError:
        return None


_WORDS = "_relialint_llama_server_words"
_ENV = "_relialint_llama_env"
_CHECKS = (("unknown", "llama.unknown_option", "llama.option_refused"),
           ("value", "llama.bad_value", "llama.value_refused"),
           ("stray", "llama.stray_word", "llama.stray_word_refused"),
           ("unread", "llama.unread_env", "llama.env_not_read"),
           ("negated", "llama.negated_env", "llama.env_negates"))
"""Each kind of problem: its located instance fact (value: the message) and the fact derived per build world (the
build refuses the word)."""


def check_options(deployment: Deployment) -> None:
    """Every option, value and word llama-server rejects in some build the deployment's final ``engine.version``
    allows: the instances of each kind as ``FactSet.instances`` (each reported at its own word), each with whether
    the build refuses it, derived per build world (:class:`ByVersion`: the tables that refuse it; unknown in the
    builds outside the tables). With the build known it is set directly: true on a tabled build, unknown on an
    untabled one (its neighbouring tables disagree, or a build between them may differ from both)."""
    facts = deployment.facts
    words: list[Word] = getattr(deployment, _WORDS, [])
    version_fact = facts.get("engine.version")
    version = version_fact.value if version_fact is not None and isinstance(version_fact.value, Version) else None
    if version is not None and version.scheme == "pep440":
        version = None
    kinds = llamacpp_flags.kinds_of("-fa", version)
    decided = kinds in ({"v"}, {"f"})
    if decided or version is None:  # no version: engine.version itself is what is missing (RL506)
        facts.set("llama.flash_attn_takes_value", Fact(kinds == {"v"} if decided else None, "inferred",
                                                       note="llama-server's option tables for the build(s)"))
    else:  # a build inside a bracket the tables cannot split (b6112-b8501): unknown, never unset
        facts.unknown("llama.flash_attn_takes_value")
    texts = [w.text for w in words]
    table = llamacpp_flags.table()
    exact = table.build_worlds(version).exact
    versions = table.versions()
    options = llamacpp_flags.written_options(texts)
    problems = llamacpp_flags.check(texts, version)
    variables, read_with = getattr(deployment, _ENV, ([], None))
    if variables and version != read_with:  # the final version (--engine-version) may narrow the builds more
        _forget_env_options(facts, variables)
        _env_options(facts, variables, version, texts)
    env = {k[4:]: f for k, f in facts.facts.items() if k.startswith("env.") and isinstance(f.value, str)}
    values = {k: str(f.value) for k, f in env.items()}
    env_problems = llamacpp_flags.check_env(values, texts, version)
    # a name no build reads is unread whatever its value: a variable whose value is unknown (`${CTX}`) counts too
    for var in variables:
        if var.value is None and var.name not in env and var.span is not None:
            env[var.name] = at(None, "env", var.span)
    by_kind = {"unread": llamacpp_flags.check_unread({k: str(f.value or "") for k, f in env.items()}, texts, version),
               "negated": llamacpp_flags.check_negated(values, texts, version)}

    for kind, key, derived in _CHECKS:
        facts.drop_instances(key)
        found: list[tuple[Fact, llamacpp_flags.Problem, str | None]] = []
        if kind == "value":  # the variables come first: the parser reads them before the command line
            found.extend((replace(env[name], value=problem.message), problem, None)
                         for name, problem in env_problems.items())
        found.extend((replace(env[name], value=problem.message), problem, None)
                     for name, problem in by_kind.get(kind, {}).items())
        found.extend((word_fact(problem.message, "flag", words[problem.position]), problem,
                      llamacpp_flags.leave_out(texts, problem.position, options))
                     for problem in problems if problem.kind == kind)
        if not found:
            facts.set(key, Fact(None, "inferred"))
            continue
        for where, problem, left_out in found:
            if problem.position == llamacpp_flags.NEVER_READ:  # read by no tabled build: certain, whatever the build
                facts.add_instance(key, {key: where, derived: replace(where, value=True)})
            elif version is None:  # the worlds decide, build by build
                by_version = {derived: ByVersion(frozenset(versions[i] for i in problem.refused), left_out)}
                facts.add_instance(key, {key: where, derived: None}, by_version)
            else:  # one table: it refuses the word; an untabled build: unknown (its neighbours may differ from it)
                facts.add_instance(key, {key: where, derived: replace(where, value=True) if exact else None})


def written_options(deployment: Deployment) -> list[str]:
    """The options llama-server's command line writes that some table has (they narrow the build worlds)."""
    words: list[Word] = getattr(deployment, _WORDS, [])
    return llamacpp_flags.written_options([w.text for w in words])


def option_spans(deployment: Deployment) -> list[tuple[str, Span]]:
    """The options of :func:`written_options`, each with the span of (the first) word that writes it."""
    words: list[Word] = getattr(deployment, _WORDS, [])
    written = set(llamacpp_flags.written_options([w.text for w in words]))
    out: list[tuple[str, Span]] = []
    for word in words:
        if word.text is not None and word.text in written:
            out.append((word.text, word.span))
            written.discard(word.text)
    return out


def apply_defaults(deployment: Deployment) -> None:
    model_floor(deployment.facts)
    check_options(deployment)
    version_defaults(deployment.facts)


def model_floor(facts: FactSet) -> None:
    """A build no file states, bounded below by the model: a model family identified with certainty runs only on
    builds from the first whose ``llama-arch`` names its architecture (``model_families``, witnessed in the vendored
    sources), so ``engine.version`` becomes "newer than" the build before it. A record's range that ends before
    that build is then clean (and one that begins after it stays possible). The build worlds are narrowed by the
    same floor (``LlamaCppEngine.allowed_versions``); this carries it to the records' ranges, which read
    ``engine.version`` itself (build worlds do not vary it: ``llamacpp_engine``)."""
    from relialint.engines import model_families

    fact = facts.get("engine.version")
    if fact is not None and fact.value is not None:
        return
    floor = model_families.engine_floor(facts, "llama.cpp")
    if floor is None:
        return
    number = int(floor.lstrip("b"))
    family = facts.get("model.family")
    named = f"model {family.value} " if family is not None and family.value is not None else "the model "
    facts.set("engine.version", Fact(VersionBound(parse_in_family(True, f"b{number - 1}"), True), "inferred",
                                     note=f"{named}needs llama.cpp b{number} or newer (its architecture first appears "
                                          "there in the vendored sources: witnessed in the released code)"))


def version_defaults(facts: FactSet) -> None:
    """llama-server's defaults for what a complete command line leaves out: the same in every tabled build."""
    if "flag.llama.cpp." not in facts.closed:
        return
    for key, value in (("llama.ubatch", 512), ("llama.batch", 2048), ("llama.split_mode", "layer"),
                       ("kv_cache.dtype", "f16")):
        if not facts.settled(key):  # not where a variable of an open environment may set it
            facts.set(key, Fact(value, "default"))

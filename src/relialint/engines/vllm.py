"""vLLM: launch forms (``vllm serve``, the api_server module, images by tag), and the mapping of parsed options
and env vars onto facts. The parser's rules are in ``vllm_args`` (``--config FILE`` is expanded, ``--config=FILE``
is not, as in the engine), the defaults by version in ``vllm_defaults``; ``fix_edits`` turns a record's
``fix_edit`` into text edits for editors."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from relialint.base import lazyre
from relialint.base.plain import replace
from relialint.core.deployment import Deployment
from relialint.core.facts import Fact, FactSet, Origin, Value, Withheld
from relialint.core.versions import Version, VersionError, parse_in_family, parse_version
from relialint.engines import evidence, flagcheck
from relialint.engines.common import (
    UNSEEN,
    FileOpener,
    apply_env,
    at,
    checkpoint_facts,
    extract_launches,
    is_pip_install,
    launch_deployment,
    lora_fact,
    model_facts,
    pip_pin,
    program,
    serve_facts,
    vllm_lora_paths,
    word_fact,
)
from relialint.engines.vllm_args import (
    BOOLEAN_FLAGS,
    JSON_FLAGS,
    SHORT_ALIASES,
    Opt,
    Parsed,
    _merge_json,
    _number,
    canonical,
    config_false,
    config_file_opts,
    drop_config_false,
    parse_args,
)
from relialint.engines.vllm_defaults import _truthy, apply_defaults
from relialint.readers.located import Command, FileResult, ReadError, Span, Word

if TYPE_CHECKING:
    from relialint.engines.inference import Inferred

__all__ = [
    "BOOLEAN_FLAGS", "JSON_FLAGS", "SHORT_ALIASES", "Launch", "Opt", "Parsed", "apply_defaults", "canonical",
    "config_file_opts", "extract", "fix_edits", "parse_args", "recognise",
]

API_SERVER = "vllm.entrypoints.openai.api_server"

_DTYPES = {"half": "float16", "float": "float32"}
_QUANT = {
    "modelopt_fp4": "nvfp4", "nvfp4_per_token": "nvfp4", "awq_marlin": "awq", "auto_awq": "awq",
    "gptq_marlin": "gptq", "auto_gptq": "gptq", "gpt_oss_mxfp4": "mxfp4", "fbgemm_fp8": "fp8",
    "fp8_per_tensor": "fp8", "fp8_per_block": "fp8", "fp8_per_channel": "fp8", "deepseek_v4_fp8": "fp8",
}
_WEIGHT_ONLY_QUANT = {"awq", "gptq", "awq_marlin", "gptq_marlin", "auto_awq", "auto_gptq", "moe_wna16"}


# -- recognising launches -------------------------------------------------------------------------------------------

_IMAGE = lazyre.compile(
    r"^(?:[\w.\-]+(?::\d+)?/)?(?P<repo>vllm/vllm-openai(?:-[a-z0-9]+)?|rocm/vllm(?:-dev)?)"
    r"(?::(?P<tag>[\w.\-]+))?(?:@.*)?$"
)
_MIRROR = lazyre.compile(
    r"^(?:[\w.\-]+(?::\d+)?/)+(?P<repo>vllm-openai(?:-[a-z0-9]+)?)(?P<rest>(?::[\w.\-]+)?(?:@.*)?)$")
"""A registry mirror of the vLLM image under another path (``registry.example.com/mirror/vllm-openai:v0.9.2``)."""
_TAG_VERSION = lazyre.compile(r"^v(\d+\.\d+\.\d+(?:\.\d+|\.post\d+)?(?:rc\d+)?)(?:-.*)?$")  # v0.10.1.1 too
_ROCM_TAG = lazyre.compile(r"rocm[\d.]+_(?:instinct_)?vllm_?(\d+(?:\.\d+)+)_\d{8}")
SERVE_ENTRYPOINT_FROM = parse_in_family(False, "0.11.1")


class Launch:
    command: Command
    form: str  # "serve" | "api_server" | "image"
    args: list[Word]
    start: Word
    image_version: tuple[Version, Word] | None = None
    backend: tuple[str, Word] | None = None
    inferred: Inferred | None = None
    rolling: Word | None = None
    """An official image with a tag that follows the newest release (``latest``, ``nightly``, no tag)."""

    def __init__(self, command: Command, form: str, args: list[Word], start: Word,
                 image_version: tuple[Version, Word] | None = None, backend: tuple[str, Word] | None = None,
                 inferred: Inferred | None = None, rolling: Word | None = None) -> None:
        self.command = command
        self.form = form
        self.args = args
        self.start = start
        self.image_version = image_version
        self.backend = backend
        self.inferred = inferred
        self.rolling = rolling


def recognise(command: Command) -> Launch | None:
    words = command.argv
    if command.kind == "env":
        # an env file on its own launches nothing: its VLLM_* settings are checked where a launch loads it
        # (docker run --env-file, compose env_file, systemd EnvironmentFile)
        return None
    if command.image is not None:
        return _recognise_image(command, command.image)
    return _recognise_words(command, words)


def _recognise_words(command: Command, words: list[Word]) -> Launch | None:
    if not words:
        return None
    head = program(words[0])
    if head == "vllm" and len(words) > 1 and words[1].text == "serve":
        return Launch(command, "serve", words[2:], words[0])
    if head == "" and words[0].text is None and len(words) > 2 and words[1].text == "-m" \
            and words[2].text in (API_SERVER, "vllm.entrypoints.cli.main"):
        head = "python"  # ``$PYTHON -m vllm.entrypoints...`` with the interpreter unknown (``PYTHON=$(which python3)``)
    if re.fullmatch(r"python(\d(\.\d+)?)?", head) or head in ("uv", "pipx"):
        rest = words[1:]
        if head == "uv" and rest and rest[0].text == "run":
            rest = rest[1:]
            while rest and (rest[0].text or "").startswith("-"):
                rest = rest[1:]
            if rest and re.fullmatch(r"python(\d(\.\d+)?)?", program(rest[0])):
                rest = rest[1:]
        for index, word in enumerate(rest[:-1]):
            if word.text == "-m" and rest[index + 1].text == API_SERVER:
                return Launch(command, "api_server", rest[index + 2 :], words[0])
            if word.text == "-m" and rest[index + 1].text == "vllm.entrypoints.cli.main" \
                    and len(rest) > index + 2 and rest[index + 2].text == "serve":
                return Launch(command, "serve", rest[index + 3 :], words[0])
    return None


def _recognise_image(command: Command, image: Word) -> Launch | None:
    mirror = _MIRROR.match(image.text or "")
    match = _IMAGE.match(f"vllm/{mirror.group('repo')}{mirror.group('rest')}" if mirror else image.text or "")
    if not match:
        if command.entrypoint or command.argv:
            launch = _recognise_words(command, (command.entrypoint or []) + command.argv)
            if launch is not None:
                return launch
        from relialint.engines.inference import engine_of  # only for an image that does not say its engine

        inferred = engine_of(command, _vllm_env())
        if inferred is None or inferred.engine != "vllm":
            return None
        return Launch(command, "image", command.argv, image, inferred=inferred)
    repo, tag = match.group("repo"), match.group("tag") or "latest"
    version: tuple[Version, Word] | None = None
    found = _TAG_VERSION.match(tag) or _ROCM_TAG.search(tag)
    if found:
        try:
            version = (parse_in_family(False, found.group(1)), image)
        except VersionError:
            version = None
    backend = ("hip", image) if "rocm" in repo or "rocm" in tag else None
    # the vLLM project's own images: `latest` and `nightly` follow the newest release
    rolling = image if version is None and tag in ("latest", "nightly") and repo.startswith("vllm/vllm-openai") \
        else None
    if mirror is not None and _own_tags(image):
        version, rolling = None, None  # another project's build of vLLM: its tag is that project's version
    if command.entrypoint is not None:
        launch = _recognise_words(command, command.entrypoint + command.argv)
        if launch is None:
            return None
        launch.image_version, launch.backend, launch.rolling = version, backend, rolling
        return launch
    if repo != "vllm/vllm-openai":
        # Only the vllm/vllm-openai entrypoint is documented (api_server before 0.11.1, `vllm serve` from it). For
        # AMD's rocm/vllm and the -rocm/-cpu/-xpu repositories the arguments are read as the whole command when
        # they start with one, else as options to an entrypoint whose form is unknown.
        launch = _recognise_words(command, command.argv)
        if launch is not None:
            launch.image_version, launch.backend, launch.rolling = version, backend, rolling
            return launch
        return Launch(command, "image", command.argv, image, version, backend, rolling=rolling)
    args = command.argv
    if version is None:
        # a rolling tag is at least the newest tabled release, long past the switch to `vllm serve`
        form = "serve" if rolling is not None else "image"
    elif version[0] < SERVE_ENTRYPOINT_FROM:
        form = "api_server"
    else:
        form = "serve"
    return Launch(command, form, args, image, version, backend, rolling=rolling)


def _own_tags(image: Word) -> bool:
    """Whether a ``vllm-openai`` image outside the vLLM project is another project's build, whose tags are its own
    releases (``lmcache/vllm-openai:v0.5.4`` is LMCache 0.5.4 on vLLM 0.27.1): a Docker Hub namespace other than
    ``vllm``, or a repository ``data/engine_images.yaml`` lists. A path on another registry is a mirror of vLLM's
    image (``registry.example.com/mirror/vllm-openai:v0.9.2``) and keeps vLLM's tags."""
    from relialint.engines.evidence import parse_image
    from relialint.engines.image_owners import own_tags

    ref = parse_image(image.text or "")
    return ref.repo in own_tags("vllm") or (not ref.registry and not ref.repo.startswith("vllm/"))


def _vllm_env() -> frozenset[str]:
    return frozenset(flagcheck.vllm_table().env_names(None))


# -- facts ----------------------------------------------------------------------------------------------------------


def extract(result: FileResult, opener: FileOpener | None, limit: int | None = None) -> list[Deployment]:
    if result.kind == "vllm-config":
        return _config_file_deployment(result)
    pins = _PipPins()

    def apply(deployment: Deployment, command: Command, launch: Launch) -> None:
        _apply_launch(deployment, command, launch, result, opener, pins.pinned)
        if pins.flashinfer is not None and deployment.facts.get("engine.flashinfer") is None and \
                "engine.flashinfer" not in deployment.facts.blocked:
            deployment.facts.set("engine.flashinfer", word_fact(
                True, "inferred", pins.flashinfer, "a pip install earlier in the file installs FlashInfer"))

    return extract_launches(result, "vllm", limit, recognise, apply, pins.observe)


class _PipPins:
    """The latest ``pip install vllm...`` pin of the file so far: a version, or a PEP 440 specifier (a string); and
    the word of a ``pip install`` that installs FlashInfer (``vllm[flashinfer]``, ``flashinfer-python``)."""

    pinned: tuple[Version | str, Span] | None = None
    flashinfer: Word | None = None

    def observe(self, command: Command) -> bool:
        pin = _pip_pin(command)
        if pin is not None:
            self.pinned = pin
        if is_pip_install(command):
            self.flashinfer = next((w for w in command.argv if _installs_flashinfer(w.text or "")), self.flashinfer)
        return pin is not None


# FlashInfer's own distribution (flashinfer-python; flashinfer-cubin and flashinfer-jit-cache are add-ons to it), or
# vLLM's ``flashinfer`` extra, which the wheels declare from 0.10.1 on (their METADATA: `Provides-Extra: flashinfer`)
_FLASHINFER_DIST = lazyre.compile(r"flashinfer(?:-python)?(?:$|[=<>~!\[ ;])", re.I)
_VLLM_EXTRA = lazyre.compile(r"vllm\[[\w,\-]*\bflashinfer\b[\w,\-]*\](?:==([\w.]+))?$", re.I)
_EXTRA_FROM = "0.10.1"


def _installs_flashinfer(requirement: str) -> bool:
    """A pip requirement that installs FlashInfer. ``vllm[flashinfer]`` unpinned resolves to a release new enough to
    have the extra; pinned, only from 0.10.1 (``vllm[flashinfer]==0.10.0`` installs no FlashInfer); a range may
    reach below it, so it does not count."""
    if _FLASHINFER_DIST.match(requirement):
        return True
    extra = _VLLM_EXTRA.match(requirement)
    if extra is None:
        return False
    if extra.group(1) is None:
        return True
    try:
        return parse_version(extra.group(1)) >= parse_version(_EXTRA_FROM)
    except VersionError:
        return False


def _apply_launch(deployment: Deployment, command: Command, launch: Launch, result: FileResult,
                  opener: FileOpener | None, pinned: tuple[Version | str, Span] | None) -> None:
    """One launch's facts, in order: its version and backend, its environment, its options, the versions its options
    leave when none was said, and what the rest of the command gives away."""
    facts = deployment.facts
    _version_facts(facts, command, launch, pinned)
    if launch.backend is not None:
        facts.set("engine.backend", word_fact(launch.backend[0], "image", launch.backend[1]))
    apply_env(deployment, command, ("VLLM_",))
    if _unseen(launch):
        deployment.facts.closed.discard("env.")  # the image's own ENV is not seen either
    _apply_args(deployment, launch, result, opener)
    serve_facts(deployment, "flag.vllm.", ("api-key",), ("VLLM_API_KEY",))
    _releasable(facts)
    if facts.get("engine.version") is None and facts.get("engine.version_range") is None:
        # the options the launch passes say which releases it can run on (any other refuses to start)
        window = flagcheck.options_window(flagcheck.written_words(deployment))
        if window is not None:
            spec, word, why = window
            facts.set("engine.version_range", word_fact(spec, "inferred", word, why))
    evidence.apply(deployment, evidence.command_clues(command, result.kind))
    evidence.container_facts(deployment, command)
    lora_fact(deployment, vllm_lora_paths(launch.args), "flag.vllm." in facts.closed)


def _releasable(facts: FactSet) -> None:
    """``memory.releasable``: whether something can make the server give its GPU memory back while it runs. A vLLM
    server does so on ``POST /sleep``, which needs ``--enable-sleep-mode`` and exists only with
    ``VLLM_SERVER_DEV_MODE`` set (vllm/entrypoints/openai/api_server.py 0.7.3-0.13.0, ``if envs.VLLM_SERVER_DEV_MODE``
    around the route; vllm/entrypoints/serve/sleep/api_router.py 0.14.0-0.24.0 and serve/dev/sleep/ 0.25.0-0.33.0,
    ``attach_router`` returns without it). Unknown where either is unknown."""
    sleep, dev = facts.get("flag.vllm.enable-sleep-mode"), facts.get("env.VLLM_SERVER_DEV_MODE")
    sleep_on = None if sleep is None or isinstance(sleep.value, Withheld) else (
        sleep.value is not None and str(sleep.value).lower() != "false")
    dev_on = None if dev is None or isinstance(dev.value, Withheld) else (
        dev.value is not None and _truthy(dev.value) is True)
    if sleep_on is False or dev_on is False:
        off = sleep if sleep_on is False else dev
        why = "no --enable-sleep-mode" if sleep_on is False else "VLLM_SERVER_DEV_MODE not set: no /sleep route"
        facts.set("memory.releasable", Fact(False, "inferred", off.path if off else None, off.line if off else None,
                                            off.column if off else None, note=why))
    elif sleep_on and dev_on and sleep is not None:
        facts.set("memory.releasable", _true_at(sleep, "--enable-sleep-mode with VLLM_SERVER_DEV_MODE: POST "
                                                    "/sleep frees the GPU memory while the server runs"))


def _true_at(fact: Fact, note: str) -> Fact:
    """An inferred ``True`` at the place of ``fact``."""
    return Fact(True, "inferred", fact.path, fact.line, fact.column, fact.end_line, fact.end_column, note=note)


def _version_facts(facts: FactSet, command: Command, launch: Launch,
                   pinned: tuple[Version | str, Span] | None) -> None:
    """The version the launch runs, from the first that says: the image's tag, a ``pip install`` pin earlier in
    the file, a rolling tag (the newest release or later)."""
    tagged = launch.image_version or (_tag_version(command.image) if command.image is not None else None)
    if tagged is not None:
        version, word = tagged
        note = None if launch.image_version else f"vLLM version read from the image tag {word.text}"
        facts.set("engine.version", word_fact(version, "image", word, note))
    elif pinned is not None and isinstance(pinned[0], str):
        facts.set("engine.version_range", at(pinned[0], "inferred", pinned[1],
                                             "pip install requirement earlier in the file"))
    elif pinned is not None:
        facts.set("engine.version", at(pinned[0], "inferred", pinned[1], "pip install pin earlier in the file"))
    elif launch.rolling is not None:
        newest = flagcheck.vllm_table().versions[-1]
        facts.set("engine.version_range", word_fact(f">={newest}", "image", launch.rolling,
                                                    f"the {launch.rolling.text} tag pulls the newest release "
                                                    f"({newest} or later)"))


def _config_file_deployment(result: FileResult) -> list[Deployment]:
    """A vLLM ``--config`` YAML read on its own: the deployment ``vllm serve --config FILE`` would be, with every
    fact located in the file (origin ``config-file``)."""
    if any(error.severity == "error" for error in result.errors):
        return []
    opts = config_file_opts(result.text, result.path)
    if not opts:
        return []
    words: list[Word] = []
    for opt in opts:
        if opt.value is None:
            words.append(Word(f"--{'no-' if opt.negated else ''}{opt.name}", opt.flag.span))
        else:
            words.extend([Word(f"--{opt.name}", opt.flag.span), Word(opt.value, opt.flag.span)])
    start = Word("vllm", opts[0].flag.span)
    command = Command("vllm-config", words, start.span, env_complete=False)
    deployment = launch_deployment("vllm", result.kind, start)
    apply_env(deployment, command, ("VLLM_",))
    _apply_args(deployment, Launch(command, "serve", words, start), result, None)
    for key, fact in list(deployment.facts.facts.items()):
        if fact.origin == "flag":
            deployment.facts.set(key, replace(fact, origin="config-file"))
    for opt in opts:
        opt.from_config = True
    false_key = config_false(opts)
    deployment.facts.set("args.config_false", word_fact(false_key.flag.text, "config-file", false_key.flag)
                         if false_key is not None else Fact(None, "inferred"))
    return [deployment]


_CUSTOM_TAG_VERSION = lazyre.compile(r"(?<![\w.])(?:vllm[-_]?)?v?(0\.\d+\.\d+(?:\.post\d+)?)(?![\w.]*\d)", re.I)
_NAMED_TAG_VERSION = lazyre.compile(r"(?<![a-z0-9])vllm[-_]?v?(0\.\d+\.\d+(?:\.post\d+)?)(?![\w.]*\d)", re.I)
"""A version the tag itself says is vLLM's (``vllm-0.10.1-cu128``), read in any image named for vLLM."""
def _tag_version(image: Word) -> tuple[Version, Word] | None:
    """The vLLM version in another vLLM image's tag: ``intel/vllm:0.10.2-xpu``, ``intel/llm-scaler-vllm:0.10.2-b6``
    (images whose tags are vLLM's version, ``data/engine_images.yaml``), or a custom
    ``org/vllm-server:vllm-0.10.1-cu128`` whose tag names vLLM before the number. A bare number in any other image's
    tag is that image's own version (``ghcr.io/acme/vllm-runtime:0.0.19``), not vLLM's. Only a repository named for
    vLLM, only a 0.x.y version, and only one distinct version in the tag; TPU images are versioned on their own."""
    from relialint.engines.evidence import parse_image
    from relialint.engines.image_owners import version_tagged

    ref = parse_image(image.text or "")
    last = ref.repo.rsplit("/", 1)[-1]
    if "vllm" not in last or "tpu" in last or not ref.tag:
        return None
    pattern = _CUSTOM_TAG_VERSION if ref.repo in version_tagged("vllm") else _NAMED_TAG_VERSION
    found = {m.group(1) for m in pattern.finditer(ref.tag)}
    if len(found) != 1:
        return None
    try:
        return parse_in_family(False, found.pop()), image
    except VersionError:
        return None


def _pip_pin(command: Command) -> tuple[Version | str, Span] | None:
    """``pip install vllm==X`` as a version; ``vllm>=X``, ``vllm>=X,<Y``, ``vllm==0.10.*`` as a PEP 440
    specifier (``engine.version_range``)."""
    return pip_pin(command, "vllm")


def _expand_config(opts: list[Opt], launch: Launch, result: FileResult,
                   opener: FileOpener | None, deployment: Deployment) -> tuple[list[Opt], bool]:
    """``--config FILE`` as the parser does it: the file's options go first, so the command line wins. The flag:
    whether a ``--config`` file was left unread (missing, or outside the project root), so that any option may be
    set and none takes its default."""
    out: list[Opt] = []
    unread = False
    for opt in opts:
        if opt.name != "config":
            out.append(opt)
            continue
        if opt.equals:
            deployment.notes.append("--config=FILE is not expanded by vLLM; the file is ignored")
            out.append(opt)
            continue
        if opt.value is None:
            out.append(opt)
            continue
        text_path = _read_config(opt.value, result, opener)
        if text_path is None or isinstance(text_path, ReadError):
            why = "file not found" if text_path is None else text_path.message
            deployment.notes.append(f"--config {opt.value}: {why}; its settings are unknown")
            unread = True
            out.append(opt)
            continue
        text, display = text_path
        config_opts = config_file_opts(text, display)
        for config_opt in config_opts:
            config_opt.from_config = True
        out = config_opts + out
        out.append(opt)
    return out, unread


def _read_config(name: str, result: FileResult, opener: FileOpener | None) -> tuple[str, str] | ReadError | None:
    if name in result.written_files:
        body, span = result.written_files[name]
        return body, f"{span.path}#heredoc:{span.line}"
    if opener is not None:
        return opener(result.path, name)
    return None


def _apply_args(deployment: Deployment, launch: Launch, result: FileResult, opener: FileOpener | None) -> None:
    """The launch's arguments as facts: each option as written (``flag.vllm.*``, after ``--config`` files are
    expanded), the model, and the facts the options set (:data:`OPTION_RULES`)."""
    facts = deployment.facts
    parsed = parse_args(launch.args)
    flagcheck.record_vllm_launch(deployment, launch.form, launch.args, parsed.opts, parsed.positionals, launch.command)
    opts, unread_config = _expand_config(parsed.opts, launch, result, opener, deployment)
    _config_false_fact(facts, parsed.opts, opts)
    opts = _drop_config_false(deployment, opts)
    complete = _args_complete(launch, parsed, unread_config)
    if _unseen(launch):
        for key in ("args.config_equals", "args.config_false", "launch.positional_model", "launch.serve_repeated",
                    "launch.form"):
            facts.unknown(key)  # about the words of a launch this file does not show
    if complete:
        facts.closed.add("flag.vllm.")
    last = _written_options(facts, opts)
    _apply_model(deployment, launch, parsed.positionals, last, opener)
    _option_facts(facts, opts, last)
    if _unseen(launch):
        deployment.notes.append(UNSEEN)
    elif not complete and not unread_config:
        deployment.notes.append("arguments spliced from a variable: flags not seen may still be set")


def _config_false_fact(facts: FactSet, written: list[Opt], opts: list[Opt]) -> None:
    """``args.config_false``: the first ``--config`` key set to false; known unset when there is no ``--config``
    file to read or one was read in full; else unknown."""
    false_key = config_false(opts)
    if false_key is not None:
        facts.set("args.config_false", word_fact(false_key.flag.text, "config-file", false_key.flag))
    elif not any(opt.name == "config" and not opt.equals for opt in written) or any(opt.from_config for opt in opts):
        # no --config read (none, or only `--config=FILE`, which vLLM never expands: RL501), or one read in full
        facts.set("args.config_false", Fact(None, "inferred"))


def _drop_config_false(deployment: Deployment, opts: list[Opt]) -> list[Opt]:
    """The options the parser receives on the deployment's version: a ``--config`` key set to false is dropped
    before 0.28.0 (a note says so)."""
    version_fact = deployment.facts.get("engine.version")
    kept, dropped = drop_config_false(opts, version_fact.value if version_fact is not None
                                      and isinstance(version_fact.value, Version) else None)
    for opt in dropped:
        deployment.notes.append(f"{opt.flag.text}: false in the --config file is dropped by this vLLM version "
                                "(before 0.28.0): the option keeps its default")
    return kept


def _unseen(launch: Launch) -> bool:
    """The launch is the image's own command, not in the file (``inference``)."""
    return launch.inferred is not None and launch.inferred.unseen


def _args_complete(launch: Launch, parsed: Parsed, unread_config: bool) -> bool:
    """Whether every option of the launch is seen: no word that may split into options, no unread ``--config``,
    and a launch that is in the file at all."""
    if _unseen(launch):
        return False
    # words before the arguments (program, subcommand) that may split; the arguments' own are in `parsed`
    outside = [w for w in launch.command.argv if w.splice and not any(w is a for a in launch.args)]
    splices = any(w.splice for w in launch.command.argv)  # an env file or a YAML config has no argv to see
    return parsed.complete and (launch.command.argv_complete or (splices and not outside)) and not unread_config


def _written_options(facts: FactSet, opts: list[Opt]) -> dict[str, Opt]:
    """Each option as written, ``flag.vllm.NAME`` (unknown where its value is not seen, and so are the facts it
    sets); returns the last plain (not dotted) occurrence of each option, the one the parser keeps."""
    last: dict[str, Opt] = {}
    for opt in opts:
        if not opt.keys:
            last[opt.name] = opt
        origin: Origin = "config-file" if opt.from_config else "flag"
        raw_key = f"flag.vllm.{opt.name}"
        facts.set(raw_key, word_fact(("false" if opt.negated else (opt.value if opt.value is not None else "true"))
                                     if opt.known else None, origin, opt.flag))
        if not opt.known:
            held = opt.value_word.held_by if opt.value_word is not None else None
            if held is not None:  # passed with a value set elsewhere (a secret): present, the value unknown
                facts.set(raw_key, word_fact(Withheld(held), origin, opt.flag, "the value is not in the file"))
            else:
                facts.unknown(raw_key)
            for key in OPTION_FACTS.get(opt.name, ()):
                facts.unknown(key)
    return last


def _apply_model(deployment: Deployment, launch: Launch, positionals: list[Word], last: dict[str, Opt],
                 opener: FileOpener | None) -> None:
    """``model.name`` and what the name and a local checkpoint's ``config.json`` give away. It runs before the
    options' facts: an option (``--quantization``) wins over what the name suggests."""
    facts = deployment.facts
    model_word, from_config = _model_word(launch, positionals, last)
    if launch.form == "api_server" and positionals and "model" not in last:
        deployment.notes.append("positional model ignored by the api_server entrypoint")
    if model_word is None or model_word.text is None:
        return
    for key, fact in model_facts(model_word.text, model_word).items():
        facts.set(key, replace(fact, origin="config-file") if from_config and fact.origin == "flag" else fact)
    for key, fact in checkpoint_facts(model_word.text, deployment.path, opener, deployment.notes).items():
        facts.set(key, fact)


def _model_word(launch: Launch, positionals: list[Word], last: dict[str, Opt]) -> tuple[Word | None, bool]:
    """The word naming the model (``vllm serve MODEL`` wins over ``--model``), and whether it is a ``--config``
    file's ``model:`` key."""
    model_word = positionals[0] if launch.form in ("serve", "image") and positionals else None
    model_opt = last.get("model")
    if model_opt is None or model_opt.value_word is None or (model_word is not None and launch.form == "serve"):
        return model_word, False
    if model_opt.from_config and model_opt.value_word is model_opt.flag and model_opt.value is not None:
        # a `model:` key of a --config file: its value is the model, located at the key (the value word of a
        # config option is its key)
        return Word(model_opt.value, model_opt.flag.span), True
    if model_opt.equals and model_opt.value_word is model_opt.flag:
        # `--model=NAME` (`--model="NAME"` once the quotes are read): the name is the part after `=`, located at
        # the word that gives it
        return Word(model_opt.value, model_opt.flag.span, source=model_opt.flag.source), False
    return model_opt.value_word, False


# -- the facts each option sets -------------------------------------------------------------------------------------

_Step = Callable[[FactSet, list[Opt], dict[str, Opt]], None]
"""An option's own step: ``(facts, every option in order, the last plain occurrence of each)``."""


class OptionRule(NamedTuple):  # a NamedTuple: cheaper to create at start-up than a dataclass
    """What one vLLM option sets.

    ``keys``: every fact it can set; an option whose value is not seen (``--dtype $DTYPE``) makes them all unknown.
    ``value``: the value of ``keys[0]`` from the last plain occurrence of the option (``None``: it sets nothing),
    located at its flag. ``step``: for an option whose facts need more than its last value (a JSON config with
    dotted keys merged, a value that sets two facts), its own step instead."""

    keys: tuple[str, ...]
    value: Callable[[Opt], Value | None] | None = None
    step: _Step | None = None


def _option_facts(facts: FactSet, opts: list[Opt], last: dict[str, Opt]) -> None:
    """The facts the options set, in the order of :data:`OPTION_RULES` (a later one wins: ``cudagraph_mode``
    over ``--enforce-eager``)."""
    for name, rule in OPTION_RULES.items():
        if rule.step is not None:
            rule.step(facts, opts, last)
            continue
        opt = last.get(name)
        value = rule.value(opt) if opt is not None and rule.value is not None else None
        if opt is not None and value is not None:
            _option_fact(facts, opt, rule.keys[0], value)


def _option_fact(facts: FactSet, opt: Opt, key: str, value: Value) -> None:
    """``key`` as ``opt`` sets it: located at its flag (and at the word a substituted value came from), from the
    ``--config`` file where it was read there; unknown when the option's value is not seen."""
    if not opt.known:
        facts.unknown(key)
        return
    origin: Origin = "config-file" if opt.from_config else "flag"
    source = opt.value_word.source if opt.value_word is not None and opt.value_word is not opt.flag else None
    facts.set(key, word_fact(value, origin, opt.flag, source=source))


def _lower(opt: Opt) -> str | None:
    return opt.value.lower() if opt.value else None


def _upper(opt: Opt) -> str | None:
    return opt.value.upper() if opt.value else None


def _dtype(opt: Opt) -> str | None:
    """``half`` and ``float`` by the names the facts use (``float16``, ``float32``)."""
    value = _lower(opt)
    return _DTYPES.get(value, value) if value is not None else None


def _identifier(opt: Opt) -> str | None:
    """A backend name as vLLM's enum spells it (``flashinfer-cutlass`` -> ``flashinfer_cutlass``)."""
    value = _lower(opt)
    return value.replace("-", "_") if value is not None else None


def _integer(opt: Opt) -> int | float | None:
    return _number(opt.value, int)


def _fraction(opt: Opt) -> int | float | None:
    return _number(opt.value, float)


def _negated(opt: Opt) -> bool:
    return opt.negated


def _not_negated(opt: Opt) -> bool:
    return not opt.negated


def _quantization(facts: FactSet, opts: list[Opt], last: dict[str, Opt]) -> None:
    """``--quantization``: the scheme (by the facts' names; ``compressed-tensors`` says none: the checkpoint
    does), and whether it is weight-only, which the method decides over what the model's name suggests."""
    opt = last.get("quantization")
    if opt is None or not opt.value:
        return
    value = opt.value.lower()
    if value != "compressed-tensors":
        _option_fact(facts, opt, "model.quantization", _QUANT.get(value, value))
    if value in _WEIGHT_ONLY_QUANT:
        _option_fact(facts, opt, "model.weight_only", True)
    elif (inferred := facts.facts.get("model.weight_only")) is not None and inferred.origin == "inferred":
        facts.unknown("model.weight_only")  # the method given decides the scheme, not the name


def _compilation_config(facts: FactSet, opts: list[Opt], last: dict[str, Opt]) -> None:
    """``--compilation-config`` (dotted keys merged): ``cudagraph_mode``, ``NONE`` turning CUDA graphs off."""
    compilation = _merge_json(opts, "compilation-config")
    if compilation is None:
        return
    config, opt = compilation
    mode = config.get("cudagraph_mode")
    if isinstance(mode, str):
        facts.set("cuda_graphs.mode", word_fact(mode.upper(), "flag", opt.flag))
        if mode.upper() == "NONE":
            facts.set("cuda_graphs.enabled", word_fact(False, "flag", opt.flag))


def _attention_config(facts: FactSet, opts: list[Opt], last: dict[str, Opt]) -> None:
    """``--attention-config`` (dotted keys merged): the backend, an explicit FlashAttention version, and
    FlashInfer's query quantization."""
    attention = _merge_json(opts, "attention-config")
    if attention is None:
        return
    config, opt = attention
    if isinstance(config.get("backend"), str):
        facts.set("attention.backend", word_fact(str(config["backend"]).upper(), "flag", opt.flag))
    version = config.get("flash_attn_version")
    if isinstance(version, int) and not isinstance(version, bool):
        # an explicit FlashAttention version wins over vLLM's choice by GPU and model (fa_utils, from 0.15.0)
        facts.set("attention.fa4", word_fact(version == 4, "flag", opt.flag))
    if "disable_flashinfer_q_quantization" in config:
        disabled = _truthy(config["disable_flashinfer_q_quantization"])
        if disabled is not None:
            facts.set("attention.flashinfer_q_quant", word_fact(not disabled, "flag", opt.flag))


def _spec_decode(facts: FactSet, opts: list[Opt], last: dict[str, Opt]) -> None:
    spec = _merge_json(opts, "speculative-config")
    if spec is not None:
        config, opt = spec
        if not opt.known:
            for key in ("spec_decode.enabled", "spec_decode.method", "spec_decode.num_tokens"):
                facts.unknown(key)
            return
        method = config.get("method")
        if method is None and isinstance(config.get("model"), str) and config["model"]:
            if _drafter_method(facts, str(config["model"]), opt):
                method = None  # decided by the drafter's name (model_families), not a separate draft model
            else:
                method = "draft_model"
        if isinstance(method, str):
            normalised = "mtp" if method == "mtp" or method.endswith("_mtp") else method
            facts.set("spec_decode.method", word_fact(normalised, "flag", opt.flag))
            facts.set("args.spec_method", word_fact(method, "flag", opt.flag))
        facts.set("spec_decode.enabled", word_fact(bool(config), "flag", opt.flag))
        tokens = config.get("num_speculative_tokens")
        if isinstance(tokens, int):
            facts.set("spec_decode.num_tokens", word_fact(tokens, "flag", opt.flag))
        if isinstance(config.get("model"), str):
            facts.set("spec_decode.draft_model", word_fact(config["model"], "flag", opt.flag))
        return
    if "speculative-model" in last and last["speculative-model"].value:
        opt = last["speculative-model"]
        value = opt.value or ""
        method = "ngram" if value == "[ngram]" else "draft_model"
        facts.set("spec_decode.enabled", word_fact(True, "flag", opt.flag))
        facts.set("spec_decode.method", word_fact(method, "flag", opt.flag))
        if method == "draft_model":
            facts.set("spec_decode.draft_model", word_fact(value, "flag", opt.flag))
        if "num-speculative-tokens" in last:
            tokens = _number(last["num-speculative-tokens"].value, int)
            if tokens is not None:
                facts.set("spec_decode.num_tokens", word_fact(tokens, "flag", last["num-speculative-tokens"].flag))

def _drafter_method(facts: FactSet, draft: str, opt: Opt) -> bool:
    """A ``model`` given without a ``method``: vLLM detects the method from the drafter (its name, or its
    config.json's model type), so a drafter that ``model_families`` knows is no separate draft model. Sets
    ``spec_decode.method`` (unknown where the release decides between methods) and says whether it did."""
    from relialint.engines import model_families

    row = model_families.drafter(draft)
    if row is None:
        return False
    if row.method is None:
        facts.unknown("spec_decode.method")
        return True
    floor = f"; vLLM >= {row.vllm_since} loads it (witnessed in the released code)" if row.floor else ""
    note = f"the drafter {draft} runs as {row.method}, not as a separate draft model ({row.source}){floor}"
    facts.set("spec_decode.method", word_fact(row.method, "inferred", opt.flag, note))
    return True


OPTION_RULES: dict[str, OptionRule] = {
    "dtype": OptionRule(("serve.dtype",), _dtype),
    "kv-cache-dtype": OptionRule(("kv_cache.dtype",), _lower),
    "enforce-eager": OptionRule(("cuda_graphs.enabled",), _negated),
    "enable-prefix-caching": OptionRule(("prefix_caching.enabled",), _not_negated),
    "attention-backend": OptionRule(("attention.backend",), _upper),
    "moe-backend": OptionRule(("moe.backend",), _identifier),
    "tensor-parallel-size": OptionRule(("parallel.tensor",), _integer),
    "pipeline-parallel-size": OptionRule(("parallel.pipeline",), _integer),
    "gpu-memory-utilization": OptionRule(("memory.gpu_utilization",), _fraction),
    "max-model-len": OptionRule(("limits.max_model_len",), _integer),
    "max-num-batched-tokens": OptionRule(("limits.max_num_batched_tokens",), _integer),
    "max-num-seqs": OptionRule(("limits.max_num_seqs",), _integer),
    "quantization": OptionRule(("model.quantization", "model.weight_only"), step=_quantization),
    "compilation-config": OptionRule(("cuda_graphs.enabled", "cuda_graphs.mode"), step=_compilation_config),
    "attention-config": OptionRule(("attention.backend", "attention.fa4"), step=_attention_config),
    "speculative-config": OptionRule(("spec_decode.enabled", "spec_decode.method", "spec_decode.num_tokens"),
                                     step=_spec_decode),
    "model": OptionRule(("model.name", "model.quantization")),  # by _apply_model, before every other option
}
"""The facts each vLLM option sets, in the order they are applied (a later one wins over an earlier one)."""
OPTION_FACTS: dict[str, tuple[str, ...]] = {name: rule.keys for name, rule in OPTION_RULES.items()}
"""Option -> every fact it can set (the site names the options that decide a fact)."""


# -- fixes as edits (records' `fix_edit`, for editors) --------------------------------------------------------------

FIX_FLAGS: dict[str, str] = {
    "serve.dtype": "dtype", "kv_cache.dtype": "kv-cache-dtype", "attention.backend": "attention-backend",
    "moe.backend": "moe-backend", "prefix_caching.enabled": "enable-prefix-caching",
}
"""Facts a quick fix can set, by the flag that sets them (booleans as ``--flag`` / ``--no-flag``)."""
_FIX_BOOLEAN = {"enable-prefix-caching"}
FIX_ENV: dict[str, str] = {"attention.backend": "VLLM_ATTENTION_BACKEND"}
"""The variable that set a fact before its flag existed (``--attention-backend`` is 0.13.0 and newer)."""


def _setting_alternatives(key: str, value: Any) -> list[tuple[str, str]]:
    """The ways to set ``key`` to ``value``, in order of preference: ``(text, the option or variable it needs)``."""
    from relialint.engines import fixedit

    out: list[tuple[str, str]] = []
    flag = FIX_FLAGS.get(key)
    if flag is not None:
        if flag in _FIX_BOOLEAN:
            spelled = f"--{flag}" if value else f"--no-{flag}"
            out.append((spelled, spelled))
        else:
            out.append((f"--{flag} {fixedit.render_value(value)}", f"--{flag}"))
    env = FIX_ENV.get(key) or (key[4:] if key.startswith("env.") else None)
    if env is not None:
        out.append((f"{env}={fixedit.render_value(value)}", env))
    return out


def setting_text(deployment: Deployment, key: str, value: Any) -> str | None:
    """``key`` set to ``value`` as the user writes it on the vLLM versions the deployment can be on."""
    alternatives = _setting_alternatives(key, value)
    return flagcheck.setting_spelling(deployment, alternatives) if alternatives else None


def fix_edits(result: FileResult, deployment: Deployment, fix_set: Any) -> list[Any] | None:
    """``fix_set`` (fact -> value) as text edits of this deployment's invocation, or ``None`` when one of them
    cannot be made as a pure, safe edit (a value from a variable or a ``--config`` file, an unhandled syntax)."""
    from relialint.engines import fixedit

    if result.kind == "vllm-config":
        return None
    launch = next((found for command in result.commands
                   if (found := recognise(command)) is not None and found.start.span == deployment.span), None)
    if launch is None:
        return None
    parsed = parse_args(launch.args)
    lines = fixedit.lines_of(result.text)
    edits: list[fixedit.TextEdit] = []
    for key, value in fix_set.items():
        edit: fixedit.TextEdit | None
        chosen = setting_text(deployment, key, value)
        env = FIX_ENV.get(key)
        if key.startswith("env."):
            edit = fixedit.set_env(result, launch.command, key[4:], fixedit.render_value(value))
        elif env is not None and chosen == f"{env}={fixedit.render_value(value)}":
            edit = fixedit.set_env(result, launch.command, env, fixedit.render_value(value))
        elif chosen is not None and " or " in chosen:
            edit = None  # no one spelling works on every version the deployment can be on
        elif key in FIX_FLAGS:
            edit = _flag_edit(lines, result, launch, parsed, deployment, key, value)
        else:
            edit = None
        if edit is None:
            return None
        edits.append(edit)
    return edits


def _flag_edit(lines: list[str], result: FileResult, launch: Launch, parsed: Parsed, deployment: Deployment,
               key: str, value: Any) -> Any:
    from relialint.engines import fixedit

    flag = FIX_FLAGS[key]
    boolean = flag in _FIX_BOOLEAN
    spelled = (f"--{flag}" if value else f"--no-{flag}") if boolean else f"--{flag}"
    opts = [opt for opt in parsed.opts if opt.name == flag and not opt.keys]
    if opts:
        opt = opts[-1]
        if boolean:
            return fixedit.replace_word(lines, opt.flag, spelled)
        text = fixedit.render_value(value)
        if opt.equals:
            return fixedit.replace_after_equals(lines, opt.flag.span, text) if opt.flag.source is None else None
        if opt.value_word is None or opt.value_word is opt.flag:
            return None
        return fixedit.replace_word(lines, opt.value_word, text)
    current = deployment.facts.get(key)
    if current is not None and current.origin != "default":
        return None  # set another way (an env var, a JSON config): adding the flag would not be the same edit
    addition = [spelled] if boolean else [spelled, fixedit.render_value(value)]
    return fixedit.append_words(lines, result, launch.command.argv or [launch.start], addition)

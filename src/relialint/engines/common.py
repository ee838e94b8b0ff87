"""What both engine models share: located facts from words, model-name facts, GPU counts from env vars."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal, Protocol, TypeVar

from relialint.base import bounds, lazyre
from relialint.base.plain import replace
from relialint.core.deployment import Deployment
from relialint.core.facts import Fact, FactSet, Origin, Value, Withheld
from relialint.core.versions import Version, VersionError, parse_in_family, parse_version
from relialint.readers.located import Branch, Command, EnvVar, FileResult, ReadError, Span, Word
from relialint.readers.opener import FileOpener as FileOpener  # the one opener type; engines take it from here

LLAMA_OPTIONS = frozenset({
    "-ngl", "--n-gpu-layers", "--gpu-layers", "--ctx-size", "-ctk", "-ctv", "--cache-type-k", "--cache-type-v",
    "-ub", "--ubatch-size", "--mlock", "--no-mmap", "-fa", "-ot", "--override-tensor", "--n-cpu-moe", "-ncmoe",
    "-np", "-cb", "--cont-batching", "--jinja", "-hf", "--hf-repo", "--hf-file", "-sm",
})
"""llama-server options that no other engine here spells so (llama-cpp-python writes ``--n_gpu_layers``)."""


_LLAMA_HINTS = ("llama-server", "llama.cpp", "llama serve", "llama server", "llama-cpp", "llama_cpp", "ggml", "gguf",
                "llama_arg_", "llama-b")
"""Words only a llama.cpp deployment has (the program, its images, GGUF files); not "llama" alone, which model
names hold."""


def may_launch_llama(result: FileResult) -> bool:
    """Whether a file can hold a llama.cpp launch at all (its name, a GGUF file, one of its options or variables):
    the llama.cpp engine is imported only then, so a vLLM script does not pay for it at start-up."""
    text = result.text.lower()
    if any(hint in text for hint in _LLAMA_HINTS) or any(o in text for o in LLAMA_OPTIONS):
        return True
    return any(var.name.startswith("LLAMA_ARG_") for command in result.commands for var in command.env)

def at(value: Value | None, origin: Origin, span: Span | None, note: str | None = None) -> Fact:
    if span is None:
        return Fact(value, origin, note=note)
    return Fact(value, origin, span.path, span.line, span.column, span.end_line, span.end_column, note)


def word_fact(value: Value | None, origin: Origin, word: Word, note: str | None = None,
              source: Span | None = None) -> Fact:
    """A fact located at a word; where the value was substituted from elsewhere (``source``, else the word's own),
    the fact says where, and so does its note."""
    src = source or word.source
    if src is None:
        return at(value, origin, word.span, note)
    if note is None:
        note = f"value from {src.path}:{src.line}:{src.column}"
    return replace(at(value, origin, word.span, note), source=(src.path, src.line, src.column))


_ARGUMENT_LIST = lazyre.compile(r"ARG|OPT|FLAG|PARAM|EXTRA|CMD|COMMAND|CLI|SERVE|VLLM|LLAMA", re.I)


def model_slot_variable(word: Word) -> bool:
    """An unquoted ``$MODEL`` where the model goes (``vllm serve $MODEL``, ``--model $MODEL``, ``-m $MODEL``): read
    as one word whose value is unknown.

    The shell would split an unknown value into any number of words, but a variable written where the model goes
    holds a model name, so the linter reads it as one and keeps the defaults of every option not written. A name
    that says it holds arguments (``$ARGS``, ``$EXTRA_OPTS``, ``$VLLM_FLAGS``, ``$SERVE_CMD``...) still splits:
    options may hide in it."""
    return word.splice and word.variable is not None and not _ARGUMENT_LIST.search(word.variable)


def program(word: Word) -> str:
    """The basename of a program word (``/usr/bin/python3`` -> ``python3``; ``C:\\llama\\llama-server.exe`` ->
    ``llama-server``)."""
    name = re.split(r"[/\\]", word.text or "")[-1]
    return name[:-4] if name.lower().endswith(".exe") else name


def model_facts(name: str, word: Word, gguf: bool = False) -> dict[str, Fact]:
    """``model.name`` and what the name gives away (``model_name.infer``: origin ``inferred``, the note names the
    token that decided it); a name that does not say leaves those facts unknown. ``gguf``: the name is a GGUF
    repository (llama.cpp ``-hf``)."""
    return {"model.name": word_fact(name, "flag", word), **_name_gives_away(name, word, gguf)}


def model_tail_facts(word: Word) -> dict[str, Fact]:
    """A model path whose directory is unknown but whose file name is written (:attr:`Word.tail`): ``model.name``
    unknown but located at the word, and what the file name alone gives away (``Q6_K``), located there too. Nothing
    is guessed beyond the written file name."""
    if word.text is not None or not word.tail:
        return {}
    note = f"the file name {word.tail} is written; the directory before it is not known"
    return {"model.name": word_fact(None, "flag", word, note), **_name_gives_away(word.tail, word, False)}


def _name_gives_away(name: str, word: Word, gguf: bool) -> dict[str, Fact]:
    """What a model name (or file name) says (``model_name.infer``), located at ``word``."""
    from relialint.engines import model_name

    return {i.key: word_fact(i.value, "inferred", word, i.note) for i in model_name.infer(name, gguf)}


_VISIBLE = ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES")


def visible_gpu_count(env: list[EnvVar]) -> tuple[int, EnvVar] | None:
    """``CUDA_VISIBLE_DEVICES=0,1`` (or the HIP/ROCR equivalents) as a GPU count, when it is a literal list."""
    for var in reversed(env):
        if var.name in _VISIBLE:
            if var.value is None:
                return None
            items = [item for item in var.value.split(",") if item.strip()]
            if items and all(re.fullmatch(r"\s*(\d+|GPU-[0-9a-fA-F-]+)\s*", item) for item in items):
                return len(items), var
            return None
    return None


def apply_env(deployment: Deployment, command: Command, prefixes: tuple[str, ...]) -> None:
    """Every env var as ``env.NAME``; the ``env.`` namespace is closed when the whole environment is known."""
    facts = deployment.facts
    for var in command.env:
        facts.set(f"env.{var.name}", at(var.value, "env", var.span,
                                         _source_note(var.source) if var.source else None))
        if var.value is None and var.held is not None:  # set by a secret or a field: present, value unknown
            facts.set(f"env.{var.name}", at(Withheld(var.held), "env", var.span, "the value is not in the file"))
        elif var.value is None:
            facts.unknown(f"env.{var.name}")
    if command.env_complete:
        facts.closed.add("env.")
    count = visible_gpu_count(command.env)
    if count is not None:
        n, var = count
        facts.set("gpu.count", at(n, "env", var.span))
    elif command.gpu_count is not None:
        facts.set("gpu.count", at(command.gpu_count, "manifest", command.gpu_count_span))
    del prefixes


def _source_note(span: Span | None) -> str | None:
    return f"value from {span.path}:{span.line}:{span.column}" if span else None


def env_value(facts: FactSet, name: str) -> Fact | None:
    return facts.get(f"env.{name}")


def version_or_none(text: str) -> Value | None:
    try:
        return parse_version(text)
    except VersionError:
        return None


Extractor = Callable[..., list[Deployment]]


# -- the extract loop both engines share ----------------------------------------------------------------------------


class InferredSite(Protocol):
    """Why an engine was inferred from a container's options alone (``inference.Inferred``, which imports this
    module): where the deciding token is, and a note naming it."""

    @property
    def span(self) -> Span: ...

    @property
    def note(self) -> str: ...

    @property
    def unseen(self) -> bool: ...


UNSEEN = ("the launch is not in the file: the container runs its image's own command, which may pass any option (each "
          "one not written here is unknown, not absent)")


class LaunchSite(Protocol):
    """What the shared extract loop reads of an engine's recognised launch: where it starts, and, for an image that
    does not name its engine, why the engine was inferred."""

    @property
    def start(self) -> Word: ...

    @property
    def inferred(self) -> InferredSite | None: ...


LaunchT = TypeVar("LaunchT", bound=LaunchSite)


def extract_launches(result: FileResult, engine: str, limit: int | None,
                     recognise: Callable[[Command], LaunchT | None],
                     apply: Callable[[Deployment, Command, LaunchT], None],
                     observe: Callable[[Command], bool] | None = None) -> list[Deployment]:
    """The deployments of one file's commands for one engine, in file order: each command is first shown to
    ``observe`` (what an earlier command tells later launches: a ``pip install`` pin, a ``cmake`` configure line;
    ``True``: the command is that and launches nothing), then to ``recognise``; a launch becomes a
    :func:`launch_deployment` whose engine-specific facts ``apply`` sets (given the command as read, which may differ
    from the launch's own). With ``limit``, it stops after that many (a generated file: the caller says the rest
    are left out)."""
    deployments: list[Deployment] = []
    for command in result.commands:
        if limit is not None and len(deployments) >= limit:
            break
        if observe is not None and observe(command):
            continue
        launch = recognise(command)
        if launch is None:
            continue
        deployment = launch_deployment(engine, result.kind, launch.start, launch.inferred, command.branch)
        apply(deployment, command, launch)
        deployments.append(deployment)
    return deployments


def launch_deployment(engine: str, kind: str, start: Word, inferred: InferredSite | None = None,
                      branch: Branch = ()) -> Deployment:
    """A deployment located at the word that starts the launch, with ``engine.name``: inferred from the launch's
    form, located where the inference says when the engine was told by the options alone."""
    deployment = Deployment(engine, kind, start.span, branch=branch)
    if inferred is not None:
        deployment.facts.set("engine.name", at(engine, "inferred", inferred.span, inferred.note))
        if inferred.unseen:
            deployment.unseen = UNSEEN
    else:
        deployment.facts.set("engine.name", at(engine, "inferred", start.span))
    return deployment


def _looks_local(name: str) -> bool:
    return name.startswith(("/", "./", "../", "~/")) or name in (".", "..")


def checkpoint_facts(name: str, referrer: str, opener: FileOpener | None,
                     notes: list[str] | None = None) -> dict[str, Fact]:
    """Facts from a local checkpoint's ``config.json`` ``quantization_config`` (read only, never the network).

    A model id (``org/name``) is not a path here: hub checkpoints are never fetched. A checkpoint outside the project
    root is not read: ``notes`` gets why."""

    if opener is None or not _looks_local(name) or name.startswith("~"):
        return {}
    found = opener(referrer, name.rstrip("/") + "/config.json")
    if isinstance(found, ReadError):
        if notes is not None:
            notes.append(f"checkpoint {name}: config.json {found.message}; its quantization is unknown")
        return {}
    if found is None:
        return {}
    text, display = found
    try:
        config = bounds.json_loads(text)
    except ValueError:
        return {}
    quant = config.get("quantization_config") if isinstance(config, dict) else None
    if not isinstance(quant, dict):
        if isinstance(config, dict) and quant is None:
            # an unquantized checkpoint declares no KV-cache scheme and ships no KV-cache scales either
            whole = Span(display, 1, 1, 1, 1)
            return {"model.kv_cache_scheme": at(False, "config-file", whole),
                    "model.kv_cache_scales": at(None, "config-file", whole)}
        return {}
    line = next((i + 1 for i, row in enumerate(text.splitlines()) if '"quantization_config"' in row), 1)
    column = text.splitlines()[line - 1].find('"quantization_config"') + 1 if text else 1
    span = Span(display, line, max(column, 1), line, max(column, 1) + len('"quantization_config"'))
    scheme, weight_only = _scheme(quant)
    out: dict[str, Fact] = {}
    if scheme is not None:
        out["model.quantization"] = at(scheme, "config-file", span)
    if weight_only is not None:
        out["model.weight_only"] = at(weight_only, "config-file", span)
    # vLLM's attention layer switches a KV cache dtype of `auto` to fp8 when the quantization config carries a
    # kv_cache_scheme that is not null (model_executor/layers/attention/attention.py from 0.15.0); weight-only and
    # W8A8 checkpoints usually write null there.
    out["model.kv_cache_scheme"] = at(quant.get("kv_cache_scheme") is not None, "config-file", span)
    block = _fp8_block(quant, scheme)
    if block is not None:
        out["model.fp8_block"] = at(block, "config-file", span)
    kv_scales = _kv_cache_scales(quant)
    if kv_scales is not False:
        out["model.kv_cache_scales"] = at(kv_scales, "config-file", span)
    return out


def _fp8_block(quant: dict[str, object], scheme: str | None) -> bool | None:
    """Whether an FP8 checkpoint's weights are scaled per block: ``weight_block_size`` (the ``fp8`` method) or a
    compressed-tensors weight strategy ``block``; ``None`` for a checkpoint that is not FP8."""
    if scheme != "fp8":
        return None
    if quant.get("weight_block_size") is not None:
        return True
    groups = quant.get("config_groups")
    if isinstance(groups, dict):
        strategies = [g.get("weights", {}).get("strategy") for g in groups.values()
                      if isinstance(g, dict) and isinstance(g.get("weights"), dict)]
        return any(str(s).lower() == "block" for s in strategies)
    return False


def _kv_cache_scales(quant: dict[str, object]) -> str | Literal[False] | None:
    """Whether ``quantization_config`` ships calibrated KV-cache scales: the format's name, ``None`` when the
    config says it ships none, ``False`` when this format does not say (the fact stays unknown).

    compressed-tensors (llm-compressor) writes ``kv_cache_scheme`` (``null`` without KV quantization); ModelOpt
    writes ``kv_cache_quant_algo`` (``null``/absent without)."""
    method = str(quant.get("quant_method", "")).lower()
    if method == "compressed-tensors":
        return "compressed-tensors" if quant.get("kv_cache_scheme") is not None else None
    if method == "modelopt":
        return "modelopt" if quant.get("kv_cache_quant_algo") is not None else None
    return False


def _scheme(quant: dict[str, object]) -> tuple[str | None, bool | None]:
    """``quantization_config`` to (scheme, weight-only) as the fact vocabulary names them."""
    method = str(quant.get("quant_method", "")).lower()
    if method in ("awq", "gptq"):
        return method, True
    if method in ("fp8", "mxfp4"):
        return method, False if method == "fp8" else None
    if method == "modelopt":
        algo = str(quant.get("quant_algo", "")).upper()
        return {"NVFP4": "nvfp4", "FP8": "fp8", "W4A16_NVFP4": "nvfp4"}.get(algo), (
            True if "W4A16" in algo else None)
    if method == "compressed-tensors":
        fmt = str(quant.get("format", "")).lower()
        groups = quant.get("config_groups")
        weight_only: bool | None = None
        if isinstance(groups, dict) and groups:
            activations = [g.get("input_activations") for g in groups.values() if isinstance(g, dict)]
            weight_only = all(a is None for a in activations)
        if "nvfp4" in fmt:
            return "nvfp4", weight_only
        if "mxfp4" in fmt:
            return "mxfp4", weight_only
        if "float-quantized" in fmt:
            return "fp8", weight_only
        if "pack-quantized" in fmt:
            return "int4", weight_only
        return None, weight_only
    return None, None


# -- pip pins -------------------------------------------------------------------------------------------------------

_SPEC = r"(?:===?|!=|~=|<=?|>=?)\s*[\w.*+!]+"


def is_pip_install(command: Command) -> bool:
    """``pip install ...``, ``pip3 install``, ``uv pip install``, ``python -m pip install``."""
    words = [w.text or "" for w in command.argv[:4]]
    if not words:
        return False
    head = words[0].rsplit("/", 1)[-1]
    pip = head in ("pip", "pip3") and "install" in words[1:3]
    uv = head == "uv" and words[1:3] == ["pip", "install"]
    module = bool(re.fullmatch(r"python(\d(\.\d+)?)?", head)) and words[1:4] == ["-m", "pip", "install"]
    return pip or uv or module


def pip_pin(command: Command, package: str) -> tuple[Version | str, Span] | None:
    """``pip install PACKAGE==X`` (extras allowed: ``sglang[all]==0.4.6``) as a version; ``PACKAGE>=X``,
    ``PACKAGE>=X,<Y``, ``PACKAGE==0.10.*`` as a PEP 440 specifier (``engine.version_range``); ``None`` for any other
    command."""
    if not is_pip_install(command):
        return None
    name = re.escape(package)
    for word in command.argv:
        match = re.fullmatch(name + r"(?:\[[\w,]+\])?==([\w.]+)", word.text or "")
        if match:
            try:
                return parse_in_family(False, match.group(1)), word.span
            except VersionError:
                return None
        ranged = re.fullmatch(name + rf"(?:\[[\w,\-]+\])?\s*({_SPEC}(?:\s*,\s*{_SPEC})*)", (word.text or "").strip(),
                              re.I)
        if ranged:
            from packaging.specifiers import InvalidSpecifier, SpecifierSet

            spec = re.sub(r"\s+", "", ranged.group(1))
            try:
                SpecifierSet(spec)
            except InvalidSpecifier:
                return None
            return spec, word.span
    return None


# -- what the server listens on and whether it asks for a key -------------------------------------------------------


def serve_facts(deployment: Deployment, prefix: str, key_options: tuple[str, ...], key_env: tuple[str, ...],
                env_sets: bool = True, host_env: tuple[str, ...] = ()) -> None:
    """``serve.host`` and ``serve.api_key`` from the launch's options as written (``prefix``: ``flag.vllm.``) and
    the variables that set a key. ``serve.host`` is the ``--host`` value (no default is assumed; where the option
    is given from a variable the file does not show, it is unknown; known unset where the command line is complete
    and gives none, nor a variable of ``host_env``). ``serve.api_key`` is true where an option or
    variable sets a non-empty key (a secret's value counts), false where the options and the variables are all
    known and none sets one, else unknown. With ``env_sets`` false the variables only make the key unknown when
    they are not known (llama.cpp: its engine module turns them into the options already, build by build)."""
    facts = deployment.facts
    host = facts.facts.get(prefix + "host")
    if host is not None and host.value is not None:
        facts.set("serve.host", replace(host, note=host.note or f"{prefix}host"))
    elif prefix + "host" in facts.blocked:
        facts.unknown("serve.host")
    elif (host is None or host.origin == "inferred") and facts.get(prefix + "host") is not None and all(
            (var := facts.get("env." + name)) is not None and var.value is None for name in host_env):
        # no --host on a complete command line (nor a variable that sets it): known unset, no default assumed
        facts.set("serve.host", at(None, "default", deployment.span, "no --host is given: the engine's own default "
                                                                      "address applies"))
    unknown = False
    keys = [(prefix + name, True) for name in key_options] + [("env." + name, env_sets) for name in key_env]
    for key, counts in keys:
        fact = facts.get(key)
        if fact is None or (fact.value is None and fact.origin in ("flag", "env", "config-file")):
            unknown = True  # not known, or written with a value the file does not give
        elif fact.value is None or (isinstance(fact.value, str) and not fact.value.strip()):
            continue  # not set, or set to nothing: no key (an empty --api-key asks for none)
        elif counts:
            note = f"{key.removeprefix(prefix) if key.startswith(prefix) else key.removeprefix('env.')} sets an API key"
            facts.set("serve.api_key", replace(fact, value=True, note=note))
            return
    if not unknown:
        facts.set("serve.api_key", at(False, "default", deployment.span,
                                      "the launch's options and environment are all known and set no API key"))


# -- adapters outside the container's mounts ------------------------------------------------------------------------


def lora_fact(deployment: Deployment, paths: list[tuple[str | None, Span]], complete: bool) -> None:
    """``lora.unmounted_path``: the first absolute adapter path (``paths``: each adapter as written, ``None`` where
    the file does not give it) under none of ``container.mount_targets``; known unset where every adapter is known
    and mounted (or none is given on a complete command line); only where the mount targets are known. A hub repo id
    or a relative path is never unmounted. A path the image itself holds (a ``COPY`` into it) is not a mount either:
    the fact says only that no mount brings it."""
    facts = deployment.facts
    mounts = facts.get("container.mount_targets")
    if mounts is None or not isinstance(mounts.value, str):
        return
    targets = [t for t in mounts.value.split(",") if t]
    unknown = not complete
    for text, span in paths:
        if text is None:
            unknown = True
            continue
        if not text.startswith("/"):
            continue
        path = text.rstrip("/") or "/"
        if any(t == "/" or path == t or path.startswith(t + "/") for t in targets):
            continue
        facts.set("lora.unmounted_path", at(text, "flag", span, f"no mount of the container ({mounts.value}) holds "
                                                                "this adapter"))
        return
    if not unknown:
        facts.set("lora.unmounted_path", at(None, "inferred", mounts_span(mounts),
                                            "every adapter path is under a mount of the container"))


def mounts_span(fact: Fact) -> Span | None:
    if fact.path is None or fact.line is None or fact.column is None:
        return None
    return Span(fact.path, fact.line, fact.column, fact.end_line or fact.line, fact.end_column or fact.column)


def vllm_lora_paths(args: list[Word]) -> list[tuple[str | None, Span]]:
    """The adapter paths of vLLM ``--lora-modules name=path ...`` (``nargs='+'``, and the JSON form
    ``{"name": ..., "path": ...}``), each at its word."""
    import json

    out: list[tuple[str | None, Span]] = []
    i = 0
    while i < len(args):
        text = args[i].text or ""
        i += 1
        if text != "--lora-modules" and not text.startswith("--lora-modules="):
            continue
        values = [Word(text.partition("=")[2], args[i - 1].span)] if text.startswith("--lora-modules=") else []
        while not text.startswith("--lora-modules=") and i < len(args) and not (args[i].text or "").startswith("-"):
            values.append(args[i])
            i += 1
        for word in values:
            value = word.text
            if value is None:
                out.append((None, word.span))
            elif value.lstrip().startswith("{"):
                try:
                    loaded = json.loads(value)
                except ValueError:
                    continue
                path = loaded.get("path") if isinstance(loaded, dict) else None
                if isinstance(path, str):
                    out.append((path, word.span))
            elif "=" in value:
                out.append((value.partition("=")[2], word.span))
    return out


def llama_lora_paths(args: list[Word]) -> list[tuple[str | None, Span]]:
    """The adapter files of llama.cpp ``--lora FNAME`` and ``--lora-scaled FNAME SCALE`` (newer builds also take
    ``FNAME:SCALE`` and comma-separated lists), each at its word."""
    out: list[tuple[str | None, Span]] = []
    for i, word in enumerate(args[:-1]):
        if word.text not in ("--lora", "--lora-scaled"):
            continue
        value = args[i + 1]
        if value.text is None:
            out.append((None, value.span))
            continue
        for part in value.text.split(","):
            path = part.split(":", 1)[0] if word.text == "--lora-scaled" else part
            if path:
                out.append((path, value.span))
    return out

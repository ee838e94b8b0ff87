"""The vLLM production-stack chart (``vllm-stack``): each ``servingEngineSpec.modelSpec[]`` entry rendered the way
``helm/templates/deployment-vllm-multi.yaml`` renders it.

The template names the keys it reads; any other ``vllmConfig`` key renders nothing (a warning says so). What it
renders changed between chart versions (``docs/fact-sources.md`` cites the template at each):

* every version read: ``vllm serve MODEL_URL``, ``maxModelLen``, ``dtype``, ``tensorParallelSize`` as flags,
  ``enablePrefixCaching`` (when true) as ``--enable-prefix-caching``, ``extraArgs`` items as words, and the
  ``modelSpec.env`` list;
* chart 0.1.2 on: ``enableChunkedPrefill`` as ``--enable-chunked-prefill``/``--no-enable-chunked-prefill``,
  ``maxNumSeqs``, ``gpuMemoryUtilization``, ``maxLoras``, ``enableLoRA``, ``enableTool``, ``toolCallParser``;
* older templates (0.1.2 among them): ``vllmConfig.v1`` becomes ``VLLM_USE_V1`` (falsy: ``0``); ``v0`` is not read;
* the current template: ``vllmConfig.v0: 1`` becomes ``VLLM_USE_V1=0`` and ``v1`` is not read; a false or absent
  ``enablePrefixCaching`` renders ``--no-enable-prefix-caching``.

Which template applies: the chart version from ``Chart.yaml`` beside the values (0.1.2 is the one tied to a
template); otherwise the keys decide, since each template reads only its own switch (``v1`` only the older ones,
``v0`` only the current one); otherwise the current template, which ``helm install`` takes by default. Where the
templates that could apply disagree, the disputed word is left out rather than guessed.
"""

from __future__ import annotations

from relialint.readers.helmvalues import Chart, pair_span, render, truthy, version_tuple
from relialint.readers.kubernetes import container_env, helm_labels, term_labels
from relialint.readers.located import Command, EnvVar, FileResult, ReadError, Span, Word
from relialint.readers.yamlsafe import YMap, YNode, YScalar, YSeq
from relialint.readers.yamlwords import map_items, scalar_text, seq_items

CHART = "vllm-stack"

# vllmConfig keys some template reads (``runner`` and ``convert`` are in the newest values schema; their rendering
# was not read, so they give no word and no warning); anything else renders nothing
_READ = {"enableChunkedPrefill", "enablePrefixCaching", "maxModelLen", "dtype", "tensorParallelSize", "maxNumSeqs",
         "gpuMemoryUtilization", "maxLoras", "extraArgs", "v0", "v1", "prometheusMultiprocDir", "runner", "convert"}
_VALUE_FLAGS = (("maxModelLen", "--max-model-len"), ("dtype", "--dtype"),
                ("tensorParallelSize", "--tensor-parallel-size"))
_VALUE_FLAGS_012 = (("maxNumSeqs", "--max-num-seqs"), ("gpuMemoryUtilization", "--gpu_memory_utilization"),
                    ("maxLoras", "--max_loras"))


def template(chart: Chart, config: YMap | None) -> str:
    """``"v1"`` (the older templates that read ``vllmConfig.v1``), ``"v0"`` (the current one), or ``"either"``."""
    version = version_tuple(chart.version)
    if version is not None and version <= (0, 1, 2):
        return "v1"
    if config is not None and config.get("v0") is not None:
        return "v0"
    if config is not None and config.get("v1") is not None:
        return "v1"
    return "v0" if version is None else "either"


def read_model(model: YMap, chart: Chart, result: FileResult) -> None:
    repository = model.get("repository")
    tag = model.get("tag")
    image: Word | None = None
    if isinstance(repository, YScalar) and repository.value is not None:
        tag_text = render(tag) if isinstance(tag, YScalar) and tag.value is not None else ""
        image = Word(repository.text + (f":{tag_text}" if tag_text else ""),
                     tag.span if isinstance(tag, YScalar) and tag_text else repository.span)
    where = repository.span if isinstance(repository, YScalar) else model.span
    entrypoint = [Word("vllm", where), Word("serve", where)]
    argv: list[Word] = []
    url = model.get("modelURL")
    if isinstance(url, YScalar) and url.value is not None:
        argv.append(Word(render(url), url.span))
    for key, value in map_items(model):
        if key.text == "enableLoRA" and truthy(value):
            argv.append(Word("--enable-lora", key.span))
        elif key.text == "enableTool" and truthy(value):
            argv.append(Word("--enable-auto-tool-choice", key.span))
        elif key.text == "toolCallParser" and truthy(value) and isinstance(value, YScalar):
            argv.extend([Word("--tool-call-parser", key.span), Word(render(value), value.span)])
    config_key = next((k for k, _ in map_items(model) if k.text == "vllmConfig"), None)
    config = model.get("vllmConfig")
    env: list[EnvVar] = []
    if isinstance(config, YMap) and config_key is not None and truthy(config):
        which = template(chart, config)
        argv.extend(_config_words(config, config_key, which, result))
        env.extend(_config_env(config, which))
    pod_env, complete = container_env(model)
    env.extend(pod_env)
    count: int | None = None
    count_span: Span | None = None
    gpu = model.get("requestGPU")
    number = _gpu_number(gpu)
    if number is not None and gpu is not None:
        count, count_span = number, gpu.span
    labels = term_labels(seq_items(model.get("nodeSelectorTerms")))
    resource = _gpu_resource(model, number) if number is not None and number > 0 else None
    if resource is not None:
        labels.append(resource)
    name = scalar_text(model.get("name"))
    result.commands.append(Command("container", argv, image.span if image else where, env, complete, image,
                                   entrypoint, name, count, count_span, labels))
    result.commands[-1].container_labels = helm_labels(None, result.commands[-1].span)


def _gpu_number(value: YNode | None) -> int | None:
    """``requestGPU`` as the count the templates render (Helm's ``int`` reads a quoted count too)."""
    if not isinstance(value, YScalar) or isinstance(value.value, bool):
        return None
    if isinstance(value.value, int):
        return value.value
    return int(value.text.strip()) if value.text.strip().isdigit() else None


def _gpu_resource(model: YMap, number: int) -> tuple[str, str, Span] | None:
    """The GPU resource ``requestGPU`` (``number``, above 0) renders in the pod's requests and limits, as a label for
    the manifest facts.
    ``_helpers.tpl`` (``chart.resources``) renders ``{{ $gpuType }}: "N"`` when ``requestGPU`` is above 0, with
    ``$gpuType := default "nvidia.com/gpu" $modelSpec.requestGPUType``; older templates write ``nvidia.com/gpu``
    itself. Another ``requestGPUType`` is disputed between those templates, so it gives no label."""
    for key, value in map_items(model):
        if key.text != "requestGPU":
            continue
        kind = model.get("requestGPUType")
        kind_text = render(kind) if isinstance(kind, YScalar) and truthy(kind) else "nvidia.com/gpu"
        if kind_text != "nvidia.com/gpu":
            return None
        return kind_text, str(number), pair_span(key, value)
    return None


def _config_words(config: YMap, config_key: YScalar, which: str, result: FileResult) -> list[Word]:
    words: list[Word] = []
    for key, _ in config.items:
        if key.text not in _READ:
            result.errors.append(ReadError(key.span.path, key.span.line, key.span.column,
                                           f"vllmConfig.{key.text} is not a key the production-stack chart's "
                                           "templates render: it is ignored (put the option in "
                                           "vllmConfig.extraArgs)",
                                           "warning"))
    chunked = config.get("enableChunkedPrefill")
    if chunked is not None:
        words.append(Word("--enable-chunked-prefill" if truthy(chunked) else "--no-enable-chunked-prefill",
                          _key(config, "enableChunkedPrefill")))
    prefix = config.get("enablePrefixCaching")
    if truthy(prefix):
        words.append(Word("--enable-prefix-caching", _key(config, "enablePrefixCaching")))
    elif which == "v0":
        where = _key(config, "enablePrefixCaching") if prefix is not None else config_key.span
        words.append(Word("--no-enable-prefix-caching", where))
    for name, flag in (*_VALUE_FLAGS, *_VALUE_FLAGS_012):
        node = config.get(name)
        if node is None:
            continue
        text = render(node) if isinstance(node, YScalar) else None
        words.extend([Word(flag, _key(config, name)), Word(text, node.span)])
    extra = config.get("extraArgs")
    if isinstance(extra, YSeq) and truthy(extra):
        for item in extra.items:
            words.append(Word(render(item) if isinstance(item, YScalar) else None, item.span))
    return words


def _config_env(config: YMap, which: str) -> list[EnvVar]:
    for key, value in config.items:
        if key.text == "v0" and which == "v0" and isinstance(value, YScalar) and render(value) == "1":
            return [EnvVar("VLLM_USE_V1", "0", pair_span(key, value))]
        if key.text == "v1" and which == "v1":
            text = render(value) if isinstance(value, YScalar) and truthy(value) else "0"
            return [EnvVar("VLLM_USE_V1", text, pair_span(key, value))]
    return []


def _key(config: YMap, name: str) -> Span:
    for key, _ in config.items:
        if key.text == name:
            return key.span
    return config.span

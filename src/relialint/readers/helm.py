"""Helm values of the vLLM production-stack chart, recognised by shape (``servingEngineSpec.modelSpec[]``).

Each model spec becomes the container the chart's template renders: image ``repository:tag``, command
``vllm serve MODEL_URL`` followed by one flag per ``vllmConfig`` key (camelCase to ``--kebab-case``; ``true``
gives the flag, ``false`` the ``--no-`` form), then ``vllmConfig.extraArgs``; ``env`` as in a pod spec;
``requestGPU`` as the GPU count; ``nodeSelectorTerms`` as node-selection labels. Synthesised words point at
the values key that produced them.
"""

from __future__ import annotations

import re

from relialint.readers.kubernetes import _env, term_labels
from relialint.readers.located import Command, EnvVar, FileResult, Span, Word
from relialint.readers.yamlsafe import YamlError, YMap, YNode, YScalar, YSeq
from relialint.readers.yamlwords import Src, list_words, load, map_items, scalar_text, seq_items, yaml_error

_SKIP = {"extraArgs", "v1", "lmcacheConfig", "env", "runtimeClassName"}


def read(text: str, path: str) -> FileResult:
    result = FileResult(path, "helm", text=text)
    try:
        documents = load(text, path)
    except YamlError as exc:
        result.errors.append(exc.error)
        return result
    root = documents[0] if documents else None
    spec = root.get("servingEngineSpec") if isinstance(root, YMap) else None
    if not isinstance(spec, YMap):
        result.errors.append(yaml_error(path, root, "no `servingEngineSpec:`; not production-stack values", "error"))
        return result
    src = Src(text, path)
    for model in seq_items(spec.get("modelSpec")):
        if isinstance(model, YMap):
            _model(model, src, result)
    return result


def _kebab(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"-\1", name).lower().replace("_", "-")


def _model(model: YMap, src: Src, result: FileResult) -> None:
    repository = model.get("repository")
    tag = model.get("tag")
    image: Word | None = None
    if isinstance(repository, YScalar) and repository.value is not None:
        tag_text = scalar_text(tag)
        text = repository.text + (f":{tag_text}" if tag_text else "")
        image = Word(text, tag.span if isinstance(tag, YScalar) and tag_text else repository.span)
    where = repository.span if isinstance(repository, YScalar) else model.span
    entrypoint = [Word("vllm", where), Word("serve", where)]
    argv: list[Word] = []
    url = model.get("modelURL")
    if isinstance(url, YScalar) and url.value is not None:
        argv.append(Word(url.text, url.span))
    env: list[EnvVar] = []
    config = model.get("vllmConfig")
    for key, value in map_items(config):
        if key.text in _SKIP:
            if key.text == "v1" and isinstance(value, YScalar) and value.value is not None:
                env.append(EnvVar("VLLM_USE_V1", value.text, Span(key.span.path, key.span.line, key.span.column,
                                                                  value.span.end_line, value.span.end_column)))
            continue
        flag = _kebab(key.text)
        if isinstance(value, YScalar):
            if value.value is True:
                argv.append(Word(f"--{flag}", key.span))
            elif value.value is False:
                argv.append(Word(f"--no-{flag}", key.span))
            elif value.value is not None:
                argv.extend([Word(f"--{flag}", key.span), Word(value.text, value.span)])
        elif isinstance(value, YMap | YSeq):
            from json import dumps

            from relialint.readers.yamlsafe import plain

            argv.extend([Word(f"--{flag}", key.span), Word(dumps(plain(value)), value.span)])
    if isinstance(config, YMap):
        argv.extend(list_words(config.get("extraArgs"), src))
    pod_env, complete = _env(model)
    env.extend(pod_env)
    count: int | None = None
    count_span: Span | None = None
    gpu = model.get("requestGPU")
    if isinstance(gpu, YScalar) and isinstance(gpu.value, int):
        count, count_span = gpu.value, gpu.span
    labels = _labels(model.get("nodeSelectorTerms"))
    name = scalar_text(model.get("name"))
    result.commands.append(Command("container", argv, image.span if image else where, env, complete, image,
                                   entrypoint, name, count, count_span, labels))


def _labels(node: YNode | None) -> list[tuple[str, str, Span]]:
    return term_labels(seq_items(node))

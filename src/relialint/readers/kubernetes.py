"""Kubernetes manifests: every container of every pod template, located.

Multi-document files and ``List`` kinds; any object that holds a pod spec (Pod, Deployment, StatefulSet,
DaemonSet, Job, CronJob, LeaderWorkerSet leader/worker templates, KServe InferenceService predictors and
ServingRuntimes, and other custom resources with a ``containers`` list). ``command`` is the entrypoint override,
``args`` the arguments; ``env`` literal values are known, ``valueFrom`` and ``envFrom`` are not; ``$(VAR)`` in
``command``/``args``/``env`` takes an earlier env var's value as Kubernetes does (``$$(VAR)`` is a literal).
Node selection (``nodeSelector``, required node affinity) and ``nvidia.com/gpu``/``amd.com/gpu`` resource counts
and MIG slices (``nvidia.com/mig-*``) are passed on as GPU labels; mapping them onto GPU facts is not a reader's job.
"""

from __future__ import annotations

import re

from relialint.readers import bounded
from relialint.readers.located import EnvVar, FileResult, Span, Word
from relialint.readers.opener import FileOpener
from relialint.readers.yamlsafe import YMap, YNode, YScalar, YSeq
from relialint.readers.yamlwords import (
    Placed,
    Resolved,
    Src,
    container_commands,
    map_items,
    mappings,
    scalar_text,
    seq_items,
    substitute,
    words_with_nodes,
)

_REF = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.\-]*)\)")
MAX_SEARCH_DEPTH = 12
GPU_RESOURCES = ("nvidia.com/gpu", "amd.com/gpu", "gpu.intel.com/i915", "gpu.intel.com/xe")
MIG_RESOURCE = "nvidia.com/mig-"
"""NVIDIA's device plugin under the mixed MIG strategy: one resource per MIG profile (``nvidia.com/mig-1g.10gb``)."""


class _Refs:
    def __init__(self, env: list[EnvVar]) -> None:
        self.env = {var.name: var for var in env}

    def __call__(self, raw: str, span: Span) -> tuple[str | None, Span | None]:
        del span
        return substitute(raw, _REF, self._one)

    def raw_offsets(self, raw: str) -> list[int] | None:
        """Where each character of the expanded value was written in ``raw`` (``yamlwords.Expander``)."""
        offsets: list[int] = []
        return offsets if substitute(raw, _REF, self._one, offsets)[0] is not None else None

    def _one(self, match: re.Match[str]) -> Resolved:
        """One ``$(VAR)``: a container env var defined before; any other reference stays as written."""
        var = self.env.get(match.group(1))
        if var is None:
            return match.group(0), None
        if var.value is None:
            return None, None
        return var.value, var.source or var.span


@bounded.budgeted
def read(text: str, path: str, opener: FileOpener) -> FileResult:
    """Read a Kubernetes manifest. Never raises on bad input: YAML problems are located errors."""
    result = FileResult(path, "kubernetes", text=text)
    src, documents = mappings(text, path, result, opener)
    for document in documents:
        _object(document, src, result, [], 0)
    return result


def _object(node: YNode, src: Src, result: FileResult, labels: list[tuple[str, str, Span]], depth: int) -> None:
    """Find pod specs under ``node`` (a ``containers`` list), carrying node-selection labels downward."""
    if depth > MAX_SEARCH_DEPTH:
        return
    if isinstance(node, YSeq):
        for item in node.items:
            _object(item, src, result, labels, depth + 1)
        return
    if not isinstance(node, YMap):
        return
    here = labels + _node_labels(node)
    containers = node.get("containers")
    if isinstance(containers, YSeq):
        for container in containers.items:
            if isinstance(container, YMap):
                _container(container, src, result, here)
    model = node.get("model")
    if isinstance(model, YMap) and (model.get("image") is not None or model.get("args") is not None) \
            and isinstance(node.get("containers"), YSeq) is False:
        _container(model, src, result, here)
    for key, value in node.items:
        if key.text in ("containers", "initContainers", "ephemeralContainers", "nodeSelector", "affinity",
                        "metadata", "status"):
            continue
        if isinstance(value, YMap | YSeq):
            _object(value, src, result, here, depth + 1)


def _node_labels(spec: YMap) -> list[tuple[str, str, Span]]:
    labels: list[tuple[str, str, Span]] = []
    for key, value in map_items(spec.get("nodeSelector")):
        text = scalar_text(value)
        if text is not None:
            labels.append((key.text, text, Span(key.span.path, key.span.line, key.span.column,
                                                value.span.end_line, value.span.end_column)))
    affinity = spec.get("affinity")
    node_affinity = affinity.get("nodeAffinity") if isinstance(affinity, YMap) else None
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution") \
        if isinstance(node_affinity, YMap) else None
    terms = seq_items(required.get("nodeSelectorTerms")) if isinstance(required, YMap) else []
    labels.extend(term_labels(terms))
    return labels


def term_labels(terms: list[YNode]) -> list[tuple[str, str, Span]]:
    """Node labels required by ``nodeSelectorTerms``: ``key In [values]`` of a single term (several terms are
    alternatives, so no single GPU follows from them)."""
    labels: list[tuple[str, str, Span]] = []
    if len(terms) != 1 or not isinstance(terms[0], YMap):
        return labels
    for expression in seq_items(terms[0].get("matchExpressions")):
        if not isinstance(expression, YMap):
            continue
        label = scalar_text(expression.get("key"))
        operator = scalar_text(expression.get("operator"))
        values = [scalar_text(v) for v in seq_items(expression.get("values"))]
        if label and operator == "In" and values and all(v is not None for v in values):
            labels.append((label, "|".join(v for v in values if v is not None), expression.span))
    return labels


def _container(container: YMap, src: Src, result: FileResult, labels: list[tuple[str, str, Span]]) -> None:
    env, complete = _env(container)
    refs = _Refs(env)
    nodes: dict[int, Placed] = {}
    image_node = container.get("image")
    image = Word(image_node.text, image_node.span) if isinstance(image_node, YScalar) and image_node.value else None
    entrypoint = words_with_nodes(container.get("command"), src, refs, nodes, split_strings=False) \
        if container.get("command") is not None else None
    argv = words_with_nodes(container.get("args"), src, refs, nodes, split_strings=False)
    count, count_span, gpu_labels = _resources(container)
    name = scalar_text(container.get("name"))
    span = image.span if image is not None else container.span
    if image is None and entrypoint is None and not argv:
        return
    commands = container_commands(image, entrypoint, argv, env, span, src, nodes, env_complete=complete, name=name,
                                  gpu_count=count, gpu_count_span=count_span, gpu_labels=labels + gpu_labels)
    if image is not None and entrypoint is None and not argv and len(commands) == 1:
        commands[0].argv_from_image = True  # the image's own CMD runs, unseen here
        commands[0].shows = _shows(container)
    result.commands.extend(commands)


def _shows(container: YMap) -> list[tuple[str, str, Span]]:
    """The container's name, ports, mounts and probe paths, as written (``Command.shows``)."""
    shows: list[tuple[str, str, Span]] = []
    name = container.get("name")
    if isinstance(name, YScalar) and name.value is not None:
        shows.append(("name", name.text, name.span))
    for key, what, field in (("ports", "port", "containerPort"), ("volumeMounts", "volume", "mountPath")):
        for item in seq_items(container.get(key)):
            value = item.get(field) if isinstance(item, YMap) else None
            if isinstance(value, YScalar) and value.value is not None:
                shows.append((what, value.text, value.span))
    for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
        node = container.get(probe)
        get = node.get("httpGet") if isinstance(node, YMap) else None
        path = get.get("path") if isinstance(get, YMap) else None
        if isinstance(path, YScalar) and path.value is not None:
            shows.append(("probe", path.text, path.span))
    return shows


def _env(container: YMap) -> tuple[list[EnvVar], bool]:
    out: list[EnvVar] = []
    complete = container.get("envFrom") is None
    for item in seq_items(container.get("env")):
        if not isinstance(item, YMap):
            continue
        name_node = item.get("name")
        name = scalar_text(name_node)
        if name is None or name_node is None:
            continue
        # from the variable's name (where a finding points, as in an env file) to the end of the entry (where a
        # quick fix finds its `value:`)
        where = Span(item.span.path, name_node.span.line, name_node.span.column, item.span.end_line,
                     item.span.end_column)
        value = item.get("value")
        if isinstance(value, YScalar) and (value.value is not None or value.quoted):
            resolved, source = _Refs(out)(value.text, value.span)
            out.append(EnvVar(name, resolved, where, source))
        elif item.get("valueFrom") is not None:
            out.append(EnvVar(name, None, where))
        else:
            out.append(EnvVar(name, "", where))
    return out, complete


def _resources(container: YMap) -> tuple[int | None, Span | None, list[tuple[str, str, Span]]]:
    resources = container.get("resources")
    labels: list[tuple[str, str, Span]] = []
    count: int | None = None
    count_span: Span | None = None
    if not isinstance(resources, YMap):
        return None, None, labels
    for section in ("requests", "limits"):  # limits win: the count the device plugin allocates
        for key, value in map_items(resources.get(section)):
            if key.text.startswith("google.com/tpu") and isinstance(value, YScalar):  # TPU chips: not GPUs
                labels = [lab for lab in labels if lab[0] != key.text] + [(key.text, value.text, key.span)]
            if (key.text in GPU_RESOURCES or key.text.startswith(MIG_RESOURCE)) and isinstance(value, YScalar):
                number = value.value if isinstance(value.value, int) else None
                if number is None and value.text.isdigit():
                    number = int(value.text)
                span = Span(key.span.path, key.span.line, key.span.column, value.span.end_line,
                            value.span.end_column)
                if number is not None:
                    count, count_span = number, span
                labels = [lab for lab in labels if lab[0] != key.text] + [(key.text, value.text, span)]
    return count, count_span, labels


def container_env(container: YMap) -> tuple[list[EnvVar], bool]:
    """A container's ``env:`` list as the process sees it, and whether it is complete (no ``envFrom``)."""
    return _env(container)


def container_gpus(container: YMap) -> tuple[int | None, Span | None, list[tuple[str, str, Span]]]:
    """The GPU count a container's ``resources:`` ask for (limits win), with its location and resource names."""
    return _resources(container)

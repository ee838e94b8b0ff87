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
        self.env: dict[str, EnvVar] = {var.name: var for var in env}

    def __call__(self, raw: str, span: Span) -> tuple[str | None, Span | None]:
        del span
        return substitute(raw, _REF, self._one)

    def raw_offsets(self, raw: str) -> list[int] | None:
        """Where each character of the expanded value was written in ``raw`` (``yamlwords.Expander``)."""
        offsets: list[int] = []
        return offsets if substitute(raw, _REF, self._one, offsets)[0] is not None else None

    def as_shell(self, match: re.Match[str]) -> Resolved:
        """One ``$(VAR)`` in a script a shell runs: as :meth:`_one`, but a value the file does not show is the
        shell's own ``${VAR}`` (the variable is in the process environment with that value)."""
        resolved = self._one(match)
        if resolved[0] is None and match.group(1) is not None:
            return "${" + match.group(1) + "}", None
        return resolved

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
    services = _services(documents)
    for command in result.commands:
        if command.container_labels:
            command.container_labels = command.container_labels + services
    return result


def _services(documents: list[YMap]) -> list[tuple[str, str, Span]]:
    """``("service", type)`` of each Service of the file that exposes its pods beyond the cluster (LoadBalancer,
    NodePort), for every container of the file (``Command.container_labels``)."""
    out: list[tuple[str, str, Span]] = []
    stack: list[YNode] = list(documents)
    while stack:
        node = stack.pop(0)
        if not isinstance(node, YMap):
            continue
        if scalar_text(node.get("kind")) == "List":
            stack.extend(seq_items(node.get("items")))
            continue
        spec = node.get("spec")
        kind_type = spec.get("type") if isinstance(spec, YMap) else None
        if scalar_text(node.get("kind")) == "Service" and isinstance(kind_type, YScalar) \
                and kind_type.text in ("LoadBalancer", "NodePort"):
            out.append(("service", kind_type.text, kind_type.span))
    return out


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
                _container(container, src, result, here, node)
    model = node.get("model")
    if isinstance(model, YMap) and (model.get("image") is not None or model.get("args") is not None) \
            and isinstance(node.get("containers"), YSeq) is False:
        _container(model, src, result, here, node)
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


def _container(container: YMap, src: Src, result: FileResult, labels: list[tuple[str, str, Span]],
               pod: YMap) -> None:
    env, complete = _env(container)
    refs = _Refs(env)
    nodes: dict[int, Placed] = {}
    image_node = container.get("image")
    image = Word(image_node.text, image_node.span) if isinstance(image_node, YScalar) and image_node.value else None
    entrypoint = words_with_nodes(container.get("command"), src, refs, nodes, split_strings=False) \
        if container.get("command") is not None else None
    argv = words_with_nodes(container.get("args"), src, refs, nodes, split_strings=False)
    entrypoint = _held_words(entrypoint, refs.env, nodes) if entrypoint is not None else None
    argv = _held_words(argv, refs.env, nodes)
    head = len(entrypoint or [])
    words = _script_refs((entrypoint or []) + argv, refs, nodes)
    entrypoint, argv = (words[:head] if entrypoint is not None else None), words[head:]
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
    platform = pod_labels(container, pod)
    for command in commands:
        command.container_labels = list(platform)
    result.commands.extend(commands)


def cpu_limit_labels(container: YMap) -> list[tuple[str, str, Span]]:
    """``("cpus", resources.limits.cpu)`` of a container, as written (``"1500m"``, ``2``), where it sets one."""
    resources = container.get("resources")
    limits = resources.get("limits") if isinstance(resources, YMap) else None
    cpu = limits.get("cpu") if isinstance(limits, YMap) else None
    if isinstance(cpu, YScalar) and cpu.value is not None:
        return [("cpus", cpu.text, cpu.span)]
    return []


def helm_labels(values: YMap | None, at: Span) -> list[tuple[str, str, Span]]:
    """The container labels of a container a Helm chart renders from its values: a Kubernetes pod whose spec the
    chart's templates write (only what the values say is known: ``partial``), with the values' CPU limit."""
    labels: list[tuple[str, str, Span]] = [("kind", "kubernetes", at),
                                           ("partial", "a Helm chart's templates write the pod spec", at)]
    return labels + (cpu_limit_labels(values) if values is not None else [])


def pod_labels(container: YMap, pod: YMap) -> list[tuple[str, str, Span]]:
    """The container labels (``Command.container_labels``) of one container of a pod spec: its CPU limit, host
    network and IPC, host ports, mount targets, a memory-backed ``emptyDir`` mounted at ``/dev/shm``, and
    ``IPC_LOCK`` (``securityContext.privileged`` or ``capabilities.add``)."""
    name = container.get("name")
    at = name.span if isinstance(name, YScalar) else container.span
    labels: list[tuple[str, str, Span]] = [("kind", "kubernetes", at), *cpu_limit_labels(container)]
    for key, label in (("hostNetwork", "network"), ("hostIPC", "ipc")):
        node = pod.get(key)
        if isinstance(node, YScalar) and node.value is True:
            labels.append((label, "host", node.span))
    security = container.get("securityContext")
    if isinstance(security, YMap):  # CAP_IPC_LOCK: mlock ignores RLIMIT_MEMLOCK (container.memlock_unlimited)
        privileged = security.get("privileged")
        if isinstance(privileged, YScalar) and privileged.value is True:
            labels.append(("ipc_lock", "privileged", privileged.span))
        capabilities = security.get("capabilities")
        for item in seq_items(capabilities.get("add") if isinstance(capabilities, YMap) else None):
            text = scalar_text(item)
            if text is not None and text.upper().removeprefix("CAP_") in ("IPC_LOCK", "ALL"):
                labels.append(("ipc_lock", text, item.span))
    for port in seq_items(container.get("ports")):
        host_port = port.get("hostPort") if isinstance(port, YMap) else None
        if isinstance(port, YMap) and isinstance(host_port, YScalar) and host_port.value is not None:
            labels.append(("publish", scalar_text(port.get("hostIP")) or "", host_port.span))
    volumes = {scalar_text(v.get("name")): v for v in seq_items(pod.get("volumes")) if isinstance(v, YMap)}
    for mount in seq_items(container.get("volumeMounts")):
        path = mount.get("mountPath") if isinstance(mount, YMap) else None
        if not isinstance(mount, YMap) or not isinstance(path, YScalar) or path.value is None:
            continue
        labels.append(("mount", path.text, path.span))
        volume = volumes.get(scalar_text(mount.get("name")))
        empty = volume.get("emptyDir") if volume is not None else None
        if path.text.rstrip("/") == "/dev/shm" and isinstance(empty, YMap) \
                and scalar_text(empty.get("medium")) == "Memory":
            limit = scalar_text(empty.get("sizeLimit"))
            labels.append(("shm_dir", limit or "", path.span))
    return labels


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
            held = _held(value.text, {var.name: var for var in out}) if resolved is None else None
            out.append(EnvVar(name, resolved, where, source, held=held[1] if held is not None else None))
        elif item.get("valueFrom") is not None:
            out.append(EnvVar(name, None, where, held=_value_from(item.get("valueFrom"), name)))
        else:
            out.append(EnvVar(name, "", where))
    return out, complete


def _value_from(node: YNode | None, name: str) -> str | None:
    """What sets a ``valueFrom`` variable when the kubelet always sets it (a ``secretKeyRef`` or
    ``configMapKeyRef`` that is not ``optional: true``: the pod does not start without the key; a ``fieldRef`` or
    ``resourceFieldRef``); ``None`` where it may stay unset."""
    if not isinstance(node, YMap):
        return None
    for kind in ("secretKeyRef", "configMapKeyRef"):
        ref = node.get(kind)
        if isinstance(ref, YMap):
            if (scalar_text(ref.get("optional")) or "").lower() == "true":
                return None
            return f"{kind} {scalar_text(ref.get('name')) or '?'}/{scalar_text(ref.get('key')) or '?'} ({name})"
    for kind in ("fieldRef", "resourceFieldRef"):
        if isinstance(node.get(kind), YMap):
            return f"{kind} ({name})"
    return None


def _held(raw: str, env: dict[str, EnvVar]) -> tuple[str, str] | None:
    """For a word whose first unknown ``$(VAR)`` takes a value that is set but not in the file (``held``): the
    word up to that reference, expanded, and what sets it; ``None`` where an unknown reference may be unset."""
    head: list[str] = []
    at = 0
    for match in _REF.finditer(raw):
        head.append(raw[at:match.start()])
        at = match.end()
        if match.group(0) == "$$":
            head.append("$")
            continue
        var = env.get(match.group(1))
        if var is None:
            head.append(match.group(0))  # no such variable: the kubelet leaves the reference as written
        elif var.value is not None:
            head.append(var.value)
        else:
            return ("".join(head), var.held) if var.held is not None else None
    return None


def _held_words(words: list[Word], env: dict[str, EnvVar], nodes: dict[int, Placed]) -> list[Word]:
    """Words whose value ``$(VAR)`` takes from a secret: still words (``--api-key=$(KEY)`` passes ``--api-key``),
    marked ``held`` with what they were written up to that reference."""
    out: list[Word] = []
    for word in words:
        placed = nodes.get(id(word))
        held = _held(placed.node.text, env) if word.text is None and not word.splice and placed else None
        if held is not None and placed is not None:
            del nodes[id(word)]
            word = Word(None, word.span, held=held[0], held_by=held[1])
            nodes[id(word)] = placed
        out.append(word)
    return out


_SHELLS = frozenset({"sh", "bash", "ash", "dash", "zsh"})


def _script_refs(words: list[Word], refs: _Refs, nodes: dict[int, Placed]) -> list[Word]:
    """The script of ``sh -c`` whose ``$(VAR)`` takes a value the file does not show (a secret): the kubelet puts
    the value into the script text before the shell runs, so the rest of the script is still what it says. Each
    such reference is read as the shell's ``${VAR}`` (the same variable, set in the container's environment, with
    the same number of characters), so the script's commands are found and only that word is unknown."""
    words = list(words)
    if not words or (words[0].text or "").rsplit("/", 1)[-1] not in _SHELLS:
        return words
    for i in range(1, len(words)):
        word, flag = words[i], words[i - 1].text or ""
        placed = nodes.get(id(word))
        if word.text is not None or placed is None or not (flag.startswith("-") and "c" in flag[1:]):
            continue
        offsets: list[int] = []
        text, source = substitute(placed.node.text, _REF, refs.as_shell, offsets)
        if text is not None:
            del nodes[id(word)]
            words[i] = Word(text, word.span, source=source)
            nodes[id(words[i])] = Placed(placed.node, offsets)
        return words
    return words


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

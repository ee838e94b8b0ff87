"""docker-compose files: one container command per service, located.

``image``, ``build`` (the Dockerfile it builds is read and combined), ``entrypoint`` and ``command`` as a string
(split with shell rules), a list or a folded scalar, ``environment`` as a map or a list, ``env_file``, GPU
reservations (``deploy.resources.reservations.devices``, ``gpus:``, ``runtime: nvidia``). ``${VAR}``,
``${VAR:-default}``, ``${VAR-default}`` and ``$VAR`` are interpolated from the ``.env`` beside the file (never
from the environment relialint runs in); a value taken from ``.env`` keeps that line as its ``source``. A
variable neither ``.env`` nor a default gives is unknown.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import PurePath
from typing import TYPE_CHECKING

from relialint.readers import bounded, envfile
from relialint.readers.dockerrun import publish_host_ip, volume_target
from relialint.readers.located import UNKNOWN, EnvVar, FileResult, ReadError, Span, Word
from relialint.readers.opener import FileOpener
from relialint.readers.yamlsafe import YamlError, YMap, YNode, YScalar, YSeq
from relialint.readers.yamlwords import (
    Placed,
    Resolved,
    Src,
    container_commands,
    load,
    scalar_text,
    seq_items,
    substitute,
    words_with_nodes,
    yaml_error,
)

if TYPE_CHECKING:
    from relialint.readers.dockerfile import Built

_VAR = re.compile(r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)")


class Interpolator:
    """Compose variable interpolation from a ``.env`` file's values."""

    def __init__(self, values: dict[str, EnvVar]) -> None:
        self.values = values

    def __call__(self, raw: str, span: Span) -> tuple[str | None, Span | None]:
        del span
        return substitute(raw, _VAR, self._one)

    def raw_offsets(self, raw: str) -> list[int] | None:
        """Where each character of the interpolated value was written in ``raw`` (``yamlwords.Expander``)."""
        offsets: list[int] = []
        return offsets if substitute(raw, _VAR, self._one, offsets)[0] is not None else None

    def _one(self, match: re.Match[str]) -> Resolved:
        """One ``${VAR}``, ``${VAR:-d}``, ``${VAR-d}``, ``${VAR:+x}``, ``${VAR:?e}`` or ``$VAR`` as compose does it."""
        name = match.group(1) or match.group(4)
        op, arg = match.group(2), match.group(3) or ""
        var = self.values.get(name)
        value = var.value if var is not None else None
        if var is not None and value is None:
            return None, None
        present = var is not None
        if op in (":-", ":?") and present and value == "":
            present = False
        if op == ":+":
            return (arg if present and value else ""), None
        if op == "+":
            return (arg if present else ""), None
        if var is not None and present:
            return value or "", var.span
        if op in (":-", "-"):
            return arg, None
        return None, None


def _dotenv(path: str, result: FileResult, opener: FileOpener) -> tuple[dict[str, EnvVar], list[str]]:
    opened = opener.open(path, ".env")
    if not opened.exists:
        return {}, []
    env, error = envfile.load(opened)
    if env is None:
        message = error.message if error else "unreadable"
        result.errors.append(ReadError(path, 1, 1, f".env cannot be read: {message}; its variables are unknown",
                                       "warning"))
        return {}, []
    return ({var.name: var for var in env}, [opened.path])


@bounded.budgeted
def read(text: str, path: str, opener: FileOpener) -> FileResult:
    """Read a compose file. Never raises on bad input: YAML problems are located errors. The files it names
    (``.env``, ``env_file:``, the Dockerfile a service builds) are read through ``opener``."""
    result = FileResult(path, "compose", text=text)
    try:
        documents = load(text, path)
    except YamlError as exc:
        result.errors.append(exc.error)
        return result
    root = documents[0] if documents else None
    services = root.get("services") if isinstance(root, YMap) else None
    if not isinstance(services, YMap):
        result.errors.append(yaml_error(path, root, "no `services:` mapping; not a compose file", "error"))
        return result
    values, used = _dotenv(path, result, opener)
    result.used_files.extend(used)
    interp = Interpolator(values)
    src = Src(text, path, opener)
    for name, service in services.items:
        if isinstance(service, YMap):
            _service(name, service, src, interp, result)
    return result


def _service(name: YScalar, service: YMap, src: Src, interp: Interpolator, result: FileResult) -> None:
    path = src.path
    nodes: dict[int, Placed] = {}
    image_node = service.get("image")
    image: Word | None = None
    if isinstance(image_node, YScalar) and image_node.value is not None:
        value, source = interp(image_node.text, image_node.span)
        inside = service.span.line <= image_node.span.line <= service.span.end_line
        if inside:
            image = Word(value, image_node.span, source=source)
        else:
            # merged in from an `x-` block (`<<: *base`): the service's own line locates it, the block is its source
            image = Word(value, name.span, source=source or image_node.span)
    build = service.get("build")
    keys = set(service.keys())
    # a service that writes no command runs whatever its image runs: a Dockerfile that is not there only leaves the
    # launch unseen (the engine models say so where they find one), no warning on every other service
    built = _build(build, src, result, warn_missing="command" in keys or "entrypoint" in keys)
    env: list[EnvVar] = []
    env_complete = True
    entrypoint: list[Word] | None = None
    argv: list[Word] = []
    if built is not None and build is not None:
        # The service runs the image the Dockerfile builds: its base image, ENV, ENTRYPOINT and CMD.
        # Words from the Dockerfile are placed at `build:` (the deployment lives in this file) with the
        # Dockerfile line as their source.
        here = build
        result.commands.extend(built.runs)
        if built.image is not None:
            image = Word(built.image.text, here.span, source=built.image.source or built.image.span)
        env.extend(built.env)
        entrypoint = _moved(built.entrypoint, here.span) if built.entrypoint is not None else None
        argv = _moved(built.cmd, here.span)
    for file_node in _env_files(service.get("env_file")):
        loaded = _env_file(file_node, src, result)
        if loaded is None:
            env_complete = False
        else:
            env.extend(loaded)
    env.extend(_environment(service.get("environment"), interp))
    if "entrypoint" in keys:
        entrypoint = words_with_nodes(service.get("entrypoint"), src, interp, nodes)
        if "command" not in keys:
            argv = []  # an entrypoint override drops the image's CMD
    if "command" in keys:
        argv = words_with_nodes(service.get("command"), src, interp, nodes)
    count, count_span, labels = _gpus(service)
    unseen = built is None and "command" not in keys and "entrypoint" not in keys
    if image is None and build is not None:
        # `build:` whose Dockerfile is not read: the image exists, what it is and runs is unknown
        image = Word(None, _build_anchor(build).span)
    span = image.span if image is not None else name.span
    if image is None and built is None:
        if not argv and entrypoint is None:
            return
        result.errors.append(ReadError(path, name.span.line, name.span.column,
                                       f"service {name.text!r} has no image and no build; its image is unknown",
                                       "warning"))
    commands = container_commands(image, entrypoint, argv, env, span, src, nodes, env_complete=env_complete,
                                  name=name.text, gpu_count=count, gpu_count_span=count_span, gpu_labels=labels)
    platform = _platform(name, service, interp)
    for command in commands:
        command.container_labels = list(platform)
    if unseen and len(commands) == 1 and image is not None:
        commands[0].argv_from_image = True
        commands[0].shows = _shows(name, service)
    result.commands.extend(commands)


def _memlock(service: YMap, labels: list[tuple[str, str, Span]],
             value: Callable[[YNode | None], str | None]) -> None:
    """``memlock`` (the soft limit of ``ulimits: memlock: N`` or ``{soft: N, hard: M}``, in bytes, ``-1`` for none)
    and ``ipc_lock`` (``privileged: true``, or ``cap_add`` with ``IPC_LOCK`` / ``ALL``: mlock ignores the limit)."""
    ulimits = service.get("ulimits")
    memlock = ulimits.get("memlock") if isinstance(ulimits, YMap) else None
    node = memlock.get("soft") if isinstance(memlock, YMap) else memlock
    text = value(node)
    if text is not None and node is not None:
        labels.append(("memlock", text, node.span))
    privileged = service.get("privileged")
    if isinstance(privileged, YScalar) and value(privileged) in ("true", "True", "yes"):
        labels.append(("ipc_lock", "privileged", privileged.span))
    for item in seq_items(service.get("cap_add")):
        text = value(item)
        if text is not None and text.upper().removeprefix("CAP_") in ("IPC_LOCK", "ALL"):
            labels.append(("ipc_lock", text, item.span))


def _platform(name: YScalar, service: YMap, interp: Interpolator) -> list[tuple[str, str, Span]]:
    """The container labels of a service (``Command.container_labels``): CPU limit, published ports, network and IPC
    mode, ``shm_size``, the memlock limit and ``IPC_LOCK``, mount targets, each value interpolated (``UNKNOWN``
    where ``.env`` does not give it)."""
    labels: list[tuple[str, str, Span]] = [("kind", "compose", name.span)]

    def value(node: YNode | None) -> str | None:
        if not isinstance(node, YScalar) or (node.value is None and not node.quoted):
            return None
        text, _ = interp(node.text, node.span)
        return UNKNOWN if text is None else text

    def scalar(label: str, node: YNode | None) -> None:
        text = value(node)
        if text is not None and node is not None:
            labels.append((label, text, node.span))

    deploy = service.get("deploy")
    resources = deploy.get("resources") if isinstance(deploy, YMap) else None
    limits = resources.get("limits") if isinstance(resources, YMap) else None
    scalar("cpus", service.get("cpus"))
    if isinstance(limits, YMap):
        scalar("cpus", limits.get("cpus"))  # compose gives deploy.resources.limits the last word
    for item in seq_items(service.get("ports")):
        if isinstance(item, YMap):  # long syntax: host_ip, published, target
            if item.get("published") is None and item.get("target") is None:
                continue
            host = value(item.get("host_ip"))
            labels.append(("publish", host if host is not None else "", item.span))
        else:
            text = value(item)
            if text is not None:
                labels.append(("publish", text if text == UNKNOWN else publish_host_ip(text), item.span))
    scalar("network", service.get("network_mode"))
    scalar("ipc", service.get("ipc"))
    scalar("shm_size", service.get("shm_size"))
    _memlock(service, labels, value)
    for item in seq_items(service.get("volumes")):
        if isinstance(item, YMap):
            scalar("mount", item.get("target"))
        else:
            text = value(item)
            if text is not None:
                target = text if text == UNKNOWN else volume_target(text)
                labels.append(("mount", target if target is not None else UNKNOWN, item.span))
    tmpfs = service.get("tmpfs")
    for item in [tmpfs] if isinstance(tmpfs, YScalar) else seq_items(tmpfs):
        text = value(item)
        if text is not None:
            labels.append(("mount", text if text == UNKNOWN else text.split(":", 1)[0].strip(), item.span))
    return labels


def _build_anchor(build: YNode) -> YNode:
    """Where a built image is placed: the ``build:`` value, or its ``context`` in the long form."""
    context = build.get("context") if isinstance(build, YMap) else None
    return context if context is not None else build


def _shows(name: YScalar, service: YMap) -> list[tuple[str, str, Span]]:
    """The service's name, container ports, volume mounts and health check, as written (``Command.shows``)."""
    shows: list[tuple[str, str, Span]] = [("name", name.text, name.span)]
    for item in seq_items(service.get("ports")):
        text = scalar_text(item) if isinstance(item, YScalar) else scalar_text(
            item.get("target")) if isinstance(item, YMap) else None
        if text:
            container = text.rsplit(":", 1)[-1].split("/", 1)[0]  # "8000:8000/tcp", "127.0.0.1:8080:8080"
            shows.append(("port", container, item.span))
    for item in seq_items(service.get("volumes")):
        text = scalar_text(item) if isinstance(item, YScalar) else scalar_text(
            item.get("source")) if isinstance(item, YMap) else None
        if text:
            shows.append(("volume", text, item.span))
    health = service.get("healthcheck")
    test = health.get("test") if isinstance(health, YMap) else None
    words = [scalar_text(t) or "" for t in seq_items(test)] if not isinstance(test, YScalar) else [test.text]
    if test is not None and any(words):
        shows.append(("probe", " ".join(words), test.span))
    return shows


def _moved(words: list[Word], span: Span) -> list[Word]:
    return [Word(w.text, span, w.splice, w.source or w.span) for w in words]


def _build(node: YNode | None, src: Src, result: FileResult, warn_missing: bool = True) -> Built | None:
    if node is None:
        return None
    path = src.path
    from relialint.readers import dockerfile  # only for a service that builds its image

    context, file_name = ".", "Dockerfile"
    where = node
    if isinstance(node, YScalar) and node.value is not None:
        context = node.text
    elif isinstance(node, YMap):
        context = scalar_text(node.get("context")) or "."
        file_name = scalar_text(node.get("dockerfile")) or "Dockerfile"
        if node.get("dockerfile_inline") is not None:
            inline = node.get("dockerfile_inline")
            if isinstance(inline, YScalar):
                return dockerfile.built(inline.text, path, src.opener)
    else:
        return None
    if "://" in context or context.startswith("git@"):
        result.errors.append(yaml_error(path, where, "build context is a remote URL; the Dockerfile is not read"))
        return None
    opened = src.opener.open(path, str(PurePath(context) / file_name))
    target = opened.path
    if not opened.refused and not opened.exists:
        if warn_missing:
            result.errors.append(yaml_error(path, where, f"Dockerfile {target} not found; the built image is "
                                                         "unknown"))
        return None
    if opened.text is None:
        reason = opened.error.message if opened.error is not None else "unreadable"
        result.errors.append(ReadError(path, where.span.line, where.span.column,
                                       f"Dockerfile {target} cannot be read: {reason}", "warning"))
        return None
    result.used_files.append(target)
    return dockerfile.built(opened.text, target, src.opener)


def _env_files(node: YNode | None) -> list[YScalar]:
    if isinstance(node, YScalar) and node.value is not None:
        return [node]
    out: list[YScalar] = []
    for item in seq_items(node):
        if isinstance(item, YScalar):
            out.append(item)
        elif isinstance(item, YMap):
            found = item.get("path")
            if isinstance(found, YScalar):
                out.append(found)
    return out


def _env_file(node: YScalar, src: Src, result: FileResult) -> list[EnvVar] | None:
    path = src.path
    opened = src.opener.open(path, node.text)
    if not opened.refused and not opened.exists:
        result.errors.append(yaml_error(path, node, f"env_file {node.text} not found; its variables are unknown"))
        return None
    env, error = envfile.load(opened)
    if env is None:
        result.errors.append(yaml_error(path, node, f"env_file {node.text} cannot be read: "
                                                    f"{error.message if error else 'unreadable'}; its variables are "
                                                    "unknown"))
        return None
    result.used_files.append(opened.path)
    return env


def _environment(node: YNode | None, interp: Interpolator) -> list[EnvVar]:
    out: list[EnvVar] = []
    if isinstance(node, YMap):
        for key, value in node.items:
            span = Span(key.span.path, key.span.line, key.span.column, value.span.end_line, value.span.end_column)
            if isinstance(value, YScalar) and (value.value is not None or value.quoted):
                text = value.text
                if value.value is True or value.value is False:
                    text = value.text
                resolved, source = interp(text, value.span)
                out.append(EnvVar(key.text, resolved, span, source, held=_required(text, resolved)))
            else:
                out.append(EnvVar(key.text, None, span))
    for item in seq_items(node):
        if isinstance(item, YScalar):
            name, has_value, raw = item.text.partition("=")
            if not has_value:
                out.append(EnvVar(name, None, item.span))
                continue
            resolved, source = interp(raw, item.span)
            out.append(EnvVar(name, resolved, item.span, source, held=_required(raw, resolved)))
    return out


_REQUIRED = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*):\?[^}]*\}")


def _required(raw: str, resolved: str | None) -> str | None:
    """A value that is one ``${VAR:?message}`` compose cannot resolve from the files: compose refuses to create
    the container when VAR is unset or empty, so a running one has it set, to a value not in the files."""
    found = _REQUIRED.fullmatch(raw.strip()) if resolved is None else None
    return f"${{{found.group(1)}:?}} in the caller's environment (compose stops without it)" if found else None


def _gpus(service: YMap) -> tuple[int | None, Span | None, list[tuple[str, str, Span]]]:
    count: int | None = None
    count_span: Span | None = None
    labels: list[tuple[str, str, Span]] = []
    runtime = service.get("runtime")
    if isinstance(runtime, YScalar) and runtime.text in ("nvidia", "amd"):
        labels.append(("compose.runtime", runtime.text, runtime.span))
    for item in seq_items(service.get("devices")):  # `- /dev/kfd`, `- /dev/dri:/dev/dri`, CDI `- amd.com/gpu=all`
        if isinstance(item, YScalar) and item.text:
            labels.append(("compose.device", item.text, item.span))
    devices: list[YNode] = []
    deploy = service.get("deploy")
    if isinstance(deploy, YMap):
        resources = deploy.get("resources")
        reservations = resources.get("reservations") if isinstance(resources, YMap) else None
        if isinstance(reservations, YMap):
            devices.extend(seq_items(reservations.get("devices")))
    gpus = service.get("gpus")
    if isinstance(gpus, YScalar) and gpus.text == "all":
        labels.append(("compose.gpus", "all", gpus.span))
    devices.extend(seq_items(gpus))
    for device in devices:
        if not isinstance(device, YMap):
            continue
        capabilities = [scalar_text(c) for c in _flatten(device.get("capabilities"))]
        driver = scalar_text(device.get("driver"))
        if driver is None and "gpu" not in capabilities:
            continue
        if driver in ("nvidia", "amd"):
            labels.append(("compose.driver", driver, device.get("driver").span))  # type: ignore[union-attr]
        number = device.get("count")
        ids = device.get("device_ids")
        if isinstance(number, YScalar) and isinstance(number.value, int):
            count = (count or 0) + number.value
            count_span = number.span
        elif isinstance(ids, YSeq):
            count = (count or 0) + len(ids.items)
            count_span = ids.span
    return count, count_span, labels


def _flatten(node: YNode | None) -> list[YNode]:
    if isinstance(node, YSeq):
        out: list[YNode] = []
        for item in node.items:
            out.extend(_flatten(item))
        return out
    return [node] if node is not None else []

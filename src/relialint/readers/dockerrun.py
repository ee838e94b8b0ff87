"""``docker run`` / ``podman run`` command lines, wherever they are written (a shell script, a systemd unit's
``ExecStart=``): the image, its arguments, ``-e``/``--env-file`` variables (read, never sourced), ``--gpus``,
``--device``, ``--runtime``. No engine knowledge."""

from __future__ import annotations

import re

from relialint.readers.located import UNKNOWN, Command, EnvVar, ReadError, Span, Word
from relialint.readers.opener import FileOpener

_DOCKER_VALUE_FLAGS = {
    "-e", "--env", "--env-file", "--gpus", "--entrypoint", "-v", "--volume", "-p", "--publish", "--name",
    "--network", "--net", "--ipc", "--shm-size", "-w", "--workdir", "-u", "--user", "--runtime", "--device",
    "--mount", "--label", "-l", "--memory", "-m", "--cpus", "--ulimit", "--restart", "--platform", "-h",
    "--hostname", "--add-host", "--cap-add", "--security-opt", "--pull", "--log-driver", "--log-opt",
    "--health-cmd", "--group-add", "--cpuset-cpus", "--pid", "--uts", "--stop-signal", "--tmpfs",
}


_ATTACHED = frozenset({"-p", "-v", "-e"})
"""Short options whose value may follow in the same word (the Docker CLI's option parser reads ``-p8000:8000``)."""


def docker_run(words: list[Word], env: list[EnvVar], span: Span, opener: FileOpener) -> Command:
    """The words after ``docker run`` / ``podman run`` (``[options] IMAGE [args]``) as a container command;
    ``--env-file`` files are read through ``opener``."""
    run_env = list(env)
    entrypoint: list[Word] | None = None
    gpu_count: int | None = None
    gpu_span: Span | None = None
    env_files: list[Word] = []
    labels: list[tuple[str, str, Span]] = []
    platform: list[tuple[str, str, Span]] = [("kind", "docker", span)]
    i = 0
    while i < len(words):
        word = words[i]
        text = word.text or ""
        if not text.startswith("-") or text == "-":
            break
        flag, eq, inline = text.partition("=")
        if not text.startswith("--") and len(text) > 2 and text[:2] in _ATTACHED:
            flag, eq, inline = text[:2], "=", text[2:]  # -p8000:8000, -v/a:/b, -eNAME=1: a value in the same word
        if flag in ("-P", "--publish-all"):
            platform.append(("publish_all", "", word.span))
        if flag == "--privileged" and inline.lower() not in ("false", "0"):
            platform.append(("ipc_lock", "privileged", word.span))  # every capability: mlock ignores the limit
        if flag in _DOCKER_VALUE_FLAGS:
            value: Word | None
            if eq:
                value = Word(inline, word.span, source=word.source)
            else:
                value = words[i + 1] if i + 1 < len(words) else None
                i += 1
            if value is not None:
                if flag in ("-e", "--env") and value.text is not None:
                    name, has_value, val = value.text.partition("=")
                    run_env.append(EnvVar(name, val if has_value else None, value.span, value.source))
                elif flag == "--entrypoint":
                    entrypoint = [value]
                elif flag == "--gpus" and value.text is not None:
                    gpu_count, gpu_span = _gpus(value.text), value.span
                elif flag == "--device" and value.text is not None:
                    labels.append(("compose.device", value.text, value.span))
                elif flag == "--runtime" and value.text in ("nvidia", "amd"):
                    labels.append(("compose.runtime", value.text, value.span))
                elif flag == "--env-file":
                    env_files.append(value)
                platform.extend(_platform(flag, value))
        i += 1
    if any(w.splice for w in words[:i]):
        platform.append(("partial", "docker options spliced from a variable", span))
    image = words[i] if i < len(words) else None
    argv = words[i + 1 :]
    from_files, complete, problems = _env_files(env_files, span.path, opener)
    command = Command("container", argv, image.span if image else span, from_files + run_env, image=image,
                      entrypoint=entrypoint, gpu_count=gpu_count, gpu_count_span=gpu_span,
                      env_complete=complete, argv_complete=not any(w.splice for w in argv), gpu_labels=labels,
                      problems=problems)
    command.container_labels = platform
    return command


_PLATFORM_FLAGS = {"--cpus": "cpus", "-p": "publish", "--publish": "publish", "--network": "network",
                   "--net": "network", "--ipc": "ipc", "--shm-size": "shm_size", "-v": "mount", "--volume": "mount",
                   "--mount": "mount", "--tmpfs": "mount", "--ulimit": "memlock", "--cap-add": "ipc_lock"}


def _platform(flag: str, value: Word) -> list[tuple[str, str, Span]]:
    """The container label (``Command.container_labels``) one ``docker run`` option gives: the host IP of a
    published port (``""``: every interface), the target of a mount; ``UNKNOWN`` where the value is not known."""
    label = _PLATFORM_FLAGS.get(flag)
    if label is None:
        return []
    text = value.text
    if flag == "--ulimit":  # memlock=SOFT[:HARD]: the soft limit, which mlock checks
        if text is None:
            return [(label, UNKNOWN, value.span)]  # a limit not in the file may be memlock's
        name, _, limit = text.partition("=")
        return [(label, limit.split(":", 1)[0].strip(), value.span)] if name.strip() == "memlock" else []
    if flag == "--cap-add":
        if text is None or text.upper().removeprefix("CAP_") in ("IPC_LOCK", "ALL"):
            return [(label, text if text is not None else UNKNOWN, value.span)]
        return []
    if text is None:
        return [(label, UNKNOWN, value.span)]
    if label == "publish":
        return [(label, publish_host_ip(text), value.span)]
    if label == "mount":
        if flag == "--tmpfs":  # --tmpfs /run:rw,size=64m: the target comes first
            target: str | None = text.split(":", 1)[0].strip() or None
        else:
            target = mount_target(text) if flag == "--mount" else volume_target(text)
        return [(label, target if target is not None else UNKNOWN, value.span)]
    return [(label, text, value.span)]


def publish_host_ip(text: str) -> str:
    """The host address of ``-p`` / a compose short port (``127.0.0.1:8000:8000`` -> ``127.0.0.1``,
    ``[::1]:8000:80`` -> ``::1``); ``""`` for every interface (``8000:8000``, ``8000``)."""
    spec = text.strip().strip("\"'").split("/", 1)[0]
    if spec.startswith("["):
        return spec[1:].split("]", 1)[0]
    parts = spec.split(":")
    return parts[0] if len(parts) >= 3 else ""


def volume_target(text: str) -> str | None:
    """Where ``-v SOURCE:TARGET[:MODE]`` (or an anonymous ``-v TARGET``) mounts in the container."""
    parts = text.strip().split(":")
    if len(parts) >= 2 and len(parts[0]) == 1 and parts[0].isalpha():  # C:\models:/models on Windows
        parts = [parts[0] + ":" + parts[1], *parts[2:]]
    target = parts[1] if len(parts) >= 2 else parts[0]
    return target or None


def mount_target(text: str) -> str | None:
    """The ``target`` / ``destination`` / ``dst`` of ``--mount type=bind,source=...,target=...``."""
    for field in text.split(","):
        key, _, val = field.partition("=")
        if key.strip() in ("target", "destination", "dst") and val:
            return val.strip()
    return None


def _env_files(words: list[Word], script: str, opener: FileOpener) -> tuple[list[EnvVar], bool, list[ReadError]]:
    """``--env-file FILE`` variables, read relative to the script (never sourced or expanded); ``-e`` wins."""
    from relialint.readers.envfile import load

    env: list[EnvVar] = []
    complete = True
    problems: list[ReadError] = []
    for word in words:
        if word.text is None:
            complete = False
            continue
        loaded, error = load(opener.open(script, word.text))
        if loaded is None:
            complete = False
            reason = error.message if error is not None else "not readable"
            problems.append(ReadError(word.span.path, word.span.line, word.span.column,
                                      f"--env-file {word.text}: {reason}; its variables are unknown", "warning"))
            continue
        env.extend(loaded)
    return env, complete, problems


def _gpus(text: str) -> int | None:
    value = text.strip().strip('"').strip("'")
    if value.isdigit():
        return int(value)
    match = re.search(r"device=([0-9,]+)", value)
    if match:
        return len([d for d in match.group(1).split(",") if d])
    return None



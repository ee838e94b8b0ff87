"""What a read file holds, in a few words, for a run that finds no deployment in it (``relialint facts`` says what
it saw instead of nothing). No engine knowledge: the commands as the reader found them."""

from __future__ import annotations

from relialint.readers.located import Command, FileResult

_KINDS = {
    "compose": ("a compose file", "service"), "kubernetes": ("a Kubernetes manifest", "container"),
    "helm": ("Helm values", "container"), "shell": ("a shell script", "command"),
    "env": ("an env file", "variable"), "systemd": ("a systemd unit", "command"),
    "dockerfile": ("a Dockerfile", "command"), "windows": ("a Windows launcher", "command"),
    "truss": ("a Truss config", "command"), "skypilot": ("a SkyPilot task", "command"),
    "vllm-config": ("a YAML config", "key"), "yaml": ("a YAML file of no shape relialint reads", "command"),
    "skipped": ("another tool's configuration, skipped", "command"),
}
SHOWN = 4
"""How many of a file's commands are named; the rest are counted."""


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _what_runs(command: Command) -> str:
    """A command as a reader of the file would name it: ``NAME (IMAGE)`` for a container, else its program."""
    if command.image is not None or command.kind == "container":
        image = command.image.text if command.image is not None and command.image.text else "an image built here"
        return f"{command.name}: {image}" if command.name else image
    words = command.entrypoint or command.argv
    return (words[0].text or "a word from a variable") if words else "an assignment"


def describe(result: FileResult) -> str:
    """``a compose file with 2 services (ollama: ollama/ollama:0.6.2, webui: ghcr.io/open-webui/open-webui:main)``."""
    label, noun = _KINDS.get(result.kind, (f"a {result.kind} file", "command"))
    if result.kind in ("skipped", "yaml"):
        return label
    if result.kind == "env":
        names = [var.name for command in result.commands for var in command.env]
        shown = ", ".join(names[:SHOWN]) + (", ..." if len(names) > SHOWN else "")
        return f"{label} with {_plural(len(names), noun)}" + (f" ({shown})" if names else "")
    if not result.commands:
        return f"{label} with no command to run"
    named = [_what_runs(command) for command in result.commands[:SHOWN]]
    more = ", ..." if len(result.commands) > SHOWN else ""
    return f"{label} with {_plural(len(result.commands), noun)} ({', '.join(named)}{more})"

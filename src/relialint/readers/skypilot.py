"""SkyPilot task YAML (``sky launch task.yaml``): the ``setup`` and ``run`` scripts, with ``envs`` exported to
them, and ``resources.accelerators`` (``H100:8``) as the GPU label the catalogue reads.

The ``setup`` script's commands come first, so a ``pip install vllm==X`` there pins the version of the engine
the ``run`` script starts, as it would in one script.
"""

from __future__ import annotations

from relialint.readers.located import EnvVar, FileResult
from relialint.readers.opener import FileOpener
from relialint.readers.yamlsafe import YMap, YScalar
from relialint.readers.yamlwords import map_items, mappings, script_commands


def read(text: str, path: str, opener: FileOpener) -> FileResult:
    result = FileResult(path, "skypilot", text=text)
    src, documents = mappings(text, path, result, opener)
    for root in documents:
        run = root.get("run")
        if not isinstance(run, YScalar) or not run.text:
            continue
        env = [EnvVar(key.text, value.text if isinstance(value, YScalar) and value.value is not None else None,
                      key.span) for key, value in map_items(root.get("envs"))]
        labels = []
        resources = root.get("resources")
        accelerators = resources.get("accelerators") if isinstance(resources, YMap) else None
        if isinstance(accelerators, YScalar) and accelerators.text:
            # `H100:8` or `H100`; a list or a map of alternatives names no single GPU
            name = accelerators.text.partition(":")[0]
            labels.append(("skypilot.accelerators", name.strip(), accelerators.span))
        setup = root.get("setup")
        if isinstance(setup, YScalar) and setup.text:
            result.commands.extend(script_commands(setup.text, setup.span, src, setup.span, env))
        for command in script_commands(run.text, run.span, src, run.span, env):
            command.gpu_labels = [*command.gpu_labels, *labels]
            result.commands.append(command)
    return result

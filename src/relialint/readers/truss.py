"""Truss ``config.yaml`` (a model-serving platform's custom server): ``base_image.image`` runs
``docker_server.start_command`` (a command line, or ``sh -c '...'``), with ``environment_variables``.

A ``{name}`` placeholder in the command line is a template slot, not a value: its word is unknown.
"""

from __future__ import annotations

import re

from relialint.readers import bounded
from relialint.readers.located import EnvVar, FileResult, Word
from relialint.readers.yamlsafe import YMap, YScalar
from relialint.readers.yamlwords import container_commands, map_items, mappings, split_words

_PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_.]*\}")


@bounded.budgeted
def read(text: str, path: str) -> FileResult:
    result = FileResult(path, "truss", text=text)
    src, documents = mappings(text, path, result)
    for root in documents:
        server = root.get("docker_server")
        start = server.get("start_command") if isinstance(server, YMap) else None
        if not isinstance(start, YScalar) or start.value is None:
            continue
        base = root.get("base_image")
        image_node = base.get("image") if isinstance(base, YMap) else None
        image = Word(image_node.text, image_node.span) if isinstance(image_node, YScalar) and image_node.value \
            else None
        env = [EnvVar(key.text, value.text if isinstance(value, YScalar) and value.value is not None else None,
                      key.span) for key, value in map_items(root.get("environment_variables"))]
        words = [Word(None, w.span) if w.text is not None and _PLACEHOLDER.search(w.text) else w
                 for w in split_words(src, start)]
        result.commands.extend(container_commands(image, words, [], env, start.span, src, {},
                                                  env_complete=False))
    return result

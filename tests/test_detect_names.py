"""Which reader a file name picks: variants of a format's name are that format, a file *about* one is not (a walk over
a folder of test expectations once read ``docker-compose.yml.expected.yaml`` as a compose file and failed on it)."""

from __future__ import annotations

from pathlib import PurePath

import pytest

from relialint.readers.detect import kind_by_name


@pytest.mark.parametrize(("name", "kind"), [
    ("docker-compose.yml", "compose"),
    ("compose.yaml", "compose"),
    ("docker-compose.override.yml", "compose"),
    ("compose.gpu.yaml", "compose"),
    ("docker-compose.prod-gpu.yml", "compose"),
    ("docker-compose.yml.expected.yaml", "yaml"),
    ("compose.yaml.old.yml", "yaml"),
    ("Dockerfile", "dockerfile"),
    ("Dockerfile.dev", "dockerfile"),
    ("Dockerfile.vllm", "dockerfile"),
    ("serve.dockerfile", "dockerfile"),
    ("Containerfile", "dockerfile"),
    ("Dockerfile.expected.yaml", "yaml"),
    ("Dockerfile.md", None),
    ("Dockerfile.sh", "shell"),
])
def test_a_name_picks_its_reader(name: str, kind: str | None) -> None:
    assert kind_by_name(PurePath(name)) == kind

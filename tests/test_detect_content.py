"""Issue 25: a file whose name does not decide its kind (``Containerfile.vllm``, ``Dockerfile-llamacpp``,
``.env-llamacpp``, ``vllm.env.local``) is read by its first lines; the sniff is bounded and refuses binary data."""

from __future__ import annotations

from pathlib import Path, PurePath

import pytest
from hypothesis import given
from hypothesis import strategies as st

from relialint.readers import detect
from relialint.run.files import discover


@pytest.mark.parametrize(("name", "kind"), [
    ("Containerfile.vllm", "dockerfile"),
    ("vllm.containerfile", "dockerfile"),
    ("Containerfile.md", None),
])
def test_containerfile_names(name: str, kind: str | None) -> None:
    assert detect.kind_by_name(PurePath(name)) == kind


@pytest.mark.parametrize(("text", "kind"), [
    ("FROM vllm/vllm-openai:v0.9.2\nCMD [\"--model\", \"m\"]\n", "dockerfile"),
    ("# syntax=docker/dockerfile:1\nARG CUDA=12.4\n\nFROM nvidia/cuda:${CUDA}-runtime\n", "dockerfile"),
    ("from ubuntu:22.04\n", "dockerfile"),
    ("LLAMA_ARG_CTX_SIZE=8192\n# a comment\nexport LLAMA_ARG_N_PARALLEL=4\n", "env"),
    ("#!/bin/bash\nFROM=1\n", "shell"),
    ("vllm serve m --port 8000\n", None),
    ("A=1\nvllm serve m\n", None),
    ("# only a comment\n", None),
    ("", None),
    ("FROM x\x00\n", None),
    ("RUN echo\nFROM x\n", None),
])
def test_a_kind_by_the_first_lines(text: str, kind: str | None) -> None:
    assert detect.kind_by_content(text) == kind


def test_only_the_head_is_read_and_a_cut_last_line_does_not_decide() -> None:
    head = "A=1\n" * (detect.SNIFF_BYTES // 4)
    assert detect.kind_by_content(head + "vllm serve m\n") == "env"  # past the head: not looked at
    cut = "A=1\n" * (detect.SNIFF_BYTES // 4 - 1) + "B" * 10
    assert detect.kind_by_content(cut[:detect.SNIFF_BYTES]) == "env"


@given(st.text(max_size=300))
def test_the_sniff_never_raises_and_names_a_known_kind(text: str) -> None:
    assert detect.kind_by_content(text) in (None, "shell", "dockerfile", "env")


def test_a_walk_reads_hinted_names_by_content_and_leaves_other_files_unopened(tmp_path: Path) -> None:
    (tmp_path / "Dockerfile-llamacpp").write_text("FROM ubuntu:22.04\nCMD [\"llama-server\"]\n")
    (tmp_path / "Dockerfile_notes.md").write_text("FROM the top\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".env-llamacpp").write_text("LLAMA_ARG_CTX_SIZE=8192\n")
    (tmp_path / "sub" / "notes.txt").write_text("LLAMA_ARG_CTX_SIZE=8192\n")
    (tmp_path / "blob").write_bytes(b"FROM x\x00\x01" * 10)
    found, errors = discover([str(tmp_path)])
    assert errors == []
    assert sorted((p.relative_to(tmp_path).as_posix(), kind) for p, _, kind in found) == [
        ("Dockerfile-llamacpp", "dockerfile"), ("sub/.env-llamacpp", "env")]


def test_a_file_named_on_the_command_line_is_read_by_content(tmp_path: Path) -> None:
    path = tmp_path / "Containerfile.gpu"
    path.write_text("FROM vllm/vllm-openai:v0.9.2\n")
    assert discover([str(path)])[0][0][2] == "dockerfile"
    env = tmp_path / "vllm.env.local"
    env.write_text("VLLM_USE_V1=1\n")
    assert discover([str(env)])[0][0][2] == "env"

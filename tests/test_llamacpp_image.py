"""What a tag of llama.cpp's own images pins (kind, backend, build), read as the image workflow names them
(ggml-org/llama.cpp ``.github/workflows/docker.yml`` @9f095980, step "Determine tag name": ``<kind><TYPE>`` and
``<kind><TYPE>-b<BUILD_NUMBER>``, TYPE empty for the CPU build), through the whole linter."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from relialint.engines.llamacpp_image import TYPES, LlamaTag, parse_tag
from relialint.run.lint import Options, Target, lint_text


@pytest.mark.parametrize(("tag", "expected"), [
    ("server", ("server", "cpu", None, None)),
    ("", ("server", "cpu", None, None)),
    ("server-b6123", ("server", "cpu", None, "b6123")),  # the CPU server at build 6123
    ("full-b6123", ("full", "cpu", None, "b6123")),
    ("light-b6123", ("light", "cpu", None, "b6123")),
    ("full-cuda-b6123", ("full", "cuda", "nvidia", "b6123")),
    ("light-vulkan-b8763", ("light", "vulkan", None, "b8763")),
    ("server-cuda13-b11312", ("server", "cuda", "nvidia", "b11312")),
    ("full-rocm", ("full", "hip", "amd", None)),
    ("server-intel", ("server", "sycl", "intel", None)),
    ("server-s390x-b9000", ("server", "cpu", None, "b9000")),
    ("server-openvino-b9000", ("server", None, None, "b9000")),  # a backend outside the vocabulary
    ("server-v0.5.0", ("server", "cpu", None, "v0.5.0")),
    ("server-cuda-v0.4.1", ("server", "cuda", "nvidia", "v0.4.1")),
    # a branch build: no build number, and the branch name may begin with a type's name
    ("server-cuda-fix-0123abc", ("server", None, None, None)),
    ("light-my-branch-89abcde", ("light", None, None, None)),
    ("server-cann", ("server", None, None, None)),  # a TYPE the workflow does not push
])
def test_each_tag_form_pins_what_it_says(tag: str, expected: tuple[str, str | None, str | None, str | None]) -> None:
    assert parse_tag(tag) == LlamaTag(*expected)


@pytest.mark.parametrize("tag", ["latest", "b6123", "cuda", "serverless", "server_cuda", "server-"])
def test_other_tags_are_not_the_workflows(tag: str) -> None:
    assert parse_tag(tag) is None


@given(kind=st.sampled_from(["full", "light", "server"]), type_=st.sampled_from(sorted(TYPES)),
       build=st.integers(min_value=1, max_value=99999))
def test_kind_type_and_build_round_trip(kind: str, type_: str, build: int) -> None:
    tag = f"{kind}{'-' + type_ if type_ else ''}-b{build}"
    assert parse_tag(tag) == LlamaTag(kind, *TYPES[type_], f"b{build}")


def _compose(tag: str, command: str) -> str:
    return f"services:\n  llm:\n    image: ghcr.io/ggml-org/llama.cpp:{tag}\n    command: {command}\n"


@pytest.mark.parametrize(("tag", "command", "expected", "facts"), [
    # --no-mmap is gone in b11312 (--load-mode): definite once the tag pins the build
    ("server-b11312", '["-m", "/m.gguf", "--no-mmap"]', [("RL520", "definite", 4, 32)],
     {"engine.version": "b11312", "engine.backend": "cpu"}),
    ("full-b11312", '["--server", "-m", "/m.gguf", "--no-mmap"]', [("RL520", "definite", 4, 44)],
     {"engine.version": "b11312", "engine.backend": "cpu"}),
    ("full-cuda-b11312", '["-s", "-m", "/m.gguf", "--no-mmap"]', [("RL520", "definite", 4, 38)],
     {"engine.version": "b11312", "engine.backend": "cuda", "gpu.vendor": "nvidia"}),
    # llama-cli: the server's option table does not apply
    ("light-b11312", '["-m", "/m.gguf", "--no-mmap"]', [], {"engine.version": "b11312", "engine.backend": "cpu"}),
    # a branch build of the server image: llama-server, any build
    ("server-cuda-fix-0123abc", '["-m", "/m.gguf", "--no-mmap"]', [("RL520", "possible", 4, 32)], {}),
])
def test_the_tag_decides_the_build_and_backend_of_the_launch(tag: str, command: str,
                                                             expected: list[tuple[str, str, int, int]],
                                                             facts: dict[str, str]) -> None:
    result = lint_text(_compose(tag, command), "compose.yaml", "compose", Options(target=Target()))
    assert [(f.code, f.certainty, f.line, f.column) for f in result.findings if f.code.startswith("RL52")] == expected
    (deployment,) = result.deployments
    found = {key: deployment.facts.get(key) for key in ("engine.version", "engine.backend", "gpu.vendor")}
    assert {k: str(f.value) for k, f in found.items() if f is not None} == facts
    assert all((f.origin, f.line, f.column) == ("image", 3, 12) for f in found.values() if f is not None)

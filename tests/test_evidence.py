"""Evidence readers (issue 12): vendor, backend, AMD target, host OS, engine version and range from what a file says
besides the engine's options, each with exact value, origin, line and column, as `relialint facts` shows them."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from relialint.engines.evidence import gfx_from_hsa, parse_image
from tests.cli_run import invoke

Row = tuple[Any, str, int | None, int | None]
KEYS = ("gpu.vendor", "engine.backend", "gpu.arch", "host.os", "engine.version", "engine.version_range")


def facts(tmp_path: Path, name: str, text: str) -> list[dict[str, Any]]:
    """Every deployment of the file as {key: (value, origin, line, column)} for the evidence keys, with the
    deployment's notes under ``@notes``."""
    (tmp_path / name).write_text(text)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = invoke(["facts", name, "--format", "json"])
    finally:
        os.chdir(cwd)
    doc = json.loads(result.output)
    out = []
    for dep in doc["deployments"]:
        # a Linux host from the platform (an image, a systemd unit) is tested on its own below
        table: dict[str, Any] = {k: (v["value"], v["origin"], v.get("line"), v.get("column"))
                                 for k, v in dep["facts"].items() if k in KEYS
                                 and not (k == "host.os" and v["value"] == "linux")}
        table["@notes"] = dep.get("notes", [])
        table["@why"] = {k: v.get("note") for k, v in dep["facts"].items() if k in KEYS}
        out.append(table)
    return out


def only(tmp_path: Path, name: str, text: str) -> dict[str, Any]:
    (deployment,) = facts(tmp_path, name, text)
    return deployment


def evidence(d: dict[str, Any]) -> dict[str, Row]:
    return {k: v for k, v in d.items() if not k.startswith("@")}


# -- the acceptance files -------------------------------------------------------------------------------------------

ROCM_COMPOSE = """\
services:
  vllm:
    image: rocm/vllm:rocm6.3.1_vllm_0.8.5_20250513
    devices:
      - /dev/kfd
      - /dev/dri
    environment:
      HIP_VISIBLE_DEVICES: "0"
      HSA_OVERRIDE_GFX_VERSION: "11.0.0"
    command: ["vllm", "serve", "Qwen/Qwen3-8B", "--max-model-len", "8192"]
"""


def test_rocm_compose(tmp_path: Path) -> None:
    d = only(tmp_path, "compose.yaml", ROCM_COMPOSE)
    assert evidence(d) == {
        "gpu.vendor": ("amd", "manifest", 5, 9),  # /dev/kfd
        "engine.backend": ("hip", "image", 3, 12),
        "gpu.arch": ("gfx1100", "env", 9, 7),
        "engine.version": ("0.8.5", "image", 3, 12),
    }
    assert d["@why"]["gpu.vendor"] == ("device /dev/kfd: /dev/kfd is ROCm's compute device; also HIP_VISIBLE_DEVICES "
                                       "is read by AMD's ROCm stack; HSA_OVERRIDE_GFX_VERSION is read by AMD's ROCm "
                                       "stack; rocm/vllm is a ROCm image")
    assert d["@why"]["gpu.arch"] == "HSA_OVERRIDE_GFX_VERSION=11.0.0 runs the GPU as gfx1100"


JETSON_COMPOSE = """\
services:
  llama:
    image: dustynv/llama_cpp:r36.4.0
    runtime: nvidia
    command: ["llama-server", "-m", "/models/qwen3-8b-Q4_K_M.gguf", "-ngl", "99"]
"""


def test_jetson_compose(tmp_path: Path) -> None:
    d = only(tmp_path, "compose.yaml", JETSON_COMPOSE)
    # L4T r36 is JetPack 6: the Orin modules, which have no AMD target (data/gpu_evidence.yaml, l4t_releases)
    # (the Qwen3 GGUF bounds the build from below: model_families, llama.cpp's floor for the architecture)
    assert evidence(d) == {"gpu.vendor": ("nvidia", "manifest", 4, 14), "engine.backend": ("cuda", "image", 3, 12),
                           "gpu.arch": (None, "image", 3, 12),
                           "engine.version": ("newer than b4875", "inferred", None, None)}
    assert d["@why"]["engine.backend"] == "dustynv/llama_cpp is an NVIDIA Jetson (L4T) image"


XPU_COMPOSE = """\
services:
  vllm:
    image: intel/vllm:0.10.2-xpu
    devices:
      - /dev/dri:/dev/dri
    environment:
      ZES_ENABLE_SYSMAN: "1"
    command: ["vllm", "serve", "Qwen/Qwen3-8B", "--dtype", "float16"]
"""


def test_intel_xpu_compose(tmp_path: Path) -> None:
    d = only(tmp_path, "compose.yaml", XPU_COMPOSE)
    assert evidence(d) == {"gpu.vendor": ("intel", "image", 3, 12), "engine.backend": ("xpu", "image", 3, 12),
                           "engine.version": ("0.10.2", "image", 3, 12)}
    assert d["@why"]["engine.version"] == "vLLM version read from the image tag intel/vllm:0.10.2-xpu"


SYCL_SCRIPT = """\
#!/bin/bash
source /opt/intel/oneapi/setvars.sh
cmake -B build -DGGML_SYCL=ON -DCMAKE_C_COMPILER=icx -DCMAKE_CXX_COMPILER=icpx
cmake --build build --config Release -j
export ONEAPI_DEVICE_SELECTOR=level_zero:0
./build/bin/llama-server -m models/llama-3.1-8b-instruct-Q4_K_M.gguf -ngl 99
"""


def test_llamacpp_sycl_script(tmp_path: Path) -> None:
    d = only(tmp_path, "serve.sh", SYCL_SCRIPT)
    assert evidence(d) == {"engine.backend": ("sycl", "build", 3, 16), "gpu.vendor": ("intel", "env", 5, 8)}
    # without the selector, the build's SYCL target (INTEL unless set) still says Intel
    d = only(tmp_path, "serve.sh", SYCL_SCRIPT.replace("export ONEAPI_DEVICE_SELECTOR=level_zero:0\n", ""))
    assert evidence(d) == {"engine.backend": ("sycl", "build", 3, 16), "gpu.vendor": ("intel", "build", 3, 16)}
    d = only(tmp_path, "serve.sh", SYCL_SCRIPT.replace("-DGGML_SYCL=ON", "-DGGML_SYCL=ON -DGGML_SYCL_TARGET=NVIDIA")
             .replace("export ONEAPI_DEVICE_SELECTOR=level_zero:0\n", ""))
    assert evidence(d) == {"engine.backend": ("sycl", "build", 3, 16), "gpu.vendor": ("nvidia", "build", 3, 31)}


# -- images ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("image", "expected"), [
    ("vllm/vllm-openai:v0.30.0", {"gpu.vendor": "nvidia", "engine.backend": "cuda", "engine.version": "0.30.0"}),
    ("vllm/vllm-openai-rocm:v0.14.0", {"gpu.vendor": "amd", "engine.backend": "hip", "engine.version": "0.14.0"}),
    ("rocm/vllm-dev:nightly", {"gpu.vendor": "amd", "engine.backend": "hip"}),
    ("docker.io/rocm/vllm:latest", {"gpu.vendor": "amd", "engine.backend": "hip"}),
    ("intel/llm-scaler-vllm:0.10.2-b6", {"gpu.vendor": "intel", "engine.backend": "xpu", "engine.version": "0.10.2"}),
    ("intel/llm-scaler-vllm:1.2", {"gpu.vendor": "intel", "engine.backend": "xpu"}),
    ("vllm/vllm-openai-cpu:v0.12.0", {"engine.backend": "cpu", "engine.version": "0.12.0"}),
    ("vllm/vllm-tpu:v0.11.1", {"gpu.vendor": "google", "engine.backend": "tpu"}),  # TPU tags: not read
    ("nvcr.io/nvidia/vllm:25.09-py3", {"gpu.vendor": "nvidia", "engine.backend": "cuda"}),
    ("myorg/vllm-server:vllm-0.10.1-cu128", {}),
    ("myorg/vllm-server:0.10.1-0.9.2", {}),  # two versions: none is read
    ("myorg/server:0.10.1", {}),  # not a vLLM-named repository
    ("ghcr.io/acme-ml/vllm-runtime:0.0.19", {}),  # the image's own version, not vLLM's (issue 25)
    ("myorg/vllm-server:0.10.1", {}),  # a bare number in a user's image: its own version
    ("lmcache/vllm-openai:v0.3.9", {}),  # LMCache's build of vLLM: LMCache's release
    ("lmcache/vllm-openai:latest", {}),  # LMCache's newest, not vLLM's
    ("someorg/vllm-openai:v0.9.2", {}),  # another Docker Hub namespace: that project's tag
    ("registry.example.com/mirror/vllm-openai:v0.9.2", {"engine.version": "0.9.2"}),  # a mirror keeps vLLM's tags
])
def test_vllm_images(tmp_path: Path, image: str, expected: dict[str, str]) -> None:
    d = only(tmp_path, "compose.yaml", f"services:\n  v:\n    image: {image}\n"
                                       "    command: [\"vllm\", \"serve\", \"org/m\"]\n")
    got = {k: v[0] for k, v in evidence(d).items()}
    if image.startswith("myorg/vllm-server:vllm-"):
        assert got == {"engine.version": "0.10.1"}
        assert evidence(d)["engine.version"] == ("0.10.1", "image", 3, 12)
        return
    assert got == expected
    assert all(v[1:] == ("image", 3, 12) for v in evidence(d).values())


@pytest.mark.parametrize(("tag", "expected"), [
    ("server", {"engine.backend": "cpu"}),
    ("server-vulkan", {"engine.backend": "vulkan"}),
    ("server-intel", {"engine.backend": "sycl", "gpu.vendor": "intel"}),
    ("server-rocm", {"engine.backend": "hip", "gpu.vendor": "amd"}),
    ("server-musa", {"engine.backend": "musa", "gpu.vendor": "moore-threads"}),
    ("server-cuda-b6327", {"engine.backend": "cuda", "gpu.vendor": "nvidia", "engine.version": "b6327"}),
    ("full-cuda13", {}),  # the full image runs tools.sh: no server launch without --server
])
def test_llamacpp_images(tmp_path: Path, tag: str, expected: dict[str, str]) -> None:
    for repo in ("ghcr.io/ggml-org/llama.cpp", "ghcr.io/ggerganov/llama.cpp"):
        found = facts(tmp_path, "compose.yaml", f"services:\n  l:\n    image: {repo}:{tag}\n"
                                                "    command: [\"-m\", \"/m/model.gguf\"]\n")
        if not expected:
            assert found == []
            continue
        (d,) = found
        assert {k: v[0] for k, v in evidence(d).items()} == expected
        assert all(v[1:] == ("image", 3, 12) for v in evidence(d).values())


def test_parse_image() -> None:
    assert parse_image("ghcr.io/ggml-org/llama.cpp:server-cuda@sha256:ab") == parse_image(
        "ghcr.io/ggml-org/llama.cpp:server-cuda")
    ref = parse_image("localhost:5000/team/vllm:0.9.2")
    assert (ref.registry, ref.repo, ref.tag) == ("localhost:5000", "team/vllm", "0.9.2")
    ref = parse_image("docker.io/library/ubuntu")
    assert (ref.registry, ref.repo, ref.tag) == ("", "ubuntu", "")


# -- devices, runtime, resource names -------------------------------------------------------------------------------


def test_docker_run_devices_runtime_and_gpus(tmp_path: Path) -> None:
    d = only(tmp_path, "serve.sh", "docker run --device /dev/kfd --device /dev/dri myorg/llm:1 vllm serve org/m\n")
    assert evidence(d) == {"gpu.vendor": ("amd", "manifest", 1, 21), "engine.backend": ("hip", "inferred", 1, 21)}
    assert d["@why"]["engine.backend"] == "vLLM on amd runs the hip backend"
    d = only(tmp_path, "serve.sh", "docker run --runtime=nvidia myorg/llm:1 vllm serve org/m\n")
    assert evidence(d) == {"gpu.vendor": ("nvidia", "manifest", 1, 12), "engine.backend": ("cuda", "inferred", 1, 12)}
    d = only(tmp_path, "serve.sh", "docker run --device amd.com/gpu=all myorg/llm:1 vllm serve org/m\n")
    assert evidence(d)["gpu.vendor"] == ("amd", "manifest", 1, 21)
    # `--gpus` serves AMD GPUs too (Docker 29.3, CDI), and /dev/dri is any GPU's: neither says a vendor
    assert evidence(only(tmp_path, "serve.sh", "docker run --gpus all --device /dev/dri myorg/llm:1 "
                                               "vllm serve org/m\n")) == {}


def test_compose_driver_and_capabilities(tmp_path: Path) -> None:
    text = ("services:\n  v:\n    image: myorg/llm:1\n    command: [\"vllm\", \"serve\", \"org/m\"]\n"
            "    deploy:\n      resources:\n        reservations:\n          devices:\n"
            "            - {capabilities: [gpu], count: 1}\n")
    assert evidence(only(tmp_path, "compose.yaml", text)) == {}  # no driver named: not certain
    d = only(tmp_path, "compose.yaml", text.replace("{capabilities", "{driver: nvidia, capabilities"))
    assert evidence(d) == {"gpu.vendor": ("nvidia", "manifest", 9, 24), "engine.backend": ("cuda", "inferred", 9, 24)}


@pytest.mark.parametrize(("resource", "vendor", "backend"), [
    ("nvidia.com/gpu", "nvidia", "cuda"), ("amd.com/gpu", "amd", "hip"), ("gpu.intel.com/i915", "intel", "xpu"),
    ("google.com/tpu", "google", "tpu"),
])
def test_kubernetes_resource_names(tmp_path: Path, resource: str, vendor: str, backend: str) -> None:
    text = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: v\n"
            "      image: myorg/llm:1\n      command: [\"vllm\", \"serve\", \"org/m\"]\n"
            f"      resources:\n        limits: {{\"{resource}\": \"1\"}}\n")
    d = only(tmp_path, "pod.yaml", text)
    assert evidence(d) == {"gpu.vendor": (vendor, "manifest", 10, 18), "engine.backend": (backend, "inferred", 10, 18)}


# -- environment ----------------------------------------------------------------------------------------------------


def test_rocm_and_oneapi_environment(tmp_path: Path) -> None:
    d = only(tmp_path, "serve.sh", "export PYTORCH_ROCM_ARCH=gfx942\nvllm serve org/m\n")
    assert evidence(d) == {"gpu.vendor": ("amd", "env", 1, 8), "gpu.arch": ("gfx942", "env", 1, 8),
                           "engine.backend": ("hip", "inferred", 1, 8)}
    d = only(tmp_path, "serve.sh", "export PYTORCH_ROCM_ARCH='gfx90a;gfx942'\nvllm serve org/m\n")
    assert "gpu.arch" not in d  # several targets: the one this GPU is stays unknown
    d = only(tmp_path, "serve.sh", "ROCR_VISIBLE_DEVICES=0 llama-server -m m.gguf\n")
    assert evidence(d) == {"gpu.vendor": ("amd", "env", 1, 1)}  # llama.cpp on AMD may be HIP or Vulkan
    # both vendors' visibility variables: a script written for either, so neither says the vendor
    assert evidence(only(tmp_path, "serve.sh", "CUDA_VISIBLE_DEVICES=0 HIP_VISIBLE_DEVICES=0 vllm serve o/m\n")) == {}
    d = only(tmp_path, "serve.sh", "NVIDIA_VISIBLE_DEVICES=all vllm serve org/m\n")
    assert evidence(d)["gpu.vendor"] == ("nvidia", "env", 1, 1)
    d = only(tmp_path, "serve.sh", "GGML_SYCL_DISABLE_OPT=1 llama-server -m m.gguf\n")
    assert evidence(d) == {"engine.backend": ("sycl", "env", 1, 1)}
    d = only(tmp_path, "serve.sh", "ONEAPI_DEVICE_SELECTOR=cuda:0 llama-server -m m.gguf\n")
    assert evidence(d) == {"gpu.vendor": ("nvidia", "env", 1, 1)}
    d = only(tmp_path, "serve.sh", "PJRT_DEVICE=TPU vllm serve org/m\n")
    assert evidence(d) == {"gpu.vendor": ("google", "env", 1, 1), "engine.backend": ("tpu", "env", 1, 1)}


@pytest.mark.parametrize(("value", "target"), [("11.0.0", "gfx1100"), ("10.3.0", "gfx1030"), ("9.0.10", "gfx90a"),
                                               ("11.5.1", "gfx1151"), ("9.4.2", "gfx942"), ("eleven", None),
                                               ("9.0.16", None)])
def test_hsa_override_to_gfx(value: str, target: str | None) -> None:
    assert gfx_from_hsa(value) == target


# -- build lines and programs ---------------------------------------------------------------------------------------


def test_build_folders_tie_each_launch_to_its_build(tmp_path: Path) -> None:
    script = ("cmake -B build-rocm -DGGML_HIP=ON -DAMDGPU_TARGETS=gfx1100\n"
              "cmake -B build-vk -DGGML_VULKAN=ON\n"
              "./build-rocm/bin/llama-server -m m.gguf\n"
              "./build-vk/bin/llama-server -m m.gguf --port 8081\n")
    rocm, vulkan = facts(tmp_path, "serve.sh", script)
    assert evidence(rocm) == {"engine.backend": ("hip", "build", 1, 21), "gpu.vendor": ("amd", "inferred", 1, 21),
                              "gpu.arch": ("gfx1100", "build", 1, 35)}
    assert evidence(vulkan) == {"engine.backend": ("vulkan", "build", 2, 19)}
    # a build folder's own name, with no build line
    d = only(tmp_path, "serve.sh", "~/llama.cpp/build-vulkan/bin/llama-server -m m.gguf\n")
    assert evidence(d) == {"engine.backend": ("vulkan", "build", 1, 1)}


def test_two_builds_no_folder_conflict(tmp_path: Path) -> None:
    script = "cmake .. -DGGML_CUDA=ON\ncmake .. -DGGML_VULKAN=ON\nllama-server -m m.gguf\n"
    d = only(tmp_path, "serve.sh", script)
    assert "engine.backend" not in d
    assert d["@notes"] == ["engine.backend left unknown: the file says cuda (-DGGML_CUDA=ON, serve.sh:1:10) and "
                           "vulkan (-DGGML_VULKAN=ON, serve.sh:2:10)"]


def test_exe_launch_is_windows(tmp_path: Path) -> None:
    d = only(tmp_path, "serve.sh", "./build/bin/Release/llama-server.exe -m Qwen3-8B-Q8_0.gguf -ngl 99\n")
    assert evidence(d) == {"host.os": ("windows", "inferred", 1, 1),
                           "engine.version": ("newer than b4875", "inferred", None, None)}  # Qwen3's floor
    assert d["@why"]["host.os"] == "llama-server.exe is a Windows program"


# -- conflicts ------------------------------------------------------------------------------------------------------


def test_conflicting_vendor_is_left_unknown_with_a_note(tmp_path: Path) -> None:
    text = ("services:\n  v:\n    image: rocm/vllm:latest\n    runtime: nvidia\n"
            "    command: [\"vllm\", \"serve\", \"o/m\"]\n")
    d = only(tmp_path, "compose.yaml", text)
    assert evidence(d) == {"engine.backend": ("hip", "image", 3, 12)}  # the backend has one clue only
    assert d["@notes"] == ["gpu.vendor left unknown: the file says nvidia (container runtime nvidia, "
                           "compose.yaml:4:14) and amd (rocm/vllm is a ROCm image, compose.yaml:3:12)"]


# -- versions -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("requirement", "expected"), [
    ('"vllm>=0.10.0,<0.11"', ("engine.version_range", ">=0.10.0,<0.11")),
    ("'vllm>=0.9'", ("engine.version_range", ">=0.9")),
    ("'vllm[audio]~=0.10.1'", ("engine.version_range", "~=0.10.1")),
    ("vllm==0.10.*", ("engine.version_range", "==0.10.*")),
    ("vllm==0.10.1", ("engine.version", "0.10.1")),
])
def test_pip_requirements(tmp_path: Path, requirement: str, expected: tuple[str, str]) -> None:
    d = only(tmp_path, "serve.sh", f"pip install {requirement}\nvllm serve org/m\n")
    key, value = expected
    assert evidence(d) == {key: (value, "inferred", 1, 13)}


def test_pip_without_a_requirement_says_nothing(tmp_path: Path) -> None:
    assert evidence(only(tmp_path, "serve.sh", "pip install -U vllm\nvllm serve org/m\n")) == {}


def test_the_platform_says_linux(tmp_path: Path) -> None:
    """A container image runs the engine in a Linux userland, and systemd units run on Linux: records about
    Windows hosts do not apply to them, even when the command line says the host is Windows."""
    d = only(tmp_path, "compose.yaml", "services:\n  llm:\n    image: ghcr.io/ggml-org/llama.cpp:server-rocm\n"
                                       "    command: [\"-m\", \"/m.gguf\"]\n")
    assert d["@why"]["host.os"] == "a container image runs the engine in a Linux userland"
    (dep,) = json.loads(_facts_json(tmp_path, "compose.yaml"))["deployments"]
    fact = dep["facts"]["host.os"]
    assert (fact["value"], fact["origin"], fact["line"], fact["column"]) == ("linux", "image", 3, 12)
    (tmp_path / "llama.service").write_text("[Service]\nExecStart=/opt/llama/llama-server -m /m.gguf\n")
    (dep,) = json.loads(_facts_json(tmp_path, "llama.service"))["deployments"]
    fact = dep["facts"]["host.os"]
    assert (fact["value"], fact["origin"], fact["line"], fact["column"], fact["note"]) == (
        "linux", "inferred", 2, 11, "a systemd file runs on Linux")


def _facts_json(tmp_path: Path, name: str) -> str:
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        return invoke(["facts", name, "--format", "json"]).output
    finally:
        os.chdir(cwd)


def test_vllm_cpu_backend_variables(tmp_path: Path) -> None:
    d = only(tmp_path, "serve.sh", "export VLLM_CPU_KVCACHE_SPACE=16\nvllm serve org/m\n")
    assert evidence(d) == {"engine.backend": ("cpu", "env", 1, 8)}

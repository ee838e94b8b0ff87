"""What a launch's surroundings say about the accelerator: vendor (``gpu.vendor``), compute backend
(``engine.backend``), AMD target (``gpu.arch``) and host OS (``host.os``).

Each clue is located at the word, label or env var that gives it away: the container image (``rocm/vllm``,
``intel/vllm``, ``vllm/vllm-tpu``, llama.cpp ``server-rocm``, Jetson and NGC images), the devices and runtime
(``/dev/kfd``, ``runtime: nvidia``, a compose device ``driver``, CDI names), Kubernetes resource names
(``nvidia.com/gpu``, ``amd.com/gpu``, ``gpu.intel.com/*``, ``google.com/tpu``), the vendors' runtime variables
(ROCm's ``HIP_VISIBLE_DEVICES``, ``HSA_OVERRIDE_GFX_VERSION``, ``PYTORCH_ROCM_ARCH``; oneAPI's
``ONEAPI_DEVICE_SELECTOR``, ``ZES_*``; ``GGML_SYCL_*``), llama.cpp build lines, and a ``.exe`` program. Only what
is certain is used: ``--gpus`` is left out, since Docker 29.3 serves it for AMD GPUs through CDI too (AMD Container
Toolkit, "Running Workloads"), and ``/dev/dri`` alone is left out (AMD, Intel and any Vulkan GPU expose it).

Clues that agree set the fact; clues that disagree leave it unknown with a note. A fact the engine's own options
set (origin ``flag``/``config-file``) is never overridden. Then what one fact implies for the other is filled in,
origin ``inferred``: a backend implies its vendor (``hip`` -> ``amd``, from ``backend_vendors`` of
``data/hardware.yaml``); for vLLM, a vendor implies the backend
(vLLM runs NVIDIA on CUDA, AMD on ROCm, Intel on XPU, TPUs on ``tpu``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from relialint.base import lazyre
from relialint.core.deployment import Deployment
from relialint.core.facts import Fact, FactSet, Origin, Value, render
from relialint.readers.located import UNKNOWN, Command, EnvVar, Span, Word

GPU_KEYS = ("gpu.model", "gpu.vendor", "gpu.sm", "gpu.arch", "gpu.native_fp8", "gpu.native_fp4", "gpu.cc_capable",
            "gpu.memory_gb", "gpu.candidates")
"""The GPU facts an image can state (a Jetson image's L4T release names the modules it runs on)."""
KEYS = ("engine.backend", "engine.flashinfer", "host.os", *GPU_KEYS)


class Clue(NamedTuple):  # a NamedTuple: cheaper to create at start-up than a dataclass
    """One piece of evidence for one fact."""

    key: str
    value: Value
    origin: Origin
    span: Span
    why: str
    source: Span | None = None


def _clue(key: str, value: Value, origin: Origin, word: Word | EnvVar | Span, why: str) -> Clue:
    if isinstance(word, Span):
        return Clue(key, value, origin, word, why)
    return Clue(key, value, origin, word.span, why, word.source)


# -- images ---------------------------------------------------------------------------------------------------------


class ImageRef(NamedTuple):  # a NamedTuple: cheaper to create at start-up than a dataclass
    """An image reference split into registry, repository path and tag."""

    registry: str
    repo: str
    tag: str


def parse_image(text: str) -> ImageRef:
    """``ghcr.io/ggml-org/llama.cpp:server-cuda@sha256:...`` -> (``ghcr.io``, ``ggml-org/llama.cpp``,
    ``server-cuda``); Docker Hub's ``docker.io``/``library/`` prefixes are dropped."""
    name = text.split("@", 1)[0].strip()
    tag = ""
    last = name.rsplit("/", 1)[-1]
    if ":" in last:
        name, tag = name[: len(name) - len(last)] + last.split(":", 1)[0], last.split(":", 1)[1]
    parts = name.split("/")
    registry = ""
    if len(parts) > 1 and ("." in parts[0] or ":" in parts[0] or parts[0] == "localhost"):
        registry, parts = parts[0], parts[1:]
    if registry in ("docker.io", "index.docker.io", "registry-1.docker.io"):
        registry = ""
    if parts and parts[0] == "library" and len(parts) > 1:
        parts = parts[1:]
    return ImageRef(registry.lower(), "/".join(parts).lower(), tag)


_LLAMA_REPOS = ("ggml-org/llama.cpp", "ggerganov/llama.cpp")


def image_clues(image: Word) -> list[Clue]:
    """Vendor and backend an image is built for, where its name says so."""
    ref = parse_image(image.text or "")
    repo, tag = ref.repo, ref.tag.lower()
    last = repo.rsplit("/", 1)[-1]
    out: list[Clue] = []

    def both(backend: str | None, vendor: str | None, why: str) -> list[Clue]:
        found = []
        if vendor is not None:
            found.append(_clue("gpu.vendor", vendor, "image", image, why))
        if backend is not None:
            found.append(_clue("engine.backend", backend, "image", image, why))
        return found

    if repo in _LLAMA_REPOS:
        from relialint.engines.llamacpp_image import parse_tag

        read = parse_tag(tag)
        if read is not None:
            out += both(read.backend, read.vendor, f"llama.cpp image tag {tag or 'server'}")
        return out
    if repo == "vllm/vllm-openai":
        why = "the vllm/vllm-openai image is vLLM's CUDA build"
        # its Dockerfile installs FlashInfer; a CUDA base image with vLLM pip-installed may not have it
        return [*both("cuda", "nvidia", why),
                _clue("engine.flashinfer", True, "image", image, "the vllm/vllm-openai image installs FlashInfer")]
    if repo == "vllm/vllm-openai-rocm" or repo.startswith("rocm/"):
        return both("hip", "amd", f"{repo} is a ROCm image")
    if repo in ("vllm/vllm-openai-xpu", "intel/vllm", "intel/llm-scaler-vllm"):
        return both("xpu", "intel", f"{repo} is vLLM's Intel GPU (XPU) build")
    if repo == "vllm/vllm-openai-cpu" or last in ("vllm-cpu", "vllm-cpu-release-repo"):
        return both("cpu", None, f"{repo} is vLLM's CPU build")
    if last == "vllm-tpu":
        return both("tpu", "google", f"{repo} is vLLM's TPU build")
    if repo.startswith("dustynv/") or (ref.registry == "nvcr.io" and repo.startswith("nvidia/l4t-")) or \
            (ref.registry == "ghcr.io" and repo.startswith("nvidia-ai-iot/")):  # jetson-containers' newer home
        return both("cuda", "nvidia", f"{repo} is an NVIDIA Jetson (L4T) image") + l4t_clues(image, ref.tag)
    if (ref.registry == "nvcr.io" and repo.startswith("nvidia/")) or repo.startswith("nvidia/cuda"):
        return both("cuda", "nvidia", f"{ref.registry + '/' if ref.registry else ''}{repo} is an NVIDIA CUDA image")
    if repo.startswith("intel/oneapi"):
        return both(None, "intel", f"{repo} is an Intel oneAPI image")
    return out


_L4T = lazyre.compile(r"(?:^|[-_.])r(\d{2})\.\d+(?:\.\d+)?(?=$|[-_.])")


def l4t_clues(image: Word, tag: str) -> list[Clue]:
    """The Jetson modules a Jetson image's L4T release runs on (``r36.4.0``: JetPack 6, the Orin modules), from
    ``l4t_releases`` of ``data/gpu_evidence.yaml``: the facts they share and, for several, ``gpu.candidates``."""
    from relialint.core.hardware import l4t_release

    found = {int(m.group(1)) for m in _L4T.finditer(tag.lower())}
    if len(found) != 1:
        return []
    release = found.pop()
    named = l4t_release(release)
    if named is None:
        return []
    rows = [gpu.facts() for gpu in named.gpus]
    why = f"L4T r{release} in the tag runs only on {', '.join(g.name for g in named.gpus)} ({named.source})"
    out = [_clue(key, value, "image", image, why) for key, value in rows[0].items()  # type: ignore[arg-type]
           if key in GPU_KEYS and all(key in row and row[key] == value for row in rows[1:])]
    if len(named.gpus) > 1:
        out.append(_clue("gpu.candidates", "|".join(gpu.name for gpu in named.gpus), "image", image, why))
    return out


# -- devices, runtime, resource names (reader labels) ---------------------------------------------------------------

_DEVICE_VENDORS = (("/dev/kfd", "amd", "/dev/kfd is ROCm's compute device"),
                   ("/dev/nvidia", "nvidia", "an NVIDIA device node"),
                   ("nvidia.com/gpu", "nvidia", "an NVIDIA CDI device"),
                   ("amd.com/gpu", "amd", "an AMD CDI device"),
                   ("gpu.intel.com/", "intel", "an Intel CDI device"))


def label_clues(labels: list[tuple[str, str, Span]]) -> list[Clue]:
    """Vendor from the labels readers pass on: resource names, runtime, device drivers, device paths."""
    out: list[Clue] = []
    for label, value, span in labels:
        if label.startswith(("nvidia.com/gpu", "nvidia.com/mig-")):
            out.append(_clue("gpu.vendor", "nvidia", "manifest", span, f"resource or label {label}"))
        elif label.startswith("amd.com/gpu"):
            out.append(_clue("gpu.vendor", "amd", "manifest", span, f"resource or label {label}"))
        elif label.startswith("gpu.intel.com/"):
            out.append(_clue("gpu.vendor", "intel", "manifest", span, f"resource {label}"))
        elif label.startswith("google.com/tpu") or label.startswith("cloud.google.com/gke-tpu"):
            out.append(_clue("gpu.vendor", "google", "manifest", span, f"TPU resource or label {label}"))
        elif label in ("compose.runtime", "compose.driver") and value in ("nvidia", "amd"):
            what = "runtime" if label == "compose.runtime" else "device driver"
            out.append(_clue("gpu.vendor", value, "manifest", span, f"container {what} {value}"))
        elif label == "compose.device":
            path = value.split(":", 1)[0] if value.startswith("/") else value
            for prefix, vendor, why in _DEVICE_VENDORS:
                if path.startswith(prefix):
                    out.append(_clue("gpu.vendor", vendor, "manifest", span, f"device {path}: {why}"))
                    break
    return out


# -- environment ----------------------------------------------------------------------------------------------------

_ROCM_ENV = ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HSA_OVERRIDE_GFX_VERSION", "PYTORCH_ROCM_ARCH",
             "HSA_ENABLE_SDMA", "HSA_NO_SCRATCH_RECLAIM")
_ROCM_PREFIXES = ("VLLM_ROCM_", "MIOPEN_", "ROCBLAS_", "HIPBLASLT_", "RCCL_")
_NVIDIA_ENV = ("NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES")
_GFX = lazyre.compile(r"^gfx[0-9]{1,2}[0-9a-f]{2}$")


def gfx_from_hsa(value: str) -> str | None:
    """``HSA_OVERRIDE_GFX_VERSION=11.0.0`` -> ``gfx1100``: major and minor in decimal, stepping in hex
    (``9.0.10`` -> ``gfx90a``), as LLVM names AMD targets."""
    match = re.fullmatch(r"\s*(\d{1,2})\.(\d)\.(\d{1,2})\s*", value)
    if not match or int(match.group(3)) > 15:
        return None
    return f"gfx{int(match.group(1))}{match.group(2)}{int(match.group(3)):x}"


_VLLM_CPU_ENV = frozenset({"VLLM_CPU_KVCACHE_SPACE", "VLLM_CPU_OMP_THREADS_BIND", "VLLM_CPU_NUM_OF_RESERVED_CPU"})


def env_clues(env: list[EnvVar]) -> list[Clue]:
    """Vendor, backend and AMD target from the vendors' runtime variables."""
    out: list[Clue] = []
    # a script that sets CUDA_VISIBLE_DEVICES beside HIP_/ROCR_VISIBLE_DEVICES is written for either vendor
    portable = any(var.name == "CUDA_VISIBLE_DEVICES" for var in env)
    for var in env:
        name, value = var.name, var.value
        if portable and name in ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"):
            continue
        if name in _ROCM_ENV or name.startswith(_ROCM_PREFIXES):
            out.append(_clue("gpu.vendor", "amd", "env", var, f"{name} is read by AMD's ROCm stack"))
            if name == "HSA_OVERRIDE_GFX_VERSION" and value is not None:
                target = gfx_from_hsa(value)
                if target is not None:
                    out.append(_clue("gpu.arch", target, "env", var, f"HSA_OVERRIDE_GFX_VERSION={value} runs the GPU "
                                     f"as {target}"))
            if name == "PYTORCH_ROCM_ARCH" and value is not None:
                targets = [t for t in re.split(r"[;,\s]+", value.strip()) if t]
                if len(targets) == 1 and _GFX.match(targets[0].lower()):
                    out.append(_clue("gpu.arch", targets[0].lower(), "env", var,
                                     f"PYTORCH_ROCM_ARCH names one target, {targets[0].lower()}"))
        elif name in _NVIDIA_ENV:
            out.append(_clue("gpu.vendor", "nvidia", "env", var, f"{name} is read by the NVIDIA container runtime"))
        elif name == "ONEAPI_DEVICE_SELECTOR" and value is not None:
            selector = value.strip().strip("!").lower()
            for prefix, vendor in (("level_zero", "intel"), ("cuda", "nvidia"), ("hip", "amd")):
                if selector.startswith(prefix):
                    out.append(_clue("gpu.vendor", vendor, "env", var, f"ONEAPI_DEVICE_SELECTOR={value} selects "
                                     f"{prefix} devices"))
        elif name.startswith(("ZES_", "ZE_AFFINITY_MASK", "ZE_FLAT_DEVICE_HIERARCHY")):
            out.append(_clue("gpu.vendor", "intel", "env", var, f"{name} is read by Intel's Level Zero runtime"))
        elif name.startswith("GGML_SYCL_"):
            out.append(_clue("engine.backend", "sycl", "env", var, f"{name} is read by llama.cpp's SYCL backend"))
        elif name in _VLLM_CPU_ENV:
            out.append(_clue("engine.backend", "cpu", "env", var,
                             f"{name} is read by vLLM's CPU backend (vLLM docs: CPU installation, runtime variables)"))
        elif name == "PJRT_DEVICE" and (value or "").upper() == "TPU":
            out.append(_clue("gpu.vendor", "google", "env", var, "PJRT_DEVICE=TPU"))
            out.append(_clue("engine.backend", "tpu", "env", var, "PJRT_DEVICE=TPU"))
    return out


# -- the program ----------------------------------------------------------------------------------------------------


def program_clues(words: list[Word]) -> list[Clue]:
    """``llama-server.exe`` (or any ``.exe`` launch) runs on Windows."""
    if not words or not words[0].text:
        return []
    text = words[0].text
    if text.lower().endswith(".exe"):
        return [_clue("host.os", "windows", "inferred", words[0], f"{text.replace(chr(92), '/').rsplit('/', 1)[-1]}"
                      " is a Windows program")]
    return []


TERMUX_PREFIX = "/data/data/com.termux/"
"""Termux's installation prefix on Android (its ``$PREFIX`` is ``/data/data/com.termux/files/usr``)."""


def interpreter_clues(interpreter: Word | None) -> list[Clue]:
    """A script whose ``#!`` interpreter is Termux's runs on Android: a Linux kernel, no Windows or macOS."""
    if interpreter is None or not (interpreter.text or "").startswith(TERMUX_PREFIX):
        return []
    return [_clue("host.os", "linux", "inferred", interpreter,
                  f"the script's interpreter {interpreter.text} is Termux's, on Android (a Linux kernel)")]


LINUX_ONLY = frozenset({"systemd", "kubernetes", "helm", "compose", "dockerfile", "skypilot"})
"""Formats that only run on Linux: systemd units, and the container platforms (an image's userland is Linux)."""


def command_clues(command: Command, file_kind: str | None = None) -> list[Clue]:
    """Every clue of one command: reader labels (devices, runtime, resources), image, environment, program, and
    the platform the file's format runs on. The first clue of a fact is where the fact points."""
    out: list[Clue] = label_clues(command.gpu_labels)
    if command.image is not None:
        out += image_clues(command.image)
    out += env_clues(command.env)
    words = command.entrypoint + command.argv if command.entrypoint is not None else command.argv
    out += program_clues(words)
    if command.image is not None:
        out.append(_clue("host.os", "linux", "image", command.image,
                         "a container image runs the engine in a Linux userland"))
    elif file_kind in LINUX_ONLY:
        out.append(_clue("host.os", "linux", "inferred", command.span, f"a {file_kind} file runs on Linux"))
    return out


# -- applying -------------------------------------------------------------------------------------------------------

VLLM_BACKEND_OF_VENDOR = {"nvidia": "cuda", "amd": "hip", "intel": "xpu", "google": "tpu"}
_EXPLICIT: tuple[Origin, ...] = ("flag", "config-file")


def _where(span: Span | None, fact: Fact | None = None) -> str:
    if span is not None:
        return f"{span.path}:{span.line}:{span.column}"
    if fact is not None and fact.path:
        return f"{fact.path}:{fact.line}:{fact.column}"
    return "?"


def apply(deployment: Deployment, clues: list[Clue]) -> None:
    """Set what the clues agree on; leave disagreements unknown with a note; fill in what one fact implies."""
    facts = deployment.facts
    for key in KEYS:
        mine = [c for c in clues if c.key == key]
        existing = facts.facts.get(key)
        if not mine or key in facts.blocked:
            continue
        if existing is not None and existing.origin in _EXPLICIT:
            continue
        values = {render(c.value) for c in mine} | ({render(existing.value)} if existing is not None else set())
        if len(values) > 1:
            said = [f"{render(c.value)} ({c.why}, {_where(c.span)})" for c in mine]
            if existing is not None:
                said.insert(0, f"{render(existing.value)} ({existing.origin}, {_where(None, existing)})")
            facts.unknown(key)
            deployment.notes.append(f"{key} left unknown: the file says " + " and ".join(said))
            continue
        if existing is not None:
            continue
        first = mine[0]
        others = sorted({c.why for c in mine[1:] if c.why != first.why})
        note = first.why + ("; also " + "; ".join(others) if others else "")
        fact = Fact(first.value, first.origin, first.span.path, first.span.line, first.span.column,
                    first.span.end_line, first.span.end_column, note,
                    (first.source.path, first.source.line, first.source.column) if first.source else None)
        facts.set(key, fact)
    implied(deployment)


def implied(deployment: Deployment) -> None:
    """What one of ``gpu.vendor`` / ``engine.backend`` gives the other when only it is known: a backend runs on
    its vendor (``backend_vendors`` of the catalogue); vLLM runs each vendor on one backend
    (``VLLM_BACKEND_OF_VENDOR``). A build for a backend other than CUDA has no FlashInfer (a CUDA library); a CUDA
    build may or may not (``engine.flashinfer`` stays unknown unless the image says). Run again after facts from
    elsewhere in the file (GPU labels and resources of a manifest) have arrived."""
    facts = deployment.facts
    backend = facts.facts.get("engine.backend")
    vendor = facts.facts.get("gpu.vendor")
    if backend is not None and vendor is None and "gpu.vendor" not in facts.blocked:
        from relialint.core.hardware import backend_vendors

        implied = backend_vendors().get(str(backend.value))
        if implied is not None:
            facts.set("gpu.vendor", _derived(implied, backend, f"engine.backend={backend.value} runs on {implied}"))
    vendor = facts.facts.get("gpu.vendor")
    if deployment.engine == "vllm" and vendor is not None and backend is None and \
            "engine.backend" not in facts.blocked:
        implied = VLLM_BACKEND_OF_VENDOR.get(str(vendor.value))
        if implied is not None:
            facts.set("engine.backend", _derived(implied, vendor, f"vLLM on {vendor.value} runs the {implied} backend"))
    backend = facts.facts.get("engine.backend")
    if backend is not None and backend.value != "cuda" and facts.facts.get("engine.flashinfer") is None and \
            "engine.flashinfer" not in facts.blocked:
        facts.set("engine.flashinfer", _derived(False, backend, f"FlashInfer is a CUDA library: the {backend.value} "
                                                                 "build has none"))


def _derived(value: Value, base: Fact, note: str) -> Fact:
    return Fact(value, "inferred", base.path, base.line, base.column, base.end_line, base.end_column, note,
                base.source)


# -- the container the launch runs in (reader container labels) ----------------------------------------------------

_LOOPBACK = frozenset({"127.0.0.1", "::1", "localhost"})
_ALL_INTERFACES = frozenset({"", "0.0.0.0", "::", "[::]"})
_PRIVATE_IPC = frozenset({"", "private", "shareable", "none"})
_DEFAULT_SHM_MIB = 64
"""Docker's and the Kubernetes runtimes' default ``/dev/shm``: 64 MiB (Docker ``--shm-size`` reference)."""
_UNITS = {"": 1, "b": 1, "k": 1024, "kb": 1024, "kib": 1024, "m": 1024**2, "mb": 1024**2, "mib": 1024**2,
          "g": 1024**3, "gb": 1024**3, "gib": 1024**3, "t": 1024**4, "tb": 1024**4, "tib": 1024**4}
"""Docker's sizes (``go-units`` ``RAMInBytes``: binary, case-insensitive, ``b`` / ``ib`` optional)."""
_QUANTITY = {"": 1, "k": 1000, "M": 1000**2, "G": 1000**3, "T": 1000**4, "Ki": 1024, "Mi": 1024**2,
             "Gi": 1024**3, "Ti": 1024**4}
"""Kubernetes quantities (``sizeLimit``): decimal ``k M G T``, binary ``Ki Mi Gi Ti``."""


def docker_bytes(text: str) -> int | None:
    """``2gb``, ``512m``, ``1g``, ``67108864`` -> bytes, as Docker and compose read ``shm_size``."""
    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*", text)
    if match is None or match.group(2).lower() not in _UNITS:
        return None
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


def quantity_bytes(text: str) -> int | None:
    """A Kubernetes memory quantity (``1Gi``, ``512Mi``, ``2G``, ``1073741824``) -> bytes."""
    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*", text)
    if match is None or match.group(2) not in _QUANTITY:
        return None
    return int(float(match.group(1)) * _QUANTITY[match.group(2)])


def cpu_count(text: str) -> float | None:
    """A CPU limit (``2``, ``"1.5"``, ``1500m``) -> CPUs."""
    value = text.strip().strip("\"'")
    try:
        number = float(value[:-1]) / 1000 if value.endswith("m") else float(value)
    except ValueError:
        return None
    return number if number >= 0 and number == number and number != float("inf") else None


def _label_fact(value: Value | None, span: Span, note: str) -> Fact:
    return Fact(value, "manifest", span.path, span.line, span.column, span.end_line, span.end_column, note)


def container_facts(deployment: Deployment, command: Command) -> None:
    """The ``container.*`` facts of the container a launch runs in, from the labels its reader passed on
    (``Command.container_labels``); none for a launch that is not in a compose service, a ``docker run`` /
    ``podman run`` or a Kubernetes pod. A label whose value the file does not give leaves its fact unknown; a
    pod spec a Helm chart writes (``partial``) gives only what its values say, never a false."""
    labels = command.container_labels
    if not labels or labels[0][0] != "kind":
        return
    facts = deployment.facts
    _, kind, kind_span = labels[0]
    facts.set("container.kind", _label_fact(kind, kind_span, f"the launch runs in a {kind} container"))
    partial = any(label == "partial" for label, _, _ in labels)

    def found(name: str) -> list[tuple[str, Span]]:
        return [(value, span) for label, value, span in labels if label == name]

    cpus = found("cpus")
    if cpus:
        value, span = cpus[-1]
        number = cpu_count(value) if value != UNKNOWN else None
        if number is None:
            facts.unknown("container.cpu_limit")
        elif number == 0:
            pass  # Docker's --cpus 0 (and compose's cpus: 0) sets no limit
        else:
            facts.set("container.cpu_limit", _label_fact(number, span, f"CPU limit {value}"))
    _exposure(facts, kind_span, found, partial)
    _shared_memory(facts, kind_span, found, partial)
    _mounts(facts, kind_span, found, partial)
    _memlock(facts, kind, kind_span, found, partial)


_MEMLOCK_ENOUGH = 1024**3
"""A memlock limit of at least 1 GiB counts as raised (Docker's runtime default is 8 MiB or 64 KiB)."""


def _memlock(facts: FactSet, kind: str, kind_span: Span, found: Callable[[str], list[tuple[str, Span]]],
             partial: bool) -> None:
    """``container.memlock_unlimited``: the process may lock a model's memory. True with ``IPC_LOCK`` (privileged,
    or the capability added: mlock then ignores the limit) or a memlock soft limit of ``-1`` or at least 1 GiB;
    false for a compose service or a ``docker run`` that sets neither (the runtime's default limit); unknown in a
    Kubernetes pod without IPC_LOCK (no pod field sets RLIMIT_MEMLOCK), a Helm chart, or where a value is not in
    the file."""
    key = "container.memlock_unlimited"
    unsure = partial or kind not in ("compose", "docker")
    for value, span in found("ipc_lock"):
        if value == UNKNOWN:
            unsure = True
        else:
            facts.set(key, _label_fact(True, span, f"{value}: CAP_IPC_LOCK lets the process lock memory past "
                                                   "RLIMIT_MEMLOCK"))
            return
    limits = found("memlock")
    if limits:
        value, span = limits[-1]
        number = int(value) if re.fullmatch(r"-?\d+", value.strip()) else None
        if number is None:
            facts.unknown(key)
        elif number < 0 or number >= _MEMLOCK_ENOUGH:
            facts.set(key, _label_fact(True, span, f"memlock soft limit {value}"))
        elif not unsure:
            facts.set(key, _label_fact(False, span, f"memlock soft limit {value} bytes"))
        return
    if unsure:
        facts.unknown(key)
    else:
        facts.set(key, _label_fact(False, kind_span, "no memlock ulimit and no IPC_LOCK: the runtime's default "
                                                     "limit (8 MiB or 64 KiB)"))


def _exposure(facts: FactSet, kind_span: Span, found: Callable[[str], list[tuple[str, Span]]],
              partial: bool) -> None:
    """``container.port_on_all_interfaces``."""
    key = "container.port_on_all_interfaces"
    for value, span in found("network"):
        if value == "host":
            facts.set(key, _label_fact(True, span, "the container uses the host's network: every port the server "
                                                   "listens on is on the host's interfaces"))
            return
    for _, span in found("publish_all"):
        facts.set(key, _label_fact(True, span, "-P publishes every exposed port on all host interfaces"))
        return
    unsure = partial or any(value == UNKNOWN or value.startswith(("container:", "service:"))
                            for value, _ in found("network"))  # another container's network: its ports
    for value, span in found("publish"):
        if value in _ALL_INTERFACES:
            facts.set(key, _label_fact(True, span, "a port published without a host address (or 0.0.0.0) is on "
                                                   "all host interfaces"))
            return
        if value not in _LOOPBACK:
            unsure = True  # an unknown address, or one interface that is not the loopback
    for value, span in found("service"):
        facts.set(key, _label_fact(True, span, f"a Service of type {value} in the file exposes the pods beyond "
                                               "the cluster"))
        return
    if not unsure:
        facts.set(key, _label_fact(False, kind_span, "every published port is bound to the loopback, or none is "
                                                     "published"))


def _shared_memory(facts: FactSet, kind_span: Span, found: Callable[[str], list[tuple[str, Span]]],
                   partial: bool) -> None:
    """``container.ipc_host``, ``container.shm_mib``, ``container.shm_enlarged``."""
    ipc = found("ipc")
    ipc_host: bool | None = None
    if ipc:
        value, span = ipc[-1]
        if value == "host":
            ipc_host = True
            facts.set("container.ipc_host", _label_fact(True, span, "the container shares the host's IPC namespace "
                                                                    "and its /dev/shm"))
        elif value in _PRIVATE_IPC and not partial:
            ipc_host = False
            facts.set("container.ipc_host", _label_fact(False, span, f"IPC mode {value or 'private'}"))
    elif not partial:
        ipc_host = False
        facts.set("container.ipc_host", _label_fact(False, kind_span, "no host IPC namespace"))
    mib: int | None = None
    mib_span: Span | None = None
    sized = found("shm_size")
    if sized:
        value, mib_span = sized[-1]
        size = docker_bytes(value) if value != UNKNOWN else None
        if size is not None:
            mib = size // 1024**2
            facts.set("container.shm_mib", _label_fact(mib, mib_span, f"shm_size {value}"))
    memory_dirs = found("shm_dir")
    for value, span in memory_dirs:
        size = quantity_bytes(value) if value else None
        if size is not None:
            mib, mib_span = size // 1024**2, span
            facts.set("container.shm_mib", _label_fact(mib, span, f"memory-backed emptyDir at /dev/shm, sizeLimit "
                                                                  f"{value}"))
    key = "container.shm_enlarged"
    if ipc_host:
        facts.set(key, _label_fact(True, ipc[-1][1], "the host's IPC namespace brings the host's /dev/shm"))
    elif memory_dirs:
        facts.set(key, _label_fact(True, memory_dirs[0][1], "a memory-backed emptyDir is mounted at /dev/shm"))
    elif mib is not None and mib >= 1024 and mib_span is not None:
        facts.set(key, _label_fact(True, mib_span, f"/dev/shm is {mib} MiB"))
    elif partial or ipc_host is None or any(value == UNKNOWN for value, _ in sized) or any(
            value == UNKNOWN or value.rstrip("/") == "/dev/shm" for value, _ in found("mount")):
        return  # unknown: a value not given, or something else mounted at /dev/shm
    else:
        shown = f"{mib} MiB" if mib is not None else f"the default {_DEFAULT_SHM_MIB} MiB"
        facts.set(key, _label_fact(False, mib_span or kind_span, f"/dev/shm is {shown}"))


def _mounts(facts: FactSet, kind_span: Span, found: Callable[[str], list[tuple[str, Span]]],
            partial: bool) -> None:
    """``container.mount_targets``: ``,/a,/b,`` (``,`` for none)."""
    mounts = found("mount")
    if partial or any(value == UNKNOWN for value, _ in mounts):
        return
    targets = sorted({value.rstrip("/") or "/" for value, _ in mounts})
    span = mounts[0][1] if mounts else kind_span
    facts.set("container.mount_targets", _label_fact("," + "".join(f"{t}," for t in targets), span,
                                                     f"{len(targets)} mount target(s)"))

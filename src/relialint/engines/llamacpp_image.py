"""What a tag of llama.cpp's own images (``ghcr.io/ggml-org/llama.cpp``) pins: the kind of image, its backend and
its build, each only where the tag says so.

llama.cpp's image workflow (ggml-org/llama.cpp ``.github/workflows/docker.yml``, step "Determine tag name",
@9f095980dba5767de6dc63eb44254b7191c158c0) pushes every image under two tags, ``<kind><TYPE>`` and
``<kind><TYPE><POSTFIX>``:

* ``kind`` is the Dockerfile target: ``server`` (``llama-server``), ``light`` (``llama-cli``) or ``full``
  (``tools.sh``, which runs ``llama-server`` after ``--server``/``-s``);
* ``TYPE`` is empty for the CPU build (matrix tag ``cpu``) and ``-<tag>`` for the others: ``cuda`` (``cuda12`` and
  ``cuda13`` later), ``musa``, ``intel`` (SYCL), ``vulkan``, ``rocm``, ``openvino``, ``s390x`` (the CPU build for
  s390x; ``docs/docker.md``);
* ``POSTFIX`` is ``-b<BUILD_NUMBER>`` on master (``git rev-list --count HEAD``) and ``-<branch>-<7-hex hash>`` on
  any other branch. From August 2026 a release is also tagged ``-v<X.Y.Z>`` (the semantic-version scheme).

So ``server-b6123`` is the CPU server at build 6123 and ``full-cuda-b6123`` the CUDA ``full`` image at build 6123.
A branch postfix pins no build, and since a branch name may itself begin with a type's name
(``server-cuda-fix-0123abc`` is the CUDA build of branch ``fix`` or the CPU build of branch ``cuda-fix``), it pins
no backend either.
"""

from __future__ import annotations

from typing import NamedTuple

from relialint.base import lazyre

TYPES: dict[str, tuple[str | None, str | None]] = {
    # TYPE -> (engine.backend, gpu.vendor); openvino's devices (CPU, GPU, NPU) are not a backend of the vocabulary
    "": ("cpu", None), "cuda": ("cuda", "nvidia"), "cuda12": ("cuda", "nvidia"), "cuda13": ("cuda", "nvidia"),
    "rocm": ("hip", "amd"), "vulkan": ("vulkan", None), "intel": ("sycl", "intel"), "musa": ("musa", "moore-threads"),
    "s390x": ("cpu", None), "openvino": (None, None),
}
KINDS = ("full", "light", "server")
_TAG = lazyre.compile(r"^(?P<kind>full|light|server)(?:-(?P<type>[a-z0-9]+?))??"
                      r"(?:-b(?P<build>\d+)|-(?P<release>v\d+\.\d+\.\d+))?$")
_BRANCH = lazyre.compile(r"^(?P<kind>full|light|server)-[\w.\-]+-[0-9a-f]{7}$")


class LlamaTag(NamedTuple):
    """A llama.cpp image tag read: ``backend``/``vendor``/``version`` are ``None`` where the tag does not pin them."""

    kind: str
    backend: str | None
    vendor: str | None
    version: str | None  # ``b6123`` or ``v0.4.1``


def parse_tag(tag: str) -> LlamaTag | None:
    """The tag of a ``ggml-org/llama.cpp`` image (``""`` is Docker's ``latest``, which the workflow never pushes:
    read as ``server``, as before); ``None`` when it is no tag of the workflow's forms."""
    text = tag.lower() or "server"
    match = _TAG.match(text)
    if match is not None and (match.group("type") or "") in TYPES:
        kind, type_ = match.group("kind"), match.group("type") or ""
        backend, vendor = TYPES[type_]
        version = "b" + match.group("build") if match.group("build") else match.group("release")
        return LlamaTag(kind, backend, vendor, version)
    if match is not None or _BRANCH.match(text):
        # an unknown TYPE (a backend added after this table) or a branch build: the kind only
        return LlamaTag(text.split("-", 1)[0], None, None, None)
    return None

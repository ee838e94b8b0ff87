"""The GPU catalogue (``data/hardware.yaml``): names and aliases to vendor, compute capability or AMD target, native
FP8/FP4 support, memory and Confidential Computing capability. One table, used by ``--gpu``, by inference from
manifests, by the possible-worlds evaluator (``rows``) and by the site."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from relialint.base.errors import RelialintError
from relialint.base.plain import Frozen
from relialint.core.versions import Version, VersionError, parse_sm

FP8_FROM = parse_sm("8.9")
FP4_FROM = parse_sm("10.0")
CC_FROM = parse_sm("9.0")
"""NVIDIA Confidential Computing starts with Hopper: every part below compute capability 9.0 lacks it."""


class Gpu(Frozen):
    """One catalogue entry, or a bare compute capability / AMD target."""

    name: str
    vendor: str
    sm: Version | None = None
    arch: str | None = None
    native_fp8: bool | None = None
    native_fp4: bool | None = None
    aliases: tuple[str, ...]
    note: str | None = None
    memory_gb: int | None = None
    cc_capable: bool | None = None
    family: str | None = None
    """The architecture family (Hopper, Blackwell, RDNA3, CDNA3), from the catalogue's ``families`` table; not a
    fact any trigger reads: the site searches and groups by it."""

    _fields = ("name", "vendor", "sm", "arch", "native_fp8", "native_fp4", "aliases", "note", "memory_gb", "cc_capable",
               "family")

    def __init__(self, name: str, vendor: str, sm: Version | None = None, arch: str | None = None,
                 native_fp8: bool | None = None, native_fp4: bool | None = None, aliases: tuple[str, ...] = (),
                 note: str | None = None, memory_gb: int | None = None, cc_capable: bool | None = None,
                 family: str | None = None) -> None:
        self.name = name
        self.vendor = vendor
        self.sm = sm
        self.arch = arch
        self.native_fp8 = native_fp8
        self.native_fp4 = native_fp4
        self.aliases = aliases
        self.note = note
        self.memory_gb = memory_gb
        self.cc_capable = cc_capable
        self.family = family

    def facts(self) -> dict[str, object]:
        """The ``gpu.*`` facts this entry sets. Unknown ones are left out; the other vendor's identifier is known
        to be unset (``None``): an NVIDIA GPU has no AMD target, an AMD GPU no compute capability, an Intel GPU
        neither."""
        out: dict[str, object] = {"gpu.vendor": self.vendor}
        if self.aliases or self.note is not None or not self.name.startswith(("sm_", "gfx")):
            out["gpu.model"] = self.name
        if self.sm is not None:
            out["gpu.sm"] = self.sm
        elif self.vendor in ("amd", "intel"):
            out["gpu.sm"] = None
        if self.arch is not None:
            out["gpu.arch"] = self.arch
        elif self.vendor in ("nvidia", "intel"):
            out["gpu.arch"] = None
        if self.native_fp8 is not None:
            out["gpu.native_fp8"] = self.native_fp8
        if self.native_fp4 is not None:
            out["gpu.native_fp4"] = self.native_fp4
        if self.memory_gb is not None:
            out["gpu.memory_gb"] = self.memory_gb
        if self.cc_capable is not None:
            out["gpu.cc_capable"] = self.cc_capable
        return out


class UnknownGpu(RelialintError, LookupError):
    """A GPU name that is not in the catalogue; ``closest`` holds the nearest known names."""

    def __init__(self, name: str, closest: list[str]) -> None:
        hint = f"; closest: {', '.join(closest)}" if closest else ""
        super().__init__(f"unknown GPU {name!r}{hint}")
        self.name = name
        self.closest = closest


def _norm(text: str) -> str:
    return re.sub(r"[\s_\-]+", "", text.strip().lower())


def _aliases(row: dict[str, object]) -> tuple[str, ...]:
    raw = row.get("aliases") or []
    return tuple(str(a) for a in raw) if isinstance(raw, list) else ()


def _memory(row: dict[str, object]) -> int | None:
    value = row.get("memory_gb")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def cc_for_sm(sm: Version) -> bool | None:
    """Confidential Computing capability that a compute capability alone tells: none below Hopper."""
    return False if sm < CC_FROM else None


def _nvidia(row: dict[str, object], families: dict[str, str]) -> Gpu:
    sm = parse_sm(str(row["sm"]))
    fp4 = row.get("fp4", sm >= FP4_FROM)
    cc = row.get("cc", cc_for_sm(sm))
    return Gpu(
        name=str(row["name"]),
        vendor="nvidia",
        sm=sm,
        native_fp8=sm >= FP8_FROM,
        native_fp4=fp4 if isinstance(fp4, bool) else None,
        aliases=_aliases(row),
        note=str(row["note"]) if row.get("note") else None,
        memory_gb=_memory(row),
        cc_capable=cc if isinstance(cc, bool) else None,
        family=families.get(str(sm)),
    )


def _amd(row: dict[str, object], families: dict[str, str]) -> Gpu:
    return Gpu(
        name=str(row["name"]),
        vendor="amd",
        arch=str(row["arch"]),
        aliases=_aliases(row),
        note=str(row["note"]) if row.get("note") else None,
        memory_gb=_memory(row),
        cc_capable=False,
        family=families.get(str(row["arch"])),
    )


def _intel(row: dict[str, object]) -> Gpu:
    return Gpu(
        name=str(row["name"]),
        vendor="intel",
        aliases=_aliases(row),
        note=str(row["note"]) if row.get("note") else None,
        memory_gb=_memory(row),
        cc_capable=False,
    )


def load_data(name: str) -> dict[str, Any]:
    """One YAML table of ``data/`` (kept in the cache by its digest): the catalogue, what names a GPU, whose images
    carry an engine version."""
    from relialint.base import cache

    source = Path(__file__).parent.parent / "data" / name
    key = cache.digest([source])
    data: Any = cache.read(name.split(".", 1)[0], key)
    if not isinstance(data, dict):
        from relialint.readers.yamlsafe import load_all, plain

        data = plain(load_all(source.read_text(encoding="utf-8"), name)[0])
        cache.write(name.split(".", 1)[0], key, data)
    return data  # type: ignore[no-any-return]


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    return load_data("hardware.yaml")


@lru_cache(maxsize=1)
def backend_vendors() -> dict[str, str]:
    """The vendor each compute backend needs (``cuda``: ``nvidia``), from ``backend_vendors`` of hardware.yaml; a
    backend without one (Vulkan, SYCL, OpenCL, the CPU) runs on any vendor's GPU."""
    return {str(row["backend"]): str(row["vendor"]) for row in _data().get("backend_vendors") or []}


class Named(Frozen):
    """The GPUs a label, resource or image names (one or several catalogue rows) and the source that says so."""

    gpus: tuple[Gpu, ...]
    source: str

    _fields = ("gpus", "source")

    def __init__(self, gpus: tuple[Gpu, ...], source: str) -> None:
        self.gpus = gpus
        self.source = source


@lru_cache(maxsize=1)
def _evidence() -> dict[str, Any]:
    return load_data("gpu_evidence.yaml")


@lru_cache(maxsize=1)
def product_labels() -> dict[str, str]:
    """Node labels whose value names the GPU product, each with its source (``gpu_evidence.yaml``)."""
    return {str(row["label"]): str(row["source"]) for row in _evidence().get("product_labels") or []}


def _named(rows: list[dict[str, Any]], field: str, value: str) -> Named | None:
    for row in rows:
        if value in {str(v).lower() for v in row.get(field) or []}:
            return Named(tuple(resolve(str(name)) for name in row["gpus"]), str(row["source"]))
    return None


@lru_cache(maxsize=64)
def mig_profile(profile: str) -> Named | None:
    """The GPUs that have MIG profile ``profile`` (``2g.12gb``: the A30), or ``None`` for a profile not listed."""
    return _named(_evidence().get("mig_profiles") or [], "profiles", profile.strip().lower())


@lru_cache(maxsize=1)
def instance_labels() -> dict[str, str]:
    """Node labels whose value is a cloud instance type or family, each with its source."""
    return {str(row["label"]): str(row["source"]) for row in _evidence().get("instance_labels") or []}


@lru_cache(maxsize=1)
def _instance_patterns() -> tuple[tuple[re.Pattern[str], tuple[str, ...], str], ...]:
    return tuple((re.compile(str(row["pattern"])), tuple(str(g) for g in row["gpus"]), str(row["source"]))
                 for row in _evidence().get("instance_types") or [])


@lru_cache(maxsize=128)
def instance_type(name: str) -> Named | None:
    """The GPU of a cloud instance type or AWS family (``g5.xlarge``, ``g5``: the A10G), or ``None`` for one the
    table does not list."""
    for pattern, gpus, source in _instance_patterns():
        if pattern.search(name.strip()):
            return Named(tuple(resolve(g) for g in gpus), source)
    return None


@lru_cache(maxsize=16)
def l4t_release(release: int) -> Named | None:
    """The Jetson modules an L4T major release (``36``: JetPack 6) runs on, or ``None`` for one not listed."""
    for row in _evidence().get("l4t_releases") or []:
        if int(row["release"]) == release:
            return Named(tuple(resolve(str(name)) for name in row["gpus"]), str(row["source"]))
    return None


@lru_cache(maxsize=1)
def catalogue() -> tuple[Gpu, ...]:
    """Every GPU of the catalogue, NVIDIA first, then AMD, then Intel."""
    data = _data()
    nvidia, amd = families()
    return tuple([_nvidia(r, nvidia) for r in data["nvidia"]] + [_amd(r, amd) for r in data["amd"]]
                 + [_intel(r) for r in data.get("intel") or []])


@lru_cache(maxsize=1)
def families() -> tuple[dict[str, str], dict[str, str]]:
    """The architecture family of each compute capability (``"9.0"``: Hopper) and of each AMD target (``gfx1100``:
    RDNA3), from the catalogue's ``families`` table."""
    table = _data().get("families") or {}
    return ({str(k): str(v) for k, v in (table.get("nvidia") or {}).items()},
            {str(k): str(v) for k, v in (table.get("amd") or {}).items()})


def rows() -> list[Gpu]:
    """Every catalogue row (a fresh list; the rows themselves are immutable), for the possible-worlds evaluator."""
    return list(catalogue())


@lru_cache(maxsize=1)
def _index() -> dict[str, Gpu]:
    index: dict[str, Gpu] = {}
    for gpu in catalogue():
        for name in (gpu.name, *gpu.aliases):
            index.setdefault(_norm(name), gpu)
    return index


_GFX = re.compile(r"^gfx[0-9a-f]{3,4}$", re.IGNORECASE)


def resolve(name: str) -> Gpu:
    """A product name, alias, compute capability (``sm_90``, ``9.0``) or AMD target (``gfx1151``)."""
    key = _norm(name)
    found = _index().get(key)
    if found is not None:
        return found
    # GKE / GFD labels often carry a memory suffix or vendor prefix that the alias list lacks; the AMD labeller adds
    # the form factor or "Graphics" (AMD_Instinct_MI300X_OAM, AMD_Radeon_8060S_Graphics).
    for stem in (key, *(key[: -len(s)] for s in ("graphics", "oam") if key.endswith(s))):
        if stem != key and _index().get(stem) is not None:
            return _index()[stem]
        for prefix in ("nvidia", "amd", "intel", "geforce", "radeon", "tesla"):
            if stem.startswith(prefix) and _index().get(stem[len(prefix) :]) is not None:
                return _index()[stem[len(prefix) :]]
            if _index().get(prefix + stem) is not None:  # GFD on older drivers: A100-SXM4-40GB, no NVIDIA prefix
                return _index()[prefix + stem]
    if _GFX.match(name.strip()):
        arch = name.strip().lower()
        named = [g for g in catalogue() if g.arch == arch]
        return named[0] if len(named) == 1 else Gpu(name=arch, vendor="amd", arch=arch, cc_capable=False)
    try:
        sm = parse_sm(name)
    except VersionError:
        pass
    else:
        return Gpu(name=f"sm_{str(sm).replace('.', '')}", vendor="nvidia", sm=sm,
                   native_fp8=sm >= FP8_FROM, native_fp4=sm >= FP4_FROM, cc_capable=cc_for_sm(sm))
    names = sorted({g.name for g in catalogue()} | {a for g in catalogue() for a in g.aliases})
    by_norm = {_norm(n): n for n in names}
    import difflib

    close = difflib.get_close_matches(key, list(by_norm), n=3, cutoff=0.5)
    raise UnknownGpu(name, [by_norm[c] for c in close])

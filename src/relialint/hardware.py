"""The GPU catalogue (``data/hardware.yaml``): names and aliases to vendor, compute capability or AMD target, and
native FP8/FP4 support. One table, used by ``--gpu``, by inference from manifests, and by the site."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from relialint.versions import Version, VersionError, parse_sm

FP8_FROM = parse_sm("8.9")
FP4_FROM = parse_sm("10.0")


@dataclass(frozen=True)
class Gpu:
    """One catalogue entry, or a bare compute capability / AMD target."""

    name: str
    vendor: str
    sm: Version | None = None
    arch: str | None = None
    native_fp8: bool | None = None
    native_fp4: bool | None = None
    aliases: tuple[str, ...] = field(default=())
    note: str | None = None

    def facts(self) -> dict[str, object]:
        """The ``gpu.*`` facts this entry sets. Unknown ones are left out; the other vendor's identifier is known
        to be unset (``None``): an NVIDIA GPU has no AMD target, an AMD GPU no compute capability."""
        out: dict[str, object] = {"gpu.vendor": self.vendor}
        if self.aliases or self.note is not None or not self.name.startswith(("sm_", "gfx")):
            out["gpu.model"] = self.name
        if self.sm is not None:
            out["gpu.sm"] = self.sm
        elif self.vendor == "amd":
            out["gpu.sm"] = None
        if self.arch is not None:
            out["gpu.arch"] = self.arch
        elif self.vendor == "nvidia":
            out["gpu.arch"] = None
        if self.native_fp8 is not None:
            out["gpu.native_fp8"] = self.native_fp8
        if self.native_fp4 is not None:
            out["gpu.native_fp4"] = self.native_fp4
        return out


class UnknownGpu(LookupError):
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


def _nvidia(row: dict[str, object]) -> Gpu:
    sm = parse_sm(str(row["sm"]))
    fp4 = row.get("fp4", sm >= FP4_FROM)
    return Gpu(
        name=str(row["name"]),
        vendor="nvidia",
        sm=sm,
        native_fp8=sm >= FP8_FROM,
        native_fp4=fp4 if isinstance(fp4, bool) else None,
        aliases=_aliases(row),
        note=str(row["note"]) if row.get("note") else None,
    )


def _amd(row: dict[str, object]) -> Gpu:
    return Gpu(
        name=str(row["name"]),
        vendor="amd",
        arch=str(row["arch"]),
        aliases=_aliases(row),
        note=str(row["note"]) if row.get("note") else None,
    )


@lru_cache(maxsize=1)
def catalogue() -> tuple[Gpu, ...]:
    """Every GPU of the catalogue, NVIDIA first."""
    from relialint import cache

    source = Path(__file__).parent / "data" / "hardware.yaml"
    key = cache.digest([source])
    data: Any = cache.read("hardware", key)
    if not isinstance(data, dict):
        from relialint.readers.yamlsafe import load_all, plain

        data = plain(load_all(source.read_text(encoding="utf-8"), "hardware.yaml")[0])
        cache.write("hardware", key, data)
    return tuple([_nvidia(r) for r in data["nvidia"]] + [_amd(r) for r in data["amd"]])


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
    # GKE / GFD labels often carry a memory suffix or vendor prefix that the alias list lacks.
    for prefix in ("nvidia", "amd", "geforce", "radeon", "tesla"):
        if key.startswith(prefix) and _index().get(key[len(prefix) :]) is not None:
            return _index()[key[len(prefix) :]]
    if _GFX.match(name.strip()):
        arch = name.strip().lower()
        named = [g for g in catalogue() if g.arch == arch]
        return named[0] if len(named) == 1 else Gpu(name=arch, vendor="amd", arch=arch)
    try:
        sm = parse_sm(name)
    except VersionError:
        pass
    else:
        return Gpu(name=f"sm_{str(sm).replace('.', '')}", vendor="nvidia", sm=sm,
                   native_fp8=sm >= FP8_FROM, native_fp4=sm >= FP4_FROM)
    names = sorted({g.name for g in catalogue()} | {a for g in catalogue() for a in g.aliases})
    by_norm = {_norm(n): n for n in names}
    import difflib

    close = difflib.get_close_matches(key, list(by_norm), n=3, cutoff=0.5)
    raise UnknownGpu(name, [by_norm[c] for c in close])

"""Engine versions and GPU compute capabilities as comparable values.

vLLM versions are PEP 440 (``0.23.1rc1`` sorts before ``0.23.1``); llama.cpp versions are build numbers
(``b6327``) or, from August 2026, releases (``v0.3.0``). Schemes never compare with each other: such a comparison is
*unknown*.
"""

from __future__ import annotations

import re
from functools import lru_cache, total_ordering
from typing import Literal

from packaging.version import InvalidVersion
from packaging.version import Version as Pep440

from relialint.base.errors import RelialintError

Scheme = Literal["pep440", "build", "release"]


class VersionError(RelialintError, ValueError):
    """A version string that parses in no scheme."""


_BUILD = re.compile(r"^b(\d+)$")
_RELEASE = re.compile(r"^[vV]?(\d+)\.(\d+)\.(\d+)$")


@total_ordering
class Version:
    """An engine version in one scheme."""

    scheme: Scheme
    text: str
    key: tuple[object, ...]

    def __init__(self, scheme: Scheme, text: str, key: tuple[object, ...]) -> None:
        self.scheme = scheme
        self.text = text
        self.key = key

    def comparable(self, other: Version) -> bool:
        return self.scheme == other.scheme

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Version) or not self.comparable(other):
            return NotImplemented
        if self.scheme == "build":
            return self.key < other.key
        return _pep440(self.text) < _pep440(other.text)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return self.scheme == other.scheme and self.key == other.key

    def __hash__(self) -> int:
        return hash((self.scheme, self.key))

    def __str__(self) -> str:
        return self.text


@lru_cache(maxsize=4096)
def _pep440(text: str) -> Pep440:
    return Pep440(text)


def parse_version(text: str) -> Version:
    """Parse ``b6327`` as a llama.cpp build, anything else as PEP 440 (a leading ``v`` is allowed)."""
    raw = text.strip()
    build = _BUILD.match(raw)
    if build:
        return Version("build", raw, (int(build.group(1)),))
    candidate = raw[1:] if raw[:1] in ("v", "V") else raw
    try:
        parsed = Pep440(candidate)
    except InvalidVersion as exc:
        raise VersionError(f"not a vLLM (PEP 440) version, llama.cpp build (bNNNN) or llama.cpp release (vX.Y.Z): "
                           f"{text!r}") from exc
    return Version("pep440", str(parsed), (parsed.release, parsed.pre, parsed.post, parsed.dev))


def llamacpp_release(text: str) -> Version | None:
    """A llama.cpp release of the semantic-version scheme (tags ``v0.2.0``, ``v0.3.0``, from August 2026), or
    ``None``. Releases order among themselves; against build numbers (``b6327``) the order is unknown."""
    match = _RELEASE.match(text.strip())
    if not match:
        return None
    key = tuple(int(n) for n in match.groups())
    return Version("release", "v{}.{}.{}".format(*key), key)


BUILD_FAMILY = frozenset({"build", "release"})
"""Schemes of one engine's versions (builds ``b6327`` and releases ``v0.3.0``): a bound of one is read in both."""


def parse_in_family(builds: bool, text: str) -> Version:
    """``text`` as a build or release (``builds``: the scheme of a deployment's version is one of
    :data:`BUILD_FAMILY`) or as PEP 440, ``VersionError`` when it is written in the other: a record's bound read
    for a deployment's version."""
    if builds:
        release = llamacpp_release(text)
        if release is not None:
            return release
    parsed = parse_version(text)
    if (parsed.scheme in BUILD_FAMILY) != builds:
        raise VersionError(f"{text!r} is not a {'build or release' if builds else 'PEP 440 version'}")
    return parsed


_SM = re.compile(r"^(?:sm_?)?(\d+)(?:\.(\d+))?a?$", re.IGNORECASE)


def parse_sm(text: str) -> Version:
    """Parse a compute capability: ``9.0``, ``sm_90``, ``sm90``, ``sm_121a``, ``12.1``."""
    raw = text.strip()
    match = _SM.match(raw)
    if not match:
        raise VersionError(f"not a compute capability (9.0, sm_90): {text!r}")
    major, minor = match.group(1), match.group(2)
    if minor is None:
        if raw[:2].lower() != "sm" or len(major) < 2:
            raise VersionError(f"not a compute capability (9.0, sm_90): {text!r}")
        major, minor = major[:-1], major[-1]
    return parse_version(f"{int(major)}.{int(minor)}")


class VersionBound:
    """A version known only to lie beyond the versions relialint tables: newer than ``edge`` (``above``) or older
    than it. It compares definitely with any version on the near side of ``edge`` and is unknown otherwise. (A plain
    class: a dataclass costs start-up time.)"""

    __slots__ = ("above", "edge")

    def __init__(self, edge: Version, above: bool) -> None:
        self.edge = edge
        self.above = above

    def __eq__(self, other: object) -> bool:
        return isinstance(other, VersionBound) and (self.edge, self.above) == (other.edge, other.above)

    def __hash__(self) -> int:
        return hash((self.edge, self.above))

    def order(self, other: Version) -> int | None:
        """-1 or 1 when this bound is definitely below or above ``other``; ``None`` when it cannot tell."""
        if not self.edge.comparable(other):
            return None
        if self.above:
            return 1 if not self.edge < other else None
        return -1 if not other < self.edge else None

    def __str__(self) -> str:
        return f"{'newer' if self.above else 'older'} than {self.edge}"

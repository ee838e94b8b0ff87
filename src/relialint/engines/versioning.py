"""An engine's versions by the engine's name: each engine's scheme (``Engine.parse_version``,
``Engine.own_version``), looked up in the engines relialint ships. The core's ``versions`` knows the schemes only,
never which engine writes which."""

from __future__ import annotations

from relialint.core.versions import Version, parse_version


def parse_engine_version(engine: str, text: str) -> Version:
    """``text`` as a version of ``engine``, in its scheme (``VersionError`` for anything else); an engine relialint
    does not ship takes any version."""
    from relialint.engines.registry import default_registry

    model = default_registry().get(engine)
    return model.parse_version(text) if model is not None else parse_version(text)


def for_engine(engine: str, version: Version) -> Version | None:
    """``version`` read in ``engine``'s scheme (a ``v0.3.0`` given without an engine is PEP 440 until a llama.cpp
    deployment takes it), or ``None`` when it is not one of that engine's versions."""
    from relialint.engines.registry import default_registry

    model = default_registry().get(engine)
    return model.own_version(version) if model is not None else version

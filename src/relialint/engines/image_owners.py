"""Whose version an image tag is: the images besides an engine's own whose tags carry the engine's version, from
``data/engine_images.yaml`` (one source per row). Every other image's tag is its owner's version."""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=4)
def version_tagged(engine: str) -> frozenset[str]:
    """The repositories (``intel/vllm``) whose tags are ``engine``'s version."""
    from relialint.core.hardware import load_data

    return frozenset(str(row["repo"]).lower() for row in load_data("engine_images.yaml").get(engine) or [])


@lru_cache(maxsize=4)
def own_tags(engine: str) -> frozenset[str]:
    """The repositories named like ``engine``'s image (``lmcache/vllm-openai``) that are another project's build of
    it: their tags are that project's releases, not the engine's."""
    from relialint.core.hardware import load_data

    rows = load_data("engine_images.yaml").get(f"{engine}_own_tags") or []
    return frozenset(str(row["repo"]).lower() for row in rows)

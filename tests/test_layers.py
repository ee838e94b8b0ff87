"""The package layers of docs/architecture.md hold: import-linter's contracts in pyproject.toml are kept, and none of
them ignores an import (an ignored import would be a layer violation written down instead of fixed)."""

from __future__ import annotations

from pathlib import Path

import pytest
import tomllib
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[1]


def _contracts() -> list[dict[str, object]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return list(config["tool"]["importlinter"]["contracts"])


def test_the_contracts_cover_every_package_and_ignore_nothing() -> None:
    contracts = _contracts()
    assert [c["type"] for c in contracts] == ["layers", "acyclic_siblings"]
    assert all("ignore_imports" not in c for c in contracts)
    layers = contracts[0]["layers"]
    assert isinstance(layers, list)
    named = {name.strip() for layer in layers for name in str(layer).split("|")}
    packages = {f"relialint.{p.stem}" for p in (ROOT / "src" / "relialint").iterdir()
                if (p / "__init__.py").exists() or (p.suffix == ".py" and p.stem not in ("__init__", "__main__"))}
    assert packages == named


def test_the_layers_and_the_no_cycles_rule_hold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    assert lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True) == 0

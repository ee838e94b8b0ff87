"""The scripts under ``tools/`` as modules, for the tests that check them (they are not part of the package)."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from tests.conftest import ROOT


def load_tool(name: str) -> ModuleType:
    """``tools/NAME.py`` imported once as the module ``NAME`` (a dataclass in it needs its module registered)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module

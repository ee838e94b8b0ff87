from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import settings

# Hypothesis fails an example that takes more than 200 ms on the clock by default: a wall-clock assertion, which a
# loaded machine breaks. No test here measures speed that way (tests/work.py counts work instead).
settings.register_profile("relialint", deadline=None)
settings.load_profile("relialint")

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
"""What the tests read besides the repository's own files: copies of captures and excerpts, each folder naming its
source. Nothing here reads a folder outside the repository (a clone of the project alone runs every test)."""
H200 = FIXTURES / "gpu-telemetry" / "h200"
"""The real H200 captures (``tests/fixtures/gpu-telemetry/README.md``)."""


@pytest.fixture
def root() -> Path:
    return ROOT

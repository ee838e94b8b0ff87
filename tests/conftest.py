from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import settings

# Hypothesis fails an example that takes more than 200 ms on the clock by default: a wall-clock assertion, which a
# loaded machine breaks. No test here measures speed that way (tests/work.py counts work instead).
settings.register_profile("relialint", deadline=None)
settings.load_profile("relialint")

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


@pytest.fixture
def root() -> Path:
    return ROOT

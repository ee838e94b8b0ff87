"""Every number a record quotes in its evidence appears in the seed chapter it is written from."""

from __future__ import annotations

import re

import pytest

from relialint.kb.loader import load_dir, shipped_dir
from tests.conftest import SHARED

SEED = SHARED / "seed" / "000_92ee87cbb4f51a37.txt"
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def _normalise(text: str) -> str:
    return text.replace("\u2009", " ").replace("\u00a0", " ")


@pytest.mark.skipif(not SEED.exists(), reason="the seed chapter is not present beside this checkout")
def test_every_evidence_number_is_in_the_seed() -> None:
    seed = _normalise(SEED.read_text(encoding="utf-8"))
    seed_numbers = set(NUMBER.findall(seed)) | {n.replace(",", "") for n in NUMBER.findall(seed)}
    problems = []
    for loaded in load_dir(shipped_dir()).records:
        record = loaded.record
        if record.id[2] not in "1234":
            continue
        source_only = [ref for ref in record.references if ref.kind == "source"]
        from_tracker = any(ref.kind in ("report", "fix") and ref.url for ref in record.references)
        if not source_only and from_tracker:
            continue  # drawn from an upstream tracker (issue 15): its figures come from its linked threads
        assert source_only, record.id
        for index, item in enumerate(record.evidence):
            if "fixture" in item.setup.lower():
                continue  # relialint's own capture, cited separately from the seed
            for number in NUMBER.findall(_normalise(item.measured + " " + item.setup)):
                if number not in seed_numbers and number.replace(",", "") not in seed_numbers:
                    problems.append(f"{record.id} evidence[{index}]: {number!r} not in the seed")
    assert not problems, "\n".join(problems)

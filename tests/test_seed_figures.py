"""Every number a record written from the seed chapter quotes in its evidence appears in that chapter (in the
excerpts of it kept in ``tests/fixtures/seed``, copied from the chapter with their line numbers)."""

from __future__ import annotations

import re

from relialint.kb import upstream
from relialint.kb.gates import before_reach
from relialint.kb.loader import load_dir, shipped_dir
from tests.seed_excerpts import excerpts

SEED = "000_92ee87cbb4f51a37"
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
THREAD = re.compile(r"\b(?:issue|PR|pull request) #\d+|released vLLM wheels")
"""An evidence item whose setup names an upstream thread quotes that thread, and one that names the released wheels
quotes what a witness read there (the witnesses of issue 23 added both to seed records): its figures are checked
against the thread or the code by review, not against the chapter."""
SEPARATE = "separate evidence, not from the source chapter"
"""How an evidence item that checks or adds to the seed from another source (vendor documentation, released
code, arithmetic on the seed's figures) begins its setup; its numbers are not the seed's."""


def _normalise(text: str) -> str:
    return text.replace("\u2009", " ").replace("\u00a0", " ")


def test_every_evidence_number_is_in_the_seed() -> None:
    seed = _normalise("\n".join(e.text for e in excerpts(SEED)))
    seed_numbers = set(NUMBER.findall(seed)) | {n.replace(",", "") for n in NUMBER.findall(seed)}
    problems = []
    for loaded in load_dir(shipped_dir()).records:
        record = loaded.record
        if record.id[2] not in "1234":
            continue
        # RL1xx-RL4xx come from the seed chapter, from an engine's tracker (issue 15) or from the engine's released
        # code read in its wheel (issue 26, witnessed); the figures of the tracker and code records are checked
        # against their threads and the wheels by review and by tools/witness.py, not against the seed
        from_seed = any(s.kind == "seed" for s in upstream.sources(loaded.data))
        from_code = any(ref.get("kind") == "upstream" and "wheel" in str(ref.get("locator") or "")
                        for ref in loaded.data.get("references") or [])
        # issue 27: a record of the catalogue-growth rule links its upstream source (an engine's code at a release
        # tag, its documentation, a tracker thread, a vendor's documentation) by url (gate KB021)
        linked = not before_reach(record.id) and any(
            ref.get("url") for ref in loaded.data.get("references") or [] if ref.get("kind") != "source")
        assert from_seed or upstream.drawn_from_tracker(loaded.data) or from_code or linked, record.id
        if not from_seed:
            continue
        for index, item in enumerate(record.evidence):
            if "fixture" in item.setup.lower() or item.setup.startswith(SEPARATE):
                continue  # relialint's own capture, or a figure from another source, cited apart from the seed
            if THREAD.search(item.setup):
                continue  # an upstream thread's figures or the released code's (witnessed), not the chapter's
            for number in NUMBER.findall(_normalise(item.measured + " " + item.setup)):
                if number not in seed_numbers and number.replace(",", "") not in seed_numbers:
                    problems.append(f"{record.id} evidence[{index}]: {number!r} not in the seed (tests/fixtures/seed)")
    assert not problems, "\n".join(problems)

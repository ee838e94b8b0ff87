"""Every example of every shipped record runs as a test: it must fire, pass or stay possible as it says."""

from __future__ import annotations

from typing import Any

import pytest

from relialint.kb.loader import compile_record, load_dir, shipped_dir
from relialint.run.examples import run_example


def _examples() -> list[tuple[str, int, dict[str, Any]]]:
    result = load_dir(shipped_dir())
    assert not result.problems, result.problems
    cases = []
    for loaded in result.records:
        record = compile_record(loaded)
        for index, _ in enumerate(record.get("examples") or []):
            cases.append((record["id"], index, record))
    return cases


CASES = _examples()


@pytest.mark.parametrize(("record_id", "index", "record"), CASES,
                         ids=[f"{c[0]}-{c[1]}-{c[2]['examples'][c[1]]['outcome']}" for c in CASES])
def test_example(record_id: str, index: int, record: dict[str, Any]) -> None:
    outcome = run_example(record, record["examples"][index], index)
    assert outcome.ok, f"{record_id} example {index} {outcome.name!r}: expected {outcome.expected}, {outcome.detail}"


def test_every_trigger_record_has_examples_that_fire_and_pass() -> None:
    for loaded in load_dir(shipped_dir()).records:
        record = loaded.record
        if record.trigger is None:
            continue
        outcomes = {e.outcome for e in record.examples}
        assert {"fires", "passes"} <= outcomes, record.id

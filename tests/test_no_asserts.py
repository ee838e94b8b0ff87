"""No bare ``assert`` for invariants in src/ (issue 24): ``python -O`` drops them, and a broken invariant is an
``InternalError`` the command line reports as one, or code that cannot fail (typing narrowing by construction)."""

from __future__ import annotations

import ast
from collections import Counter

from tests.conftest import ROOT

SRC = ROOT / "src" / "relialint"

PENDING: dict[str, int] = {}
"""Files allowed to hold asserts, with how many at most: none (an invariant is checked explicitly, or holds by
construction). A file that drops its asserts must leave the list (the test says so)."""


def _asserts() -> Counter[str]:
    found: Counter[str] = Counter()
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found[path.relative_to(SRC).as_posix()] += sum(isinstance(node, ast.Assert) for node in ast.walk(tree))
    return +found


def test_no_assert_in_src_outside_the_pending_files() -> None:
    found = _asserts()
    assert {name: count for name, count in found.items() if count > PENDING.get(name, 0)} == {}


def test_the_pending_list_names_only_files_that_still_assert() -> None:
    found = _asserts()
    assert [name for name in PENDING if name not in found] == [], "remove these from PENDING"


def test_the_scan_sees_an_assert() -> None:
    tree = ast.parse("def f(x):\n    if x:\n        assert x, 'never'\n")
    assert sum(isinstance(node, ast.Assert) for node in ast.walk(tree)) == 1

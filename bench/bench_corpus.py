"""Precision at every change: relialint's default output over the corpus of real shapes (tests/corpus).

Prints the totals that issue 12 asks to watch - definite findings, possible findings shown by default, possible
findings only counted - beside the same totals of the reviewed expectations (what a correct linter prints), the
launch recognition rates, and the time the run took.

    python bench/bench_corpus.py
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    sys.path.insert(0, str(ROOT / "src"))
    spec = importlib.util.spec_from_file_location("corpus_report", ROOT / "tools" / "corpus_report.py")
    assert spec is not None and spec.loader is not None
    corpus = importlib.util.module_from_spec(spec)
    sys.modules["corpus_report"] = corpus
    spec.loader.exec_module(corpus)
    found = corpus.entries()
    start = time.perf_counter()
    totals, differences = corpus.evaluate(found)
    elapsed = time.perf_counter() - start
    print(f"relialint on {len(found)} corpus files ({elapsed:.2f} s, check + facts per file, in process):")
    print("\n".join(f"  {line}" for line in totals.lines()))
    print("reviewed expectations:")
    print("\n".join(f"  {line}" for line in corpus.expected_totals(found).lines()))
    unreviewed = sum(1 for d in differences if d.kind == corpus.UNREVIEWED)
    print(f"differences from the expectations: {len(differences) - unreviewed}; {corpus.REVIEW_NOTE}: {unreviewed} "
          "(python tools/corpus_report.py lists them)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

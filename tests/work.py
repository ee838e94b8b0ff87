"""Counting work in tests, never the time on the clock (issue 22).

A test that asserts wall-clock time fails on a loaded machine (the README's test command beside other work). What
a bound protects is the work: CPU seconds of this process, with a margin of ten times or more over what the work
takes, counted by the kernel (``ITIMER_PROF`` here, ``RLIMIT_CPU`` for a subprocess). Time spent waiting for a
busy machine does not count. A budget that runs out fails the test at once, where the unprotected work would run
for minutes or never end.

``HANG_S`` is the one wall-clock figure left: a guard against a test that waits forever (a subprocess that blocks,
a message that never comes), far above anything a loaded machine makes of a run. It measures no speed.
"""

from __future__ import annotations

import resource
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TypeVar

import pytest

T = TypeVar("T")

HANG_S = 900
"""Seconds after which a test waiting on a subprocess or a message gives up: a hang, not slowness."""


class Budget:
    """CPU seconds spent inside a ``cpu_budget`` block (known when the block ends)."""

    seconds = 0.0


@contextmanager
def cpu_budget(seconds: float) -> Iterator[Budget]:
    """Fail the test as soon as the code inside spends more than ``seconds`` of this process's CPU time.

    The failure (``pytest.fail``'s exception, a ``BaseException``) passes through the ``except Exception`` of
    relialint's last-resort handlers; the regular-expression engine and Python code alike are interrupted."""

    def over(_signum: int, _frame: FrameType | None) -> None:
        pytest.fail(f"more than {seconds} CPU seconds: the work is not bounded", pytrace=False)

    budget = Budget()
    previous = signal.signal(signal.SIGPROF, over)
    start = time.process_time()
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield budget
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
        budget.seconds = time.process_time() - start


def cpu(seconds: float, work: Callable[[], T]) -> T:
    """``work()`` within a budget of ``seconds`` CPU seconds (see ``cpu_budget``)."""
    with cpu_budget(seconds):
        return work()


def limit_cpu(seconds: int) -> Callable[[], None]:
    """A ``preexec_fn`` that gives a subprocess ``seconds`` of CPU time: past them the kernel ends it (SIGXCPU,
    then SIGKILL), so its exit status says the work was not bounded."""

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 5))

    return apply

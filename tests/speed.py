"""How much slower this machine runs Python than the one the suite's CPU-time bounds were set on.

A test that bounds CPU time (a hostile input must be stopped in seconds, not hours) multiplies its bound by
:func:`slowness`, measured in the same process: a fixed pure-Python loop timed in CPU time (``thread_time``, so
other processes on a busy machine, and other threads of this one, do not count). The factor is never below 1,
so a faster machine keeps the bounds as written. A child process gets the same functions from
:data:`SLOWNESS_SOURCE`.
"""

from __future__ import annotations

import inspect
import time

REFERENCE_CPU_S = 0.05
"""CPU seconds :func:`reference_loop` takes on the machine the bounds were set on (0.045-0.050 s measured on a
2-core machine, quiet and with a load average of 9 alike)."""


def reference_loop() -> dict[str, int]:
    """300,000 dictionary updates keyed by short strings: the kind of work the engine's Python loops do."""
    counts: dict[str, int] = {}
    for i in range(300_000):
        word = "w" + str(i % 997)
        counts[word] = counts.get(word, 0) + len(word)
    return counts


def slowness(repeats: int = 3) -> float:
    """This machine's CPU time for :func:`reference_loop` (the best of ``repeats``) over :data:`REFERENCE_CPU_S`;
    at least 1."""
    best = float("inf")
    for _ in range(repeats):
        start = time.thread_time()
        reference_loop()
        best = min(best, time.thread_time() - start)
    return max(1.0, best / REFERENCE_CPU_S)


SLOWNESS_SOURCE = (
    f"import time\nREFERENCE_CPU_S = {REFERENCE_CPU_S!r}\n"
    + inspect.getsource(reference_loop)
    + inspect.getsource(slowness)
)
"""Source of :func:`reference_loop` and :func:`slowness` (with what they need), for a child process's prelude."""

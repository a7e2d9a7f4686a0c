"""A memory budget for long work: how much the process has grown since the work began.

Training a large merge table on a large corpus can need gigabytes; a server that
trains for many users at once must stop one run cleanly before it takes the
machine down. :class:`MemoryWatch` reads the process's resident set size (RSS)
from ``/proc/self/statm`` (Linux), or its peak RSS from ``resource.getrusage``
elsewhere, and says when the growth since it was made passes a budget.

The measure is the whole process's growth, so work running at the same time in
other threads counts too: the budget is an upper bound on this run's share, which
errs on the side of stopping early.
"""

from __future__ import annotations

import os

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_STATM = "/proc/self/statm"


def resident_bytes() -> int:
    """The process's resident set size in bytes (its peak, where ``/proc`` is absent)."""
    try:
        with open(_STATM, "rb") as fh:
            return int(fh.read().split()[1]) * _PAGE
    except OSError:
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


class MemoryWatch:
    """Compares the process's memory with what it was when the watch was made.

    Args:
        budget: how many bytes the process may grow by.
    """

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.start = resident_bytes()

    def growth(self) -> int:
        """Bytes gained since the watch was made (negative when memory was returned)."""
        return resident_bytes() - self.start

    def exceeded(self) -> str | None:
        """Why the budget is passed (for a stop reason), or ``None`` while within it."""
        grown = self.growth()
        if grown <= self.budget:
            return None
        return f"memory budget of {self.budget / 2**20:,.0f} MB reached (the run grew by {grown / 2**20:,.0f} MB)"

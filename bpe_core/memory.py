"""A memory budget for long work: estimates checked before allocating, and the process's growth.

Training a large merge table on a large corpus can need gigabytes; a server that
trains for many users at once must stop one run cleanly before it takes the
machine down. Two measures work together:

* :class:`MemoryBudget` adds up what a run's structures will hold, from
  per-item sizes (the ``*_BYTES`` constants below), and checks each phase's
  figure *before* the phase allocates: the run refuses with
  :class:`MemoryBudgetError`, naming what it would need, instead of finding out
  after the memory is spent.
* :class:`MemoryWatch` reads the process's resident set size (RSS) from
  ``/proc/self/statm`` (Linux), or its peak RSS from ``resource.getrusage``
  elsewhere, and says when the growth since it was made passes the budget: a
  safety net for what the estimates leave out. The measure is the whole
  process's growth, so work running at the same time in other threads counts
  too, which errs on the side of stopping early.

The per-item sizes are CPython 3.11 on a 64-bit build, measured with
``tracemalloc`` (``python3 -m bench.memory_sizes`` measures them again and
checks the estimates against real runs): each structure is built for a corpus
of ``n`` and of ``4n`` items and the size is the difference of the two peaks
divided by ``3n``, so fixed costs drop out; each constant is that, rounded up
by about a tenth. They include the allocator's rounding (small objects come in
16-byte steps) and list over-allocation; RSS adds the arenas' slack on top,
which :data:`SLACK` covers.
"""

from __future__ import annotations

import os

from .errors import BudgetError

MB = 2**20
"""Bytes in a megabyte, as every message counts them."""

SLACK = 1.15
"""What the process's RSS takes beyond the bytes of its live objects (partly used arenas and pools). The
estimates times this stayed 1.1-1.3x above the RSS growth of real runs (``bench.memory_sizes``)."""

COUNTED_WORD_BYTES = 90
"""One distinct pre-token in the word-count dict, besides its string (``sys.getsizeof``, counted apart): the
dict's slot and hash index, its count, and the copy ``word_counts`` returns. Measured 77 (100,000 vs 400,000
distinct 8-letter words counted from text)."""

POSITION_BYTES = 90
"""One symbol of the training layout at the trainer's peak: ``sym``, ``nxt``, ``prv``, ``word_of``, the
position's int object, its pair-index slot, the count weights and the trace's packed layout. Measured 83
(``train`` on one word of 800,000 vs 3,200,000 letters)."""

WORD_BYTES = 80
"""One distinct word in the layout and the result, besides its symbols and its count entry: its start, end,
length, frequency and spelled list, the trace's start offset and the result's ``(word, count)`` tuple.
Measured 53 (100,000 vs 400,000 distinct 8-letter words, net of the above)."""

PAIR_BYTES = 260
"""One distinct pair at the start of training: its pair-index list and dict entry, its key's int object, its
count, its heap entry and the trace's packed initial count. Measured 249 (100,000 vs 400,000 distinct
two-character words over 3,000 CJK characters, net of the above)."""

SITE_BYTES = 48
"""What a merge keeps per index entry it visits (an occurrence, or a stale entry): the new pairs' index
slots, the count changes and word ids the trace packs, the heap entries of the pairs it forms. Measured 40 on
average over 5,000 merges of Tiny Shakespeare (the growth of the whole merge loop over the entries visited)."""

SYMBOL_BYTES = 400
"""One learned symbol besides its text: its entries in the symbol table's columns, the merge table and the
tie keys, and the result's vocabulary entry."""

SYMBOL_CHAR_BYTES = 12
"""Each character of a learned symbol's text: its display string (up to 4 bytes a character) and its bytes
(up to 4 a character, UTF-8), with room for the vocabulary's copy."""


class MemoryBudgetError(BudgetError):
    """Training would need more memory than ``max_memory`` allows; the message gives the figures."""


def megabytes(nbytes: float) -> str:
    """``nbytes`` as a whole number of megabytes for a message, rounded up (``"1,024"``)."""
    return f"{-(-int(nbytes) // MB):,}"


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
        return f"memory budget of {self.budget / MB:,.0f} MB reached (the run grew by {grown / MB:,.0f} MB)"


class MemoryBudget:
    """What one run may hold, estimated phase by phase before each allocates, plus a :class:`MemoryWatch`.

    Args:
        budget: bytes the run may hold at its peak (``train(max_memory=...)``).
        name: how messages name the budget (``max_memory``, the CLI's ``--max-memory``).

    Attributes:
        held: the bytes the phases so far said they keep (see :meth:`hold`).
        watch: the RSS watch started with the budget.
    """

    def __init__(self, budget: int, name: str = "max_memory") -> None:
        self.budget = budget
        self.name = name
        self.held = 0
        self.watch = MemoryWatch(budget)

    def need(self, nbytes: float, what: str) -> None:
        """Check that ``nbytes`` more (with :data:`SLACK`) fit beside what is held.

        Args:
            nbytes: the bytes the next step will allocate.
            what: what they are for, the subject of "... needs about X MB", e.g.
                ``"the training layout of 25,000,001 symbols in 1 distinct words"``.

        Raises:
            MemoryBudgetError: they do not fit; the message states the total, what
                it is for, and the budget.
        """
        total = (self.held + nbytes) * SLACK
        if total > self.budget:
            raise MemoryBudgetError(
                f"{what} needs about {megabytes(total)} MB; the memory budget ({self.name}) is "
                f"{megabytes(self.budget)} MB"
            )

    def fits(self, nbytes: float) -> bool:
        """Whether ``nbytes`` more (with :data:`SLACK`) fit beside what is held."""
        return (self.held + nbytes) * SLACK <= self.budget

    def hold(self, nbytes: float) -> None:
        """Count ``nbytes`` as held from now on (after :meth:`need` allowed them)."""
        self.held += nbytes

    def release(self, nbytes: float) -> None:
        """Stop counting ``nbytes`` (their structure was freed)."""
        self.held = max(0, self.held - nbytes)

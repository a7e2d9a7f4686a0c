"""One pre-token's merge run, recorded: the loop behind encoding traces and BPE-dropout.

:meth:`bpe_core.encoding.merging.RuleApplier.run` merges one pre-token's symbols with a
doubly linked list over positions and a heap of ``(rank, position)`` keys, as
tiktoken does for long pieces (``_byte_pair_merge`` in ``src/lib.rs``) and
Hugging Face's ``Word::merge_all`` does always: O(n log n) time and O(n)
memory for n symbols, whatever the word. It applies the same rules in the same
order as the list loops of :mod:`bpe_core.encoding.merging` (the ids are identical, the
tests compare them) and records, instead of a copy of the word per step:

* per rule application (a *step*): its rank, its sites (indices into the word
  as it stood before the step), the two symbols it joined and how many symbols
  each site joins (:class:`Step`); a word's state after any step is rebuilt
  from these on demand (:meth:`bpe_core.trace.PieceTrace.state`);
* per rule whose two symbols stood side by side: the first state where they
  did, and the first step that merged one of them into something else (what
  :func:`bpe_core.encoding.explain.encode_trace` reports as blocked rules);
* with dropout: the candidate merges skipped at each step.

Positions in the trace are kept in the word's own coordinates with a Fenwick
tree over the live positions (O(log n) per site).
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..errors import OptionError

INF = 1 << 62
"""The rank of a pair no rule merges."""

Candidate = tuple[int, int, int, int]
"""A merge dropout skipped: ``(rank, index in the word before the step, left id, right id)``."""


@dataclass
class Step:
    """One rule application inside a pre-token.

    Attributes:
        rank: the rule's rank.
        sites: indices into the word before the step of each left symbol joined (ascending).
        left, right: the two ids joined at the first site (for tiktoken's
            whole-piece lookup of more than two symbols: the rule's own pair).
        width: how many symbols each site joins: 2, or for the whole-piece lookup all of them.
        dropped: the candidate merges dropout skipped at this step (rank order), as :data:`Candidate`.
    """

    rank: int
    sites: tuple[int, ...]
    left: int
    right: int
    width: int = 2
    dropped: tuple[Candidate, ...] = ()


@dataclass
class MergeRun:
    """What :meth:`bpe_core.encoding.merging.RuleApplier.run` recorded for one pre-token.

    Attributes:
        final: the merged symbol ids.
        steps: every rule application, in order.
        end_dropped: with dropout, the candidates skipped at the last attempt,
            which ended the run (every merge that could fire was dropped).
        met: rank -> ``(state, left id, right id)``: the first state (0 = the
            spelling, k = after step k) where two symbols this rule merges stood
            side by side. Empty unless traced.
        taken: rank -> ``(step, taker rank, left id, right id, lost id)``: the
            first step (1-based) that merged one of two side-by-side symbols of
            this rule into something else (``lost id``: that symbol). Empty unless traced.
    """

    final: list[int]
    steps: list[Step] = field(default_factory=list)
    end_dropped: tuple[Candidate, ...] = ()
    met: dict[int, tuple[int, int, int]] = field(default_factory=dict)
    taken: dict[int, tuple[int, int, int, int, int]] = field(default_factory=dict)

    def fired(self) -> set[int]:
        """The ranks of the rules that fired at least once."""
        return {s.rank for s in self.steps}


class Walk:
    """A word as a linked list of positions with a heap of pair ranks (one pre-token, one run).

    ``rk[i]`` is the rank of the pair that starts at live position ``i`` (INF
    when no rule merges it); a heap key ``rank << shift | i`` is current when
    ``rk[i] == rank`` (a pair's bytes only grow at a position, so a position
    never holds the same rank twice). With ``traced``, a Fenwick tree counts
    the live positions and the first meeting and loss of each rule are recorded.

    Args:
        syms: the spelled symbol ids (not changed).
        rank_of: ``rank_of(left, right)``: the rank merging two adjacent ids, or ``None``.
        traced: record positions in the word's coordinates, and met/taken pairs.
    """

    __slots__ = ("sym", "nxt", "prv", "rk", "heap", "shift", "mask", "rank_of", "bit", "run")

    def __init__(self, syms: Sequence[int], rank_of: Callable[[int, int], int | None], traced: bool) -> None:
        n = len(syms)
        self.sym = list(syms)
        self.nxt = list(range(1, n)) + [-1] if n else []
        self.prv = list(range(-1, n - 1))
        self.shift = max(n, 1).bit_length()
        self.mask = (1 << self.shift) - 1
        self.rank_of = rank_of
        self.rk = [INF] * n
        self.heap: list[int] = []
        self.run = MergeRun(final=[])
        met = self.run.met if traced else None
        for i in range(n - 1):
            r = rank_of(self.sym[i], self.sym[i + 1])
            if r is not None:
                self.rk[i] = r
                self.heap.append(r << self.shift | i)
                if met is not None and r not in met:
                    met[r] = (0, self.sym[i], self.sym[i + 1])
        heapq.heapify(self.heap)
        # a Fenwick tree over n ones: node k holds the count of (k - lowbit(k), k]
        self.bit = [k & -k for k in range(n + 1)] if traced else None

    # ------------------------------------------------------------------ positions

    def index(self, i: int) -> int:
        """How many live positions come before position ``i`` (its index in the word now)."""
        bit, k, total = self.bit, i, 0
        while k > 0:
            total += bit[k]  # type: ignore[index]
            k -= k & -k
        return total

    def _remove(self, i: int) -> None:
        bit, k, n = self.bit, i + 1, len(self.sym)
        while k <= n:
            bit[k] -= 1  # type: ignore[index]
            k += k & -k

    # ------------------------------------------------------------------ the heap

    def lowest(self) -> int | None:
        """The lowest rank in the heap (possibly a stale entry), or ``None`` when it is empty."""
        return self.heap[0] >> self.shift if self.heap else None

    def pop_one(self) -> int | None:
        """Pop the lowest current ``(rank, position)``; its position, or ``None`` when none is left."""
        heap, rk, shift, mask = self.heap, self.rk, self.shift, self.mask
        while heap:
            key = heapq.heappop(heap)
            i = key & mask
            if rk[i] == key >> shift:
                return i
        return None

    def pop_rank(self, rank: int) -> list[int]:
        """Pop every entry of ``rank``; the positions where it is current, left to right (overlaps included)."""
        heap, rk, shift, mask = self.heap, self.rk, self.shift, self.mask
        out = []
        while heap and heap[0] >> shift == rank:
            i = heapq.heappop(heap) & mask
            if rk[i] == rank:
                out.append(i)
        return out

    def push_back(self, positions: Sequence[int]) -> None:
        """Put popped positions back in the heap (dropout: skipped now, candidates again at the next step)."""
        rk, shift, heap = self.rk, self.shift, self.heap
        for i in positions:
            if rk[i] != INF:
                heapq.heappush(heap, rk[i] << shift | i)

    def candidates(self, positions: Sequence[int]) -> tuple[Candidate, ...]:
        """``positions`` (popped, current) as :data:`Candidate` records, in the word's coordinates when traced."""
        sym, nxt, rk = self.sym, self.nxt, self.rk
        where = self.index if self.bit is not None else (lambda i: i)
        return tuple((rk[i], where(i), sym[i], sym[nxt[i]]) for i in positions)

    # ------------------------------------------------------------------ merging

    def merge(self, rank: int, sites: list[int], new: int, dropped: tuple[Candidate, ...] = ()) -> None:
        """Join each position of ``sites`` (current, ascending, not overlapping) with its right neighbour into ``new``.

        Records the step; when traced, first the pairs the step breaks (a
        neighbour's pair loses a symbol), then the pairs it forms.
        """
        sym, nxt, prv, rk = self.sym, self.nxt, self.prv, self.rk
        run = self.run
        first = sites[0]
        step_no = len(run.steps) + 1
        traced = self.bit is not None
        if traced:
            where = tuple(self.index(i) for i in sites)
            self._losses(rank, sites, step_no)
        else:
            where = tuple(sites)
        run.steps.append(Step(rank, where, sym[first], sym[nxt[first]], 2, dropped))
        for i in sites:
            j = nxt[i]
            k = nxt[j]
            sym[i] = new
            sym[j] = -1
            rk[i] = rk[j] = INF  # looked up again below, once every site has merged
            nxt[i] = k
            if k >= 0:
                prv[k] = i
            if traced:
                self._remove(j)
        for i in sites:
            self._rerank(prv[i], step_no)
            self._rerank(i, step_no)

    def _rerank(self, i: int, step_no: int) -> None:
        """Look up again the rank of the pair starting at position ``i`` (after a merge next to it)."""
        if i < 0:
            return
        j = self.nxt[i]
        r = self.rank_of(self.sym[i], self.sym[j]) if j >= 0 else None
        if r is None:
            self.rk[i] = INF
            return
        if self.rk[i] != r:
            self.rk[i] = r
            heapq.heappush(self.heap, r << self.shift | i)
        met = self.run.met
        if self.bit is not None and r not in met:
            met[r] = (step_no, self.sym[i], self.sym[j])

    def _losses(self, rank: int, sites: list[int], step_no: int) -> None:
        """Record the rule pairs the step breaks: each site's left and right neighbour pair (before merging)."""
        sym, nxt, prv, rk = self.sym, self.nxt, self.prv, self.rk
        taken = self.run.taken
        for i in sites:
            j = nxt[i]
            p = prv[i]
            if p >= 0 and rk[p] != INF and rk[p] not in taken:
                taken[rk[p]] = (step_no, rank, sym[p], sym[i], sym[i])
            if rk[j] != INF and rk[j] not in taken:
                taken[rk[j]] = (step_no, rank, sym[j], sym[nxt[j]], sym[j])

    def merge_all(self, rank: int, new: int, left: int, right: int, dropped: tuple[Candidate, ...] = ()) -> None:
        """tiktoken's whole-piece lookup: every symbol becomes the one token ``new`` (rule ``rank``)."""
        order = self.order()
        taken, sym, nxt, rk = self.run.taken, self.sym, self.nxt, self.rk
        if self.bit is not None:
            step_no = len(self.run.steps) + 1
            for i in order[:-1]:  # every pair inside the piece is broken
                if rk[i] != INF and rk[i] not in taken:
                    taken[rk[i]] = (step_no, rank, sym[i], sym[nxt[i]], sym[i])
        self.run.steps.append(Step(rank, (0,), left, right, len(order), dropped))
        first = order[0]
        for i in order[1:]:
            self.sym[i] = -1
            self.rk[i] = INF
        self.sym[first] = new
        self.rk[first] = INF
        self.nxt[first] = -1

    def order(self) -> list[int]:
        """The live positions, left to right."""
        out: list[int] = []
        i = 0 if self.sym else -1
        nxt = self.nxt
        while i != -1:
            out.append(i)
            i = nxt[i]
        return out

    def symbols(self) -> list[int]:
        """The live symbols, left to right."""
        sym = self.sym
        return [sym[i] for i in self.order()]


def dropout_rng(dropout: object, seed: object) -> tuple[float, random.Random] | None:
    """Check a BPE-dropout setting; ``(p, random.Random(seed))``, or ``None`` for ``p = 0`` (plain encoding).

    Args:
        dropout: the probability ``p`` of skipping each merge that could fire: a real number in ``[0, 1]``.
        seed: an ``int`` (the same seed gives the same segmentations), a
            ``random.Random`` to draw from, or ``None`` (fresh randomness).

    Raises:
        OptionError: ``dropout`` is not a number in ``[0, 1]`` (NaN, a bool or a string included), or
            ``seed`` is neither an int, a ``random.Random`` nor ``None``.
    """
    if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0.0 <= dropout <= 1.0:
        shown = repr(dropout)
        shown = shown if len(shown) <= 40 else f"{shown[:40]}… ({len(shown):,} characters)"
        raise OptionError(f"dropout must be a probability from 0 to 1, not {shown}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, random.Random))):
        raise OptionError(f"seed must be an int (or None for fresh randomness), not {type(seed).__name__}")
    if dropout == 0:
        return None
    return float(dropout), seed if isinstance(seed, random.Random) else random.Random(seed)

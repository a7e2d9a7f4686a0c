"""Rank a recorded run's pairs by its tie rule, in time near-linear in the corpus.

A step's view (:attr:`bpe_core.TrainResult.steps`) and the whole run's tie
listing (:meth:`bpe_core.TrainResult.tied_lists`, the command line) order tied
pairs by the run's tie rule (:mod:`bpe_core.registry.tie_rules`). The ``first_seen``
rule's key is where a pair first occurs after ``k`` merges, the distinct words
scanned in corpus order, each left to right (karpathy/minbpe ``get_stats``
followed by ``max``). Two ways to find it, both bounded by the corpus size:

* :func:`first_places`, for one step: one walk over the layout after ``k``
  merges, word by word, that stops as soon as every wanted pair is found. Words
  that cannot hold a pair are skipped: a pair holding a merged token only stands
  in the words rewritten by the merge that made that token.
* :class:`FirstPlaces`, for every merge in turn: the run replayed once on the
  layout (Sennrich et al. 2016, Algorithm 1, each merge visiting exactly its
  occurrences, as :mod:`bpe_core.training.trainer` does), with each pair's places chained
  in corpus order, so a pair's first place is the head of its chain.

:func:`tied_lists` keeps every count's pairs in a heap ordered by the tie rule
(a count -> pairs index), so listing the tied pairs of every merge costs the
recorded count changes plus a few heap operations per merge, not a rescan of
every pair.

Two facts about a run make lazy heaps exact here (both hold for BPE as
Sennrich et al. define it): a pair gains all its occurrences in one merge (the
one that makes the newer of its two tokens, or none for a pair of base
symbols) and afterwards only loses them, so its count never returns to a value
it left; and its occurrences change exactly when its count does, so its first
place moves only then. The highest count never grows from one merge to the
next, since every new pair holds the new token and so counts at most as much
as the pair just merged.
"""

from __future__ import annotations

import heapq
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import repeat
from operator import add, mul

from ..registry.tie_rules import TieRule
from ..text.symbols import SHIFT
from .recorder import GONE, Layout, MergeLog

SQUARE = SHIFT * SHIFT
"""Pair keys (``left * SHIFT + right``) stay below this; a heap entry is ``order * SQUARE + key``."""


def first_places(layout: Layout, words: Iterable[int], wanted: set[int], k: int) -> dict[int, int]:
    """Where each pair key of ``wanted`` first stands after ``k`` merges, searching ``words`` in the order given.

    Args:
        layout: the run's corpus layout.
        words: word indices in corpus order (a subset that holds every wanted pair is enough).
        wanted: pair keys (``left * SHIFT + right``).
        k: how many merges, ``0 <= k <= num_merges``.

    Returns:
        ``{key: slot}`` (the slot of the pair's left token) for every wanted key
        found; the walk stops once all are found, so its cost is the slots read
        up to the last first place (at most the whole layout once).
    """
    # the hot loop (the walk of Layout.tokens, streamed, with no list per word): kept inline for speed
    found: dict[int, int] = {}
    need = len(wanted)
    if not need:
        return found
    final, initial, new_ids, starts = layout.final, layout.initial, layout.new_ids, layout.starts
    cut = GONE + k  # a slot removed before merge k holds a value in GONE .. cut - 1
    for w in words:
        p, end = starts[w], starts[w + 1]
        left = -1  # the previous token's id * SHIFT, or -1 at the word's start
        at = 0
        while p < end:
            q = p + 1
            latest = 0
            while q < end and GONE <= final[q] < cut:
                if final[q] > latest:
                    latest = final[q]
                q += 1
            token = initial[p] if latest == 0 else new_ids[latest - GONE]
            if left >= 0:
                key = left + token
                if key in wanted and key not in found:
                    found[key] = at
                    if len(found) == need:
                        return found
            left, at, p = token * SHIFT, p, q
    return found


def candidate_words(pairs: Sequence[tuple[int, int]], born: dict[int, int], log: MergeLog) -> Iterable[int]:
    """The words that can hold any of ``pairs``, in corpus order (each once).

    ``born`` maps a merged token's id to the merge that made it. A pair of two
    base symbols can stand in any word; a pair holding a merged token only in the
    words that the merge making its newer token rewrote.
    """
    trace = log.trace
    assert trace is not None
    made = {max(born.get(a, -1), born.get(b, -1)) for a, b in pairs}
    if -1 in made:
        return range(len(trace.layout.starts) - 1)
    return _unique(heapq.merge(*(trace.rewritten(m) for m in sorted(made))))


def _unique(ordered: Iterable[int]) -> Iterator[int]:
    """``ordered`` (ascending) without repeats."""
    last = -1
    for w in ordered:
        if w != last:
            yield w
            last = w


class FirstPlaces:
    """Every pair's first place in the corpus, kept exact while the run is replayed merge by merge.

    The layout's words become doubly linked lists of live slots (``sym``,
    ``nxt``, ``prv``, as the trainer lays them out); each pair's places form a
    doubly linked chain in slot order (``after``, ``before``), whose head is
    ``first[key]``. :meth:`merge` replays one merge: it walks the merged pair's
    chain left to right (overlapping occurrences ``a a a`` merge as ``aa a``),
    unlinks the places of the neighbouring pairs it destroys and appends those of
    the pairs it forms (they come in slot order, and a pair is only ever formed
    by one merge). Memory: five arrays of 4-byte ints over the layout, and
    ``first``; time: one pass over the layout, then the merged occurrences.
    """

    def __init__(self, layout: Layout) -> None:
        sym = self.sym = array("i", layout.initial)
        n = len(sym)
        nxt = self.nxt = array("i", range(1, n + 1))
        prv = self.prv = array("i", range(-1, n - 1))
        right = list(sym[1:])
        right.append(-SQUARE)
        for start, end in zip(layout.starts, layout.starts[1:]):
            if start < end:
                nxt[end - 1] = -1
                prv[start] = -1
                right[end - 1] = -SQUARE  # no pair across words: a negative key
        keys = list(map(add, map(mul, sym, repeat(SHIFT)), right))
        after = self.after = array("i", [-1]) * n
        before = self.before = array("i", [-1]) * n
        first: dict[int, int] = {}
        get = first.get
        for p in range(n - 2, -1, -1):  # backwards, so that each chain is built head last
            key = keys[p]
            if key >= 0:
                q = get(key, -1)
                after[p] = q
                if q >= 0:
                    before[q] = p
                first[key] = p
        self.first = first

    def merge(self, a: int, b: int, new: int) -> None:
        """Replay one merge: every occurrence of ``(a, b)``, left to right without overlap, becomes ``new``."""
        # the hot loop of the replay (one pass over the merged pair's places): kept inline for speed
        sym, nxt, prv, after = self.sym, self.nxt, self.prv, self.after
        pk = a * SHIFT + b
        sites = []
        p = self.first.pop(pk, -1)  # every place of (a, b) goes: merged, or consumed by an overlapping one
        while p >= 0:
            sites.append(p)
            p = after[p]
        tails: dict[int, int] = {}  # the last place of each pair formed so far by this merge
        cut, add = self._cut, self._add
        new_s = new * SHIFT
        for i in sites:
            j = nxt[i]
            if sym[i] != a or j < 0 or sym[j] != b:
                continue  # consumed by the occurrence just merged (a a a)
            left, right = prv[i], nxt[j]
            if left >= 0 and sym[left] * SHIFT + a != pk:
                cut(left, sym[left] * SHIFT + a, tails)
            if right >= 0:
                if b * SHIFT + sym[right] != pk:
                    cut(j, b * SHIFT + sym[right], tails)
                prv[right] = i
            nxt[i] = right
            sym[i] = new
            sym[j] = -1
            if left >= 0:
                add(left, sym[left] * SHIFT + new, tails)
            if right >= 0:
                add(i, new_s + sym[right], tails)

    def _cut(self, slot: int, key: int, tails: dict[int, int]) -> None:
        """Unlink ``slot`` from pair ``key``'s chain (the pair stopped standing there)."""
        after, before, first = self.after, self.before, self.first
        ps, ns = before[slot], after[slot]
        if ps >= 0:
            after[ps] = ns
        elif ns >= 0:
            first[key] = ns
        else:
            del first[key]
        if ns >= 0:
            before[ns] = ps
        elif key in tails:  # a pair formed earlier in this merge, and unmade again (a b a b)
            if ps >= 0:
                tails[key] = ps
            else:
                del tails[key]

    def _add(self, slot: int, key: int, tails: dict[int, int]) -> None:
        """Append ``slot`` to pair ``key``'s chain (pairs formed by one merge arrive in slot order)."""
        tail = tails.get(key, -1)
        if tail < 0:
            self.first[key] = slot
        else:
            self.after[tail] = slot
        self.before[slot] = tail
        self.after[slot] = -1
        tails[key] = slot


def symbol_ranks(rule: TieRule, strings: Sequence[str], hf_rank: Sequence[int]) -> list[int]:
    """Id -> the dense rank of its per-symbol key under a static rule (equal keys share a rank).

    A static rule orders pairs by ``(key(left), key(right))``, then by ids
    (:meth:`bpe_core.registry.tie_rules.TieRule.order`), so ``(rank[left], rank[right])``
    followed by the pair key orders them the same way, as one integer.
    """
    keys = [rule.symbol_key(s, r) for s, r in zip(strings, hf_rank)]
    dense = {value: i for i, value in enumerate(sorted(set(keys)))}  # type: ignore[type-var]
    return [dense[value] for value in keys]


def tied_lists(
    log: MergeLog,
    num_tied: Sequence[int],
    rule: TieRule,
    strings: Sequence[str],
    hf_rank: Sequence[int],
    limit: int | None,
) -> list[list[tuple[int, int]]]:
    """Every merge's tied pairs as id pairs, winner first in tie-rule order, at most ``limit`` each.

    One pass over the recorded count changes with a heap of pairs per count
    (entries ``order * SQUARE + key``, dropped when found stale: the pair's count
    moved on); the ``first_seen`` order is the pair's first place, kept by
    :class:`FirstPlaces` as the run is replayed. ``num_tied[k]`` is how many
    pairs shared merge ``k``'s count (1: the merge alone is listed).

    Returns:
        One list per merge, ``[(left_id, right_id), ...]``.
    """
    trace = log.trace
    assert trace is not None
    places = FirstPlaces(trace.layout) if rule.positional else None
    entry = _positional_entry(places) if places is not None else _static_entry(symbol_ranks(rule, strings, hf_rank))

    counts = trace.counts_at(0)
    buckets = _Buckets(zip(counts.values(), map(entry, counts)))
    out: list[list[tuple[int, int]]] = []
    for k, (a, b, new) in enumerate(log.merge_ids):
        best = log.counts[k]
        buckets.forget_above(best)
        out.append(buckets.top(best, counts, limit) if num_tied[k] > 1 else [(a, b)])
        if places is not None:
            places.merge(a, b, new)
        for key, change in trace.changes(k):
            c = counts.get(key, 0) + change
            if c:
                counts[key] = c
                buckets.add(c, entry(key))
            else:
                del counts[key]
    return out


def _positional_entry(places: FirstPlaces) -> Callable[[int], int]:
    """``key -> entry``: ordered by the pair's first place now."""
    first = places.first
    return lambda key: first[key] * SQUARE + key


def _static_entry(rank: list[int]) -> Callable[[int], int]:
    """``key -> entry``: ordered by the dense ranks of the pair's two symbols (see :func:`symbol_ranks`)."""
    return lambda key: (rank[key // SHIFT] * SHIFT + rank[key % SHIFT]) * SQUARE + key


class _Buckets:
    """Count -> a heap of entries ``order * SQUARE + key``, smallest first; stale entries are dropped lazily."""

    def __init__(self, entries: Iterable[tuple[int, int]]) -> None:
        """Start from ``(count, entry)`` pairs (grouped, then each group made a heap at once)."""
        heaps: dict[int, list[int]] = {}
        group = heaps.setdefault
        for count, entry in entries:
            group(count, []).append(entry)
        for heap in heaps.values():
            heapq.heapify(heap)
        self.heaps = heaps
        self.counts = [-c for c in heaps]  # a heap of the negated counts that have a bucket
        heapq.heapify(self.counts)

    def add(self, count: int, entry: int) -> None:
        heap = self.heaps.get(count)
        if heap is None:
            self.heaps[count] = [entry]
            heapq.heappush(self.counts, -count)
        else:
            heapq.heappush(heap, entry)

    def forget_above(self, best: int) -> None:
        """Drop the buckets above ``best``: no pair counts more than the pair merged now, ever again."""
        while self.counts and -self.counts[0] > best:
            del self.heaps[-heapq.heappop(self.counts)]

    def top(self, count: int, counts: dict[int, int], limit: int | None) -> list[tuple[int, int]]:
        """The first ``limit`` pairs (all if ``None``) that count ``count`` now, in order, as id pairs."""
        heap = self.heaps.get(count, [])
        kept: list[int] = []
        while heap and (limit is None or len(kept) < limit):
            entry = heapq.heappop(heap)
            if counts.get(entry % SQUARE) == count:  # else stale: that pair's count has moved on for good
                kept.append(entry)
        for entry in kept:
            heapq.heappush(heap, entry)
        return [divmod(entry % SQUARE, SHIFT) for entry in kept]

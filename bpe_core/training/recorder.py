"""Recorders: what a training run keeps of each merge, and the logs they leave.

The trainer (:mod:`bpe_core.training.trainer`) hands every merge to a recorder as plain
values: the pair's ids, its count, how many occurrences it replaced, the
pair-count changes and the words it rewrote. :class:`Recorder` keeps only the
merge table with counts (``trace=False``); :class:`TraceRecorder` also keeps
what cannot be recomputed cheaply afterwards:

* the pair-count changes of every merge, packed, plus a snapshot of all pair
  counts every so often (whenever the changes since the last snapshot add up to
  :data:`SNAPSHOT_EVERY` times as many entries as there are pairs), so rebuilding
  the counts at any step reads one snapshot and a bounded number of changes;
* the ids of the words each merge rewrote;
* the corpus layout: every distinct word's base symbols one after another, and
  for each slot the merge that removed it (the right half of a merged pair
  leaves the sequence; the left half's slot holds the new token). From these
  two arrays any word's segmentation after any number of merges follows in one
  pass over the word (see :class:`Layout`).

The packed arrays use unsigned type codes (:data:`U64`, ``"I"``) wherever a value
cannot be negative: CPython fills those from a list about three times faster
than signed ones, which parse each item through a format string.

Everything else a step shows (top pairs, ties with their keys, words before and
after) is computed when asked, by :class:`bpe_core.training.result.TrainResult`.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate, chain

U64 = "L" if array("L").itemsize == 8 else "Q"
"""The unsigned 64-bit type code: ``"L"`` where ``unsigned long`` has 64 bits (CPython converts those
items without the byte-array path ``"Q"`` takes, half the cost), else ``"Q"``."""

GONE = 1 << 31
"""``gone_marker(k) = GONE + k``: the value a slot takes when merge ``k`` removes it.

Above every symbol id (ids stay below :data:`bpe_core.text.symbols.SHIFT`), so no
symbol id ever equals it, and below ``2**32``, so the final layout packs as
unsigned."""


def gone_marker(step: int) -> int:
    """The layout value of a slot removed by merge ``step`` (0-based)."""
    return GONE + step


BATCH = 256
"""The trace recorder packs the merges' records in batches of at most this many merges..."""
BATCH_CHANGES = 4096
"""...sized to hold about this many pair-count changes (early merges change thousands of pairs each, and
a change waiting in its merge's dict takes several times its packed size)."""
SNAPSHOT_EVERY = 3
"""A snapshot of all pair counts is taken once the changes since the last one number this many times the
live pairs (checked after each packed batch): rebuilding a step's counts then reads one snapshot and about
that many times its size in changes (a few milliseconds), while snapshots cost a small share of training."""


@dataclass(frozen=True)
class Layout:
    """Every distinct word's base symbols, one after another, with the merge that removed each slot.

    Attributes:
        initial: slot -> base symbol id, words in corpus order.
        final: slot -> the symbol it holds after the last merge (below :data:`GONE`), or
            :func:`gone_marker` of the merge that removed it.
        starts: word ``w`` occupies slots ``starts[w]`` to ``starts[w + 1] - 1``.
        new_ids: merge ``k`` -> the id of the token it made.
    """

    initial: array
    final: array
    starts: array
    new_ids: Sequence[int]

    def word_of(self, slot: int) -> int:
        """The index of the word holding ``slot``."""
        return bisect_right(self.starts, slot) - 1

    def tokens(self, start: int, end: int, k: int, limit: int = -1) -> list[tuple[int, int]]:
        """``(slot, token id)`` of the tokens after ``k`` merges from live slot ``start`` to ``end``.

        A slot is live after ``k`` merges unless a merge before ``k`` removed it.
        The token at a live slot spans up to the next live slot; it is the base
        symbol when it spans one slot, else the token of the latest merge that
        removed a slot inside it (that merge made it, and none touched it since).
        Stops after ``limit`` tokens when ``limit >= 0``.
        """
        final, initial, new_ids = self.final, self.initial, self.new_ids
        cut = GONE + k  # removed before merge k: GONE <= value < cut
        out = []
        p = start
        while p < end and limit:
            q = p + 1
            latest = 0
            while q < end and GONE <= final[q] < cut:
                if final[q] > latest:
                    latest = final[q]
                q += 1
            out.append((p, initial[p] if latest == 0 else new_ids[latest - GONE]))
            p = q
            limit -= 1
        return out

    def live_before(self, slot: int, start: int, k: int, count: int) -> int:
        """The slot ``count`` live tokens left of live ``slot`` after ``k`` merges (not before ``start``)."""
        final, cut = self.final, GONE + k
        p = slot
        while count and p > start:
            p -= 1
            if not GONE <= final[p] < cut:
                count -= 1
        return p

    def word_tokens(self, w: int, k: int) -> list[int]:
        """Word ``w``'s token ids after ``k`` merges."""
        return [t for _p, t in self.tokens(self.starts[w], self.starts[w + 1], k)]

    def holds(self, slot: int, width: int, token: int, end: int, k: int) -> bool:
        """Whether, after ``k`` merges, live token ``token`` spans exactly ``slot .. slot + width - 1``."""
        final, cut = self.final, GONE + k
        if GONE <= final[slot] < cut:
            return False
        stop = slot + width
        if stop < end and GONE <= final[stop] < cut:
            return False
        if width == 1:
            return self.initial[slot] == token
        inner = final[slot + 1 : stop]
        if not all(GONE <= v < cut for v in inner):
            return False
        return self.new_ids[max(inner) - GONE] == token


@dataclass(frozen=True)
class Counts:
    """A packed pair-count table: ``keys[i]`` (a pair key, see :data:`bpe_core.text.symbols.SHIFT`) has
    ``counts[i]``."""

    keys: array
    counts: array

    @classmethod
    def pack(cls, counts: Mapping[int, int]) -> Counts:
        """Pack a ``{pair key: count}`` dict (lists first: an array fills from a list in one C loop)."""
        return cls(array(U64, list(counts)), array(U64, list(counts.values())))

    def unpack(self) -> dict[int, int]:
        """The ``{pair key: count}`` dict."""
        return dict(zip(self.keys, self.counts))

    def __len__(self) -> int:
        return len(self.keys)


@dataclass(frozen=True)
class TraceLog:
    """What :class:`TraceRecorder` kept of a run (see the module docstring).

    Attributes:
        top_k, max_tied, trace_words: the ``train`` arguments of the same names.
        initial_counts: all pair counts before the first merge.
        delta_keys, delta_changes: every merge's pair-count changes (``delta_keys[i]``'s count
            changed by ``delta_changes[i]``, never 0), one merge after another.
        delta_ends: merge ``k``'s changes end at ``delta_ends[k]``.
        checkpoints: ``(k, counts after k merges)``, ``k`` ascending.
        words: the ids of the words each merge rewrote, in corpus order, one merge after another.
        word_ends: merge ``k``'s words end at ``word_ends[k]``.
        layout: the corpus layout.
    """

    top_k: int
    max_tied: int
    trace_words: int
    initial_counts: Counts
    delta_keys: array
    delta_changes: array
    delta_ends: array
    checkpoints: tuple[tuple[int, Counts], ...]
    words: array
    word_ends: array
    layout: Layout

    def counts_at(self, k: int) -> dict[int, int]:
        """Pair key -> count after ``k`` merges (one snapshot plus the changes since)."""
        at, packed = 0, self.initial_counts
        for step, snapshot in self.checkpoints:
            if step > k:
                break
            at, packed = step, snapshot
        counts = packed.unpack()
        lo = self.delta_ends[at - 1] if at else 0
        hi = self.delta_ends[k - 1] if k else 0
        get = counts.get
        for key, change in zip(self.delta_keys[lo:hi], self.delta_changes[lo:hi]):
            c = get(key, 0) + change
            if c:
                counts[key] = c
            else:
                del counts[key]
        return counts

    def changes(self, k: int) -> zip:
        """Merge ``k``'s pair-count changes, as ``(pair key, change)`` pairs."""
        lo, hi = self.delta_ends[k - 1] if k else 0, self.delta_ends[k]
        return zip(self.delta_keys[lo:hi], self.delta_changes[lo:hi])

    def rewritten(self, k: int) -> array:
        """The ids of the words merge ``k`` rewrote, in corpus order."""
        lo = self.word_ends[k - 1] if k else 0
        return self.words[lo : self.word_ends[k]]


@dataclass(frozen=True)
class MergeLog:
    """What every run keeps: the merges with their counts, and the trace if recorded.

    Attributes:
        merge_ids: ``(left, right, new)`` symbol ids per merge, in rank order.
        counts: merge ``k``'s pair count before it was merged.
        replaced: occurrences merge ``k`` replaced.
        base_size: vocabulary size before the first merge.
        initial_tokens: corpus length in tokens before the first merge (weighted).
        trace: the :class:`TraceLog`, or ``None`` for ``trace=False``.
    """

    merge_ids: tuple[tuple[int, int, int], ...]
    counts: array
    replaced: array
    base_size: int
    initial_tokens: int
    trace: TraceLog | None


class Recorder:
    """Keeps the merge table with counts and replacements (``trace=False``)."""

    def __init__(self) -> None:
        self.merge_ids: list[tuple[int, int, int]] = []
        self.counts = array("q")
        self.replaced = array("q")
        self.initial_tokens = 0
        self.base_size = 0

    def start(self, counts: dict[int, int], sym: list[int], starts: list[int], tokens: int, size: int) -> None:
        """Called once before the first merge with the trainer's live pair counts and layout."""
        self.initial_tokens = tokens
        self.base_size = size

    def record(
        self, a: int, b: int, new: int, count: int, replaced: int, changes: dict[int, int], rewritten: list[int]
    ) -> None:
        """Keep one merge: ``(a, b) -> new`` had ``count``, replaced ``replaced`` occurrences.

        ``changes`` maps pair key -> count change (never 0); ``rewritten`` lists the
        ids of the words the merge changed, in corpus order. Both belong to the
        recorder from then on.
        """
        self.merge_ids.append((a, b, new))
        self.counts.append(count)
        self.replaced.append(replaced)

    def finish(self, sym: list[int]) -> MergeLog:
        """The log of the run; ``sym`` is the trainer's final layout with its end sentinel, handed over (may change)."""
        return MergeLog(tuple(self.merge_ids), self.counts, self.replaced, self.base_size, self.initial_tokens, None)


class TraceRecorder(Recorder):
    """Also keeps the pair-count changes, snapshots, rewritten words and the layout (``trace=True``)."""

    def __init__(self, top_k: int, max_tied: int, trace_words: int) -> None:
        super().__init__()
        self.options = (top_k, max_tied, trace_words)
        self.delta_keys, self.delta_changes, self.delta_ends = array(U64), array("q"), array(U64)
        self.words, self.word_ends = array("I"), array(U64)
        self.checkpoints: list[tuple[int, Counts]] = []
        self.pending: list[tuple] = []  # the merges waiting to be packed, as record() was given them
        self.batch = 1  # how many merges to pack at a time (see _flush)
        self.since = 0

    def start(self, counts: dict[int, int], sym: list[int], starts: list[int], tokens: int, size: int) -> None:  # noqa: D102
        super().start(counts, sym, starts, tokens, size)
        self.live = counts
        self.initial_counts = Counts.pack(counts)
        sentinel = sym.pop()  # packed without the trainer's end sentinel, and with no copy of the list
        self.initial = array("I", sym)
        sym.append(sentinel)
        self.starts = array(U64, starts)
        self.starts.append(len(self.initial))

    def record(self, a, b, new, count, replaced, changes, rewritten) -> None:  # noqa: D102
        pending = self.pending  # this runs once per merge: it only queues; _flush packs a batch in a few C loops
        pending.append((a, b, new, count, replaced, changes, rewritten))
        if len(pending) >= self.batch:
            self._flush()

    def _flush(self) -> None:
        """Pack the pending merges onto the flat arrays; take a snapshot when one is due; size the next batch.

        Each column goes through a list or tuple: an array fills from one in a
        single C loop, but grows an item at a time from any other iterable. The
        next batch holds as many merges as should make :data:`BATCH_CHANGES`
        changes at the rate of this one (early merges change thousands of pairs
        each), at most :data:`BATCH`.
        """
        pending = self.pending
        if not pending:
            return
        left, right, new, counts, replaced, changes, rewritten = zip(*pending)
        self.merge_ids += zip(left, right, new)
        self.counts += array("q", counts)
        self.replaced += array("q", replaced)
        keys = list(chain.from_iterable(changes))
        self.delta_ends += array(U64, list(accumulate(map(len, changes), initial=len(self.delta_keys)))[1:])
        self.delta_keys += array(U64, keys)
        self.delta_changes += array("q", list(chain.from_iterable(map(dict.values, changes))))
        self.word_ends += array(U64, list(accumulate(map(len, rewritten), initial=len(self.words)))[1:])
        self.words += array("I", list(chain.from_iterable(rewritten)))
        self.batch = max(1, min(BATCH, BATCH_CHANGES * len(pending) // max(1, len(keys))))
        pending.clear()
        self.since += len(keys)
        if self.since >= SNAPSHOT_EVERY * len(self.live):
            self.checkpoints.append((len(self.counts), Counts.pack(self.live)))
            self.since = 0

    def finish(self, sym: list[int]) -> MergeLog:  # noqa: D102
        self._flush()
        sym.pop()  # the trainer's end sentinel (the trainer is done with the list)
        final = array("I", sym)
        layout = Layout(self.initial, final, self.starts, array("I", [new for _a, _b, new in self.merge_ids]))
        trace = TraceLog(
            *self.options,
            self.initial_counts,
            self.delta_keys,
            self.delta_changes,
            self.delta_ends,
            tuple(self.checkpoints),
            self.words,
            self.word_ends,
            layout,
        )
        return MergeLog(tuple(self.merge_ids), self.counts, self.replaced, self.base_size, self.initial_tokens, trace)

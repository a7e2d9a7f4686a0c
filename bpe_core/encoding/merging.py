"""Applying a merge table to one pre-token: the loops behind :class:`bpe_core.Tokenizer`.

Two semantics (see :mod:`bpe_core.encoding.encoder`): *pair* (a rule fires on its own
two symbols; GPT-2 ``encoder.py`` ``bpe()``, Hugging Face ``Word::merge_all``)
and *bytes* (any two adjacent tokens whose bytes spell a token merge at that
token's rank; tiktoken ``_byte_pair_merge``). Two orders: ``rank`` (lowest
rank first, repeatedly) and ``sequential`` (the table once, in learned order).
Short pre-tokens use a list with each adjacent pair's rank kept up to date;
long ones (over 128 symbols) a linked list with a heap, in O(n log n).

:meth:`RuleApplier.rank_encoder` is the hot path of ``Tokenizer.encode`` for
byte-level tables without an end-of-word marker in ``rank`` order: it goes
from a pre-token's text straight to its ids with loops specialised to one
semantics and no trace (see its docstring for each technique).

:meth:`RuleApplier.run` is the recorded loop (traces, BPE-dropout): the same
linked list and heap as the long loop, keeping what each step did rather than
a copy of the word (:mod:`bpe_core.encoding.merge_run`).
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice

from ..errors import OptionError
from ..registry.options import OPTIONS, mode_object
from ..text.symbols import SHIFT
from .merge_run import INF, Candidate, MergeRun, Walk

LONG = 128
"""Pre-tokens with more symbols than this use the heap-based loop."""

Record = list[tuple[int, tuple[int, ...], int, int]]
"""``(rank, sites, left, right)`` per rule application, as :meth:`RuleApplier.apply` records them: ``sites``
index the word as it stood before the application, ``left``/``right`` are the ids joined at the first site."""


@dataclass(frozen=True)
class MergeOrder:
    """How a merge table is applied to new text.

    Attributes:
        name: ``"rank"`` or ``"sequential"``, the value the public API accepts.
        description: one line for help texts.
        sequential: True when the table is walked once in learned order (each
            rank at most once, ranks only rising); False when the lowest-rank
            adjacent pair is merged again and again.
    """

    name: str
    description: str
    sequential: bool


ORDERS: Mapping[str, str] = OPTIONS["order"].choices
"""Every merge order with a one-line description (a read-only view of :data:`bpe_core.registry.options.OPTIONS`)."""

RANK = MergeOrder("rank", ORDERS["rank"], False)
SEQUENTIAL = MergeOrder("sequential", ORDERS["sequential"], True)
MERGE_ORDERS: dict[str, MergeOrder] = {m.name: m for m in (RANK, SEQUENTIAL)}
"""Every merge order by name."""


def merge_order(order: str | MergeOrder) -> MergeOrder:
    """The :class:`MergeOrder` named ``order`` (a :class:`MergeOrder` is returned as it is).

    Raises:
        OptionError: an unknown name, listing the known ones.
    """
    return mode_object("order", order, MERGE_ORDERS, MergeOrder)


class RuleApplier:
    """Applies one merge table to symbol lists.

    Args:
        merge_ids: ``(left_id, right_id, new_id)`` per merge, in rank order.
        pair_rank: pair key (``left * SHIFT + right``) -> rank, for pair semantics.
        token_rank: token bytes -> rank, for byte semantics (empty otherwise).
        data: id -> the token's bytes.
        merge_by: ``"pair"`` or ``"bytes"``.
        whole_piece: byte semantics only: finish with tiktoken's whole-piece lookup.
    """

    def __init__(
        self,
        merge_ids: Sequence[tuple[int, int, int]],
        pair_rank: dict[int, int],
        token_rank: dict[bytes, int],
        data: Sequence[bytes],
        merge_by: str,
        whole_piece: bool,
    ) -> None:
        self.merge_ids = merge_ids
        self.pair_rank = pair_rank
        self.token_rank = token_rank
        self.data = data
        self.by_bytes = merge_by == "bytes"
        self.whole_piece = whole_piece
        self._rank_encoder: Callable[[str], tuple[int, ...]] | None = None

    def __getstate__(self) -> dict[str, object]:
        state = dict(self.__dict__)
        state["_rank_encoder"] = None  # a closure: rebuilt on first use after unpickling
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self.__dict__.setdefault("_rank_encoder", None)  # pickled before the fast path existed
        self.__dict__.setdefault("by_bytes", state.get("merge_by") == "bytes")  # pickled before MergeOrder

    def apply(
        self, syms: list[int], order: MergeOrder, record: Record | None = None, start: int = 0, stop: int = INF
    ) -> list[int]:
        """Apply the merge rules to one pre-token's symbols; return the merged symbols.

        ``syms`` is consumed (changed in place). ``start``/``stop`` (sequential
        order only) restrict the pass to ranks ``start <= rank < stop``;
        ``record`` collects ``(rank, sites, left, right)`` per rule applied
        (see :data:`Record`; it runs :meth:`run`).
        """
        if record is not None:
            run = self.run(syms, order, start=start, stop=stop)
            record.extend((s.rank, s.sites, s.left, s.right) for s in run.steps)
            return run.final
        long = len(syms) > LONG
        if self.by_bytes:
            if long:
                out = self._merge_long(syms, order, start, stop)
            else:
                get, data = self.token_rank.get, self.data
                ranks = [get(data[x] + data[y], INF) for x, y in zip(syms, syms[1:])]
                out = self._merge_short(syms, ranks, order, start, stop)
            if len(out) > 1 and not order.sequential and self.whole_piece:
                out = self._whole_piece(out)
            return out
        if long:
            return self._merge_long(syms, order, start, stop)
        pget = self.pair_rank.get
        ranks = [pget(x * SHIFT + y, INF) for x, y in zip(syms, syms[1:])]
        return self._merge_short(syms, ranks, order, start, stop)

    def run(
        self,
        syms: Sequence[int],
        order: MergeOrder,
        *,
        start: int = 0,
        stop: int = INF,
        traced: bool = True,
        dropout: float = 0.0,
        rng: random.Random | None = None,
    ) -> MergeRun:
        """Apply the rules to one pre-token and record what each step did, in O(n log n) time and O(n) memory.

        The same rules fire in the same order as :meth:`apply` (the ids are
        identical). Each step keeps its rank, its sites (indices into the word
        before it) and the symbols it joined, never a copy of the word (see
        :class:`~bpe_core.encoding.merge_run.MergeRun`); with ``traced`` also, per
        rule, the first state where its two symbols stood side by side and
        the first step that took one of them.

        BPE-dropout (Provilkov et al. 2020, section 3; subword-nmt
        ``apply_bpe.py --dropout``): with ``dropout = p > 0``, at each step
        every merge that could fire is skipped with probability ``p`` (one
        ``rng.random() < p`` per candidate, lowest rank first, left to right);
        the lowest-ranked rule with a merge left fires at those of its
        positions that were not skipped (pair semantics; under tiktoken's byte
        semantics only the leftmost, as without dropout), and the skipped ones
        are candidates again at the next step (in ``sequential`` order their
        turn has passed). When every candidate is skipped the run ends: ``p=1``
        leaves the spelling as it is. tiktoken's whole-piece lookup counts as
        one more merge that can be skipped.

        Args:
            syms: the pre-token's base symbol ids (not changed).
            order: the merge order; ``start``/``stop``: the rank range, sequential order only.
            traced: keep positions in the word's coordinates and the met/taken pairs.
            dropout: the probability ``p`` of skipping each candidate merge, in ``[0, 1]``.
            rng: the random generator dropout draws from (required when ``dropout > 0``).

        Raises:
            OptionError: ``dropout`` outside ``[0, 1]`` or without ``rng``.
        """
        if not 0.0 <= dropout <= 1.0 or (dropout and rng is None):
            raise OptionError(f"dropout must be a probability in [0, 1] with a random generator, not {dropout!r}")
        walk = Walk(syms, self._rank_or_none(), traced)
        single = self.by_bytes and not order.sequential
        last = start - 1
        while True:
            rank, sites, dropped = _pick(walk, order.sequential, single, last, stop, dropout, rng)
            if rank is None:
                walk.run.end_dropped = dropped
                break
            walk.merge(rank, sites, self.merge_ids[rank][2], dropped)
            last = rank
        if single and self.whole_piece:
            self._whole_piece_walk(walk, dropout, rng)
        walk.run.final = walk.symbols()
        return walk.run

    def _whole_piece_walk(self, walk: Walk, dropout: float, rng: random.Random | None) -> None:
        """:meth:`_whole_piece` on a :class:`~bpe_core.encoding.merge_run.Walk` (recorded as one step joining every
        symbol)."""
        out = walk.symbols()
        if len(out) < 2:
            return
        data = self.data
        rank = self.token_rank.get(b"".join([data[x] for x in out]))
        if rank is None:
            return
        a, b, new = self.merge_ids[rank]
        if len(out) == 2:
            a, b = out
        if dropout and rng is not None and rng.random() < dropout:
            walk.run.end_dropped += ((rank, 0, a, b),)
            return
        walk.merge_all(rank, new, a, b)

    def rank_encoder(self, byte_ids: Sequence[int]) -> Callable[[str], tuple[int, ...]]:
        """``encode(chunk)``: one pre-token's ids in ``rank`` order, as ``apply(spelling, "rank")`` gives them.

        For byte-unit tables without an end-of-word marker (the spelling is
        just the chunk's UTF-8 bytes, ``byte_ids`` maps a byte to its id). The
        result is the same as :meth:`apply`'s; what makes it faster:

        * spelling is one C call when the 256 byte tokens have ids below 256
          (``bytes.translate`` with the byte -> id permutation) instead of a
          loop over the bytes;
        * byte semantics look the whole piece up first, as tiktoken does
          (``CoreBPE::encode_ordinary``): a piece that is a token is that token
          without any merging, the same id the merge loop plus the whole-piece
          rule would give (a piece merged down to one token spells that token,
          and both take the first rank with those bytes);
        * the short-chunk loops (:func:`_rank_pairs`, :func:`_rank_bytes`)
          carry no trace, range or order switches and keep every table they
          read in local variables.

        The function is built once per table (it holds lists derived from the
        merge table, never from encoded text) so that short texts do not pay
        for building it.

        Raises:
            UnicodeEncodeError: the chunk holds a lone surrogate.
        """
        if self._rank_encoder is None:
            self._rank_encoder = self._build_rank_encoder(byte_ids)
        return self._rank_encoder

    def _build_rank_encoder(self, byte_ids: Sequence[int]) -> Callable[[str], tuple[int, ...]]:
        perm = bytes(byte_ids) if len(byte_ids) == 256 and max(byte_ids) < 256 else None
        new_of = [new for _a, _b, new in self.merge_ids]
        merge_long = self._merge_long
        if self.by_bytes:
            token_get, data = self.token_rank.get, self.data
            whole = self.whole_piece

            def encode(chunk: str) -> tuple[int, ...]:
                piece = chunk.encode("utf-8")
                n = len(piece)
                if n > 1 and whole:
                    rank = token_get(piece)
                    if rank is not None:
                        return (new_of[rank],)
                syms = list(piece.translate(perm)) if perm is not None else [byte_ids[b] for b in piece]
                if n <= 1:
                    return tuple(syms)
                if n > LONG:
                    return tuple(merge_long(syms, RANK))
                return tuple(_rank_bytes(syms, token_get, data, new_of))

            return encode

        if not _made_before_use(self.merge_ids, len(self.data)):
            # a hand-made table where a token is used by a rule ranked before one that makes it
            apply = self.apply

            def encode(chunk: str) -> tuple[int, ...]:
                piece = chunk.encode("utf-8")
                syms = list(piece.translate(perm)) if perm is not None else [byte_ids[b] for b in piece]
                return tuple(apply(syms, RANK))

            return encode

        # rows[left][right] = rank: two lookups with small int keys instead of building
        # the two-digit key ``left * SHIFT + right`` (a new int object per lookup)
        # (ids that start no rule share one empty dict, which is only ever read)
        empty: dict[int, int] = {}
        rows = [empty] * max(len(self.data), len(byte_ids))
        for rank, (a, b, _new) in enumerate(self.merge_ids):
            row = rows[a]
            if row is empty:
                row = rows[a] = {}
            row[b] = rank

        def encode(chunk: str) -> tuple[int, ...]:
            piece = chunk.encode("utf-8")
            syms = list(piece.translate(perm)) if perm is not None else [byte_ids[b] for b in piece]
            n = len(syms)
            if n <= 1:
                return tuple(syms)
            if n > LONG:
                return tuple(merge_long(syms, RANK))
            return tuple(_rank_pairs(syms, rows, new_of))

        return encode

    def _rank_of(self) -> Callable[[int, int], int]:
        """``rank_of(left, right)``: the rank that merges two adjacent symbols, or a huge number."""
        if self.by_bytes:
            get, data = self.token_rank.get, self.data
            return lambda x, y: get(data[x] + data[y], INF)
        pget = self.pair_rank.get
        return lambda x, y: pget(x * SHIFT + y, INF)

    def _merge_short(self, syms: list[int], ranks: list[int], order: MergeOrder, start: int, stop: int) -> list[int]:
        """The merge loop for short chunks, keeping each adjacent pair's rank up to date.

        ``ranks[i]`` is the rank of ``(syms[i], syms[i + 1])``. A pass takes the
        lowest rank (above the last one in ``sequential`` order) and merges its
        occurrences left to right without overlap, or only the leftmost in
        ``rank`` order under tiktoken's byte semantics; only the two ranks next
        to a merge are looked up again. A merged symbol is new to its
        neighbours, so no rank next to it can equal the rank being applied.
        """
        merges = self.merge_ids
        rank_of: Callable[[int, int], int] | None = None
        sequential = order.sequential
        single = self.by_bytes and not sequential
        last = start - 1
        while ranks:
            if sequential:
                best = min((r for r in ranks if r > last), default=INF)
                if best >= stop:
                    break
            else:
                best = min(ranks)
            if best == INF:
                break
            if rank_of is None:
                rank_of = self._rank_of()
            new = merges[best][2]
            i = ranks.index(best)
            while True:
                syms[i] = new
                del syms[i + 1]
                del ranks[i]
                if i:
                    ranks[i - 1] = rank_of(syms[i - 1], new)
                if i < len(ranks):
                    ranks[i] = rank_of(new, syms[i + 1])
                if single:
                    break
                try:
                    i = ranks.index(best, i + 1)
                except ValueError:
                    break
            last = best
        return syms

    def _whole_piece(self, out: list[int]) -> list[int]:
        """tiktoken's whole-piece lookup (``CoreBPE::encode_ordinary`` in ``src/lib.rs``).

        tiktoken looks each pre-token up as a whole before merging; when merging
        stopped short of a token that spells the whole piece, that token wins (a
        table whose every token is reachable by merging never gets here). A
        trace records it as one application of that token's rule at position 0
        joining every symbol. Merging keeps the bytes, so the piece is the
        concatenation of ``out``.
        """
        data = self.data
        rank = self.token_rank.get(b"".join([data[x] for x in out]))
        if rank is None:
            return out
        return [self.merge_ids[rank][2]]

    def _merge_long(self, syms: list[int], order: MergeOrder, start: int = 0, stop: int = INF) -> list[int]:
        """The same as :meth:`apply` in O(n log n) time and O(n) memory, for long chunks (linked list + heap).

        The heap holds one int per pair, ``rank << shift | position`` (ints
        compare faster than tuples and are not tracked by the garbage
        collector, whose passes over millions of tuples made this loop
        superlinear in practice); ``rk[i]`` is the current rank of the pair at
        position ``i``, so a popped key is current when it matches. Pair
        semantics (and ``sequential`` order) pop a whole rank at once and merge
        its occurrences left to right; tiktoken byte semantics in ``rank``
        order merge one popped entry at a time.
        """
        rank_of = self._rank_or_none()
        n = len(syms)
        shift = n.bit_length()
        sym = list(syms)
        nxt = list(range(1, n + 1))
        nxt[-1] = -1
        prv = list(range(-1, n - 1))
        rk = [INF] * n
        heap = []
        for i in range(n - 1):
            r = rank_of(sym[i], sym[i + 1])
            if r is not None:
                rk[i] = r
                heap.append(r << shift | i)
        heapq.heapify(heap)
        links = (sym, nxt, prv, rk, heap, shift)
        new_of = [new for _a, _b, new in self.merge_ids]
        if self.by_bytes and not order.sequential:
            _merge_single(links, self.token_rank.get, self.data, new_of)
        else:
            _merge_batches(links, rank_of, new_of, order.sequential, start, stop)
        out = []
        i = 0
        while i != -1:
            out.append(sym[i])
            i = nxt[i]
        return out

    def _rank_or_none(self) -> Callable[[int, int], int | None]:
        """``rank_of(left, right)``: the rank that merges two adjacent symbols, or ``None``."""
        if self.by_bytes:
            get, data = self.token_rank.get, self.data
            return lambda x, y: get(data[x] + data[y])
        pget = self.pair_rank.get
        return lambda x, y: pget(x * SHIFT + y)


Links = tuple[list[int], list[int], list[int], list[int], list[int], int]
"""``(sym, nxt, prv, rk, heap, shift)``: a word as a linked list with a heap of ``rank << shift | position``."""


def _merge_single(
    links: Links, token_get: Callable[[bytes], int | None], data: Sequence[bytes], new_of: list[int]
) -> None:
    """tiktoken byte semantics, ``rank`` order: merge the lowest current heap entry, one at a time (in place).

    Two adjacent tokens merge at the rank of the token their bytes spell
    (``token_get(data[x] + data[y])``, looked up inline: this is the hot loop of
    long pieces).
    """
    sym, nxt, prv, rk, heap, shift = links
    mask = (1 << shift) - 1
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        key = pop(heap)
        i = key & mask
        r = key >> shift
        if rk[i] != r:
            continue  # stale: the pair at i changed since
        j = nxt[i]
        k = nxt[j]
        new = new_of[r]
        sym[i] = new
        rk[j] = INF
        nxt[i] = k
        rr = None
        if k >= 0:
            prv[k] = i
            rr = token_get(data[new] + data[sym[k]])
        if rr is None:
            rk[i] = INF
        else:
            rk[i] = rr
            push(heap, rr << shift | i)
        p = prv[i]
        if p >= 0:
            rr = token_get(data[sym[p]] + data[new])
            if rr is None:
                rk[p] = INF
            elif rr != rk[p]:
                rk[p] = rr
                push(heap, rr << shift | p)


def _merge_batches(
    links: Links, rank_of: Callable[[int, int], int | None], new_of: list[int], sequential: bool, start: int, stop: int
) -> None:
    """Pair semantics or ``sequential`` order: pop a whole rank, merge its occurrences left to right (in place)."""
    sym, nxt, prv, rk, heap, shift = links
    mask = (1 << shift) - 1
    pop = heapq.heappop
    last = start - 1
    while heap:
        r = heap[0] >> shift
        if sequential and r >= stop:
            break
        batch = []
        while heap and heap[0] >> shift == r:
            batch.append(pop(heap) & mask)
        if sequential and r <= last:
            continue
        new = new_of[r]
        joined = []
        for i in batch:  # ascending positions: left to right, an overlapped one is no longer current
            if rk[i] != r:
                continue
            j = nxt[i]
            k = nxt[j]
            sym[i] = new
            rk[i] = rk[j] = INF
            nxt[i] = k
            if k >= 0:
                prv[k] = i
            joined.append(i)
        last = r
        for i in joined:
            _rerank(links, prv[i], rank_of)
            _rerank(links, i, rank_of)


def _rerank(links: Links, i: int, rank_of: Callable[[int, int], int | None]) -> None:
    """Look up the rank of the pair at position ``i`` again; push it when it changed."""
    if i < 0:
        return
    sym, nxt, _prv, rk, heap, shift = links
    j = nxt[i]
    r = rank_of(sym[i], sym[j]) if j >= 0 else None
    if r is None:
        rk[i] = INF
    elif r != rk[i]:
        rk[i] = r
        heapq.heappush(heap, r << shift | i)


def _pick(
    walk: Walk,
    sequential: bool,
    single: bool,
    last: int,
    stop: int,
    dropout: float,
    rng: random.Random | None,
) -> tuple[int | None, list[int], tuple[Candidate, ...]]:
    """The next step of :meth:`RuleApplier.run`: ``(rank, sites, skipped candidates)``, rank ``None`` at the end.

    Candidates come off the heap lowest rank first, left to right; with
    dropout each is skipped with probability ``dropout`` and the first rank
    with a merge left fires. Skipped candidates go back on the heap (rank
    order) for the next step.
    """
    aside: list[int] = []
    while True:
        if single:
            i = walk.pop_one()
            if i is None:
                break
            rank = walk.rk[i]
            if dropout and rng.random() < dropout:  # type: ignore[union-attr]
                aside.append(i)
                continue
            sites = [i]
        else:
            rank = walk.lowest()
            if rank is None or (sequential and rank >= stop):
                break
            found = walk.pop_rank(rank)
            if sequential and rank <= last:
                continue
            if dropout:
                kept: list[int] = []
                for i in found:
                    (aside if rng.random() < dropout else kept).append(i)  # type: ignore[union-attr]
                found = kept
            if not found:
                continue
            sites = _apart(found, walk.nxt)
        skipped = walk.candidates(aside) if aside else ()
        if aside and not sequential:
            walk.push_back(aside)
        return rank, sites, skipped
    return None, [], walk.candidates(aside)


def _apart(positions: list[int], nxt: list[int]) -> list[int]:
    """Ascending ``positions`` without overlaps, left to right (``x x x``: the first pair, not the second)."""
    out = [positions[0]]
    for i in positions[1:]:
        if i != nxt[out[-1]]:
            out.append(i)
    return out


def _made_before_use(merge_ids: Sequence[tuple[int, int, int]], size: int) -> bool:
    """True when every rule that uses a token ranks after every rule that makes it (ids below ``size``).

    Tables learned by BPE training (and GPT-2's) are like this: a rule can
    only name tokens that exist. Hand-made tables whose two rules make the same
    token may not be.
    """
    first_use = [INF] * size
    for rank in range(len(merge_ids) - 1, -1, -1):  # backwards: the lowest rank is written last
        a, b, _new = merge_ids[rank]
        first_use[a] = first_use[b] = rank
    return all(first_use[new] > rank for rank, (_a, _b, new) in enumerate(merge_ids))


def _rank_pairs(syms: list[int], rows: list[dict[int, int]], new_of: list[int], inf: int = INF) -> list[int]:
    """Pair semantics, ``rank`` order, no trace: the loop of :meth:`RuleApplier._merge_short` cut to the bone.

    ``syms`` (two symbols or more) is merged in place and returned;
    ``ranks[i]`` is the rank of ``(syms[i], syms[i + 1])``, looked up as
    ``rows[left].get(right)``. The general loop merges every occurrence of the
    lowest rank in one pass; here each pass merges only the leftmost one and
    the next pass finds the lowest rank again. That is the same thing when
    every rule using a token ranks after the rules making it
    (:func:`_made_before_use`, checked by the caller): the two new pairs next
    to a merge then rank higher than the rule just applied, so the next
    lowest rank is that rule again as long as occurrences are left, and
    ``list.index`` finds the next one to the right (the overlapping one, if
    any, was just overwritten). ``inf`` is a default argument so that it is a
    local variable (the cheapest lookup in CPython).
    """
    ranks = [rows[x].get(y, inf) for x, y in zip(syms, islice(syms, 1, None))]
    best = min(ranks)
    while best != inf:
        new = new_of[best]
        i = ranks.index(best)
        syms[i] = new
        del syms[i + 1]
        del ranks[i]
        if i:
            ranks[i - 1] = rows[syms[i - 1]].get(new, inf)
        if i < len(ranks):
            ranks[i] = rows[new].get(syms[i + 1], inf)
        if not ranks:
            break
        best = min(ranks)
    return syms


def _rank_bytes(
    syms: list[int], token_get: Callable[[bytes, int], int], data: list[bytes], new_of: list[int], inf: int = INF
) -> list[int]:
    """Byte semantics, ``rank`` order, no trace: tiktoken's ``_byte_pair_merge`` on a list.

    Two adjacent tokens merge when their bytes concatenate to a token, at that
    token's rank, the leftmost lowest rank first and one merge at a time.
    ``syms`` (two symbols or more) is merged in place and returned.
    """
    ranks = [token_get(data[x] + data[y], inf) for x, y in zip(syms, islice(syms, 1, None))]
    best = min(ranks)
    while best != inf:
        new = new_of[best]
        i = ranks.index(best)
        syms[i] = new
        del syms[i + 1]
        del ranks[i]
        if i:
            ranks[i - 1] = token_get(data[syms[i - 1]] + data[new], inf)
        if i < len(ranks):
            ranks[i] = token_get(data[new] + data[syms[i + 1]], inf)
        if not ranks:
            break
        best = min(ranks)
    return syms

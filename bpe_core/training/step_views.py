"""Per-step views of a training run, rebuilt on demand from what training recorded.

:class:`StepViews` is the query object of a :class:`~bpe_core.training.result.TrainResult`
(``result.views``): every step's view (top pairs, tied pairs with their tie
keys, rewritten words, segmentations) is rebuilt from the compact log
(:mod:`bpe_core.training.recorder`), the pair counts from the nearest snapshot plus the
changes since, the words from the corpus layout. What it keeps between calls is
held in explicit bounded caches (:class:`BoundedCache`), dropped when pickled.
A new per-step figure reads these queries, not the log.
"""

from __future__ import annotations

import heapq
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar, overload

from ..registry.tie_rules import FirstSeen, tie_rule
from ..text.symbols import SHIFT
from ..trace import MergeStep, MergeSummary, Pair, TrainConfig, WordChange
from . import ranking
from .recorder import MergeLog, TraceLog, gone_marker

if TYPE_CHECKING:
    from ..encoding.encoder import Tokenizer

WORD_TRACE_LIMIT = 64
"""Words longer than this (in tokens, after the merge) are shown as excerpts in ``MergeStep.words``."""

EXCERPT_BEFORE = 8
"""An excerpt starts this many tokens before the word's first merge site ..."""

EXCERPT_LEN = 32
"""... and holds this many tokens."""

STEP_CACHE = 64
"""How many built :class:`MergeStep` objects :attr:`StepViews.steps` keeps."""

COUNT_CACHE = 2
"""How many rebuilt pair-count tables (and ``first_seen`` places) a :class:`StepViews` keeps."""


class Run(Protocol):
    """What the queries read of a run: the fields of :class:`bpe_core.training.result.TrainResult` (which satisfies
    it)."""

    config: TrainConfig
    merges: list[Pair]
    words: tuple[tuple[str, int], ...]
    symbol_strings: tuple[str, ...]
    hf_ranks: tuple[int, ...]
    log: MergeLog
    tokenizer: Tokenizer

    @property
    def num_merges(self) -> int: ...
    @property
    def summaries(self) -> tuple[MergeSummary, ...]: ...
    def tokens_at(self, k: int) -> int: ...


K = TypeVar("K")
V = TypeVar("V")


class BoundedCache(Generic[K, V]):
    """A least-recently-used mapping of at most ``size`` entries.

    Safe to share between threads for what it holds (values derived from a
    frozen run, the same whoever builds them first): a lost race builds a
    value twice, never a wrong one.

    Args:
        size: how many entries to keep, at least 1.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: K) -> V | None:
        """The value kept for ``key`` (now the most recently used), or ``None``."""
        value = self._items.get(key)
        if value is not None:
            try:
                self._items.move_to_end(key)
            except KeyError:  # another thread evicted it meanwhile (the app shares one result between sessions)
                pass
        return value

    def put(self, key: K, value: V) -> V:
        """Keep ``value`` for ``key``, dropping the least recently used entry past :attr:`size`; return ``value``."""
        self._items.pop(key, None)  # (re)inserted at the end: the most recently used
        self._items[key] = value
        while len(self._items) > self.size:
            try:
                self._items.popitem(last=False)
            except KeyError:  # emptied by another thread
                break
        return value

    def get_or_build(self, key: K, build: Callable[[K], V]) -> V:
        """The value kept for ``key``, else ``build(key)``, kept."""
        value = self.get(key)
        return self.put(key, build(key)) if value is None else value


class Steps(Sequence[MergeStep]):
    """The merge steps of a run as a read-only sequence; each is built when first read.

    Indexing, slicing, ``len`` and iteration work as on a list; the last
    :data:`STEP_CACHE` steps read are kept (by the :class:`StepViews` it reads).
    """

    def __init__(self, views: StepViews) -> None:
        self._views = views

    def __len__(self) -> int:
        return self._views.result.num_merges

    @overload
    def __getitem__(self, k: int) -> MergeStep: ...
    @overload
    def __getitem__(self, k: slice) -> list[MergeStep]: ...
    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        n = len(self)
        if not isinstance(k, int) or not -n <= k < n:
            raise IndexError(f"step {k!r} is out of range for {n} merges")
        return self._views.step(k % n)

    def __iter__(self) -> Iterator[MergeStep]:
        return (self[k] for k in range(len(self)))

    def __eq__(self, other: object) -> bool:
        return list(self) == list(other) if isinstance(other, (Steps, list, tuple)) else NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<{len(self)} merge steps>"


class StepViews:
    """The per-step queries of one training run, with their caches.

    Made once per result (``result.views``); the result's own per-step
    methods (``result.pair_counts_at``, ``result.steps``...) answer from it.
    It only reads the result, so one object serves every thread and session.

    Args:
        result: the :class:`~bpe_core.training.result.TrainResult` to answer for.
    """

    def __init__(self, result: Run) -> None:
        self.result = result
        self._steps: BoundedCache[int, MergeStep] = BoundedCache(STEP_CACHE)
        self._counts: BoundedCache[int, dict[int, int]] = BoundedCache(COUNT_CACHE)
        self._seen: BoundedCache[int, dict[tuple[int, int], FirstSeen]] = BoundedCache(COUNT_CACHE)

    def __getstate__(self) -> dict[str, object]:
        return {"result": self.result}  # the caches are rebuilt on demand, not pickled

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__init__(state["result"])  # type: ignore[misc, arg-type]

    # ------------------------------------------------------------------ steps

    @cached_property
    def steps(self) -> Steps:
        """One :class:`~bpe_core.trace.MergeStep` per merge, built when read (see :class:`Steps`)."""
        return Steps(self)

    def step(self, k: int) -> MergeStep:
        """Merge ``k``'s full record, built once and kept among the last :data:`STEP_CACHE` read.

        Args:
            k: the merge rank, ``0 <= k < num_merges`` (not checked: :class:`Steps` checks).
        """
        return self._steps.get_or_build(k, self._build_step)

    # ------------------------------------------------------------------ pair counts

    def _trace(self, what: str = "pair counts") -> TraceLog:
        trace = self.result.log.trace
        if trace is None:
            raise ValueError(f"{what} were not recorded: train with trace=True")
        return trace

    def _count_table(self, k: int) -> dict[int, int]:
        """Pair key -> count after ``k`` merges; the last :data:`COUNT_CACHE` tables asked for are kept."""
        return self._counts.get_or_build(k, lambda k: self._trace().counts_at(k))

    def num_pairs_at(self, k: int) -> int:
        """How many distinct adjacent pairs the corpus holds after ``k`` merges (just before merge ``k``).

        The length of :meth:`pair_counts_at` ``(k, by_id=True)``: the
        denominator for "top 10 of N pairs".

        Raises:
            ValueError: ``k`` out of range, or the run was made with ``trace=False``.
        """
        check_step(self.result, k)
        return len(self._count_table(k))

    def pair_counts_at(self, k: int, *, by_id: bool = False) -> dict:
        """Rebuild the full pair-count table after ``k`` merges, i.e. just before merge ``k``.

        Args:
            k: 0 for the initial counts, up to ``num_merges`` for the final ones.
            by_id: key the table by symbol ids ``(left_id, right_id)`` instead
                of display strings. Two different symbols can share a display
                string only when the corpus spells the end-of-word marker
                ``</w>`` literally (the four characters merged into one token,
                next to the real marker); the id-keyed table keeps such pairs
                apart, while the string-keyed one adds their counts together.

        Returns:
            ``{(left, right): count}`` for every pair present, highest count first
            (ties in no particular order; use ``steps[k].tied`` for the tie order).

        Raises:
            ValueError: ``k`` out of range, or the run was made with ``trace=False``.
        """
        check_step(self.result, k)
        items = sorted(self._count_table(k).items(), key=lambda kv: -kv[1])
        if by_id:
            return {divmod(key, SHIFT): c for key, c in items}
        s = self.result.symbol_strings
        out: dict[Pair, int] = {}
        for key, c in items:
            pair = (s[key // SHIFT], s[key % SHIFT])
            out[pair] = out.get(pair, 0) + c
        return out

    def pair_count_at(self, k: int, pair: Pair) -> int:
        """The count of one pair (display strings) after ``k`` merges: ``pair_counts_at(k).get(pair, 0)``
        without sorting the whole table.

        Raises:
            ValueError: ``k`` out of range, or the run was made with ``trace=False``.
        """
        check_step(self.result, k)
        s = self.result.symbol_strings
        left, right = pair
        return sum(c for key, c in self._count_table(k).items() if s[key // SHIFT] == left and s[key % SHIFT] == right)

    # ------------------------------------------------------------------ ties

    def tied_at(self, k: int) -> list[Pair]:
        """Every pair that had the winning count before merge ``k``, winner first, then in tie-rule order.

        ``steps[k].tied`` keeps the first ``max_tied`` of them (see
        :func:`bpe_core.train`), ``steps[k].num_tied`` counts them all; this
        gives the whole list, ordered by the run's tie rule
        (:mod:`bpe_core.registry.tie_rules`): ``first_seen`` by where each pair first
        occurs when the distinct words are scanned in order, each left to
        right, as segmented after ``k`` merges; the other rules compare the
        pair's strings or Hugging Face ids.

        Args:
            k: the merge rank, ``0 <= k < num_merges``.

        Returns:
            ``[(left, right), ...]`` with ``len == steps[k].num_tied``.

        Raises:
            ValueError: ``k`` out of range, or the run was made with ``trace=False``.
        """
        check_merge(self.result, k)
        s = self.result.symbol_strings
        return [(s[a], s[b]) for a, b in self._ranked(k, self.result.log.counts[k])[0]]

    def ties_at(self, k: int) -> list[tuple[Pair, str]]:
        """Every tied pair before merge ``k`` with its tie key, in :meth:`tied_at` order.

        ``steps[k].tie_keys`` describes the first ``max_tied`` of them; this
        describes all (``"first seen in word 3 'newer' at offset 3"``, or the
        strings or ids the rule compared).

        Raises:
            ValueError: ``k`` out of range, or the run was made with ``trace=False``.
        """
        r = self.result
        check_merge(r, k)
        ordered, seen = self._ranked(k, r.log.counts[k])
        s, hf, rule = r.symbol_strings, r.hf_ranks, tie_rule(r.config.tie_break)
        return [((s[a], s[b]), rule.describe(s, hf, a, b, seen.get((a, b)))) for a, b in ordered]

    def tied_lists(self, limit: int | None = None) -> list[list[Pair]]:
        """Every merge's tied pairs, winner first in tie-rule order: ``tied_at(k)[:limit]`` for each ``k``.

        Built in one pass over the recorded count changes, with the pairs of each
        count kept in a heap ordered by the tie rule (for ``first_seen``, by first
        place, kept as the run is replayed once on the corpus layout): listing a
        whole run costs about as much as training it, whatever the number of
        ties (see :func:`bpe_core.training.ranking.tied_lists`). The command line lists runs this way.

        Args:
            limit: keep at most this many pairs per merge (``max_tied`` gives ``steps[k].tied``).

        Returns:
            One list per merge; ``[merges[k]]`` where no pair shared the winning
            count, and for every merge of a run made with ``trace=False``.
        """
        r = self.result
        if r.log.trace is None:
            return [[pair] for pair in r.merges]
        s = r.symbol_strings
        rule = tie_rule(r.config.tie_break)
        num_tied = [summary.num_tied for summary in r.summaries]
        lists = ranking.tied_lists(r.log, num_tied, rule, s, r.hf_ranks, limit)
        return [[(s[a], s[b]) for a, b in pairs] for pairs in lists]

    def _ranked(self, k: int, floor: int) -> tuple[list[tuple[int, int]], dict[tuple[int, int], FirstSeen]]:
        """The pairs counting at least ``floor`` before merge ``k``, best first by count then tie rule.

        Returns the ordered id pairs and, for ``first_seen``, where each was first seen.
        """
        r = self.result
        counts = self._count_table(k)
        pairs = [divmod(key, SHIFT) for key, c in counts.items() if c >= floor]
        rule = tie_rule(r.config.tie_break)
        seen: dict[tuple[int, int], FirstSeen] = {}
        if rule.positional:
            known = self._seen.get(k) or {}
            missing = [pair for pair in pairs if pair not in known]
            seen = self._seen.put(k, {**known, **self.first_seen(missing, k)})
        pair_key = None if rule.positional else rule.pair_key(self._symbol_keys)
        by_count: dict[int, list[tuple[int, int]]] = {}
        for pair in pairs:
            by_count.setdefault(counts[pair[0] * SHIFT + pair[1]], []).append(pair)
        ordered = []
        for c in sorted(by_count, reverse=True):
            ordered += rule.order(by_count[c], r.symbol_strings, r.hf_ranks, seen, pair_key)
        return ordered, seen

    @cached_property
    def _symbol_keys(self) -> list[object]:
        """Id -> a static tie rule's per-symbol key, computed once."""
        r = self.result
        rule = tie_rule(r.config.tie_break)
        return [] if rule.positional else [rule.symbol_key(s, h) for s, h in zip(r.symbol_strings, r.hf_ranks)]

    @cached_property
    def _born(self) -> dict[int, int]:
        """Merged token id -> the merge that made it (base symbols are absent)."""
        return {new: k for k, (_a, _b, new) in enumerate(self.result.log.merge_ids)}

    def first_seen(self, pairs: list[tuple[int, int]], k: int) -> dict[tuple[int, int], FirstSeen]:
        """Where each id pair of ``pairs`` first occurs after ``k`` merges, words in corpus order, each left to right.

        One walk over the corpus layout after ``k`` merges that stops once every
        pair is found, reading only the words that can hold them (see
        :func:`bpe_core.training.ranking.first_places`): at most the whole layout once,
        however repetitive the text. This is the ``first_seen`` tie rule's key.

        Returns:
            ``{(left_id, right_id): FirstSeen}`` for every pair asked for.

        Raises:
            AssertionError: a pair that does not occur after ``k`` merges (a caller's bug).
            ValueError: the run was made with ``trace=False``.
        """
        if not pairs:
            return {}
        r = self.result
        layout = self._trace().layout
        wanted = {a * SHIFT + b for a, b in pairs}
        words = ranking.candidate_words(pairs, self._born, r.log)
        found = ranking.first_places(layout, words, wanted, k)
        missing = wanted - found.keys()
        if missing:
            raise AssertionError(
                f"pairs {sorted(map(lambda key: divmod(key, SHIFT), missing))[:5]} are not in the "
                f"corpus after {k} merges"
            )
        out = {}
        for key, slot in found.items():
            w = layout.word_of(slot)
            out[divmod(key, SHIFT)] = FirstSeen(w, r.words[w][0], slot - layout.starts[w], slot)
        return out

    # ------------------------------------------------------------------ words

    def segmentation(self, word: int, k: int) -> tuple[str, ...]:
        """How word number ``word`` (an index into ``words``) is cut after ``k`` merges.

        Exactly what training did to it: the first ``k`` rules of the merge
        table applied to the word's base symbols, each rule on all its
        occurrences in learned order (Sennrich et al. 2016, Algorithm 1). Read
        from the recorded layout, or replayed by the tokenizer for a run made
        with ``trace=False``. Symbols are told apart by id, so a literal ``</w>``
        typed in the corpus is never taken for the end-of-word marker.

        Args:
            word: an index into :attr:`TrainResult.words`.
            k: how many merges, ``0 <= k <= num_merges``.

        Returns:
            The word's tokens as display strings, left to right.

        Raises:
            ValueError: ``k`` or ``word`` out of range.
        """
        r = self.result
        check_step(r, k)
        if not isinstance(word, int) or not 0 <= word < len(r.words):
            raise ValueError(f"word index {word!r} is out of range 0..{len(r.words) - 1}")
        strings = r.symbol_strings
        trace = r.log.trace
        if trace is None:
            ids: Sequence[int] = r.tokenizer.model.replay_ids(r.words[word][0], k)
        else:
            ids = trace.layout.word_tokens(word, k)
        return tuple(strings[i] for i in ids)

    def word_changes(self, k: int, limit: int | None = None) -> list[WordChange]:
        """Every word that merge ``k`` rewrote, in corpus order, whole.

        ``steps[k].words`` keeps only the most frequent few; this gives all
        of them (or the first ``limit``) with whole-word segmentations.

        Args:
            k: the merge rank, ``0 <= k < num_merges``.
            limit: at most this many words (``None``: all).

        Returns:
            One :class:`~bpe_core.trace.WordChange` per rewritten word, in corpus
            order, with the whole word's ``before``/``after`` tokens.

        Raises:
            ValueError: ``k`` out of range (``0 <= k < num_merges``), or the
                run was made with ``trace=False``.
        """
        r = self.result
        check_merge(r, k)
        trace = self._trace("rewritten words")
        a, b, new = r.log.merge_ids[k]
        strings, layout = r.symbol_strings, trace.layout
        out = []
        for w in trace.rewritten(k)[:limit]:
            before = layout.word_tokens(w, k)
            after = _merge_ids(before, a, b, new)
            out.append(
                WordChange(
                    word=r.words[w][0],
                    freq=r.words[w][1],
                    before=tuple(strings[i] for i in before),
                    after=tuple(strings[i] for i in after),
                    merged_at=tuple(i for i, t in enumerate(after) if t == new),
                    excerpt=False,
                    occurrences=len(before) - len(after),
                    before_ids=tuple(before),
                    after_ids=tuple(after),
                )
            )
        return out

    # ------------------------------------------------------------------ one step, built on demand

    def _build_step(self, k: int) -> MergeStep:
        """Merge ``k``'s full record (what :attr:`steps` hands out)."""
        r = self.result
        log, s = r.log, r.symbol_strings
        a, b, new = log.merge_ids[k]
        pair = r.merges[k]
        top_pairs: tuple = ()
        tied: tuple = (pair,)
        keys: tuple = ()
        num_tied = num_words = 0
        words: tuple = ()
        if log.trace is not None:
            top_pairs, tied, keys, num_tied = self._pair_view(k, log.trace)
            rewritten = log.trace.rewritten(k)
            num_words = len(rewritten)
            words = tuple(self._shown_change(w, k) for w in self._most_frequent(rewritten, log.trace.trace_words))
        return MergeStep(
            rank=k,
            pair=pair,
            token=s[new],
            token_id=new,
            count=log.counts[k],
            replacements=log.replaced[k],
            tied=tied,
            tie_keys=keys,
            num_tied=num_tied or 1,
            tie_break=r.config.tie_break,
            top_pairs=top_pairs,
            words=words,
            num_words=num_words,
            tokens_after=r.tokens_at(k + 1),
            vocab_size_after=log.base_size + k + 1,
        )

    def _pair_view(self, k: int, trace: TraceLog) -> tuple[tuple, tuple, tuple, int]:
        """``(top_pairs, tied, tie_keys, num_tied)`` of merge ``k``, as the trainer ranks pairs."""
        r = self.result
        counts = self._count_table(k)
        best = r.log.counts[k]
        values = counts.values()
        num_tied = list(values).count(best)
        floor = heapq.nlargest(trace.top_k, values)[-1]
        ordered, seen = self._ranked(k, min(floor, best))
        s, hf = r.symbol_strings, r.hf_ranks
        rule = tie_rule(r.config.tie_break)
        top = tuple(((s[a], s[b]), counts[a * SHIFT + b]) for a, b in ordered[: trace.top_k])
        shown = ordered[: min(num_tied, trace.max_tied)]
        tied = tuple((s[a], s[b]) for a, b in shown)
        keys = tuple(rule.describe(s, hf, a, b, seen.get((a, b))) for a, b in shown)
        return top, tied, keys, num_tied

    def _most_frequent(self, rewritten: Sequence[int], limit: int) -> list[int]:
        """The ``limit`` most frequent of ``rewritten`` (corpus order among equals)."""
        words = self.result.words
        return sorted(rewritten, key=lambda w: -words[w][1])[:limit]

    def _shown_change(self, w: int, k: int) -> WordChange:
        """Word ``w`` as merge ``k`` rewrote it: whole, or an excerpt around its first merge site if long."""
        r = self.result
        layout = self._trace().layout
        a, b, new = r.log.merge_ids[k]
        start, end = layout.starts[w], layout.starts[w + 1]
        gone = gone_marker(k)
        shown = layout.tokens(start, end, k + 1, WORD_TRACE_LIMIT + 1)
        excerpt = len(shown) > WORD_TRACE_LIMIT
        if excerpt:
            site = layout.live_before(layout.final.index(gone, start, end), start, k + 1, 1)
            shown = layout.tokens(layout.live_before(site, start, k + 1, EXCERPT_BEFORE), end, k + 1, EXCERPT_LEN)
        after = [t for _p, t in shown]
        s = r.symbol_strings
        before: list[int] = []
        for t in after:
            before += (a, b) if t == new else (t,)
        return WordChange(
            word=r.words[w][0],
            freq=r.words[w][1],
            before=tuple(s[t] for t in before),
            after=tuple(s[t] for t in after),
            merged_at=tuple(i for i, t in enumerate(after) if t == new),
            excerpt=excerpt,
            occurrences=layout.final[start:end].count(gone),
            before_ids=tuple(before),
            after_ids=tuple(after),
        )


def check_step(result: Run, k: int) -> None:
    """Refuse a step count outside ``0..num_merges``.

    Raises:
        ValueError: ``k`` is not an int in range.
    """
    if not isinstance(k, int) or not 0 <= k <= len(result.merges):
        raise ValueError(f"step {k!r} is out of range 0..{len(result.merges)}")


def check_merge(result: Run, k: int) -> None:
    """Refuse a merge rank outside ``0..num_merges - 1``.

    Raises:
        ValueError: ``k`` is not an int in range.
    """
    if not isinstance(k, int) or not 0 <= k < len(result.merges):
        raise ValueError(f"merge {k!r} is out of range 0..{len(result.merges) - 1}")


def _merge_ids(ids: Sequence[int], a: int, b: int, new: int) -> list[int]:
    """Replace every ``a b`` in ``ids`` by ``new``, left to right without overlap."""
    out = []
    i, n = 0, len(ids)
    while i < n:
        if i + 1 < n and ids[i] == a and ids[i + 1] == b:
            out.append(new)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out

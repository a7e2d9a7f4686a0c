"""The result of a training run: merge table, vocabulary, tokenizer and a trace computed on demand.

Training keeps a compact log (:mod:`bpe_core.recorder`); every step's view
(top pairs, tied pairs with their tie keys, rewritten words) is rebuilt from it
when asked: the pair counts from the nearest snapshot plus the changes since,
the words from the corpus layout. :attr:`TrainResult.steps` is a lazy sequence
of :class:`~bpe_core.trace.MergeStep` built that way, a bounded number cached.
"""

from __future__ import annotations

import heapq
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import accumulate
from typing import TYPE_CHECKING, overload

from . import ranking
from .recorder import MergeLog, TraceLog, gone_marker
from .symbols import SHIFT
from .tiebreak import FirstSeen, tie_rule
from .trace import MergeStep, MergeSummary, Pair, TrainConfig, WordChange

if TYPE_CHECKING:
    from .encoder import Tokenizer

WORD_TRACE_LIMIT = 64
"""Words longer than this (in tokens, after the merge) are shown as excerpts in ``MergeStep.words``."""

EXCERPT_BEFORE = 8
"""An excerpt starts this many tokens before the word's first merge site ..."""

EXCERPT_LEN = 32
"""... and holds this many tokens."""

STEP_CACHE = 64
"""How many built :class:`MergeStep` objects :attr:`TrainResult.steps` keeps."""


class Steps(Sequence[MergeStep]):
    """The merge steps of a run as a read-only sequence; each is built when first read.

    Indexing, slicing, ``len`` and iteration work as on a list; the last
    :data:`STEP_CACHE` steps read are kept.
    """

    def __init__(self, result: TrainResult) -> None:
        self._result = result
        self._cache: OrderedDict[int, MergeStep] = OrderedDict()

    def __len__(self) -> int:
        return self._result.num_merges

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
        k %= n
        step = self._cache.get(k)
        if step is None:
            step = self._cache[k] = self._result._build_step(k)
            if len(self._cache) > STEP_CACHE:
                self._cache.popitem(last=False)
        else:
            try:
                self._cache.move_to_end(k)
            except KeyError:  # another thread evicted it meanwhile (the app shares one result between sessions)
                pass
        return step

    def __iter__(self) -> Iterator[MergeStep]:
        return (self[k] for k in range(len(self)))

    def __eq__(self, other: object) -> bool:
        return list(self) == list(other) if isinstance(other, (Steps, list, tuple)) else NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<{len(self)} merge steps>"


@dataclass(frozen=True)
class TrainResult:
    """Everything :func:`bpe_core.train` learned and recorded.

    Attributes:
        config: the settings used.
        merges: the merge table, ``[(left, right), ...]`` in rank order.
        vocab: token string -> id (special tokens, base alphabet, merges; if two
            ids share a string the first keeps it).
        tokenizer: a :class:`~bpe_core.encoder.Tokenizer` for this merge table.
        alphabet: the base symbols (after the special tokens), in id order.
        words: the distinct pre-tokens with their frequencies, in corpus order.
        initial_tokens: corpus length in tokens before any merge (weighted).
        num_chars: corpus length in characters, counted over the pre-tokens
            (whitespace dropped by a whitespace pre-tokenizer is not counted).
        num_bytes: the same in UTF-8 bytes.
        text_chars: the whole corpus text's length in characters (whitespace
            and special tokens included; equals ``num_chars`` for a mapping):
            the fair denominator for characters per token across pre-tokenizers.
        text_bytes: the same in UTF-8 bytes.
        stop_reason: why fewer merges than requested were learned, else ``None``.
        symbol_strings: id -> token string for every id (duplicates kept).
        hf_ranks: id -> the id Hugging Face ``BpeTrainer`` gives it (the
            ``hf_tokenizers`` tie rule compares these).
        log: what training recorded (:class:`~bpe_core.recorder.MergeLog`).
    """

    config: TrainConfig
    merges: list[Pair]
    vocab: dict[str, int]
    tokenizer: Tokenizer
    alphabet: tuple[str, ...]
    words: tuple[tuple[str, int], ...]
    initial_tokens: int
    num_chars: int
    num_bytes: int
    text_chars: int
    text_bytes: int
    stop_reason: str | None
    symbol_strings: tuple[str, ...]
    hf_ranks: tuple[int, ...]
    log: MergeLog

    # ------------------------------------------------------------------ whole-run views

    @cached_property
    def steps(self) -> Steps:
        """One :class:`~bpe_core.trace.MergeStep` per merge, built when read (see :class:`Steps`)."""
        return Steps(self)

    @property
    def num_merges(self) -> int:
        """How many merges were learned."""
        return len(self.merges)

    @cached_property
    def summaries(self) -> tuple[MergeSummary, ...]:
        """Every merge's headline numbers (no top pairs or words): cheap to list for a whole run."""
        strings, log = self.symbol_strings, self.log
        tied = self._num_tied
        return tuple(
            MergeSummary(
                rank=k,
                pair=pair,
                token=strings[new],
                token_id=new,
                count=log.counts[k],
                replacements=log.replaced[k],
                num_tied=tied[k],
                tokens_after=self._tokens[k + 1],
                vocab_size_after=log.base_size + k + 1,
            )
            for k, (pair, (_a, _b, new)) in enumerate(zip(self.merges, log.merge_ids))
        )

    @cached_property
    def _tokens(self) -> list[int]:
        return list(accumulate(self.log.replaced, lambda total, r: total - r, initial=self.initial_tokens))

    @cached_property
    def _num_tied(self) -> list[int]:
        """How many pairs shared the winning count at each merge (one pass over the count changes)."""
        trace = self.log.trace
        if trace is None:
            return [1] * self.num_merges
        counts = trace.counts_at(0)
        hist: dict[int, int] = {}
        for c in counts.values():
            hist[c] = hist.get(c, 0) + 1
        out = []
        for k, best in enumerate(self.log.counts):
            out.append(hist.get(best, 1))
            for key, change in trace.changes(k):
                old = counts.get(key, 0)
                counts[key] = new = old + change
                if old:
                    hist[old] -= 1
                if new:
                    hist[new] = hist.get(new, 0) + 1
        return out

    # ------------------------------------------------------------------ per-step queries

    def _trace(self, what: str = "pair counts") -> TraceLog:
        trace = self.log.trace
        if trace is None:
            raise ValueError(f"{what} were not recorded: train with trace=True")
        return trace

    def tokens_at(self, k: int) -> int:
        """Corpus length in tokens after ``k`` merges, weighted by word frequency.

        Args:
            k: how many merges, ``0 <= k <= num_merges``.

        Returns:
            The token count (``initial_tokens`` for ``k == 0``).

        Raises:
            ValueError: ``k`` out of range.
        """
        self._check_step(k)
        return self._tokens[k]

    def num_pairs_at(self, k: int) -> int:
        """How many distinct adjacent pairs the corpus holds after ``k`` merges (just before merge ``k``).

        The length of :meth:`pair_counts_at` ``(k, by_id=True)``: the
        denominator for "top 10 of N pairs".

        Raises:
            ValueError: ``k`` out of range, or the run was made with ``trace=False``.
        """
        self._check_step(k)
        return len(self._counts(k))

    def _counts(self, k: int) -> dict[int, int]:
        """Pair key -> count after ``k`` merges; the last two tables asked for are kept."""
        memo = self.__dict__.setdefault("_count_memo", OrderedDict())
        counts = memo.get(k)
        if counts is None:
            counts = memo[k] = self._trace().counts_at(k)
            if len(memo) > 2:
                memo.popitem(last=False)
        return counts

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
        self._check_step(k)
        items = sorted(self._counts(k).items(), key=lambda kv: -kv[1])
        if by_id:
            return {divmod(key, SHIFT): c for key, c in items}
        s = self.symbol_strings
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
        self._check_step(k)
        s = self.symbol_strings
        left, right = pair
        return sum(c for key, c in self._counts(k).items() if s[key // SHIFT] == left and s[key % SHIFT] == right)

    def tied_at(self, k: int) -> list[Pair]:
        """Every pair that had the winning count before merge ``k``, winner first, then in tie-rule order.

        ``steps[k].tied`` keeps the first ``max_tied`` of them (see
        :func:`bpe_core.train`), ``steps[k].num_tied`` counts them all; this
        gives the whole list, ordered by the run's tie rule
        (:mod:`bpe_core.tiebreak`): ``first_seen`` by where each pair first
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
        self._check_merge(k)
        s = self.symbol_strings
        return [(s[a], s[b]) for a, b in self._ranked(k, self.log.counts[k])[0]]

    def ties_at(self, k: int) -> list[tuple[Pair, str]]:
        """Every tied pair before merge ``k`` with its tie key, in :meth:`tied_at` order.

        ``steps[k].tie_keys`` describes the first ``max_tied`` of them; this
        describes all (``"first seen in word 3 'newer' at offset 3"``, or the
        strings or ids the rule compared).

        Raises:
            ValueError: ``k`` out of range, or the run was made with ``trace=False``.
        """
        self._check_merge(k)
        ordered, seen = self._ranked(k, self.log.counts[k])
        s, hf, rule = self.symbol_strings, self.hf_ranks, tie_rule(self.config.tie_break)
        return [((s[a], s[b]), rule.describe(s, hf, a, b, seen.get((a, b)))) for a, b in ordered]

    def tied_lists(self, limit: int | None = None) -> list[list[Pair]]:
        """Every merge's tied pairs, winner first in tie-rule order: ``tied_at(k)[:limit]`` for each ``k``.

        Built in one pass over the recorded count changes, with the pairs of each
        count kept in a heap ordered by the tie rule (for ``first_seen``, by first
        place, kept as the run is replayed once on the corpus layout): listing a
        whole run costs about as much as training it, whatever the number of
        ties (see :func:`bpe_core.ranking.tied_lists`). The command line lists runs this way.

        Args:
            limit: keep at most this many pairs per merge (``max_tied`` gives ``steps[k].tied``).

        Returns:
            One list per merge; ``[merges[k]]`` where no pair shared the winning
            count, and for every merge of a run made with ``trace=False``.
        """
        if self.log.trace is None:
            return [[pair] for pair in self.merges]
        s = self.symbol_strings
        rule = tie_rule(self.config.tie_break)
        lists = ranking.tied_lists(self.log, self._num_tied, rule, s, self.hf_ranks, limit)
        return [[(s[a], s[b]) for a, b in pairs] for pairs in lists]

    def _ranked(self, k: int, floor: int) -> tuple[list[tuple[int, int]], dict[tuple[int, int], FirstSeen]]:
        """The pairs counting at least ``floor`` before merge ``k``, best first by count then tie rule.

        Returns the ordered id pairs and, for ``first_seen``, where each was first seen.
        """
        counts = self._counts(k)
        pairs = [divmod(key, SHIFT) for key, c in counts.items() if c >= floor]
        rule = tie_rule(self.config.tie_break)
        seen: dict[tuple[int, int], FirstSeen] = {}
        if rule.positional:
            memo = self.__dict__.setdefault("_seen_memo", OrderedDict())
            known = memo.pop(k, {})
            missing = [pair for pair in pairs if pair not in known]
            memo[k] = seen = {**known, **self._first_seen(missing, k)}
            if len(memo) > 2:
                memo.popitem(last=False)
        pair_key = None if rule.positional else rule.pair_key(self._symbol_keys)
        by_count: dict[int, list[tuple[int, int]]] = {}
        for pair in pairs:
            by_count.setdefault(counts[pair[0] * SHIFT + pair[1]], []).append(pair)
        ordered = []
        for c in sorted(by_count, reverse=True):
            ordered += rule.order(by_count[c], self.symbol_strings, self.hf_ranks, seen, pair_key)
        return ordered, seen

    @cached_property
    def _symbol_keys(self) -> list[object]:
        """Id -> a static tie rule's per-symbol key, computed once (kept as a list: results are pickled)."""
        rule = tie_rule(self.config.tie_break)
        return [] if rule.positional else [rule.symbol_key(s, r) for s, r in zip(self.symbol_strings, self.hf_ranks)]

    @cached_property
    def _born(self) -> dict[int, int]:
        """Merged token id -> the merge that made it (base symbols are absent)."""
        return {new: k for k, (_a, _b, new) in enumerate(self.log.merge_ids)}

    def _first_seen(self, pairs: list[tuple[int, int]], k: int) -> dict[tuple[int, int], FirstSeen]:
        """Where each of ``pairs`` first occurs after ``k`` merges, words in corpus order, each left to right.

        One walk over the corpus layout after ``k`` merges that stops once every
        pair is found, reading only the words that can hold them (see
        :func:`bpe_core.ranking.first_places`): at most the whole layout once,
        however repetitive the text.

        Raises:
            AssertionError: a pair that does not occur after ``k`` merges (a caller's bug).
        """
        if not pairs:
            return {}
        layout = self._trace().layout
        wanted = {a * SHIFT + b for a, b in pairs}
        words = ranking.candidate_words(pairs, self._born, self.log)
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
            out[divmod(key, SHIFT)] = FirstSeen(w, self.words[w][0], slot - layout.starts[w], slot)
        return out

    def segmentation(self, word: int, k: int) -> tuple[str, ...]:
        """How word number ``word`` (an index into ``words``) is cut after ``k`` merges.

        Exactly what training did to it: the first ``k`` rules of the merge
        table applied to the word's base symbols, each rule on all its
        occurrences in learned order (Sennrich et al. 2016, Algorithm 1). Read
        from the recorded layout, or replayed by the tokenizer for a run made
        with ``trace=False``. Symbols are told apart by id, so a literal ``</w>``
        typed in the corpus is never taken for the end-of-word marker.

        Args:
            word: an index into :attr:`words`.
            k: how many merges, ``0 <= k <= num_merges``.

        Returns:
            The word's tokens as display strings, left to right.

        Raises:
            ValueError: ``k`` or ``word`` out of range.
        """
        self._check_step(k)
        if not isinstance(word, int) or not 0 <= word < len(self.words):
            raise ValueError(f"word index {word!r} is out of range 0..{len(self.words) - 1}")
        strings = self.symbol_strings
        return tuple(strings[i] for i in self._word_ids(word, k))

    def _word_ids(self, word: int, k: int) -> Sequence[int]:
        trace = self.log.trace
        if trace is None:
            return self.tokenizer.model.replay_ids(self.words[word][0], k)
        return trace.layout.word_tokens(word, k)

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
        self._check_merge(k)
        trace = self._trace("rewritten words")
        a, b, new = self.log.merge_ids[k]
        strings, layout = self.symbol_strings, trace.layout
        out = []
        for w in trace.rewritten(k)[:limit]:
            before = layout.word_tokens(w, k)
            after = _merge_ids(before, a, b, new)
            out.append(
                WordChange(
                    word=self.words[w][0],
                    freq=self.words[w][1],
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
        log, s = self.log, self.symbol_strings
        a, b, new = log.merge_ids[k]
        pair = self.merges[k]
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
            tie_break=self.config.tie_break,
            top_pairs=top_pairs,
            words=words,
            num_words=num_words,
            tokens_after=self._tokens[k + 1],
            vocab_size_after=log.base_size + k + 1,
        )

    def _pair_view(self, k: int, trace: TraceLog) -> tuple[tuple, tuple, tuple, int]:
        """``(top_pairs, tied, tie_keys, num_tied)`` of merge ``k``, as the trainer ranks pairs."""
        counts = self._counts(k)
        best = self.log.counts[k]
        values = counts.values()
        num_tied = list(values).count(best)
        floor = heapq.nlargest(trace.top_k, values)[-1]
        ordered, seen = self._ranked(k, min(floor, best))
        s, hf = self.symbol_strings, self.hf_ranks
        rule = tie_rule(self.config.tie_break)
        top = tuple(((s[a], s[b]), counts[a * SHIFT + b]) for a, b in ordered[: trace.top_k])
        shown = ordered[: min(num_tied, trace.max_tied)]
        tied = tuple((s[a], s[b]) for a, b in shown)
        keys = tuple(rule.describe(s, hf, a, b, seen.get((a, b))) for a, b in shown)
        return top, tied, keys, num_tied

    def _most_frequent(self, rewritten: Sequence[int], limit: int) -> list[int]:
        """The ``limit`` most frequent of ``rewritten`` (corpus order among equals)."""
        words = self.words
        return sorted(rewritten, key=lambda w: -words[w][1])[:limit]

    def _shown_change(self, w: int, k: int) -> WordChange:
        """Word ``w`` as merge ``k`` rewrote it: whole, or an excerpt around its first merge site if long."""
        layout = self._trace().layout
        a, b, new = self.log.merge_ids[k]
        start, end = layout.starts[w], layout.starts[w + 1]
        gone = gone_marker(k)
        shown = layout.tokens(start, end, k + 1, WORD_TRACE_LIMIT + 1)
        excerpt = len(shown) > WORD_TRACE_LIMIT
        if excerpt:
            site = layout.live_before(layout.final.index(gone, start, end), start, k + 1, 1)
            shown = layout.tokens(layout.live_before(site, start, k + 1, EXCERPT_BEFORE), end, k + 1, EXCERPT_LEN)
        after = [t for _p, t in shown]
        s = self.symbol_strings
        before: list[int] = []
        for t in after:
            before += (a, b) if t == new else (t,)
        return WordChange(
            word=self.words[w][0],
            freq=self.words[w][1],
            before=tuple(s[t] for t in before),
            after=tuple(s[t] for t in after),
            merged_at=tuple(i for i, t in enumerate(after) if t == new),
            excerpt=excerpt,
            occurrences=layout.final[start:end].count(gone),
            before_ids=tuple(before),
            after_ids=tuple(after),
        )

    # ------------------------------------------------------------------ checks

    def _check_step(self, k: int) -> None:
        if not isinstance(k, int) or not 0 <= k <= len(self.merges):
            raise ValueError(f"step {k!r} is out of range 0..{len(self.merges)}")

    def _check_merge(self, k: int) -> None:
        if not isinstance(k, int) or not 0 <= k < len(self.merges):
            raise ValueError(f"merge {k!r} is out of range 0..{len(self.merges) - 1}")


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

"""The result of a training run: merge table, vocabulary, tokenizer and the log of every merge.

:class:`TrainResult` holds the run; its per-step views (top pairs, tied pairs
with their tie keys, rewritten words) come from its query object
:attr:`TrainResult.views`, a :class:`~bpe_core.training.step_views.StepViews` that
rebuilds them from the log when asked and keeps a bounded number.
:attr:`TrainResult.steps` is that object's lazy sequence of
:class:`~bpe_core.trace.MergeStep`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from itertools import accumulate
from typing import TYPE_CHECKING

from ..trace import MergeSummary, Pair, TrainConfig, WordChange
from .recorder import MergeLog
from .step_views import Steps, StepViews, check_step

if TYPE_CHECKING:
    from ..encoding.encoder import Tokenizer


@dataclass(frozen=True)
class TrainResult:
    """Everything :func:`bpe_core.train` learned and recorded.

    Attributes:
        config: the settings used.
        merges: the merge table, ``[(left, right), ...]`` in rank order.
        vocab: token string -> id (special tokens, base alphabet, merges; if two
            ids share a string the first keeps it).
        tokenizer: a :class:`~bpe_core.encoding.encoder.Tokenizer` for this merge table.
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
        log: what training recorded (:class:`~bpe_core.training.recorder.MergeLog`).
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
    def views(self) -> StepViews:
        """The run's per-step queries and their caches (:class:`~bpe_core.training.step_views.StepViews`), made once."""
        return StepViews(self)

    @property
    def steps(self) -> Steps:
        """One :class:`~bpe_core.trace.MergeStep` per merge, built when read: ``views.steps``."""
        return self.views.steps

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

    # ------------------------------------------------------------------ per-step queries (see StepViews)

    def tokens_at(self, k: int) -> int:
        """Corpus length in tokens after ``k`` merges, weighted by word frequency.

        Args:
            k: how many merges, ``0 <= k <= num_merges``.

        Returns:
            The token count (``initial_tokens`` for ``k == 0``).

        Raises:
            ValueError: ``k`` out of range.
        """
        check_step(self, k)
        return self._tokens[k]

    def num_pairs_at(self, k: int) -> int:
        """:meth:`StepViews.num_pairs_at <bpe_core.training.step_views.StepViews.num_pairs_at>` of :attr:`views`."""
        return self.views.num_pairs_at(k)

    def pair_counts_at(self, k: int, *, by_id: bool = False) -> dict:
        """:meth:`StepViews.pair_counts_at <bpe_core.training.step_views.StepViews.pair_counts_at>` of :attr:`views`."""
        return self.views.pair_counts_at(k, by_id=by_id)

    def pair_count_at(self, k: int, pair: Pair) -> int:
        """:meth:`StepViews.pair_count_at <bpe_core.training.step_views.StepViews.pair_count_at>` of :attr:`views`."""
        return self.views.pair_count_at(k, pair)

    def tied_at(self, k: int) -> list[Pair]:
        """:meth:`StepViews.tied_at <bpe_core.training.step_views.StepViews.tied_at>` of :attr:`views`."""
        return self.views.tied_at(k)

    def ties_at(self, k: int) -> list[tuple[Pair, str]]:
        """:meth:`StepViews.ties_at <bpe_core.training.step_views.StepViews.ties_at>` of :attr:`views`."""
        return self.views.ties_at(k)

    def tied_lists(self, limit: int | None = None) -> list[list[Pair]]:
        """:meth:`StepViews.tied_lists <bpe_core.training.step_views.StepViews.tied_lists>` of :attr:`views`."""
        return self.views.tied_lists(limit)

    def segmentation(self, word: int, k: int) -> tuple[str, ...]:
        """:meth:`StepViews.segmentation <bpe_core.training.step_views.StepViews.segmentation>` of :attr:`views`."""
        return self.views.segmentation(word, k)

    def word_changes(self, k: int, limit: int | None = None) -> list[WordChange]:
        """:meth:`StepViews.word_changes <bpe_core.training.step_views.StepViews.word_changes>` of :attr:`views`."""
        return self.views.word_changes(k, limit)

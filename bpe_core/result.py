"""The result of a training run: merge table, vocabulary, tokenizer and trace."""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from .symbols import SHIFT
from .trace import MergeStep, Pair, TrainConfig, WordChange

if TYPE_CHECKING:
    from .encoder import Tokenizer


@dataclass(frozen=True)
class TrainResult:
    """Everything :func:`bpe_core.train` learned and recorded.

    Attributes:
        config: the settings used.
        merges: the merge table, ``[(left, right), ...]`` in rank order.
        steps: one :class:`~bpe_core.trace.MergeStep` per merge.
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
        pair_counts_initial: packed pair counts before the first merge (use
            :meth:`pair_counts_at`).
        pair_count_deltas: packed per-merge pair-count changes.
        changed_words: packed per-merge indices (into ``words``) of the rewritten words.
        symbol_strings: id -> token string for every id (duplicates kept).
    """

    config: TrainConfig
    merges: list[Pair]
    steps: list[MergeStep]
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
    pair_counts_initial: bytes
    pair_count_deltas: tuple[bytes, ...]
    changed_words: tuple[bytes, ...]
    symbol_strings: tuple[str, ...]

    @cached_property
    def initial_segmentations(self) -> tuple[tuple[str, ...], ...]:
        """Each word's base symbols (the end-of-word marker included), aligned with ``words``."""
        strings = self.symbol_strings
        return tuple(tuple(strings[i] for i in self.tokenizer.replay_ids(word, 0)) for word, _freq in self.words)

    @cached_property
    def _pair_totals(self) -> tuple[int, ...]:
        """How many distinct pairs have a positive count after each number of merges (one pass over the deltas)."""
        if not self.pair_counts_initial:
            raise ValueError("pair counts were not recorded: train with trace=True")
        counts = self._unpack_counts(self.pair_counts_initial)
        totals = [len(counts)]
        live = len(counts)
        for packed in self.pair_count_deltas:
            flat = array("q")
            flat.frombytes(packed)
            for i in range(0, len(flat), 2):
                key = flat[i]
                old = counts.get(key, 0)
                new = old + flat[i + 1]
                counts[key] = new
                live += (new > 0) - (old > 0)
            totals.append(live)
        return tuple(totals)

    @property
    def num_merges(self) -> int:
        """How many merges were learned."""
        return len(self.merges)

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
        return self.initial_tokens if k == 0 else self.steps[k - 1].tokens_after

    def num_pairs_at(self, k: int) -> int:
        """How many distinct adjacent pairs the corpus holds after ``k`` merges (just before merge ``k``).

        This is the length of :meth:`pair_counts_at` ``(k, by_id=True)``, the
        denominator for "top 10 of N pairs"; all steps are computed in one pass
        over the recorded deltas the first time it is asked for.

        Args:
            k: 0 for the initial counts, up to ``num_merges``.

        Returns:
            The number of pairs with a positive count.

        Raises:
            ValueError: ``k`` out of range, or the run was made with ``trace=False``.
        """
        self._check_step(k)
        return self._pair_totals[k]

    @staticmethod
    def _unpack_counts(packed: bytes) -> dict[int, int]:
        flat = array("q")
        flat.frombytes(packed)
        return dict(zip(flat[::2], flat[1::2]))

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
        if not self.pair_counts_initial:
            raise ValueError("pair counts were not recorded: train with trace=True")
        counts = self._unpack_counts(self.pair_counts_initial)
        for packed in self.pair_count_deltas[:k]:
            flat = array("q")
            flat.frombytes(packed)
            for i in range(0, len(flat), 2):
                key = flat[i]
                c = counts.get(key, 0) + flat[i + 1]
                if c:
                    counts[key] = c
                else:
                    del counts[key]
        items = sorted(counts.items(), key=lambda kv: -kv[1])
        if by_id:
            return {divmod(key, SHIFT): c for key, c in items}
        s = self.symbol_strings
        out: dict[Pair, int] = {}
        for key, c in items:
            pair = (s[key // SHIFT], s[key % SHIFT])
            out[pair] = out.get(pair, 0) + c
        return out

    def tied_at(self, k: int) -> list[Pair]:
        """Every pair that had the winning count before merge ``k``, winner first, then in tie-rule order.

        ``steps[k].tied`` keeps the first ``max_tied`` of them (see
        :func:`bpe_core.train`), ``steps[k].num_tied`` counts them all; this
        rebuilds the whole list from the recorded pair counts, ordered by the
        run's tie rule (:mod:`bpe_core.tiebreak`): ``first_seen`` scans the
        distinct words in order of first appearance, each left to right, as
        segmented after ``k`` merges; the other rules compare the pair's
        strings or Hugging Face ids.

        Args:
            k: the merge rank, ``0 <= k < num_merges``.

        Returns:
            ``[(left, right), ...]`` with ``len == steps[k].num_tied``.

        Raises:
            ValueError: ``k`` out of range, or the run was made with ``trace=False``.
        """
        if not isinstance(k, int) or not 0 <= k < len(self.merges):
            raise ValueError(f"merge {k!r} is out of range 0..{len(self.merges) - 1}")
        best = self.steps[k].count
        tied = [pair for pair, c in self.pair_counts_at(k, by_id=True).items() if c == best]
        rule = self.config.tie_break
        s = self.symbol_strings
        if rule == "first_seen":
            wanted, ordered = set(tied), []
            for word, _freq in self.words:
                seg = self.tokenizer.replay_ids(word, k)
                for pair in zip(seg, seg[1:]):
                    if pair in wanted:
                        wanted.discard(pair)
                        ordered.append(pair)
                if not wanted:
                    break
            tied = ordered
        elif rule == "hf_tokenizers":
            hf = self.tokenizer.table.hf_rank
            tied.sort(key=lambda p: (hf[p[0]], hf[p[1]]))
        else:
            tied.sort(key=lambda p: (s[p[0]], s[p[1]]), reverse=rule == "subword_nmt")
        return [(s[a], s[b]) for a, b in tied]

    def segmentation(self, word: int, k: int) -> tuple[str, ...]:
        """How word number ``word`` (an index into ``words``) is cut after ``k`` merges.

        Replays the first ``k`` rules of the merge table on the word's base
        symbols, each rule on all its occurrences in learned order, which is
        exactly what training did to it (Sennrich et al. 2016, Algorithm 1).
        The replay runs on symbol ids, so a literal ``</w>`` typed in the
        corpus is never taken for the end-of-word marker.

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
        return tuple(strings[i] for i in self.tokenizer.replay_ids(self.words[word][0], k))

    def word_changes(self, k: int, limit: int | None = None) -> list[WordChange]:
        """Every word that merge ``k`` rewrote, in corpus order, rebuilt by replay.

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
        if not isinstance(k, int) or not 0 <= k < len(self.merges):
            raise ValueError(f"merge {k!r} is out of range 0..{len(self.merges) - 1}")
        if not self.changed_words:
            raise ValueError("rewritten words were not recorded: train with trace=True")
        ids = array("i")
        ids.frombytes(self.changed_words[k])
        token_id = self.steps[k].token_id
        strings = self.symbol_strings
        replay = self.tokenizer.replay_ids
        out = []
        for w in ids[:limit]:
            before = replay(self.words[w][0], k)
            after = replay(before, k + 1, start=k)
            out.append(
                WordChange(
                    word=self.words[w][0],
                    freq=self.words[w][1],
                    before=tuple(strings[i] for i in before),
                    after=tuple(strings[i] for i in after),
                    merged_at=tuple(i for i, t in enumerate(after) if t == token_id),
                    excerpt=False,
                    occurrences=len(before) - len(after),
                )
            )
        return out

    def _check_step(self, k: int) -> None:
        if not isinstance(k, int) or not 0 <= k <= len(self.merges):
            raise ValueError(f"step {k!r} is out of range 0..{len(self.merges)}")

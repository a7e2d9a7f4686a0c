"""Trace types: the plain, frozen records that training and encoding leave behind.

The UI only reads these. Every record is a frozen dataclass of strings, ints
and tuples, so it can be hashed, pickled and copied (``st.cache_data``).
Token strings are display strings (see :mod:`bpe_core.symbols`); byte-level
tokens use GPT-2's byte-to-unicode characters (``Ġ`` for a space).
"""

from __future__ import annotations

from dataclasses import dataclass

Pair = tuple[str, str]
"""A merge rule's two symbols, as display strings: ``("e", "r")``."""


@dataclass(frozen=True)
class TrainConfig:
    """The settings a training run used (validated; see :func:`bpe_core.train`)."""

    pretokenizer: str
    unit: str
    end_of_word: str
    tie_break: str
    min_frequency: int
    special_tokens: tuple[str, ...]
    num_merges: int | None
    vocab_size: int | None

    def train_kwargs(self) -> dict[str, object]:
        """Keyword arguments that make :func:`bpe_core.train` repeat this run."""
        budget = {"vocab_size": self.vocab_size} if self.vocab_size is not None else {"num_merges": self.num_merges}
        return {
            **budget,
            "pretokenizer": self.pretokenizer,
            "unit": self.unit,
            "end_of_word": self.end_of_word,
            "tie_break": self.tie_break,
            "min_frequency": self.min_frequency,
            "special_tokens": self.special_tokens,
        }


@dataclass(frozen=True)
class WordChange:
    """One distinct word (pre-token) that a merge rewrote.

    Attributes:
        word: the pre-token's text.
        freq: how often it occurs in the corpus.
        before: its segmentation before the merge, as token strings.
        after: its segmentation after the merge.
        merged_at: indices into ``after`` where the new token was formed.
        excerpt: True when the word is too long to show whole (over 64
            symbols, e.g. the single sequence of the ``none`` pre-tokenizer):
            ``before`` and ``after`` are then windows around its first merge site.
        occurrences: how many times the pair was replaced inside this word.
        before_ids: the ids of ``before``'s tokens (``()`` when not recorded). Draw from
            these, not from the strings: a literal ``</w>`` typed in the corpus and the
            end-of-word marker can spell the same string, but never share an id.
        after_ids: the ids of ``after``'s tokens (``()`` when not recorded).
    """

    word: str
    freq: int
    before: tuple[str, ...]
    after: tuple[str, ...]
    merged_at: tuple[int, ...]
    excerpt: bool
    occurrences: int
    before_ids: tuple[int, ...] = ()
    after_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class MergeStep:
    """One merge of a training run.

    Attributes:
        rank: the merge rank, 0-based (merge ``rank`` is the ``rank``-th rule learned).
        pair: the winning pair ``(left, right)``.
        token: the new token, ``left + right``.
        token_id: its id in the vocabulary.
        count: the pair's count before the merge (occurrences weighted by word
            frequency, overlapping occurrences included: ``aaaaa`` counts (a,a) 4 times).
        replacements: occurrences actually replaced, left to right without
            overlap (``aaaaa`` -> 2); at most ``count``.
        tied: the pairs that had the winning count, winner first, then in the
            order the tie rule ranks them; the first ``max_tied`` are kept here
            (``num_tied`` is the full number, and
            :meth:`TrainResult.tied_at` rebuilds every one of them).
        tie_keys: for each pair in ``tied``, the value the tie rule compared,
            in words ("first seen in word 4 'newer' at offset 1": words counted from 1
            in corpus order, offsets from 0 in base symbols).
        num_tied: how many pairs had the winning count (1 means no tie).
        tie_break: the tie rule's name.
        top_pairs: the highest pair counts before the merge, ``((pair, count), ...)``,
            best first, at most ``top_k`` entries.
        words: the distinct words the merge rewrote, most frequent first
            (corpus order among equals), at most ``trace_words`` of them (see
            :func:`bpe_core.train`); words longer than 64 symbols are kept as
            excerpts around the merge. :meth:`TrainResult.word_changes` rebuilds
            all of them, whole.
        num_words: how many distinct words it rewrote (all of them, also
            when ``words`` holds only the first few; 0 with the trace off).
        tokens_after: corpus length in tokens after the merge (weighted by frequency).
        vocab_size_after: vocabulary size after the merge (specials + alphabet + merges).
    """

    rank: int
    pair: Pair
    token: str
    token_id: int
    count: int
    replacements: int
    tied: tuple[Pair, ...]
    tie_keys: tuple[str, ...]
    num_tied: int
    tie_break: str
    top_pairs: tuple[tuple[Pair, int], ...]
    words: tuple[WordChange, ...]
    num_words: int
    tokens_after: int
    vocab_size_after: int


@dataclass(frozen=True)
class MergeSummary:
    """A merge's headline numbers, the fields of :class:`MergeStep` that cost nothing to list for a whole run.

    Attributes mean what they mean on :class:`MergeStep`; see
    :attr:`bpe_core.TrainResult.summaries`.
    """

    rank: int
    pair: Pair
    token: str
    token_id: int
    count: int
    replacements: int
    num_tied: int
    tokens_after: int
    vocab_size_after: int


@dataclass(frozen=True)
class RuleApplication:
    """One merge rule firing inside one pre-token during encoding.

    Attributes:
        rank: the rule's merge rank.
        pair: the rule's two symbols.
        token: the merged token.
        positions: indices into ``before`` of each left symbol that merged.
        before: the pre-token's symbols before the rule fired.
        after: its symbols after.
    """

    rank: int
    pair: Pair
    token: str
    positions: tuple[int, ...]
    before: tuple[str, ...]
    after: tuple[str, ...]


@dataclass(frozen=True)
class BlockedRule:
    """A merge rule that could have joined two symbols of a pre-token but did not.

    Attributes:
        rank: the rule's merge rank.
        pair: the rule's two symbols.
        between: the tokens standing, in the final segmentation, between the
            nearest left symbol and the next right symbol (empty when they are
            adjacent at the end, or the right symbol only comes first).
        reason: a sentence saying why the rule could not fire.
        kind: ``"apart"`` (both symbols are in the final tokens but were never
            side by side), ``"taken"`` (they were side by side, then an
            earlier-ranked rule, or in sequential order an earlier rule of the
            table, merged one of them into something else) or ``"too_late"``
            (sequential order only: they became side by side after the rule's
            turn in the one pass over the table had passed).
        by_rank: for ``taken``, the rank of the rule that took a symbol; for
            ``too_late``, the rank of the rule whose merge made them adjacent;
            else ``None``.
    """

    rank: int
    pair: Pair
    between: tuple[str, ...]
    reason: str
    kind: str = "apart"
    by_rank: int | None = None


@dataclass(frozen=True)
class Fallback:
    """A character that the base alphabet could not represent as one symbol.

    Attributes:
        char: the character.
        offset: its index in the pre-token's text.
        kind: ``"kept"`` (char unit: not in the alphabet, kept as a symbol of
            its own with a new id), ``"unk"`` (char unit, became ``<unk>``),
            ``"bytes"`` (char unit, spelled as ``<0xNN>`` byte tokens) or
            ``"raw_bytes"`` (byte unit: a multi-byte character, with whether
            its UTF-8 bytes merged into one token).
        data: its UTF-8 bytes (``🙂`` -> ``F0 9F 99 82``).
        tokens: the tokens that hold those bytes.
        merged: True if all its bytes ended inside a single token.
    """

    char: str
    offset: int
    kind: str
    data: bytes
    tokens: tuple[str, ...]
    merged: bool


@dataclass(frozen=True)
class PieceTrace:
    """How one pre-token (or one special token) was encoded.

    Attributes:
        text: the pre-token's text.
        start: its character offset in the encoded text.
        special: True for a special token matched whole (no rules apply).
        initial: its symbols before any rule.
        steps: every rule application, in the order they happened.
        blocked: rules that could have joined two of its symbols but did not
            (see :class:`BlockedRule`), by rank.
        fallbacks: characters that fell back to ``<unk>``, ``<0xNN>`` or raw bytes.
        tokens: the final tokens.
        ids: their ids (a ``keep`` fallback's temporary ids lie past the vocabulary).
        token_bytes: per token, the bytes it stands for in the text (the
            end-of-word marker left out; ``<unk>`` stands for U+FFFD).
        ends_word: per token, whether it holds the end-of-word marker (a special token
            under ``whitespace_eow``: whether it ends a word, which it always does there;
            decoding puts one space after it, see :class:`~bpe_core.pipeline.Decoder`).
        kinds: per token, ``""`` (a vocabulary token), ``"special"``,
            ``"fallback"`` (``<unk>``, ``<0xNN>``) or ``"temporary"`` (a
            character the ``keep`` fallback kept, with an id numbered in the
            order this text met such characters).
    """

    text: str
    start: int
    special: bool
    initial: tuple[str, ...]
    steps: tuple[RuleApplication, ...]
    blocked: tuple[BlockedRule, ...]
    fallbacks: tuple[Fallback, ...]
    tokens: tuple[str, ...]
    ids: tuple[int, ...]
    token_bytes: tuple[bytes, ...] = ()
    ends_word: tuple[bool, ...] = ()
    kinds: tuple[str, ...] = ()


@dataclass(frozen=True)
class EncodeTrace:
    """The rule-by-rule record of encoding one text.

    Attributes:
        text: the encoded text.
        order: ``"rank"`` or ``"sequential"``, the merge order that ran.
        pieces: one :class:`PieceTrace` per pre-token, in text order.
    """

    text: str
    order: str
    pieces: tuple[PieceTrace, ...]

    @property
    def ids(self) -> list[int]:
        """All token ids, in order (equal to ``Tokenizer.encode`` of the same text)."""
        return [i for p in self.pieces for i in p.ids]

    @property
    def tokens(self) -> list[str]:
        """All token strings, in order."""
        return [t for p in self.pieces for t in p.tokens]

    @property
    def temporary_ids(self) -> tuple[int, ...]:
        """The distinct temporary ids (``keep`` fallback) in the trace, ascending."""
        return tuple(sorted({i for p in self.pieces for i, kind in zip(p.ids, p.kinds) if kind == "temporary"}))


@dataclass(frozen=True)
class RoundTrip:
    """Whether ``decode(encode(text)) == text``, and where and why not.

    Attributes:
        ok: True when the text comes back unchanged.
        text: the original text.
        decoded: what decoding the ids gave.
        position: the first character index where they differ, or ``None``.
        reason: a sentence explaining the first difference ("" when ``ok``).
    """

    ok: bool
    text: str
    decoded: str
    position: int | None
    reason: str


@dataclass(frozen=True)
class OrderDifference:
    """A pre-token that the ``rank`` and ``sequential`` merge orders cut differently.

    Attributes:
        text: the pre-token's text.
        rank_tokens: its tokens under ``order="rank"``.
        sequential_tokens: its tokens under ``order="sequential"``.
    """

    text: str
    rank_tokens: tuple[str, ...]
    sequential_tokens: tuple[str, ...]

"""Trace types: the plain, frozen records that training and encoding leave behind.

The UI only reads these. Every record is a frozen dataclass of strings, ints
and tuples, so it can be hashed, pickled and copied (``st.cache_data``).
Token strings are display strings (see :mod:`bpe_core.text.symbols`); byte-level
tokens use GPT-2's byte-to-unicode characters (``Ġ`` for a space).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
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
        """Keyword arguments that make :func:`bpe_core.train` repeat this run (see :func:`train_kwargs`)."""
        return train_kwargs(
            self.pretokenizer,
            self.unit,
            self.end_of_word,
            self.tie_break,
            self.min_frequency,
            self.special_tokens,
            num_merges=self.num_merges,
            vocab_size=self.vocab_size,
        )


def train_kwargs(
    pretokenizer: str,
    unit: str,
    end_of_word: str,
    tie_break: str,
    min_frequency: int,
    special_tokens: tuple[str, ...] | None = None,
    *,
    num_merges: int | None = None,
    vocab_size: int | None = None,
) -> dict[str, object]:
    """Keyword arguments for :func:`bpe_core.train` (and :func:`bpe_core.check_merges`), built in one place.

    Every settings record (:class:`TrainConfig`, the app's ``TrainSettings``,
    :class:`bpe_core.analysis.checking.CheckSettings`) turns itself into arguments here,
    so a new training option is added once.

    Args:
        pretokenizer, unit, end_of_word, tie_break, min_frequency: as for ``train``.
        special_tokens: as for ``train``; ``None`` leaves it out (the default applies).
        num_merges, vocab_size: the budget; ``vocab_size`` wins when both are
            given, and neither is passed when both are ``None``.

    Returns:
        ``{"pretokenizer": ..., "unit": ..., ...}`` holding only what was given.
    """
    out: dict[str, object] = {
        "pretokenizer": pretokenizer,
        "unit": unit,
        "end_of_word": end_of_word,
        "tie_break": tie_break,
        "min_frequency": min_frequency,
    }
    if special_tokens is not None:
        out["special_tokens"] = special_tokens
    if vocab_size is not None:
        out["vocab_size"] = vocab_size
    elif num_merges is not None:
        out["num_merges"] = num_merges
    return out


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
class DroppedMerge:
    """A merge BPE-dropout skipped at one step (Provilkov et al. 2020): it could have fired, and did not.

    Attributes:
        rank: the rule's merge rank.
        pair: the two symbols that stood side by side (the first skipped site).
        token: the token the merge would have formed.
        positions: indices into the word as it stood at that step of each skipped left symbol.
    """

    rank: int
    pair: Pair
    token: str
    positions: tuple[int, ...]


@dataclass(frozen=True)
class RuleApplication:
    """One merge rule firing inside one pre-token during encoding.

    What the rule did, not a copy of the word: the word's symbols before and
    after any step are rebuilt from the steps on demand (:meth:`PieceTrace.state`).

    Attributes:
        rank: the rule's merge rank.
        pair: the rule's two symbols (under tiktoken's byte semantics, the two
            tokens it joined at its first site).
        token: the merged token.
        positions: indices into the word before the rule fired of each left
            symbol that merged (ascending; the sites merge at once).
        width: how many symbols each site joins: 2, or for tiktoken's
            whole-piece lookup (the pre-token is itself a token that merging
            did not reach) every symbol of the word, at position 0.
        dropped: with BPE-dropout, the merges skipped at this step, lowest rank first.
    """

    rank: int
    pair: Pair
    token: str
    positions: tuple[int, ...]
    width: int = 2
    dropped: tuple[DroppedMerge, ...] = ()


@dataclass(frozen=True)
class BlockedRule:
    """A merge rule that could have joined two symbols of a pre-token but never fired there.

    Attributes:
        rank: the rule's merge rank.
        pair: the rule's two symbols.
        between: the tokens standing, in the final segmentation, between the
            nearest left symbol and the next right symbol (empty when they are
            adjacent at the end, when one of them is gone from the final
            tokens, or when the right symbol only comes first).
        reason: a sentence saying why the rule did not fire.
        kind: ``"apart"`` (both symbols are in the final tokens but were never
            side by side), ``"taken"`` (they stood side by side, then another
            rule, lower-ranked or in sequential order earlier in the table,
            merged one of them into something else first: ``n e`` in
            ``nest`` once ``e s`` took the ``e``), ``"too_late"`` (sequential
            order only: they became side by side after the rule's turn in the
            one pass over the table had passed) or ``"dropped"`` (BPE-dropout
            skipped it while they stood side by side, to the end).
        by_rank: for ``taken``, the rank of the rule that took a symbol; for
            ``too_late``, the rank of the rule whose merge made them adjacent;
            else ``None``.
        step: for ``taken`` and ``too_late``, the 1-based number of that rule's
            application among the pre-token's steps (the Encode page's ``step`` column); else ``None``.
    """

    rank: int
    pair: Pair
    between: tuple[str, ...]
    reason: str
    kind: str = "apart"
    by_rank: int | None = None
    step: int | None = None


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
        steps: every rule application, in the order they happened (see
            :meth:`state` for the word between them).
        blocked: rules that could have joined two of its symbols but never
            fired (see :class:`BlockedRule`), by rank; at most
            :data:`bpe_core.encoding.explain.MAX_BLOCKED`, the lowest ranks (see ``blocked_omitted``).
        fallbacks: characters that fell back to ``<unk>``, ``<0xNN>`` or raw bytes.
        tokens: the final tokens.
        ids: their ids (a ``keep`` fallback's temporary ids lie past the vocabulary).
        token_bytes: per token, the bytes it stands for in the text (the
            end-of-word marker left out; ``<unk>`` stands for U+FFFD).
        ends_word: per token, whether it holds the end-of-word marker (a special token
            under ``whitespace_eow``: whether it ends a word, which it always does there;
            decoding puts one space after it, see :class:`~bpe_core.encoding.pipeline.Decoder`).
        kinds: per token, ``""`` (a vocabulary token), ``"special"``,
            ``"fallback"`` (``<unk>``, ``<0xNN>``) or ``"temporary"`` (a
            character the ``keep`` fallback kept, with an id numbered in the
            order this text met such characters).
        dropped_at_end: with BPE-dropout, the merges skipped at the last
            attempt, which ended the pre-token's run (every merge that could
            fire was skipped); ``()`` without dropout.
        blocked_omitted: how many blocked rules were found but left out of
            ``blocked`` (over :data:`bpe_core.encoding.explain.MAX_BLOCKED`, or on pre-tokens over
            :data:`bpe_core.encoding.explain.TRACE_SYMBOLS` symbols, ``apart`` rules with more than
            :data:`bpe_core.encoding.explain.MAX_BETWEEN` tokens between their symbols); 0 for ordinary words.
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
    dropped_at_end: tuple[DroppedMerge, ...] = ()
    blocked_omitted: int = 0

    @property
    def skipped_merges(self) -> int:
        """How many merges BPE-dropout skipped in this pre-token: 0 without dropout.

        One count per skipped site per step (one ``rng.random() < p`` draw that said skip, Provilkov et al.
        2020, section 3; subword-nmt ``apply_bpe.py --dropout``): the ``positions`` of every
        :class:`DroppedMerge` in ``steps`` and in ``dropped_at_end``, the last attempt that ended the run (at
        p = 1 every skip is there). A site skipped at two steps counts twice, as it was drawn twice. Every view
        of dropout shows this number.
        """
        during = sum(len(d.positions) for step in self.steps for d in step.dropped)
        return during + sum(len(d.positions) for d in self.dropped_at_end)

    def state(self, k: int) -> tuple[str, ...]:
        """The pre-token's symbols after its first ``k`` rule applications (``0``: ``initial``).

        Rebuilt from the steps' positions, in O((n + sites) log n) for n
        symbols (a Fenwick tree over the live positions), whatever ``k``.
        ``state(len(steps))`` equals ``tokens``.

        Raises:
            IndexError: ``k`` outside ``0 .. len(steps)``.
        """
        if not 0 <= k <= len(self.steps):
            raise IndexError(f"step {k} is outside 0..{len(self.steps)}")
        if len(self.initial) <= 64:
            *_, last = self.states(k)
            return last
        return _replay(self.initial, self.steps[:k])

    def states(self, upto: int | None = None) -> Iterator[tuple[str, ...]]:
        """``initial``, then the symbols after each rule application, up to step ``upto`` (all by default).

        Each state costs O(n) to build: for all of a long word's steps, prefer
        :meth:`state` for the few that are shown.
        """
        steps = self.steps if upto is None else self.steps[:upto]
        word = list(self.initial)
        yield tuple(word)
        for step in steps:
            for p in reversed(step.positions):
                word[p : p + step.width] = [step.token]
            yield tuple(word)


@dataclass(frozen=True)
class EncodeTrace:
    """The rule-by-rule record of encoding one text.

    Attributes:
        text: the encoded text.
        order: ``"rank"`` or ``"sequential"``, the merge order that ran.
        pieces: one :class:`PieceTrace` per pre-token, in text order.
        dropout: the BPE-dropout probability used (0: plain encoding).
        seed: the seed of the dropout's random generator (``None`` without dropout).
    """

    text: str
    order: str
    pieces: tuple[PieceTrace, ...]
    dropout: float = 0.0
    seed: int | None = None

    @property
    def ids(self) -> list[int]:
        """All token ids, in order (equal to ``Tokenizer.encode`` of the same text)."""
        return [i for p in self.pieces for i in p.ids]

    @property
    def tokens(self) -> list[str]:
        """All token strings, in order."""
        return [t for p in self.pieces for t in p.tokens]

    @property
    def skipped_merges(self) -> int:
        """How many merges BPE-dropout skipped in the whole text: the sum of :attr:`PieceTrace.skipped_merges`."""
        return sum(p.skipped_merges for p in self.pieces)

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


def _replay(initial: Sequence[str], steps: Sequence[RuleApplication]) -> tuple[str, ...]:
    """The symbols after ``steps`` starting from ``initial``: each site found by its index among the live
    positions (a Fenwick tree, O(log n) per site) instead of shifting a list per step."""
    n = len(initial)
    word = list(initial)
    alive = bytearray(b"\x01") * n
    tree = [k & -k for k in range(n + 1)]  # Fenwick tree over n ones: tree[k] counts (k - lowbit(k), k]
    top = 1 << (n.bit_length() - 1)

    def kth(c: int) -> int:  # the position of the live symbol with index c
        pos, rest, half = 0, c + 1, top
        while half:
            if pos + half <= n and tree[pos + half] < rest:
                pos += half
                rest -= tree[pos]
            half >>= 1
        return pos

    for step in steps:
        for p in reversed(step.positions):  # right to left: earlier indices stay valid
            word[kth(p)] = step.token
            for _ in range(step.width - 1):
                gone = kth(p + 1)
                alive[gone] = 0
                k = gone + 1
                while k <= n:
                    tree[k] -= 1
                    k += k & -k
    return tuple(w for w, live in zip(word, alive) if live)

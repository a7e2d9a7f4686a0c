"""Merge provenance: where a token comes from, as the tree of merges that built it.

Every token of a BPE vocabulary that is not a base symbol was formed by one
merge rule joining two older tokens (Sennrich et al. 2016, Algorithm 1: each
merge adds one symbol made of two existing ones). Following those rules down
from a token gives a binary tree whose leaves are base symbols (characters or
bytes) and whose leaves' bytes, joined in order, are the token's bytes.

``rank`` is the merge priority the tokenizer itself uses: the rule's position
in the merge table for tables learned here, loaded from ``merges.txt``, Hugging
Face or subword-nmt files; for a tiktoken rank file (``merge_by="bytes"``) it is
the rank in the file, which is also the token's id. A rank file holds no merge
rules, only ranks, so each node's two children there are the pair recovered by
replaying tiktoken's own merge loop on the token's bytes
(:func:`bpe_core.formats.recover_merges`); :attr:`MergeTree.recovered` says so.

Given a :class:`~bpe_core.TrainResult` instead of a tokenizer, each merged
node also carries what training recorded when the rule was learned: the step,
the pair's count, and up to :data:`MAX_PLACES` places in the corpus where the
pair was counted.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from ..encoding.encoder import Tokenizer
from ..errors import QUOTE_LIMIT, TokenIdError, quote
from ..training.result import TrainResult

MAX_PLACES = 5
"""How many corpus places a node of a trained table lists."""

NodeKind = Literal["merge", "base", "special", "fallback"]
"""What a node of a merge tree is: a merge's token, a base symbol (a character or byte of the alphabet), a
special token (cut out of the text before pre-tokenization, such as GPT-2's ``<|endoftext|>``) or a fallback
token (``<unk>``, ``<0xNN>``: stands for what the alphabet lacks)."""


@dataclass(frozen=True)
class CorpusPlace:
    """One place in the training corpus where a pair was counted just before its merge.

    Attributes:
        word_index: the word's index in ``TrainResult.words`` (distinct pre-tokens, corpus order).
        word: the pre-token's text.
        freq: how often the pre-token occurs (each occurrence adds ``freq`` to the pair's count).
        offset: the character offset in ``word`` where the pair's left symbol starts.
        position: the index in ``symbols`` of the pair's left symbol.
        symbols: the word's segmentation just before the merge, as token strings.
    """

    word_index: int
    word: str
    freq: int
    offset: int
    position: int
    symbols: tuple[str, ...]


@dataclass(frozen=True)
class MergeTree:
    """A token and the merges that built it, down to base symbols.

    Attributes:
        token: the token's display string (``Ġthe``, ``est</w>``).
        token_id: its id in the tokenizer's vocabulary.
        data: the bytes it decodes to.
        rank: the merge rank that formed it (see the module docstring);
            ``None`` for a base symbol, a special token or a fallback token.
        left, right: the two subtrees the merge joined; ``None`` for a leaf.
        recovered: True when the pair was recovered from a tiktoken rank file
            rather than read from a merge table.
        step: tables trained here only: the Train page's step number of the
            merge, ``rank + 1``; else ``None``.
        count: trained tables only: the pair's count (weighted by word
            frequency) when it was merged; else ``None``.
        places: trained tables only: up to :data:`MAX_PLACES` places where the
            pair was counted, in corpus order; else empty.
        kind: what the node is (:data:`NodeKind`): ``"merge"`` for a node with two
            children; a leaf is a ``"base"`` symbol, a ``"special"`` token or a ``"fallback"``
            token (neither of the last two is ever formed by a merge, nor part of one).
    """

    token: str
    token_id: int
    data: bytes
    rank: int | None
    left: MergeTree | None = None
    right: MergeTree | None = None
    recovered: bool = False
    step: int | None = None
    count: int | None = None
    places: tuple[CorpusPlace, ...] = ()
    kind: NodeKind = "base"

    @property
    def is_leaf(self) -> bool:
        """True for a base symbol, special token or fallback token (no merge formed it)."""
        return self.left is None

    def leaves(self) -> list[MergeTree]:
        """The base symbols under this node, left to right; their ``data`` joins to ``self.data``."""
        return [node for node in self.nodes() if node.is_leaf]

    def nodes(self) -> Iterator[MergeTree]:
        """Every node, depth first, each node before its children, left before right."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            if node.right is not None:
                stack.append(node.right)
            if node.left is not None:
                stack.append(node.left)

    def depth(self) -> int:
        """The number of merges on the longest path from this node to a leaf (0 for a leaf)."""
        if self.left is None or self.right is None:
            return 0
        return 1 + max(self.left.depth(), self.right.depth())

    def num_merges(self) -> int:
        """How many merges the tree holds (internal nodes)."""
        return sum(1 for node in self.nodes() if not node.is_leaf)


# ---------------------------------------------------------------- the adapter to the tokenizer


def _merge_rules(tokenizer: Tokenizer) -> tuple[Sequence[tuple[int, int, int]], bool]:
    """The tokenizer's merge table as ``(left_id, right_id, new_id)`` in rank order, and whether ranks
    are the new token's id (tiktoken rank files, ``merge_by="bytes"``) rather than the rule's position.

    The one place that reads the tokenizer's merge table by id (see the project's interface notes).
    """
    return tokenizer.model.merge_ids, _ranks_are_ids(tokenizer)


def _ranks_are_ids(tokenizer: Tokenizer) -> bool:
    """Whether ranks are the new token's id (see :func:`_merge_rules`), without copying the merge table."""
    return tokenizer.model.merge_by == "bytes"


_RULES: weakref.WeakKeyDictionary[Tokenizer, dict[int, tuple[int, int, int]]] = weakref.WeakKeyDictionary()


def _rule_index(tokenizer: Tokenizer) -> dict[int, tuple[int, int, int]]:
    """``new_id -> (rank, left_id, right_id)`` for the lowest-ranked rule forming each token (cached per tokenizer)."""
    index = _RULES.get(tokenizer)
    if index is None:
        rules, by_id = _merge_rules(tokenizer)
        index = {}
        for position, (a, b, new) in enumerate(rules):
            if new not in index:
                index[new] = (new if by_id else position, a, b)
        _RULES[tokenizer] = index
    return index


# ---------------------------------------------------------------- building trees


def merge_tree(source: Tokenizer | TrainResult, token_id: int | str) -> MergeTree:
    """The tree of merges that built token ``token_id``, down to base symbols.

    Args:
        source: a :class:`~bpe_core.Tokenizer` (any table: trained, GPT-2,
            cl100k_base, loaded from a file), or a :class:`~bpe_core.TrainResult`,
            whose nodes then also give ``step``, ``count`` and ``places``.
        token_id: an id of the tokenizer's vocabulary (or its digits as text, read by :func:`token_id_of`).

    Returns:
        A :class:`MergeTree`. Ranks strictly increase from the leaves to the root
        (a rule can only join symbols formed by earlier rules), except where a
        rank file ranks a token below every split of its bytes, which tiktoken
        can then never form by merging. When two rules form the same token
        string (possible in hand-made and Hugging Face tables), the tree follows
        the lower-ranked one, the first that can form it.

    Raises:
        TokenIdError: ``token_id`` is not an id of the vocabulary (the message says how many
            tokens it holds, as :func:`token_id_of`).
    """
    result = source if isinstance(source, TrainResult) else None
    tokenizer = source.tokenizer if isinstance(source, TrainResult) else source
    if not isinstance(tokenizer, Tokenizer):
        raise TypeError(f"merge_tree needs a Tokenizer or a TrainResult, not {type(source).__name__}")
    token_id = token_id_of(tokenizer, token_id)
    index = _rule_index(tokenizer)
    recovered = _ranks_are_ids(tokenizer)  # _merge_rules would copy the whole table (200,000 rules) per tree
    training = _TrainingInfo(result) if result is not None else None
    built: dict[int, MergeTree] = {}
    # Post-order without recursion: a tiktoken token of 128 spaces is a chain of up to 127 merges.
    stack = [token_id]
    while stack:
        tid = stack[-1]
        if tid in built:
            stack.pop()
            continue
        rule = index.get(tid)
        if rule is None:
            kind = _leaf_kind(tokenizer, tid)
            built[tid] = MergeTree(
                tokenizer.model.id_to_token(tid), tid, tokenizer.model.token_bytes(tid), None, kind=kind
            )
            stack.pop()
            continue
        rank, a, b = rule
        pending = [c for c in (a, b) if c not in built]
        if pending:
            stack.extend(pending)
            continue
        stack.pop()
        extra = training.node(rank, tid) if training is not None else {}
        built[tid] = MergeTree(
            tokenizer.model.id_to_token(tid),
            tid,
            tokenizer.model.token_bytes(tid),
            rank,
            built[a],
            built[b],
            recovered=recovered,
            kind="merge",
            **extra,
        )
    return built[token_id]


def _leaf_kind(tokenizer: Tokenizer, token_id: int) -> NodeKind:
    """What a token no merge rule forms is: a special token, a fallback token or a base symbol."""
    if token_id in tokenizer.specials.ids.values():
        return "special"
    if token_id in tokenizer.model.fallback_ids:
        return "fallback"
    return "base"


def token_id_of(tokenizer: Tokenizer, value: int | str) -> int:
    """The id of ``tokenizer``'s vocabulary that ``value`` names: an ``int``, or its ASCII digits as text
    (a link's ``?token=262``; no sign, no spaces).

    A number of any length is read without converting it whole (Python refuses ``int()`` past 4,300
    digits), and messages quote the value through :func:`bpe_core.errors.quote`, so a hostile link costs
    no more than a short one.

    Args:
        tokenizer: the vocabulary.
        value: the id, as a number or as text.

    Returns:
        The id, ``0 <= id < len(tokenizer)``, assigned to a token.

    Raises:
        TokenIdError: ``value`` is not a whole number (text other than digits, a bool, a float), is
            outside the vocabulary (the message says how many tokens it holds), or is an id that no
            token has (a gap in a loaded vocabulary).
    """
    size = len(tokenizer)
    gaps = tokenizer.model.table.gaps
    if isinstance(value, str) and value.isascii() and value.isdigit():
        digits = value.lstrip("0") or "0"
        long = len(digits) > len(str(size))  # past every id: not converted (it may have 5,000 digits)
        shown = digits if len(digits) <= QUOTE_LIMIT else f"(an integer of {len(digits):,} digits)"
        value = size if long else int(digits)
    elif isinstance(value, int) and not isinstance(value, bool):
        shown = quote(value)
        shown = shown if shown[0] in "-0123456789" else f"({shown})"
    else:
        raise TokenIdError(f"a token id is a whole number from 0 to {size - 1:,}; got {quote(value)}")
    if not 0 <= value < size:
        unassigned = f", {len(gaps):,} of them unassigned" if gaps else ""
        raise TokenIdError(
            f"token id {shown} is outside the vocabulary of {size - len(gaps):,} tokens "
            f"(ids 0 to {size - 1:,}{unassigned})"
        )
    if value in gaps:
        raise TokenIdError(f"token id {value:,} is not assigned: this vocabulary has no token with that id")
    return value


def merge_rules(tokenizer: Tokenizer) -> list[tuple[int, int, int, int]]:
    """The tokenizer's merge table by id: ``(rank, left_id, right_id, token_id)`` per rule, in rank order.

    ``rank`` is the merge priority as :func:`merge_tree` gives it (the rule's
    position, or for a tiktoken rank file the token's rank).
    """
    rules, by_id = _merge_rules(tokenizer)
    return [(new if by_id else rank, a, b, new) for rank, (a, b, new) in enumerate(rules)]


def find_tokens(tokenizer: Tokenizer, text: str, limit: int = 20) -> list[int]:
    """Token ids whose text matches ``text``: the exact token first, then tokens containing it, shortest first.

    A token matches when its display string (``Ġthe``, ``est</w>``) or the text its
    bytes decode to (`` the``) equals or contains ``text``; an all-digit
    ``text`` that is a valid id also matches that id. The first search of a
    tokenizer decodes its vocabulary once (kept while the tokenizer lives).

    Args:
        tokenizer: the vocabulary to search.
        text: what to look for (an empty string matches nothing).
        limit: at most this many ids.

    Returns:
        Ids, exact matches first, then by length of the token, then by id.
    """
    if not text:
        return []
    exact: list[int] = []
    partial: list[tuple[int, int]] = []
    if text.isascii() and text.isdigit():  # ``"²".isdigit()`` too, but ``int("²")`` raises
        try:
            exact.append(token_id_of(tokenizer, text))
        except TokenIdError:
            pass
    for tid, string, shown in _search_index(tokenizer):
        if text == string or text == shown:
            if tid not in exact:
                exact.append(tid)
        elif text in string or text in shown:
            partial.append((len(shown), tid))
    partial.sort()
    return (exact + [tid for _n, tid in partial])[:limit]


_SEARCH: weakref.WeakKeyDictionary[Tokenizer, list[tuple[int, str, str]]] = weakref.WeakKeyDictionary()


def _search_index(tokenizer: Tokenizer) -> list[tuple[int, str, str]]:
    """``(id, display string, decoded text)`` for every token, in id order (cached per tokenizer)."""
    index = _SEARCH.get(tokenizer)
    if index is None:
        data = tokenizer.model.token_bytes
        index = sorted((tid, s, data(tid).decode("utf-8", "replace")) for s, tid in tokenizer.model.vocab.items())
        _SEARCH[tokenizer] = index
    return index


class _TrainingInfo:
    """What a training run recorded about each merge: step, count, corpus places."""

    def __init__(self, result: TrainResult) -> None:
        self.result = result
        self._word_index: dict[str, int] | None = None
        self._vocab: dict[str, int] | None = None

    def node(self, rank: int, token_id: int) -> dict[str, object]:
        """``step``, ``count`` and ``places`` for the merge of ``rank``, or nothing if training did not learn it."""
        result = self.result
        # the summary, not result.steps[rank]: a step ranks every pair counting then (O(pairs) per node)
        if not 0 <= rank < result.num_merges or result.summaries[rank].token_id != token_id:
            return {}
        step = result.summaries[rank]
        return {"step": rank + 1, "count": step.count, "places": self.places(rank, step.pair)}

    def places(self, rank: int, pair: tuple[str, str]) -> tuple[CorpusPlace, ...]:
        """Up to :data:`MAX_PLACES` places where ``pair`` stood just before merge ``rank``, in corpus order."""
        result = self.result
        out: list[CorpusPlace] = []
        for word_index, symbols in self._segmentations(rank):
            for i in range(len(symbols) - 1):
                if (symbols[i], symbols[i + 1]) == pair:
                    word, freq = result.words[word_index]
                    out.append(CorpusPlace(word_index, word, freq, self._offset(symbols[:i]), i, symbols))
                    if len(out) == MAX_PLACES:
                        return tuple(out)
        return tuple(out)

    def _segmentations(self, rank: int) -> Iterator[tuple[int, tuple[str, ...]]]:
        """``(word index, segmentation before merge rank)`` of words holding the pair, in corpus order."""
        result = self.result
        try:
            changes = result.views.word_changes(rank, limit=MAX_PLACES)
        except ValueError:  # trained with trace=False: scan the words instead
            for w in range(len(result.words)):
                yield w, result.views.segmentation(w, rank)
            return
        if self._word_index is None:
            self._word_index = {word: w for w, (word, _freq) in enumerate(result.words)}
        positions = self._word_index
        for change in changes:
            yield positions[change.word], change.before

    def _offset(self, symbols: Sequence[str]) -> int:
        """The number of characters the tokens ``symbols`` spell (a byte cut inside a character counts it not)."""
        tokenizer = self.result.tokenizer
        if self._vocab is None:
            self._vocab = tokenizer.model.vocab
        vocab = self._vocab
        data = b"".join(tokenizer.model.token_bytes(vocab[s]) for s in symbols)
        return len(data.decode("utf-8", "ignore"))

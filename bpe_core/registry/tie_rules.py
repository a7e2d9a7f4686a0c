"""Tie rules: which pair wins when several share the highest count, one registry object per rule.

Every rule is deterministic; none depends on hash order or ``PYTHONHASHSEED``.
Each rule is expressed as a sort key where the *smallest* key wins. A rule is one
:class:`TieRule` subclass holding its name, description, source, whether it is
positional and its key; :data:`RULES` is the registry the option list, the trainer,
the result queries, the checker and the page text read (names, descriptions, count).
Adding a rule is one more class in :data:`_RULES` (and its test). This module imports
nothing from the rest of ``bpe_core`` but the pair-key layout, so
:mod:`bpe_core.registry.options` may read it.

``first_seen``
    The tied pair whose first occurrence comes earliest when the distinct words
    are scanned in order of first appearance, each left to right. This is what
    Python's ``max`` over an insertion-ordered count dict returns, as in
    karpathy/minbpe ``get_stats`` and tiktoken's ``_educational.py``
    ``bpe_train``.
``alphabetical``
    The smallest pair by string comparison of its two symbols (left, then right).
``subword_nmt``
    The largest pair by the same comparison: subword-nmt ``learn_bpe.py`` picks
    ``max(stats, key=lambda x: (stats[x], x))``.
``hf_tokenizers``
    The smallest pair of ids, as Hugging Face ``BpeTrainer`` orders its merge
    queue (``Merge::cmp`` in ``tokenizers/src/models/bpe/trainer.rs``), with ids
    as it assigns them: special tokens, then the alphabet sorted by code point
    (the byte unit sorted by its GPT-2-rendered character), then merges in order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from .pairkeys import SHIFT

PairKey = Callable[[int, int], object]
"""``key(left_id, right_id)``: a tie rule's sort key for one pair; the smallest key wins."""


def short_word(text: str, limit: int = 24) -> str:
    """``repr`` of a word, cut to ``limit`` characters, for tie keys and messages."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "…"


@dataclass(frozen=True)
class FirstSeen:
    """Where a pair first occurs when the distinct words are scanned in corpus order, each left to right.

    Attributes:
        word: the word's index among the distinct words (corpus order, 0-based; the
            sentence counts words from 1: "first seen in word 3 'newest' at offset 3").
        text: the word's text.
        offset: the pair's left symbol's offset in the word, counted in base
            symbols (characters or bytes, the end-of-word marker included).
        position: the same place as one number over the whole corpus (word
            after word), which orders first occurrences.
    """

    word: int
    text: str
    offset: int
    position: int

    def __str__(self) -> str:
        return f"first seen in word {self.word + 1} {short_word(self.text)} at offset {self.offset}"


class TieRule:
    """One tie rule: how it orders tied pairs and how it describes the value it compared.

    ``strings`` is id -> display string and ``hf_rank`` id -> Hugging Face id
    (see :class:`bpe_core.text.symbols.SymbolTable`).

    Attributes:
        name: the option value (``tie_break="first_seen"``).
        description: one line for help texts, with its source.
        short: how a sentence names it ("the pair seen first"), for the lessons' text.
        positional: the key is where a pair is first seen (which changes as merges
            rewrite the corpus); the other rules' keys depend on the pair's symbols only.
    """

    name = ""
    description = ""
    short = ""
    positional = False

    def identity_keys(self, keys: Sequence[object]) -> bool:
        """True when ``pair_key(keys)`` is the pair key ``left * SHIFT + right`` itself (a trainer shortcut)."""
        return False

    def symbol_key(self, string: str, hf_rank: int) -> object:
        """The per-symbol part of a static rule's key (not used by positional rules)."""
        raise NotImplementedError

    def pair_key(self, keys: Sequence[object]) -> PairKey:
        """``key(left, right)`` from per-symbol keys (``keys[i] = symbol_key(...)`` of id ``i``)."""
        return lambda a, b: (keys[a], keys[b])

    def static_key(self, strings: Sequence[str], hf_rank: Sequence[int]) -> PairKey:
        """``key(left, right)`` over a finished symbol table."""
        return self.pair_key([self.symbol_key(s, r) for s, r in zip(strings, hf_rank)])

    def order(
        self,
        pairs: list[tuple[int, int]],
        strings: Sequence[str],
        hf_rank: Sequence[int],
        first_seen: Mapping[tuple[int, int], FirstSeen] | None = None,
        key: PairKey | None = None,
    ) -> list[tuple[int, int]]:
        """``pairs`` (symbol ids) sorted best first; ``first_seen`` is needed by positional rules.

        Pairs with equal keys (two symbols that render alike) fall back to id order,
        as the trainer's heap does. ``key`` is :meth:`static_key` of ``strings``
        and ``hf_rank``, when the caller keeps it (it costs a pass over every symbol).
        """
        if self.positional:
            assert first_seen is not None
            return sorted(pairs, key=lambda p: first_seen[p].position)
        pair_key = key or self.static_key(strings, hf_rank)
        return sorted(pairs, key=lambda p: (pair_key(*p), p))

    def describe(
        self, strings: Sequence[str], hf_rank: Sequence[int], left: int, right: int, where: FirstSeen | None = None
    ) -> str:
        """A short sentence giving the value the rule compared for the pair ``(left, right)``."""
        raise NotImplementedError


class FirstSeenRule(TieRule):
    """``first_seen``: the earliest first occurrence wins (minbpe ``get_stats`` + ``max``)."""

    name = "first_seen"
    description = (
        "the tied pair that occurs first in the corpus wins (Karpathy's minbpe, tiktoken's educational trainer)."
    )
    short = "the pair seen first"
    positional = True

    def describe(self, strings, hf_rank, left, right, where=None) -> str:  # noqa: D102
        return str(where) if where is not None else ""


class AlphabeticalRule(TieRule):
    """``alphabetical``: the smallest pair of strings wins."""

    name = "alphabetical"
    description = "the tied pair that sorts first by its two symbols wins (a fixed, readable rule)."
    short = "the alphabetically smallest"

    def symbol_key(self, string: str, hf_rank: int) -> object:  # noqa: D102
        return string

    def describe(self, strings, hf_rank, left, right, where=None) -> str:  # noqa: D102
        return f"{strings[left]!r} {strings[right]!r} (smallest wins)"


class SubwordNmtRule(TieRule):
    """``subword_nmt``: the largest pair of strings wins (``max(stats, key=lambda x: (stats[x], x))``)."""

    name = "subword_nmt"
    description = (
        "the tied pair that sorts last by its two symbols wins (subword-nmt learn_bpe: max over (count, pair))."
    )
    short = "subword-nmt's largest"

    def symbol_key(self, string: str, hf_rank: int) -> object:  # noqa: D102
        return (*(-ord(c) for c in string), 1)  # sorts strings in descending order

    def describe(self, strings, hf_rank, left, right, where=None) -> str:  # noqa: D102
        return f"{strings[left]!r} {strings[right]!r} (largest wins)"


class HfTokenizersRule(TieRule):
    """``hf_tokenizers``: the smallest pair of Hugging Face ids wins (``Merge::cmp``)."""

    name = "hf_tokenizers"
    description = "the tied pair with the smallest symbol ids wins (Hugging Face tokenizers' BpeTrainer)."
    short = "Hugging Face's smallest ids"

    def symbol_key(self, string: str, hf_rank: int) -> object:  # noqa: D102
        return hf_rank

    def pair_key(self, keys: Sequence[object]) -> PairKey:  # noqa: D102
        return lambda a, b: keys[a] * SHIFT + keys[b]  # type: ignore[operator]

    def identity_keys(self, keys: Sequence[object]) -> bool:  # noqa: D102
        return list(keys) == list(range(len(keys)))

    def describe(self, strings, hf_rank, left, right, where=None) -> str:  # noqa: D102
        return f"ids ({hf_rank[left]}, {hf_rank[right]}) (smallest wins)"


_RULES: tuple[TieRule, ...] = (FirstSeenRule(), AlphabeticalRule(), SubwordNmtRule(), HfTokenizersRule())
"""Every tie rule, in menu order: adding one is adding it here."""


def registry(rules: Iterable[TieRule]) -> Mapping[str, TieRule]:
    """A read-only registry from rule objects, by name, in the order given.

    Raises:
        ValueError: two rules share a name, or a rule has no name or description.
    """
    out: dict[str, TieRule] = {}
    for rule in rules:
        if not rule.name or not rule.description or rule.name in out:
            raise ValueError(f"tie rule {rule.name!r}: a name of its own and a description are needed")
        out[rule.name] = rule
    return MappingProxyType(out)


RULES: Mapping[str, TieRule] = registry(_RULES)
"""Every tie rule's object, by name, in menu order (read only; ``bpe_core.TIE_RULE_SPECS``)."""

TIE_BREAKS: Mapping[str, str] = MappingProxyType({name: rule.description for name, rule in RULES.items()})
"""Every tie rule with a one-line description (the ``tie_break`` option's choices,
:data:`bpe_core.registry.options.OPTIONS`)."""


def tie_rule(name: str, rules: Mapping[str, TieRule] = RULES) -> TieRule:
    """The rule object called ``name`` (a key of :data:`TIE_BREAKS`, or of ``rules``).

    Raises:
        KeyError: an unknown name (check it with :func:`bpe_core.registry.options.check_training` first).
    """
    return rules[name]


def pick(
    rule: TieRule, stats: Mapping[tuple[int, int], int], strings: Sequence[str], hf_rank: Sequence[int]
) -> tuple[int, int]:
    """The winning pair of a freshly recounted, insertion-ordered ``stats`` dict, from the rule's definition.

    ``first_seen`` is Python's ``max`` over the dict (the first of the tied
    pairs in insertion order wins); the other rules take the smallest key among
    the tied pairs. Used by the naive reference trainer.
    """
    if rule.positional:
        return max(stats, key=stats.__getitem__)
    top = max(stats.values())
    key = rule.static_key(strings, hf_rank)
    # Equal keys (a typed "</w>" and the marker render alike) fall back to id order, as the trainer's heap does.
    return min((p for p, c in stats.items() if c == top), key=lambda p: (key(*p), p))

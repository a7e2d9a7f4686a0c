"""Tie rules: which pair wins when several share the highest count.

Every rule is deterministic; none depends on hash order or ``PYTHONHASHSEED``.
Each rule is expressed as a sort key where the *smallest* key wins.

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

from collections.abc import Callable

from .symbols import SHIFT, SymbolTable

TIE_BREAKS: dict[str, str] = {
    "first_seen": "Earliest first occurrence in corpus order (Python max over an insertion-ordered dict; minbpe).",
    "alphabetical": "Smallest pair by string comparison of its two symbols.",
    "subword_nmt": "Largest pair by string comparison, as subword-nmt learn_bpe does.",
    "hf_tokenizers": "Smallest pair of ids, as Hugging Face BpeTrainer does.",
}
"""Every tie rule with a one-line description."""


def _reverse_string_key(s: str) -> tuple[int, ...]:
    """A key that sorts strings in *descending* order: ``a > b`` iff ``key(a) < key(b)``."""
    return (*(-ord(c) for c in s), 1)


class StaticKeys:
    """Per-symbol sort keys for the rules whose key does not change during training.

    Args:
        rule: ``alphabetical``, ``subword_nmt`` or ``hf_tokenizers``.
        table: the symbol table; call :meth:`grow` after adding symbols to it.
    """

    def __init__(self, rule: str, table: SymbolTable) -> None:
        self.rule = rule
        self.table = table
        self.keys: list[object] = []
        self.grow()

    def grow(self) -> None:
        """Compute keys for symbols added to the table since the last call."""
        t = self.table
        for i in range(len(self.keys), len(t.strings)):
            if self.rule == "alphabetical":
                self.keys.append(t.strings[i])
            elif self.rule == "subword_nmt":
                self.keys.append(_reverse_string_key(t.strings[i]))
            else:
                self.keys.append(t.hf_rank[i])

    def pair_key(self) -> Callable[[int, int], object]:
        """Return ``key(left_id, right_id)``; the smallest key wins a tie."""
        keys = self.keys
        if self.rule == "hf_tokenizers":
            return lambda a, b: keys[a] * SHIFT + keys[b]  # type: ignore[operator]
        return lambda a, b: (keys[a], keys[b])


def describe_key(rule: str, table: SymbolTable, left: int, right: int, position: str = "") -> str:
    """A short sentence giving the value a tie rule compared for one pair.

    Args:
        rule: the tie rule's name.
        table: the symbol table.
        left, right: the pair's symbol ids.
        position: for ``first_seen``, where the pair was first seen (already in words).
    """
    s = table.strings
    if rule == "first_seen":
        return position
    if rule == "alphabetical":
        return f"{s[left]!r} {s[right]!r} (smallest wins)"
    if rule == "subword_nmt":
        return f"{s[left]!r} {s[right]!r} (largest wins)"
    return f"ids ({table.hf_rank[left]}, {table.hf_rank[right]}) (smallest wins)"

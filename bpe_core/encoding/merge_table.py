"""A merge table written as display strings, turned into a symbol table and merge ids.

:meth:`bpe_core.Tokenizer.from_merges` reads hand-written and imported tables
this way: each rule must name base symbols or tokens an earlier rule formed,
ids follow the vocabulary order (special tokens, alphabet, marker symbols,
then one id per new token string in rule order; a rule whose result string
already exists reuses that id, as Hugging Face does).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import MergeTableError, quote
from ..text.byte_level import unicode_to_bytes
from ..text.symbols import MARKER_LAYOUTS, UNIT_KINDS, SymbolTable

__all__ = ["check_rules", "table_from_rules"]


def check_rules(merges: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """Validate a merge table's shape: a sequence of pairs of non-empty strings.

    Args:
        merges: ``[(left, right), ...]`` in rank order.

    Returns:
        The rules as a list of ``(left, right)`` tuples.

    Raises:
        MergeTableError: ``merges`` is a string, or a rule is not a pair of non-empty strings (naming its rank).
    """
    if isinstance(merges, (str, bytes)):
        raise MergeTableError("merges must be a list of (left, right) pairs, not a string")
    rules = []
    for rank, rule in enumerate(merges):
        if not isinstance(rule, (tuple, list)) or len(rule) != 2:
            raise MergeTableError(f"merge rule {rank} must be a pair (left, right), got {quote(rule)}")
        left, right = rule
        if not isinstance(left, str) or not isinstance(right, str) or not left or not right:
            raise MergeTableError(f"merge rule {rank} must hold two non-empty strings, got {quote(rule)}")
        rules.append((left, right))
    return rules


def _alphabet_of_rules(rules: list[tuple[str, str]], unit: str, eow: str | None, chars: set[str]) -> None:
    """Check that every symbol of ``rules`` is a base symbol or formed earlier; collect char-unit bases in ``chars``."""
    byte_chars = unicode_to_bytes()
    layout, byte_level = MARKER_LAYOUTS[eow], UNIT_KINDS[unit].byte_level
    known: set[str] = set(layout.own_symbols)
    for rank, (left, right) in enumerate(rules):
        for part in (left, right):
            if part in known:
                continue
            ch = layout.base_char(part)
            if ch is None:
                raise MergeTableError(
                    f"merge rule {rank} ({quote(left)}, {quote(right)}): symbol {quote(part)} is neither a base "
                    "symbol nor formed by an earlier rule"
                )
            if byte_level and ch not in byte_chars:
                raise MergeTableError(
                    f"merge rule {rank} ({quote(left)}, {quote(right)}): {quote(ch)} is not in the byte-level "
                    "alphabet (GPT-2 byte-to-unicode characters)"
                )
            if not byte_level:
                chars.add(ch)
            known.add(part)
        known.add(left + right)


def table_from_rules(
    rules: list[tuple[str, str]], unit: str, eow: str | None, special_tokens: Iterable[str], alphabet: Iterable[str]
) -> tuple[SymbolTable, list[tuple[int, int, int]]]:
    """The symbol table and merge ids of a merge table written as strings.

    Args:
        rules: ``(left, right)`` display strings in rank order (checked by :func:`check_rules`).
        unit: ``"char"`` or ``"byte"``.
        eow: the end-of-word marker style, or ``None``.
        special_tokens: special tokens, given the first ids.
        alphabet: char unit: base characters beyond those the rules use.

    Returns:
        ``(table, merge_ids)``: ``(left_id, right_id, new_id)`` per rule.

    Raises:
        MergeTableError: a rule names a symbol no earlier rule formed, or a byte-unit symbol outside
            the byte-level alphabet (GPT-2 byte-to-unicode characters).
    """
    chars: set[str] = set(alphabet)
    _alphabet_of_rules(rules, unit, eow, chars)
    finals = UNIT_KINDS[unit].every_unit(chars) if MARKER_LAYOUTS[eow].twins else set()
    table = SymbolTable(unit, eow, special_tokens, chars=chars, final_units=finals)
    lookup: dict[str, int] = {}
    for i in range(table.num_special, len(table)):
        lookup.setdefault(table.strings[i], i)
    merge_ids = []
    for left, right in rules:
        a, b = lookup[left], lookup[right]
        new = lookup.get(left + right)
        if new is None:
            new = table.add_merge(a, b)
            lookup[left + right] = new
        merge_ids.append((a, b, new))
    return table, merge_ids

"""Exceptions raised by the BPE engine.

Every error the engine raises on bad input is a subclass of :class:`BPEError`,
which is itself a :class:`ValueError`, so callers may catch either.

Messages quote input through :func:`quote`, which cuts a long value to a
readable length and says how long it was, so a 10 MB symbol in a file gives a
message of a few hundred characters, not a copy of the symbol.
"""

from __future__ import annotations

import math
import reprlib

QUOTE_LIMIT = 60
"""The longest quotation of input in a message, in characters (about one line of a page at 1280 px)."""

_INT_STR_BITS = 14_000
"""Integers up to this many bits have fewer than 4,300 digits, so ``str()`` converts them (Python 3.11's limit)."""


def _fitting(value: str | bytes, limit: int) -> tuple[int, str]:
    """``(k, repr of value[:k])`` for the largest ``k`` (at least 1) whose ``repr`` holds at most ``limit``
    characters between its quotes.

    Each unit's escape is at most 10 characters (``'\\U000e0000'``), so only the first
    ``limit`` units are looked at: the cost does not grow with ``value``.
    """
    head = value[:limit]
    room = limit + (3 if isinstance(value, bytes) else 2)  # the quotes (and b) do not count
    low, high = 1, len(head)
    while low < high:  # repr grows with k: bisect for the largest k that fits
        mid = (low + high + 1) // 2
        if len(repr(head[:mid])) <= room:
            low = mid
        else:
            high = mid - 1
    return low, repr(head[:low])


def quote(value: object, limit: int = QUOTE_LIMIT) -> str:
    """Quote a value taken from the input, for an error message: its ``repr``, cut to a readable length.

    A string or bytes value whose ``repr`` fits in ``limit`` characters is
    quoted whole; a longer one is cut, marked ``…`` after the closing quote, and
    its length is given: ``'aaaa'… (10,000,000 characters)``, ``b'\\x00'… (5 bytes)``.
    An integer of more than ``limit`` digits is described (``an integer of 5,000 digits``) without
    converting it (Python refuses ``str()`` past 4,300 digits). Containers are
    quoted by :mod:`reprlib` (at most 4 items, 3 levels) with each string cut the same way;
    other objects' ``repr`` is cut in the middle by :mod:`reprlib`.

    The cost is bounded by ``limit``, not by the value (no ``repr`` of the whole value is built
    for strings, bytes, integers or containers).

    Args:
        value: the value to quote.
        limit: the most characters a quoted string or bytes may take (a bit more with the length note).

    Returns:
        The quotation, at most about ``limit + 30`` characters for a string, bytes or integer.
    """
    return _QUOTER.repr(value) if limit == QUOTE_LIMIT else _Quoter(limit).repr(value)


class _Quoter(reprlib.Repr):
    """:mod:`reprlib` with strings and bytes cut from the end and their length said (see :func:`quote`)."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.maxlevel = 3
        self.maxtuple = self.maxlist = self.maxarray = self.maxdict = 4
        self.maxset = self.maxfrozenset = self.maxdeque = 4
        self.maxstring = self.maxother = self.maxlong = limit

    def repr1(self, x: object, level: int) -> str:
        if isinstance(x, (str, bytes, bytearray)) and type(x) not in (str, bytes, bytearray):
            x = bytes(x) if isinstance(x, (bytes, bytearray)) else str.__str__(x)  # a str subclass: its text
        return super().repr1(x, level)

    def repr_str(self, x: str, level: int) -> str:
        return self._cut(x, "characters", len(x), level)

    def repr_bytes(self, x: bytes, level: int) -> str:
        return self._cut(x, "bytes", len(x), level)

    def repr_bytearray(self, x: bytearray, level: int) -> str:
        return self._cut(bytes(x[: self.maxstring]), "bytes", len(x), level)

    def _cut(self, x: str | bytes, unit: str, size: int, level: int) -> str:
        """The quotation of a string or bytes; inside a container (``level`` below the top) a third as long."""
        limit = self.maxstring if level >= self.maxlevel else max(8, self.maxstring // 3)
        k, shown = _fitting(x, limit) if size else (0, repr(x))
        return shown if k == size else f"{shown}… ({size:,} {unit})"

    def repr_int(self, x: int, level: int) -> str:
        bits = abs(x).bit_length()
        if bits <= _INT_STR_BITS:
            text = repr(x)
            return text if len(text) <= self.maxlong else f"an integer of {len(text.lstrip('-')):,} digits"
        return f"an integer of about {int(bits * math.log10(2)) + 1:,} digits"


_QUOTER = _Quoter(QUOTE_LIMIT)


class BPEError(ValueError):
    """Base class for every error raised on bad input by ``bpe_core``."""


class OptionError(BPEError):
    """An option (pre-tokenizer, unit, tie rule, ...) has an unknown value or a bad type."""


class EmptyCorpusError(BPEError):
    """The corpus holds no word to learn from (empty, or only whitespace or special tokens)."""


class BudgetError(BPEError):
    """A merge or vocabulary budget is impossible (negative, or below the alphabet)."""


class MergeTableError(BPEError):
    """A merge table cannot be used: a rule names a symbol that was never formed,
    a byte-level table lacks single bytes, or a line of a file is malformed."""


class TokenIdError(BPEError):
    """A token id passed to ``decode`` (or a token view) is outside the vocabulary."""


class SpecialTokenError(BPEError):
    """Special tokens that cannot be used: empty, too long, too many, or covering the whole corpus."""


class ResourceLimitError(BPEError):
    """An input whose processing would pass a size limit (nesting depth, digits, memory); the message says which."""


class PatternError(BPEError):
    """A split pattern cannot be used: it is too long, or matching it ran past its time limit
    (catastrophic backtracking, e.g. ``(a|a)+$``). The message names the pattern."""


class SurrogateError(BPEError):
    """Text holds a lone surrogate code point (U+D800..U+DFFF without its pair), which is not Unicode text.

    The message gives the position (in code points) of the first one."""

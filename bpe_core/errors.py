"""Exceptions raised by the BPE engine.

Every error the engine raises on bad input is a subclass of :class:`BPEError`,
which is itself a :class:`ValueError`, so callers may catch either.
"""

from __future__ import annotations


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


class PatternError(BPEError):
    """A split pattern cannot be used: it is too long, or matching it ran past its time limit
    (catastrophic backtracking, e.g. ``(a|a)+$``). The message names the pattern."""


class SurrogateError(BPEError):
    """Text holds a lone surrogate code point (U+D800..U+DFFF without its pair), which is not Unicode text.

    The message gives the position (in code points) of the first one."""

"""Corpus input: raw text or a word-frequency mapping -> distinct pre-tokens with counts."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterable, Mapping
from itertools import islice

from ..errors import BPEError, EmptyCorpusError, ResourceLimitError
from ..memory import COUNTED_WORD_BYTES, MemoryBudget
from .pretokenize import count_pretokens, split_special
from .surrogates import check_text

Corpus = str | Mapping[str, int]
"""What :func:`bpe_core.train` accepts: raw text, or ``{word: frequency}``."""

MAX_WORD_FREQUENCY = 2**48
"""Largest frequency a word-frequency mapping may give one word: pair counts are kept in 64-bit integers."""
MAX_TOTAL_SYMBOLS = 2**62
"""Largest total of frequency x length over a mapping's words (the count of every symbol, in 64 bits)."""


def word_counts(
    corpus: Corpus, pretokenizer: str, special_tokens: Iterable[str] = (), budget: MemoryBudget | None = None
) -> dict[str, int]:
    """Count the distinct pre-tokens of a corpus, in order of first appearance.

    Args:
        corpus: raw text, cut by ``pretokenizer`` after special tokens are taken
            out (special tokens are never learned from); or a mapping
            ``{pre-token: frequency}`` that is taken as already pre-tokenized
            (each key is one pre-token; insertion order is kept), the form
            textbooks use (``{"low": 5, "lower": 2}``).
        pretokenizer: a name from :data:`bpe_core.text.pretokenize.PRETOKENIZERS`.
        special_tokens: literal strings to cut out of raw text.
        budget: a memory budget: raw text is counted a slice at a time and the
            distinct pre-tokens' size checked after each slice; a mapping's copy is
            checked before it is made. What the counts hold stays on the budget.

    Returns:
        ``{pre-token: count}`` in order of first appearance; counts are >= 1.

    Raises:
        TypeError: ``corpus`` is neither ``str`` nor a mapping (``bytes`` must
            be decoded first), or a mapping has a non-str key or a non-int count.
        BPEError: a mapping count is below 1.
        ResourceLimitError: a mapping count above :data:`MAX_WORD_FREQUENCY`, or
            counts whose total (frequency x length) passes :data:`MAX_TOTAL_SYMBOLS`.
        MemoryBudgetError: the distinct pre-tokens would not fit in ``budget``.
        SurrogateError: the text or a word holds a lone surrogate (see :func:`bpe_core.text.surrogates.check_text`).
        EmptyCorpusError: no pre-token remains (empty text, only whitespace,
            only special tokens, or an empty mapping).
    """
    if isinstance(corpus, (bytes, bytearray)):
        raise TypeError("the corpus is bytes; decode it to str first (e.g. data.decode('utf-8'))")
    if isinstance(corpus, str):
        counts: Counter[str] = Counter()
        tally = None if budget is None else CountsOnBudget(counts, budget).check
        for piece, special in split_special(corpus, special_tokens):
            if not special:
                count_pretokens(piece, pretokenizer, counts, tally)
        result = dict(counts)
    elif isinstance(corpus, Mapping):
        if budget is not None:
            budget.need(len(corpus) * COUNTED_WORD_BYTES, f"copying {len(corpus):,} word counts")
            budget.hold(len(corpus) * COUNTED_WORD_BYTES)
        result = {}
        for word, freq in corpus.items():
            if not isinstance(word, str):
                raise TypeError(f"word-frequency keys must be str, got {type(word).__name__}: {word!r}")
            if isinstance(freq, bool) or not isinstance(freq, int):
                raise TypeError(f"the frequency of {word!r} must be an int, got {type(freq).__name__}")
            if freq < 1:
                raise BPEError(f"the frequency of {word[:40]!r} must be at least 1, got {_size(freq)}")
            if freq > MAX_WORD_FREQUENCY:
                raise ResourceLimitError(
                    f"the frequency of {word[:40]!r} is {_size(freq)}; at most {MAX_WORD_FREQUENCY:,} "
                    "(2**48) is allowed, so that pair counts fit in 64 bits"
                )
            word = check_text(word)
            if word:
                result[word] = result.get(word, 0) + freq
        if sum(len(w) * f for w, f in result.items()) > MAX_TOTAL_SYMBOLS:
            raise ResourceLimitError(
                f"the word counts add up to more than {MAX_TOTAL_SYMBOLS:,} symbols (2**62): pair counts would "
                "not fit in 64 bits"
            )
    else:
        raise TypeError(f"corpus must be str or a mapping of word -> count, not {type(corpus).__name__}")
    if not result:
        raise EmptyCorpusError(
            "the corpus has no words to learn from: it is empty, or holds only whitespace or special tokens"
        )
    return result


class CountsOnBudget:
    """Keeps a budget informed of what a growing word count holds, checked after each slice of text.

    The words a slice added are the counter's last keys (dicts keep insertion
    order), so each check sizes only those: a pass over the new words, in C.

    Args:
        counts: the counter being filled (only ever added to).
        budget: the budget its words go on.
    """

    def __init__(self, counts: dict[str, int], budget: MemoryBudget) -> None:
        self.counts, self.budget, self.seen = counts, budget, 0

    def check(self) -> None:
        """Put the words added since the last check on the budget.

        Raises:
            MemoryBudgetError: they do not fit.
        """
        new = len(self.counts) - self.seen
        if not new:
            return
        added = sum(map(sys.getsizeof, islice(reversed(self.counts), new))) + new * COUNTED_WORD_BYTES
        self.seen += new
        self.budget.need(added, f"counting the {self.seen:,} distinct pre-tokens seen so far")
        self.budget.hold(added)


def _size(n: int) -> str:
    """A big integer for a message: written out up to 30 digits, else its number of digits."""
    return f"{n:,}" if abs(n) < 10**30 else f"a number of about {n.bit_length() * 0.30103:,.0f} digits"

"""Pre-tokenizers: how raw text is cut into chunks before BPE sees it.

BPE never merges across a chunk boundary, so the pre-tokenizer decides which
tokens can exist at all (``the`` vs ``the `` vs `` the``). Each mode below is
named after where it comes from:

``whitespace_eow``
    Split on whitespace; each word then ends with the end-of-word marker ``</w>``
    (Sennrich, Haddow & Birch 2016, "Neural Machine Translation of Rare Words
    with Subword Units", section 3.2). The marker is added to the *symbols* of a
    word (see :mod:`bpe_core.symbols`), not to the chunk text.
``whitespace``
    The same split, with no marker: pairs never cross words.
``trailing_space``
    The same split, but every word keeps one following space, except the last
    word of the text, so tokens such as ``the `` can be learned.
``gpt2``
    The GPT-2 regular expression (OpenAI GPT-2 ``src/encoder.py``): contractions,
    letters, digits and punctuation runs, each with an optional leading space.
``gpt4``
    The cl100k_base regular expression as published in tiktoken
    (``tiktoken_ext/openai_public.py``): case-insensitive contractions, digit runs
    of at most three, and newlines kept with punctuation.
``none``
    No pre-tokenization: the whole text is one sequence, as in Gage's 1994 byte
    pair compressor, so merges may span spaces and lines.

The whitespace modes split with Python's :meth:`str.split` with no argument, so
every Unicode whitespace character (space, tab, CR, LF, NBSP, U+2003, ...)
separates words and runs of whitespace count as one separator.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from functools import lru_cache

import regex

from .errors import OptionError

GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
"""GPT-2's split pattern, verbatim from OpenAI GPT-2 ``src/encoder.py``."""

GPT4_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+|"""
    r""" ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
"""cl100k_base's split pattern, verbatim from tiktoken ``tiktoken_ext/openai_public.py``."""

PRETOKENIZERS: dict[str, str] = {
    "whitespace_eow": "Split on whitespace; every word ends with the marker </w> (Sennrich et al. 2016).",
    "whitespace": "Split on whitespace, no end-of-word marker: merges never cross words.",
    "trailing_space": "Split on whitespace; each word keeps one following space (tokens like 'the ').",
    "gpt2": "GPT-2's regex: words with their leading space, digits, punctuation (OpenAI encoder.py).",
    "gpt4": "cl100k_base's regex (GPT-3.5/GPT-4): digit runs of at most 3, case-insensitive contractions.",
    "none": "No pre-tokenizer: the whole text is one sequence (Gage 1994); merges may span spaces.",
}
"""Every pre-tokenizer name, with a one-line description for help texts."""

REGEX_PATTERNS: dict[str, str] = {"gpt2": GPT2_PATTERN, "gpt4": GPT4_PATTERN}
"""The split pattern of each regex pre-tokenizer."""


def check_pretokenizer(name: object) -> str:
    """Return ``name`` if it is a known pre-tokenizer.

    Raises:
        OptionError: ``name`` is not one of :data:`PRETOKENIZERS`.
    """
    if not isinstance(name, str) or name not in PRETOKENIZERS:
        raise OptionError(f"unknown pre-tokenizer {name!r}; expected one of: {', '.join(PRETOKENIZERS)}")
    return name


@lru_cache(maxsize=16)
def compiled_pattern(pattern: str) -> regex.Pattern[str]:
    """Compile a split pattern with the ``regex`` package (cached per pattern string)."""
    return regex.compile(pattern)


def pretokenize(text: str, pretokenizer: str = "gpt2", *, pattern: str | None = None) -> list[str]:
    """Cut ``text`` into the chunks that BPE works on, one mode at a time.

    Args:
        text: the raw text.
        pretokenizer: one of :data:`PRETOKENIZERS` (see the module docstring for
            the source of each).
        pattern: for ``gpt2``/``gpt4`` only, a replacement split pattern (used by
            tokenizers loaded from tiktoken files that bring their own).

    Returns:
        The chunks in text order. For ``gpt2``, ``gpt4`` and ``none`` they
        concatenate back to ``text``; the whitespace modes drop the whitespace
        (``trailing_space`` keeps one space after every word but the last).
        The end-of-word marker of ``whitespace_eow`` is not part of the chunks.

    Raises:
        OptionError: unknown ``pretokenizer``.
        TypeError: ``text`` is not a ``str``.

    Example:
        >>> pretokenize("Hello, I've been learning BPE!", "gpt2")
        ['Hello', ',', ' I', "'ve", ' been', ' learning', ' BPE', '!']
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    check_pretokenizer(pretokenizer)
    if pretokenizer in ("whitespace_eow", "whitespace"):
        return text.split()
    if pretokenizer == "trailing_space":
        words = text.split()
        return [w + " " for w in words[:-1]] + words[-1:]
    if pretokenizer == "none":
        return [text] if text else []
    return compiled_pattern(pattern or REGEX_PATTERNS[pretokenizer]).findall(text)


def find_specials(text: str, special_tokens: Iterable[str]) -> list[tuple[int, str]]:
    """Where special tokens occur in ``text``: leftmost first, the longest token at a position.

    The matches do not overlap; scanning resumes after each one, as a regex
    alternation of the tokens sorted longest first would (Hugging Face's
    ``AddedVocabulary`` and tiktoken cut special tokens the same way).

    Runs in time linear in ``len(text)`` for each distinct token: every token
    keeps its next occurrence (found with ``str.find``) on a heap, and a token is
    searched again only from past the last match, so no stretch of text is
    scanned twice for the same token. A regex alternation of long escaped tokens
    does not have that bound.

    Args:
        text: the raw text.
        special_tokens: literal special-token strings (e.g. ``<|endoftext|>``).

    Returns:
        ``(start, token)`` pairs in text order.
    """
    heap = []
    for tok in set(special_tokens):
        if tok and (pos := text.find(tok)) >= 0:
            heap.append((pos, -len(tok), tok))
    heapq.heapify(heap)
    found: list[tuple[int, str]] = []
    cursor = 0
    while heap:
        pos, neg, tok = heap[0]
        if pos < cursor:  # overlapped by the last match: look again past it
            nxt = text.find(tok, cursor)
            if nxt < 0:
                heapq.heappop(heap)
            else:
                heapq.heapreplace(heap, (nxt, neg, tok))
            continue
        found.append((pos, tok))
        cursor = pos - neg
    return found


def split_special(text: str, special_tokens: Iterable[str]) -> list[tuple[str, bool]]:
    """Split ``text`` around occurrences of special tokens (:func:`find_specials`, linear time).

    Args:
        text: the raw text.
        special_tokens: the special tokens to cut out (only these; others stay text).

    Returns:
        ``(piece, is_special)`` pairs in text order; empty text pieces are dropped.
        Joining the pieces gives back ``text``.
    """
    out: list[tuple[str, bool]] = []
    cursor = 0
    for pos, tok in find_specials(text, special_tokens):
        if pos > cursor:
            out.append((text[cursor:pos], False))
        out.append((tok, True))
        cursor = pos + len(tok)
    if cursor < len(text):
        out.append((text[cursor:], False))
    return out

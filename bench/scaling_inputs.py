"""The inputs of :mod:`bench.scaling`: ordinary and adversarial text of a given size, and tokenizer files.

Text kinds (each ``make_text(kind, n)`` is exactly ``n`` characters):

* ``text`` -- ordinary text: the first ``n`` characters of the shared corpora's lines blended in
  proportion (Tiny Shakespeare, WikiText-2, Taylor Swift's article, the multi-script UDHR:
  every prefix holds the same share of each file, in file order), so every size has the same
  mix and holds the smaller ones;
* ``a`` -- one repeated character (``"a" * n``): one pre-token, one pair, the longest runs;
* ``ab`` -- one repeated pair (``"ab" * (n / 2)``): one pre-token, two alternating pairs;
* ``distinct`` -- all-distinct characters: consecutive code points of the supplementary planes
  (CJK Extension B letters, then planes 3-16), so no pair occurs twice. All of them lie above
  U+FFFF, so every size is one width class: 4 bytes a character in a CPython ``str`` (PEP 393)
  and in UTF-8, and 4 byte-level symbols each. Letters of the Basic Multilingual Plane run out
  after about 38,000 (CJK, Hangul, Extension A); a kind that began there would turn, part way
  through its doublings, from 2 to 4 bytes a character in memory and from 3 to 4 bytes in
  UTF-8, doubling the cost per character of every size after the switch (a loader's peak went
  from 3.0 to 6.0 bytes per file byte) and fitting an exponent over 1.2 to a linear path;
* ``words`` -- many distinct one-character words (the same letters, space-separated): every
  word is a new pre-token, every pair count is 1 (for word-level paths).

Files for the loaders are built from the shipped GPT-2 and cl100k_base tables (a prefix
of their merges or ranks, so the file is real and its size doubles), or hold one
symbol of ``n`` characters of an adversarial kind.
"""

from __future__ import annotations

import base64
import json
from collections import Counter
from functools import lru_cache
from itertools import chain

from .corpora import CORPORA_DIR, REPO, read_corpus

KINDS: dict[str, str] = {
    "text": "ordinary text (the shared corpora's lines blended in proportion, the first n characters)",
    "a": "one repeated character ('a' * n)",
    "ab": "one repeated pair ('ab' * n/2)",
    "distinct": "all-distinct characters (consecutive code points of letters)",
    "words": "distinct one-character words, space-separated",
}
"""Every input kind with what it is."""

TEXT_CORPORA = ("tinyshakespeare", "wikitext2-test", "taylorswift", "udhr-multiscript")
"""The corpora the ``text`` kind samples (4.3 MB together)."""

_LETTER_RANGES = ((0x20000, 0x2A6E0), (0x30000, 0x110000))
"""Code point ranges of :func:`distinct_chars`: the letters of CJK Extension B, then every code point of
planes 3-16 (all above U+FFFF: one width class, see the module docstring)."""

REFERENCE = REPO / "reference_tokenizers"


@lru_cache(maxsize=1)
def ordinary_text() -> str:
    """The shared corpora's lines blended: line ``i`` of a file of ``m`` lines goes at ``i / m`` (read once)."""
    files = [read_corpus(name, CORPORA_DIR).splitlines(keepends=True) for name in TEXT_CORPORA]
    placed = sorted((i / len(lines), k, i) for k, lines in enumerate(files) for i in range(len(lines)))
    return "".join(files[k][i] for _, k, i in placed)


DISTINCT_LIMIT = sum(hi - lo for lo, hi in _LETTER_RANGES)
"""How many distinct characters :func:`distinct_chars` can give."""


def distinct_chars(n: int) -> str:
    """``n`` distinct characters above U+FFFF, consecutive code points of letters first.

    Raises:
        ValueError: more characters than the ranges hold (about 960,000).
    """
    codes = chain.from_iterable(range(lo, hi) for lo, hi in _LETTER_RANGES)
    out = "".join(map(chr, (c for _, c in zip(range(n), codes))))
    if len(out) < n:
        raise ValueError(f"only {len(out):,} distinct characters are available, not {n:,}")
    return out


def make_text(kind: str, n: int) -> str:
    """``n`` characters of input kind ``kind`` (see :data:`KINDS`).

    Raises:
        ValueError: an unknown kind.
    """
    if kind == "text":
        corpus = ordinary_text()
        return (corpus * (n // len(corpus) + 1))[:n] if n > len(corpus) else corpus[:n]
    if kind == "a":
        return "a" * n
    if kind == "ab":
        return ("ab" * (n // 2 + 1))[:n]
    if kind == "distinct":
        return distinct_chars(n)
    if kind == "words":
        return " ".join(distinct_chars(n // 2 + 1))[:n]
    raise ValueError(f"unknown input kind {kind!r}; expected one of {', '.join(KINDS)}")


# ---------------------------------------------------------------- files


@lru_cache(maxsize=1)
def _gpt2_files() -> tuple[dict[str, int], list[str]]:
    """GPT-2's vocabulary and its merges lines (header dropped), from ``reference_tokenizers/``."""
    vocab = json.loads((REFERENCE / "encoder.json").read_text(encoding="utf-8"))
    lines = (REFERENCE / "vocab.bpe").read_text(encoding="utf-8").splitlines()
    return vocab, [line for line in lines[1:] if line]


def gpt2_prefix(merges: int) -> tuple[bytes, bytes]:
    """``vocab.json`` and ``merges.txt`` of GPT-2's first ``merges`` merges (ids 0..255 + merges, as in GPT-2)."""
    vocab, lines = _gpt2_files()
    merges = min(merges, len(lines))
    kept = {token: i for token, i in vocab.items() if i < 256 + merges}
    merges_txt = "".join(line + "\n" for line in ["#version: 0.2", *lines[:merges]])
    return json.dumps(kept, ensure_ascii=False).encode(), merges_txt.encode()


def gpt2_base_vocab() -> bytes:
    """GPT-2's ``vocab.json`` restricted to its 256 single-byte tokens."""
    return gpt2_prefix(0)[0]


def codes_prefix(merges: int) -> bytes:
    """A subword-nmt codes file (``#version: 0.2``) holding GPT-2's first ``merges`` merges lines."""
    _, lines = _gpt2_files()
    return "".join(line + "\n" for line in ["#version: 0.2", *lines[:merges]]).encode()


@lru_cache(maxsize=1)
def _cl100k_lines() -> list[bytes]:
    return (REFERENCE / "cl100k_base.tiktoken").read_bytes().splitlines(keepends=True)


def ranks_prefix(ranks: int) -> bytes:
    """The first ``ranks`` lines of cl100k_base's rank file (ranks 0..ranks-1: a valid rank file)."""
    return b"".join(_cl100k_lines()[:ranks])


def ranks_with_token(token: bytes) -> bytes:
    """A rank file of the 256 single bytes (cl100k's ranks) plus ``token`` at rank 256."""
    singles = [line for line in _cl100k_lines() if len(base64.b64decode(line.split()[0])) == 1]
    return b"".join(singles) + base64.b64encode(token) + b" 256\n"


def word_count_file(text: str) -> bytes:
    """``word<TAB>count`` lines for the whitespace-separated words of ``text``, most frequent first."""
    counts = Counter(text.split())
    return "".join(f"{w}\t{c}\n" for w, c in counts.most_common()).encode()

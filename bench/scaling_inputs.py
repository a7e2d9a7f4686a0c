"""The inputs of :mod:`bench.scaling`: ordinary and adversarial text of a given size, and tokenizer files.

Text kinds (each ``make_text(kind, n)`` is exactly ``n`` characters):

* ``text`` -- ordinary text: the first ``n`` characters of the shared corpora's lines blended in
  proportion (Tiny Shakespeare, WikiText-2, Taylor Swift's article, the multi-script UDHR:
  every prefix holds the same share of each file, in file order), so every size has the same
  mix and holds the smaller ones;
* ``a`` -- one repeated character (``"a" * n``): one pre-token, one pair, the longest runs;
* ``ab`` -- one repeated pair (``"ab" * (n / 2)``): one pre-token, two alternating pairs;
* ``distinct`` -- all-distinct characters: consecutive code points of planes 4-13 (U+40000 to
  U+DFFFF), so no pair occurs twice. They are all of one width and one class at every size:
  4 bytes a character in a CPython ``str`` (PEP 393) and in UTF-8, and all unassigned
  (category Cn: a run of them is one pre-token under the GPT-2 and GPT-4 patterns, as a run of
  letters is). A kind that began with the letters of the Basic Multilingual Plane (about
  38,000) and went on above U+FFFF turned, part way through its doublings, from 2 to 4 bytes a
  character in memory and from 3 to 4 in UTF-8 (a loader's peak went from 3.0 to 6.0 bytes per
  file byte); one that began with the letters of CJK Extension B (42,720) and went on into
  unassigned code points turned from letters, which the GPT-2 pattern splits at 5 ns a
  character, to symbols at 21 ns. Either switch raised the cost per character of every size
  after it and fitted an exponent over 1.2 to a linear path;
* ``words`` -- many distinct one-character words (the same characters, space-separated): every
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
    "distinct": "all-distinct characters (consecutive unassigned code points from U+40000)",
    "words": "distinct one-character words, space-separated",
}
"""Every input kind with what it is."""

TEXT_CORPORA = ("tinyshakespeare", "wikitext2-test", "taylorswift", "udhr-multiscript")
"""The corpora the ``text`` kind samples (4.3 MB together)."""

_DISTINCT_RANGES = ((0x40000, 0xE0000),)
"""Code point ranges of :func:`distinct_chars`: planes 4-13, all unassigned (one width and one class,
see the module docstring)."""

REFERENCE = REPO / "bpe_core" / "formats" / "data"


@lru_cache(maxsize=1)
def ordinary_text() -> str:
    """The shared corpora's lines blended: line ``i`` of a file of ``m`` lines goes at ``i / m`` (read once)."""
    files = [read_corpus(name, CORPORA_DIR).splitlines(keepends=True) for name in TEXT_CORPORA]
    placed = sorted((i / len(lines), k, i) for k, lines in enumerate(files) for i in range(len(lines)))
    return "".join(files[k][i] for _, k, i in placed)


DISTINCT_LIMIT = sum(hi - lo for lo, hi in _DISTINCT_RANGES)
"""How many distinct characters :func:`distinct_chars` can give."""


def distinct_chars(n: int) -> str:
    """``n`` distinct characters: consecutive code points from U+40000, all unassigned.

    Raises:
        ValueError: more characters than the ranges hold (655,360).
    """
    codes = chain.from_iterable(range(lo, hi) for lo, hi in _DISTINCT_RANGES)
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
    """GPT-2's vocabulary and its merges lines (header dropped), from ``bpe_core/formats/data/``."""
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

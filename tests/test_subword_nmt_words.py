"""When our merges equal subword-nmt's (issue 18 item 10): always from the same words, from raw text only
when its whitespace is spaces and line ends.

subword-nmt ``learn_bpe.py`` (``get_vocabulary``) reads words with
``line.strip('\\r\\n ').split(' ')``; ``whitespace_eow`` uses ``str.split()``, which also
splits at tabs, U+00A0 and every other Unicode whitespace character. These tests show
both sides: equal where the words are equal, different where such characters occur, and
equal again once the text is counted subword-nmt's way (so the word cut is the only difference).
"""

from __future__ import annotations

import contextlib
import io
from collections import Counter

import pytest

from bpe_core import train

learn_bpe = pytest.importorskip("subword_nmt.learn_bpe", reason="subword-nmt is a test-only dependency")

SETTINGS = dict(
    pretokenizer="whitespace_eow",
    unit="char",
    end_of_word="attached",
    tie_break="subword_nmt",
    min_frequency=2,
    trace=False,
)
"""``train`` settings that mean what subword-nmt >= 0.2 does (README, "Matching subword-nmt")."""


def subword_nmt(source: str, num_merges: int, *, is_dict: bool = False) -> list[tuple[str, str]]:
    """subword-nmt ``learn_bpe``'s merges for ``source`` (raw text, or ``word count`` lines with ``is_dict``)."""
    codes = io.StringIO()
    with contextlib.redirect_stderr(io.StringIO()):
        learn_bpe.learn_bpe(io.StringIO(source), codes, num_merges, min_frequency=2, is_dict=is_dict)
    lines = codes.getvalue().split("\n")
    assert lines[0] == "#version: 0.2"
    return [tuple(line.split(" ")) for line in lines[1:-1]]  # type: ignore[misc]


def subword_nmt_words(text: str) -> dict[str, int]:
    """The word counts subword-nmt reads from raw text (``get_vocabulary``, lines split at ``\\n``)."""
    return dict(Counter(w for line in text.split("\n") for w in line.strip("\r\n ").split(" ") if w))


def ours(source: str | dict[str, int], num_merges: int) -> list[tuple[str, str]]:
    return train(source, num_merges=num_merges, **SETTINGS).merges


TEXT = "low low low lower lower newest newest newest widest widest\nnew new newer wider wide\r\n" * 3
"""Spaces, ``\\n`` and ``\\r\\n`` only: both sides read the same words."""


def test_equal_on_text_whose_whitespace_is_spaces_and_line_ends():
    assert {ch for ch in TEXT if ch.isspace()} == {" ", "\n", "\r"}
    assert subword_nmt_words(TEXT) == dict(Counter(TEXT.split()))
    assert ours(TEXT, 30) == subword_nmt(TEXT, 30)


def test_equal_on_word_counts_whatever_the_words_hold():
    counts = {"lo\tw": 5, "low\u00a0er": 2, "new\u3000est": 6, "wid\x0cest": 3, "low": 7}  # whitespace inside words
    table = "".join(f"{word} {count}\n" for word, count in counts.items())
    assert ours(counts, 20) == subword_nmt(table, 20, is_dict=True)


@pytest.mark.parametrize("space", ["\t", "\u00a0", "\u3000", "\x0c", "\u2009"])
def test_different_where_other_whitespace_occurs(space):
    text = TEXT.replace("low lower", f"low{space}lower")
    assert ours(text, 30) != subword_nmt(text, 30)  # subword-nmt learns 'low\xa0lower' pieces; we cut it in two
    assert ours(subword_nmt_words(text), 30) == subword_nmt(text, 30)  # counted its way, the same merges


@pytest.mark.reference
def test_the_udhr_sample_differs_from_merge_84_and_only_through_its_no_break_spaces(corpora):
    text = corpora["udhr-multiscript"]
    assert {ch for ch in text if ch.isspace()} == {" ", "\n", "\u00a0"}
    reference = subword_nmt(text, 100)
    mine = ours(text, 100)
    first = next(k for k, (a, b) in enumerate(zip(reference, mine)) if a != b)
    assert first + 1 == 84  # merge 84 (1-based), as the issue found
    assert ours(subword_nmt_words(text), 100) == reference

"""Counting pre-tokens a slice at a time (``bpe_core.text.pretokenize.count_pretokens``) gives exactly the counts,
in the same order, that pre-tokenizing the whole text at once gives: on every shared corpus and on generated
text full of the characters where a cut could go wrong (newlines after punctuation, whitespace runs, CRLF)."""

from __future__ import annotations

import importlib
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core.text.corpus import word_counts

pt = importlib.import_module("bpe_core.text.pretokenize")  # the package's `pretokenize` name is the function

SLICED = ("whitespace_eow", "whitespace", "trailing_space", "gpt2", "gpt4")


def _whole(text: str, pretokenizer: str) -> list[tuple[str, int]]:
    return list(Counter(pt.pretokenize(text, pretokenizer)).items())


def _sliced(text: str, pretokenizer: str) -> list[tuple[str, int]]:
    counts: Counter[str] = Counter()
    pt.count_pretokens(text, pretokenizer, counts)
    return list(counts.items())


@pytest.mark.parametrize("pretokenizer", SLICED)
@pytest.mark.parametrize("chunk", [1, 7, 4096, pt.CHUNK_CHARS])
def test_sliced_counts_equal_whole_counts_on_every_corpus(corpora, pretokenizer, chunk, monkeypatch):
    monkeypatch.setattr(pt, "CHUNK_CHARS", chunk)
    for name in corpora:
        text = corpora[name][:200_000] if chunk < 100 else corpora[name]
        assert _sliced(text, pretokenizer) == _whole(text, pretokenizer), (name, pretokenizer, chunk)


TRICKY = "ab1 !?'s\n\r\t\u00a0\u2028\x1c\u00e9\u0661\u4e00ll"


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=TRICKY, max_size=80), chunk=st.integers(1, 9), pretokenizer=st.sampled_from(SLICED))
def test_sliced_counts_equal_whole_counts_on_generated_text(text, chunk, pretokenizer):
    saved = pt.CHUNK_CHARS
    pt.CHUNK_CHARS = chunk
    try:
        assert _sliced(text, pretokenizer) == _whole(text, pretokenizer)
    finally:
        pt.CHUNK_CHARS = saved


def test_word_counts_goes_through_the_slices(monkeypatch):
    monkeypatch.setattr(pt, "CHUNK_CHARS", 2)
    text = "Hello!\nworld  \n\nhello! world\r\n42\n"
    for pretokenizer in SLICED:
        assert list(word_counts(text, pretokenizer).items()) == _whole(text, pretokenizer)


def test_count_pretokens_rejects_what_pretokenize_rejects():
    with pytest.raises(TypeError):
        pt.count_pretokens(b"bytes", "gpt2", Counter())  # type: ignore[arg-type]
    with pytest.raises(pt.OptionError):
        pt.count_pretokens("text", "no-such-mode", Counter())

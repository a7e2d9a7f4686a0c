"""Nested and overlapping special tokens are cut leftmost-longest, as Hugging Face ``tokenizers`` cuts them.

Issue 18 item 9. Hugging Face's ``AddedVocabulary`` matches special tokens with an
Aho-Corasick automaton in ``LeftmostLongest`` mode; tiktoken joins them into one
regex alternation in its hash map's order, so its choice between nested tokens
(``X`` and ``XYZ``) follows that order. The engine follows Hugging Face
(:func:`bpe_core.text.pretokenize.find_specials` says why), and agrees with tiktoken
wherever no special token starts another, which covers the published tables.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core import SpecialTokens, train
from bpe_core.formats import bundled, to_hf_json
from bpe_core.text.pretokenize import split_special

tokenizers = pytest.importorskip("tokenizers", reason="Hugging Face tokenizers is a test-only dependency")


# ---------------------------------------------------------------- golden values, worked by hand


def test_the_issue_example_gives_the_longer_token():
    specials = SpecialTokens({"X": 300, "XYZ": 301})
    assert specials.split("XYZ", "all") == [("XYZ", True)]
    assert specials.split("XYZX", "all") == [("XYZ", True), ("X", True)]
    assert specials.split("XY", "all") == [("X", True), ("Y", False)]


@pytest.mark.parametrize(
    ("tokens", "text", "pieces"),
    [
        (["XY", "YZ"], "XYZ", [("XY", True), ("Z", False)]),  # overlapping: the leftmost wins
        (["YZ", "XYZW"], "XYZ", [("X", False), ("YZ", True)]),  # a longer token that does not fit is no match
        (["Y", "XYZ"], "XYZ", [("XYZ", True)]),  # a token inside another, starting later: the leftmost wins
        (["ab", "abc", "abcd"], "abcdabcab", [("abcd", True), ("abc", True), ("ab", True)]),
        (["<a>", "<a><b>"], "<a><b><a>", [("<a><b>", True), ("<a>", True)]),
    ],
)
def test_leftmost_then_longest(tokens, text, pieces):
    assert split_special(text, tokens) == pieces


def test_a_token_that_is_not_allowed_is_text_and_an_allowed_one_inside_it_is_cut():
    specials = SpecialTokens({"X": 300, "XYZ": 301})
    assert specials.split("XYZ", ["X"]) == [("X", True), ("YZ", False)]
    assert specials.split("XYZ", ["XYZ"]) == [("XYZ", True)]
    assert specials.split("XYZ", ()) == [("XYZ", False)]


# ---------------------------------------------------------------- against Hugging Face's AddedVocabulary


def _hf_pieces(text: str, specials: list[str], alphabet: str) -> list[tuple[str, bool]]:
    """Hugging Face's cut: a BPE model without merges over single characters, the specials added as special tokens.

    Every character outside a special token is its own token, so the tokens show where the specials were cut.
    """
    vocab = {c: i for i, c in enumerate(alphabet)}
    hf = tokenizers.Tokenizer(tokenizers.models.BPE(vocab=vocab, merges=[]))
    hf.add_special_tokens(specials)
    special_ids = {hf.token_to_id(s) for s in specials}
    encoding = hf.encode(text, add_special_tokens=False)
    out: list[tuple[str, bool]] = []
    for token, tid in zip(encoding.tokens, encoding.ids, strict=True):
        if tid in special_ids:
            out.append((token, True))
        elif out and not out[-1][1]:
            out[-1] = (out[-1][0] + token, False)
        else:
            out.append((token, False))
    return out


ALPHABET = "XYZab<>"


@settings(max_examples=300, deadline=None)
@given(
    specials=st.lists(st.text(alphabet=ALPHABET, min_size=1, max_size=4), min_size=1, max_size=5, unique=True),
    text=st.text(alphabet=ALPHABET, max_size=40),
)
def test_the_cut_equals_hugging_faces_on_nested_and_overlapping_tokens(specials, text):
    assert split_special(text, specials) == _hf_pieces(text, specials, ALPHABET)


def test_a_trained_tokenizer_with_nested_special_tokens_gives_hugging_faces_ids():
    """The whole pipeline: special tokens cut, the rest pre-tokenized and merged, exported and loaded by tokenizers."""
    rng = random.Random(9)
    specials = ["<s>", "<s><t>", "<t>", "s><", "<|end|>", "<|end|><|end|>"]
    words = ["low", "lower", "newest", "widest", "<s", "t>", "end"]
    corpus = " ".join(rng.choice(words) for _ in range(3000))
    tok = train(corpus, num_merges=60, unit="byte", pretokenizer="gpt2", special_tokens=specials, trace=False).tokenizer
    hf = tokenizers.Tokenizer.from_str(to_hf_json(tok))
    pieces = [*words, *specials, " ", "<", ">", "|"]
    for _ in range(200):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 30)))
        assert tok.encode(text, allowed_special="all") == hf.encode(text, add_special_tokens=False).ids, text


# ---------------------------------------------------------------- where tiktoken agrees


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_no_published_special_token_starts_another_so_tiktoken_agrees_there(name):
    specials = list(bundled(name).model.table.special_ids)
    assert specials
    assert not [(a, b) for a in specials for b in specials if a != b and b.startswith(a)]


def test_without_nested_tokens_tiktoken_cuts_the_same_way():
    tiktoken = pytest.importorskip("tiktoken", reason="tiktoken is a test-only dependency")
    ranks = {bytes([b]): b for b in range(256)}
    specials = {"<a>": 300, "<b>": 301, "a><b": 302}  # overlapping, none starting another
    enc = tiktoken.Encoding("t", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens=specials)
    rng = random.Random(3)
    for _ in range(300):
        text = "".join(rng.choice(["<a>", "<b>", "a", "b", "<", ">", " "]) for _ in range(rng.randrange(1, 20)))
        ours = []
        for piece, special in split_special(text, specials):
            ours.extend([specials[piece]] if special else piece.encode())
        assert ours == enc.encode(text, allowed_special="all"), text

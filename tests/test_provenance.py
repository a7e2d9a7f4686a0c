"""Merge provenance: golden trees worked by hand, and the leaves property on every token of real tables."""

from __future__ import annotations

import re

import pytest

import bpe_core
from bpe_core import TokenIdError, Tokenizer, train
from bpe_core.analysis.provenance import MergeTree, find_tokens, merge_tree, token_id_of
from bpe_core.formats import BUNDLED, bundled

LOW = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


def shape(tree: MergeTree) -> object:
    """A tree as nested tuples of token strings, for golden comparisons."""
    if tree.is_leaf:
        return tree.token
    return (tree.token, tree.rank, shape(tree.left), shape(tree.right))


def test_textbook_tree_with_training_record():
    """Merges on low/lower/newest/widest with </w>: (e,s) 9, (es,t) 9, (est,</w>) 9, ..., (ne,w) 6, (new,est</w>) 6."""
    result = train(LOW, num_merges=10)
    tree = bpe_core.merge_tree(result, result.vocab["newest</w>"])
    assert shape(tree) == (
        "newest</w>",
        7,
        ("new", 6, ("ne", 5, "n", "e"), "w"),
        ("est</w>", 2, ("est", 1, ("es", 0, "e", "s"), "t"), "</w>"),
    )
    assert [leaf.token for leaf in tree.leaves()] == ["n", "e", "w", "e", "s", "t", "</w>"]
    assert (tree.step, tree.count, tree.recovered) == (8, 6, False)
    es = tree.right.left.left
    assert (es.token, es.step, es.count) == ("es", 1, 9)
    # (e, s) was counted in newest (6) and widest (3), at character 3 of each, symbol 3
    assert [(p.word, p.freq, p.offset, p.position) for p in es.places] == [("newest", 6, 3, 3), ("widest", 3, 3, 3)]
    assert es.places[0].symbols == ("n", "e", "w", "e", "s", "t", "</w>")
    ne = tree.left.left
    assert [(p.word, p.offset, p.symbols) for p in ne.places] == [("newest", 0, ("n", "e", "w", "est</w>"))]
    leaf = tree.leaves()[0]
    assert (leaf.rank, leaf.step, leaf.count, leaf.places, leaf.depth()) == (None, None, None, (), 0)
    assert tree.depth() == 4 and tree.num_merges() == 6


def test_tokenizer_alone_gives_ranks_but_no_training_record():
    result = train(LOW, num_merges=10)
    tree = merge_tree(result.tokenizer, result.vocab["low</w>"])
    assert shape(tree) == ("low</w>", 8, ("low", 4, ("lo", 3, "l", "o"), "w"), "</w>")
    assert all(node.step is None and node.places == () for node in tree.nodes())


def test_places_stop_at_five_and_follow_the_corpus_order():
    words = {f"x{c}ab": 1 for c in "cdefghij"}
    result = train(words, num_merges=1, pretokenizer="whitespace", min_frequency=1)
    assert result.merges == [("a", "b")]
    tree = merge_tree(result, result.vocab["ab"])
    assert tree.count == 8
    assert [(p.word, p.offset) for p in tree.places] == [(f"x{c}ab", 2) for c in "cdefg"]


def test_places_without_trace_scan_the_words():
    result = train("aa ba aa", num_merges=1, pretokenizer="whitespace", min_frequency=1, trace=False)
    tree = merge_tree(result, result.vocab[result.steps[0].token])
    assert tree.count == 2
    assert [(p.word, p.offset) for p in tree.places] == [("aa", 0)]


def test_byte_unit_offsets_count_characters():
    text = "héé héé"
    result = train(text, num_merges=3, pretokenizer="whitespace", unit="byte", min_frequency=1)
    for rank in range(result.num_merges):
        node = merge_tree(result, result.steps[rank].token_id)
        assert b"".join(leaf.data for leaf in node.leaves()) == node.data
        for place in node.places:
            assert 0 <= place.offset < len(place.word)


def test_base_and_special_tokens_are_leaves():
    tok = Tokenizer.from_merges([("a", "b")], special_tokens=["<pad>"])
    special = merge_tree(tok, tok.specials.ids["<pad>"])
    assert special.is_leaf and special.rank is None and special.leaves() == [special]
    assert special.kind == "special"
    base = merge_tree(tok, tok.model.vocab["a"])
    assert base.is_leaf and base.rank is None and base.kind == "base"
    assert merge_tree(tok, tok.model.vocab["ab"]).kind == "merge"


def test_leaf_kinds_of_real_and_fallback_tables():
    gpt2 = bundled("gpt2")
    assert merge_tree(gpt2, 50256).kind == "special"  # <|endoftext|>: no merge tree
    assert merge_tree(gpt2, 0).kind == "base"  # '!'
    char = train("café", num_merges=2).tokenizer.with_fallback("bytes")
    assert merge_tree(char, char.model.byte_fallback_ids[0xC3]).kind == "fallback"  # <0xC3>


def test_token_ids_from_links_and_their_messages():
    gpt2 = bundled("gpt2")
    assert token_id_of(gpt2, 262) == token_id_of(gpt2, "262") == token_id_of(gpt2, "0262") == 262
    assert merge_tree(gpt2, "262").token_id == 262
    outside = "outside the vocabulary of 50,257 tokens (ids 0 to 50,256)"
    with pytest.raises(TokenIdError, match=rf"^token id 99999999999999999999999 is {re.escape(outside)}$"):
        token_id_of(gpt2, "99999999999999999999999")
    with pytest.raises(TokenIdError, match=rf"^token id 50257 is {re.escape(outside)}$"):
        merge_tree(gpt2, 50257)
    with pytest.raises(TokenIdError, match=r"^token id \(an integer of 5,000 digits\) is outside") as caught:
        token_id_of(gpt2, "9" * 5000)  # int() refuses past 4,300 digits: not converted
    assert len(str(caught.value)) < 120
    with pytest.raises(TokenIdError, match=r"^token id \(an integer of 101 digits\) is outside"):
        token_id_of(gpt2, 10**100)
    for bad in ("abc", "-1", "²", " 262", "", True, 2.0):  # "²".isdigit() is True, int("²") raises
        with pytest.raises(TokenIdError, match=r"^a token id is a whole number from 0 to 50,256; got "):
            token_id_of(gpt2, bad)
    cl = bundled("cl100k_base")
    with pytest.raises(TokenIdError, match=r"^token id 100,256 is not assigned"):
        token_id_of(cl, "100256")
    with pytest.raises(TokenIdError, match=r"\(ids 0 to 100,276, 16 of them unassigned\)$"):
        token_id_of(cl, 100277)


def test_duplicate_token_strings_follow_the_lowest_rank_rule():
    tok = Tokenizer.from_merges([("b", "c"), ("a", "b"), ("ab", "c"), ("abc", "d"), ("a", "bc")], pretokenizer="none")
    tree = merge_tree(tok, tok.model.vocab["abc"])
    assert shape(tree) == ("abc", 2, ("ab", 1, "a", "b"), "c")


def test_bad_ids_and_sources():
    tok = Tokenizer.from_merges([("a", "b")])
    with pytest.raises(TokenIdError):
        merge_tree(tok, len(tok))
    with pytest.raises(TokenIdError):
        merge_tree(tok, "x3")
    with pytest.raises(TypeError):
        merge_tree("not a tokenizer", 0)


def test_gpt2_golden_tree():
    """GPT-2 vocab.bpe, lines 2, 4 and 8: rank 0 is (Ġ, t), rank 2 is (h, e), rank 6 is (Ġt, he) -> 'Ġthe' (id 262)."""
    gpt2 = bundled("gpt2")
    tree = merge_tree(gpt2, 262)
    assert shape(tree) == ("Ġthe", 6, ("Ġt", 0, "Ġ", "t"), ("he", 2, "h", "e"))
    assert tree.data == b" the" and not tree.recovered


def test_cl100k_tree_is_recovered_and_ranks_are_ids():
    cl = bundled("cl100k_base")
    tid = cl.encode(" hello")[0]
    tree = merge_tree(cl, tid)
    assert tree.recovered and tree.rank == tid == tree.token_id
    assert b"".join(leaf.data for leaf in tree.leaves()) == b" hello"
    assert all(node.rank == node.token_id for node in tree.nodes() if not node.is_leaf)


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_every_token_of_a_real_table(name):
    """Leaves join to the token's bytes and ranks strictly increase towards the root, for every id."""
    tok = bundled(name)
    checked = 0
    for tid in range(len(tok)):
        try:
            tree = merge_tree(tok, tid)
        except TokenIdError:  # cl100k_base leaves ids 100256 and 100261..100275 unassigned (o200k_base too)
            continue
        checked += 1
        assert b"".join(leaf.data for leaf in tree.leaves()) == tree.data == tok.model.token_bytes(tid)
        if not tree.is_leaf:
            assert tree.left.rank is None or tree.left.rank < tree.rank
            assert tree.right.rank is None or tree.right.rank < tree.rank
    assert checked == len(tok.model.vocab)


def test_find_tokens_exact_first_then_containing():
    result = train(LOW, num_merges=10)
    tok = result.tokenizer
    found = find_tokens(tok, "est")
    assert found[0] == tok.model.vocab["est"]
    assert set(found[1:]) == {tok.model.vocab["est</w>"], tok.model.vocab["newest</w>"]}
    assert find_tokens(tok, "") == []
    assert find_tokens(tok, "13")[0] == 13
    assert find_tokens(tok, "²") == [] and find_tokens(tok, "9" * 5000) == []  # no ValueError from int()
    gpt2 = bundled("gpt2")
    assert find_tokens(gpt2, " the")[0] == 262  # the decoded text matches too
    assert find_tokens(gpt2, "Ġthe")[0] == 262

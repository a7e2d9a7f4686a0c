"""Encoding and decoding: worked examples, the trace, fallbacks, round trips and bad input."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_core import MergeTableError, OptionError, TokenIdError, Tokenizer, train
from bpe_core.encoding import encoder as encoder_module

from .engine_helpers import is_partial_utf8

LOW = "low low low low low lowest lowest newer newer newer newer newer newer wider wider wider new new"


def from_merges(merges, **kwargs):
    return Tokenizer.from_merges(merges, **kwargs)


# ----------------------------------------------------------------- worked examples


def test_textbook_merges_without_marker():
    tok = from_merges([("t", "h"), ("th", "e"), ("i", "n"), ("e", "r"), ("l", "o")], pretokenizer="whitespace")
    assert tok.tokenize("the") == ["the"]
    assert tok.tokenize("lower") == ["lo", "w", "er"]
    assert tok.tokenize("inn") == ["in", "n"]


def test_merges_apply_left_to_right_without_overlap():
    assert from_merges([("e", "r"), ("er", "t"), ("ert", "a")], pretokenizer="whitespace").tokenize("erter") == [
        "ert",
        "er",
    ]
    assert from_merges([("l", "l")], pretokenizer="whitespace").tokenize("lll") == ["ll", "l"]
    aa = from_merges([("a", "a")], pretokenizer="none")
    for order in ("rank", "sequential"):
        assert aa.tokenize("aaa", order=order) == ["aa", "a"]
        assert aa.tokenize("aaaaa", order=order) == ["aa", "aa", "a"]


def test_trained_textbook_merges_encode_new_words():
    tok = train(LOW, num_merges=10).tokenizer
    assert tok.tokenize("low") == ["low</w>"]
    assert tok.tokenize("lower") == ["low", "er</w>"]
    assert tok.tokenize("newest") == ["new", "e", "s", "t", "</w>"]
    assert tok.tokenize("lowering") == ["low", "er", "i", "n", "g", "</w>"]


def test_rank_and_sequential_orders_disagree():
    tok = from_merges([("b", "c"), ("a", "b"), ("ab", "c"), ("abc", "d"), ("a", "bc")], pretokenizer="none")
    assert tok.tokenize("abcd", order="rank") == ["abcd"]
    assert tok.tokenize("abcd", order="sequential") == ["abc", "d"]
    diff = tok.order_differences("abcd")
    assert [(d.text, d.rank_tokens, d.sequential_tokens) for d in diff] == [("abcd", ("abcd",), ("abc", "d"))]
    assert tok.encode_with_trace("abcd", order="sequential").order == "sequential"


def test_blocked_merge_hugs():
    """Rules from 'hug pug bug' are (u,g), (ug,</w>); in 'hugs' the s stands between ug and </w>."""
    result = train("hug pug bug", num_merges=2)
    assert result.merges == [("u", "g"), ("ug", "</w>")]
    trace = result.tokenizer.encode_with_trace("hugs")
    piece = trace.pieces[0]
    assert piece.tokens == ("h", "ug", "s", "</w>")
    assert piece.initial == ("h", "u", "g", "s", "</w>")
    assert [(s.rank, s.pair, s.positions) for s in piece.steps] == [(0, ("u", "g"), (1,))]
    assert [(b.rank, b.pair, b.between) for b in piece.blocked] == [(1, ("ug", "</w>"), ("s",))]
    assert "'s' stood between" in piece.blocked[0].reason and piece.blocked[0].kind == "apart"
    assert [f.kind for f in piece.fallbacks] == ["kept"]


def test_trace_states_are_rebuilt_from_the_steps():
    tok = train(LOW, num_merges=10).tokenizer
    piece = tok.encode_with_trace("lower").pieces[0]
    assert piece.state(0) == piece.initial == ("l", "o", "w", "e", "r", "</w>")
    assert piece.state(len(piece.steps)) == piece.tokens == ("low", "er</w>")
    assert list(piece.states()) == [piece.state(k) for k in range(len(piece.steps) + 1)]
    with pytest.raises(IndexError):
        piece.state(len(piece.steps) + 1)
    assert [s.rank for s in piece.steps] == [0, 1, 4, 5]
    assert tok.encode_with_trace("lower newer").ids == tok.encode("lower newer")


def test_gpt2_pretokenization_in_the_trace():
    tok = train("Hello, I've been learning BPE!" * 3, num_merges=20, pretokenizer="gpt2", unit="byte").tokenizer
    trace = tok.encode_with_trace("Hello, I've been learning BPE!")
    assert [p.text for p in trace.pieces] == ["Hello", ",", " I", "'ve", " been", " learning", " BPE", "!"]
    assert [p.start for p in trace.pieces] == [0, 5, 6, 8, 11, 16, 25, 29]


# ----------------------------------------------------------------- characters the alphabet never saw


def test_byte_level_marks_raw_bytes():
    tok = train("hello world hello", num_merges=5, pretokenizer="gpt2", unit="byte").tokenizer
    trace = tok.encode_with_trace("hi 🙂")
    fb = trace.pieces[1].fallbacks
    assert len(fb) == 1 and fb[0].char == "🙂" and fb[0].kind == "raw_bytes"
    assert fb[0].data == bytes.fromhex("F09F9982") and fb[0].merged is False
    assert len(fb[0].tokens) == 4
    assert tok.decode(trace.ids) == "hi 🙂"


def test_byte_level_marks_merged_multibyte_characters():
    tok = train("é é é é", num_merges=2, pretokenizer="whitespace", unit="byte").tokenizer
    fb = tok.encode_with_trace("é").pieces[0].fallbacks
    assert fb[0].merged is True and fb[0].tokens == ("Ã©",)


def test_char_level_unk_and_byte_fallback():
    base = train("hello world", num_merges=5)
    unk = Tokenizer(
        base.tokenizer.model.table, base.tokenizer.model.merge_ids, pretokenizer="whitespace_eow", fallback="unk"
    )
    piece = unk.encode_with_trace("hé").pieces[0]
    assert piece.tokens[1] == "<unk>" and piece.fallbacks[0].kind == "unk" and piece.fallbacks[0].char == "é"
    rt = unk.round_trip("hé")
    assert not rt.ok and rt.position == 1 and "not in the alphabet" in rt.reason

    byt = Tokenizer(
        base.tokenizer.model.table, base.tokenizer.model.merge_ids, pretokenizer="whitespace_eow", fallback="bytes"
    )
    piece = byt.encode_with_trace("h🙂").pieces[0]
    assert piece.tokens == ("h", "<0xF0>", "<0x9F>", "<0x99>", "<0x82>", "</w>")
    assert piece.fallbacks[0].kind == "bytes" and piece.fallbacks[0].tokens[0] == "<0xF0>"
    assert byt.decode(byt.encode("h🙂 é")) == "h🙂 é"
    assert "<0x41>" in byt.model.vocab


def test_with_fallback_starts_from_the_learned_vocabulary():
    keep = train("hello world", num_merges=5).tokenizer
    learned = len(keep.model.vocab)
    # "keep" gives each unseen character a temporary id of its own, in order of meeting, past the
    # vocabulary, which it never changes
    assert keep.encode("zq")[:2] == [learned, learned + 1] and keep.encode("qz")[:2] == [learned, learned + 1]
    assert len(keep.model.vocab) == learned
    unk = keep.with_fallback("unk")
    assert len(unk.model.vocab) == learned + 1 and unk.tokenize("zq") == ["<unk>", "<unk>", "</w>"]
    assert unk.encode("hello") == keep.encode("hello")
    byt = keep.with_fallback("bytes")
    assert len(byt.model.vocab) == learned + 256 and byt.tokenize("z")[:1] == ["<0x7A>"]
    assert keep.with_fallback("keep").encode("qz")[:2] == [learned, learned + 1]
    with pytest.raises(OptionError, match="fallback"):
        keep.with_fallback("drop")


# ----------------------------------------------------------------- decoding


def test_decode_cut_character():
    tok = train("hello", num_merges=1, pretokenizer="gpt2", unit="byte").tokenizer
    ids = tok.encode("🙂")
    assert tok.decode(ids[:2]) == "\ufffd"
    with pytest.raises(UnicodeDecodeError):
        tok.decode(ids[:2], errors="strict")
    assert is_partial_utf8(tok, ids[0]) and tok.model.token_bytes(ids[0]) == b"\xf0"


def test_decode_bad_ids():
    tok = train(LOW, num_merges=3).tokenizer
    for bad in ([-1], [len(tok)], [10**9]):
        with pytest.raises(TokenIdError, match="out of range"):
            tok.decode(bad)
    for bad in (["a"], [1.0], [True]):
        with pytest.raises(TokenIdError, match="must be ints"):
            tok.decode(bad)
    with pytest.raises(ValueError):
        tok.model.id_to_token(len(tok))


def test_whitespace_modes_report_where_round_trip_breaks():
    tok = train(LOW, num_merges=10).tokenizer
    assert tok.round_trip("low lower").ok
    rt = tok.round_trip("low  lower")
    assert not rt.ok and rt.position == 4 and "drops whitespace" in rt.reason
    nomark = train(LOW, num_merges=10, pretokenizer="whitespace").tokenizer
    rt = nomark.round_trip("low lower")
    assert not rt.ok and rt.decoded == "lowlower" and rt.position == 3


def test_round_trip_blames_the_fallback_before_the_pre_tokenizer():
    base = train("low lower newest widest", num_merges=5, end_of_word="attached").tokenizer
    byt = base.with_fallback("bytes")
    rt = byt.round_trip("lowl x")  # 'l' never ended a word, so 'l</w>' does not exist
    assert not rt.ok and rt.decoded == "lowlx" and rt.position == 4
    assert "'l' at position 3 never ended a word in training" in rt.reason and "whitespace" not in rt.reason
    rt = byt.round_trip("x low")
    assert rt.decoded == "xlow" and "'x' at position 0 is not in the alphabet" in rt.reason
    unk = base.with_fallback("unk")
    rt = unk.round_trip("lé low")
    assert rt.position == 1 and "'é' at position 1 is not in the alphabet and was encoded as <unk>" in rt.reason
    assert byt.round_trip("low lower", order="sequential").ok


def test_blocked_rule_that_was_adjacent_until_an_earlier_rule_took_a_symbol():
    """(b,c) outranks (a,b): in 'abcb' the a and the first b met, but (b,c) took that b."""
    tok = Tokenizer.from_merges([("b", "c"), ("a", "b")], pretokenizer="none")
    piece = tok.encode_with_trace("abcb").pieces[0]
    assert piece.tokens == ("a", "bc", "b")
    [rule] = piece.blocked
    assert (rule.rank, rule.pair, rule.kind, rule.by_rank, rule.between) == (1, ("a", "b"), "taken", 0, ("bc",))
    assert "stood side by side, but rule 0 ('b', 'c') has a lower rank and merged 'b' into 'bc' first, at step 1" in (
        rule.reason
    )
    assert rule.step == 1


def test_sequential_order_reports_rules_whose_turn_had_passed():
    tok = Tokenizer.from_merges([("b", "c"), ("a", "b"), ("ab", "c"), ("abc", "d"), ("a", "bc")], pretokenizer="none")
    # rank order: a b c d -> a bc d -> abc d -> abcd; (a, b) stood side by side until (b, c) took the b
    ranked = tok.encode_with_trace("abcd").pieces[0]
    assert [(b.rank, b.kind, b.by_rank, b.step) for b in ranked.blocked] == [(1, "taken", 0, 1)]
    piece = tok.encode_with_trace("abcd", order="sequential").pieces[0]
    assert piece.tokens == ("abc", "d")
    taken, rule = piece.blocked
    assert (taken.rank, taken.kind, taken.by_rank, taken.step) == (1, "taken", 0, 1)
    assert (rule.rank, rule.pair, rule.kind, rule.by_rank, rule.step) == (3, ("abc", "d"), "too_late", 4, 2)
    assert "only became neighbours at step 2, when rule 4 ('a', 'bc') fired, after this rule's turn" in rule.reason


def test_special_tokens_only_when_allowed():
    r = train("ab ab <|end|> ab", num_merges=2, pretokenizer="gpt2", unit="byte", special_tokens=["<|end|>"])
    tok = r.tokenizer
    plain = tok.encode("ab<|end|>")
    assert 0 not in plain and tok.tokenize("ab<|end|>") == ["ab", "<", "|", "e", "n", "d", "|", ">"]
    allowed = tok.encode("ab<|end|>", allowed_special={"<|end|>"})
    assert allowed[-1] == 0 and tok.encode("ab<|end|>", allowed_special="all") == allowed
    assert tok.decode(allowed) == "ab<|end|>" == tok.decode(plain)
    with pytest.raises(OptionError):
        tok.encode("x", allowed_special={"<|nope|>"})
    trace = tok.encode_with_trace("ab<|end|>", allowed_special="all")
    assert trace.pieces[-1].special and trace.ids == allowed


# ----------------------------------------------------------------- bad input


def test_empty_text():
    tok = train(LOW, num_merges=3).tokenizer
    assert tok.encode("") == [] and tok.decode([]) == "" and tok.encode_with_trace("").pieces == ()


def test_merge_table_with_unformed_symbol():
    with pytest.raises(MergeTableError, match=r"merge rule 1 \('ab', 'cd'\): symbol 'cd'"):
        from_merges([("a", "b"), ("ab", "cd")])
    with pytest.raises(MergeTableError, match="merge rule 0"):
        from_merges([("a",)])
    with pytest.raises(MergeTableError, match="repeats rule 0"):
        from_merges([("a", "b"), ("a", "b")])
    with pytest.raises(MergeTableError, match="byte-level alphabet"):
        from_merges([("a", "\u4e00")], unit="byte", pretokenizer="gpt2")


def test_options_are_checked():
    tok = train(LOW, num_merges=3).tokenizer
    with pytest.raises(OptionError):
        tok.encode("low", order="random")
    with pytest.raises(TypeError):
        tok.encode(b"low")


# ----------------------------------------------------------------- properties


@pytest.fixture(scope="module")
def byte_tokenizer():
    text = open(encoder_module.__file__, encoding="utf-8").read()
    return train(text + " naïve café 🙂👍🏽 日本語 " * 3, num_merges=300, pretokenizer="gpt2", unit="byte").tokenizer


SPECIAL_TEXTS = [
    "line one\r\nline two\r\n",
    "tab\tseparated\tvalues",
    "nul\x00byte",
    "family: 👨\u200d👩\u200d👧\u200d👦 and flag 🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",
    "a" * 10_000,
    "ab" * 5_000 + "🙂" * 2_000,
]


@pytest.mark.parametrize("text", SPECIAL_TEXTS)
def test_byte_level_round_trip_special_texts(byte_tokenizer, text):
    assert byte_tokenizer.decode(byte_tokenizer.encode(text)) == text
    assert byte_tokenizer.round_trip(text).ok


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200))
def test_byte_level_round_trip_property(byte_tokenizer, text):
    ids = byte_tokenizer.encode(text)
    assert byte_tokenizer.decode(ids) == text
    assert byte_tokenizer.encode_with_trace(text).ids == ids


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="abcab ", min_size=130, max_size=600))
def test_long_chunk_path_equals_short_path(text):
    """Chunks over 128 symbols use a heap-based loop; it must cut exactly like the simple loop."""
    tok = train("abcabcaabbccab " * 5, num_merges=12, pretokenizer="none", min_frequency=1).tokenizer
    fast = tok.encode(text)
    simple = tok.model.merge(tok.model.spell(text), "rank", record=[])
    assert fast == simple
    assert tok.encode(text, order="sequential") == tok.model.merge(tok.model.spell(text), "sequential", record=[])


# ----------------------------------------------------------------- blocked merges as a learner expects (issue 21)

SENNRICH = " ".join(["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3)
"""Sennrich et al. 2016's toy corpus: its first rules are e s, es t, est </w>, l o, lo w, n e, ne w, ..."""


def test_nest_lists_n_e_as_blocked_by_e_s():
    """'nest' with the textbook table: e s fires first and takes the e that n e needed."""
    tok = train(SENNRICH, num_merges=10).tokenizer
    assert tok.model.merges[:6] == [("e", "s"), ("es", "t"), ("est", "</w>"), ("l", "o"), ("lo", "w"), ("n", "e")]
    piece = tok.encode_with_trace("nest").pieces[0]
    assert piece.tokens == ("n", "est</w>")
    assert [(s.rank, s.pair) for s in piece.steps] == [(0, ("e", "s")), (1, ("es", "t")), (2, ("est", "</w>"))]
    [rule] = piece.blocked
    assert (rule.rank, rule.pair, rule.kind, rule.by_rank, rule.step, rule.between) == (
        5,
        ("n", "e"),
        "taken",
        0,
        1,
        (),
    )
    assert rule.reason == (
        "'n' and 'e' stood side by side, but rule 0 ('e', 's') has a lower rank and merged 'e' into 'es' first, "
        "at step 1"
    )


def test_blocked_rules_of_a_long_piece_are_bounded_and_counted(monkeypatch):
    from bpe_core.encoding import explain

    merges = [(chr(97 + i), chr(97 + j)) for i in range(26) for j in range(26) if i != j]
    tok = Tokenizer.from_merges(merges, pretokenizer="none")
    rng = random.Random(21)
    text = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(3000))
    whole = tok.encode_with_trace(text).pieces[0]
    assert 150 < len(whole.blocked) <= explain.MAX_BLOCKED
    assert whole.blocked_omitted > 0  # apart rules with more than MAX_BETWEEN tokens between, on a long piece
    assert all(len(b.between) <= explain.MAX_BETWEEN for b in whole.blocked)
    monkeypatch.setattr(explain, "MAX_BLOCKED", 50)
    capped = tok.encode_with_trace(text).pieces[0]
    assert capped.blocked == whole.blocked[:50]
    assert capped.blocked_omitted == whole.blocked_omitted + len(whole.blocked) - 50
    assert tok.encode_with_trace("nest").pieces[0].blocked_omitted == 0

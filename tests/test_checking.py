"""The worked-example checker: the issue's golden example, hand-worked encodings, and self-consistency."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bpe_core
from bpe_core import ClaimError, EmptyCorpusError, OptionError, train
from bpe_core.analysis.checking import (
    CheckSettings,
    check_encoding,
    check_merges,
    find_settings,
    looks_like_word_counts,
    parse_claimed,
    parse_word_counts,
)

LOW = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
CLAIM = [("e", "s"), ("es", "t"), ("l", "o"), ("lo", "w"), ("n", "e")]


def test_golden_claim_is_wrong_from_merge_3_with_the_marker():
    """With </w> separate: (e,s) 9 and (es,t) 9 hold, then (est,</w>) has 9 where (l,o) is claimed with 7."""
    report = bpe_core.check_merges(LOW, CLAIM, pretokenizer="whitespace_eow", end_of_word="separate")
    assert report.first_wrong == 2 and not report.holds
    first, _, third = report.steps[:3]
    assert (first.claimed, first.actual, first.actual_count, first.ok, first.num_tied) == (
        ("e", "s"),
        ("e", "s"),
        9,
        True,
        3,
    )
    assert (third.claimed, third.actual, third.actual_count, third.claimed_pair_count, third.ok) == (
        ("l", "o"),
        ("est", "</w>"),
        9,
        7,
        False,
    )
    assert third.top_pairs[:4] == ((("est", "</w>"), 9), (("l", "o"), 7), (("o", "w"), 7), (("n", "e"), 6))
    assert third.reason() == "(l, o) has 7, but the merge here is (est, </w>) with 9"
    assert first.reason() == "(e, s) holds: it has the highest count, 9, winning a 3-way tie"
    assert [s.actual for s in report.steps] == [("e", "s"), ("es", "t"), ("est", "</w>"), ("l", "o"), ("lo", "w")]


def test_golden_claim_holds_without_the_marker_under_first_seen():
    report = check_merges(LOW, CLAIM, pretokenizer="whitespace")
    assert report.first_wrong is None and report.holds
    assert [s.actual_count for s in report.steps] == [9, 9, 7, 7, 6]
    found = find_settings(LOW, CLAIM)
    assert CheckSettings("whitespace", "separate", "first_seen", 1) in found
    assert CheckSettings("whitespace", "separate", "first_seen", 2) in found
    assert {s.tie_break for s in found} == {"first_seen"}  # alphabetical and hf pick (e,w) over (n,e) at the end
    assert not any(s.pretokenizer == "whitespace_eow" for s in found)
    assert found[0].label() == "whitespace (no </w>), first_seen, min frequency 1"


def test_claimed_counts_are_checked():
    report = check_merges(LOW, [(("e", "s"), 9), (("es", "t"), 8)], pretokenizer="whitespace")
    assert report.first_wrong == 1
    assert report.steps[1].reason() == "the pair is right but its count is 9, not 8"
    assert check_merges(LOW, [(("e", "s"), 9), (("es", "t"), None)], pretokenizer="whitespace").holds


def test_lost_tie_and_stopped_training_are_explained():
    report = check_merges(LOW, [("s", "t")], pretokenizer="whitespace")
    assert report.steps[0].reason() == "(s, t) also has 9 but loses the tie to (e, s) with 9"
    report = check_merges({"ab": 1}, [("a", "b"), ("ab", "c")], min_frequency=1, pretokenizer="whitespace")
    assert report.first_wrong == 1 and report.steps[1].actual is None
    assert report.stop_reason is not None
    assert "training had stopped" in report.steps[1].reason()


def test_min_frequency_two_is_listed_only_when_every_count_reaches_it():
    found = find_settings({"ab": 1, "cd": 3}, [("c", "d"), ("a", "b")])
    assert {s.min_frequency for s in found} == {1}


def test_find_settings_on_text_tells_pretokenizers_apart():
    text = "ab ab ab cd"
    claim = train(text, num_merges=2, pretokenizer="gpt2", min_frequency=1).merges
    assert claim == [("a", "b"), (" ", "ab")]  # GPT-2's split keeps the space before a word
    found = find_settings(text, claim)
    assert {s.pretokenizer for s in found} == {"gpt2"}
    assert CheckSettings("gpt2", "separate", "first_seen", 2) in found


def test_bad_claims_and_settings():
    with pytest.raises(ClaimError):
        check_merges(LOW, [])
    with pytest.raises(ClaimError):
        check_merges(LOW, [("e",)])
    with pytest.raises(ClaimError):
        check_merges(LOW, [(("e", "s"), -1)])
    with pytest.raises(ClaimError):
        check_merges(LOW, "e s")
    with pytest.raises(OptionError):
        check_merges(LOW, CLAIM, num_merges=3)
    with pytest.raises(OptionError):
        check_merges(LOW, CLAIM, tie_break="coin")
    with pytest.raises(EmptyCorpusError):
        check_merges("   ", CLAIM)


WORDS = st.dictionaries(st.text("abcde", min_size=1, max_size=6), st.integers(1, 5), min_size=1, max_size=6)
SETTINGS = st.sampled_from(
    [
        dict(pretokenizer=p, end_of_word=e, tie_break=t, min_frequency=m)
        for p, e in (("whitespace_eow", "separate"), ("whitespace_eow", "attached"), ("whitespace", "separate"))
        for t in ("first_seen", "alphabetical", "subword_nmt", "hf_tokenizers")
        for m in (1, 2)
    ]
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words=WORDS, config=SETTINGS, k=st.integers(1, 8))
def test_a_table_holds_against_its_own_corpus(words, config, k):
    result = train(words, num_merges=k, **config)
    if not result.merges:
        return
    claim = [(pair, step.count) for pair, step in zip(result.merges, result.steps)]
    assert check_merges(words, claim, **config).first_wrong is None
    own = CheckSettings(config["pretokenizer"], config["end_of_word"], config["tie_break"], config["min_frequency"])
    if config["pretokenizer"] == "whitespace":
        own = CheckSettings("whitespace", "separate", config["tie_break"], config["min_frequency"])
    assert own in find_settings(words, claim)


@pytest.mark.parametrize("tie_break", ["first_seen", "alphabetical", "subword_nmt", "hf_tokenizers"])
def test_a_real_table_holds_against_its_own_corpus(tie_break):
    text = open(_sample("shakespeare_excerpt.txt"), encoding="utf-8").read()[:4000]
    result = train(text, num_merges=40, tie_break=tie_break, pretokenizer="gpt2", unit="byte")
    report = check_merges(text, result.merges, tie_break=tie_break, pretokenizer="gpt2", unit="byte")
    assert report.first_wrong is None and len(report.steps) == 40


def _sample(name: str) -> str:
    from .conftest import REPO

    return str(REPO / "sample_corpora" / name)


# ---------------------------------------------------------------- encodings

ABCD = [("b", "c"), ("a", "b"), ("ab", "c"), ("abc", "d"), ("a", "bc")]


def test_encoding_orders_golden():
    """abcd: rank merges (b,c), then (a,bc) rank 4, then (abc,d) rank 3; sequential never returns to rank 3."""
    rank_claim = ["a b c d", "a bc d", "abc d", "abcd"]
    report = check_encoding(ABCD, "abcd", rank_claim, pretokenizer="none")
    assert report.first_wrong_by_order == {"rank": None, "sequential": 3, "leftmost": None}
    assert report.states_by_order["sequential"] == (("a", "b", "c", "d"), ("a", "bc", "d"), ("abc", "d"))
    assert report.holding == ["rank", "leftmost"]
    seq = check_encoding(ABCD, "abcd", [["a", "b", "c", "d"], ["a", "bc", "d"], ["abc", "d"]], pretokenizer="none")
    assert seq.first_wrong_by_order == {"rank": 3, "sequential": None, "leftmost": 3}


def test_encoding_one_occurrence_at_a_time():
    """aaaa with (a,a), (aa,aa): all at once gives aa aa in one state; leftmost first gives aa a a, then aa aa."""
    table = [("a", "a"), ("aa", "aa")]
    all_at_once = ["a a a a", "aa aa", "aaaa"]
    report = check_encoding(table, "aaaa", all_at_once, pretokenizer="none")
    assert report.first_wrong_by_order == {"rank": None, "sequential": None, "leftmost": 1}
    one_by_one = ["a a a a", "aa a a", "aa aa", "aaaa"]
    report = check_encoding(table, "aaaa", one_by_one, pretokenizer="none")
    assert report.first_wrong_by_order == {"rank": 1, "sequential": 1, "leftmost": None}


def test_encoding_with_the_marker_and_a_short_claim():
    merges = train(LOW, num_merges=10).merges
    claim = ["l o w e s t </w>", "l o w es t </w>", "l o w est </w>"]
    report = check_encoding(merges, "lowest", claim)
    assert report.first_wrong_by_order == {"rank": 3, "sequential": 3, "leftmost": 3}  # the claim stops early
    assert report.states_by_order["rank"][-1] == ("low", "est</w>")
    wrong_start = check_encoding(merges, "lowest", ["l o w e s t"])
    assert wrong_start.first_wrong_by_order["rank"] == 0


def test_encoding_errors():
    with pytest.raises(ClaimError):
        check_encoding(ABCD, "abcd", [], pretokenizer="none")
    with pytest.raises(ClaimError):
        check_encoding(ABCD, "ab cd", ["a b"], pretokenizer="whitespace")
    with pytest.raises(ClaimError):
        check_encoding(ABCD, "abcd", [""], pretokenizer="none")


# ---------------------------------------------------------------- text boxes


def test_parse_claimed_lines():
    text = "e s 9\n(es, t): 9\n\n# a comment\n3. l o\n(lo, w)\nest </w>"
    assert parse_claimed(text) == [
        (("e", "s"), 9),
        (("es", "t"), 9),
        (("l", "o"), None),
        (("lo", "w"), None),
        (("est", "</w>"), None),
    ]
    with pytest.raises(ClaimError, match="line 2"):
        parse_claimed("e s\ne s t u")
    with pytest.raises(ClaimError):
        parse_claimed("\n# nothing\n")


def test_parse_word_counts():
    assert parse_word_counts("low 5, lower 2\nnewest 6\n\nwidest 3") == LOW
    assert list(parse_word_counts("b 1\na 2\nb 1")) == ["b", "a"]
    with pytest.raises(ClaimError, match="line 2"):
        parse_word_counts("low 5\nlower two")
    with pytest.raises(ClaimError):
        parse_word_counts("low 0")
    assert looks_like_word_counts("low 5\nlower 2")
    assert not looks_like_word_counts("the cat sat on the mat")


def test_word_counts_past_the_engine_limit_name_their_line():
    from bpe_core.text.corpus import MAX_WORD_FREQUENCY

    assert parse_word_counts(f"low {MAX_WORD_FREQUENCY}") == {"low": MAX_WORD_FREQUENCY}
    assert parse_word_counts("low 007") == {"low": 7}
    with pytest.raises(ClaimError, match=r"^line 2: the count 99,999,999,999,999,999,999,999 is too large; at most"):
        parse_word_counts("lower 2\nlow 99999999999999999999999")
    with pytest.raises(ClaimError, match=r"^line 1: the count a number of 5,000 digits is too large"):
        parse_word_counts("low " + "9" * 5000)  # past Python's int-from-string limit: no ValueError
    with pytest.raises(ClaimError, match=r"^line 2: the word 'low' is counted 562,949,953,421,312 times in all"):
        parse_word_counts(f"low {MAX_WORD_FREQUENCY}\nlow {MAX_WORD_FREQUENCY}")
    with pytest.raises(ClaimError, match="line 1: 'low ²' is not 'word count'"):
        parse_word_counts("low ²")  # a digit int() cannot read
    with pytest.raises(ClaimError, match="line 1: 'low 000': the count '000' is not a positive whole number"):
        parse_word_counts("low 000")
    assert looks_like_word_counts("low 5\nlow 99999999999999999999999")  # shaped as counts: its error is shown
    assert not looks_like_word_counts("low 5\nthe cat")

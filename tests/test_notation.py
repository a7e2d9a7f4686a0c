"""The worked-example checker in the book's own notation (issue 21, item 1): markers, corpus layouts, and the
published examples (Jurafsky & Martin ch. 2, the Hugging Face course, Wikipedia, Sennrich et al. 2016)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core import ClaimError, OptionError, train
from bpe_core.analysis.checking import (
    CheckSettings,
    Notation,
    check_encoding,
    check_merges,
    find_settings,
    looks_like_word_counts,
    parse_claimed,
    read_word_counts,
)
from bpe_core.analysis.notation import notations_of

JM = {"low": 5, "lowest": 2, "newer": 6, "wider": 3, "new": 2}
"""Jurafsky & Martin, Speech and Language Processing (3rd ed.), ch. 2: the corpus of their BPE example."""
JM_CLAIM = [("e", "r"), ("er", "_"), ("n", "e"), ("ne", "w"), ("l", "o"), ("lo", "w"), ("new", "er_"), ("low", "_")]
"""Their eight merges, with _ as the end-of-word marker."""
JM_SENTENCE = "first_seen, with _ as a separate end-of-word marker, a symbol of its own after each word (l o w _)"

# ----------------------------------------------------------------- Jurafsky & Martin


def test_jurafsky_and_martin_read_as_text_fail_at_merge_2():
    """The issue's finding: with _ taken as a character, (er, _) never occurs."""
    report = check_merges(JM, JM_CLAIM)
    assert report.first_wrong == 1
    assert report.steps[1].reason() == "(er, _) has 0, but the merge here is (er, </w>) with 9"
    assert not [s for s in find_settings(JM, JM_CLAIM) if s.marker is None]


def test_jurafsky_and_martin_with_their_marker_hold_under_first_seen():
    report = check_merges(JM, JM_CLAIM, marker="_")
    assert report.holds and report.conditions() == JM_SENTENCE
    assert [s.actual for s in report.steps] == JM_CLAIM  # printed back in their notation
    assert [s.actual_count for s in report.steps] == [9, 9, 8, 8, 7, 7, 6, 5]
    assert report.steps[1].top_pairs[:2] == ((("er", "_"), 9), (("n", "e"), 8))
    assert report.steps[0].num_tied == 2  # e r and r _ both count 9; first_seen takes e r (newer comes first)
    assert find_settings(JM, JM_CLAIM) == [
        CheckSettings("whitespace_eow", "separate", "first_seen", 1, "char", "_"),
        CheckSettings("whitespace_eow", "separate", "first_seen", 2, "char", "_"),
    ]
    assert find_settings(JM, JM_CLAIM)[0].label() == "whitespace_eow (_ separate), first_seen, min frequency 1"


def test_jurafsky_and_martin_encoding_in_their_notation():
    merges = list(JM_CLAIM)
    states = ["l o w e s t _", "lo w e s t _", "low e s t _"]
    report = check_encoding(merges, "lowest", states, marker="_")
    assert report.holding == ["rank", "sequential", "leftmost"]
    assert report.states_by_order["rank"][-1] == ("low", "e", "s", "t", "_")
    wrong = check_encoding(merges, "lowest", ["l o w e s t"], marker="_")
    assert wrong.first_wrong_by_order["rank"] == 0


@pytest.mark.parametrize(
    ("text", "layout", "said"),
    [
        ("low 5\nlowest 2\nnewer 6\nwider 3\nnew 2", "low 5", "5 words with counts (18 in all)"),
        ("5 low\n2 lowest\n6 newer\n3 wider\n2 new", "5 low", "5 words with counts (18 in all)"),
        ("low: 5, lowest: 2, newer: 6, wider: 3, new: 2", "low: 5", "5 words with counts (18 in all)"),
        (
            "5 l o w _\n2 l o w e s t _\n6 n e w e r _\n3 w i d e r _\n2 n e w _",
            "5 l o w _",
            "5 words with counts, spelled with spaces, _ at the end as a separate symbol (18 in all)",
        ),
        (
            "l o w _ 5\nl o w e s t _ 2\nn e w e r _ 6\nw i d e r _ 3\nn e w _ 2",
            "l o w _ 5",
            "5 words with counts, spelled with spaces, _ at the end as a separate symbol (18 in all)",
        ),
        (
            "[('low', 5), ('lowest', 2),\n ('newer', 6), (\"wider\", 3), ('new', 2)]",
            "('low', 5)",
            "5 words with counts (18 in all)",
        ),
        ("{'low': 5, 'lowest': 2, 'newer': 6, 'wider': 3, 'new': 2}", "{'low': 5}", "5 words with counts (18 in all)"),
    ],
)
def test_corpus_layouts_as_books_print_them(text, layout, said):
    read = read_word_counts(text)
    assert read.counts == JM and list(read.counts) == list(JM)
    assert (read.layout, read.describe()) == (layout, said)
    assert looks_like_word_counts(text)
    assert read.notation == (Notation("_") if "_" in text else None)


@pytest.mark.parametrize("marker", ["_", "</w>"])
def test_sentences_name_an_end_markers_placement_as_the_marker_box_does(marker):
    """One vocabulary (trial A, item 9): the verdict and the corpus caption say ``separate`` or ``attached`` as
    the Marker box and the settings table (:meth:`Notation.label`) do, never the other placement's word."""
    for placement, other in (("separate", "attached"), ("attached", "separate")):
        notation = Notation(marker, placement)
        assert notation.label() == f"{marker} {placement}"
        said = notation.describe()
        assert placement in said and other not in said
        counts = read_word_counts(f"5 {notation.spelled('low')}").describe()
        assert placement in counts and other not in counts
    assert Notation(marker).describe() == (
        f"{marker} as a separate end-of-word marker, a symbol of its own after each word (l o w {marker})"
    )
    assert Notation(marker, "attached").describe() == (
        f"{marker} as an attached end-of-word marker, glued to each word's last character (l o w{marker})"
    )


def test_spelled_layouts_carry_their_marker_and_placement():
    assert read_word_counts("5 l o w_\n2 n e w_").notation == Notation("_", "attached")
    assert (
        read_word_counts("5 l o w_").describe() == "1 word with counts, spelled with spaces, _ at the end attached "
        "to the last character (5 in all)"
    )
    assert read_word_counts("▁ l o w 5").notation == Notation("▁")
    assert read_word_counts("l@@ o@@ w 5").notation == Notation("@@", "attached")
    assert read_word_counts("5 l o w").notation is None and read_word_counts("5 l o w").spelled


def test_layouts_that_do_not_read():
    with pytest.raises(ClaimError, match="line 2: 'lowest 2' is written another way than the lines above"):
        read_word_counts("5 low\nlowest 2")
    with pytest.raises(ClaimError, match="spelled with different markers"):
        read_word_counts("5 l o w _\n2 l o w </w>")
    with pytest.raises(ClaimError, match="line 1: 'see page 5' is not 'word count'"):
        read_word_counts("see page 5")  # running text: a word of several letters is not a spelled symbol
    assert not looks_like_word_counts("see page 5\nthe end")
    assert not looks_like_word_counts("('low', 5) and more")


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("low -5\nlower 2", "line 1: 'low -5': the count '-5' is not a positive whole number"),
        ("low 5\nlower 0\nnewest 6", "line 2: 'lower 0': the count '0' is not a positive whole number"),
        ("low: 5\nlower: 2.5", "line 2: 'lower: 2.5': the count '2.5' is not a positive whole number"),
        ("-5 l o w _\n2 l o w e s t _", "line 1: '-5 l o w _': the count '-5' is not a positive whole number"),
        ("low 5\n2 lowest\nnewer 6", "line 2: '2 lowest' is written another way than the lines above (5 low)"),
        ("low 5\nlower 2\nnewest six", "line 3: 'newest six' is not 'word count' with a positive count"),
    ],
)
def test_mostly_word_counts_name_the_line_that_does_not_read(text, said):
    """Trial A, item 13: ``low -5 / lower 2`` was read as running text and the claim "held"; a box most of whose
    lines read as word counts (or would but for their count) is word counts, and the bad line is named."""
    assert looks_like_word_counts(text) and not looks_like_word_counts(text, every_entry=True)
    with pytest.raises(ClaimError) as info:
        read_word_counts(text)
    assert str(info.value) == said


@pytest.mark.parametrize(
    "text",
    [
        "the cat sat on the mat",
        "see page 5\nthe end",
        "Chapter 1\nIt was a dark and stormy night, and the rain fell in torrents",
        "low 5\nthe cat",  # half, not most
        "I have 5 apples\nyou have -3",
        "-5",
    ],
)
def test_running_text_stays_running_text(text):
    assert not looks_like_word_counts(text)


def test_a_long_bad_line_is_quoted_short():
    line = " ".join("a" * 5000) + " -5"
    with pytest.raises(ClaimError) as info:
        read_word_counts(f"low 5\n{line}")
    assert str(info.value).startswith("line 2: 'a a a") and len(str(info.value)) < 140
    huge = "low " + "-" + "9" * 5000
    assert looks_like_word_counts(huge)
    with pytest.raises(ClaimError) as info:
        read_word_counts(huge)
    assert len(str(info.value)) < 140


def test_claimed_merges_with_arrows():
    assert parse_claimed("e r → er\ner _ -> er_") == [(("e", "r"), None), (("er", "_"), None)]


# ----------------------------------------------------------------- the other markers


def test_sentencepiece_marker_at_the_start():
    claim = train({"▁" + w: c for w, c in JM.items()}, num_merges=6, pretokenizer="whitespace").merges
    assert claim[:2] == [("e", "r"), ("▁", "n")]
    report = check_merges(JM, claim, marker="▁")
    assert report.holds and report.conditions().endswith("a symbol of its own before each word (▁ l o w)")
    found = find_settings(JM, claim)
    assert CheckSettings("whitespace", "separate", "first_seen", 2, "char", "▁") in found
    assert found[0].train_corpus(JM) == {"▁" + w: c for w, c in JM.items()}


def test_a_start_marker_glued_to_the_first_character_is_read_once_and_printed_once():
    """Trial A, item 10: ``5 ▁l o w`` printed its example as ``(▁ ▁ l o w)``."""
    read = read_word_counts("5 ▁l o w\n2 ▁n e w")
    assert (read.counts, read.notation, read.glued_start) == ({"low": 5, "new": 2}, Notation("▁"), True)
    assert read.describe() == (
        "2 words with counts, spelled with spaces, ▁ at the start glued to the first character, "
        "read as a symbol of its own (7 in all)"
    )
    separate = read_word_counts("5 ▁ l o w\n2 ▁ n e w\n3 ▁a")
    assert separate.counts == {"low": 5, "new": 2, "a": 3} and not separate.glued_start
    assert separate.describe() == "3 words with counts, spelled with spaces, ▁ at the start (10 in all)"
    assert Notation("▁").spelled("▁low") == Notation("▁").spelled("low") == "▁ l o w"
    assert Notation("Ġ").spelled("Ġlow") == "Ġ l o w"
    assert Notation("▁").corpus("▁low new") == "▁low ▁new" and Notation("▁").corpus({"▁low": 1}) == {"▁low": 1}
    claim = [("▁", "l"), ("▁l", "o")]
    for corpus in (read.counts, {"▁low": 5, "▁new": 2}, "▁low ▁low ▁new"):  # the marker written or not
        report = check_merges(corpus, claim, marker="▁", min_frequency=1)
        assert report.holds and report.conditions().endswith("before each word (▁ l o w)"), report.conditions()


def test_gpt2_space_marker_on_text():
    text = "the cat sat on the mat the end"
    claim = train(text, num_merges=5, pretokenizer="gpt2", unit="byte", min_frequency=1).merges
    assert ("Ġ", "the") in claim
    assert check_merges(text, claim, marker="Ġ", min_frequency=1).holds
    assert [s.label() for s in find_settings(text, claim)] == [
        "gpt2 bytes (Ġ at the start), first_seen, min frequency 1"
    ]


def test_subword_nmt_continuation_marker():
    engine = train(JM, num_merges=6, end_of_word="attached").merges
    notation = Notation("@@", "attached")
    claim = [(notation.shown(a), notation.shown(b)) for a, b in engine]
    assert claim[:2] == [("e@@", "r"), ("n@@", "e@@")]
    report = check_merges(JM, claim, marker="@@")
    assert report.holds and report.steps[0].top_pairs[0] == (("e@@", "r"), 9)
    enc = check_encoding(claim, "lowest", ["l@@ o@@ w@@ e@@ s@@ t", "l@@ o@@ w@@ e@@ s@@ t"], marker="@@")
    assert enc.states_by_order["rank"][1] == ("lo@@", "w@@", "e@@", "s@@", "t")


def test_markers_refuse_contradicting_settings():
    with pytest.raises(OptionError, match="the marker _ .* stands for pretokenizer=whitespace_eow, not 'gpt2'"):
        check_merges(JM, JM_CLAIM, marker="_", pretokenizer="gpt2")
    with pytest.raises(OptionError, match="unknown marker"):
        check_merges(JM, JM_CLAIM, marker="·")
    with pytest.raises(OptionError, match="end_of_word must be attached"):
        Notation("@@", "separate")


def test_notations_a_claim_suggests():
    assert notations_of(["er", "_"]) == [Notation("_", "separate"), Notation("_", "attached")]
    assert notations_of(["e", "r_"]) == [Notation("_", "attached"), Notation("_", "separate")]
    assert notations_of(["▁l", "o"]) == [Notation("▁")]
    assert notations_of(["e", "s"]) == []


@settings(max_examples=40, deadline=None)
@given(
    words=st.dictionaries(st.text("abcde", min_size=1, max_size=6), st.integers(1, 5), min_size=1, max_size=5),
    marker=st.sampled_from([Notation("_"), Notation("_", "attached"), Notation("▁"), Notation("@@", "attached")]),
    k=st.integers(1, 6),
)
def test_a_table_written_in_any_notation_holds_against_its_own_corpus(words, marker, k):
    engine = train(marker.corpus(words), num_merges=k, min_frequency=1, **marker.train_settings(words))
    claim = [((marker.shown(a), marker.shown(b)), c) for (a, b), c in zip(engine.merges, engine.log.counts)]
    if not claim:
        return
    report = check_merges(words, claim, marker=marker.marker, end_of_word=marker.end_of_word, min_frequency=1)
    assert report.holds
    settings_found = find_settings(words, claim)
    if notations_of([s for (pair, _count) in claim for s in pair]):  # the claim shows its marker: it is found
        assert any(s.marker == marker.marker and s.end_of_word == marker.end_of_word for s in settings_found)
    spelled = "\n".join(f"{c} {marker.spelled(w)}" for w, c in words.items())
    assert read_word_counts(spelled).counts == words


# ----------------------------------------------------------------- the other published examples


def test_hugging_face_course_tuples():
    """The Hugging Face LLM course, ch. 6 "Byte-Pair Encoding tokenization": ("u", "g"), ("u", "n"), ("h", "ug")."""
    read = read_word_counts('[("hug", 10), ("pug", 5), ("pun", 12), ("bun", 4), ("hugs", 5)]')
    claim = [(("u", "g"), 20), (("u", "n"), 16), (("h", "ug"), 15)]
    assert check_merges(read.counts, claim, pretokenizer="whitespace").holds
    assert CheckSettings("whitespace", "separate", "first_seen", 2) in find_settings(read.counts, claim)


def test_sennrich_toy_dict_with_its_markers():
    """Sennrich et al. 2016, the Python of Algorithm 1: the dict spelled with </w>, and the ten merges it prints."""
    read = read_word_counts("{'l o w </w>' : 5, 'l o w e r </w>' : 2, 'n e w e s t </w>':6, 'w i d e s t </w>':3}")
    assert read.counts == {"low": 5, "lower": 2, "newest": 6, "widest": 3} and read.notation == Notation("</w>")
    claim = parse_claimed("e s\nes t\nest </w>\nl o\nlo w\nn e\nne w\nnew est</w>\nlow </w>\nw i")
    assert [s.label() for s in find_settings(read.counts, claim)] == [
        "whitespace_eow (</w> separate), first_seen, min frequency 1",
        "whitespace_eow (</w> separate), first_seen, min frequency 2",
    ]


def test_wikipedia_aaabdaaabac_holds_when_ties_go_to_the_smaller_pair():
    """Wikipedia, "Byte pair encoding": aa -> Z, then ab -> Y (a tie with (aa, a)), then ZY -> X."""
    found = find_settings("aaabdaaabac", [("a", "a"), ("a", "b"), ("aa", "ab")])
    assert {s.tie_break for s in found} == {"alphabetical", "hf_tokenizers"}
    assert not check_merges("aaabdaaabac", [("a", "a"), ("a", "b")], pretokenizer="none").holds

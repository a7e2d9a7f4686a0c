"""AppTest: the Check an example page on long repetitive input, in the book's notation, and from a link."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from ui import state

from .conftest import APP_TIMEOUT
from .test_app import APP, captions, seen, subheaders
from .test_app_provenance import CHECK, errors, page

JM_CORPUS = "low 5\nlowest 2\nnewer 6\nwider 3\nnew 2"
JM_CLAIM = "e r\ner _\nn e\nne w\nl o\nlo w\nnew er_\nlow _"
JM_HOLDS = (
    "All 8 claimed merges hold under first_seen, with `_` as a separate end-of-word marker, a symbol of its own "
    "after each word (`l o w _`)."
)


def successes(at: AppTest) -> list[str]:
    return [seen(s.value) for s in at.success]


def jurafsky(corpus: str = JM_CORPUS, claim: str = JM_CLAIM) -> AppTest:
    at = page(CHECK)
    at.text_area(key=state.CHECK_CORPUS).set_value(corpus)
    at.text_area(key=state.CHECK_CLAIM).set_value(claim).run()
    assert not at.exception
    return at


def test_check_page_answers_on_a_60000_character_run_of_dashes():
    """Issue 18: a run of '-' (a Markdown rule pasted whole) is checked, settings found, nothing raised."""
    at = page(CHECK)
    at.text_area(key=state.CHECK_CORPUS).set_value("-" * 60_000).run()
    at.text_area(key=state.CHECK_CLAIM).set_value("- -\n-- --\n---- ----").run()
    assert not at.exception and not errors(at)
    assert successes(at)[0].startswith(
        "All 3 claimed merges hold under first_seen, with `</w>` as a separate end-of-word"
    )
    assert "Read as running text (60,000 characters)." in captions(at)
    found = at.dataframe[2].value
    assert len(found) == 48  # every pre-tokenizer keeps the run as one piece; no pair ever ties


def test_jurafsky_and_martin_in_their_own_notation_holds_under_first_seen():
    """Issue 21: their corpus and merges, _ read as the end-of-word marker (detected in the claim)."""
    at = jurafsky()
    assert not errors(at)
    assert successes(at) == [JM_HOLDS]
    assert "Read as 5 words with counts (18 in all)." in captions(at)
    assert any(
        c.startswith("Marker found in the claimed merges: `_` as a separate end-of-word marker") for c in captions(at)
    )
    verdict = at.dataframe[0].value
    assert verdict["true merge"].tolist() == [
        "e + r",
        "er + _",
        "n + e",
        "ne + w",
        "l + o",
        "lo + w",
        "new + er_",
        "low + _",
    ]
    found = at.dataframe[2].value
    assert found.values.tolist() == [
        ["whitespace_eow", "_ separate", "first_seen", 1],
        ["whitespace_eow", "_ separate", "first_seen", 2],
    ]


@pytest.mark.parametrize(
    "corpus",
    [
        "5 low\n2 lowest\n6 newer\n3 wider\n2 new",
        "low: 5\nlowest: 2\nnewer: 6\nwider: 3\nnew: 2",
        "5 l o w _\n2 l o w e s t _\n6 n e w e r _\n3 w i d e r _\n2 n e w _",
        "l o w _ 5\nl o w e s t _ 2\nn e w e r _ 6\nw i d e r _ 3\nn e w _ 2",
        "[('low', 5), ('lowest', 2), ('newer', 6), ('wider', 3), ('new', 2)]",
    ],
)
def test_jurafsky_and_martin_in_every_layout(corpus):
    at = jurafsky(corpus)
    assert successes(at) == [JM_HOLDS]
    spelled = "_" in corpus
    said = "Read as 5 words with counts, spelled with spaces, _ at the end as a separate symbol (18 in all)."
    assert (said if spelled else "Read as 5 words with counts (18 in all).") in captions(at)
    if spelled:
        assert any(c.startswith("Marker spelled in the corpus: `_`") for c in captions(at))


def test_the_spelled_corpus_alone_sets_the_marker():
    """``5 l o w _`` with merges printed with </w> would be read with _: the corpus's marker comes first."""
    at = jurafsky("5 l o w _\n2 l o w e s t _\n6 n e w e r _\n3 w i d e r _\n2 n e w _", "e r")
    assert successes(at)[0].startswith(
        "The claimed merge holds under first_seen, with `_` as a separate end-of-word marker"
    )


def test_a_start_marker_glued_to_the_first_character_is_printed_once():
    """Trial A, item 10: ``5 ▁l o w`` printed its example as ``(▁ ▁ l o w)``."""
    at = jurafsky("5 ▁l o w\n2 ▁n e w", "▁ l\n▁l o")
    said = (
        "Read as 2 words with counts, spelled with spaces, ▁ at the start glued to the first character, "
        "read as a symbol of its own (7 in all)."
    )
    assert said in captions(at)
    assert (
        "Marker spelled in the corpus: `▁` as the start-of-word marker, a symbol of its own before each word "
        "(`▁ l o w`)." in captions(at)
    )
    assert successes(at) == [
        "All 2 claimed merges hold under first_seen, with `▁` as the start-of-word marker, a symbol of its own "
        "before each word (`▁ l o w`)."
    ]


def test_a_bad_count_among_word_counts_is_named_not_read_as_text():
    """Trial A, item 13: ``low -5 / lower 2`` was read as running text and the claim "held"."""
    at = jurafsky("low -5\nlower 2", "l o")
    assert errors(at) == [
        "line 1: 'low -5': the count '-5' is not a positive whole number. Most lines read as word counts; to check "
        "this box as running text, choose Text under “Read the corpus as”."
    ]
    assert not at.success and not at.dataframe
    at.radio(key=state.CHECK_KIND).set_value("Text").run()
    assert not errors(at) and "Read as running text (14 characters)." in captions(at)
    at.radio(key=state.CHECK_KIND).set_value("Detect").run()
    at.text_area(key=state.CHECK_CORPUS).set_value("low 5\n2 lowest\nnewer 6").run()
    assert errors(at)[0].startswith("line 2: '2 lowest' is written another way than the lines above")


def test_the_matching_setting_opens_train_on_the_same_merges():
    at = jurafsky()
    at.button(key="check_open_0").click().run()
    assert not at.exception
    assert subheaders(at)[0] == "Merge 1 of 8 (rank 0): “e” + “r” → “er”"
    applied = at.session_state[state.APPLIED_SETTINGS]
    assert (applied.pretokenizer, applied.end_of_word, applied.tie_break, applied.min_frequency, applied.budget) == (
        "whitespace_eow",
        "separate",
        "first_seen",
        1,
        8,
    )
    assert at.session_state[state.APPLIED_CORPUS].text.startswith("low low low low low lowest lowest newer")


def test_the_marker_box_overrides_detection():
    at = jurafsky()
    at.selectbox(key=state.CHECK_MARKER).set_value("As the pre-tokenizer writes it").run()
    assert errors(at) == ["The claim is wrong from merge 2: (er, _) has 0, but the merge here is (er, </w>) with 9."]
    assert not at.selectbox(key=state.CHECK_PRETOKENIZER).disabled
    at.selectbox(key=state.CHECK_MARKER).set_value("_ attached").run()
    assert errors(at)[0].startswith("The claim is wrong from merge 1:")


def test_the_top_pairs_box_follows_the_first_wrong_merge_of_the_current_input():
    at = page(CHECK)
    assert at.selectbox(key=state.CHECK_TOP_STEP).value == "merge 3"  # the default example: wrong from merge 3
    at.text_area(key=state.CHECK_CLAIM).set_value("e s\nl o").run()
    assert errors(at)[0].startswith("The claim is wrong from merge 2")
    assert at.selectbox(key=state.CHECK_TOP_STEP).value == "merge 2"
    at.selectbox(key=state.CHECK_TOP_STEP).set_value("merge 1").run()
    assert at.selectbox(key=state.CHECK_TOP_STEP).value == "merge 1"  # the user's choice stays ...
    at.text_area(key=state.CHECK_CLAIM).set_value("s t").run()
    assert at.selectbox(key=state.CHECK_TOP_STEP).value == "merge 1"  # ... until the input changes
    assert at.dataframe[1].value.iloc[0].tolist() == ["e + s", 9, "merged here"]


def test_a_link_reopens_the_check_with_its_inputs():
    at = AppTest.from_file(APP, default_timeout=APP_TIMEOUT)
    at.switch_page(CHECK)
    at.query_params.update(
        {state.CHECK_CORPUS: JM_CORPUS, state.CHECK_CLAIM: JM_CLAIM, state.CHECK_TIE_BREAK: "first_seen"}
    )
    at.run()
    assert not at.exception and successes(at) == [JM_HOLDS]


def test_a_link_with_an_oversized_corpus_is_refused_with_a_message():
    at = AppTest.from_file(APP, default_timeout=APP_TIMEOUT)
    at.switch_page(CHECK)
    at.query_params.update({state.CHECK_CORPUS: "low 5\n" * 20_000})
    at.run()
    assert not at.exception
    warned = " ".join(seen(w.value) for w in at.warning)
    assert "check_corpus holds 120,000 characters; the Check page's corpus box holds 100,000" in warned
    assert "Read as 4 words with counts (16 in all)." in captions(at)  # the default example instead

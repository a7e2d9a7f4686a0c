"""The Languages page (issue 21, item 2): its tables and charts built directly, and the page in AppTest with
the real tokenizers: bars per tokenizer, a language's text tokenized, and the premium curves of the table
trained here, before and after training on the UDHR itself."""

from __future__ import annotations

import json
from functools import cache

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from bpe_core import ParallelSection, Tokenizer, parallel_sections, premium_curves
from bpe_core.analysis.languages import unseen_characters
from ui import state
from ui.corpus import read_sample
from ui.languages import LANG_PARAM, UDHR_SAMPLE
from viz.contrast import relative_luminance
from viz.languages import (
    BAR_HEIGHT,
    NO_SCRIPT_COLOR,
    PALETTE,
    REFERENCE_COLOR,
    UNSEEN_PATTERN,
    curves_figure,
    excerpt,
    gains_frame,
    helped_frame,
    merge_share_figure,
    merge_share_frame,
    mostly_unseen,
    premium_figure,
    premium_frame,
    premium_summary,
    reference_story,
    script_colors,
    unseen_note,
)

from .conftest import APP_TIMEOUT, REPO
from .test_app import seen

APP = str(REPO / "app.py")
PAGE = "pages/languages.py"


def section(code: str, name: str, text: str) -> ParallelSection:
    from bpe_core.analysis.languages import letter_scripts

    return ParallelSection(code, name, "T", text, 1, letter_scripts(text))


SECTIONS = {
    "eng": section("eng", "English", "low lower"),
    "fra": section("fra", "French", "er er er"),
    "rus": section("rus", "Russian", "мир мир"),
}
TOK = Tokenizer.from_merges([("l", "o"), ("lo", "w"), ("e", "r")], pretokenizer="whitespace")


@pytest.fixture(scope="module")
def curves():
    return premium_curves(TOK, SECTIONS)


# ----------------------------------------------------------------- tables and charts


def test_premium_frame_and_figure():
    frame = premium_frame(SECTIONS, {"A": {"eng": 4, "fra": 6, "rus": 2}, "B": {"eng": 2, "fra": 2, "rus": 8}})
    assert list(frame.columns) == [
        "language", "code", "script", "characters", "A tokens", "A premium", "B tokens", "B premium",
    ]  # fmt: skip
    assert list(frame["A premium"]) == [1.0, 1.5, 0.5] and list(frame["script"]) == ["Latin", "Latin", "Cyrillic"]
    fig = premium_figure(frame, "A", selected="fra", hatched=["rus"])
    bars = [(t.name, t.orientation, list(t.y), list(t.x)) for t in fig.data]
    assert bars == [
        ("Cyrillic", "h", ["rus"], [0.5]), ("English (reference)", "h", ["eng"], [1.0]), ("Latin", "h", ["fra"], [1.5])
    ]  # fmt: skip
    # names on the y axis, written horizontally; drawn bottom up, so the dearest is on top
    assert list(fig.layout.yaxis.categoryarray) == ["rus", "eng", "fra"]
    assert list(fig.layout.yaxis.ticktext) == ["Russian", "English", "<b>French</b>"]  # the pick in bold
    assert fig.layout.height == 3 * BAR_HEIGHT + 90
    assert [t.text for t in fig.data] == [("0.50×",), ("1.00×",), ("1.50×",)]  # each premium at its bar's end
    assert fig.data[2].marker.line.width == (3,) and fig.data[0].marker.line.width == (0,)  # the pick outlined
    assert fig.data[0].marker.pattern.shape == (UNSEEN_PATTERN,) and fig.data[2].marker.pattern.shape == ("",)
    assert fig.data[2].customdata[0][0] == "fra"  # a click names the language by code
    colors = script_colors(list(frame["script"]))
    assert fig.data[2].marker.color == colors["Latin"] == PALETTE[0]  # two Latin languages: the first colour
    assert fig.data[1].marker.color == REFERENCE_COLOR
    # the reference line's label sits under the bars (paper y 0, hanging down), not over them
    (label,) = fig.layout.annotations
    assert (label.x, label.y, label.yref, label.yanchor) == (1, 0, "paper", "top") and "1× = English" in label.text
    assert premium_summary(frame, "B") == (
        "B: English takes 2 tokens. The dearest language is Russian at 4.00× (Cyrillic); "
        "the median premium of the 2 other languages is 2.50×; 1 of them is within 1.5×."
    )  # English's own 1.00× is left out of the median: with it, the median would be 1.00×


def test_a_char_level_tables_premiums_are_explained():
    frame = premium_frame(SECTIONS, {"T": {"eng": 4, "fra": 6, "rus": 2}})
    unseen = {"eng": 0, "fra": 1, "rus": 2}  # every Russian token is a character the table never saw
    assert mostly_unseen(frame, "T", unseen) == ["rus"]
    assert mostly_unseen(frame, "T", {"eng": 4, "fra": 0, "rus": 0}) == []  # the reference is never hatched
    note = unseen_note(frame, "T", unseen, corpus="a play", alphabet=26, fallback="keep")
    assert note == (
        "What this table is: merges learned at character level from a play; its alphabet is that text's 26 "
        "characters. A character outside it is kept as a token of its own (the keep fallback) that no merge can "
        "join, so a script the table never saw pays one token per character. For 1 of the 2 other languages, most "
        "tokens are such characters (hatched bars); where a character is a whole syllable or word that is cheap, "
        "so Russian comes out at 0.50× English. These premiums measure each language's distance from the training "
        "text's alphabet, not what a tokenizer trained on it would charge: train on the UDHR sample to compare "
        "languages."
    )
    dear = premium_frame(SECTIONS, {"T": {"eng": 4, "fra": 6, "rus": 8}})
    said = unseen_note(dear, "T", {"rus": 8}, corpus="x", alphabet=3, fallback="bytes")
    assert "one per UTF-8 byte (the bytes fallback), that no merge can join" in said
    assert "two to four tokens per character" in said and "comes out at" not in said  # no language below 1×
    assert unseen_note(frame, "T", {"eng": 3, "fra": 0, "rus": 0}, corpus="x", alphabet=3, fallback="keep") == ""
    with pytest.raises(KeyError):
        unseen_note(frame, "T", unseen, corpus="x", alphabet=3, fallback="none")


def test_script_colors_are_distinct_and_the_same_on_every_chart():
    """Each of the UDHR sample's 35 scripts its own colour, none of them grey, pale or near the reference's
    near-black; the script of the most languages gets the first colour; the order of the scripts given
    (premium order differs per tokenizer) changes nothing."""
    from bpe_core import parallel_sections
    from ui.corpus import read_sample
    from ui.languages import UDHR_SAMPLE

    scripts = [s.script for s in parallel_sections(read_sample(UDHR_SAMPLE), collection="UDHR").values()]
    colors = script_colors(scripts)
    assert len(colors) == 35 and len(set(colors.values())) == 35
    assert colors["Latin"] == PALETTE[0] and colors["Cyrillic"] == PALETTE[1]  # 30 and 9 languages
    assert script_colors(scripts[::-1]) == colors
    assert colors["Han"] != colors["Hangul"] and len({colors[s] for s in ("Yi", "Devanagari", "Ethiopic")}) == 3
    assert all(0.05 <= relative_luminance(c) <= 0.7 for c in colors.values())
    assert relative_luminance(REFERENCE_COLOR) < 0.01
    assert relative_luminance("#ffffff") == pytest.approx(1.0) and relative_luminance("#000000") == pytest.approx(0.0)
    with pytest.raises(ValueError, match="#rrggbb"):
        relative_luminance("red")


def test_curves_tables_and_story(curves):
    gains = gains_frame(curves, SECTIONS)
    assert list(gains["code"]) == ["rus", "eng", "fra"]  # dearest after all merges first: no rule has Cyrillic
    row = gains.set_index("code").loc["eng"]
    assert (row["tokens before merges"], row["after 3 merges"], row["saved %"]) == (8, 3, 62.5)
    assert row["last merge that helped"] == 3 and row["90% of its saving by merge"] == 3
    assert gains.set_index("code").loc["rus", "last merge that helped"] is pd.NA
    helped = helped_frame(curves, "eng", {0: "l + o", 1: "lo + w", 2: "e + r"}, SECTIONS)
    assert helped.to_dict("list") == {
        "merge": [1, 2, 3],
        "rule": ["l + o", "lo + w", "e + r"],
        "tokens saved": [2, 2, 1],
        "share of its saving %": [40.0, 40.0, 20.0],
        "saved most": ["this language", "this language", "French"],
    }
    assert reference_story(curves, SECTIONS) == (
        "English had made 90% of its whole saving by merge 3 of 3; the last merge that saved it a token is "
        "merge 3. From merge 3 on, English shrank by 0.0% more, the other languages by 0.0% on average."
    )
    shares = merge_share_frame(curves, SECTIONS, bins=3)
    assert shares.to_dict("list") == {
        "first merge": [1, 2, 3], "last merge": [1, 2, 3], "script": ["Latin"] * 3, "merges": [1, 1, 1],
    }  # fmt: skip
    frame = pd.DataFrame(
        {"first merge": [1, 1, 1, 3], "last merge": [2, 2, 2, 4], "script": ["Han", "Latin", "none", "Latin"],
         "merges": [1, 1, 0, 2]}
    )  # fmt: skip
    colors = {"Latin": "#111111", "Han": "#222222"}
    stacked = merge_share_figure(frame, colors=colors)
    assert [(t.name, t.marker.color) for t in stacked.data] == [
        ("Latin", "#111111"),
        ("Han", "#222222"),
        ("none", NO_SCRIPT_COLOR),
    ]  # most merges first (the bottom of each stack), in the colours given (the premium chart's)
    fig = curves_figure(curves, SECTIONS, ["fra", "fra", "eng"])
    assert [t.name for t in fig.data] == ["Russian [rus]", "French [fra]", "English [eng]"]  # once each, eng last
    assert [t.showlegend for t in fig.data] == [False, True, True]
    assert fig.layout.legend.orientation == "h" and fig.layout.legend.y < 0  # a row under the plot, not beside it


def test_story_without_merges_or_gain():
    none = premium_curves(Tokenizer.from_merges([], pretokenizer="whitespace"), SECTIONS)
    assert reference_story(none, SECTIONS).startswith("The table has no merges yet")
    other = premium_curves(Tokenizer.from_merges([("м", "и")], pretokenizer="whitespace"), SECTIONS)
    assert reference_story(other, SECTIONS) == (
        "No merge of this table saved English a single token: it was trained on other text."
    )


def test_excerpt_cuts_at_lines_or_spaces():
    assert excerpt("short") == "short"
    assert excerpt("one line\ntwo line\nthree", chars=12) == "one line\n"
    assert excerpt("a long line without breaks", chars=10) == "a long "
    assert excerpt("x" * 30, chars=10) == "x" * 10


# ----------------------------------------------------------------- the page


@cache
def udhr() -> dict[str, ParallelSection]:
    return parallel_sections(read_sample(UDHR_SAMPLE), collection="UDHR")


def languages(params: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=APP_TIMEOUT)
    at.switch_page(PAGE)
    at.query_params.update(params or {})
    at.run()
    assert not at.exception
    return at


def charts(at: AppTest) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def test_page_shows_every_tokenizer_and_the_curves():
    at = languages()
    assert not at.error
    assert [t.label for t in at.tabs] == ["GPT-2", "cl100k_base", "o200k_base", "Trained here", "All as a table"]
    figures = charts(at)
    assert len(figures) == 6  # four premium charts, the curves, the merges per script
    gpt2 = figures[0]["data"]
    assert sum(len(t["y"]) for t in gpt2) == 84 and gpt2[0]["name"] == "English (reference)"
    summary = at.caption[2].value.replace("\\", "")  # shown as plain text: markdown punctuation escaped
    assert summary.startswith("GPT-2: English takes 2,035 tokens. The dearest language is Burmese at 20.54×")
    assert "the median premium of the 83 other languages is 5.71×; 0 of them are within 1.5×" in summary
    table = at.dataframe[0].value
    assert len(table) == 84 and table.set_index("code").loc["hin", "o200k_base tokens"] == 3178
    assert at.selectbox(key=state.LANG_CODE).value == "hin"
    said = [m.value for m in at.markdown]
    assert "**GPT-2**: 298 tokens here; the whole declaration 16,896 tokens, 8.30× English" in said
    assert any(s.replace("\\", "").startswith("English had made 90% of its whole saving by merge") for s in said)
    assert at.subheader[-1].value == "The merges that saved Hindi the most"
    # the trained tab says what the default table (Shakespeare, char level) is and why its premiums behave so
    said_info = [seen(i.value) for i in at.info]
    assert said_info[0] == unseen_note(
        table, "Trained here", unseen_characters(at.session_state[state.RESULT_MEMO][1], udhr()),
        corpus="Shakespeare excerpt (12 KB)", alphabet=56, fallback="keep",
    )  # fmt: skip
    assert "For 54 of the 83 other languages, most tokens are such characters (hatched bars)" in said_info[0]
    assert "Chinese, Mandarin (Traditional) comes out at 0.49× English" in said_info[0]
    assert said_info[1].startswith("The Train page's table was trained on Shakespeare excerpt")
    trained_bars = charts(at)[3]["data"]
    hatched = {y for t in trained_bars for y, p in zip(t["y"], t["marker"]["pattern"]["shape"]) if p}
    assert len(hatched) == 54 and {"cmn_hans", "cmn_hant", "rus", "hin"} <= hatched and "eng" not in hatched
    assert not any(p for t in charts(at)[0]["data"] for p in t["marker"]["pattern"]["shape"])  # GPT-2: none
    assert at.button(key=state.LANG_TRAIN_TAB).label == at.button(key=state.LANG_TRAIN).label
    # a language picked from the list (or a link) shows its own text and outlines its bar
    at.selectbox(key=state.LANG_CODE).set_value("mya").run()
    assert at.subheader[0].value == "Burmese, tokenized"
    outlined = [y for t in charts(at)[2]["data"] for y, w in zip(t["y"], t["marker"]["line"]["width"]) if w]
    assert outlined == ["mya"]


def test_a_link_opens_a_language_and_the_train_button_trains_on_the_udhr():
    odd = languages({LANG_PARAM: "<b>xx</b>"})
    assert odd.warning[0].value.replace("\\", "") == (
        "This link names a language the UDHR sample does not hold (<b>xx</b>); showing Hindi."
    )
    at = languages({LANG_PARAM: "jpn", state.LANG_MEASURE: "tokens left"})
    assert at.subheader[0].value == "Japanese, tokenized"
    assert charts(at)[4]["layout"]["yaxis"]["title"]["text"].startswith("tokens left")
    at.button(key=state.LANG_TRAIN_TAB).click().run()  # the trained tab's button (the same as the one lower down)
    assert not at.exception and not at.error
    corpus, settings = at.session_state[state.APPLIED_CORPUS], at.session_state[state.APPLIED_SETTINGS]
    assert corpus.name == UDHR_SAMPLE and (settings.pretokenizer, settings.unit, settings.budget) == (
        "gpt2",
        "byte",
        2000,
    )
    assert not at.info  # trained on the mix, byte level: no call to train on it, nothing unseen to explain
    assert [b.key for b in at.button if b.key in (state.LANG_TRAIN, state.LANG_TRAIN_TAB)] == []  # nor to train again
    assert any("of the table's 2,000 merges" in c.value for c in at.caption)
    shares = charts(at)[5]["data"]
    assert {"Latin", "Devanagari", "Han"} <= {t["name"] for t in shares}


def test_hostile_link_values_end_in_messages_on_the_languages_page():
    from .test_app_hostile import HOSTILE_LINK, open_link, warnings

    hostile = HOSTILE_LINK | {
        LANG_PARAM: "<script>alert(1)</script>",
        state.LANG_MEASURE: "1e400",
        state.LANG_HIGHLIGHT: "<img src=x onerror=alert(2)>",
    }
    at = open_link(hostile, PAGE)
    assert not at.exception
    said = warnings(at)
    assert "set_budget must be a whole number from 0 to 200,000, got 'inf'" in said
    assert "This link names a language the UDHR sample does not hold (<script>alert(1)</script>)" in said
    assert at.radio(key=state.LANG_MEASURE).value == "premium"  # an unknown choice: the default
    assert at.multiselect(key=state.LANG_HIGHLIGHT).value == ["fra", "rus", "arb", "hin", "cmn_hans", "mya"]

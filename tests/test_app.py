"""AppTest: each page loads without an exception and shows the expected values."""

from __future__ import annotations

import html
import json
import re

import pytest
from streamlit.testing.v1 import AppTest

import bpe_core
from bpe_core.formats import export
from ui import state
from ui.corpus import read_sample
from ui.settings import TrainSettings
from viz.markdown import JOINER

from .conftest import APP_TIMEOUT, REPO

APP = str(REPO / "app.py")
TRAIN = state.TRAIN_PLAYER


def fresh() -> AppTest:
    return AppTest.from_file(APP, default_timeout=APP_TIMEOUT).run()


def opened_link(params: dict[str, str], page: str | None = None) -> AppTest:
    """A new session opened from a shared link: ``page`` (e.g. ``pages/encode.py``) with ``params``."""
    at = AppTest.from_file(APP, default_timeout=APP_TIMEOUT)
    if page is not None:
        at.switch_page(page)
    at.query_params.update(params)
    at.run()
    assert not at.exception
    return at


def submit(at: AppTest) -> AppTest:
    next(b for b in at.button if b.label == "Train").click()
    return at.run()


def seen(markdown: str) -> str:
    """The text markdown shows: backslash escapes (viz.markdown.plain) undone, word joiners invisible."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown).replace(JOINER, "")


def subheaders(at: AppTest) -> list[str]:
    return [seen(s.value) for s in at.subheader]


def captions(at: AppTest, sidebar: bool = False) -> list[str]:
    return [seen(c.value) for c in (at.sidebar.caption if sidebar else at.caption)]


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def token_texts(at: AppTest) -> list[list[str]]:
    """The text of every token box, one list per st.html row (whitespace as drawn: ·)."""
    rows = [re.findall(r'class="bpe-tok[^"]*"[^>]*>([^<]*)', h.proto.body) for h in at.get("html")]
    return [[html.unescape(t).replace("\xa0", "") for t in row] for row in rows]


def frame_with(at: AppTest, *columns: str):
    """The first dataframe on screen that has all these columns."""
    return next(df.value for df in at.dataframe if set(columns) <= set(df.value.columns))


def chart_traces(at: AppTest, index: int) -> list[dict]:
    """The plotly traces of chart ``index`` as drawn (names, x and y)."""
    return json.loads(at.get("plotly_chart")[index].proto.spec)["data"]


WORD_ENDS = {
    "separate": ["the", "cat", "at", "e", "the", "ca", "k", "e"],
    "attached": ["the", "cat", "at", "e", "the", "ca", "k", "e"],
    "trailing": ["the·", "cat·", "at", "e·", "the·", "ca", "k", "e"],
    "leading": ["the", "·cat", "·at", "e", "·the", "·ca", "k", "e"],
}
"""Lesson 6's sentence 'the cat ate the cake' under each pre-tokenizer (token box texts)."""
HOSTILE_NAME = "![t](http://example.invalid/x.png) **b** $x$"
DEFAULT_CORPUS = read_sample("Shakespeare excerpt (12 KB)")


def default_result() -> bpe_core.TrainResult:
    return bpe_core.train(DEFAULT_CORPUS, **TrainSettings().kwargs())


@pytest.fixture()
def at() -> AppTest:
    app = fresh()
    assert not app.exception
    return app


# ----------------------------------------------------------------- Train page


def unfold(at: AppTest, key: str) -> AppTest:
    """Unfold the lazy expander whose open state is session key ``key`` (built only while open), as the user
    does, and rerun."""
    at.session_state[key] = True
    return at.run()


def open_pair_table(at: AppTest) -> None:
    """Unfold the step's "Pair counts as a table" expander and rerun."""
    unfold(at, state.PAIR_TABLE_OPEN)


def test_default_load_trains_the_default_sample(at):
    assert subheaders(at)[0] == "Merge 1 of 200 (rank 0): “e” + “</w>” → “e</w>”"
    m = metrics(at)
    assert m["merges"] == "200" and m["alphabet"] == "57" and m["pair count"] == "350"
    assert captions(at, sidebar=True)[-1] == (
        "Applied with Train: **Shakespeare excerpt (12 KB)**, 11,916 characters "
        "(for the Train and Compare pages and Encode's “Trained here”)"
    )
    assert not any("tie key" in df.value.columns for df in at.dataframe)  # under a lazy expander, closed
    open_pair_table(at)
    assert at.dataframe[0].value.iloc[0]["count"] == 350
    assert not [m.value for m in at.markdown if "page icon" in m.value]  # no stray string drawn by magic
    pairs = default_result().num_pairs_at(0)
    assert pairs == 541 and f"Showing the top 10 of {pairs:,} distinct pairs ({pairs - 10:,} left out)." in captions(at)


def test_stepping(at):
    at.button(key=TRAIN.next).click().run()
    assert subheaders(at)[0].startswith("Merge 2 of 200 (rank 1): “t” + “h”")
    at.button(key=TRAIN.last).click().run()
    assert subheaders(at)[0].startswith("Merge 200 of 200")
    at.button(key=TRAIN.next).click().run()
    assert subheaders(at)[0].startswith("Merge 200 of 200")
    at.slider(key=TRAIN.step).set_value(50).run()
    assert subheaders(at)[0].startswith("Merge 50 of 200")
    at.button(key=TRAIN.prev).click().run()
    assert subheaders(at)[0].startswith("Merge 49 of 200")
    assert not at.exception


def test_play_starts_advances_and_pauses(at, monkeypatch):
    now = [100.0]
    monkeypatch.setattr("ui.player.clock", lambda: now[0])  # the player's clock, moved by hand: no sleeping
    at.button(key=TRAIN.play).click().run()  # Play at t = 100.0
    assert at.session_state[TRAIN.playing] is True
    assert any(b.key == TRAIN.pause for b in at.button)
    assert subheaders(at)[0].startswith("Merge 1 of 200")
    assert at.get("progress")[0].proto.text == "Merge 1 of 200"
    for shown in (2, 3):  # one frame per interval (0.5 s): rerunning after it advances one step
        now[0] += 0.5
        at.run()
        assert subheaders(at)[0].startswith(f"Merge {shown} of 200 ")
    assert subheaders(at)[0] == "Merge 3 of 200 (rank 2): “t” + “</w>” → “t</w>”"
    now[0] += 0.5  # a frame is due when Pause is clicked
    at.button(key=TRAIN.pause).click().run()
    assert at.session_state[TRAIN.playing] is False
    assert subheaders(at)[0].startswith("Merge 3 of 200")  # the click is not a frame, even when one is due
    now[0] += 0.5
    at.run()
    assert subheaders(at)[0].startswith("Merge 3 of 200")  # paused: stays put
    assert at.slider(key=TRAIN.step).value == 3


def test_changing_settings_retrains(at):
    at.slider(key=TRAIN.step).set_value(6).run()
    assert subheaders(at)[0].startswith("Merge 6 of 200")
    at.selectbox(key=state.SAMPLE).set_value("Textbook: low lower newest widest")
    at.selectbox(key=state.TIE_BREAK).set_value("alphabetical")
    at.number_input(key=state.BUDGET).set_value(10)
    submit(at)
    assert not at.exception
    assert metrics(at)["merges"] == "10"
    # A new training result starts at its first merge, not at the step the old one was on.
    assert subheaders(at)[0] == "Merge 1 of 10 (rank 0): “e” + “s” → “es”"
    assert at.slider(key=TRAIN.step).value == 1
    open_pair_table(at)
    status = at.dataframe[0].value["status"].tolist()
    assert status[0] == "won tie" and status[1] == "lost tie"
    assert any(c.startswith("Tie: alphabetical picked e + s ('e' 's' (smallest wins)) over ") for c in captions(at))


def test_train_link_opens_at_its_step():
    at = opened_link({TRAIN.step: "7"})
    assert subheaders(at)[0].startswith("Merge 7 of 200 (rank 6)")
    at.button(key=TRAIN.next).click().run()  # same training: the player goes on from there
    assert subheaders(at)[0].startswith("Merge 8 of 200")


def test_vocabulary_below_alphabet_is_an_error_not_a_traceback(at):
    at.radio(key=state.BUDGET_KIND).set_value("vocab_size")
    at.number_input(key=state.BUDGET).set_value(5)
    submit(at)
    assert not at.exception
    assert "below the minimum of 57" in seen(at.error[0].value)
    assert not at.get("progress")  # the "Counting pairs…" bar is gone, not left above the error


def test_empty_paste_is_refused(at):
    at.segmented_control(key=state.SOURCE).set_value("Paste").run()
    at.text_area(key=state.PASTE).set_value("   \n ")
    submit(at)
    assert "pasted text holds only whitespace" in seen(at.sidebar.error[0].value)
    assert subheaders(at)[0].startswith("Merge 1 of 200")


def test_paste_and_upload(at):
    at.segmented_control(key=state.SOURCE).set_value("Paste").run()
    at.text_area(key=state.PASTE).set_value("hug pug bug hug pug")
    submit(at)
    assert subheaders(at)[0] == "Merge 1 of 4 (rank 0): “u” + “g” → “ug”"

    at.segmented_control(key=state.SOURCE).set_value("Upload").run()
    at.file_uploader(key=state.UPLOAD).set_value(("crlf.txt", b"abc abc\r\nabd abd\r\n", "text/plain"))
    submit(at)
    assert any("crlf.txt" in c for c in captions(at, sidebar=True))
    assert subheaders(at)[0] == "Merge 1 of 5 (rank 0): “a” + “b” → “ab”"

    at.file_uploader(key=state.UPLOAD).set_value(("bin.txt", b"\x00\x01\x02binary", "text/plain"))
    submit(at)
    assert "binary" in seen(at.sidebar.error[0].value)
    at.file_uploader(key=state.UPLOAD).set_value(("latin1.txt", "café".encode("latin-1"), "text/plain"))
    submit(at)
    assert "not UTF-8" in seen(at.sidebar.error[0].value)


def test_byte_level_gpt2_training(at):
    at.selectbox(key=state.PRETOKENIZER).set_value("gpt2")
    at.radio(key=state.UNIT).set_value("byte")
    submit(at)
    assert not at.exception
    assert metrics(at)["alphabet"] == "256"
    assert subheaders(at)[0].startswith("Merge 1 of 200 (rank 0): “·” + “t”")


# ----------------------------------------------------------------- Encode page


def encode_page(at: AppTest) -> AppTest:
    at.switch_page("pages/encode.py").run()
    assert not at.exception
    return at


def test_encode_default_sentence(at):
    encode_page(at)
    m = metrics(at)
    assert m["characters"] == "73" and m["tokens"] == "44"
    assert at.success[0].value.startswith("Round trip holds")


def test_encode_text_and_orders(at):
    encode_page(at)
    at.text_area(key=state.ENCODE_TEXT).set_value("the lowest").run()
    tok = default_result().tokenizer
    rank_tokens = [t.removesuffix("</w>") for t in tok.tokenize("the lowest")]
    assert metrics(at)["characters"] == "10" and metrics(at)["tokens"] == str(len(rank_tokens))
    assert token_texts(at)[0] == rank_tokens
    at.radio(key=state.ENCODE_ORDER).set_value("sequential").run()
    assert not at.exception
    # a trained table builds every token after its parts, so the two orders agree here
    assert token_texts(at)[0] == rank_tokens and metrics(at)["tokens"] == str(len(rank_tokens))
    assert not any("merge orders cut" in i.value for i in at.info)
    labels = at.selectbox(key=state.ENCODE_PIECE).options
    assert labels == [
        f"#1 'the' → {len(tok.tokenize('the'))} token",  # numbered from 1 on screen (trial A item 16)
        f"#2 'lowest' → {len(tok.tokenize('lowest'))} tokens",
    ]
    steps = frame_with(at, "step", "rank", "after")
    assert steps["rank"].tolist() == sorted(steps["rank"])  # the rules fired lowest rank first


def upload_tokenizer(at: AppTest, files: dict[str, bytes]) -> AppTest:
    at.radio(key=state.ENCODE_TOKENIZER).set_value("Uploaded file").run()
    ((name, data),) = files.items()
    at.file_uploader(key=state.TOKENIZER_UPLOAD).set_value((name, data, "application/json")).run()
    assert not at.exception
    return at


def test_encode_orders_that_disagree(at):
    rules = [("b", "c"), ("a", "b"), ("ab", "c"), ("abc", "d"), ("a", "bc")]
    tok = bpe_core.Tokenizer.from_merges(rules, pretokenizer="whitespace")
    encode_page(at)
    upload_tokenizer(at, export(tok, "hf_json"))
    at.text_area(key=state.ENCODE_TEXT).set_value("abcd abcd").run()
    assert token_texts(at)[0] == ["abcd", "abcd"]
    assert at.info[0].value == "The two merge orders cut 1 word(s) differently:"
    assert frame_with(at, "rank order").values.tolist() == [["abcd", "abcd", "abc d"]]
    assert [m.value for m in at.markdown if m.value.endswith(" order**")] == ["**rank order**", "**sequential order**"]
    at.radio(key=state.ENCODE_ORDER).set_value("sequential").run()
    assert token_texts(at)[0] == ["abc", "d", "abc", "d"] and metrics(at)["tokens"] == "4"


def test_encode_fallback_choice_for_char_tokenizers(at):
    encode_page(at)
    assert at.radio(key=state.ENCODE_FALLBACK).value == "keep"
    at.text_area(key=state.ENCODE_TEXT).set_value("tea ☕").run()  # ☕ is not in the Shakespeare alphabet
    assert token_texts(at)[0][-2:] == ["☕", ""]  # kept as its own symbol, then the end-of-word marker
    at.selectbox(key=state.ENCODE_PIECE).set_value("#2 '☕' → 2 tokens").run()
    assert frame_with(at, "kind")[["char", "kind", "tokens"]].values.tolist() == [["☕", "kept", "☕"]]
    vocab = len(default_result().tokenizer.model.table)  # ☕ gets the first id past the vocabulary
    assert f"<small>{vocab}*</small>" in at.get("html")[0].proto.body
    assert seen(at.warning[0].value).startswith(f"1 character outside the alphabet got temporary id ({vocab},")
    at.radio(key=state.ENCODE_FALLBACK).set_value("unk").run()
    assert frame_with(at, "kind")[["char", "kind", "tokens"]].values.tolist() == [["☕", "unk", "<unk>"]]
    assert token_texts(at)[0][-2:] == ["<unk>", ""]
    assert "not in the alphabet" in seen(at.warning[0].value)
    at.radio(key=state.ENCODE_FALLBACK).set_value("bytes").run()
    assert token_texts(at)[0][-4:] == ["<0xE2>", "<0x98>", "<0x95>", ""]  # as the fallback table writes them
    assert at.success[0].value.startswith("Round trip holds")
    at.radio(key=state.ENCODE_TOKENIZER).set_value("GPT-2").run()
    assert not [r for r in at.radio if r.key == state.ENCODE_FALLBACK]  # byte level never falls back


def test_encode_is_cached_per_input(at, monkeypatch):
    calls = []
    real = bpe_core.Tokenizer.encode_with_trace

    def counting(self, text, **kw):
        calls.append(text)
        return real(self, text, **kw)

    monkeypatch.setattr(bpe_core.Tokenizer, "encode_with_trace", counting)
    encode_page(at)
    text = "a text only this test encodes: cached?"
    at.text_area(key=state.ENCODE_TEXT).set_value(text).run()
    assert calls.count(text) == 1
    at.toggle(key=state.SHOW_IDS).set_value(False).run()
    at.toggle(key=state.SHOW_WHITESPACE).set_value(False).run()
    at.selectbox(key=state.ENCODE_PIECE).set_value(at.selectbox(key=state.ENCODE_PIECE).options[2]).run()
    assert calls.count(text) == 1  # display toggles and another pre-token reuse the encoding
    assert "<small>" not in at.get("html")[0].proto.body  # ids hidden
    other = AppTest.from_file(APP, default_timeout=APP_TIMEOUT).run()
    encode_page(other)
    other.text_area(key=state.ENCODE_TEXT).set_value(text).run()
    assert calls.count(text) == 1  # another session: st.cache_data
    at.radio(key=state.ENCODE_ORDER).set_value("sequential").run()
    assert calls.count(text) == 2


def test_encode_link_opens_the_same_frame():
    at = opened_link(
        {
            state.ENCODE_TEXT: "the lowest",
            state.ENCODE_ORDER: "sequential",
            state.SHOW_IDS: "false",
            state.ENCODE_FALLBACK: "bytes",
            state.ENCODE_TOKENIZER: "Trained here",
        },
        "pages/encode.py",
    )
    assert at.text_area(key=state.ENCODE_TEXT).value == "the lowest"
    assert at.radio(key=state.ENCODE_ORDER).value == "sequential"
    assert at.toggle(key=state.SHOW_IDS).value is False
    assert at.radio(key=state.ENCODE_FALLBACK).value == "bytes"
    assert metrics(at)["characters"] == "10"
    assert "<small>" not in at.get("html")[0].proto.body  # no ids under the tokens


def test_encode_reports_whitespace_loss(at):
    encode_page(at)
    at.text_area(key=state.ENCODE_TEXT).set_value("two  spaces").run()
    assert "drops whitespace" in at.warning[0].value


def test_encode_hostile_text_is_plain_text(at):
    encode_page(at)
    at.text_area(key=state.ENCODE_TEXT).set_value("<script>alert(1)</script>").run()
    assert not at.exception
    html = "".join(h.proto.body for h in at.get("html"))
    assert "<script" not in html and "&lt;" in html


# ----------------------------------------------------------------- Compare page


def compare_page(at: AppTest) -> AppTest:
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    return at


def test_compare_two_runs(at):
    compare_page(at)
    assert at.info[0].value == "The tables first diverge at merge 1 (rank 0)."
    titles = [m.value for m in at.markdown if m.value.startswith("**A:") or m.value.startswith("**B:")]
    assert titles[0].startswith("**A: whitespace_eow/char/separate**:") and titles[1].startswith("**B: gpt2/byte**:")
    assert len(at.get("plotly_chart")) == 2
    assert "run" in at.dataframe[0].value.columns  # the test-text table comes first (tests/test_compare_page.py)
    overlap = frame_with(at, "jaccard")  # in the third tab, after the test-text table and the timeline
    assert list(overlap.columns) == ["a", "b", "shared", "jaccard"] and 0 < overlap["jaccard"][0] < 1
    only = [seen(m.value) for m in at.markdown if m.value.startswith("**Only ")]
    assert len(only) == 2 and all(re.search(r"\*\*: [\d,]+ merged tokens? no other run learned", o) for o in only)
    assert any(c.startswith("shared and jaccard count whole vocabularies") for c in captions(at))


def test_compare_identical_runs_agree(at):
    compare_page(at)
    at.selectbox(key=state.cmp_key(1, "pretokenizer")).set_value("whitespace_eow")
    at.selectbox(key=state.cmp_key(1, "unit")).set_value("char").run()
    assert at.success[0].value == "The merge tables are identical, rank for rank."


def test_compare_four_runs_and_tie_switch(at):
    compare_page(at)
    at.segmented_control(key=state.CMP_COUNT).set_value(4).run()
    assert sum(m.value.startswith("**Run ") for m in at.markdown) == 4
    at.radio(key=state.CMP_SWITCH_CORPUS).set_value("aaabdaaabac (byte, none)")
    at.selectbox(key=state.CMP_SWITCH_RULE).set_value("alphabetical").run()
    assert not at.exception
    assert at.info[-1].value == "The tables split at merge 2 (rank 1); 2 of 3 ranks differ, all listed below."
    differing = frame_with(at, "first_seen", "alphabetical")
    assert differing.values.tolist() == [[1, "aa + a", "a + b"], [2, "aaa + b", "aa + ab"]]
    full = next(df.value for df in at.dataframe if "same" in df.value.columns)
    assert full.values.tolist() == [
        [0, "a + a", "a + a", True],
        [1, "aa + a", "a + b", False],
        [2, "aaa + b", "aa + ab", False],
    ]


def test_compare_sidebar_corpus_tie_switch_lists_every_difference(at):
    compare_page(at)
    at.selectbox(key=state.CMP_SWITCH_RULE).set_value("subword_nmt").run()
    corpus_settings = TrainSettings().with_(budget=200)
    a = bpe_core.train(DEFAULT_CORPUS, **corpus_settings.kwargs())
    b = bpe_core.train(DEFAULT_CORPUS, **corpus_settings.with_(tie_break="subword_nmt").kwargs())
    differ = sum(x != y for x, y in zip(a.merges, b.merges))
    info = at.info[-1].value
    assert info.endswith(f"{differ:,} of 200 ranks differ, all listed below.")
    assert len(frame_with(at, "first_seen", "subword_nmt")) == differ


def test_compare_link_opens_the_same_frame():
    at = opened_link(
        {
            state.CMP_METRIC: "tokens per character",
            state.CMP_HELD_OUT: "UDHR in 84 languages + emoji (1.7 MB)",
            state.CMP_SWITCH_CORPUS: "aaabdaaabac (byte, none)",
            state.CMP_SWITCH_RULE: "hf_tokenizers",
        },
        "pages/compare.py",
    )
    assert at.segmented_control(key=state.CMP_METRIC).value == "tokens per character"
    assert at.selectbox(key=state.CMP_HELD_OUT).value == "UDHR in 84 languages + emoji (1.7 MB)"
    assert at.selectbox(key=state.CMP_SWITCH_RULE).value == "hf_tokenizers"
    assert at.info[-1].value.startswith("The tables split at merge 2 (rank 1)")
    # neither the training text nor the book it is cut from counts as held out
    assert at.selectbox(key=state.CMP_HELD_OUT).options == [
        "Wikipedia: Taylor Swift (186 KB)",
        "UDHR in 84 languages + emoji (1.7 MB)",
    ]
    spec = json.loads(at.get("plotly_chart")[1].proto.spec)
    assert spec["layout"]["yaxis"]["title"]["text"] == "tokens per character"
    assert spec["layout"]["title"]["text"] == "Held out: UDHR in 84 languages + emoji (1.7 MB)"


# ----------------------------------------------------------------- Lessons page


def lesson(at: AppTest, title: str) -> AppTest:
    at.switch_page("pages/lessons.py").run()
    at.pills(key=state.LESSON).set_value(title).run()
    assert not at.exception
    assert at.header[0].value == title
    return at


def test_clicking_the_open_lesson_keeps_it_open(at):
    lesson(at, "3. Blocked merge")
    at.pills(key=state.LESSON).set_value(None).run()  # what a click on the selected pill sends
    assert not at.exception
    assert at.header[0].value == "3. Blocked merge" and at.pills(key=state.LESSON).value == "3. Blocked merge"


@pytest.mark.parametrize(
    ("asked", "header", "notice"),
    [
        ("2. Ties", "2. Ties", None),
        ("2", "2. Ties", None),
        ("99", "1. Merges form", "`99`"),
        ("<b>x", "1. Merges form", "`<b>x`"),
    ],
)
def test_a_lesson_link_opens_its_lesson_or_says_it_names_none(asked, header, notice):
    at = opened_link({state.LESSON: asked}, "pages/lessons.py")
    assert at.header[0].value == header and at.pills(key=state.LESSON).value == header
    if notice is None:  # the link then names the lesson's title, so a link copied after a step keeps the lesson
        at.button(key=state.lesson_player(2).next).click().run()
        assert at.query_params[state.LESSON] == header and at.header[0].value == header
    said = [i.value for i in at.info if "This link asks for lesson" in i.value]
    assert said == (
        [] if notice is None else [f"This link asks for lesson {notice}, which is not one of the 9 lessons below."]
    )


def test_lesson_merges_form(at):
    lesson(at, "1. Merges form")
    assert subheaders(at)[0] == "Merge 1 of 10 (rank 0): “e” + “s” → “es”"
    at.button(key=state.lesson_player(1).next).click().run()
    assert subheaders(at)[0] == "Merge 2 of 10 (rank 1): “es” + “t” → “est”"


def test_lesson_ties(at):
    lesson(at, "2. Ties")
    assert at.info[0].value.startswith("The rules part ways at merge 2 (rank 1)")
    picks = [m.value for m in at.markdown if m.value.startswith("**") and " picks " in m.value]
    assert picks == [
        "**first_seen** picks `aa` + `a`",
        "**alphabetical** picks `a` + `b`",
        "**subword_nmt** picks `aa` + `a`",
        "**hf_tokenizers** picks `a` + `b`",
    ]


def test_lesson_blocked_merge(at):
    lesson(at, "3. Blocked merge")
    blocked = next(df.value for df in at.dataframe if "between" in df.value.columns)
    assert blocked[["rank", "left", "right", "between"]].values.tolist() == [[1, "ug", "</w>", "s"]]


def test_lesson_byte_fallback(at):
    lesson(at, "4. Byte fallback")
    titles = [m.value for m in at.markdown if m.value.startswith("**")]
    # the byte-level column is a small model trained on the lesson's text, named as such (not "GPT-2")
    assert [t.split("**")[1] for t in titles] == [
        "byte-level BPE (15 merges on this text)",  # 40 asked for; min_frequency 2 stops it at 15
        "char + <unk>",
        "char + <0xNN> bytes",
    ]
    (table,) = (df.value for df in at.dataframe)  # one table across the page, a row per fallback
    byte, unk, nn = (table[table["tokenizer"] == name] for name in table["tokenizer"].unique())
    assert byte[["char", "kind", "tokens"]].values.tolist() == [
        ["ï", "raw_bytes", "⟨C3⟩ ⟨AF⟩"],
        ["🙂", "raw_bytes", "⟨F0⟩ ⟨9F⟩ ⟨99⟩ ⟨82⟩"],
    ]
    # char level: exactly the two characters the training text lacks fall back
    assert unk[["char", "kind", "tokens"]].values.tolist() == [["ï", "unk", "<unk>"], ["🙂", "unk", "<unk>"]]
    assert nn[["char", "kind", "tokens"]].values.tolist() == [
        ["ï", "bytes", "<0xC3> <0xAF>"],
        ["🙂", "bytes", "<0xF0> <0x9F> <0x99> <0x82>"],
    ]
    rows = token_texts(at)
    assert rows[1].count("<unk>") == 2 and "<0xC3>" in rows[2] and "<0x82>" in rows[2]
    assert len(at.success) == 2 and "encoded as <unk>" in seen(at.warning[0].value)


def test_lessons_with_nothing_to_merge(at):
    for title, key in (("1. Merges form", "corpus"), ("2. Ties", "corpus"), ("5. Overlaps", "corpus")):
        lesson(at, title)
        number = int(title[0])
        at.text_input(key=state.lesson_key(number, key)).set_value("a").run() if number != 1 else at.text_area(
            key=state.lesson_key(number, key)
        ).set_value("a").run()
        assert not at.exception
        assert at.warning[0].value.startswith("Nothing to show:")
        assert not at.error


def test_lesson_overlaps(at):
    lesson(at, "5. Overlaps")
    first = at.dataframe[0].value.iloc[0]
    assert (first["pair"], first["count"], first["replaced"]) == ("a + a", 4, 2)


def test_lesson_word_ends(at):
    lesson(at, "6. Where words end")
    titles = [m.value for m in at.markdown if m.value.startswith("**")]
    assert titles == ["**</w> separate**", "**</w> attached**", "**trailing space**", "**GPT-2 leading space**"]
    separate, attached, trailing, leading = token_texts(at)
    assert separate == WORD_ENDS["separate"] and attached == WORD_ENDS["attached"]
    assert trailing == WORD_ENDS["trailing"] and leading == WORD_ENDS["leading"]
    ends = [h.proto.body.count('class="bpe-eow"') for h in at.get("html")]
    assert ends == [5, 5, 0, 0]  # one </w> per word, drawn after the word's last token
    rules = [df.value for df in at.dataframe]
    assert [r["token"].iloc[0] for r in rules] == ["e</w>", "th", "e·", "at"]
    assert "</w>" in rules[0]["right"].tolist() and "·" not in "".join(rules[3]["right"].str[-1:])


def test_lesson_merge_order(at):
    lesson(at, "7. Merge order matters")
    lines = [m.value for m in at.markdown if " order → " in m.value]
    assert lines[:2] == ["rank order → `abcd`", "sequential order → `abc` `d`"]
    at.text_area(key=state.lesson_key(7, "rules")).set_value("a b\nab c d").run()
    assert "line 2" in seen(at.error[0].value)


def test_lesson_vocab_tradeoff(at):
    lesson(at, "8. Vocabulary size trade-off")
    at.number_input(key=state.lesson_key(8, "merges")).set_value(50).run()
    assert not at.exception
    text = read_sample("Wikipedia: Taylor Swift (186 KB)")
    held = read_sample("Tiny Shakespeare (1.1 MB)")[:20_000]
    result = bpe_core.train(text, num_merges=50, pretokenizer="gpt2", unit="byte")
    from bpe_core.analysis.compression import token_counts_by_merges

    held_counts = token_counts_by_merges(result.tokenizer, held)
    per_char, chars_per = chart_traces(at, 0), chart_traces(at, 1)
    assert [t["name"] for t in per_char] == [
        "training corpus: Wikipedia: Taylor Swift (186 KB)",
        "held out: Tiny Shakespeare (1.1 MB)",
    ]
    assert per_char[0]["x"][0] == 256 and per_char[0]["x"][-1] == 306  # vocabulary size: 256 bytes + merges
    assert per_char[0]["y"][0] == pytest.approx(result.initial_tokens / result.text_chars)
    assert per_char[0]["y"][-1] == pytest.approx(result.tokens_at(50) / result.text_chars)
    assert per_char[1]["y"] == pytest.approx([c / len(held) for c in held_counts])
    assert per_char[0]["y"][-1] < per_char[0]["y"][0]  # more merges, fewer tokens per character
    assert chars_per[1]["y"] == pytest.approx([len(held) / c for c in held_counts])
    assert at.caption[0].value == (
        f"With a vocabulary of 306: training corpus: Wikipedia: Taylor Swift (186 KB), "
        f"{result.tokens_at(50) / result.text_chars:.3f} tokens per character; held out: Tiny Shakespeare (1.1 MB), "
        f"{held_counts[-1] / len(held):.3f} tokens per character."
    )
    at.selectbox(key=state.lesson_key(8, "corpus")).set_value("Shakespeare excerpt (12 KB)").run()
    assert at.warning[0].value.startswith("Held-out text should be text the tokenizer never saw")


def test_lesson_link_restores_the_merge_count():
    at = opened_link(
        {state.LESSON: "8. Vocabulary size trade-off", state.lesson_key(8, "merges"): "100"}, "pages/lessons.py"
    )
    assert at.number_input(key=state.lesson_key(8, "merges")).value == 100
    assert chart_traces(at, 0)[0]["x"][-1] == 356


# ----------------------------------------------------------------- real tokenizers and files on the Encode page


def test_encode_with_gpt2(at):
    encode_page(at)
    at.radio(key=state.ENCODE_TOKENIZER).set_value("GPT-2").run()
    at.text_area(key=state.ENCODE_TEXT).set_value("hello").run()
    assert at.code[1].value == "31373"
    at.text_area(key=state.ENCODE_TEXT).set_value("a a").run()
    assert at.code[1].value == "64, 257"
    assert not at.exception


def test_encode_with_cl100k(at):
    encode_page(at)
    at.radio(key=state.ENCODE_TOKENIZER).set_value("cl100k_base").run()
    at.text_area(key=state.ENCODE_TEXT).set_value("hello world").run()
    assert at.code[1].value == "15339, 1917"


def test_downloads_and_upload_round_trip(at):
    encode_page(at)
    buttons = {b.label: b for b in at.get("download_button")}
    assert {"gpt2", "subword_nmt", "session"} <= set(buttons)
    proofs = [c for c in captions(at) if "✔ identical" in c]
    assert len(proofs) == 3
    from bpe_core.formats import export
    from ui.cache import sample_text
    from ui.settings import TrainSettings

    corpus = sample_text("Shakespeare excerpt (12 KB)")
    import bpe_core

    result = bpe_core.train(corpus, **TrainSettings().kwargs())
    files = export(result, "session", corpus=corpus, corpus_name="Shakespeare excerpt (12 KB)")
    ((name, data),) = files.items()
    at.radio(key=state.ENCODE_TOKENIZER).set_value("Uploaded file").run()
    at.file_uploader(key=state.TOKENIZER_UPLOAD).set_value((name, data, "application/json")).run()
    assert not at.exception
    assert metrics(at)["tokens"] == "44"  # the same tokenizer as "Trained here"
    assert any("is the one this session was trained on" in s.value for s in at.success)


def test_upload_malformed_tokenizer_file(at):
    encode_page(at)
    at.radio(key=state.ENCODE_TOKENIZER).set_value("Uploaded file").run()
    at.file_uploader(key=state.TOKENIZER_UPLOAD).set_value(("tokenizer.json", b'{"model": {"type": "BPE"', "text/json"))
    at.run()
    assert not at.exception
    assert seen(at.error[0].value).startswith("Cannot use this tokenizer:")


def test_names_from_an_uploaded_session_are_plain_text(at):
    """A session's name, its corpus name and the file name reach captions as text, never as markdown."""
    result = default_result()
    files = export(result, "session", name=HOSTILE_NAME, corpus=DEFAULT_CORPUS, corpus_name=HOSTILE_NAME)
    ((_name, data),) = files.items()
    encode_page(at)
    upload_tokenizer(at, {"![f](http:x.invalid) `x`.json": data})
    raw = [c.value for c in at.caption]
    session = next(c for c in raw if c.startswith("Session "))
    loaded = next(c for c in raw if c.startswith("Loaded "))
    rest = session.replace(f"`{HOSTILE_NAME}`", "")  # the session name, literal in a code span
    assert "![" not in rest and "](" not in rest and "**b**" not in rest and "$x$" not in rest
    assert seen(session).startswith(
        f"Session `{HOSTILE_NAME}`: whitespace_eow, char, first_seen, trained on {HOSTILE_NAME} (SHA-256 "
    )
    assert loaded.startswith("Loaded ``![f](http:x.invalid) `x`.json`` as session")  # the backtick cannot close it
    assert metrics(at)["tokens"] == "44"


def test_sidebar_help_names_each_option_and_its_source(at):
    pretokenizer = at.selectbox(key=state.PRETOKENIZER).help
    lines = [line for line in pretokenizer.splitlines() if line.startswith("- **")]
    assert [line.split("**")[1] for line in lines] == list(bpe_core.PRETOKENIZERS)
    for source in ("Sennrich et al. 2016", "GPT-2", "cl100k_base", "Gage 1994"):
        assert source in pretokenizer
    tie = at.selectbox(key=state.TIE_BREAK).help
    assert [line.split("**")[1] for line in tie.splitlines() if line.startswith("- **")] == list(bpe_core.TIE_BREAKS)
    assert "minbpe" in tie and "subword-nmt" in tie and "BpeTrainer" in tie
    assert "Sennrich et al. 2016" in at.number_input(key=state.BUDGET).help


def test_pause_ignores_the_hidden_sliders_old_step(at):
    """While playing, a progress bar stands in for the slider; the browser can still hold the slider's old
    value and send it with the Pause click. That value must not pull the player back."""
    at.button(key=TRAIN.next).click().run()
    slider = at.slider(key=TRAIN.step)  # the slider as the browser last drew it
    at.button(key=TRAIN.play).click().run()
    for shown in (3, 4):
        at.session_state[TRAIN.tick] = 0.0  # a frame is due: the next run advances one step
        at.run()
        assert subheaders(at)[0].startswith(f"Merge {shown} of 200 ")
    at.button(key=TRAIN.pause).click()
    states = at._tree.get_widget_states()
    slider.set_value(1)  # an older step than the server last gave it
    states.widgets.append(slider._widget_state)  # sent along with the click, as the browser does
    at._run(states)
    assert not at.exception and at.session_state[TRAIN.playing] is False
    assert subheaders(at)[0].startswith("Merge 4 of 200 ")
    assert at.slider(key=TRAIN.step).value == 4
    at.slider(key=TRAIN.step).set_value(9).run()  # the drawn slider still moves the player
    assert subheaders(at)[0].startswith("Merge 9 of 200 ")

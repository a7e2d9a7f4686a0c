"""AppTest: each page loads without an exception and shows the expected values."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from ui import state

from .conftest import REPO

APP = str(REPO / "app.py")
TRAIN = state.TRAIN_PLAYER


def fresh() -> AppTest:
    return AppTest.from_file(APP, default_timeout=120).run()


def submit(at: AppTest) -> AppTest:
    next(b for b in at.button if b.label == "Train").click()
    return at.run()


def seen(markdown: str) -> str:
    """The text markdown shows: backslash escapes (viz.markdown.plain) undone."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown)


def subheaders(at: AppTest) -> list[str]:
    return [seen(s.value) for s in at.subheader]


def captions(at: AppTest, sidebar: bool = False) -> list[str]:
    return [seen(c.value) for c in (at.sidebar.caption if sidebar else at.caption)]


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


@pytest.fixture()
def at() -> AppTest:
    app = fresh()
    assert not app.exception
    return app


# ----------------------------------------------------------------- Train page


def test_default_load_trains_the_default_sample(at):
    assert subheaders(at)[0] == "Merge 1 of 200: “e” + “</w>” → “e</w>”"
    m = metrics(at)
    assert m["merges"] == "200" and m["alphabet"] == "57" and m["pair count"] == "350"
    assert "Training on **Shakespeare excerpt (12 KB)**: 11,916 characters" in captions(at, sidebar=True)
    assert at.dataframe[0].value.iloc[0]["count"] == 350


def test_stepping(at):
    at.button(key=TRAIN.next).click().run()
    assert subheaders(at)[0].startswith("Merge 2 of 200: “t” + “h”")
    at.button(key=TRAIN.last).click().run()
    assert subheaders(at)[0].startswith("Merge 200 of 200")
    at.button(key=TRAIN.next).click().run()
    assert subheaders(at)[0].startswith("Merge 200 of 200")
    at.slider(key=TRAIN.step).set_value(50).run()
    assert subheaders(at)[0].startswith("Merge 50 of 200")
    at.button(key=TRAIN.prev).click().run()
    assert subheaders(at)[0].startswith("Merge 49 of 200")
    assert not at.exception


def test_play_starts_and_pauses(at):
    at.button(key=TRAIN.play).click().run()
    assert at.session_state[TRAIN.playing] is True
    assert any(b.key == TRAIN.pause for b in at.button)
    at.button(key=TRAIN.pause).click().run()
    assert at.session_state[TRAIN.playing] is False


def test_changing_settings_retrains(at):
    at.selectbox(key=state.SAMPLE).set_value("Textbook: low lower newest widest")
    at.selectbox(key=state.TIE_BREAK).set_value("alphabetical")
    at.number_input(key=state.BUDGET).set_value(10)
    submit(at)
    assert not at.exception
    assert metrics(at)["merges"] == "10"
    at.slider(key=TRAIN.step).set_value(1).run()
    assert subheaders(at)[0] == "Merge 1 of 10: “e” + “s” → “es”"
    status = at.dataframe[0].value["status"].tolist()
    assert status[0] == "won the tie" and status[1] == "tied, lost"


def test_vocabulary_below_alphabet_is_an_error_not_a_traceback(at):
    at.radio(key=state.BUDGET_KIND).set_value("vocab_size")
    at.number_input(key=state.BUDGET).set_value(5)
    submit(at)
    assert not at.exception
    assert "below the minimum of 57" in seen(at.error[0].value)


def test_empty_paste_is_refused(at):
    at.segmented_control(key=state.SOURCE).set_value("Paste").run()
    at.text_area(key=state.PASTE).set_value("   \n ")
    submit(at)
    assert "pasted text is empty" in seen(at.sidebar.error[0].value)
    assert subheaders(at)[0].startswith("Merge 1 of 200")


def test_paste_and_upload(at):
    at.segmented_control(key=state.SOURCE).set_value("Paste").run()
    at.text_area(key=state.PASTE).set_value("hug pug bug hug pug")
    submit(at)
    assert subheaders(at)[0] == "Merge 1 of 4: “u” + “g” → “ug”"

    at.segmented_control(key=state.SOURCE).set_value("Upload").run()
    at.file_uploader(key=state.UPLOAD).set_value(("crlf.txt", b"abc abc\r\nabd abd\r\n", "text/plain"))
    submit(at)
    assert any("crlf.txt" in c for c in captions(at, sidebar=True))
    assert subheaders(at)[0] == "Merge 1 of 5: “a” + “b” → “ab”"

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
    assert subheaders(at)[0].startswith("Merge 1 of 200: “·” + “t”")


# ----------------------------------------------------------------- Encode page


def encode_page(at: AppTest) -> AppTest:
    at.switch_page("app_pages/encode.py").run()
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
    assert metrics(at)["characters"] == "10"
    at.radio(key=state.ENCODE_ORDER).set_value("sequential").run()
    assert not at.exception
    labels = at.selectbox(key=state.ENCODE_PIECE).options
    assert labels[0].startswith("#0 'the' →")


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
    at.switch_page("app_pages/compare.py").run()
    assert not at.exception
    return at


def test_compare_two_runs(at):
    compare_page(at)
    assert at.info[0].value == "The tables first diverge at merge 1 (rank 0)."
    titles = [m.value for m in at.markdown if m.value.startswith("**A:") or m.value.startswith("**B:")]
    assert titles[0].startswith("**A: whitespace_eow/char/separate**:") and titles[1].startswith("**B: gpt2/byte**:")
    assert len(at.get("plotly_chart")) == 2
    overlap = at.dataframe[1].value
    assert list(overlap.columns) == ["a", "b", "shared", "jaccard"] and 0 < overlap["jaccard"][0] < 1


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
    assert at.info[-1].value.startswith("The tables split at merge 2 (rank 1)")


# ----------------------------------------------------------------- Lessons page


def lesson(at: AppTest, title: str) -> AppTest:
    at.switch_page("app_pages/lessons.py").run()
    at.pills(key=state.LESSON).set_value(title).run()
    assert not at.exception
    assert at.header[0].value == title
    return at


def test_lesson_merges_form(at):
    lesson(at, "1. Merges form")
    assert at.subheader[0].value == "Merge 1 of 10: “e” + “s” → “es”"
    at.button(key=state.lesson_player(1).next).click().run()
    assert at.subheader[0].value == "Merge 2 of 10: “es” + “t” → “est”"


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
    assert [t.split("**")[1] for t in titles] == ["byte-level (GPT-2)", "char + <unk>", "char + <0xNN> bytes"]
    kinds = [set(df.value["kind"]) for df in at.dataframe]
    assert kinds[0] == {"raw_bytes"} and "unk" in kinds[1] and "bytes" in kinds[2]
    assert len(at.success) == 2 and "<unk>" in seen(at.warning[0].value)


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


def test_lesson_merge_order(at):
    lesson(at, "7. Merge order matters")
    lines = [m.value for m in at.markdown if " order → " in m.value]
    assert lines[:2] == ["rank order → `abcd`", "sequential order → `abc` `d`"]
    at.text_area(key=state.lesson_key(7, "rules")).set_value("a b\nab c d").run()
    assert "line 2" in seen(at.error[0].value)


def test_lesson_vocab_tradeoff(at):
    lesson(at, "8. Vocabulary size trade-off")
    assert len(at.get("plotly_chart")) == 2


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
    proofs = [c.value for c in at.caption if "✔ identical" in c.value]
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

"""AppTest: GPT-4o's table on the Encode page, and corpora given as word counts or large uploads in the sidebar."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from ui import state

from .conftest import APP_TIMEOUT, REPO

APP = str(REPO / "app.py")


def page(name: str) -> str:
    """The page script's path (``pages/`` once the classic layout has landed, ``app_pages/`` before)."""
    folder = "pages" if (REPO / "pages" / f"{name}.py").exists() else "app_pages"
    return f"{folder}/{name}.py"


@pytest.fixture
def at() -> AppTest:
    return AppTest.from_file(APP, default_timeout=APP_TIMEOUT).run()


def submit(at: AppTest) -> AppTest:
    next(b for b in at.button if b.label == "Train").click()
    return at.run()


def seen(markdown: str) -> str:
    """The text markdown shows (backslash escapes undone)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown)


def test_encode_with_o200k(at):
    at.switch_page(page("encode")).run()
    assert not at.exception
    at.radio(key=state.ENCODE_TOKENIZER).set_value("o200k_base").run()
    assert not at.exception
    assert any("GPT-4o" in c.value for c in at.caption)
    at.text_area(key=state.ENCODE_TEXT).set_value("HTTPServer isn't <|endofprompt|>").run()
    assert at.code[1].value == "17893, 6444, 12471, 464, 91, 419, 1440, 82467, 91, 29"
    at.toggle(key=state.ALLOW_SPECIAL).set_value(True).run()
    assert at.code[1].value == "17893, 6444, 12471, 220, 200018"
    assert not at.exception


def subheaders(at: AppTest) -> list[str]:
    return [seen(s.value) for s in at.subheader]


def sidebar_captions(at: AppTest) -> list[str]:
    return [seen(c.value) for c in at.sidebar.caption]


TEXTBOOK_COUNTS = b"word\tcount\nlow\t5\nlower\t2\nnewest\t6\nwidest\t3\n"


def test_word_counts_upload_trains_and_every_page_uses_it(at):
    at.segmented_control(key=state.SOURCE).set_value("Word counts").run()
    at.file_uploader(key=state.COUNTS_UPLOAD).set_value(("counts.tsv", TEXTBOOK_COUNTS, "text/tab-separated-values"))
    submit(at)
    assert not at.exception
    assert any("counts.tsv" in c and "16 words (4 distinct)" in c for c in sidebar_captions(at))
    assert subheaders(at)[0] == "Merge 1 of 15 (rank 0): “e” + “s” → “es”"  # then no pair occurs twice
    at.switch_page(page("compare")).run()
    assert not at.exception
    assert any("16 words (4 distinct)" in seen(m.value) for m in at.caption)
    at.switch_page(page("encode")).run()
    assert not at.exception
    at.text_area(key=state.ENCODE_TEXT).set_value("lowest").run()
    assert not at.exception and at.success[0].value.startswith("Round trip holds")


def test_word_counts_errors_name_the_line(at):
    at.segmented_control(key=state.SOURCE).set_value("Word counts").run()
    at.file_uploader(key=state.COUNTS_UPLOAD).set_value(("dup.txt", b"low 5\nlower 2\nlow 3\n", "text/plain"))
    submit(at)
    assert not at.exception
    assert seen(at.sidebar.error[0].value).startswith("dup.txt: line 3: the word 'low' was already counted on line 1")
    at.file_uploader(key=state.COUNTS_UPLOAD).set_value(("neg.txt", b"      5 low\n     -2 lower\n", "text/plain"))
    submit(at)
    assert "neg.txt: line 2: the count -2 is not positive" in seen(at.sidebar.error[0].value)
    assert subheaders(at)[0].startswith("Merge 1 of 200")  # the default training stays applied


def test_text_upload_is_streamed_and_counted_when_trained(at):
    text = "low lower newest widest\n" * 60_000 + "hug pug\r\n"  # 1.4 MB: streamed in two 1 MiB chunks
    at.segmented_control(key=state.SOURCE).set_value("Upload").run()
    at.file_uploader(key=state.UPLOAD).set_value(("big.txt", b"\xef\xbb\xbf" + text.encode(), "text/plain"))
    submit(at)
    assert not at.exception
    assert any("big.txt" in c and f"{len(text):,} characters" in c for c in sidebar_captions(at))
    assert subheaders(at)[0] == "Merge 1 of 17 (rank 0): “l” + “o” → “lo”"  # then every word is one token
    late = b"a b\n" * 20_000 + b"caf\xe9\n"  # not UTF-8 after the first 64 KB: found while streaming
    at.file_uploader(key=state.UPLOAD).set_value(("late.txt", late, "text/plain"))
    submit(at)
    assert not at.exception
    shown = [seen(e.value) for e in (*at.sidebar.error, *at.error)]
    assert any("late.txt is not UTF-8 text: byte 0xE9 at offset 80003 (line 20001)" in e for e in shown), shown


def test_compare_cuts_the_test_text_with_the_real_tokenizers(at):
    at.switch_page(page("compare")).run()
    assert not at.exception
    shown = [seen(m.value) for m in at.markdown]  # the real tokenizers are runs by default
    for label, count in [("GPT-2", 10), ("cl100k_base", 10), ("o200k_base", 9)]:
        assert any(s.startswith(f"**{label}**: {count} tokens") for s in shown), shown

"""AppTest: GPT-4o's table on the Encode page, and corpora given as word counts or large uploads in the sidebar."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from ui import state

from .conftest import REPO

APP = str(REPO / "app.py")


def page(name: str) -> str:
    """The page script's path (``pages/`` once the classic layout has landed, ``app_pages/`` before)."""
    folder = "pages" if (REPO / "pages" / f"{name}.py").exists() else "app_pages"
    return f"{folder}/{name}.py"


@pytest.fixture
def at() -> AppTest:
    return AppTest.from_file(APP, default_timeout=180).run()


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

"""AppTest: presentation mode (toggle and link), the players' keyboard keys, and ``?text=`` links."""

from __future__ import annotations

import pytest
from streamlit.proto.LabelVisibility_pb2 import LabelVisibility
from streamlit.testing.v1 import AppTest

from ui import presentation, sidebar, state
from ui.lessons import LESSONS
from ui.links import TEXT_IN_LINK, unpack_text
from ui.player import SHORTCUTS

from .conftest import APP_TIMEOUT, REPO

APP = str(REPO / "app.py")
TRAIN = state.TRAIN_PLAYER
SUMMARY_LINE = (
    "characters **11,916** · distinct words **998** · alphabet **57** · merges **200** · "
    "tokens before **11,833** · tokens after **5,498** · chars per token **2.17**"
)
"""The Train page's corpus summary for the default sample, as one line in presentation mode."""


def opened(params: dict[str, str] | None = None, page: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=APP_TIMEOUT)
    if page is not None:
        at.switch_page(page)
    at.query_params.update(params or {})
    at.run()
    assert not at.exception
    return at


def label_collapsed(widget) -> bool:
    return widget.proto.label_visibility.value == LabelVisibility.LabelVisibilityOptions.COLLAPSED


def page_css(at: AppTest) -> str:
    """The layout's <style> element (the one holding the header rule)."""
    return next(m.value for m in at.markdown if "stHeader" in m.value)


def test_presentation_mode_is_off_by_default():
    at = opened()
    assert at.toggle(key=state.PRESENT).value is False
    assert "player-controls" not in page_css(at)
    assert len(at.metric) == 7 + 5  # the corpus summary and the step's metrics
    assert SUMMARY_LINE not in [c.value for c in at.caption]
    assert not label_collapsed(at.slider(key=TRAIN.step))


def test_toggle_turns_presentation_mode_on_and_off():
    at = opened()
    at.toggle(key=state.PRESENT).set_value(True).run()
    assert not at.exception
    assert page_css(at) == presentation.css(True)
    assert at.caption[0].value == SUMMARY_LINE  # one line instead of seven metrics
    assert len(at.metric) == 5
    assert label_collapsed(at.slider(key=TRAIN.step))  # the slider sits in the button row
    at.button(key=TRAIN.next).click().run()
    assert at.subheader[0].value.startswith("Merge 2 of 200")
    at.toggle(key=state.PRESENT).set_value(False).run()
    assert page_css(at) == presentation.css(False)
    assert len(at.metric) == 12
    assert at.subheader[0].value.startswith("Merge 2 of 200")  # the step is kept


@pytest.mark.parametrize("page", [None, "pages/encode.py", "pages/compare.py", "pages/lessons.py"])
def test_presentation_link_opens_every_page_in_presentation_mode(page):
    at = opened({state.PRESENT: "true"}, page)
    assert at.toggle(key=state.PRESENT).value is True
    assert "player-controls" in page_css(at)


def test_presentation_link_with_a_step():
    at = opened({state.PRESENT: "true", TRAIN.step: "30"})
    assert at.subheader[0].value.startswith("Merge 30 of 200")
    assert at.caption[0].value == SUMMARY_LINE


def test_css_adds_presentation_rules_only_when_on():
    off, on = presentation.css(False), presentation.css(True)
    assert off.startswith("<style") and off.endswith("</style>")
    assert presentation.BASE_CSS in off and presentation.PRESENT_CSS not in off
    assert presentation.BASE_CSS in on and presentation.PRESENT_CSS in on
    assert "position:sticky" in presentation.PRESENT_CSS


def test_train_player_buttons_answer_the_keys():
    at = opened()
    expected = {"first": "home", "prev": "left", "play": "space", "next": "right", "last": "end"}
    assert {name: key.lower() for name, key in SHORTCUTS.items()} == expected
    for name, key in expected.items():
        assert at.button(key=getattr(TRAIN, name)).proto.shortcut == key
    at.button(key=TRAIN.play).click().run()
    assert at.button(key=TRAIN.pause).proto.shortcut == "space"  # Space pauses too
    at.button(key=TRAIN.pause).click().run()


def test_lesson_player_answers_the_keys_and_lessons_have_no_training_sidebar():
    at = opened({state.PRESENT: "true"}, "pages/lessons.py")
    at.pills(key=state.LESSON).set_value(LESSONS[0].title).run()
    keys = state.lesson_player(1)
    assert at.button(key=keys.next).proto.shortcut == "right"
    assert not any(b.label == "Train" for b in at.sidebar.button)
    at.button(key=keys.next).click().run()
    assert at.subheader[0].value.startswith("Merge 2 of ")


@pytest.mark.parametrize("page", [None, "pages/encode.py", "pages/compare.py", "pages/lessons.py"])
def test_text_link_opens_encode_with_that_text(page):
    at = opened({"text": "the lowest newer wider"}, page)
    assert at.title[0].value.startswith("Encode")
    assert at.text_area(key=state.ENCODE_TEXT).value == "the lowest newer wider"
    assert dict(at.query_params) == {state.ENCODE_TEXT: "the lowest newer wider"}


def test_text_link_keeps_the_other_parameters():
    at = opened({"text": "lower", state.SHOW_IDS: "false", state.PRESENT: "true"})
    assert at.text_area(key=state.ENCODE_TEXT).value == "lower"
    assert at.toggle(key=state.SHOW_IDS).value is False
    assert at.toggle(key=state.PRESENT).value is True


def test_old_corpus_hash_links_still_say_what_they_were_made_from():
    at = opened({"text": "32a880f9df17", state.SOURCE: "Paste"})
    assert at.title[0].value.startswith("Train")  # not the Encode page: this `text` is a corpus hash
    assert "(SHA-256 32a880f9df17…)" in at.info[0].value  # in the main area: seen with the sidebar folded
    # The hash is not a usable text link: `text` goes, and the renamed parameter keeps saying what the link
    # was made from (so the link, passed on again, still names it)
    assert at.query_params[sidebar.TEXT_PARAM] == "32a880f9df17" and "text" not in at.query_params
    at.run()  # a rerun (any click) keeps both the notice's hash in the URL and the page
    assert not at.exception and at.query_params[sidebar.TEXT_PARAM] == "32a880f9df17"
    assert at.query_params[state.SOURCE] == "Paste"


def test_pasted_text_goes_into_the_link_itself():
    at = opened()
    at.sidebar.button_group(key=state.SOURCE).set_value("Paste").run()
    at.sidebar.text_area(key=state.PASTE).input("low lower lowest " * 30)
    next(b for b in at.button if b.label == "Train").click()
    at.run()
    assert unpack_text(at.query_params[TEXT_IN_LINK]) == "low lower lowest " * 30  # tests/test_app_links.py
    assert sidebar.TEXT_PARAM not in at.query_params and "text" not in at.query_params

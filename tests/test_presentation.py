"""AppTest: presentation mode (toggle and link), the players' keyboard keys (counted in the browser, so no press
is lost), Play's pace, and ``?text=`` links."""

from __future__ import annotations

import json

import pytest
from streamlit.proto.LabelVisibility_pb2 import LabelVisibility
from streamlit.proto.WidgetStates_pb2 import WidgetState, WidgetStates
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
    assert "position:sticky" not in page_css(at)  # the player's controls do not stick to the top
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
    assert "position:sticky" in page_css(at)


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


# ----------------------------------------------------------------- every press is one step


def keys_component(at: AppTest, keys: state.PlayerKeys = TRAIN):
    """The player's browser-side key counter (``ui/player_keys.js``) as AppTest sees it."""
    return next(e for e in at.get("bidi_component") if e.proto.id.endswith(keys.keys))


def shown_to_browser(at: AppTest, keys: state.PlayerKeys = TRAIN) -> dict:
    """What the server told the key counter: the step drawn, the last sequence number applied, ..."""
    return json.loads(keys_component(at, keys).proto.json)


def ask(at: AppTest, request: object, keys: state.PlayerKeys = TRAIN) -> AppTest:
    """Run as the browser does when its key counter asks for a step: ``request`` is the component's
    ``request`` state (``{"step": 11, "seq": 10}`` after ten presses of → from step 1)."""
    component_id = keys_component(at, keys).proto.id
    states = WidgetStates()
    states.widgets.extend(w for w in at._tree.get_widget_states().widgets if w.id != component_id)
    states.widgets.append(WidgetState(id=component_id, json_value=json.dumps({"request": request})))
    at._run(states)
    assert not at.exception
    return at


def test_presses_counted_in_the_browser_move_the_player_to_where_they_lead():
    """The browser sends the step a burst of presses leads to, with a sequence number: the server draws
    that step (ten presses folded into one rerun are still ten steps), and tells the browser what it drew."""
    at = opened({state.PRESENT: "true"})
    assert shown_to_browser(at) == {
        "id": TRAIN.step,
        "step": 1,
        "n": 200,
        "seq": 0,
        "keys": True,
        "buttons": {name: f"st-key-{getattr(TRAIN, name)}" for name in ("first", "prev", "next", "last")},
    }
    ask(at, {"step": 11, "seq": 10})
    assert at.subheader[0].value.startswith("Merge 11 of 200")
    assert shown_to_browser(at)["step"] == 11 and shown_to_browser(at)["seq"] == 10
    at.button(key=TRAIN.next).click().run()  # a rerun that sends the same request again does not replay it
    assert at.subheader[0].value.startswith("Merge 12 of 200")
    ask(at, {"step": 5, "seq": 11})  # Home, then → four times
    assert at.subheader[0].value.startswith("Merge 5 of 200")
    ask(at, {"step": 9000, "seq": 12})  # past the end (an older page's n): the last step
    assert at.subheader[0].value.startswith("Merge 200 of 200")
    assert at.slider(key=TRAIN.step).value == 200


@pytest.mark.parametrize(
    "request_",
    [None, "7", {"step": "7", "seq": 3}, {"step": 7}, {"step": 7.0, "seq": 3}, {"step": True, "seq": 3}, [7, 3]],
)
def test_a_malformed_request_from_the_browser_is_ignored(request_):
    at = opened()
    ask(at, request_)
    assert at.subheader[0].value.startswith("Merge 1 of 200")


def test_play_keeps_its_pace_whatever_drawing_takes(monkeypatch):
    """The next step is due one interval (0.5 s) after the previous one was due, not after it was drawn: a
    frame that comes a little early or late still advances on time; a frame a whole interval late advances
    once and the count starts again from then (no burst to catch up)."""
    now = [100.0]
    monkeypatch.setattr("ui.player.clock", lambda: now[0])
    at = opened()
    at.button(key=TRAIN.play).click().run()  # Play at t = 100.0

    def frame(t: float) -> int:
        now[0] = t
        at.run()
        return int(at.subheader[0].value.split()[1])

    assert frame(100.3) == 1  # not due yet
    assert frame(100.45) == 2  # due at 100.5: a timer frame a little early counts
    assert frame(101.1) == 3  # due at 101.0 (drawing step 2 ended late: the pace is kept)
    assert frame(101.35) == 3  # step 4 is due at 101.5, counted from when step 3 was due
    assert frame(101.5) == 4
    assert frame(103.2) == 5  # a busy server: a frame 1.2 s late advances once ...
    assert frame(103.4) == 5  # ... and the next step is due half a second after it
    assert frame(103.7) == 6

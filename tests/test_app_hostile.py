"""AppTest: hostile links, session files and Train presses end in a message, never a traceback."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

import bpe_core
from bpe_core.formats import export
from ui import state
from ui.corpus import read_sample
from ui.settings import TrainSettings

from .conftest import APP_TIMEOUT, waited
from .test_app import APP, encode_page, fresh, seen, subheaders, submit
from .test_hostile import run_limited

PAGES = {
    "train": None,
    "encode": "pages/encode.py",
    "compare": "pages/compare.py",
    "lessons": "pages/lessons.py",
    "provenance": "pages/provenance.py",
    "check": "pages/check.py",
}
HOSTILE_LINK = {
    state.BUDGET: "inf",
    state.MIN_FREQUENCY: "1e400",
    state.CMP_BUDGET: "-inf",
    state.SPECIALS: "x" * 3000,
    state.UNIT: "word",
    "lesson1_merges": "1e400",
    state.CHECK_MIN_FREQUENCY: "inf",
}
"""One value of each kind no widget can hold: infinities, a number of 400 digits, a special token of 3,000
characters, an unknown choice."""


def open_link(params: dict[str, str], page: str | None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=APP_TIMEOUT)
    if page is not None:
        at.switch_page(page)
    at.query_params.update(params)
    return at.run()


def warnings(at: AppTest) -> str:
    return " ".join(seen(w.value) for w in at.warning)


@pytest.mark.parametrize("page", list(PAGES))
def test_hostile_link_values_are_ignored_with_a_message(page):
    at = open_link(HOSTILE_LINK, PAGES[page])
    assert not at.exception
    said = warnings(at)
    assert "set_budget must be a whole number from 0 to 200,000, got 'inf'" in said
    assert "set_min_frequency must be a whole number" in said and "'1e400'" in said
    assert "a special token may have at most 100 characters" in said
    assert "set_unit must be one of: char, byte; got 'word'" in said
    assert "check_min_frequency must be a whole number from 1 to 1,000,000, got 'inf'" in said
    if page != "lessons":  # Lessons has no training sidebar
        assert at.session_state[state.APPLIED_SETTINGS] == TrainSettings()  # every ignored value: its default
    for key in HOSTILE_LINK:
        assert key not in at.query_params or at.query_params[key] != [HOSTILE_LINK[key]]


@pytest.mark.parametrize(
    ("params", "said"),
    [
        ({state.TRAIN_PLAYER.step: "abc"}, "train_step must be a number, got 'abc'"),
        ({state.SAMPLE: "doesnotexist"}, "corpus_sample must be one of: Shakespeare excerpt (12 KB),"),
        ({state.SAMPLE: "<script>alert(1)</script>"}, "corpus_sample must be one of: "),
    ],
)
def test_unknown_sample_and_step_links_are_ignored_with_a_message(params, said):
    at = open_link(params, None)
    assert not at.exception
    assert said in warnings(at)
    assert subheaders(at)[0].startswith("Merge 1 of 200 ")  # the default sample, from its first merge


@pytest.mark.parametrize("value", ["-inf", "1e400", "99999999999999999999999", "200001"])
def test_budget_links_past_the_limit(value):
    at = open_link({state.BUDGET: value}, None)
    assert not at.exception
    assert "set_budget must be" in warnings(at)
    assert subheaders(at)[0].startswith("Merge 1 of 200 ")


def test_a_good_link_still_applies():
    at = open_link({state.BUDGET: "150", state.MIN_FREQUENCY: "3"}, None)
    assert not at.exception and not at.warning
    assert at.session_state[state.APPLIED_SETTINGS] == TrainSettings(budget=150, min_frequency=3)


def test_the_200000_merge_link_stops_with_a_message_under_1_5_gb():
    """Issue 11/12's link, opened in a fresh app under a 3 GB address-space limit."""
    result = run_limited(
        f"""
        from streamlit.testing.v1 import AppTest
        at = AppTest.from_file({APP!r}, default_timeout={waited(600)})
        at.query_params.update({{"corpus_sample": "Tiny Shakespeare (1.1 MB)", "set_pretokenizer": "none",
            "set_unit": "byte", "set_budget": "200000", "set_min_frequency": "1"}})
        at.run()
        report(exceptions=[e.value for e in at.exception], infos=[i.value for i in at.info],
               errors=[e.value for e in at.error])
        """,
        memory=3 * 2**30,
        cpu_seconds=600,
    )
    assert result["exceptions"] == [] and result["errors"] == []
    # a clean stop: the memory budget, or the trainer's own limit on the learned tokens' text
    assert any("memory budget" in i or "learned tokens hold" in i for i in result["infos"]) or not result["infos"]
    assert result["peak_mb"] < 1536


def test_a_failed_train_keeps_the_last_good_training():
    at = fresh()
    at.segmented_control(key=state.SOURCE).set_value("Paste").run()
    at.text_area(key=state.PASTE).set_value("<s> <s>")
    at.text_input(key=state.SPECIALS).set_value("<s>")
    submit(at)
    assert not at.exception
    said = seen(at.error[0].value)
    assert "Cannot train on pasted text" in said and "no words to learn from" in said
    assert "the last training stays applied" in said
    assert at.session_state[state.APPLIED_SETTINGS] == TrainSettings()
    assert subheaders(at)[0].startswith("Merge 1 of 200")  # the default sample's training is still shown
    encode_page(at)
    assert not at.error and at.success[0].value.startswith("Round trip holds")


def test_text_of_special_tokens_only_encodes_each_to_its_id():
    at = fresh()
    at.text_input(key=state.SPECIALS).set_value("<s>, </s>")
    submit(at)
    encode_page(at)
    at.toggle(key=state.ALLOW_SPECIAL).set_value(True)
    at.text_area(key=state.ENCODE_TEXT).set_value("<s></s><s>").run()
    assert not at.exception
    assert at.code[1].value == "0, 1, 0"
    assert any("the text is 3 special token(s), each encoded as its own id" in c.value for c in at.caption)


def _session_file(**settings: object) -> tuple[str, bytes]:
    corpus = read_sample("Shakespeare excerpt (12 KB)")
    result = bpe_core.train(corpus, **TrainSettings(budget=20).kwargs())
    ((name, data),) = export(result, "session", corpus=corpus, corpus_name="sample").items()
    doc = json.loads(data)
    doc["settings"].update(settings)
    return name, json.dumps(doc).encode()


def test_a_session_past_the_limits_cannot_be_applied():
    at = encode_page(fresh())
    at.radio(key=state.ENCODE_TOKENIZER).set_value("Uploaded file").run()
    name, data = _session_file(num_merges=10**9)
    at.file_uploader(key=state.TOKENIZER_UPLOAD).set_value((name, data, "application/json")).run()
    assert not at.exception
    assert any("settings cannot be used here: num_merges must be" in seen(e.value) for e in at.error)
    assert not [b for b in at.button if b.key == state.APPLY_SESSION]


def test_a_good_session_is_applied_and_trained():
    at = encode_page(fresh())
    at.radio(key=state.ENCODE_TOKENIZER).set_value("Uploaded file").run()
    name, data = _session_file(num_merges=20)
    at.file_uploader(key=state.TOKENIZER_UPLOAD).set_value((name, data, "application/json")).run()
    next(b for b in at.button if b.key == state.APPLY_SESSION).click().run()
    assert not at.exception
    assert at.session_state[state.APPLIED_SETTINGS] == TrainSettings(budget=20)
    assert at.number_input(key=state.BUDGET).value == 20


# ---------------------------------------------------------------- what else issue 12 asks to see on screen


def test_a_full_encode_box_sends_longer_text_to_upload():
    """Item 6: the Encode box holds MAX_ENCODE_CHARS; full, it says so and points to Upload."""
    from ui.corpus import MAX_ENCODE_CHARS

    at = encode_page(fresh())
    at.text_area(key=state.ENCODE_TEXT).set_value(("low lower newest widest " * 1000)[:MAX_ENCODE_CHARS]).run()
    assert not at.exception
    said = warnings(at)
    assert f"The box is full ({MAX_ENCODE_CHARS:,} characters)" in said and "choose Upload in the sidebar" in said
    assert at.text_area(key=state.ENCODE_TEXT).max_chars == MAX_ENCODE_CHARS


def test_the_paste_box_is_capped_and_a_full_one_points_to_upload():
    from ui.corpus import MAX_PASTE_CHARS

    at = fresh()
    at.segmented_control(key=state.SOURCE).set_value("Paste").run()
    assert at.text_area(key=state.PASTE).max_chars == MAX_PASTE_CHARS
    at.text_area(key=state.PASTE).set_value(("low lower newest widest " * 1000)[:MAX_PASTE_CHARS])
    submit(at)
    assert not at.exception
    said = warnings(at)
    assert f"The paste box is full ({MAX_PASTE_CHARS:,} characters)" in said and "choose Upload" in said


def test_the_export_panel_says_which_check_it_ran():
    """Item 9: each download says how it was proven (reloaded by bpe_core here; by the real library in tests)."""
    from bpe_core.formats.export import REFERENCE_CHECKS

    at = encode_page(fresh())
    captions = " ".join(seen(c.value) for c in at.caption)
    assert "Checked here by reloading the file with bpe_core's own" in captions
    assert any(check in captions for check in REFERENCE_CHECKS.values())


def test_cache_keys_of_texts_whose_short_digests_collide_differ():
    """Item 13: two texts sharing the 48-bit digest get their own training (keys hold the whole SHA-256)."""
    from ui.cache import _corpus_key, trained
    from ui.corpus import CorpusChoice

    a = CorpusChoice("paste", "pasted text", "low lower newest widest 631852")
    b = CorpusChoice("paste", "pasted text", "low lower newest widest 3700475")
    assert a.digest == b.digest and _corpus_key(a) != _corpus_key(b)
    settings = TrainSettings(budget=5)
    assert "0" not in trained(a, settings).alphabet and "0" in trained(b, settings).alphabet


def test_no_traceback_details_reach_a_user_and_special_text_help_is_right():
    """Items 15 and 16: uncaught errors show their type only; 'ordinary text' is tiktoken's encode_ordinary."""
    import tomllib

    from .conftest import REPO

    config = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["client"]["showErrorDetails"] == "type"
    doc = bpe_core.Tokenizer.encode.__doc__
    assert "encode_ordinary" in doc and "raises on such text by default" in doc
    at = encode_page(fresh())
    help_text = at.toggle(key=state.ALLOW_SPECIAL).help
    assert "as tiktoken's encode_ordinary does (tiktoken's encode refuses such text by default)" in help_text

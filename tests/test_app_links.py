"""Links that carry pasted text (issue 19): packing, hostile values, the round trip to a new session, and the
session file offered when a paste is too long for a link."""

from __future__ import annotations

import base64
import json
import tracemalloc
import zlib

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from bpe_core import train
from bpe_core.formats import FormatError, load_session, to_session
from ui import sidebar, state
from ui.cache import kept_texts
from ui.corpus import MAX_PASTE_CHARS, read_sample
from ui.links import MAX_LINK_TEXT, TEXT_IN_LINK, pack_text, page_path, problem, unknown_path, unpack_text
from ui.settings import TrainSettings

from .conftest import APP_TIMEOUT
from .test_app import APP, seen, subheaders, submit

TINY = "Tiny Shakespeare (1.1 MB)"


def _deflate(data: bytes) -> str:
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    return base64.urlsafe_b64encode(packer.compress(data) + packer.flush()).rstrip(b"=").decode()


def _params(at: AppTest) -> dict[str, str]:
    """The URL a browser would show: every parameter with its one value."""
    return {key: value if isinstance(value, str) else value[0] for key, value in at.query_params.items()}


def _paste_and_train(text: str, steps: int = 0) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=APP_TIMEOUT).run()
    at.segmented_control(key=state.SOURCE).set_value("Paste").run()
    at.text_area(key=state.PASTE).input(text)
    submit(at)
    for _ in range(steps):
        at.button(key=state.TRAIN_PLAYER.next).click().run()
    assert not at.exception
    return at


def _open(params: dict[str, str]) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=APP_TIMEOUT)
    at.query_params.update(params)
    return at.run()


def _warnings(at: AppTest) -> str:
    return " ".join(seen(w.value) for w in at.warning)


# ----------------------------------------------------------------- packing


@pytest.mark.parametrize(
    "text",
    ["low lower lowest", "שלום עולם 👋🏽 e\u0301\r\nline two\ttab", "x" * MAX_PASTE_CHARS, "a\x00b <script>"],
)
def test_pasted_text_survives_packing_exactly(text):
    packed = pack_text(text)
    assert packed is not None and len(packed) <= MAX_LINK_TEXT
    assert set(packed) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")  # nothing to escape
    assert unpack_text(packed) == text


def test_the_stated_link_size_holds_about_9900_characters_of_shakespeare():
    """ui.links.MAX_LINK_TEXT's docstring and the page say "about 9,900 characters of English"."""
    tiny = read_sample(TINY)
    assert pack_text(tiny[:9_800]) is not None
    assert pack_text(tiny[:10_000]) is None
    assert pack_text(read_sample("Shakespeare excerpt (12 KB)")) is None  # 11,916 characters pack into 7,156


def test_a_lone_surrogate_cannot_travel():
    assert pack_text("ab\ud800cd") is None


# ----------------------------------------------------------------- hostile values


BOMB = _deflate(b"a" * 4 * 2**20)
"""4 MB of "a" deflate into 5,444 characters: within the link's limit, 52 times the paste box once inflated."""


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("<script>alert(1)</script>", "is not compressed text (URL-safe base64 letters only)"),
        ("abcde", "is not compressed text (raw DEFLATE in base64)"),  # 5 base64 letters cannot be bytes
        ("BwAA", "is not compressed text (raw DEFLATE in base64)"),  # DEFLATE block type 3 is reserved
        ("y8kvV8jJL08tAg", "cut short"),  # "low lower" with its last bytes lost
        (_deflate(b"low lower") + "AAAA", "bytes after its end"),
        ("A" * (MAX_LINK_TEXT + 1), f"holds 6,001 characters; a link carries at most {MAX_LINK_TEXT:,}"),
        (BOMB, f"unpacks to more than the paste box's {MAX_PASTE_CHARS:,} characters"),
        (_deflate("é".encode("latin-1")), "does not unpack to UTF-8 text"),
        (_deflate(b""), "the pasted text is empty"),
        (_deflate(b" \n\t "), "holds only whitespace"),
        (_deflate(b"x" * (MAX_PASTE_CHARS + 1)), f"the limit is {MAX_PASTE_CHARS:,}"),
    ],
)
def test_an_unusable_link_text_is_named(value, said):
    reason = problem(TEXT_IN_LINK, value)
    assert reason is not None and reason.startswith(TEXT_IN_LINK) and said in reason


def test_a_decompression_bomb_stops_within_bounded_memory():
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match="unpacks to more than"):
            unpack_text(BOMB)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000  # the 4 MB it would inflate to are never made


@pytest.mark.parametrize("value", ["<b>x</b>", BOMB, "y8kvV8jJL08tAg"])
def test_a_hostile_link_text_opens_the_default_sample_with_the_warning(value):
    at = _open({TEXT_IN_LINK: value, state.SOURCE: "Paste", state.TRAIN_PLAYER.step: "3"})
    assert not at.exception
    said = _warnings(at)
    assert said.startswith("This link holds a value that cannot be used: corpus_text")
    assert TEXT_IN_LINK not in at.query_params
    assert at.session_state[state.APPLIED_CORPUS].name == "Shakespeare excerpt (12 KB)"


# ----------------------------------------------------------------- the round trip


def test_a_link_to_pasted_text_opens_the_same_frame_in_a_new_session():
    """Issue 19: paste, train, step to 3, open the URL elsewhere: the same corpus at the same merge, the text
    in the Paste box (here also after the caches are cleared, as on a freshly started server)."""
    text = read_sample(TINY)[:3_000]
    at = _paste_and_train(text, steps=2)
    heading = subheaders(at)[0]
    assert heading.startswith("Merge 3 of 200 ")
    link = _params(at)
    assert unpack_text(link[TEXT_IN_LINK]) == text and sidebar.TEXT_PARAM not in link
    assert len("http://localhost:8501/?" + "&".join(f"{k}={v}" for k, v in link.items())) < 8_000
    st.cache_data.clear()
    st.cache_resource.clear()
    other = _open(link)
    assert not other.exception and not other.warning and not other.info
    assert subheaders(other)[0] == heading
    assert other.session_state[state.APPLIED_CORPUS] == at.session_state[state.APPLIED_CORPUS]
    assert other.session_state[state.APPLIED_CORPUS].sha256 == at.session_state[state.APPLIED_CORPUS].sha256
    assert other.segmented_control(key=state.SOURCE).value == "Paste"
    assert other.text_area(key=state.PASTE).value == text
    other.button(key=state.TRAIN_PLAYER.next).click().run()  # and it goes on from there
    assert subheaders(other)[0].startswith("Merge 4 of 200 ")
    assert unpack_text(_params(other)[TEXT_IN_LINK]) == text


def test_a_link_text_alone_chooses_the_paste_source():
    other = _open({TEXT_IN_LINK: _deflate(b"low lower lowest newest widest " * 5)})
    assert other.segmented_control(key=state.SOURCE).value == "Paste"
    assert other.session_state[state.APPLIED_CORPUS].text.startswith("low lower lowest")


def test_a_sample_link_carries_no_text():
    at = _paste_and_train("low lower lowest " * 10)
    at.segmented_control(key=state.SOURCE).set_value("Sample").run()
    submit(at)
    assert TEXT_IN_LINK not in at.query_params and sidebar.TEXT_PARAM not in at.query_params


# ----------------------------------------------------------------- too long for a link


def test_a_paste_too_long_for_a_link_says_so_in_the_main_area_and_offers_a_session_file():
    text = read_sample(TINY)[:15_000]
    at = _paste_and_train(text)
    notice = _warnings(at)
    assert notice.startswith("**A link cannot carry this pasted text**: its 15,000 characters pack into 8,948")
    assert not any("A link cannot carry" in w.value for w in at.sidebar.warning)  # main area, not the sidebar
    assert [b.label for b in at.get("download_button")] == ["Session file"]
    link = _params(at)
    assert TEXT_IN_LINK not in link and link[sidebar.TEXT_PARAM] == at.session_state[state.APPLIED_CORPUS].sha256

    kept_texts.clear()  # on another server (or after a restart), which does not keep the text
    other = _open({**link, state.SOURCE: "Paste"})  # the link alone: the default sample, said in the main area
    assert "that this browser session does not have and this server does not keep" in other.info[0].value
    assert not other.sidebar.info
    data = sidebar.session_file(at.session_state[state.RESULT], at.session_state[state.APPLIED_CORPUS])
    other.segmented_control(key=state.SOURCE).set_value("Upload").run()
    other.file_uploader(key=state.UPLOAD).set_value((sidebar.SESSION_FILE, data, "application/json")).run()
    assert not other.exception and not other.error
    assert other.segmented_control(key=state.SOURCE).value == "Paste"
    assert other.text_area(key=state.PASTE).value == text
    assert other.session_state[state.APPLIED_CORPUS] == at.session_state[state.APPLIED_CORPUS]
    assert other.session_state[state.RESULT].merges == at.session_state[state.RESULT].merges
    assert not other.info  # the text is here now


def test_a_paste_too_long_for_a_link_opens_again_on_the_same_server():
    """Trial A item 15: F5, a ``?present=true`` link or a second tab on the same server opened the default
    sample; the link names the paste by its SHA-256 and the server keeps the text under it."""
    text = read_sample(TINY)[5_000:20_000]
    at = _paste_and_train(text, steps=2)
    heading = subheaders(at)[0]
    assert heading.startswith("Merge 3 of 200 ")
    link = _params(at)
    corpus = at.session_state[state.APPLIED_CORPUS]
    assert TEXT_IN_LINK not in link and link[sidebar.TEXT_PARAM] == corpus.sha256
    assert link[state.TRAIN_PLAYER.step] == "3"  # (a browser's link also holds corpus_source=Paste)
    assert "only on this server, while the server keeps it" in _warnings(at)
    for params in (link, {**link, "present": "true"}):  # a reload; the link with presentation mode
        other = AppTest.from_file(APP, default_timeout=APP_TIMEOUT)
        other.query_params.update(params)
        other.run()
        assert not other.exception and not other.info and not other.error
        assert subheaders(other)[0] == heading
        assert other.session_state[state.APPLIED_CORPUS] == corpus
        assert other.text_area(key=state.PASTE).value == text
        assert other.segmented_control(key=state.SOURCE).value == "Paste"
        assert _params(other)[sidebar.TEXT_PARAM] == corpus.sha256  # passed on, it still names the text
        assert "A link cannot carry this pasted text" in _warnings(other)  # and still says where it works
    assert other.toggle(key=state.PRESENT).value is True
    other.button(key=state.TRAIN_PLAYER.next).click().run()  # and it goes on from there
    assert subheaders(other)[0].startswith("Merge 4 of 200 ")


@pytest.mark.parametrize("digest", ["0" * 64, "32a880f9df17", "<b>x</b>"])
def test_a_paste_hash_this_server_does_not_keep_says_so_and_offers_the_session_file(digest):
    """Another server's link, or a text the server has let go: the default sample at the link's step, and the
    main area says why and how to get the text."""
    at = AppTest.from_file(APP, default_timeout=APP_TIMEOUT)
    at.query_params.update({sidebar.TEXT_PARAM: digest, state.SOURCE: "Paste", state.TRAIN_PLAYER.step: "3"})
    at.run()
    assert not at.exception
    said = at.info[0].value
    assert said.startswith("This link was made from pasted text (SHA-256 ")
    assert "that this browser session does not have and this server does not keep" in said
    assert "open the session file that came with it (Source: Upload)" in said
    assert "<b>" not in said and not at.sidebar.info  # escaped, and in the main area
    assert at.session_state[state.APPLIED_CORPUS].name == "Shakespeare excerpt (12 KB)"
    assert subheaders(at)[0].startswith("Merge 3 of 200 ")
    assert at.query_params[sidebar.TEXT_PARAM] == digest  # passed on, the link still names the text


def test_an_upload_hash_is_not_looked_up_among_kept_pastes():
    text = "low lower lowest " * 600
    key = kept_texts().keep(text)
    at = AppTest.from_file(APP, default_timeout=APP_TIMEOUT)
    at.query_params.update({sidebar.TEXT_PARAM: key, state.SOURCE: "Upload"})
    at.run()
    assert not at.exception
    assert at.info[0].value.startswith("This link was made from uploaded text")
    assert at.session_state[state.APPLIED_CORPUS].name == "Shakespeare excerpt (12 KB)"


def test_a_session_file_brings_its_settings_too():
    settings = TrainSettings(pretokenizer="gpt2", unit="byte", budget=7, min_frequency=1)
    result = train("low lower lowest newest widest", **settings.kwargs())
    data = to_session(result, corpus_text="low lower lowest newest widest", corpus_name="pasted text").encode()
    at = AppTest.from_file(APP, default_timeout=APP_TIMEOUT).run()
    at.segmented_control(key=state.SOURCE).set_value("Upload").run()
    at.file_uploader(key=state.UPLOAD).set_value(("lesson.session.json", data, "application/json")).run()
    assert not at.exception
    assert at.session_state[state.APPLIED_SETTINGS] == settings
    assert at.session_state[state.APPLIED_CORPUS].text == "low lower lowest newest widest"


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b'{"format": "tokenizer"}', "cannot be opened as a session file: x.session.json: expected a JSON object"),
        (b"{", "cannot be opened as a session file"),
        ("session-without-text", "holds a tokenizer but not its corpus text: open it on the Encode page"),
    ],
)
def test_a_session_file_that_cannot_be_opened_says_why(data, said):
    if data == "session-without-text":
        data = to_session(train("low lower", num_merges=2), corpus="low lower").encode()
    at = AppTest.from_file(APP, default_timeout=APP_TIMEOUT).run()
    at.segmented_control(key=state.SOURCE).set_value("Upload").run()
    at.file_uploader(key=state.UPLOAD).set_value(("x.session.json", data, "application/json")).run()
    assert not at.exception
    assert said in seen(at.error[0].value)
    submit(at)  # Train on it says the same, and the last training stays
    assert said in seen(at.sidebar.error[0].value)
    assert at.session_state[state.APPLIED_CORPUS].name == "Shakespeare excerpt (12 KB)"


def test_a_session_file_keeps_its_text_only_when_the_hash_matches():
    result = train("low lower", num_merges=2)
    doc = json.loads(to_session(result, corpus_text="low lower"))
    assert load_session(json.dumps(doc)).corpus_text == "low lower"
    doc["corpus"]["text"] = "low lowest"
    with pytest.raises(FormatError, match="does not hash to corpus.sha256"):
        load_session(json.dumps(doc))
    doc["corpus"]["text"] = 7
    with pytest.raises(FormatError, match="'corpus.text' must be a string"):
        load_session(json.dumps(doc))
    assert load_session(to_session(result, corpus="low lower")).corpus_text is None


# ----------------------------------------------------------------- a path that names no page


@pytest.mark.parametrize(
    ("url", "base", "path"),
    [
        ("http://localhost:8501", "", None),
        ("http://localhost:8501/", "", None),
        ("http://localhost:8501/encode", "", None),
        ("http://localhost:8501/token_trees", "", "token_trees"),
        ("http://host/bpe", "bpe", None),  # the app's own prefix (server.baseUrlPath) is not a page
        ("http://host/bpe/provenance", "/bpe/", None),
        ("http://host/bpe/Lessons%202", "bpe", "Lessons 2"),
        (None, "", None),
    ],
)
def test_unknown_path(url, base, path):
    known = [page_path(script) for script in ("app.py", "pages/encode.py", "pages/lessons.py", "pages/provenance.py")]
    assert known[:2] == ["", "encode"]
    assert unknown_path(url, base, known) == path


def test_an_unknown_path_names_the_pages_in_the_main_area(monkeypatch):
    """Issue 19: ``/token_trees`` opened Train with only Streamlit's "Page not found", which names no page."""
    monkeypatch.setattr(type(st.context), "url", property(lambda _self: "http://localhost:8501/token_trees"))
    at = _open({})
    said = seen(at.warning[0].value)
    assert said.startswith("There is no page at /token_trees, so the Train page opened.")
    assert "Did you mean Token trees (/provenance)?" in said
    assert said.endswith(
        "The pages are: Train (/), Encode (/encode), Compare (/compare), Lessons (/lessons), "
        "Token trees (/provenance), Check an example (/check), Languages (/languages)."
    )
    assert not at.sidebar.warning


def test_a_known_page_says_nothing_of_the_kind(monkeypatch):
    monkeypatch.setattr(type(st.context), "url", property(lambda _self: "http://localhost:8501"))
    assert not _open({}).warning

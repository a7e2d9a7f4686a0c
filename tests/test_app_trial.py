"""AppTest: what a fresh user's trial of the app found (oversized word counts on Check an example, stale
choices, uploads across pages, long and right-to-left tokens, message wording)."""

from __future__ import annotations

from streamlit.elements.lib import policies
from streamlit.testing.v1 import AppTest

from ui import state
from ui.corpus import MAX_PASTE_CHARS

from .conftest import REPO
from .test_app import captions, fresh, metrics, seen, subheaders, submit
from .test_app_provenance import CHECK, errors, page
from .test_hostile import run_limited


def open_buttons(at: AppTest) -> list:
    return [b for b in at.button if b.key and b.key.startswith("check_open_")]


def test_check_page_refuses_a_count_past_the_limit_naming_its_line():
    at = page(CHECK)
    at.text_area(key=state.CHECK_CORPUS).set_value("lower 2\nlow 99999999999999999999999").run()
    at.text_area(key=state.CHECK_CLAIM).set_value("l o").run()
    assert not at.exception
    assert errors(at) == [
        "line 2: the count 99,999,999,999,999,999,999,999 is too large; at most 281,474,976,710,656 (2**48) is allowed"
    ]


def test_check_page_big_counts_are_checked_but_not_opened_in_train():
    """In a child under a 3 GB limit: were the 8 GB text ever built again, the child would fail, not pytest."""
    out = run_limited(
        f"""
        from ui import state
        from tests.test_app import captions, seen
        from tests.test_app_provenance import errors, page
        at = page({CHECK!r})
        at.text_area(key=state.CHECK_CORPUS).set_value("low 2000000000\\nlower 2").run()
        at.text_area(key=state.CHECK_CLAIM).set_value("l o").run()
        buttons = [b for b in at.button if b.key and b.key.startswith("check_open_")]
        report(exceptions=[e.value for e in at.exception], errors=errors(at), captions=captions(at),
               disabled=[b.disabled for b in buttons], helps=[seen(b.help) for b in buttons])
        """,
        cpu_seconds=300,
    )
    assert not out["exceptions"] and not out["errors"]
    assert "Read as 2 words with counts (2,000,000,002 in all)." in out["captions"]
    assert out["disabled"] and all(out["disabled"])
    reason = next(c for c in out["captions"] if c.startswith("Opening in the Train page is off"))
    assert "these counts make 8,000,000,011 characters of text" in reason
    assert "upload these counts as a word-count file in the sidebar" in reason
    assert all(h == reason for h in out["helps"])


def test_check_page_link_fills_the_sidebar_consistently_without_a_warning(monkeypatch):
    warned: list[str] = []
    monkeypatch.setattr(policies, "_shown_default_value_warning", False)
    monkeypatch.setattr(policies._LOGGER, "warning", lambda msg, *args, **_kw: warned.append(msg % args))
    at = page(CHECK)
    words = (MAX_PASTE_CHARS - 1) // 4  # "low " repeated: just fits the paste box
    at.text_area(key=state.CHECK_CORPUS).set_value(f"low {words}").run()
    at.text_area(key=state.CHECK_CLAIM).set_value("l o\nlo w").run()
    assert not open_buttons(at)[0].disabled
    open_buttons(at)[0].click().run()
    assert not at.exception
    assert not warned  # Streamlit's "created with a default value but also had its value set" warning
    assert subheaders(at)[0] == "Merge 1 of 2 (rank 0): “l” + “o” → “lo”"
    pasted = at.session_state[state.PASTE]
    assert len(pasted) == 4 * words - 1 <= MAX_PASTE_CHARS
    assert at.session_state[state.APPLIED_CORPUS].text == pasted
    assert not at.sidebar.warning  # the paste box is not "full": the text went in whole


def test_an_upload_counts_the_texts_own_characters_and_stays_usable_across_pages():
    text = (REPO / "sample_corpora" / "shakespeare_excerpt.txt").read_bytes()
    at = fresh()
    as_sample = metrics(at)  # the default sample is this same text
    at.segmented_control(key=state.SOURCE).set_value("Upload").run()
    at.file_uploader(key=state.UPLOAD).set_value(("excerpt.txt", text, "text/plain"))
    submit(at)
    assert not at.exception and not at.sidebar.error
    shown = metrics(at)
    assert shown["characters"] == as_sample["characters"] == f"{len(text.decode()):,}"
    assert shown["chars per token"] == as_sample["chars per token"]
    at.switch_page("pages/compare.py").run()
    at.switch_page("app.py").run()
    at.file_uploader(key=state.UPLOAD).set_value(None)  # the browser's uploader is empty on a new page
    at.number_input(key=state.BUDGET).set_value(20)
    submit(at)
    assert not at.exception and not at.sidebar.error, [e.value for e in at.sidebar.error]
    assert at.session_state[state.APPLIED_CORPUS].name == "excerpt.txt"
    assert subheaders(at)[0].startswith("Merge 1 of 20 ")
    kept = [seen(c.value) for c in at.sidebar.caption if "Kept from your last upload" in c.value]
    assert kept and "excerpt.txt" in kept[0]
    next(b for b in at.button if b.label == "Remove the kept file").click().run()
    submit(at)
    assert [seen(e.value) for e in at.sidebar.error] == ["choose a .txt file to upload (UTF-8, up to 50 MB)"]
    assert at.session_state[state.APPLIED_CORPUS].name == "excerpt.txt"  # the last training stays applied


def test_train_heading_cuts_a_long_token_and_isolates_the_marker_after_hebrew():
    at = fresh()
    at.segmented_control(key=state.SOURCE).set_value("Paste").run()
    at.text_area(key=state.PASTE).set_value("a" * 4096)
    at.selectbox(key=state.PRETOKENIZER).set_value("none")
    at.number_input(key=state.MIN_FREQUENCY).set_value(1)
    at.number_input(key=state.BUDGET).set_value(12)
    submit(at)
    at.button(key=state.TRAIN_PLAYER.last).click().run()
    assert not at.exception
    long = "a" * 40 + "… (2,048 characters)"
    assert subheaders(at)[0] == f"Merge 12 of 12 (rank 11): “{long}” + “{long}” → “{'a' * 40}… (4,096 characters)”"
    at.text_area(key=state.PASTE).set_value("ם ם")
    at.selectbox(key=state.PRETOKENIZER).set_value("whitespace_eow")
    at.number_input(key=state.BUDGET).set_value(1)
    submit(at)
    assert subheaders(at)[0] == "Merge 1 of 1 (rank 0): “\u2068ם\u2069” + “</w>” → “\u2068ם\u2069\u2066</w>\u2069”"


def test_token_trees_start_each_new_token_at_its_own_merge():
    at = page("pages/provenance.py")
    assert any(c.startswith("Merge 1 of the training: the pair had a count of 350.") for c in captions(at))
    assert any("(first 5 places, corpus order" in c for c in captions(at))
    at.text_input(key=state.TREE_SEARCH).set_value("the</w>").run()
    assert not at.exception
    node = at.selectbox(key=f"tree_{state.TREE_NODE}")
    assert node.value == node.options[-1] and node.value.startswith("rank 13:")
    assert any(c.startswith("Merge 14 of the training:") for c in captions(at))
    assert [b.label for b in at.button if b.key == "tree_train"] == ["Open the Train page at merge 14"]
    assert any("(1 place, corpus order" in c for c in captions(at))  # "the</w>" is one distinct word


def test_a_new_upload_clears_the_last_uploads_error():
    at = fresh()
    at.segmented_control(key=state.SOURCE).set_value("Upload").run()
    uploader = at.file_uploader(key=state.UPLOAD)
    assert uploader.form_id == ""  # outside the Train form: choosing a file reruns the page
    uploader.set_value(("bad.txt", b"caf\xe9\n", "text/plain"))
    submit(at)
    assert any("bad.txt is not UTF-8 text" in seen(e.value) for e in at.sidebar.error)
    at.file_uploader(key=state.UPLOAD).set_value(("good.txt", b"low lower\n", "text/plain")).run()
    assert not at.sidebar.error  # the error was about the file before
    at.segmented_control(key=state.SOURCE).set_value("Word counts").run()
    assert at.file_uploader(key=state.COUNTS_UPLOAD).form_id == ""


def test_a_word_count_file_also_stays_usable_across_pages():
    at = fresh()
    at.segmented_control(key=state.SOURCE).set_value("Word counts").run()
    at.file_uploader(key=state.COUNTS_UPLOAD).set_value(("counts.tsv", b"low 5\nlower 2\n", "text/plain"))
    submit(at)
    at.switch_page("pages/encode.py").run()
    at.switch_page("app.py").run()
    at.file_uploader(key=state.COUNTS_UPLOAD).set_value(None)
    at.number_input(key=state.BUDGET).set_value(2)
    submit(at)
    assert not at.sidebar.error, [e.value for e in at.sidebar.error]
    assert at.session_state[state.APPLIED_CORPUS].name == "counts.tsv"
    assert subheaders(at)[0].startswith("Merge 1 of 2 ")

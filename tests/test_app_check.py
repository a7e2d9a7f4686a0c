"""AppTest: the Check an example page on long repetitive input, in the book's notation, and from a link."""

from __future__ import annotations

from ui import state

from .test_app import captions, seen
from .test_app_provenance import CHECK, errors, page


def test_check_page_answers_on_a_60000_character_run_of_dashes():
    """Issue 18: a run of '-' (a Markdown rule pasted whole) is checked, settings found, nothing raised."""
    at = page(CHECK)
    at.text_area(key=state.CHECK_CORPUS).set_value("-" * 60_000).run()
    at.text_area(key=state.CHECK_CLAIM).set_value("- -\n-- --\n---- ----").run()
    assert not at.exception and not errors(at)
    assert [seen(s.value) for s in at.success] == ["All 3 claimed merges hold under these settings."]
    assert "Read as text: 60,000 characters." in captions(at)
    found = at.dataframe[2].value
    assert len(found) == 48  # every pre-tokenizer keeps the run as one piece; no pair ever ties

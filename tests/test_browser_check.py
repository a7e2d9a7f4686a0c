"""End-to-end: the Check an example page in the book's notation, from a link and into the URL (see test_browser.py)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlencode, urlparse

import pytest

from .test_browser import _shot, app_url, browser, page  # noqa: F401 - fixtures
from .test_browser_provenance import _wait_text

pytestmark = pytest.mark.browser

JM_CORPUS = "5 l o w _\n2 l o w e s t _\n6 n e w e r _\n3 w i d e r _\n2 n e w _"
JM_CLAIM = "e r\ner _\nn e\nne w\nl o\nlo w\nnew er_\nlow _"


def test_a_link_in_the_books_notation_holds_and_typing_goes_into_the_url(page, app_url):  # noqa: F811
    page.goto(app_url + "/check?" + urlencode({"check_corpus": JM_CORPUS, "check_claim": JM_CLAIM}))
    _wait_text(
        page, "All 8 claimed merges hold under first_seen, with _ as a separate end-of-word marker, a symbol of its own"
    )
    _wait_text(page, "Read as 5 words with counts, spelled with spaces, _ at the end as a separate symbol (18 in all).")
    claim = page.get_by_label("Claimed merges", exact=False)
    claim.fill("e r\ner _")
    claim.press("Control+Enter")
    _wait_text(page, "All 2 claimed merges hold under first_seen")
    page.wait_for_function("() => new URLSearchParams(location.search).get('check_claim') === 'e r\\ner _'")
    params = parse_qs(urlparse(page.url).query)
    assert params["check_claim"] == ["e r\ner _"] and params["check_corpus"] == [JM_CORPUS]
    _shot(page, "check-jurafsky-martin")

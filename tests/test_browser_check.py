"""End-to-end: the Check an example page in the book's notation, from a link and into the URL, and at 1280x720
(a projector's screen): its tables, its messages and its way into the Train page (see test_browser.py)."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlencode, urlparse

import pytest

from .app_server import LONG_TASKS, settle
from .test_browser import _shot, app_url, browser, page  # noqa: F401 - fixtures
from .test_browser_provenance import _wait_text

pytestmark = pytest.mark.browser

JM_CORPUS = "5 l o w _\n2 l o w e s t _\n6 n e w e r _\n3 w i d e r _\n2 n e w _"
JM_CLAIM = "e r\ner _\nn e\nne w\nl o\nlo w\nnew er_\nlow _"
JM_WORDS = "low 5\nlowest 2\nnewer 6\nwider 3\nnew 2"


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


PROJECTOR = {"width": 1280, "height": 720}
DRAWN_TEXT = """(() => { const fill = CanvasRenderingContext2D.prototype.fillText; window.bpeDrawnText = [];
  CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
    window.bpeDrawnText.push(String(text)); return fill.call(this, text, ...rest); }; })();"""
"""An init script that records every string drawn on a canvas: st.dataframe draws its cells there, so the page's
text does not hold them."""
MAIN_SCROLL = "() => document.querySelector('[data-testid=stMain]').scrollTop"


@pytest.fixture()
def projector(browser, app_url):  # noqa: F811
    """A 1280x720 page (a projector's screen) that records the text drawn in tables (:data:`DRAWN_TEXT`) and
    fails its test if the app asks anything outside the machine."""
    context = browser.new_context(viewport=PROJECTOR)
    context.add_init_script(LONG_TASKS)
    context.add_init_script(DRAWN_TEXT)
    pg = context.new_page()
    outside: list[str] = []
    local = (app_url, "data:", "blob:")
    pg.on("request", lambda r: None if r.url.startswith(local) else outside.append(r.url))
    yield pg
    context.close()
    assert outside == []


def _check(pg, url: str, corpus: str, claim: str) -> None:
    pg.goto(url + "/check?" + urlencode({"check_corpus": corpus, "check_claim": claim}))
    _wait_text(pg, "Settings under which the whole claim holds")
    settle(pg)


def test_open_in_train_opens_the_train_page_at_its_top(projector, app_url):  # noqa: F811
    """Trial A, item 6: Streamlit keeps the main area's scroll position across pages, so the Train page opened
    1,240 px down. The second time, Train's result is cached and drawn at once (the case the trial hit)."""
    pg = projector
    for attempt in range(2):
        _check(pg, app_url, JM_WORDS, JM_CLAIM)
        button = pg.get_by_role("button", name=re.compile(r"min frequency 1$"))
        button.scroll_into_view_if_needed()
        assert pg.evaluate(MAIN_SCROLL) > 500
        button.click()
        heading = pg.get_by_role("heading", name=re.compile(r"^Merge 1 of 8"))
        heading.wait_for()
        settle(pg)
        assert pg.evaluate(MAIN_SCROLL) == 0, f"attempt {attempt + 1}"
        title = pg.get_by_role("heading", name="Train: watch BPE learn its merges").bounding_box()
        assert 0 <= title["y"] and heading.bounding_box()["y"] + 40 <= PROJECTOR["height"]
    _shot(pg, "check-open-in-train-1280")


def test_the_verdict_table_draws_no_none_and_the_check_speaks_one_notation(projector, app_url):  # noqa: F811
    """Trial A, items 7, 9, 10 and 13 in the browser at 1280x720."""
    pg = projector
    _check(pg, app_url, JM_WORDS, "e r\ner _\nn e\nne w\nl o\nlo w\nlow _\nnew er_\nl o 99")
    pg.locator("[data-testid='stDataFrame']").first.scroll_into_view_if_needed()
    settle(pg)
    drawn = pg.evaluate("() => window.bpeDrawnText")
    assert "claimed count" in drawn and "99" in drawn and "None" not in drawn  # item 7: blank, not a grey None
    _wait_text(pg, "Marker found in the claimed merges: _ as a separate end-of-word marker, a symbol of its own")
    _shot(pg, "check-verdict-blank-counts-1280")
    _check(pg, app_url, "5 ▁l o w\n2 ▁n e w", "▁ l\n▁l o")  # item 10: one marker in the example
    _wait_text(pg, "with ▁ as the start-of-word marker, a symbol of its own before each word (▁ l o w).")
    assert "▁ ▁" not in pg.locator("[data-testid='stMain']").inner_text()
    _shot(pg, "check-start-marker-1280")
    corpus = pg.get_by_label("Corpus: word counts", exact=False)
    corpus.fill("low -5\nlower 2")  # item 13: a bad count is named, not read as running text
    corpus.press("Control+Enter")
    _wait_text(pg, "line 1: 'low -5': the count '-5' is not a positive whole number. Most lines read as word counts")
    settle(pg)
    assert "Read as running text" not in pg.locator("[data-testid='stMain']").inner_text()
    _shot(pg, "check-bad-count-1280")

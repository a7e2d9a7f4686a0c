"""End-to-end (Chromium at 1280x720): a link to pasted text opens the same frame in another browser on a freshly
started server; an unknown path names the pages; a click on a blank spot draws no frame round the main area.

Uses the module fixtures of ``tests/test_browser.py`` (the app on a loopback port, Debian's Chromium). Every wait
is on something on screen, never a fixed sleep.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from ui.corpus import read_sample

from .app_server import LONG_TASKS, WAIT_MS, AppDidNotStart, running_app, settle
from .test_browser import ARTIFACTS, app_url, browser  # noqa: F401 - fixtures

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1280, "height": 720}
TEXT = read_sample("Tiny Shakespeare (1.1 MB)")[:2_000]
HEADING = re.compile(r"^Merge \d+ of \d+")


def _page(browser, url: str):  # noqa: F811 - the fixture, passed on
    context = browser.new_context(viewport=VIEWPORT)
    context.add_init_script(LONG_TASKS)
    pg = context.new_page()
    pg.goto(url)
    return pg


def _heading(pg, starts: str) -> str:
    loc = pg.get_by_role("heading", name=re.compile("^" + re.escape(starts)))
    loc.first.wait_for()
    return loc.first.inner_text()


def test_a_link_to_pasted_text_opens_the_same_frame_elsewhere(browser, app_url):  # noqa: F811
    sender = _page(browser, app_url)
    sender.get_by_role("radio", name="Paste").click()
    box = sender.get_by_label("Paste text")
    box.wait_for()
    box.fill(TEXT)
    sender.get_by_role("button", name="Train", exact=True).click()
    sender.get_by_text(f"Applied with Train: pasted text, {len(TEXT):,} characters").wait_for()
    for merge in (2, 3):
        sender.get_by_role("button", name="Next").click()
        heading = _heading(sender, f"Merge {merge} of ")
    settle(sender)
    sender.screenshot(path=str(ARTIFACTS / "link-sender.png"))
    link = sender.url
    assert "corpus_text=" in link and len(link) < 8_000
    sender.context.close()

    ARTIFACTS.mkdir(exist_ok=True)
    try:
        with open(ARTIFACTS / "streamlit-link.log", "w") as log, running_app(log=log) as fresh:
            receiver = _page(browser, fresh + link[len(app_url) :])  # another browser profile, a fresh server
            assert _heading(receiver, "Merge 3 of ") == heading
            # the box is drawn empty and filled a moment later (the widget's session-kept state arrives second)
            expect(receiver.get_by_label("Paste text")).to_have_value(TEXT, timeout=WAIT_MS)
            receiver.get_by_text(f"Applied with Train: pasted text, {len(TEXT):,} characters").wait_for()
            settle(receiver)
            receiver.screenshot(path=str(ARTIFACTS / "link-receiver.png"))
            receiver.context.close()
    except AppDidNotStart as exc:
        pytest.fail(f"{exc}; see test-artifacts/streamlit-link.log")


def test_an_unknown_path_names_the_pages(browser, app_url):  # noqa: F811
    pg = _page(browser, app_url + "/token_trees?present=true")
    note = pg.get_by_text("There is no page at /token_trees, so the Train page opened.")
    note.wait_for()
    assert "Did you mean Token trees (/provenance)?" in note.inner_text()
    pg.keyboard.press("Escape")  # Streamlit's own "Page not found" dialog
    pg.get_by_text("Page not found").wait_for(state="hidden")
    box = note.bounding_box()
    assert box is not None and box["y"] + box["height"] < VIEWPORT["height"]  # on the first screen
    pg.screenshot(path=str(ARTIFACTS / "unknown-path.png"))
    pg.context.close()


def test_a_click_on_a_blank_spot_draws_no_frame_round_the_main_area(browser, app_url):  # noqa: F811
    pg = _page(browser, app_url + "/?present=true")
    _heading(pg, "Merge 1 of ")
    settle(pg)
    pg.mouse.click(VIEWPORT["width"] - 40, 400)  # the right margin of the main area: nothing there
    pg.keyboard.press("ArrowRight")  # a key after the click: Chromium now draws focus rings (:focus-visible)
    _heading(pg, "Merge 2 of ")
    frame = pg.evaluate(
        """() => { const main = document.querySelector('[data-testid=stMain]');
                   return [document.activeElement === main, main.matches(':focus-visible'),
                           getComputedStyle(main, '::before').boxShadow, getComputedStyle(main).outlineStyle]; }"""
    )
    assert frame == [True, True, "none", "none"]
    pg.context.close()

"""In Chromium: right-to-left tokens keep the heading's order, a click on a token chooses its pre-token, and a
dropout link in presentation mode shows its samples on the first 1280x720 screen.

Uses the browser fixtures of :mod:`tests.test_browser` (its own app server for this module).
"""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from .app_server import LONG_TASKS, WAIT_MS, settle
from .test_browser import ARTIFACTS, _heading, _shot, app_url, browser, page  # noqa: F401  (pytest fixtures)

pytestmark = pytest.mark.browser

HEBREW = "של של של שלום שלום"
"""Lesson 1's corpus for the RTL check: its first merge is ש + ל → של."""

_CHAR_LEFT = """
(el) => {
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  const out = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.data.length; i++) {
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const box = range.getBoundingClientRect();
      if (box.width > 0) out.push([node.data[i], box.left]);
    }
  }
  return out;
}
"""
"""Every drawn character of an element, in logical (typed) order, with its left edge on screen in pixels."""


def test_rtl_heading_reads_left_to_right(page, app_url):  # noqa: F811
    _heading(page)  # the app is up (the fixture opened the Train page)
    query = f"lesson={quote('1. Merges form')}&lesson1_corpus={quote(HEBREW)}"
    page.goto(f"{app_url}/lessons?{query}")
    heading = page.get_by_role("heading", name=re.compile(r"^Merge 1 of \d+ .*ש.*→"))
    heading.first.wait_for()
    chars = heading.first.evaluate(_CHAR_LEFT)
    letters = [(c, x) for c, x in chars if c in "של→"]
    assert [c for c, _x in letters] == ["ש", "ל", "→", "ש", "ל"]  # logical order: ש + ל → של
    (_, first), (_, second), (_, arrow), (_, result_shin), (_, result_lamed) = letters
    # each token left of the next one, the result right of the arrow (without isolates the whole
    # run “ש” + “ל” → “של” is drawn right to left and the result lands left of the arrow)
    assert first < second < arrow < min(result_shin, result_lamed)
    assert result_lamed < result_shin  # inside a token Hebrew still reads right to left
    # the pair bars' first label (SVG text): ש left of ל as well
    tick = page.locator(".ytick text").filter(has_text="ש").first
    tick.wait_for(state="attached")
    page.locator(".js-plotly-plot").first.scroll_into_view_if_needed()
    # measured in the same call that finds a laid-out label: plotly may redraw its ticks at any moment, and a
    # handle taken earlier would then point at a detached label that never gets laid out
    starts = page.wait_for_function(
        """() => { const t = [...document.querySelectorAll('.ytick text')].find(e => e.textContent.includes('ש'));
                   if (!t || t.getNumberOfChars() === 0) return null;
                   return [...t.textContent].map((c, i) => [c, t.getStartPositionOfChar(i).x])
                                            .filter(([c]) => 'של'.includes(c)); }"""
    ).json_value()
    assert [c for c, _x in starts] == ["ש", "ל"] and starts[0][1] < starts[1][1]
    _shot(page, "rtl-heading")


def test_clicking_a_token_chooses_its_pre_token(page, app_url):  # noqa: F811
    page.goto(f"{app_url}/encode?encode_text={quote('the lowest newer')}")
    token = page.locator('.bpe-tok[data-piece="2"]').first
    token.wait_for()
    page.wait_for_function("document.body.dataset.bpeTokenPicker === 'on'")
    token.click()
    page.wait_for_function("location.search.includes('encode_piece=%233')")  # index 2, the third: #3 on screen
    picker = page.get_by_role("combobox", name=re.compile(r"^Pre-token \(or click"))
    expect(picker).to_have_value(re.compile(r"^#3 'newer' → "), timeout=WAIT_MS)
    page.get_by_text(re.compile(r"^Next: rank \d+ joins")).first.wait_for()
    _shot(page, "encode-token-click")


def test_presentation_mode_shows_the_dropout_samples_on_the_first_screen(browser, app_url):  # noqa: F811
    """Trial A item 4: at 1280x720 a dropout link in presentation mode put Sample 1 at y = 1,277 px. Now the
    dropout controls, the plain tokens and Sample 1 (its label and its whole row of tokens) are on the first
    screen, the page not scrolled."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    context.add_init_script(LONG_TASKS)
    pg = context.new_page()
    pg.goto(f"{app_url}/encode?encode_dropout=true&encode_dropout_p=30&encode_dropout_k=3&present=true")
    label = pg.get_by_text(re.compile(r"^Sample 1 \(seed 0\): \d+ tokens"))
    label.wait_for()
    rows = pg.locator(".bpe-row")
    rows.nth(3).wait_for()  # the plain tokens and three samples, first in the page
    settle(pg)
    assert pg.get_by_test_id("stMain").evaluate("e => e.scrollTop") == 0
    for what in (pg.get_by_text("p: chance of skipping each merge (%)"), pg.get_by_text("No dropout (Trained here)")):
        box = what.bounding_box()
        assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= 720
    top, row = label.bounding_box(), rows.nth(1).bounding_box()  # rows: the plain tokens, then sample 1
    assert top is not None and row is not None
    assert top["y"] < row["y"] and row["y"] + row["height"] <= 720, (top, row)
    pg.screenshot(path=str(ARTIFACTS / "presentation-encode-dropout-1280x720.png"))
    context.close()

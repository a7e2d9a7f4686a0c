"""In Chromium: right-to-left tokens keep the heading's order, and a click on a token chooses its pre-token.

Uses the browser fixtures of :mod:`tests.test_browser` (its own app server for this module).
"""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from .app_server import WAIT_MS
from .test_browser import _heading, _shot, app_url, browser, page  # noqa: F401  (pytest fixtures)

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

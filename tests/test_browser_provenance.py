"""End-to-end: click a token and see its merge tree, in the real app in Chromium (see test_browser.py)."""

from __future__ import annotations

import pytest

from .test_browser import _heading, _shot, app_url, browser, page  # noqa: F401 - fixtures

pytestmark = pytest.mark.browser


def _wait_text(pg, text: str) -> None:
    pg.wait_for_function("t => document.body.innerText.includes(t)", arg=text)


def test_click_a_token_on_encode_opens_its_tree_and_the_train_step(page):  # noqa: F811
    _heading(page)
    page.get_by_role("link", name="Encode").click()
    page.get_by_text("Click a token to see the merges that built it").wait_for()
    page.locator("[data-testid='stButtonGroup'] button", has_text="ell (136)").click()
    _wait_text(page, "is built from 3 base symbols by 2 merges (ranks 15 to 79)")
    page.locator(".js-plotly-plot .icicle").first.wait_for()
    labels = page.locator(".js-plotly-plot .icicle text").evaluate_all("els => els.map(e => e.textContent)")
    assert any("rank 79" in label for label in labels)
    _shot(page, "encode-token-tree")
    page.get_by_role("button", name="Open the Train page at merge 80").click()
    page.wait_for_function("() => document.body.innerText.includes('Merge 80 of 200')")
    assert "“e” + “ll” → “ell”" in _heading(page)


def test_click_a_row_of_the_merge_list_opens_its_tree(page, app_url):  # noqa: F811
    page.goto(app_url + "/provenance")
    page.get_by_text("Click a row to see its tree.").wait_for()
    _wait_text(page, "is built from 2 base symbols by 1 merge (rank 0)")  # the first rule until a row is picked
    grid = page.locator("[data-testid='stDataFrame']").first
    grid.wait_for()
    box = grid.bounding_box()
    row_height = 35
    # the selection column sits left of the first cell; row 2 (third rule, 't</w>') is below the header
    grid.click(position={"x": 12, "y": row_height * 3 + row_height / 2})
    _wait_text(page, "“t</w>” (id 59) is built from 2 base symbols by 1 merge (rank 2)")
    assert box is not None
    assert "token=59" in page.url
    _shot(page, "token-tree-row")

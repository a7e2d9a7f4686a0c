"""Regenerate the README screenshots: ``python3 docs/make_screenshots.py`` (needs Chromium and Playwright).

Starts the app on a loopback port, opens the Train page at merge 12 of the
default sample and the Encode page on its default sentence, and saves
``docs/train.png`` and ``docs/encode.png``; then the Train page at 1280x720 in
presentation mode at merge 12 (``docs/presentation.png``, the first screen only).
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.app_server import CHROMIUM_ARGS, LONG_TASKS, running_app, settle  # noqa: E402


def main() -> None:
    """Take both screenshots."""
    with running_app() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1440, "height": 1500})
        context.add_init_script(LONG_TASKS)
        page = context.new_page()
        page.goto(url + "/?train_step=12")
        page.get_by_role("heading", name="Merge 12 of 200").wait_for(timeout=60_000)
        page.locator(".js-plotly-plot").nth(2).wait_for()
        settle(page, 1000)
        page.screenshot(path=str(REPO / "docs" / "train.png"), full_page=True)
        page.goto(url + "/encode")
        page.get_by_label("Text to encode").wait_for(timeout=60_000)
        page.get_by_text("Round trip holds").wait_for()
        page.get_by_role("heading", name="Rule by rule").wait_for(timeout=60_000)
        settle(page, 1000)
        page.screenshot(path=str(REPO / "docs" / "encode.png"), full_page=True)
        present(browser, url)
        browser.close()


def present(browser, url: str) -> None:
    """The Train page as a projector shows it: 1280x720, presentation mode, merge 12."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    context.add_init_script(LONG_TASKS)
    page = context.new_page()
    page.goto(url + "/?present=true&train_step=12")
    page.get_by_role("heading", name="Merge 12 of 200").wait_for(timeout=60_000)
    page.locator(".js-plotly-plot").first.wait_for(timeout=60_000)
    settle(page, 1500)
    page.screenshot(path=str(REPO / "docs" / "presentation.png"))
    context.close()


if __name__ == "__main__":
    main()

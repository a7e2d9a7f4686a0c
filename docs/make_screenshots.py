"""Regenerate the README screenshots: ``python3 docs/make_screenshots.py`` (needs Chromium and Playwright).

Starts the app on a loopback port, opens the Train page at merge 12 of the
default sample and the Encode page on its default sentence, and saves
``docs/train.png`` and ``docs/encode.png``; then the Train page at 1280x720 in
presentation mode at merge 12 (``docs/presentation.png``, the first screen only); then the Languages page
with the Train page's table trained on the UDHR sample (GPT-2's pre-tokenizer, bytes, 2,000 merges): the
premium bars and Hindi tokenized (``docs/languages.png``), and the premiums over training
(``docs/languages-curves.png``). Chromium draws Devanagari with Debian's ``fonts-noto-core``
(``apt-get install -y fonts-noto-core``); without it Hindi shows as empty boxes.
"""

from __future__ import annotations

import sys
from pathlib import Path
from urllib.parse import urlencode

from playwright.sync_api import sync_playwright

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.app_server import CHROMIUM_ARGS, LONG_TASKS, running_app, settle  # noqa: E402


def main(only: str = "") -> None:
    """Take every screenshot, or (``only="languages"``, ``python3 docs/make_screenshots.py languages``) only the
    Languages page's two."""
    with running_app() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        if only == "languages":
            languages(browser, url)
            browser.close()
            return
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
        languages(browser, url)
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


LANGUAGES_LINK = {
    "corpus_sample": "UDHR in 84 languages + emoji (1.7 MB)",
    "set_pretokenizer": "gpt2",
    "set_unit": "byte",
    "set_budget": "2000",
}
"""The Languages page with the Train page's table trained on the 84 languages themselves."""


def languages(browser, url: str) -> None:
    """The Languages page: bars and a tokenized language, then the premium curves of a table trained on the UDHR."""
    context = browser.new_context(viewport={"width": 1440, "height": 1500})
    context.add_init_script(LONG_TASKS)
    page = context.new_page()
    page.goto(url + "/languages?" + urlencode(LANGUAGES_LINK))
    page.get_by_role("heading", name="Hindi, tokenized").wait_for(timeout=300_000)
    page.wait_for_function("() => document.body.innerText.includes('English had made')", timeout=300_000)
    page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot .bars .point').length >= 84")
    settle(page, 1500, timeout=300_000)
    page.screenshot(path=str(REPO / "docs" / "languages.png"))
    page.get_by_role("heading", name="Over training: who gets the merges").evaluate("h => h.scrollIntoView()")
    settle(page, 1500)
    page.screenshot(path=str(REPO / "docs" / "languages-curves.png"))
    context.close()


if __name__ == "__main__":
    main(*sys.argv[1:2])

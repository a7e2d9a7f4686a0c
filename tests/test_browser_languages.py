"""End-to-end: the Languages page and the Compare page with the real tokenizers, in Chromium at 1280x720 (a
projector's screen), presentation mode included (see test_browser.py). Every wait is on a condition on screen."""

from __future__ import annotations

import pytest

from .app_server import LONG_TASKS, settle
from .test_browser import _shot, app_url, browser  # noqa: F401 - fixtures

pytestmark = pytest.mark.browser

PROJECTOR = {"width": 1280, "height": 720}


@pytest.fixture()
def projector(browser, app_url):  # noqa: F811
    """A 1280x720 page that fails its test if the app asks anything outside the machine or opens a dialog."""
    context = browser.new_context(viewport=PROJECTOR)
    context.add_init_script(LONG_TASKS)
    pg = context.new_page()
    outside: list[str] = []
    dialogs: list[str] = []
    local = (app_url, "data:", "blob:")
    pg.on("request", lambda r: None if r.url.startswith(local) else outside.append(r.url))
    pg.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    yield pg
    context.close()
    assert outside == [] and dialogs == []


def _wait_text(pg, text: str) -> None:
    pg.wait_for_function("t => document.body.innerText.includes(t)", arg=text)


def _bars_drawn(pg, at_least: int) -> None:
    """Wait until the visible premium chart has drawn ``at_least`` bars."""
    pg.wait_for_function(
        "n => [...document.querySelectorAll('.js-plotly-plot')].some(g => g.offsetParent !== null"
        " && g.querySelectorAll('.bars .point').length >= n)",
        arg=at_least,
    )


def _nav_fits(pg) -> None:
    """The navigation row (seven links and the presentation toggle) stays inside the 1280 px screen."""
    right = pg.locator(".st-key-navigation").evaluate(
        "el => Math.max(...[...el.querySelectorAll('a, label')].map(e => e.getBoundingClientRect().right))"
    )
    assert right <= PROJECTOR["width"], right


def _readable(pg) -> None:
    """The visible premium chart names all 84 languages horizontally in 12 px or more, its "1× = English" label
    covers no bar, and the curves plot keeps nine tenths of its figure's width (its legend is below it)."""
    found = pg.evaluate(
        """() => {
          const g = [...document.querySelectorAll('.js-plotly-plot')].find(e => e.offsetParent !== null);
          const ticks = [...g.querySelectorAll('.yaxislayer-above .ytick text')];
          const label = [...g.querySelectorAll('.annotation')].find(a => a.textContent.includes('1× = English'));
          const box = label.getBoundingClientRect();
          const over = [...g.querySelectorAll('.bars .point path')].filter(p => {
            const r = p.getBoundingClientRect();
            return r.width > 0 && r.left < box.right && r.right > box.left && r.top < box.bottom && r.bottom > box.top;
          }).length;
          const curves = [...document.querySelectorAll('.js-plotly-plot')].find(
            e => e.querySelector('.xtitle') && e.querySelector('.xtitle').textContent.startsWith('merges used'));
          const plot = curves.querySelector('.nsewdrag').getBoundingClientRect().width;
          return {ticks: ticks.length, sizes: ticks.map(t => parseFloat(getComputedStyle(t).fontSize)),
                  turned: ticks.filter(t => (t.getAttribute('transform') || '').includes('rotate')).length,
                  over, plot, figure: curves.getBoundingClientRect().width};
        }"""
    )
    assert found["ticks"] == 84 and min(found["sizes"]) >= 12 and found["turned"] == 0, found
    assert found["over"] == 0, found
    assert found["plot"] >= 0.9 * found["figure"] - 70, found  # less the y axis's title and numbers


def test_languages_page_on_a_projector(projector, app_url):  # noqa: F811
    pg = projector
    pg.goto(app_url + "/languages")
    pg.get_by_role("heading", name="Languages: the token tax").wait_for()
    _wait_text(pg, "GPT-2: English takes 2,035 tokens. The dearest language is Burmese at 20.54×")
    _bars_drawn(pg, 84)
    _wait_text(pg, "Hindi, tokenized")
    _wait_text(pg, "GPT-2: 298 tokens here; the whole declaration 16,896 tokens, 8.30× English")
    pg.wait_for_function("() => document.querySelectorAll('.bpe-tok').length > 300")
    _nav_fits(pg)
    settle(pg, 1000)
    _shot(pg, "languages-1280")
    _readable(pg)
    # a click on the tallest GPT-2 bar (Burmese) picks that language and puts it in the link
    point = pg.evaluate(
        """() => { const g = [...document.querySelectorAll('.js-plotly-plot')].find(e => e.offsetParent !== null);
            const t = g.data.findIndex(tr => (tr.customdata || []).some(c => c[0] === 'mya'));
            const i = g.data[t].customdata.findIndex(c => c[0] === 'mya');
            const bar = g.querySelectorAll('.trace.bars')[t].querySelectorAll('.point')[i];
            bar.scrollIntoView({block: 'center'});
            const r = bar.getBoundingClientRect();
            return {x: r.x + r.width / 2, y: r.y + Math.min(r.height / 2, 20)}; }"""
    )
    pg.mouse.click(point["x"], point["y"])
    _wait_text(pg, "Burmese, tokenized")
    pg.wait_for_function("() => location.search.includes('lang=mya')")


def test_languages_and_compare_in_presentation_mode(projector, app_url):  # noqa: F811
    pg = projector
    pg.goto(app_url + "/languages?present=true&lang=jpn")
    pg.get_by_test_id("stExpandSidebarButton").wait_for()
    assert pg.get_by_role("switch", name="Presentation mode").is_checked()
    _bars_drawn(pg, 84)
    _wait_text(pg, "Japanese, tokenized")
    _nav_fits(pg)
    pg.get_by_role("tab", name="o200k_base").click()
    _wait_text(pg, "o200k_base: English takes 2,017 tokens.")
    _bars_drawn(pg, 84)
    _wait_text(pg, "English had made 90% of its whole saving by merge")
    settle(pg, 1000)
    _shot(pg, "languages-present")
    _readable(pg)

    pg.goto(app_url + "/compare?present=true")
    pg.get_by_role("heading", name="The test text under each run").wait_for()
    for heading in ("GPT-2: 10 tokens, 4.70 chars per token", "cl100k_base: 10 tokens, 4.70 chars per token",
                    "o200k_base: 9 tokens, 5.22 chars per token"):  # fmt: skip
        _wait_text(pg, heading)
    grid = pg.locator("[data-testid='stDataFrame']").first
    grid.wait_for()
    every = 33 + 36 + 10 + 10 + 9  # every run's coloured tokens
    pg.wait_for_function(f"() => document.querySelectorAll('.bpe-tok').length >= {every}")
    _nav_fits(pg)
    settle(pg, 1000)
    _shot(pg, "compare-present")

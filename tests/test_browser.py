"""End-to-end: the real app in Debian's Chromium, driven by Playwright.

Starts ``streamlit run app.py`` on a loopback port, then loads the default
sample, steps and plays through merges, encodes a sentence, uploads files
(a CRLF text with HTML in it, and a binary file) and checks what is on screen.
Screenshots go to ``test-artifacts/``. Skips when Chromium or Playwright is
missing, unless ``BPE_REQUIRE_BROWSER=1`` (set by ``.ci/run``) makes that a failure.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from .app_server import CHROMIUM_ARGS, LONG_TASKS, WAIT_MS, AppDidNotStart, patient, running_app, settle
from .conftest import REPO

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = REPO / "test-artifacts"
HOSTILE = "<script>alert(1)</script> <img src=x onerror=alert(2)>"


def _missing(reason: str) -> None:
    if os.environ.get("BPE_REQUIRE_BROWSER") == "1":
        pytest.fail(f"browser test required but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def app_url():
    """Run the app on a loopback port for the whole module."""
    ARTIFACTS.mkdir(exist_ok=True)
    with open(ARTIFACTS / "streamlit.log", "w") as log:
        try:
            with running_app(log=log) as url:
                yield url
        except AppDidNotStart as exc:
            pytest.fail(f"{exc}; see test-artifacts/streamlit.log")


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        _missing(f"Chromium is not installed at {CHROMIUM} (apt-get install -y chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("the playwright package is not installed")
    with sync_playwright() as p:
        b = patient(p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS))  # waits up to WAIT_MS
        yield b
        b.close()


@pytest.fixture()
def page(browser, app_url):
    context = browser.new_context(viewport={"width": 1440, "height": 1200})
    pg = context.new_page()
    dialogs: list[str] = []
    pg.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    pg.dialogs = dialogs  # type: ignore[attr-defined]
    outside: list[str] = []
    local = (app_url, "data:", "blob:")
    pg.on("request", lambda r: None if r.url.startswith(local) else outside.append(r.url))
    pg.goto(app_url)
    yield pg
    context.close()
    assert outside == [], "the app made requests outside the machine"


def _shot(pg, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    pg.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def _heading(pg) -> str:
    loc = pg.get_by_role("heading", name=re.compile(r"^Merge \d+ of \d+"))
    loc.first.wait_for()
    return loc.first.inner_text()


def _merge_number(pg) -> int:
    return int(re.match(r"Merge (\d+)", _heading(pg)).group(1))


def _settled_merge_number(pg, quiet: float = 1.0, limit: float = WAIT_MS / 1000) -> int:
    """The merge number once the page has stopped changing it for ``quiet`` seconds (the heading is
    drawn after the buttons, so right after a click it can still show the previous frame). The page
    watches its own heading (no sleep here); a heading that never settles within ``limit`` fails. It first waits
    for the app to finish its run: on a busy machine drawing a step can take longer than ``quiet``."""
    settle(pg, timeout=round(limit * 1000))
    pg.evaluate("() => { window.__settledText = undefined; }")
    pg.wait_for_function(
        """q => { const h = [...document.querySelectorAll('h1,h2,h3')].map(e => e.innerText)
                 .find(t => /^Merge \\d+ of \\d+/.test(t));
               const now = performance.now();
               if (h !== window.__settledText) { window.__settledText = h; window.__settledSince = now; }
               return !!h && now - window.__settledSince >= q; }""",
        arg=quiet * 1000,
        polling=100,
        timeout=limit * 1000,
    )
    return _merge_number(pg)


DEEP_LINKS = {
    "train": ("/?train_step=5", "Merge 5 of 200"),
    "encode": ("/encode?encode_text=lowest+newer", "Round trip holds"),
    "compare": ("/compare?cmp_n=3", "C: none/char"),
    "lessons": ("/lessons?lesson=3.+Blocked+merge", "3. Blocked merge"),
    "provenance": ("/provenance?tree_tokenizer=GPT-2&token=262", "is built from 4 base symbols by 3 merges"),
    "check": ("/check?check_pretokenizer=whitespace+%28no+%3C%2Fw%3E%29", "All 5 claimed merges hold"),
    "text": ("/?text=unbelievable+tokenizers", "Round trip holds"),
    "present": ("/?present=true&train_step=7", "Merge 7 of 200"),
}
"""For each page (and the ``?text=`` and presentation links): a shared link with query parameters,
and a text only that frame shows."""


@pytest.mark.parametrize("name", list(DEEP_LINKS))
def test_shared_link_on_a_fresh_server(browser, name):
    """The first request to a new server is a deep link with query parameters: it must open that frame,
    with the navigation (and, except on Lessons, the training sidebar) drawn by the shared set-up."""
    from playwright.sync_api import expect

    path, expected = DEEP_LINKS[name]
    ARTIFACTS.mkdir(exist_ok=True)
    with open(ARTIFACTS / f"streamlit-{name}.log", "w") as log, running_app(log=log) as url:
        context = browser.new_context(viewport={"width": 1440, "height": 1200})
        pg = context.new_page()
        pg.goto(url + path)
        pg.get_by_text(expected).first.wait_for()
        for title in ("Train", "Encode", "Compare", "Lessons"):
            pg.get_by_role("link", name=title).first.wait_for()
        if name == "text":  # the Encode page, with the text from the link (expect: the box may be filled later)
            expect(pg.get_by_label("Text to encode")).to_have_value("unbelievable tokenizers", timeout=WAIT_MS)
            expect(pg).to_have_url(re.compile(r"/encode\?.*encode_text=unbelievable"), timeout=WAIT_MS)
        if name == "present":  # the sidebar folded away, its expand button there
            pg.get_by_test_id("stExpandSidebarButton").wait_for()
            expect(pg.get_by_role("switch", name="Presentation mode")).to_be_checked(timeout=WAIT_MS)
            expect(pg.get_by_text("Applied with Train")).to_have_count(1, timeout=WAIT_MS)  # drawn, folded away
        elif name == "lessons":
            pg.get_by_text("Learned rules").wait_for()
            pg.get_by_text("Blocked rules").first.wait_for()
            pg.locator(".bpe-tok").first.wait_for()
            assert pg.locator(".bpe-fallback").count() == 0  # the lesson corpus has an 's': no out-of-alphabet box
            assert pg.get_by_text("Applied with Train").count() == 0  # Lessons hide the training sidebar
        else:
            pg.get_by_text("Applied with Train: Shakespeare excerpt").wait_for()  # the sidebar is there
        _shot(pg, f"deep-link-{name}")
        context.close()


def _wait_merge(pg, condition: str, timeout: int = WAIT_MS) -> int:
    """Wait until the heading's merge number ``n`` satisfies ``condition`` (JavaScript, e.g. ``n > 3``); return it."""
    pg.wait_for_function(
        "() => { const h = [...document.querySelectorAll('h1,h2,h3')].map(e => e.innerText)"
        ".find(t => /^Merge \\d+ of \\d+/.test(t)); if (!h) return false;"
        f" const n = parseInt(h.match(/^Merge (\\d+)/)[1]); return {condition}; }}",
        timeout=timeout,
    )
    return _merge_number(pg)


def _stays(pg, merge: int, ticks: int = 3) -> bool:
    """True when the merge number is still ``merge`` after the player had time for ``ticks`` steps (0.5 s each):
    waits for a change that must not come, instead of sleeping and looking once."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        _wait_merge(pg, f"n !== {merge}", timeout=int(ticks * 500 + 500))
    except PlaywrightTimeout:
        return True
    return False


def _idle(pg, quiet_ms: int = 500) -> None:
    """Wait until the app and the page's main thread have been quiet for ``quiet_ms`` (see :func:`settle`)."""
    settle(pg, quiet_ms)


SHORTCUT_BUTTONS = {"ArrowRight": "Next", "ArrowLeft": "Prev", "End": "Last", "Home": "First"}
"""The player button each key presses; its binding exists only once the button is drawn and enabled."""


def _press(pg, key: str, expected: str) -> None:
    """Press ``key`` with nothing focused and wait for the Train heading to start with ``expected``.

    Waits first for the button the key presses: Streamlit loads a widget's code on first use, so the
    buttons (and their key bindings) can appear a second or two after the heading."""
    from playwright.sync_api import expect

    _idle(pg)
    # a locator, looked up again until it holds: Streamlit may replace the button's element, and a handle
    # taken once could stay on a detached, disabled copy
    expect(pg.get_by_role("button", name=SHORTCUT_BUTTONS[key])).to_be_enabled(timeout=WAIT_MS)
    pg.keyboard.press(key)
    pg.wait_for_function("t => [...document.querySelectorAll('h3')].some(h => h.innerText.startsWith(t))", arg=expected)


def test_presentation_mode_keys_and_first_screen(browser, app_url):
    """At 1280x720 in presentation mode: the keys step the player, the winner, pair counts and rewritten
    words share the first screen, and the controls stay on screen when the page scrolls."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    context.add_init_script(LONG_TASKS)
    pg = context.new_page()
    pg.goto(app_url + "/?present=true")
    _heading(pg)
    for key, expected in [
        ("ArrowRight", "Merge 2 of 200"),
        ("ArrowRight", "Merge 3 of 200"),
        ("ArrowLeft", "Merge 2 of 200"),
        ("End", "Merge 200 of 200"),
        ("Home", "Merge 1 of 200"),
    ]:
        _press(pg, key, expected)
    assert "train_step=1" not in pg.url
    _idle(pg)
    pg.keyboard.press("Space")
    pg.get_by_role("button", name="Pause").wait_for()
    pg.wait_for_function("() => !document.body.innerText.includes('Merge 1 of 200')")
    _idle(pg, quiet_ms=0)
    pg.keyboard.press("Space")
    pg.get_by_role("button", name="Play").wait_for()
    stopped = _settled_merge_number(pg)
    assert stopped > 1
    _press(pg, "ArrowRight", f"Merge {stopped + 1} of 200")
    _idle(pg)
    for text in (re.compile(r"^Merge \d+ of 200"), "Pair counts before this merge", "rewritten"):
        box = pg.get_by_text(text).first.bounding_box()
        assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= 720, text
    first_word = pg.locator(".bpe-tok").first.bounding_box()
    assert first_word is not None and first_word["y"] + first_word["height"] <= 720
    assert pg.get_by_test_id("stSidebar").bounding_box()["width"] < 5  # folded away
    _shot(pg, "presentation-1280x720")
    pg.mouse.move(640, 400)
    pg.mouse.wheel(0, 900)
    pg.wait_for_function("() => document.querySelector('[data-testid=stMain]').scrollTop > 300")
    next_button = pg.get_by_role("button", name="Next").bounding_box()
    assert next_button is not None and 0 <= next_button["y"] < 200  # the controls stayed on screen
    pg.get_by_role("button", name="Next").click()
    pg.wait_for_function(f"() => document.body.innerText.includes('Merge {stopped + 2} of 200')")
    context.close()


def test_every_quick_press_is_one_step(browser, app_url):
    """Presses that come while the server is still drawing are not lost: ten presses of → sent back to back
    (faster than a step is drawn) end exactly ten merges on, then three quick clicks on Next three more and
    ← once one back. The browser counts them (ui/player_keys.js) and the server draws where they lead."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    pg = context.new_page()
    pg.goto(app_url + "/?present=true")
    assert _heading(pg).startswith("Merge 1 of 200")
    pg.wait_for_function("() => !!(window.bpePlayers && window.bpePlayers.train_step)")
    for _ in range(10):
        pg.keyboard.press("ArrowRight")
    _wait_merge(pg, "n >= 11")
    assert _settled_merge_number(pg) == 11
    for _ in range(3):
        pg.get_by_role("button", name="Next").click()
    pg.keyboard.press("ArrowLeft")
    _wait_merge(pg, "n >= 13")
    assert _settled_merge_number(pg) == 13
    assert "train_step=13" in pg.url
    context.close()


def test_train_page_steps_and_plays(page):
    assert _heading(page).startswith("Merge 1 of 200")
    page.get_by_text("Applied with Train: Shakespeare excerpt").wait_for()
    page.get_by_role("button", name="Next").click()
    page.wait_for_function("() => document.body.innerText.includes('Merge 2 of 200')")
    assert "“t” + “h”" in _heading(page)
    _shot(page, "train-step-2")
    for _ in range(3):  # Pause must stop where it is: never a step back, never a step more
        start = _merge_number(page)
        page.get_by_role("button", name="Play").click()
        page.get_by_role("button", name="Pause").wait_for()
        shown = _wait_merge(page, f"n > {start}")  # playing: the player has moved on by itself
        page.get_by_role("button", name="Pause").click()
        page.get_by_role("button", name="Play").wait_for()
        stopped = _settled_merge_number(page)
        assert stopped >= shown, "Pause moved the player back"
        assert _stays(page, stopped), "the player kept moving after Pause"
    page.get_by_role("button", name="Play").click()
    page.get_by_role("button", name="Pause").wait_for()
    before = _wait_merge(page, f"n >= {_merge_number(page) + 4}")
    page.get_by_role("button", name="First").click()
    _wait_merge(page, "n <= 2")
    page.get_by_role("button", name="Pause").click()
    page.get_by_role("button", name="Play").wait_for()
    assert _settled_merge_number(page) < before, "First during play was undone"
    assert page.locator(".js-plotly-plot").count() >= 3
    _shot(page, "train-playing")


def test_encode_page_colours_a_sentence(page):
    _heading(page)
    page.get_by_role("link", name="Encode").click()
    box = page.get_by_label("Text to encode")
    box.wait_for()
    sentence = "the lowest newer wider tokens, unbelievable"
    box.fill(sentence)
    box.press("Control+Enter")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.bpe-tok')].length > 8 && "
        "[...document.querySelectorAll('.bpe-tok')].map(e => e.firstChild.textContent).join('').includes('wider')",
    )
    page.get_by_text(str(len(sentence)), exact=True).first.wait_for()
    page.get_by_text("Round trip holds").wait_for()
    _shot(page, "encode")


def test_compare_page_with_two_runs(page):
    _heading(page)
    page.get_by_role("link", name="Compare").click()
    page.get_by_text("The tables first diverge at merge 1").wait_for()
    page.get_by_text(re.compile(r"B: gpt2/byte: \d+ tokens")).wait_for()
    page.get_by_role("tab", name="Compression").click()  # the curves live in their own tab
    page.locator(".js-plotly-plot").nth(1).wait_for()
    assert page.locator(".bpe-row").count() >= 2
    assert "cmp_n" not in page.url  # defaults stay out of the URL
    _shot(page, "compare")


def _upload(page, tmp_path: Path, name: str, data: bytes) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    page.get_by_text("Upload", exact=True).first.click()
    page.locator("input[type=file]").set_input_files(str(path))
    page.get_by_text(name).first.wait_for()
    page.get_by_role("button", name="Train").click()


def test_upload_crlf_text_with_html_is_shown_not_run(page, tmp_path):
    _heading(page)
    text = ("low lower newest widest\r\n" * 20 + (HOSTILE + "\r\n") * 10).encode("utf-8")
    _upload(page, tmp_path, "hostile.txt", text)
    page.get_by_text("Applied with Train: hostile.txt").wait_for()
    _heading(page)
    page.get_by_role("button", name="Last").click()
    page.wait_for_function(  # the last merge is drawn: "Merge N of N", its rewritten words in token boxes
        "() => [...document.querySelectorAll('h3')].some(h => /^Merge ([\\d,]+) of \\1 /.test(h.innerText))"
        " && document.querySelectorAll('.bpe-tok').length > 0",
    )
    _idle(page)
    assert page.locator("script:text('alert(1)')").count() == 0
    assert page.locator("img[src=x]").count() == 0
    page.get_by_role("link", name="Encode").click()
    box = page.get_by_label("Text to encode")
    box.wait_for()
    page.get_by_text("Trained on hostile.txt").wait_for()
    box.fill(HOSTILE)
    box.press("Control+Enter")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.bpe-tok')].map(e => e.firstChild.textContent).join('')"
        ".includes('<script>alert(1)</script>')",
    )
    assert page.locator("img[src=x]").count() == 0
    assert page.dialogs == []  # type: ignore[attr-defined]
    _shot(page, "upload-hostile")


def test_upload_binary_file_gets_a_clear_message(page, tmp_path):
    _heading(page)
    _upload(page, tmp_path, "image.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    page.get_by_text("looks like a binary file").wait_for()
    assert _heading(page).startswith("Merge 1 of 200")
    _shot(page, "upload-binary")


def test_session_names_are_text_not_markdown(page, tmp_path):
    """A session whose names hold a markdown image: shown as text, and nothing is fetched from outside."""
    import bpe_core
    from bpe_core.formats import export
    from ui.corpus import read_sample
    from ui.settings import TrainSettings

    name = "![t](http://example.invalid/x.png) **bold**"
    corpus = read_sample("Shakespeare excerpt (12 KB)")
    result = bpe_core.train(corpus, **TrainSettings().kwargs())
    ((_file, data),) = export(result, "session", name=name, corpus=corpus, corpus_name=name).items()
    path = tmp_path / "session.json"
    path.write_bytes(data)
    _heading(page)
    page.get_by_role("link", name="Encode").click()
    page.get_by_label("Text to encode").wait_for()
    page.get_by_text("Uploaded file", exact=True).click()
    page.locator("input[type=file]").last.set_input_files(str(path))
    page.get_by_text("is the one this session was trained on").wait_for()
    caption = page.get_by_text(re.compile(r"^Session ")).first
    assert caption.inner_text().count("![t](http://example.invalid/x.png) **bold**") == 1  # the code span
    assert caption.inner_text().replace("\u2060", "").count("![t](http://example.invalid/x.png) **bold**") == 2
    assert page.locator("img[src*='example.invalid']").count() == 0
    assert page.locator("a[href*='example.invalid']").count() == 0  # not even a bare link
    assert page.locator("strong", has_text="bold").count() == 0
    _shot(page, "encode-session-names")


def test_pasting_more_than_the_cap_points_to_upload(page):
    """A paste past the sidebar box's cap does not go in (Streamlit refuses the whole input event, so the
    tab never stalls on it); the box says so and sends longer text to Upload, and a paste of exactly the
    cap trains, with the sidebar saying the box is full. ``fill`` is one input event, as a paste is."""
    from ui.corpus import LONGER_TEXT, MAX_PASTE_CHARS

    _heading(page)
    book = (REPO / "sample_corpora" / "tinyshakespeare.txt").read_text(encoding="utf-8")[: MAX_PASTE_CHARS + 30_000]
    page.get_by_text("Paste", exact=True).first.click()
    box = page.get_by_label("Paste text")
    box.wait_for()
    box.fill("low lower")
    box.fill(book)  # 50,000 characters
    assert box.input_value() == "low lower"  # refused whole: what was there stays
    page.get_by_text(
        re.compile(
            rf"^Up to {MAX_PASTE_CHARS:,} characters \(a longer paste does not go in: [^)]+\); "
            r"for a whole book, choose Upload\."
        )
    ).wait_for()
    box.fill(book[:MAX_PASTE_CHARS])
    page.wait_for_function(
        "n => document.querySelector(\"textarea[aria-label='Paste text']\").value.length === n",
        arg=MAX_PASTE_CHARS,
    )
    page.get_by_role("button", name="Train").click()
    page.get_by_text(f"The paste box is full ({MAX_PASTE_CHARS:,} characters). {LONGER_TEXT}").wait_for()
    page.get_by_text(re.compile(rf"Applied with Train: pasted text, {MAX_PASTE_CHARS:,} characters")).wait_for()
    assert _wait_merge(page, "n === 1") == 1
    _shot(page, "paste-cap")


def test_word_count_upload_trains_on_the_counts(page, tmp_path):
    """A word-count file (`word count` per line, as `sort | uniq -c` or DuckDB would give) is a corpus: the
    textbook's four words train as if the text held each word that many times."""
    _heading(page)
    path = tmp_path / "counts.txt"
    path.write_text("low 5\nlower 2\nnewest 6\nwidest 3\n", encoding="utf-8")
    page.get_by_text("Word counts", exact=True).first.click()
    page.locator("input[type=file]").set_input_files(str(path))
    page.get_by_text("counts.txt").first.wait_for()
    page.get_by_role("button", name="Train").click()
    page.get_by_text("16 words (4 distinct)").wait_for()  # the sidebar names what was applied
    page.get_by_role("heading", name=re.compile(r"^Merge 1 of \d+ \(rank 0\): “e” \+ “s” → “es”$")).wait_for()
    distinct = page.get_by_test_id("stMetric").filter(has_text="distinct words")
    assert distinct.get_by_test_id("stMetricValue").inner_text() == "4"
    _shot(page, "word-counts")


def test_pair_bars_animate_between_steps(page):
    """Each step's bars are a new plotly chart (so plotly's own transition cannot run): the CSS animation built
    from the step shown before must reach the bars Chromium draws, one keyframes rule per bar."""
    assert _heading(page).startswith("Merge 1 of 200")
    bars = ".st-key-chart_pair_bars .bars .point path"
    page.locator(bars).first.wait_for()
    page.get_by_role("button", name="Next").click()
    page.wait_for_function(
        f"() => {{ const ps = [...document.querySelectorAll({bars!r})];"
        " return ps.length >= 5 && ps.every((p, i) => getComputedStyle(p).animationName === `bpe-bar-1-${i}`); }",
    )
    assert _heading(page).startswith("Merge 2 of 200")


def _on_first_screen(pg, box, what: str) -> None:
    assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= 720, (what, box)


def test_presentation_lessons_fit_the_first_screen(browser, app_url):
    """At 1280x720 in presentation mode each lesson's point is on the first screen: lesson 3's blocked rules
    (heading and table, above its rule-by-rule player); lesson 4's three token rows and round-trip verdicts, its
    fallback table no wider than the page. Lesson 1's pinned player bar is opaque: once the page scrolls, nothing
    shows above or through it."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    context.add_init_script(LONG_TASKS)
    pg = context.new_page()
    pg.goto(app_url + "/lessons?present=true")
    pg.get_by_role("radio", name="3. Blocked merge").click()
    pg.get_by_text("Blocked rules").wait_for()
    blocked = pg.locator(  # the table drawn right under the heading, in this run (not a stale element of lesson 1)
        '[data-testid=stElementContainer]:has(strong:text-is("Blocked rules")):not([data-stale=true])'
        " + [data-testid=stElementContainer]:not([data-stale=true]) [data-testid=stDataFrame]"
    )
    blocked.wait_for()
    _idle(pg)
    _on_first_screen(pg, pg.get_by_text("Blocked rules").bounding_box(), "Blocked rules heading")
    _on_first_screen(pg, blocked.bounding_box(), "Blocked rules table")
    _shot(pg, "presentation-lesson3-1280x720")

    pg.get_by_role("radio", name="4. Byte fallback").click()
    pg.get_by_text("round trip breaks").wait_for()
    pg.get_by_text("What each tokenizer did").wait_for()
    _idle(pg)
    rows = pg.locator(".bpe-row")
    assert rows.count() == 3
    for i in range(3):
        _on_first_screen(pg, rows.nth(i).bounding_box(), f"token row {i + 1}")
    verdicts = pg.get_by_text(re.compile(r"^round trip (holds|breaks)"))
    assert verdicts.count() == 3
    for i in range(3):
        _on_first_screen(pg, verdicts.nth(i).bounding_box(), f"verdict {i + 1}")
    table = pg.get_by_test_id("stDataFrame").last
    page_box = pg.get_by_test_id("stMainBlockContainer").bounding_box()
    table_box = table.bounding_box()
    assert table_box["x"] + table_box["width"] <= page_box["x"] + page_box["width"]
    scroll = table.evaluate("t => [t.querySelector('.dvn-scroller')].map(s => [s.scrollWidth, s.clientWidth])[0]")
    assert scroll[0] <= scroll[1], f"the fallback table scrolls sideways (its last column is cut): {scroll}"
    _shot(pg, "presentation-lesson4-1280x720")

    pg.get_by_role("radio", name="1. Merges form").click()
    next_button = pg.get_by_role("button", name="Next")
    next_button.wait_for()
    _idle(pg)
    bar = '[data-testid=stLayoutWrapper]:has(>[class*="st-key-player-controls"])'
    start = pg.evaluate("bar => document.querySelector(bar).getBoundingClientRect().top", bar)
    assert start > 100, f"lesson 1's player bar starts at {start} px: scrolling would not show whether it is pinned"
    # The wheel over the lesson's heading: over the Merges box (a number input) Streamlit keeps it from scrolling.
    pg.get_by_role("heading", name="1. Merges form").hover()
    pg.mouse.wheel(0, start + 200)
    pg.wait_for_function(  # scrolled past where the bar sat, so a pinned bar is now at the top of the screen
        "top => document.querySelector('[data-testid=stMain]').scrollTop > top + 100", arg=start
    )
    _idle(pg)
    covered = pg.evaluate(
        """bar => [100, 400, 640, 900, 1180].flatMap(x => [2, 20].map(y => {
             const e = document.elementFromPoint(x, y); return !!e && !!e.closest(bar); }))""",
        bar,
    )
    assert all(covered), f"the page shows above or through the pinned player bar: {covered}"
    background = next_button.evaluate("(b, bar) => getComputedStyle(b.closest(bar)).backgroundColor", bar)
    assert background == "rgb(255, 255, 255)"
    _shot(pg, "presentation-lesson1-scrolled-1280x720")
    context.close()


def test_compare_run_labels_wrap_at_spaces(browser, app_url):
    """Four runs beside the sidebar at 1280 px, and the real tokenizers shown by default in a row of their own: no
    run label is broken inside a word ('sepa rate')."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    context.add_init_script(LONG_TASKS)
    pg = context.new_page()
    pg.goto(app_url + "/compare?cmp_n=4")
    pg.get_by_text(re.compile(r"^D: gpt4/byte")).wait_for()
    pg.get_by_text(re.compile(r"^o200k_base: \d+ tokens")).wait_for()
    _idle(pg)
    _shot(pg, "compare-four-runs-1280")
    broken = pg.evaluate(
        """() => [...document.querySelectorAll('.st-key-wrap-columns strong')].map(s => {
             const t = s.firstChild; let i = 0; const out = [];
             for (const w of t.textContent.split(' ')) {
               const r = document.createRange(); r.setStart(t, i); r.setEnd(t, i + w.length);
               if (new Set([...r.getClientRects()].map(q => Math.round(q.top))).size > 1) out.push(w);
               i += w.length + 1;
             }
             return [t.textContent, out]; })"""
    )
    assert [label for label, _words in broken] == [
        "A: whitespace_eow/char/separate",
        "B: gpt2/byte",
        "C: none/char",
        "D: gpt4/byte",
        "GPT-2",
        "cl100k_base",
        "o200k_base",
    ]
    assert all(words == [] for _label, words in broken), broken
    context.close()

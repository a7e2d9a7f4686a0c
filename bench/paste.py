"""How long pasting N characters into the app's text boxes keeps a Chromium tab busy.

Run: ``python3 -m bench.paste [N ...]`` (default sizes 5k..200k). Starts the app
on a loopback port, opens Debian's Chromium with Playwright, and for each size
and each box (the sidebar's "Paste text" and the Encode page's "Text to
encode") pastes N characters of English prose the way a browser pastes: one
``insertText`` input event holding the whole text. It reports

* *paste*: from the paste until the tab answers again (a round trip through
  the page's main thread once the box holds all N characters);
* *apply*: from pressing Ctrl+Enter (the box's own "apply") until the page has
  drawn the result (the Encode page's token count, or the sidebar's "Applied
  with Train" caption naming the new text).

The caps ``MAX_PASTE_CHARS`` and ``MAX_ENCODE_CHARS`` in ``ui/corpus.py``
are chosen from these numbers; text larger than a cap goes to Upload, and the
boxes say so.
"""

from __future__ import annotations

import os
import sys
import time

from tests.app_server import CHROMIUM_ARGS, running_app

from .corpora import REPO

CHROMIUM = "/usr/bin/chromium"
SIZES = (5_000, 10_000, 20_000, 50_000, 100_000, 200_000)
TIMEOUT_MS = 300_000


def prose(n: int) -> str:
    """``n`` characters of Tiny Shakespeare (repeated as needed), as a user would paste a book."""
    text = (REPO / "sample_corpora" / "tinyshakespeare.txt").read_text(encoding="utf-8")
    return (text * (n // len(text) + 1))[:n]


def _paste(page, box, text: str) -> tuple[float, int]:
    """Paste ``text`` into ``box``; return the seconds until the tab answers with the text in the box
    (cut at the box's ``maxlength``, as a browser cuts a paste) and how many characters it holds."""
    box.click()
    box.press("Control+A")
    box.press("Delete")
    cap = int(box.get_attribute("maxlength") or len(text))
    held = min(cap, len(text))
    start = time.perf_counter()
    page.keyboard.insert_text(text)
    page.wait_for_function(
        "([label, n]) => { const b = document.querySelector(`textarea[aria-label='${label}']`);"
        " return b && b.value.length === n; }",
        arg=[box.get_attribute("aria-label"), held],
        timeout=TIMEOUT_MS,
    )
    page.evaluate("() => 1")
    return time.perf_counter() - start, held


def _apply(box, shown) -> float:
    """Press Ctrl+Enter in ``box``; seconds until the locator ``shown`` is on screen."""
    start = time.perf_counter()
    box.press("Control+Enter")
    shown.wait_for(timeout=TIMEOUT_MS)
    return time.perf_counter() - start


def measure(sizes: tuple[int, ...] = SIZES) -> list[tuple[str, int, int, float, float]]:
    """``(box, characters pasted, characters held, paste seconds, apply seconds)`` for each size and box."""
    from playwright.sync_api import sync_playwright

    rows = []
    with running_app() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for n in sizes:
            text = prose(n)
            page = browser.new_page(viewport={"width": 1440, "height": 1200})
            page.goto(url + "/?corpus_source=Paste")
            box = page.get_by_label("Paste text")
            box.wait_for(timeout=TIMEOUT_MS)
            pasted, held = _paste(page, box, text)
            applied = _apply(box, page.get_by_text(f"pasted text, {held:,} characters"))
            rows.append(("sidebar", n, held, pasted, applied))
            page.goto(url + "/encode")
            box = page.get_by_label("Text to encode")
            page.get_by_test_id("stMetricValue").first.wait_for(timeout=TIMEOUT_MS)
            pasted, held = _paste(page, box, text)
            applied = _apply(box, page.get_by_test_id("stMetricValue").first.get_by_text(f"{held:,}", exact=True))
            rows.append(("encode", n, held, pasted, applied))
            page.close()
        browser.close()
    return rows


def report(rows: list[tuple[str, int, int, float, float]], title: str) -> str:
    """The measurements as a markdown section, with the machine's load (a busy machine inflates every figure)."""
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    lines = [
        f"## {title}",
        "",
        f"`python3 -m bench.paste` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, Chromium "
        f"{CHROMIUM}, load average {load} (1/5/15 min) at the end: on a shared 2-core machine, so read the "
        "figures by how they grow with the size more than by their absolute value.",
        "",
        "| box | characters pasted | characters held | paste until the tab answers (s) | apply until drawn (s) |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    lines += [f"| {box} | {n:,} | {held:,} | {pasted:.2f} | {applied:.2f} |" for box, n, held, pasted, applied in rows]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    """``python3 -m bench.paste [--out FILE] [--title TEXT] [N ...]``: print (and append to FILE) the table."""
    out = argv[argv.index("--out") + 1] if "--out" in argv else None
    title = argv[argv.index("--title") + 1] if "--title" in argv else "Paste into the text boxes"
    sizes = tuple(int(a) for a in argv if a.isdigit()) or SIZES
    text = report(measure(sizes), title)
    print(text)
    if out:
        with open(out, "a", encoding="utf-8") as fh:
            fh.write("\n" + text)


if __name__ == "__main__":
    main(sys.argv[1:])

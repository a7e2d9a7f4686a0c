"""Step latency in the browser: a key press on the Train page until the new frame is on screen.

Usage::

    python3 -m bench.browser_step                  # Tiny Shakespeare, 2,000 merges, presentation mode, 40 steps
    python3 -m bench.browser_step --steps 10 --merges 200 --sample "Shakespeare excerpt (12 KB)"

Starts ``streamlit run app.py`` on a loopback port, opens the Train page in
Debian's Chromium at 1280x720 in presentation mode with the run given by the
link (sample and merge budget), waits for the training, then presses → (the
player's Next key) ``--steps`` times, once the previous frame has finished.
For each press it reports two times from the key press (``performance.now()``
in the page, just before Playwright sends the key):

* *heading*: the first animation frame after the heading changed to the next
  merge (what a class sees first);
* *frame*: the first animation frame after the whole step has been drawn (the
  app's "running" indicator is gone and the heading is the new one).

Medians and the 90th percentile are printed (milliseconds). Needs Chromium at
``/usr/bin/chromium`` and Playwright.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import urllib.parse
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.app_server import CHROMIUM_ARGS, running_app, settle  # noqa: E402

OBSERVER = """() => {
  window.__seen = [];
  const running = () => !!document.querySelector('[data-testid="stStatusWidgetRunningIcon"]');
  const look = () => {
    const h = [...document.querySelectorAll('h3')].find(e => /^Merge [0-9,]+ of/.test(e.innerText));
    const text = h ? h.innerText : '';
    const busy = running();
    requestAnimationFrame(() => window.__seen.push([text, busy, performance.now()]));
  };
  new MutationObserver(look).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""
"""Records, at the next animation frame after every DOM change, the Train heading and whether the app runs."""

DONE = """([target, t0]) => {
  const seen = window.__seen.filter(([text, , t]) => t >= t0 && text.startsWith(target));
  const heading = seen.length ? seen[0][2] : null;
  const idle = seen.filter(([, busy]) => !busy);
  return heading !== null && idle.length ? [heading - t0, idle[idle.length - 1][2] - t0] : null;
}"""
"""``[heading ms, frame ms]`` once the heading shows ``target`` and the app has gone idle, else null."""


def measure(sample: str, merges: int, steps: int, present: bool) -> tuple[list[float], list[float]]:
    """Press → ``steps`` times on the Train page; return the heading and frame times (ms) per press."""
    from playwright.sync_api import sync_playwright

    query = urllib.parse.urlencode(
        {"corpus_sample": sample, "set_budget": merges} | ({"present": "true"} if present else {})
    )
    headings: list[float] = []
    frames: list[float] = []
    with running_app() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto(f"{url}/?{query}")
        page.get_by_role("heading", name=f"Merge 1 of {merges:,}").wait_for(timeout=600_000)
        page.evaluate(OBSERVER)
        for k in range(2, steps + 2):
            settle(page, 600, timeout=120_000)  # no queued reruns left
            t0 = page.evaluate("performance.now()")
            page.keyboard.press("ArrowRight")
            handle = page.wait_for_function(DONE, arg=[f"Merge {k:,} of", t0], polling=50, timeout=60_000)
            heading, frame = handle.json_value()
            headings.append(heading)
            frames.append(frame)
        browser.close()
    return headings, frames


def _summary(name: str, times: list[float]) -> str:
    p90 = statistics.quantiles(times, n=10)[-1] if len(times) >= 2 else times[0]
    return f"{name}: median {statistics.median(times):.0f} ms, p90 {p90:.0f} ms, min {min(times):.0f} ms"


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments, measure, print one line per measure."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sample", default="Tiny Shakespeare (1.1 MB)", help="sidebar sample label")
    ap.add_argument("--merges", type=int, default=2000, help="merge budget")
    ap.add_argument("--steps", type=int, default=40, help="key presses to time")
    ap.add_argument("--normal", action="store_true", help="measure without presentation mode")
    args = ap.parse_args(argv)
    headings, frames = measure(args.sample, args.merges, args.steps, not args.normal)
    mode = "normal" if args.normal else "presentation"
    print(f"{args.sample}, {args.merges:,} merges, {mode} mode, {len(frames)} presses of →")
    print(_summary("key press to new heading on screen", headings))
    print(_summary("key press to the whole step drawn", frames))


if __name__ == "__main__":
    main()

"""Step latency in the browser: a key press on the Train page until the new frame is on screen.

Usage::

    python3 -m bench.browser_step                  # Tiny Shakespeare, 2,000 merges, presentation mode, 40 steps
    python3 -m bench.browser_step --steps 10 --merges 200 --sample "Shakespeare excerpt (12 KB)"
    python3 -m bench.browser_step --steps 20 --hog 1   # with one core kept busy by another process
    python3 -m bench.browser_step --burst 10 --gap 100 # 10 presses 100 ms apart: how many steps they advance

Starts ``streamlit run app.py`` on a loopback port, opens the Train page in
Debian's Chromium at 1280x720 in presentation mode with the run given by the
link (sample and merge budget), waits for the training, then presses → (the
player's Next key) ``--steps`` times, each once the previous frame has been
drawn and the page has been quiet for a moment. For each press it reports two
times from the key press (``performance.now()`` in the page, just before the
key is sent):

* *heading*: the first animation frame after the heading changed to the next
  merge (what a class sees first);
* *frame*: the first animation frame after the whole step has been drawn (the
  app's "running" indicator is gone and the heading is the new one).

Medians and the 90th percentile are printed (milliseconds), with the server's
CPU time per step (``/proc/<pid>/stat``) and the load average. A press whose
step never shows (within ``--timeout`` seconds) is counted as lost, not waited
for forever. ``--burst N --gap MS`` then presses → N times MS apart without
waiting and reports how many steps they advanced (every press is one step: N).
``--hog K`` runs K busy processes (one core each) for the whole measurement.
Needs Chromium at ``/usr/bin/chromium`` and Playwright; Linux (``/proc``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.class_load import cpu_seconds, server_pid  # noqa: E402
from bench.sections import BROWSER_STEP, RESULTS, write_lines  # noqa: E402
from tests.app_server import CHROMIUM_ARGS, LONG_TASKS, running_app, settle  # noqa: E402

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

SHOWN = """() => { const h = [...document.querySelectorAll('h3')].map(e => e.innerText)
  .find(t => /^Merge [0-9,]+ of/.test(t));
  return h ? parseInt(h.match(/^Merge ([0-9,]+)/)[1].replace(/,/g, '')) : 0; }"""
"""The merge number on screen."""


@dataclass
class StepRun:
    """What one measurement found: per press the heading and frame times (ms), presses lost, server CPU."""

    headings: list[float] = field(default_factory=list)
    frames: list[float] = field(default_factory=list)
    lost: int = 0
    cpu: float = 0.0
    burst: tuple[int, int] | None = None  # (presses, steps advanced)
    load: tuple[float, float] = (0.0, 0.0)


@contextmanager
def hogs(count: int) -> Iterator[None]:
    """Run ``count`` busy processes (each keeps one core busy) while the block runs."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()


def _press_and_time(page, k: int, timeout: float) -> tuple[float, float] | None:  # noqa: ANN001
    """Press → once; the heading and frame times of merge ``k``, or None when it never shows."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    t0 = page.evaluate("performance.now()")
    page.keyboard.press("ArrowRight")
    try:
        handle = page.wait_for_function(DONE, arg=[f"Merge {k:,} of", t0], polling=50, timeout=timeout * 1000)
    except PlaywrightTimeout:
        return None
    heading, frame = handle.json_value()
    return heading, frame


def _burst(page, presses: int, gap_ms: int, timeout: float) -> int:  # noqa: ANN001
    """Press → ``presses`` times ``gap_ms`` apart; the steps advanced once the heading stays put for 2 s."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    start = page.evaluate(SHOWN)
    for i in range(presses):
        page.keyboard.press("ArrowRight")
        if gap_ms and i < presses - 1:
            page.wait_for_timeout(gap_ms)  # the gap between presses is what is measured, not a wait for the app
    try:
        page.wait_for_function(f"() => ({SHOWN})() >= {start + presses}", polling=100, timeout=timeout * 1000)
    except PlaywrightTimeout:
        pass
    settle(page, 2000, timeout=int(timeout * 1000))
    return page.evaluate(SHOWN) - start


def measure(
    sample: str, merges: int, steps: int, present: bool, burst: tuple[int, int] | None = None, timeout: float = 120.0
) -> StepRun:
    """Press → ``steps`` times on the Train page (then the burst, if any); see the module docstring."""
    from playwright.sync_api import sync_playwright

    query = urllib.parse.urlencode(
        {"corpus_sample": sample, "set_budget": merges} | ({"present": "true"} if present else {})
    )
    run = StepRun(load=(os.getloadavg()[0], 0.0))
    with running_app(timeout=600) as url, sync_playwright() as p:
        pid = server_pid()
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 720})
        context.add_init_script(LONG_TASKS)
        page = context.new_page()
        page.goto(f"{url}/?{query}")
        page.get_by_role("heading", name=f"Merge 1 of {merges:,}").wait_for(timeout=600_000)
        page.evaluate(OBSERVER)
        settle(page, 600, timeout=600_000)
        cpu0, shown = cpu_seconds(pid), 0
        for _ in range(steps):
            settle(page, 300, timeout=int(timeout * 1000))  # no queued reruns left, the last frame drawn
            k = page.evaluate(SHOWN) + 1
            times = _press_and_time(page, k, timeout)
            if times is None:
                run.lost += 1
                continue
            shown += 1
            run.headings.append(times[0])
            run.frames.append(times[1])
        run.cpu = (cpu_seconds(pid) - cpu0) / max(shown, 1)
        if burst is not None:
            settle(page, 600, timeout=int(timeout * 1000))
            run.burst = (burst[0], _burst(page, burst[0], burst[1], timeout))
        browser.close()
    run.load = (run.load[0], os.getloadavg()[0])
    return run


def _summary(name: str, times: list[float]) -> str:
    if not times:
        return f"{name}: none"
    p90 = statistics.quantiles(times, n=10, method="inclusive")[-1] if len(times) >= 2 else times[0]
    return f"{name}: median {statistics.median(times):.0f} ms, p90 {p90:.0f} ms, min {min(times):.0f} ms"


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments, measure, print one line per measure."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sample", default="Tiny Shakespeare (1.1 MB)", help="sidebar sample label")
    ap.add_argument("--merges", type=int, default=2000, help="merge budget")
    ap.add_argument("--steps", type=int, default=40, help="key presses to time, one after another")
    ap.add_argument("--normal", action="store_true", help="measure without presentation mode")
    ap.add_argument("--burst", type=int, default=0, help="then press this many times without waiting")
    ap.add_argument("--gap", type=int, default=100, help="milliseconds between the burst's presses")
    ap.add_argument("--hog", type=int, default=0, help="busy processes to run meanwhile (one core each)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for one step before it is lost")
    ap.add_argument("--write", action="store_true", help="also write the figures into bench/RESULTS.md")
    args = ap.parse_args(argv)
    with hogs(args.hog):
        run = measure(
            args.sample,
            args.merges,
            args.steps,
            not args.normal,
            (args.burst, args.gap) if args.burst else None,
            args.timeout,
        )
    mode = "normal" if args.normal else "presentation"
    title = f"{args.sample}, {args.merges:,} merges, {mode} mode, 1280x720"
    title += f", {args.steps} presses of →, {args.hog} hog(s)"
    lines = [
        _summary("key press to new heading on screen", run.headings),
        _summary("key press to the whole step drawn", run.frames),
        f"server CPU per step: {run.cpu * 1000:.0f} ms; presses lost: {run.lost}",
    ]
    if run.burst is not None:
        lines.append(f"burst: {run.burst[0]} presses {args.gap} ms apart advanced {run.burst[1]} steps")
    lines.append(f"load average (1 min): {run.load[0]:.2f} at the start, {run.load[1]:.2f} at the end")
    print(title, *lines, sep="\n")
    if args.write:
        command = "python3 -m bench.browser_step " + " ".join(argv if argv is not None else sys.argv[1:])
        write_lines(RESULTS, BROWSER_STEP, title, command.strip(), lines)


if __name__ == "__main__":
    main()

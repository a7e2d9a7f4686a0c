"""A class on one server: N browser sessions open the same link at once, then each presses Next every 1.5 s.

Usage::

    python3 -m bench.class_load                      # N = 1, 10, 30; default sample, 200 merges; 10 presses each
    python3 -m bench.class_load --sessions 10 --presses 5
    python3 -m bench.class_load --sample "Tiny Shakespeare (1.1 MB)" --merges 2000 --sessions 1 10

For each N it starts a fresh ``streamlit run app.py`` (``tests.app_server.running_app``) and one Debian
Chromium, then:

1. *first visitor*: one page opens the link (presentation mode, 1280x720); the time until its first merge
   is on screen, and the server CPU that took (training included). That page is closed.
2. *open*: N pages (one browser context each, so N sessions) open the same, already trained link at once;
   the server CPU per session, and the wall time until the last one shows its first merge.
3. *press*: each page presses → (the player's Next key) every ``--interval`` seconds, ``--presses`` times,
   the pages staggered evenly over the interval. A page records when each press happened and when each new
   merge heading appeared (``performance.now()`` in the page); a press's latency runs until a heading at or
   past the step it leads to. Presses lost: steps short of where the presses lead, once the pages are still.
   The server CPU per press shown.

Server CPU is read from ``/proc/<pid>/stat`` (user + system time of the server process, every thread), RSS
from ``/proc/<pid>/status``. Chromium runs on the same machine, so wall times depend on it and on whatever
else runs; the server's CPU time is the figure that transfers to another machine. The load average is
printed with the results. Needs Chromium at ``/usr/bin/chromium`` and Playwright; Linux (``/proc``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.sections import CLASS, RESULTS, write_lines  # noqa: E402
from tests.app_server import CHROMIUM_ARGS, running_app  # noqa: E402

CHROMIUM = "/usr/bin/chromium"

RECORDER = """(() => {
  const HEADING = /^Merge ([0-9,]+) of/;
  window.__presses = [];
  window.__steps = [];
  addEventListener('keydown', e => { if (e.key === 'ArrowRight') window.__presses.push(performance.now()); }, true);
  let last = null;
  const look = () => {
    const h = [...document.querySelectorAll('h3')].map(e => e.innerText).find(t => HEADING.test(t));
    const step = h ? parseInt(h.match(HEADING)[1].replace(/,/g, ''), 10) : null;
    if (step !== null && step !== last) { last = step; window.__steps.push([performance.now(), step]); }
  };
  const start = () => new MutationObserver(look).observe(document.body, {subtree: true, childList: true,
    characterData: true});
  if (document.body) start(); else addEventListener('DOMContentLoaded', start);
})();"""
"""An init script: every → press and every change of the merge heading, with the page's clock."""

SHOWN = "() => window.__steps && window.__steps.length ? window.__steps[window.__steps.length - 1][1] : null"
"""The merge number on screen (null before the first)."""


# ------------------------------------------------------------------ the server process, read from /proc


def server_pid() -> int:
    """The ``streamlit run`` process this process started (a child whose command line names streamlit).

    Raises:
        LookupError: there is none.
    """
    me = os.getpid()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == me and b"streamlit" in cmdline:
            return int(entry.name)
    raise LookupError("no streamlit child process")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far, all its threads (``/proc/<pid>/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime: fields 14, 15


def memory_mb(pid: int) -> tuple[float, float]:
    """``(resident, peak resident)`` set size of ``pid`` in MB (``VmRSS``, ``VmHWM``)."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, rest = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            values[name] = int(rest.split()[0]) / 1024
    return values["VmRSS"], values["VmHWM"]


def wait_idle(pid: int, window: float = 2.0, share: float = 0.05, limit: float = 120.0) -> None:
    """Until process ``pid`` used under ``share`` of a core over ``window`` s (background work such as the
    preload of the bundled tokenizers has finished), or ``limit`` s have passed."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        before = cpu_seconds(pid)
        time.sleep(window)
        if cpu_seconds(pid) - before < share * window:
            return


# ------------------------------------------------------------------ one run at N sessions


@dataclass
class ClassRun:
    """What one N-session run measured (seconds, MB; latencies in ms)."""

    sessions: int
    presses: int
    first_wall: float = 0.0
    first_cpu: float = 0.0
    open_cpu: float = 0.0
    open_wall: float = 0.0
    press_cpu: float = 0.0
    lost: int = 0
    latencies: list[float] = field(default_factory=list)
    rss: float = 0.0
    peak: float = 0.0
    load: tuple[float, float] = (0.0, 0.0)

    def rows(self) -> list[tuple[str, str]]:
        """The run as (measure, value) lines."""
        lat = sorted(self.latencies)
        p90 = statistics.quantiles(lat, n=10, method="inclusive")[-1] if len(lat) >= 2 else float("nan")
        shown = self.sessions * self.presses - self.lost
        return [
            ("first visitor after a restart", f"{self.first_wall:.2f} s on screen, {self.first_cpu:.2f} s server CPU"),
            (
                f"{self.sessions} sessions open the trained link",
                f"{self.open_cpu / self.sessions * 1000:.0f} ms server CPU per session; last on screen after "
                f"{self.open_wall:.1f} s",
            ),
            (
                f"{self.sessions * self.presses} presses of → ({self.presses} per session)",
                f"{self.press_cpu / max(shown, 1) * 1000:.0f} ms server CPU per step shown; {self.lost} lost",
            ),
            (
                "press to new heading",
                f"median {statistics.median(lat):.0f} ms, p90 {p90:.0f} ms, max {lat[-1]:.0f} ms" if lat else "none",
            ),
            ("server memory", f"RSS {self.rss:.0f} MB at the end, peak {self.peak:.0f} MB"),
            ("load average (1 min)", f"{self.load[0]:.2f} at the start, {self.load[1]:.2f} at the end"),
        ]


@contextmanager
def _browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def _new_context(browser):  # noqa: ANN001, ANN202 (Playwright's types)
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    context.add_init_script(RECORDER)
    return context


def _open(browser, link: str, context=None):  # noqa: ANN001, ANN202
    """A new page (a new Streamlit session) on ``link``: in a context of its own (its own empty HTTP cache, as
    a student's first visit) unless ``context`` is given (pages of one context share the browser's cache)."""
    page = (context or _new_context(browser)).new_page()
    page.goto(link, wait_until="commit")
    return page


def _wait_first_step(pages: list, timeout: float) -> None:
    for page in pages:
        page.wait_for_function(f"() => ({SHOWN})() === 1", polling=100, timeout=timeout * 1000)


def _wait_ready(pages: list, timeout: float) -> None:
    """Until every page's Next button is drawn, and its key counter (ui/player_keys.js) mounted when the app
    has one (an app without one, such as an older version measured for comparison, answers the buttons'
    own shortcuts)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    counter = "() => !!(window.bpePlayers && Object.keys(window.bpePlayers).length)"
    for page in pages:
        page.wait_for_function("() => !!document.querySelector('.st-key-train_next button')", timeout=timeout * 1000)
        try:
            page.wait_for_function(counter, polling=100, timeout=10_000)
        except PlaywrightTimeout:
            continue


def _press_all(pages: list, presses: int, interval: float) -> None:
    """Press → on every page, ``presses`` times each, one every ``interval`` s, pages staggered evenly."""
    start = time.monotonic()
    schedule = sorted((k * interval + j * interval / len(pages), j) for k in range(presses) for j in range(len(pages)))
    for at, j in schedule:
        delay = start + at - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        pages[j].keyboard.press("ArrowRight")


def _wait_still(pages: list, target: int, quiet: float, limit: float) -> list[int]:
    """The step each page shows once all show ``target``, or once none has changed for ``quiet`` s."""
    deadline = time.monotonic() + limit
    last, since = None, time.monotonic()
    while True:
        shown = [page.evaluate(SHOWN) or 0 for page in pages]
        if shown != last:
            last, since = shown, time.monotonic()
        if all(s >= target for s in shown) or time.monotonic() - since > quiet or time.monotonic() > deadline:
            return shown
        time.sleep(0.25)


def _latencies(page, first: int) -> list[float]:  # noqa: ANN001
    """Per press: ms from the press until a heading at or past the step it leads to (first step ``first``)."""
    presses, steps = page.evaluate("[window.__presses, window.__steps]")
    out = []
    for i, pressed in enumerate(presses, start=1):
        shown = next((t for t, step in steps if t >= pressed and step >= first + i), None)
        if shown is not None:
            out.append(shown - pressed)
    return out


def run_class(
    n: int, link_query: str, presses: int, interval: float, timeout: float, one_context: bool = False, log=print
) -> ClassRun:
    """Measure one class of ``n`` sessions on a fresh server (see the module docstring); ``one_context``:
    the sessions' pages share one browser context, so the app's static files are fetched once, not n times."""
    run = ClassRun(n, presses, load=(os.getloadavg()[0], 0.0))
    with running_app(timeout=timeout) as url, _browser() as browser:
        pid = server_pid()
        link = f"{url}/?{link_query}"
        cpu0, t0 = cpu_seconds(pid), time.monotonic()
        first = _open(browser, link)
        _wait_first_step([first], timeout)
        run.first_wall, run.first_cpu = time.monotonic() - t0, cpu_seconds(pid) - cpu0
        shared = first.context if one_context else None
        if shared is None:
            first.context.close()
        else:
            first.close()
        log(f"  N={n}: first visitor {run.first_wall:.1f} s")
        wait_idle(pid)

        cpu0, t0 = cpu_seconds(pid), time.monotonic()
        pages = [_open(browser, link, shared) for _ in range(n)]
        _wait_first_step(pages, timeout)
        run.open_wall = time.monotonic() - t0
        _wait_ready(pages, timeout)
        _wait_still(pages, 1, quiet=2.0, limit=timeout)
        run.open_cpu = cpu_seconds(pid) - cpu0
        log(f"  N={n}: {n} sessions open after {run.open_wall:.1f} s")
        wait_idle(pid)

        cpu0 = cpu_seconds(pid)
        _press_all(pages, presses, interval)
        shown = _wait_still(pages, 1 + presses, quiet=max(10.0, 3 * interval), limit=timeout)
        run.press_cpu = cpu_seconds(pid) - cpu0
        run.lost = sum(max(0, 1 + presses - s) for s in shown)
        run.latencies = [ms for page in pages for ms in _latencies(page, 1)]
        run.rss, run.peak = memory_mb(pid)
        log(f"  N={n}: presses done, {run.lost} lost")
    run.load = (run.load[0], os.getloadavg()[0])
    return run


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments, run each N, print a table per N."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, nargs="+", default=[1, 10, 30], help="class sizes to run (N)")
    ap.add_argument("--sample", default="Shakespeare excerpt (12 KB)", help="sidebar sample label")
    ap.add_argument("--merges", type=int, default=200, help="merge budget")
    ap.add_argument("--presses", type=int, default=10, help="presses of → per session")
    ap.add_argument("--interval", type=float, default=1.5, help="seconds between one session's presses")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for any one thing")
    ap.add_argument(
        "--one-context",
        action="store_true",
        help="open the sessions as pages of one browser context (static files fetched once, as for returning "
        "visitors) instead of one context each (every session fetches them, as on a first visit); headless "
        "Chromium serves key presses to the background tabs of one context slowly, so keep N to 10 or so",
    )
    ap.add_argument("--write", action="store_true", help="also write the figures into bench/RESULTS.md")
    args = ap.parse_args(argv)
    query = urllib.parse.urlencode({"corpus_sample": args.sample, "set_budget": args.merges, "present": "true"})
    where = "pages of one browser context" if args.one_context else "one browser context per session"
    title = f"{args.sample}, {args.merges:,} merges, presentation mode at 1280x720, {where}"
    print(f"{title}, {os.cpu_count()} cores")
    lines = []
    for n in args.sessions:
        log = lambda message: print(message, file=sys.stderr)  # noqa: E731
        run = run_class(n, query, args.presses, args.interval, args.timeout, args.one_context, log=log)
        print(f"\nN = {n}")
        for name, value in run.rows():
            print(f"  {name}: {value}")
        lines.append(f"N = {n}: " + "; ".join(f"{name} {value}" for name, value in run.rows()))
    if args.write:
        command = "python3 -m bench.class_load " + " ".join(argv if argv is not None else sys.argv[1:])
        write_lines(RESULTS, CLASS, title, command.strip(), lines)


if __name__ == "__main__":
    main()

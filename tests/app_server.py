"""Run the app on a free loopback port for a browser (used by the browser test and docs/make_screenshots.py)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext

REPO = Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
"""Flags for Debian's Chromium in a container with a closed network."""

PATIENCE = float(os.environ.get("BPE_TEST_PATIENCE", "1"))
"""Multiplies every wait of the test suite (``BPE_TEST_PATIENCE``, default 1). The waits below are sized for a
2-core machine whose cores are both kept busy by other work; raise it on a slower or busier machine. A wait is
a condition on screen or a process ending, so a generous one costs nothing when things go well."""


def waited(seconds: float) -> float:
    """``seconds`` scaled by :data:`PATIENCE`: the longest a test waits for something that takes ``seconds`` at
    most on a busy 2-core machine."""
    return seconds * PATIENCE


WAIT_MS = round(waited(120) * 1000)
"""Playwright's timeout for every wait, click and navigation in the browser tests (ms): a page of this app
that is not drawn within two minutes is broken, not slow."""

APP_START_S = waited(120)
"""Seconds ``streamlit run`` gets to answer its health check (the first start imports Streamlit, pandas and
plotly from a cold disk cache)."""


def patient(browser: Browser) -> Browser:
    """Make every context ``browser.new_context`` opens wait up to :data:`WAIT_MS` (Playwright's default is
    30 s), for the tests' own contexts and the shared ``page`` fixture alike; return ``browser``."""
    new_context = browser.new_context

    def new_patient_context(**kwargs: object) -> BrowserContext:
        context = new_context(**kwargs)
        context.set_default_timeout(WAIT_MS)
        context.set_default_navigation_timeout(WAIT_MS)
        return context

    browser.new_context = new_patient_context
    return browser


class AppDidNotStart(RuntimeError):
    """``streamlit run`` did not answer its health check in time."""


@contextmanager
def running_app(log: IO[str] | None = None, timeout: float = APP_START_S) -> Iterator[str]:
    """Start ``streamlit run app.py`` on a free 127.0.0.1 port; yield its URL; stop it afterwards.

    Args:
        log: where the server's output goes (discarded by default).
        timeout: seconds to wait for ``/_stcore/health``.

    Raises:
        AppDidNotStart: no healthy answer within ``timeout``.
    """
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "app.py",
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
    ]
    out = log if log is not None else subprocess.DEVNULL
    proc = subprocess.Popen(command, cwd=REPO, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:  # e.g. another test's server took the port in the meantime
                raise AppDidNotStart(f"{' '.join(command)} ended with exit code {proc.returncode}")
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=5) as r:
                    if r.status == 200 and proc.poll() is None:
                        break
            except OSError:
                if time.monotonic() > deadline:
                    raise AppDidNotStart(f"{' '.join(command)} gave no healthy answer in {timeout} s") from None
                time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=waited(60))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


LONG_TASKS = """window.__longTaskEnd = 0;
new PerformanceObserver(list => { for (const e of list.getEntries())
  window.__longTaskEnd = Math.max(window.__longTaskEnd, e.startTime + e.duration); })
  .observe({type: 'longtask', buffered: true});"""
"""An init script (``context.add_init_script``) that records when the page's main thread last finished a long
task (over 50 ms): loading widget code and drawing charts."""


def settle(page, quiet_ms: int = 500, timeout: int = WAIT_MS) -> None:
    """Wait until the app has not been running, and the page's main thread has run no long task, for
    ``quiet_ms``: a key pressed while either is busy may be dropped, and a screenshot would catch a half-drawn
    page. Long tasks are seen only where :data:`LONG_TASKS` was added as an init script."""
    page.wait_for_function(
        f"""() => {{
          const busy = !!document.querySelector('[data-testid="stStatusWidgetRunningIcon"]');
          const now = performance.now();
          if (busy || window.__idleSince === undefined) window.__idleSince = now;
          const drawn = now - (window.__longTaskEnd || 0);
          return !busy && now - window.__idleSince > {quiet_ms} && drawn > Math.max({quiet_ms}, 300);
        }}""",
        polling=100,
        timeout=timeout,
    )

"""Run the app on a free loopback port for a browser (used by the browser test and docs/make_screenshots.py)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

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


class AppDidNotStart(RuntimeError):
    """``streamlit run`` did not answer its health check in time."""


@contextmanager
def running_app(log: IO[str] | None = None, timeout: float = 60.0) -> Iterator[str]:
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
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=1) as r:
                    if r.status == 200:
                        break
            except OSError:
                if time.monotonic() > deadline:
                    raise AppDidNotStart(f"{' '.join(command)} gave no healthy answer in {timeout} s") from None
                time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=20)


LONG_TASKS = """window.__longTaskEnd = 0;
new PerformanceObserver(list => { for (const e of list.getEntries())
  window.__longTaskEnd = Math.max(window.__longTaskEnd, e.startTime + e.duration); })
  .observe({type: 'longtask', buffered: true});"""
"""An init script (``context.add_init_script``) that records when the page's main thread last finished a long
task (over 50 ms): loading widget code and drawing charts."""


def settle(page, quiet_ms: int = 500, timeout: int = 60_000) -> None:
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

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

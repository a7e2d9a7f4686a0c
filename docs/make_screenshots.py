"""Regenerate the README screenshots: ``python3 docs/make_screenshots.py`` (needs Chromium and Playwright).

Starts the app on a loopback port, opens the Train page at merge 12 of the
default sample and the Encode page on a sentence, and saves ``docs/train.png``
and ``docs/encode.png``.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

REPO = Path(__file__).resolve().parents[1]
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def main() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [
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
        ],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(url + "/_stcore/health", timeout=1)
                break
            except OSError:
                time.sleep(0.5)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            page = browser.new_page(viewport={"width": 1440, "height": 1500})
            page.goto(url + "/?train_step=12")
            page.get_by_role("heading", name="Merge 12 of 200").wait_for(timeout=60_000)
            page.locator(".js-plotly-plot").nth(2).wait_for()
            page.wait_for_timeout(1500)
            page.screenshot(path=str(REPO / "docs" / "train.png"), full_page=True)
            page.goto(url + "/encode")
            box = page.get_by_label("Text to encode")
            box.wait_for(timeout=60_000)
            page.get_by_text("Round trip holds").wait_for()
            page.get_by_text("Rule by rule").wait_for()
            page.wait_for_timeout(1500)
            page.screenshot(path=str(REPO / "docs" / "encode.png"), full_page=True)
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=20)


if __name__ == "__main__":
    main()

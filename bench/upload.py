"""The sidebar's 50 MB text upload, measured: decode and count in one streaming pass, then 2,000 merges with the trace.

Run ``python3 -m bench.upload`` (``--mb 50``, ``--merges 2000``, ``--kind diverse|repeated``). Each measurement
runs in a fresh child process, which builds the upload's bytes, then reports as JSON: the seconds (wall-clock and
CPU) to count (:func:`bpe_core.count_utf8`, as the app's progress bar shows it) and to train
(:func:`bpe_core.train`, full trace), the distinct words, and the resident memory (``VmRSS``/``VmHWM``) after
building the bytes, after counting and at the peak. The app holds the upload's bytes anyway; what counting and
training add on top of them is ``added_mb`` (``training_added_mb``: what the training alone adds).

Upload kinds, built from the shared corpora (English, Wikipedia, 84 languages, code):

* ``repeated``: the corpora one after another, repeated to the size (their 180k distinct words);
* ``diverse``: the same, but in each repetition every tenth word gets a suffix naming the repetition, so the
  number of distinct words keeps growing with the size as in a real corpus (about 2.5 million at 50 MB).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

from .corpora import REPO, read_corpus

NAMES = ("tinyshakespeare", "wikitext2-test", "taylorswift", "udhr-multiscript", "code")


def build(mb: float, kind: str) -> bytes:
    """``mb`` megabytes (10**6 bytes) of UTF-8 text of the given kind (see the module docstring)."""
    base = "\n".join(read_corpus(name) for name in NAMES)
    size = int(mb * 1e6)
    parts: list[bytes] = []
    total = 0
    k = 0
    while total < size:
        if kind == "diverse":
            words = base.split(" ")
            words[k % 10 :: 10] = [w + _suffix(k) for w in words[k % 10 :: 10]]
            chunk = " ".join(words).encode()
        else:
            chunk = base.encode()
        parts.append(chunk)
        total += len(chunk)
        k += 1
    data = b"".join(parts)[:size]
    return data[: len(data.decode("utf-8", "ignore").encode())]  # no character cut at the end


def _suffix(k: int) -> str:
    letters = ""
    k += 1
    while k:
        k, r = divmod(k - 1, 26)
        letters = chr(ord("a") + r) + letters
    return letters


def _memory() -> dict[str, float]:
    fields = {}
    with open("/proc/self/status") as fh:
        for line in fh:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                fields[key] = int(value.split()[0]) / 1024
    return fields


def child(mb: float, kind: str, merges: int, pretokenizer: str) -> dict[str, object]:
    """Build the upload, then count and train it as the app does; the numbers as a dict."""
    import bpe_core

    data = build(mb, kind)
    after_bytes = _memory()["VmRSS"]
    start, cpu = time.perf_counter(), time.process_time()
    counts = bpe_core.count_utf8(data, pretokenizer)
    counted, count_cpu = time.perf_counter() - start, time.process_time() - cpu
    after_count = _memory()["VmRSS"]
    start, cpu = time.perf_counter(), time.process_time()
    unit = "char" if pretokenizer.startswith("whitespace") else "byte"
    result = bpe_core.train(counts, num_merges=merges, pretokenizer=pretokenizer, unit=unit)
    trained, train_cpu = time.perf_counter() - start, time.process_time() - cpu
    mem = _memory()
    return {
        "mb": len(data) / 1e6,
        "kind": kind,
        "pretokenizer": pretokenizer,
        "distinct_words": len(counts),
        "merges": len(result.merges),
        "count_s": round(counted, 2),
        "train_s": round(trained, 2),
        "count_cpu_s": round(count_cpu, 2),
        "train_cpu_s": round(train_cpu, 2),
        "rss_bytes_mb": round(after_bytes),
        "rss_counted_mb": round(after_count),
        "peak_mb": round(mem["VmHWM"]),
        "added_mb": round(mem["VmHWM"] - after_bytes),
        "training_added_mb": round(mem["VmHWM"] - after_count),
    }


def app_child(mb: float, kind: str, merges: int, pretokenizer: str) -> dict[str, object]:
    """The same upload through the app (AppTest, server side): Upload, set the budget, press Train, until the first
    Train step is drawn. Memory: what the session grew by from the first page to the end (bytes held included)."""
    from streamlit.testing.v1 import AppTest

    from ui import state

    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=900).run()
    data = build(mb, kind)
    base = _memory()["VmRSS"]
    at.segmented_control(key=state.SOURCE).set_value("Upload").run()
    at.file_uploader(key=state.UPLOAD).set_value(("upload.txt", data, "text/plain"))
    at.selectbox(key=state.PRETOKENIZER).set_value(pretokenizer)
    at.radio(key=state.UNIT).set_value("char" if pretokenizer.startswith("whitespace") else "byte")
    at.number_input(key=state.BUDGET).set_value(merges)
    del data
    start, cpu = time.perf_counter(), time.process_time()
    next(b for b in at.button if b.label == "Train").click()
    at.run()
    seconds, cpu_s = time.perf_counter() - start, time.process_time() - cpu
    mem = _memory()
    return {
        "app": True,
        "mb": mb,
        "kind": kind,
        "pretokenizer": pretokenizer,
        "first_step": at.subheader[0].value if at.subheader else None,
        "errors": [e.value for e in (*at.error, *at.sidebar.error)],
        "train_press_s": round(seconds, 2),
        "train_press_cpu_s": round(cpu_s, 2),
        "peak_mb": round(mem["VmHWM"]),
        "added_mb": round(mem["VmHWM"] - base),
    }


def measure(mb: float, kind: str, merges: int, pretokenizer: str, app: bool = False) -> dict[str, object]:
    """:func:`child` (or :func:`app_child`) in a fresh process (so its peak memory is its own)."""
    function = "app_child" if app else "child"
    code = (
        f"import json, sys; from bench.upload import {function}; "
        f"print(json.dumps({function}({mb!r}, {kind!r}, {merges!r}, {pretokenizer!r})))"
    )
    run = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    return json.loads(run.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.upload", description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=50.0)
    parser.add_argument("--merges", type=int, default=2000)
    parser.add_argument("--kind", choices=["diverse", "repeated"], action="append")
    parser.add_argument("--pretokenizer", action="append")
    parser.add_argument("--app", action="store_true", help="also through the app (AppTest): upload, press Train")
    args = parser.parse_args(argv)
    for kind in args.kind or ["repeated", "diverse"]:
        for pretokenizer in args.pretokenizer or ["whitespace_eow", "gpt2"]:
            print(json.dumps(measure(args.mb, kind, args.merges, pretokenizer)), flush=True)
            if args.app:
                print(json.dumps(measure(args.mb, kind, args.merges, pretokenizer, app=True)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Measure the per-item memory sizes behind ``train(max_memory=...)`` and check the estimates against real runs.

Usage::

    python3 -m bench.memory_sizes            # the constants, then estimate vs tracemalloc vs RSS on real corpora
    python3 -m bench.memory_sizes --quick    # smaller inputs

Each constant of :mod:`bpe_core.memory` is measured with ``tracemalloc`` on a
synthetic corpus built so that one kind of item dominates, at ``n`` and ``4n``
items: the constant is the difference of the two peaks divided by ``3n``, so
fixed costs drop out, less the items already measured. Then, on the benchmark
corpora and on the hostile inputs of issue 18, each training runs in a fresh
child process and prints what the budget estimated (``MemoryBudget.held`` with
its slack), its ``tracemalloc`` peak and its RSS peak growth: the estimate must
not fall below the RSS growth.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tracemalloc
from collections.abc import Callable
from typing import Any

from .corpora import REPO

MB = 2**20


def _peak(fn: Callable[[], Any]) -> int:
    """The ``tracemalloc`` peak (bytes) of ``fn()`` over what was traced before it."""
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    result = fn()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    del result
    return peak


def _slope(make: Callable[[int], Any], run: Callable[[Any], Any], n: int) -> float:
    """``(peak(4n) - peak(n)) / 3n``: bytes per item of ``run(make(size))``."""
    small, large = make(n), make(4 * n)
    return (_peak(lambda: run(large)) - _peak(lambda: run(small))) / (3 * n)


def _distinct_words(count: int, length: int, alphabet: str, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    words: dict[str, None] = {}
    while len(words) < count:
        words["".join(rng.choices(alphabet, k=length))] = None
    return list(words)


def measure(n: int) -> dict[str, float]:
    """Every constant, measured (bytes), as :mod:`bpe_core.memory` names them."""
    import bpe_core
    from bpe_core.text.corpus import word_counts

    letters = "abcdefghijklmnopqrstuvwxyz"
    out: dict[str, float] = {}
    text_of = " ".join

    def string_bytes(words: list[str]) -> float:
        return sum(map(sys.getsizeof, words)) / len(words)

    words8 = _distinct_words(4 * n, 8, letters)
    out["COUNTED_WORD_BYTES"] = _slope(lambda k: text_of(words8[:k]), lambda t: word_counts(t, "whitespace"), n) - (
        string_bytes(words8)
    )

    def train_small(corpus: Any) -> Any:
        return bpe_core.train(corpus, num_merges=1, pretokenizer="whitespace_eow", end_of_word="attached")

    rng = random.Random(2)
    one_word = "".join(rng.choices(letters, k=4 * n * 8))
    position = _slope(lambda k: one_word[: k * 8], train_small, n) / 8
    out["POSITION_BYTES"] = position
    word_total = _slope(lambda k: text_of(words8[:k]), train_small, n)
    out["WORD_BYTES"] = word_total - 8 * position - out["COUNTED_WORD_BYTES"] - string_bytes(words8)
    wide = "".join(chr(c) for c in range(0x4E00, 0x4E00 + 3000))
    pairs = _distinct_words(4 * n, 2, wide)
    pair_total = _slope(lambda k: text_of(pairs[:k]), train_small, n)
    out["PAIR_BYTES"] = pair_total - 2 * position - out["WORD_BYTES"] - out["COUNTED_WORD_BYTES"] - string_bytes(pairs)
    out["SITE_BYTES"] = _site_bytes()
    return out


def _site_bytes() -> float:
    """Bytes the merges keep per occurrence they visit: 5,000 merges of Tiny Shakespeare, trace on."""
    import bpe_core
    from bpe_core.training import trainer

    seen = {"sites": 0, "grown": 0}
    run, merge = trainer._Trainer.run, trainer._Trainer._merge

    def counting_merge(self, pk, *args):  # type: ignore[no-untyped-def]
        seen["sites"] += len(self.index[pk])
        return merge(self, pk, *args)

    def traced_run(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        before = tracemalloc.get_traced_memory()[0]
        try:
            return run(self, *args, **kwargs)
        finally:
            seen["grown"] = tracemalloc.get_traced_memory()[0] - before

    text = (REPO / "sample_corpora" / "tinyshakespeare.txt").read_text(encoding="utf-8")
    trainer._Trainer.run, trainer._Trainer._merge = traced_run, counting_merge
    try:
        tracemalloc.start()
        bpe_core.train(text, num_merges=5000, pretokenizer="whitespace_eow")
        tracemalloc.stop()
    finally:
        trainer._Trainer.run, trainer._Trainer._merge = run, merge
    return seen["grown"] / seen["sites"]


CHECKS: dict[str, str] = {
    "tinyshakespeare, 5,000 merges": "text = corpus('tinyshakespeare'); kw = dict(num_merges=5000)",
    "udhr-multiscript, 5,000 merges": "text = corpus('udhr-multiscript'); kw = dict(num_merges=5000)",
    "code, gpt2 bytes, 5,000 merges": (
        "text = corpus('code'); kw = dict(num_merges=5000, pretokenizer='gpt2', unit='byte')"
    ),
    "tinyshakespeare, none, 20,000 merges": (
        "text = corpus('tinyshakespeare'); kw = dict(num_merges=20000, pretokenizer='none', min_frequency=1)"
    ),
    "2 MB of random words": (
        "import random; r = random.Random(3); "
        "text = ' '.join(''.join(r.choices('abcdefghijklmnopqrstuvwxyz', k=r.randint(3, 9))) for _ in range(330000)); "
        "kw = dict(num_merges=2000)"
    ),
}
"""Trainings whose estimate is checked: the benchmark corpora and a random-word text."""

_CHILD = """
import json, sys, tracemalloc
sys.path.insert(0, {repo!r})
from bench.corpora import read_corpus as corpus
from bench.measure import read_status_kb
import bpe_core
from bpe_core.memory import MemoryBudget, SLACK
{setup}
base = read_status_kb("VmRSS")
budget = MemoryBudget(2**40)
tracemalloc.start() if {traced} else None
r = bpe_core.train(text, max_memory=budget, **kw)
peak = tracemalloc.get_traced_memory()[1] if {traced} else 0
print(json.dumps(dict(estimate=budget.held * SLACK / 2**20, traced=peak / 2**20,
                      rss=(read_status_kb("VmHWM") - base) / 1024, merges=r.num_merges)))
"""


def check(name: str, setup: str) -> dict[str, float]:
    """Estimate, ``tracemalloc`` peak and RSS peak growth (MB) of one training, each from a fresh child."""
    out: dict[str, float] = {}
    for traced in (False, True):  # tracemalloc slows the run and adds its own memory: RSS from an untraced run
        code = _CHILD.format(repo=str(REPO), setup=setup, traced=traced)
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=1800)
        if proc.returncode:
            raise RuntimeError(f"{name}: {proc.stderr[-2000:]}")
        values = json.loads(proc.stdout.strip().splitlines()[-1])
        out.update({k: v for k, v in values.items() if traced == (k == "traced")})
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the measured constants, then estimate vs tracemalloc vs RSS for each check."""
    ap = argparse.ArgumentParser(prog="python3 -m bench.memory_sizes", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller synthetic inputs, fewer checks")
    args = ap.parse_args(argv)
    from bpe_core import memory

    n = 25_000 if args.quick else 100_000
    print(f"constant                 measured   in bpe_core.memory   (n = {n:,} vs 4n, tracemalloc)")
    for name, value in measure(n).items():
        print(f"{name:24} {value:8.1f}   {getattr(memory, name):>8}")
    print("\ntraining                                 estimate MB  tracemalloc MB  RSS growth MB")
    for name, setup in list(CHECKS.items())[: 2 if args.quick else None]:
        got = check(name, setup)
        flag = "" if got["estimate"] >= got["rss"] else "  <- estimate below RSS"
        print(f"{name:40} {got['estimate']:11.0f} {got['traced']:15.0f} {got['rss']:14.0f}{flag}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

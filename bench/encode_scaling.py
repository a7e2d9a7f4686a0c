"""How encoding one long piece grows with its length (issue 18 items 1-2): ``python -m bench.encode_scaling``.

For each path (``encode``, ``encode_with_trace``, ``encode`` with BPE-dropout) and table (cl100k_base and
o200k_base, tiktoken's byte semantics; a table trained here, pair semantics, on one piece with the ``none``
pre-tokenizer), the input is doubled five times on ordinary text (a corpus slice) and adversarial text (one
repeated character, one repeated pair, all-distinct characters), and the exponent of time and of peak memory is
fitted on a log-log scale (1 is linear; the issue's target is at most 1.2). Time is process CPU time (the least of
two runs, the per-pre-token cache cleared before each); memory is the ``tracemalloc`` peak of a separate run
(deterministic: the same on any machine). Last, ``encode("a" * 1_000_000)`` on o200k_base against tiktoken in the
same process, as a ratio.

Usage: ``python -m bench.encode_scaling [--start 5000] [--doublings 5] [--markdown FILE]``.
"""

from __future__ import annotations

import argparse
import gc
import math
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass

from bpe_core import Tokenizer, train
from bpe_core.formats import bundled

from .corpora import CorpusMissing, read_corpus


@dataclass
class Series:
    """One path on one input, over the doubled sizes."""

    path: str
    table: str
    text: str
    sizes: list[int]
    seconds: list[float]
    peaks: list[int]

    def exponent(self, values: list[float]) -> float:
        """The least-squares slope of log(value) against log(size)."""
        xs = [math.log(n) for n in self.sizes]
        ys = [math.log(max(v, 1e-9)) for v in values]
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def texts(n: int, ordinary: str) -> dict[str, str]:
    """The inputs of length ``n``: a corpus slice and three adversarial runs."""
    distinct = "".join(chr(0x4E00 + i % 20_000) for i in range(n))  # CJK ideographs: one letter run, 3 bytes each
    return {
        "ordinary": (ordinary * (n // max(len(ordinary), 1) + 1))[:n],
        "one char": "a" * n,
        "one pair": "ab" * (n // 2),
        "distinct": distinct,
    }


def cpu(fn: Callable[[], object]) -> float:
    gc.collect()
    start = time.process_time()
    fn()
    return time.process_time() - start


def peak(fn: Callable[[], object]) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def measure(tok: Tokenizer, path: str, text: str) -> tuple[float, int]:
    """CPU seconds (least of two, cold cache) and tracemalloc peak bytes of one call."""
    calls: dict[str, Callable[[], object]] = {
        "encode": lambda: tok.encode(text),
        "encode_with_trace": lambda: tok.encode_with_trace(text),
        "encode dropout 0.1": lambda: tok.encode(text, dropout=0.1, seed=1),
    }
    seconds = []
    for _ in range(2):
        tok.model.clear_cache()
        seconds.append(cpu(calls[path]))
    tok.model.clear_cache()
    return min(seconds), peak(calls[path])


def tables() -> dict[str, Tokenizer]:
    """The tables measured: two rank files and one table trained on Shakespeare as a single piece."""
    try:
        shakespeare = read_corpus("tinyshakespeare")[:200_000]
    except CorpusMissing:
        shakespeare = "the lowest newest widest lower newer " * 5_000
    trained = train(shakespeare, num_merges=500, pretokenizer="none", min_frequency=2).tokenizer
    return {"cl100k_base": bundled("cl100k_base"), "o200k_base": bundled("o200k_base"), "trained (none)": trained}


def run(start: int, doublings: int) -> list[Series]:
    try:
        ordinary = read_corpus("wikitext2-test")[:1_000_000]
    except CorpusMissing:
        ordinary = "The quick brown fox jumps over the lazy dog. " * 20_000
    sizes = [start << k for k in range(doublings + 1)]
    out = []
    for name, tok in tables().items():
        tok.encode_with_trace("warm up")
        for path in ("encode", "encode_with_trace", "encode dropout 0.1"):
            for kind in texts(1, ordinary):
                series = Series(path, name, kind, sizes, [], [])
                for n in sizes:
                    seconds, bytes_ = measure(tok, path, texts(n, ordinary)[kind])
                    series.seconds.append(seconds)
                    series.peaks.append(bytes_)
                out.append(series)
                print(row(series), flush=True)
    return out


def row(s: Series) -> str:
    t, m = s.exponent(s.seconds), s.exponent([float(p) for p in s.peaks])
    flag = "" if t <= 1.2 and m <= 1.2 else " **over 1.2**"
    return (
        f"| {s.path} | {s.table} | {s.text} | {s.sizes[0]:,}–{s.sizes[-1]:,} | {s.seconds[-1]:.2f} | "
        f"{s.peaks[-1] / 1e6:.1f} | {t:.2f} | {m:.2f}{flag} |"
    )


HEADER = (
    "| path | table | input | characters | CPU s (largest) | peak MB (largest) | time exponent | memory exponent |\n"
    "|---|---|---|---|---|---|---|---|"
)


def against_tiktoken(n: int = 1_000_000) -> str:
    """``encode("a" * n)`` on o200k_base: ours and tiktoken's, CPU seconds in this process, and the ratio."""
    import tiktoken
    import tiktoken.load

    from bpe_core.formats import REFERENCE_DIR
    from bpe_core.formats.tiktoken_ranks import O200K_PATTERN, O200K_SPECIAL_TOKENS

    ranks = tiktoken.load.load_tiktoken_bpe(str(REFERENCE_DIR / "o200k_base.tiktoken"))
    specials = O200K_SPECIAL_TOKENS
    enc = tiktoken.Encoding("o200k_base", pat_str=O200K_PATTERN, mergeable_ranks=ranks, special_tokens=specials)
    tok = bundled("o200k_base")
    text = "a" * n
    ours, theirs = [], []
    for _ in range(3):  # interleaved, so a load spike hits both
        tok.model.clear_cache()
        ours.append(cpu(lambda: tok.encode(text)))
        theirs.append(cpu(lambda: enc.encode_ordinary(text)))
    assert tok.encode(text) == enc.encode_ordinary(text)
    o, t = min(ours), min(theirs)
    return f'o200k_base encode("a" * {n:,}): ours {o:.2f} s, tiktoken {t:.2f} s, ratio {o / t:.1f}x (CPU, least of 3)'


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--start", type=int, default=5_000)
    parser.add_argument("--doublings", type=int, default=5)
    parser.add_argument("--markdown", help="also write the table to this file")
    args = parser.parse_args()
    print(HEADER, flush=True)
    series = run(args.start, args.doublings)
    line = against_tiktoken()
    print(line)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as fh:
            fh.write(HEADER + "\n" + "\n".join(row(s) for s in series) + "\n\n" + line + "\n")


if __name__ == "__main__":
    main()

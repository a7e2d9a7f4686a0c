"""Run one training in this fresh process and print its peak memory as JSON (used by :mod:`bench.measure`).

Usage: ``python -m bench._child '{"contender": "bpe_ws_trace", "corpus": "udhr-multiscript", "merges": 5000}'``
(optional ``"sample"``: characters of the corpus, 0 for all; ``"corpora_dir"``).
Prints ``{"peak_mb": ..., "baseline_mb": ..., "seconds": ..., "num_merges": ...}`` on its last line.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    """Load the corpus, train once, print the peak resident set size (MB) of this process."""
    from bench.corpora import read_corpus, sample
    from bench.measure import peak_rss_kb, read_status_kb
    from bench.trainers import CONTENDERS

    spec = json.loads(argv[0])
    contender = CONTENDERS[spec["contender"]]
    directory = Path(spec["corpora_dir"]) if spec.get("corpora_dir") else None
    text = sample(read_corpus(spec["corpus"], directory), int(spec.get("sample", 0)))
    prepared = contender.prepare(text, spec["merges"])
    baseline = read_status_kb("VmRSS") or 0
    start = time.perf_counter()
    raw = contender.run(text, spec["merges"], prepared)
    seconds = time.perf_counter() - start
    peak = peak_rss_kb()
    out = {
        "peak_mb": peak / 1024,
        "baseline_mb": baseline / 1024,
        "seconds": seconds,
        "num_merges": len(contender.merges(raw)),
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

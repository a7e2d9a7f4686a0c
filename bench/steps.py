"""The trace benchmarks: viewing one merge step of a finished run, and a very long run's memory.

*Step views*: train once with the app's default settings, then look at merges
spread over the whole run, in shuffled order, the way a learner jumps around
the step player. One view is everything the Train page shows for a step:
``result.steps[k]`` (top pairs, the first tied pairs with their keys, the most
frequent rewritten words), every tied pair with its key (``result.ties_at(k)``)
and every rewritten word (``result.word_changes(k)``). The first view pays for
the lazily built helpers; it is reported on its own and counted in the median.

*Long run*: ``train(text, num_merges=200_000, pretokenizer='none', unit='byte',
min_frequency=1)`` in a fresh child process (``python -m bench.steps long ...``),
which reports its peak resident set size, whether it finished and why it
stopped.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from .measure import REPO, peak_rss_kb

LONG_RUN = {"num_merges": 200_000, "pretokenizer": "none", "unit": "byte", "min_frequency": 1}
"""The settings of the long run (a shared link once asked for exactly this)."""


@dataclass
class StepViews:
    """Seconds to view merge steps of one run.

    Attributes:
        corpus: the corpus name.
        merges: merges learned.
        seconds: ``{k: seconds}`` per viewed step, in viewing order.
        first: the step viewed first.
    """

    corpus: str
    merges: int
    seconds: dict[int, float] = field(default_factory=dict)
    first: int = 0

    @property
    def median(self) -> float:
        """The median view time in seconds, the first view included."""
        values = sorted(self.seconds.values())
        return values[len(values) // 2] if values else float("nan")

    @property
    def worst(self) -> float:
        """The slowest view in seconds."""
        return max(self.seconds.values(), default=float("nan"))


def view_step(result, k: int) -> int:
    """Build everything the Train page shows for merge ``k``; return how many records that was."""
    step = result.steps[k]
    ties = result.ties_at(k)
    words = result.word_changes(k)
    return len(step.top_pairs) + len(step.words) + len(ties) + len(words)


def measure_step_views(corpus: str, text: str, merges: int, views: int = 25, log=print) -> StepViews:
    """Train ``merges`` merges on ``text`` (app defaults), then time ``views`` step views spread over the run."""
    from bpe_core import train

    result = train(text, num_merges=merges)
    n = result.num_merges
    ks = sorted({0, n - 1, *(round(i * (n - 1) / (views - 1)) for i in range(views))})
    random.Random(0).shuffle(ks)
    out = StepViews(corpus, n, first=ks[0])
    for k in ks:
        start = time.perf_counter()
        view_step(result, k)
        out.seconds[k] = time.perf_counter() - start
    log(
        f"  step views {corpus} ({n:,} merges): median {out.median * 1000:.1f} ms, "
        f"first (merge {out.first:,}) {out.seconds[out.first] * 1000:.1f} ms, worst {out.worst * 1000:.1f} ms"
    )
    return out


def measure_long_run(corpus: str, corpora_dir: Path | None = None, limit_mb: int = 4096, log=print) -> dict:
    """Run :data:`LONG_RUN` on ``corpus`` in a child capped at ``limit_mb`` of address space; return its report.

    The report: ``peak_mb``, ``seconds``, ``num_merges``, ``stop_reason`` and
    ``error`` (the child's last stderr line when it failed, e.g. out of memory).
    """
    spec = {"corpus": corpus, "corpora_dir": str(corpora_dir) if corpora_dir else "", "limit_mb": limit_mb}
    proc = subprocess.run(
        [sys.executable, "-m", "bench.steps", "long", json.dumps(spec)], cwd=REPO, capture_output=True, text=True
    )
    lines = proc.stdout.strip().splitlines()
    if proc.returncode or not lines:
        err = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        out = {"peak_mb": float("nan"), "seconds": float("nan"), "num_merges": 0, "stop_reason": None, "error": err}
    else:
        out = json.loads(lines[-1]) | {"error": ""}
    log(
        f"  long run {corpus}: {out['num_merges']:,} merges, peak {out['peak_mb']:.0f} MB, "
        f"{out['seconds']:.0f} s; {out['error'] or out['stop_reason'] or 'finished'}"
    )
    return out


def _long_child(spec: dict) -> None:
    """The child side of :func:`measure_long_run`: train once and print the report as JSON."""
    import resource

    from bpe_core import train

    from .corpora import read_corpus

    limit = spec["limit_mb"] << 20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    text = read_corpus(spec["corpus"], Path(spec["corpora_dir"]) if spec["corpora_dir"] else None)
    start = time.perf_counter()
    result = train(text, **LONG_RUN)
    seconds = time.perf_counter() - start
    out = {
        "peak_mb": peak_rss_kb() / 1024,
        "seconds": seconds,
        "num_merges": result.num_merges,
        "stop_reason": result.stop_reason,
    }
    print(json.dumps(out))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "long":
        _long_child(json.loads(sys.argv[2]))
    else:
        sys.exit('usage: python -m bench.steps long \'{"corpus": ..., "corpora_dir": ..., "limit_mb": ...}\'')

"""Measure one path of :mod:`bench.scaling` on one input kind at doubling sizes, in this fresh process.

Usage: ``python3 -m bench._scaling_child '{"path": "train none", "kind": "a", "sizes": [1000, 2000],
"repeats": 3, "budget_s": 20, "budget_mb": 1536, "scratch": "/tmp/x"}'`` (the parent sets the limits
with ``setrlimit`` before this starts: ``RLIMIT_CPU`` = the budget, with a hard limit that
leaves room for the memory runs (:class:`CpuBudget`); ``RLIMIT_AS`` = the memory budget).

Prints one JSON object per line, flushed, so the parent knows how far it got if this
process dies: ``{"event": "begin", "n": ...}`` before each size, then the size's figures
(``{"event": "size", "n", "size", "cpu", "cpus", "setup_s", "peak_bytes", "rss_bytes",
"outcome"}``), and ``{"event": "stopped", "n", "stage", "why"}`` when the CPU budget
(``SIGXCPU``) or the address space (``MemoryError``) runs out, or ``{"event": "error", ...}``
for any other exception.

Time is the CPU time of the call, the minimum of the repeats: ``time.thread_time``, as
every path runs in this one thread (under ``RLIMIT_CPU`` Linux samples the process CPU
clock only at scheduler ticks, 4 ms apart, while the thread clock stays exact). Memory
is the ``tracemalloc`` peak of one more run (traced allocations above those held before
the call), and ``rss_bytes`` the growth of the peak resident set size over the first
timed run (``VmHWM`` reset through ``/proc/self/clear_refs``). A path run as a separate
process gives that process's CPU time and peak RSS instead.
"""

from __future__ import annotations

import gc
import json
import math
import resource
import signal
import sys
import time
import traceback
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .measure import read_status_kb
from .scaling_paths import _RUN_LIMITS, PATHS, SCRATCH, ProcessRun, ScalingPath

TRACE_FACTOR = 25
"""A run under ``tracemalloc`` may take this many times the slowest timed run of its size (plus 2 s).

``tracemalloc`` makes a call 3-15 times slower (it records every allocation); that time
is the measurement's, not the path's, so it is not charged to the run's budget.
"""


class CpuBudgetSpent(Exception):
    """Raised by the ``SIGXCPU`` handler: the run's CPU budget (or a memory run's allowance) is spent."""


def _on_xcpu(signum: int, frame: object) -> None:
    raise CpuBudgetSpent


class CpuBudget:
    """The run's CPU budget in ``RLIMIT_CPU``'s soft limit, less the time of the memory runs.

    The parent sets the soft limit to the budget and the hard limit to the budget times
    ``TRACE_FACTOR + 1`` (plus 10 s): room for the soft limit to move past the memory runs.
    """

    def __init__(self, budget_s: float) -> None:
        self.budget_s = budget_s
        self.exempt_s = 0.0
        self.in_memory_run = False

    @staticmethod
    def _cpu() -> float:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime

    @staticmethod
    def _set_soft(seconds: float) -> None:
        _soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
        soft = max(1, math.ceil(seconds))
        resource.setrlimit(resource.RLIMIT_CPU, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))

    @contextmanager
    def memory_run(self, allowance_s: float) -> Iterator[None]:
        """Run the block with ``allowance_s`` CPU seconds of its own, not charged to the budget."""
        start = self._cpu()
        self._set_soft(start + allowance_s)
        self.in_memory_run = True
        try:
            yield
        finally:
            self.in_memory_run = False
            self.exempt_s += self._cpu() - start
            self._set_soft(self.exempt_s + self.budget_s)

    def why(self) -> str:
        """What ran out, for the report."""
        if self.in_memory_run:
            return f"the memory run under tracemalloc took over {TRACE_FACTOR} times the timed run (its allowance)"
        return f"CPU budget of {self.budget_s:g} s spent"


def emit(obj: dict) -> None:
    """One JSON line on stdout, flushed at once."""
    print(json.dumps(obj), flush=True)


def _reset_peak_rss() -> bool:
    """Reset this process's ``VmHWM`` to its current RSS (Linux >= 4.0); ``False`` if not possible."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _call(op) -> object:  # noqa: ANN001
    """``op()``; an engine error (a ``ValueError``: every ``BPEError`` is one) is the answer, not a failure."""
    try:
        return op()
    except ValueError as exc:
        return exc


def describe(out: object) -> str:
    """A short account of what the call answered (the last column of the report)."""
    if isinstance(out, ProcessRun):
        if out.status < 0:
            name = signal.Signals(-out.status).name
            return f"the CLI was killed by {name}" + (" (the CPU budget)" if name == "SIGXCPU" else "")
        return "exit 0" if out.status == 0 else f"exit {out.status}: {out.tail[:120]}"
    if isinstance(out, BaseException):
        return f"{type(out).__name__} ({len(str(out)):,}-character message)"
    if hasattr(out, "num_merges") and hasattr(out, "stop_reason"):
        said = f"{out.num_merges} merges"
        return said + (f"; stopped: {out.stop_reason[:80]}" if out.stop_reason else "")
    if isinstance(out, (list, tuple, str, bytes, dict)):
        return f"{type(out).__name__} of {len(out):,}"
    if isinstance(out, int):
        return f"{out:,}"
    return type(out).__name__


def measure_size(path: ScalingPath, kind: str, n: int, repeats: int, stage: dict, budget: CpuBudget) -> dict:
    """Every figure of one size (see the module docstring)."""
    stage.update(n=n, stage="setup")
    start = time.thread_time()
    case = path.prepare(kind, n)
    setup = time.thread_time() - start
    cpus, rss, peak, outcome = [], None, None, ""
    for r in range(repeats):
        stage["stage"] = f"setup of timed run {r + 1}"
        op = case.arm()
        stage["stage"] = f"timed run {r + 1}"
        gc.collect()
        watch = r == 0 and _reset_peak_rss()
        before = read_status_kb("VmRSS") or 0
        start = time.thread_time()
        out = _call(op)
        cpu = time.thread_time() - start
        if watch:
            rss = ((read_status_kb("VmHWM") or 0) - before) * 1024
        if isinstance(out, ProcessRun):
            cpu, rss = out.cpu, out.rss_bytes
            peak = out.rss_bytes if peak is None else min(peak, out.rss_bytes)
            if out.status != 0:
                raise ProcessFailed(describe(out))
        cpus.append(cpu)
        outcome = describe(out)
        del out
    if not path.process:
        stage["stage"] = "setup of the memory run"
        op = case.arm()
        stage["stage"] = "memory run (tracemalloc)"
        gc.collect()
        with budget.memory_run(TRACE_FACTOR * max(cpus) + 2):
            tracemalloc.start()
            try:
                base = tracemalloc.get_traced_memory()[0]
                out = _call(op)
                peak = tracemalloc.get_traced_memory()[1] - base
            finally:
                tracemalloc.stop()
        del out
    return {
        "event": "size",
        "n": n,
        "size": case.size,
        "cpu": min(cpus),
        "cpus": cpus,
        "setup_s": setup,
        "peak_bytes": peak,
        "rss_bytes": rss,
        "outcome": outcome,
    }


class ProcessFailed(Exception):
    """A path run as a separate process ended with a non-zero status (its account is the message)."""


def main(argv: list[str]) -> int:
    """Measure the sizes of ``argv[0]`` (JSON) one after the other until done or stopped."""
    spec = json.loads(argv[0])
    path = PATHS[spec["path"]]
    _RUN_LIMITS.update(cpu_s=spec["budget_s"], as_bytes=spec["budget_mb"] << 20)
    if spec.get("scratch"):
        SCRATCH["dir"] = Path(spec["scratch"])
    signal.signal(signal.SIGXCPU, _on_xcpu)
    budget = CpuBudget(spec["budget_s"])
    stage: dict = {"n": None, "stage": "start"}
    for n in spec["sizes"]:
        emit({"event": "begin", "n": n})
        try:
            emit(measure_size(path, spec["kind"], n, spec["repeats"], stage, budget))
        except CpuBudgetSpent:
            gc.collect()
            emit({"event": "stopped", **stage, "why": budget.why()})
            return 0
        except MemoryError:
            gc.collect()
            emit(
                {"event": "stopped", **stage, "why": f"MemoryError at the {spec['budget_mb']:,} MB address-space limit"}
            )
            return 0
        except ProcessFailed as exc:
            emit({"event": "stopped", **stage, "why": str(exc)})
            return 0
        except Exception as exc:  # noqa: BLE001 - reported to the parent, which goes on with the next run
            tail = traceback.format_exc(limit=-4).strip().splitlines()[-6:]
            emit({"event": "error", **stage, "why": f"{type(exc).__name__}: {str(exc)[:300]}", "traceback": tail})
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

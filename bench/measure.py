"""Timing, peak memory and machine facts.

Times are wall-clock (``time.perf_counter``) in this one process, with the
contenders of one comparison interleaved repeat by repeat, so that a load spike
from another job on the machine hits them alike; the report gives medians.
Peak memory is the peak resident set size (``VmHWM``) of a fresh child process
that loads the corpus and runs the one training (:mod:`bench._child`).
"""

from __future__ import annotations

import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


@dataclass
class Timing:
    """Seconds of repeated runs of one thing; :attr:`median` is what the report uses."""

    seconds: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        """The median of the runs (``nan`` before any)."""
        return statistics.median(self.seconds) if self.seconds else float("nan")

    @property
    def cpu_median(self) -> float:
        """The median process CPU time of the runs (``nan`` if not recorded)."""
        return statistics.median(self.cpu) if self.cpu else float("nan")

    @property
    def spread(self) -> float:
        """``(max - min) / median`` of the runs, as a fraction (0 for a single run)."""
        if len(self.seconds) < 2:
            return 0.0
        return (max(self.seconds) - min(self.seconds)) / self.median

    @property
    def cpu_share(self) -> float:
        """Process CPU time over wall time, summed over the runs (above 1: several threads were busy)."""
        return sum(self.cpu) / sum(self.seconds) if self.cpu and sum(self.seconds) else float("nan")

    def add(self, seconds: float, cpu: float | None = None) -> None:
        """Record one run."""
        self.seconds.append(seconds)
        if cpu is not None:
            self.cpu.append(cpu)


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Run ``fn()`` once after a garbage collection; return ``(seconds, result)``."""
    seconds, _cpu, result = timed_cpu(fn)
    return seconds, result


def timed_cpu(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """Run ``fn()`` once after a garbage collection; return ``(wall seconds, process CPU seconds, result)``."""
    gc.collect()
    cpu = time.process_time()
    start = time.perf_counter()
    result = fn()
    wall = time.perf_counter() - start
    return wall, time.process_time() - cpu, result


def read_status_kb(field_name: str) -> int | None:
    """A ``kB`` field of ``/proc/self/status`` (``VmHWM``, ``VmRSS``), or ``None`` off Linux."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(field_name + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def peak_rss_kb() -> int:
    """This process's peak resident set size in kB (``VmHWM``; ``ru_maxrss`` where /proc is absent)."""
    hwm = read_status_kb("VmHWM")
    if hwm is not None:
        return hwm
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak  # macOS reports bytes, Linux kB


def measure_peak_rss(
    contender: str, corpus: str, num_merges: int, *, sample: int = 0, corpora_dir: Path | None = None, timeout=3600
) -> dict[str, float]:
    """Run one training in a fresh child process; return its ``peak_mb``, ``baseline_mb`` and ``seconds``.

    ``baseline_mb`` is the child's resident size after its imports and the corpus
    are loaded, just before training; ``peak_mb`` is the peak of the whole process.
    """
    spec = {"contender": contender, "corpus": corpus, "merges": num_merges, "sample": sample}
    if corpora_dir is not None:
        spec["corpora_dir"] = str(corpora_dir)
    proc = subprocess.run(
        [sys.executable, "-m", "bench._child", json.dumps(spec)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"child for {spec} failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def geomean(values: list[float]) -> float:
    """The geometric mean of positive numbers (``nan`` for none)."""
    return statistics.geometric_mean(values) if values else float("nan")


# ----------------------------------------------------------------- machine


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def _git(*args: str) -> str:
    try:
        out = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return "?"
    return out.stdout.strip() if out.returncode == 0 else "?"


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, or ``?``."""
    try:
        return " / ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def machine_facts() -> dict[str, str]:
    """What the report says about where it ran: CPU, cores, Python, package versions, commit, date."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count() or 0
    mem = read_meminfo_mb("MemTotal")
    commit = _git("rev-parse", "--short", "HEAD")
    if _git("status", "--porcelain", "--", "bpe_core", "app.py", "pages", "ui", "viz"):
        commit += " (with uncommitted changes)"
    return {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": _cpu_model(),
        "cores": f"{os.cpu_count()} ({usable} usable by this process)",
        "memory": f"{mem:,} MB" if mem else "?",
        "os": f"{platform.system()} {platform.release()}",
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "commit": commit,
        "bpe_core deps": f"regex {_version('regex')}",
        "references": ", ".join(
            f"{d} {_version(d)}" for d in ("tiktoken", "tokenizers", "subword-nmt", "streamlit", "pyinstrument")
        ),
        "TOKENIZERS_PARALLELISM": os.environ.get("TOKENIZERS_PARALLELISM", "unset (tokenizers' default)"),
    }


def read_meminfo_mb(field_name: str) -> int | None:
    """A field of ``/proc/meminfo`` in MB, or ``None``."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(field_name + ":"):
                    return int(line.split()[1]) // 1024
    except OSError:
        return None
    return None

"""Does every public path of the engine and the CLI grow near-linearly? Double its input and fit the exponent.

Usage::

    python3 -m bench.scaling                      # every path, six sizes each, 3 repeats (half an hour)
    python3 -m bench.scaling --only 'encode|decode' --repeats 5
    python3 -m bench.scaling --write              # also write the table into bench/RESULTS.md's Scaling section
    python3 -m bench.scaling --quick              # tiny sizes, three each, one repeat (the smoke test)

For each path (:data:`bench.scaling_paths.PATHS`) and each input kind
(:data:`bench.scaling_inputs.KINDS`: ordinary text, one repeated character, one
repeated pair, all-distinct characters, distinct one-character words), one child
process (:mod:`bench._scaling_child`) measures the sizes ``base * 2**i`` one after
the other under its budget: ``RLIMIT_CPU`` (CPU seconds for the whole run) and
``RLIMIT_AS`` (address space). Time is CPU time, the minimum of the repeats (the
machine is shared: wall time would measure the neighbours); memory is the
``tracemalloc`` peak of the call, or for the CLI the peak RSS of its process above
a run on 256 characters of the same kind. The exponent is the slope of a least-squares line
through ``(log size, log value)``; the target is at most :data:`TARGET` for time
and memory alike, with every size finished within the budget. A run that spends
its budget or its memory is reported as FAIL with the size and stage where it
stopped; the harness goes on with the next.

A path that sorts its answer by design (the step views rank every pair of a step, best first) declares
``growth="n log n"``: its time is fitted on ``log(size * ln size)`` instead, where
``n log n`` has slope 1 (on ``log size`` alone its slope is ``1 + 1/ln n``, 1.14 at
1,000), and the table gives both slopes.

Where an exponent is over the target, instruction counts of the call alone
(``valgrind --tool=callgrind``), which do not depend on the machine, tell the algorithm
from the memory hierarchy. On the adversarial kinds every size holds more distinct symbols, so the dicts and strings a
path touches outgrow the CPU caches: training on 32,000-128,000 distinct characters runs
0.99-1.01 in instructions per doubling and about 1.25 in CPU time, and a loaded machine
shares its last-level cache with its neighbours. Such a run lands *near the target*
(see :func:`summary`): confirm it on a quiet machine and with instruction counts.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import resource
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ._scaling_child import TRACE_FACTOR
from .measure import REPO, load_average, machine_facts
from .scaling_inputs import KINDS
from .scaling_paths import MERGES, PATHS, ScalingPath
from .sections import SCALING, write_section

TARGET = 1.2
"""The largest exponent allowed, for time and for memory."""
NEAR = 0.1
"""A run over the target by at most this is marked *near the target* in the summary."""
DEFAULT_RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
FLOORS = {
    "call": {"cpu": 0.001, "peak_bytes": 16 << 10},
    "process": {"cpu": 0.020, "peak_bytes": 4 << 20},
}
"""Sizes whose time or memory is below these are left out of the fit: 1 ms and 16 KB for a call,
20 ms and 4 MB above the baseline run for a separate process (its figures are differences of two
runs, and a process's resident size moves in pages and allocator arenas)."""
WALL_FACTOR = 10.0
"""A child may take this many times a quarter of its hard CPU limit in wall time (plus a minute) before it is
killed (the hard limit leaves room for slow memory runs that a linear path never uses)."""


@dataclass
class Run:
    """One path on one input kind: the figures of every size it finished, and how it ended."""

    path: str
    kind: str
    unit: str
    sizes: list[int]
    budget_s: float
    budget_mb: int
    rows: list[dict] = field(default_factory=list)
    stopped: str | None = None
    error: str | None = None
    wall_s: float = 0.0
    cpu_s: float = 0.0
    """CPU seconds of the whole run: the child process and the CLI runs it waited for."""
    process: bool = False
    """The path runs a separate process (its figures are CPU time and peak RSS above a baseline run)."""
    growth: str = "n"
    """``"n log n"``: the path sorts its answer by design; its time is fitted against ``n log n``."""

    def _points(self, key: str, floor: float = 0.0) -> tuple[list[float], list[float]]:
        """Sizes and values of ``key`` (``"cpu"`` or ``"peak_bytes"``) that are positive and at least ``floor``."""
        pts = [(r["size"], r[key]) for r in self.rows if r.get(key) is not None and r[key] > 0 and r[key] >= floor]
        return [p[0] for p in pts], [p[1] for p in pts]

    def floor(self, key: str) -> float:
        """Below this a value is left out of the fit (:data:`FLOORS`)."""
        return FLOORS["process" if self.process else "call"][key]

    def judged(self, key: str) -> bool:
        """Whether the exponent of ``key`` counts: three sizes or more at or above :meth:`floor`.

        A call that takes microseconds or allocates a few kilobytes is not growing with
        its input at that size; its slope there would measure the timer and the allocator.
        """
        return len(set(self._points(key, self.floor(key))[0])) >= 3

    def exponent(self, key: str, against: str | None = None) -> float | None:
        """The least-squares slope of ``log value`` on ``log size`` (``against="n"``) or on
        ``log(size * ln size)`` (``against="n log n"``).

        ``against`` defaults to the path's :attr:`growth` for time and to ``"n"`` for memory:
        a path that sorts ``n`` items is ``c * n ln n`` at best, whose slope on ``log n`` alone
        is ``1 + 1 / ln n`` (1.14 at 1,000, 1.10 at 20,000) before any cache effect, while its
        slope on ``log(n ln n)`` is 1. Over the sizes at or above :meth:`floor` when there are
        three or more (:meth:`judged`), else over every positive one (``None`` with fewer than three).
        """
        against = against or (self.growth if key == "cpu" else "n")
        xs, ys = self._points(key, self.floor(key) if self.judged(key) else 0.0)
        if len(set(xs)) < 3:
            return None
        logs = [math.log(x * math.log(x)) if against == "n log n" else math.log(x) for x in xs]
        return statistics.linear_regression(logs, [math.log(y) for y in ys]).slope

    def last_doubling(self, key: str) -> float | None:
        """The exponent between the two largest sizes alone (where a superlinear term shows first)."""
        xs, ys = self._points(key)
        if len(xs) < 2 or xs[-1] == xs[-2]:
            return None
        return math.log(ys[-1] / ys[-2]) / math.log(xs[-1] / xs[-2])

    @property
    def time_exp(self) -> float | None:
        return self.exponent("cpu")

    @property
    def mem_exp(self) -> float | None:
        return self.exponent("peak_bytes")

    def exponents_over(self) -> list[float]:
        """The judged exponents over :data:`TARGET` (time first)."""
        exps = (self.exponent(key) if self.judged(key) else None for key in ("cpu", "peak_bytes"))
        return [e for e in exps if e is not None and e > TARGET]

    def _over(self) -> list[str]:
        out = []
        for what, key in (("time", "cpu"), ("memory", "peak_bytes")):
            e = self.exponent(key)
            if e is not None and self.judged(key) and e > TARGET:
                out.append(f"{what} {e:.2f}")
        return out

    @property
    def ok(self) -> bool:
        """Every size finished, and no judged exponent is over :data:`TARGET`."""
        return not (self.stopped or self.error or self._over()) and len(self.rows) >= 3

    @property
    def verdict(self) -> str:
        """``PASS``, ``FAIL (...)`` naming what is over or where the run stopped, or ``ERROR (...)``."""
        if self.error:
            return f"ERROR ({self.error})"
        if self.stopped:
            return f"FAIL ({self.stopped})"
        if self._over():
            return f"FAIL ({', '.join(self._over())})"
        if len(self.rows) < 3:
            return "FAIL (too few sizes to fit)"
        return "PASS"


# ---------------------------------------------------------------- running


def _hard_cpu(budget_s: float) -> int:
    """The hard ``RLIMIT_CPU`` of a run: its budget plus what its memory runs may take (:class:`CpuBudget`)."""
    return math.ceil(budget_s * (TRACE_FACTOR + 1)) + 10


def _limits(budget_s: float, budget_mb: int):  # noqa: ANN202
    cpu, hard = max(1, math.ceil(budget_s)), _hard_cpu(budget_s)

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, hard))
        resource.setrlimit(resource.RLIMIT_AS, (budget_mb << 20, budget_mb << 20))

    return apply


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def sizes_for(path: ScalingPath, kind: str, doublings: int, quick: bool) -> list[int]:
    """The sizes of one run: the path's base size for ``kind``, doubled ``doublings`` times."""
    base = path.base_for(kind, quick)
    return [base << i for i in range(doublings + 1)]


def run_child(
    path: ScalingPath, kind: str, sizes: list[int], repeats: int, scratch: Path, wall_factor: float = WALL_FACTOR
) -> Run:
    """Measure ``path`` on ``kind`` at ``sizes`` in a child process under its budget; never raises for the child.

    ``scratch`` is a folder for the child's input files (the caller removes it).
    """
    run = Run(
        path.name, kind, path.unit, sizes, path.budget_s, path.budget_mb, process=path.process, growth=path.growth
    )
    spec = {"path": path.name, "kind": kind, "sizes": sizes, "repeats": repeats, "scratch": str(scratch)}
    spec |= {"budget_s": path.budget_s, "budget_mb": path.budget_mb}
    started, before = time.perf_counter(), _children_cpu()
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench._scaling_child", json.dumps(spec)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_limits(path.budget_s, path.budget_mb),
        start_new_session=True,  # its own process group: a timeout ends the child and any CLI run it started
    )
    timeout = _hard_cpu(path.budget_s) * wall_factor / 4 + 60
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        run.stopped = f"killed after {timeout:.0f} s of wall time"
    run.wall_s = time.perf_counter() - started
    run.cpu_s = _children_cpu() - before
    _read_child(run, out, err, proc.returncode)
    return run


def _read_child(run: Run, out: str, err: str, status: int) -> None:
    """Fill ``run`` from the child's JSON lines and exit status."""
    begun = None
    for line in out.splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        kind = event.get("event")
        if kind == "begin":
            begun = event["n"]
        elif kind == "size":
            run.rows.append(event)
            begun = None
        elif kind == "stopped":
            run.stopped = f"stopped at n={event['n']:,} in {event['stage']}: {event['why']}"
        elif kind == "error":
            run.error = f"at n={event['n']:,} in {event['stage']}: {event['why']}"
    if run.stopped or run.error:
        return
    if status != 0:
        where = f" at n={begun:,}" if begun is not None else ""
        if status in (-signal.SIGXCPU, -signal.SIGKILL):
            run.stopped = f"killed{where} by {signal.Signals(-status).name} (the hard CPU limit)"
        else:
            tail = err.strip().splitlines()[-1:] or [""]
            run.error = f"child exited {status}{where}: {tail[0][:200]}"
    elif begun is not None:
        run.error = f"child ended during n={begun:,} without a result"


def select(pattern: str | None, kinds: set[str] | None = None) -> list[tuple[ScalingPath, str]]:
    """The (path, kind) runs ``--only`` and ``--kinds`` select, in report order.

    Hidden paths (the harness's self-tests) run only when the pattern names them (contains ``selftest``).
    """
    regex = re.compile(pattern) if pattern else None
    out = []
    for path in PATHS.values():
        if path.hidden and not (pattern and "selftest" in pattern):
            continue
        if regex and not regex.search(path.name):
            continue
        out += [(path, k) for k in path.kinds if kinds is None or k in kinds]
    return out


def log(message: str) -> None:
    """A progress line on stderr, with the time."""
    print(time.strftime("%H:%M:%S"), message, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- the table


def _exp(e: float | None, judged: bool = True) -> str:
    if e is None:
        return "—"
    return f"{e:.2f}" if judged else f"({e:.2f})"


def _time_exp(run: Run) -> str:
    """The time exponent; for an ``n log n`` path, the one against ``n log n`` with the plain one after it."""
    text = _exp(run.time_exp, run.judged("cpu"))
    if run.growth == "n" or run.time_exp is None:
        return text
    return f"{text} on n log n ({_exp(run.exponent('cpu', 'n'), run.judged('cpu'))} on n)"


def _size(n: int) -> str:
    for div, suffix in ((1 << 20, "Mi"), (1 << 10, "Ki")):
        if n >= div:
            v = n / div
            return f"{v:.0f}{suffix}" if v >= 10 or v == int(v) else f"{v:.1f}{suffix}"
    return str(n)


def _mb(b: float | None) -> str:
    if b is None:
        return "—"
    mb = b / 1e6
    return f"{mb:.3f}" if mb < 1 else f"{mb:.1f}" if mb < 100 else f"{mb:,.0f}"


def _sizes_text(run: Run) -> str:
    done = [r["size"] for r in run.rows]
    if not done:
        return f"none of {_size(run.sizes[0])}–{_size(run.sizes[-1])}" if run.sizes else "none"
    text = f"{_size(done[0])}–{_size(done[-1])} {run.unit} ({len(done)})"
    return text if len(done) == len(run.sizes) else text + f" of {len(run.sizes)}"


def table_rows(runs: list[Run]) -> list[list[str]]:
    """One row per run: path, input, sizes, exponents, the largest size's figures, answer, verdict."""
    rows = []
    for run in runs:
        last = run.rows[-1] if run.rows else {}
        rows.append(
            [
                run.path,
                run.kind,
                _sizes_text(run),
                _time_exp(run),
                _exp(run.mem_exp, run.judged("peak_bytes")),
                f"{_exp(run.last_doubling('cpu'))} / {_exp(run.last_doubling('peak_bytes'))}",
                f"{last['cpu']:.3f}" if last else "—",
                _mb(last.get("peak_bytes")) if last else "—",
                (last.get("outcome") or "—").replace("|", "/")[:60] if last else "—",
                run.verdict.replace("|", "/"),
            ]
        )
    return rows


HEADER = [
    "path",
    "input",
    "sizes",
    "time exp.",
    "memory exp.",
    "last doubling (time / memory)",
    "largest: CPU s",
    "largest: memory MB",
    "answer at the largest size",
    "verdict",
]


def markdown_table(runs: list[Run]) -> list[str]:
    """The results as markdown table lines."""
    lines = ["| " + " | ".join(HEADER) + " |", "| " + " | ".join(["---"] * 3 + ["---:"] * 5 + ["---"] * 2) + " |"]
    return lines + ["| " + " | ".join(row) + " |" for row in table_rows(runs)]


def summary(runs: list[Run]) -> list[str]:
    """Sentences for the end of the report: how many passed, and every path over the target or stopped."""
    failed = [r for r in runs if not r.ok]
    lines = [f"{len(runs) - len(failed)} of {len(runs)} runs PASS (exponent at most {TARGET:g} in time and memory)."]
    by_path: dict[str, list[str]] = {}
    for r in failed:
        near = not (r.stopped or r.error) and max(r.exponents_over()) <= TARGET + NEAR
        by_path.setdefault(r.path, []).append(f"{r.kind}: {r.verdict}" + (" (near the target)" if near else ""))
    for path, what in by_path.items():
        lines.append(f"- **{path}**: " + "; ".join(what))
    if any("(near the target)" in line for line in lines):
        lines.append(
            f"\n*near the target*: over {TARGET:g} by at most {NEAR:g}, which a busy machine's cache misses can "
            "add to a path that is linear; confirm with `--only` and more `--repeats` on a quiet machine."
        )
    return lines


def section(runs: list[Run], facts: dict[str, str], command: str) -> str:
    """The ``## Scaling`` section of ``bench/RESULTS.md``."""
    kinds = "; ".join(f"*{k}*: {v}" for k, v in KINDS.items())
    lines = [
        SCALING,
        "",
        f"Generated by `{command}` on {facts['date']} at commit {facts['commit']} in {facts['minutes']} minutes "
        f"({facts['child_cpu']} CPU minutes in the child processes). CPU: {facts['cpu']}, {facts['cores']} cores; "
        f"load average (1/5/15 min) {facts['load_before']} at the start, {facts['load_after']} at the end.",
        "",
        "Each path runs on each input kind in a child process of its own, at sizes doubling from the first: "
        f"{facts['repeats']} timed repeat(s) per size (the minimum of the call's CPU time), then one run under "
        "`tracemalloc` for the peak of the memory the call allocates. The command line (*cli*) runs as a separate "
        "process: its CPU time and peak RSS, less those of a run on 256 characters of the same kind. "
        "Sizes are characters of text, or bytes of the file a loader reads. *exp.*: the least-squares "
        "slope of log(time) or log(memory) on log(size) over every size; *last doubling*: the same between the "
        "two largest sizes alone. Sizes where the call took under "
        f"{FLOORS['call']['cpu'] * 1000:g} ms or allocated under {FLOORS['call']['peak_bytes'] >> 10} KB "
        f"(the CLI: {FLOORS['process']['cpu'] * 1000:g} ms, {FLOORS['process']['peak_bytes'] >> 20} MB above its "
        "baseline) are left out of the fit; with fewer than three sizes above these floors the exponent is "
        "fitted over every size, shown in brackets and not judged. "
        "The step views sort every pair of a step by design: their time is fitted on log(n ln n), where "
        "n log n has slope 1 (the slope on log(n) follows in brackets). The *distinct* characters are all "
        "unassigned code points above U+FFFF, so every size has 4 bytes a character in memory and in UTF-8 and "
        "one pre-token class (a kind that began with letters of the Basic Multilingual Plane switched width part "
        "way, and letters then symbols switched class: either raised the cost per character from then on). "
        "On *distinct* and *words* every size holds more distinct symbols, whose dicts outgrow the CPU caches: "
        "there the CPU time can grow faster than the instruction count (training on 32,000-128,000 distinct "
        "characters: 0.99-1.01 per doubling in `valgrind --tool=callgrind` instructions). "
        f"Training paths learn {MERGES} merges with `min_frequency=1`. Every run has a "
        "budget (`RLIMIT_CPU` for the whole run, `RLIMIT_AS` for its process); the runs under `tracemalloc` are "
        f"not charged to it but may take at most {TRACE_FACTOR} times the timed run of their size. A run that spends "
        f"its budget is a FAIL with where it stopped. Target: exponent at most {TARGET:g} in time and in memory "
        "on every path. Input "
        f"kinds: {kinds}.",
        "",
    ]
    lines += markdown_table(runs)
    lines += [""] + summary(runs)
    lines += ["", "What each path calls:", ""]
    lines += [f"- *{name}*: `{PATHS[name].call}`" for name in dict.fromkeys(r.path for r in runs) if name in PATHS]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- main


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    ap = argparse.ArgumentParser(prog="python3 -m bench.scaling", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="tiny sizes, three per run, one repeat (the smoke test)")
    ap.add_argument("--only", metavar="PATTERN", help="only the paths whose name matches this regular expression")
    ap.add_argument("--kinds", help=f"comma-separated input kinds (default: each path's own): {','.join(KINDS)}")
    ap.add_argument("--repeats", type=int, help="timed repeats per size, the minimum is kept (default 3; quick 1)")
    ap.add_argument("--doublings", type=int, help="sizes per run minus one (default 5; quick 2)")
    ap.add_argument("--write", action="store_true", help="write the table into the Scaling section of --results")
    ap.add_argument("--results", type=Path, default=DEFAULT_RESULTS, help="the report --write updates")
    ap.add_argument("--json", type=Path, help="also write every figure as JSON")
    ap.add_argument("--list", action="store_true", help="list the paths and their kinds, and exit")
    args = ap.parse_args(argv)
    args.repeats = args.repeats or (1 if args.quick else 3)
    args.doublings = args.doublings if args.doublings is not None else (2 if args.quick else 5)
    if args.repeats < 1 or args.doublings < 1:
        ap.error("--repeats and --doublings must be at least 1")
    args.kinds = set(args.kinds.split(",")) if args.kinds else None
    if args.kinds and args.kinds - set(KINDS):
        ap.error(f"--kinds takes {', '.join(KINDS)}")
    return args


def _write_json(path: Path, runs: list[Run]) -> None:
    path.write_text(json.dumps([asdict(r) | {"verdict": r.verdict} for r in runs], indent=1), encoding="utf-8")


def run_all(args: argparse.Namespace) -> list[Run]:
    """Every selected run, one child process after the other, with a progress line each.

    With ``--json``, the file is rewritten after every run (a long run can be read while it goes on).
    """
    plan = select(args.only, args.kinds)
    runs = []
    for i, (path, kind) in enumerate(plan, 1):
        with tempfile.TemporaryDirectory(prefix="bench-scaling-") as scratch:
            run = run_child(path, kind, sizes_for(path, kind, args.doublings, args.quick), args.repeats, Path(scratch))
        runs.append(run)
        log(
            f"[{i}/{len(plan)}] {path.name} / {kind}: time {_time_exp(run)}, memory {_exp(run.mem_exp)}, "
            f"{run.verdict} ({run.cpu_s:.1f} s CPU, {run.wall_s:.1f} s)"
        )
        if args.json:
            _write_json(args.json, runs)
    return runs


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python3 -m bench.scaling``; exit status 0 even when paths fail (1 for a harness error)."""
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    if args.list:
        chosen = select(args.only, args.kinds)
        for name in dict.fromkeys(p.name for p, _ in chosen):
            print(f"{name} | {','.join(k for p, k in chosen if p.name == name)} | {PATHS[name].call}")
        return 0
    command = "python3 -m bench.scaling" + "".join(" " + shlex.quote(a) for a in argv)
    facts = machine_facts()
    facts["load_before"] = load_average()
    started = time.perf_counter()
    runs = run_all(args)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    facts["load_after"] = load_average()
    facts["minutes"] = f"{(time.perf_counter() - started) / 60:.1f}"
    facts["child_cpu"] = f"{(children.ru_utime + children.ru_stime) / 60:.1f}"
    facts["repeats"] = str(args.repeats)
    facts["cores"] = str(os.cpu_count())
    print("\n".join(markdown_table(runs) + [""] + summary(runs)))
    if args.json:
        _write_json(args.json, runs)
    if args.write:
        write_section(args.results, SCALING, section(runs, facts, command))
        log(f"wrote the Scaling section of {args.results}")
    return 1 if any(r.error for r in runs) else 0


if __name__ == "__main__":
    sys.exit(main())

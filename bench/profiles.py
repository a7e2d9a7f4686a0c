"""Profiles of the measurements that miss a target: where the time goes.

Training and encoding are profiled with pyinstrument (a sampling profiler, 1 ms
interval: little distortion of the Python hot loops); the page with cProfile,
because the page script runs on Streamlit's script thread and cProfile can be
switched on inside that thread (:func:`profile_script_thread`). Both give, per
function, its *self* share (time in the function's own code, built-ins it calls
counted separately) and its *inclusive* share (with everything it calls).
"""

from __future__ import annotations

import cProfile
import pstats
import sys
import threading
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .corpora import REPO


@dataclass(frozen=True)
class ProfileLine:
    """One function of a profile: ``self_share`` and ``inclusive_share`` are fractions of the total."""

    function: str
    self_share: float
    inclusive_share: float


@dataclass(frozen=True)
class Profile:
    """A summarised profile: what was run, by which profiler, for how long, and the top functions."""

    title: str
    profiler: str
    seconds: float
    top_self: tuple[ProfileLine, ...]
    top_inclusive: tuple[ProfileLine, ...]
    notes: tuple[str, ...] = ()


def _short_path(path: str) -> str:
    if not path:
        return ""
    p = Path(path)
    try:
        return str(p.resolve().relative_to(REPO))
    except (ValueError, OSError):
        pass
    parts = p.parts
    if "site-packages" in parts:
        return "/".join(parts[parts.index("site-packages") + 1 :])
    return p.name


def _label(function: str, path: str, line: int | None) -> str:
    where = _short_path(path)
    if not where or where.startswith("<"):
        return function
    return f"{function} ({where}:{line})" if line else f"{function} ({where})"


def _summary(
    title: str,
    profiler: str,
    total: float,
    self_time: dict,
    incl_time: dict,
    top: int,
    skip_inclusive: Callable[[str], bool],
) -> Profile:
    def lines(table: dict, other: dict, inclusive: bool) -> tuple[ProfileLine, ...]:
        ranked = sorted(table.items(), key=lambda kv: -kv[1])
        out = []
        for name, t in ranked:
            if inclusive and skip_inclusive(name):
                continue
            s, i = (other.get(name, 0.0), t) if inclusive else (t, other.get(name, 0.0))
            out.append(ProfileLine(name, s / total, i / total))
            if len(out) == top:
                break
        return tuple(out)

    return Profile(
        title,
        profiler,
        total,
        lines(self_time, incl_time, False),
        lines(incl_time, self_time, True),
    )


def _is_harness(name: str) -> bool:
    """Frames of the benchmark and of Streamlit's runner that wrap everything (100% inclusive, no news)."""
    return (
        name.startswith("<module>")
        or "bench/" in name
        or "scriptrunner/" in name
        or "testing/v1" in name
        or name.startswith("_run_script")
        or name.startswith("exec_func_with_error_handling")
        or name.startswith("code_to_exec")
        or name.startswith("<built-in method builtins.exec>")
        or name.startswith("run (streamlit/navigation")
        or "threading.py" in name
    )


def gc_share(fn: Callable[[], Any]) -> dict[str, float]:
    """Run ``fn()`` once unprofiled and measure the time Python's cyclic garbage collector took in it.

    Returns ``seconds`` (the run), ``gc_seconds`` and ``full_collections``
    (generation-2 collections, the ones that walk every live container, so
    they grow with what the run keeps alive). Uses ``gc.callbacks``.
    """
    import gc
    import time

    spent = [0.0, 0, 0.0]  # seconds, full collections, start of the current one

    def callback(phase: str, info: dict) -> None:
        if phase == "start":
            spent[2] = time.perf_counter()
        else:
            spent[0] += time.perf_counter() - spent[2]
            spent[1] += info.get("generation") == 2

    gc.collect()
    gc.callbacks.append(callback)
    try:
        start = time.perf_counter()
        fn()
        seconds = time.perf_counter() - start
    finally:
        gc.callbacks.remove(callback)
    return {"seconds": seconds, "gc_seconds": spent[0], "full_collections": spent[1]}


def profile_call(title: str, fn: Callable[[], Any], *, top: int = 8) -> Profile:
    """Profile ``fn()`` in this thread with pyinstrument; summarise its top functions."""
    from pyinstrument import Profiler

    profiler = Profiler(interval=0.001)
    profiler.start()
    try:
        fn()
    finally:
        session = profiler.stop()
    root = session.root_frame()
    self_time: dict[str, float] = defaultdict(float)
    incl_time: dict[str, float] = defaultdict(float)

    def walk(frame: Any, stack: frozenset) -> None:
        if frame.is_synthetic:  # "[self]" and similar: already counted as the parent's self time
            return
        name = _label(frame.function, frame.file_path or "", frame.line_no)
        own = frame.time - sum(c.time for c in frame.children if not c.is_synthetic)
        self_time[name] += own
        if name not in stack:  # recursion: count the outermost call only
            incl_time[name] += frame.time
        for child in frame.children:
            walk(child, stack | {name})

    if root is None:
        return Profile(title, "pyinstrument", 0.0, (), ())
    walk(root, frozenset())
    return _summary(title, "pyinstrument (1 ms sampling)", root.time, self_time, incl_time, top, _is_harness)


def profile_script_thread(title: str, fn: Callable[[], Any], *, top: int = 8) -> Profile:
    """Profile, with cProfile, what Streamlit's script thread runs while ``fn()`` (an AppTest run) executes.

    AppTest runs the page script on a thread named ``ScriptRunner.scriptThread``;
    ``threading.setprofile`` switches cProfile on as that thread starts.
    """
    prof = cProfile.Profile()
    lock = threading.Lock()
    started: list[str] = []

    def hook(_frame: Any, _event: str, _arg: Any) -> None:
        sys.setprofile(None)
        if threading.current_thread().name.startswith("ScriptRunner"):
            with lock:
                if not started:
                    started.append(threading.current_thread().name)
                    prof.enable()

    threading.setprofile(hook)
    try:
        fn()
    finally:
        threading.setprofile(None)  # type: ignore[arg-type]
    stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    self_time: dict[str, float] = defaultdict(float)
    incl_time: dict[str, float] = defaultdict(float)
    for (path, line, func), (_cc, _nc, tt, ct, _callers) in stats.items():
        name = _label(func, path if path != "~" else "", line or None)
        self_time[name] += tt
        incl_time[name] = max(incl_time[name], ct)
    total = sum(self_time.values()) or 1.0
    return _summary(title, "cProfile (script thread)", total, self_time, incl_time, top, _is_harness)

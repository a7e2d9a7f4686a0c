"""Page latency of the Train page, measured with Streamlit's AppTest (server time, no browser).

The flow a user follows: the app loads (default sample), they pick a corpus and a
merge budget in the sidebar form and press **Train**, then step through the merges.

* *train, cold*: from pressing Train to the first Train step rendered, with
  ``st.cache_data`` empty (so it includes reading the sample, training with the
  full trace and drawing step 1);
* *train, warm*: the same submit again (cache hit);
* *step change*: pressing **Next**. AppTest reruns the whole script for a click
  inside a fragment (it has no fragment-scoped rerun), so two figures are given:
  the full AppTest run, and the time the step player itself takes
  (:func:`ui.player.step_player`, timed by wrapping it from here: the ``st.fragment``
  body that a browser's click reruns alone on a real server);
* *slider jump*: moving the slider to the middle step (same two figures).

All of these are server time measured with AppTest and include AppTest's own
overhead (building the element tree, the mock runtime).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from .corpora import REPO
from .measure import Timing

APP = REPO / "app.py"
SAMPLE_KEY = "corpus_sample"
BUDGET_KEY = "set_budget"


@dataclass
class PageResult:
    """Medians over repeats of each page action; ``fragment`` holds the step player's own time per action."""

    sample: str
    merges: int
    timings: dict[str, Timing] = field(default_factory=dict)
    fragment: dict[str, Timing] = field(default_factory=dict)
    checks: dict[str, bool] = field(default_factory=dict)


ACTIONS = ("app_load", "train_cold", "train_warm", "step_next", "slider_jump")


class _StepPlayerTimer:
    """Wraps ``ui.player.step_player`` so each call's duration is recorded (restored by :meth:`close`)."""

    def __init__(self) -> None:
        import ui.player

        self.module = ui.player
        self.original = ui.player.step_player
        self.calls: list[float] = []

        def timed_player(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return self.original(*args, **kwargs)
            finally:
                self.calls.append(time.perf_counter() - start)

        ui.player.step_player = timed_player  # the page imports it by name on every run

    def take(self) -> float | None:
        """The total step-player time since the last take (``None`` if it did not run)."""
        calls, self.calls = self.calls, []
        return sum(calls) if calls else None

    def close(self) -> None:
        """Put the original function back."""
        self.module.step_player = self.original


def _subheader(at: Any) -> str:
    return at.subheader[0].value if len(at.subheader) else ""


def _submit(at: Any) -> Any:
    next(b for b in at.button if b.label == "Train").click()
    return at.run()


def measure_page(sample: str, merges: int, repeats: int, steps: int = 5, log=print) -> PageResult:
    """Measure the Train page on sample ``sample`` (a sidebar label) at ``merges`` merges.

    Each repeat starts a fresh AppTest with empty caches; step changes are
    measured ``steps`` times per repeat.
    """
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from ui.cache import trained

    result = PageResult(sample, merges)
    result.timings = {a: Timing() for a in ACTIONS}
    result.fragment = {a: Timing() for a in ("train_cold", "train_warm", "step_next", "slider_jump")}
    timer = _StepPlayerTimer()
    checks: dict[str, list[bool]] = {"no exception": [], "first step shown": [], "steps advance": []}
    try:
        for _ in range(repeats):
            st.cache_data.clear()
            trained.clear()  # training results are shared through st.cache_resource
            at = AppTest.from_file(str(APP), default_timeout=600)
            t0 = time.perf_counter()
            at.run()
            result.timings["app_load"].seconds.append(time.perf_counter() - t0)
            timer.take()
            at.selectbox(key=SAMPLE_KEY).set_value(sample)
            at.number_input(key=BUDGET_KEY).set_value(merges)
            for action in ("train_cold", "train_warm"):
                t0 = time.perf_counter()
                _submit(at)
                result.timings[action].seconds.append(time.perf_counter() - t0)
                _record(result.fragment[action], timer.take())
                checks["first step shown"].append(_subheader(at).startswith(f"Merge 1 of {merges:,} "))
            for k in range(steps):
                t0 = time.perf_counter()
                at.button(key="train_next").click().run()
                result.timings["step_next"].seconds.append(time.perf_counter() - t0)
                _record(result.fragment["step_next"], timer.take())
                checks["steps advance"].append(_subheader(at).startswith(f"Merge {k + 2:,} of {merges:,} "))
            middle = max(1, merges // 2)
            t0 = time.perf_counter()
            at.slider(key="train_step").set_value(middle).run()
            result.timings["slider_jump"].seconds.append(time.perf_counter() - t0)
            _record(result.fragment["slider_jump"], timer.take())
            checks["steps advance"].append(_subheader(at).startswith(f"Merge {middle:,} of {merges:,} "))
            checks["no exception"].append(not at.exception)
    finally:
        timer.close()
    result.checks = {k: bool(v) and all(v) for k, v in checks.items()}
    med = {a: t.median for a, t in result.timings.items()}
    log(
        f"  page {sample} @ {merges}: load {med['app_load']:.2f} s, train cold {med['train_cold']:.2f} s, "
        f"warm {med['train_warm']:.3f} s, step {med['step_next'] * 1000:.0f} ms "
        f"(step player {result.fragment['step_next'].median * 1000:.0f} ms), checks {result.checks}"
    )
    return result


def _record(timing: Timing, seconds: float | None) -> None:
    if seconds is not None:
        timing.seconds.append(seconds)


def profile_step(sample: str, merges: int, what: str = "step_next") -> Any:
    """A cProfile summary of one page action (``step_next`` or ``train_cold``) on the script thread."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from ui.cache import trained

    from .profiles import profile_script_thread

    st.cache_data.clear()
    trained.clear()  # training results are shared through st.cache_resource
    at = AppTest.from_file(str(APP), default_timeout=600).run()
    at.selectbox(key=SAMPLE_KEY).set_value(sample)
    at.number_input(key=BUDGET_KEY).set_value(merges)
    if what == "train_cold":
        return profile_script_thread(f"page: press Train ({sample}, {merges} merges, cold cache)", lambda: _submit(at))
    _submit(at)
    at.button(key="train_next").click().run()  # the first click may warm lazily built objects
    return profile_script_thread(
        f"page: step change (Next) on {sample}, {merges} merges (full AppTest rerun)",
        lambda: at.button(key="train_next").click().run(),
    )

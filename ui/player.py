"""A step player: slider, first/previous/next/last, play/pause and speed, animated with ``st.fragment``.

Only the fragment reruns while stepping or playing, so the expensive page
work above it (training, cache look-ups) is not repeated on every frame.

Every press is one step. The keys (→ ← Home End) and clicks on the step buttons
are counted in the browser (``player_keys.js``, a small ``st.components.v2``
component): it sends the step they lead to, as an absolute step with a sequence
number, and the server draws the newest one. Streamlit folds the events that
arrive while a frame is being drawn into one rerun, which would lose relative
"one more" presses; an absolute target loses none, and a burst of presses
jumps straight to where it leads. The buttons' own Streamlit callbacks and
shortcuts remain for a page whose script has not loaded yet (and for AppTest).

The current step lives in its own session key, not in the slider. While
playing, the slider is replaced by a progress bar: a slider would send back the
value it last showed with every click, and a click that crosses a timer frame
would then pull the player back a step. The browser may still hold the hidden
slider's old value and send it with the next click (Pause), so the slider is
only followed when the last frame drew it.

Play keeps its pace: the browser's timer asks for a frame every interval, and a
frame advances when the next step is due, counted from when the previous step
was due (not from when drawing it ended), so drawing time does not slow the
pace. A click during play is never a tick, and when frames fall a whole
interval behind (a slow server) the count starts again from now instead of
hurrying to catch up.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Mapping
from pathlib import Path

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from ui.presentation import presenting
from ui.state import PlayerKeys

SPEEDS = {"0.25 s": 0.25, "0.5 s": 0.5, "1 s": 1.0, "2 s": 2.0}
"""Seconds per step while playing."""
SHORTCUTS = {"first": "Home", "prev": "Left", "play": "Space", "next": "Right", "last": "End"}
"""The keys that press each button (Play and Pause share Space). Streamlit ignores them while the
cursor is in a text box, so typing is never taken for stepping."""


clock: Callable[[], float] = time.monotonic
"""The player's clock in seconds; tests replace it to play without waiting."""
PLAY_SLACK = 0.2
"""A timer frame that comes up to this share of the interval before the next step is due still advances it
(the browser's timer and the trip to the server are not exact)."""

_KEYS_JS = (Path(__file__).parent / "player_keys.js").read_text(encoding="utf-8")
_browser_keys = st.components.v2.component("bpe_player_keys", js=_KEYS_JS)


STEP_BUTTONS = {
    "first": ("First", ":material/first_page:"),
    "prev": ("Prev", ":material/chevron_left:"),
    "next": ("Next", ":material/chevron_right:"),
    "last": ("Last", ":material/last_page:"),
}
"""The buttons that move the player: label and icon, by their key in :class:`~ui.state.PlayerKeys`."""


def _buttons(keys: PlayerKeys, n: int, pos: int, move: Callable[..., None], shortcuts: bool) -> None:
    """First, Prev, Play or Pause, Next, Last, each as wide as its label and key; Play and Pause rerun the app."""
    key_of = SHORTCUTS if shortcuts else dict.fromkeys(SHORTCUTS)
    moves = {"first": {"to": 1}, "prev": {"delta": -1}, "next": {"delta": 1}, "last": {"to": n}}

    def step_button(name: str) -> None:
        label, icon = STEP_BUTTONS[name]
        st.button(
            label,
            key=getattr(keys, name),
            icon=icon,
            on_click=move,
            kwargs=moves[name],
            width="content",
            shortcut=key_of[name],
        )

    step_button("first")
    step_button("prev")
    _play_pause(keys, n, pos, key_of["play"])
    step_button("next")
    step_button("last")


def _play_pause(keys: PlayerKeys, n: int, pos: int, shortcut: str | None) -> None:
    """Pause while playing, else Play (from step 1 again when at the end); each reruns the whole app."""
    state = st.session_state
    if state[keys.playing]:
        if st.button("Pause", key=keys.pause, icon=":material/pause:", type="primary", shortcut=shortcut):
            state[keys.playing] = False
            st.rerun(scope="app")
    elif st.button("Play", key=keys.play, icon=":material/play_arrow:", type="primary", shortcut=shortcut):
        if pos >= n:
            state[keys.pos] = 1
        state[keys.playing] = True
        state[keys.tick] = clock()
        st.rerun(scope="app")


def asked_step(value: object) -> tuple[int, int] | None:
    """The ``(step, sequence number)`` the browser asked for in the keys component's state ``value``, or
    ``None`` when it holds no well-formed request (it comes from the browser: anything else is ignored)."""
    request = value.get("request") if isinstance(value, Mapping) else None
    if not isinstance(request, Mapping):
        return None
    step, seq = request.get("step"), request.get("seq")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (step, seq)):
        return None
    return step, seq


def _keys_in_browser(keys: PlayerKeys, n: int, pos: int, shortcuts: bool) -> None:
    """Mount ``player_keys.js``: it counts presses of the keys and step buttons and asks for the step they lead to.

    A new request (a sequence number not applied yet) sets the step before the frame runs; the step
    drawn and the last sequence number applied go back to the browser, which counts further presses
    from them once they have caught up with its own.
    """

    def follow() -> None:
        asked = asked_step(st.session_state.get(keys.keys))
        if asked is not None and asked[1] != st.session_state.get(keys.asked):
            st.session_state[keys.asked] = asked[1]
            st.session_state[keys.pos] = max(1, min(n, asked[0]))

    _browser_keys(
        key=keys.keys,
        data={
            "id": keys.step,
            "step": pos,
            "n": n,
            "seq": st.session_state.get(keys.asked, 0),
            "keys": shortcuts,
            "buttons": {name: f"st-key-{getattr(keys, name)}" for name in STEP_BUTTONS},
        },
        on_request_change=follow,
        height=0,
    )


def _initial_step(slider_key: str, n: int, initial: int = 1) -> int:
    """The step a shared link asks for (its query parameter), else ``initial``, within ``1..n``."""
    try:
        return max(1, min(n, int(st.query_params.get(slider_key, initial))))
    except (TypeError, ValueError):
        return max(1, min(n, initial))


def _start(keys: PlayerKeys, n: int, source: Hashable, initial: int) -> bool:
    """Set the player's session keys up for this run; True when a new ``source`` sent it back to ``initial``."""
    state = st.session_state
    reset = False
    if keys.pos not in state:
        state[keys.pos] = _initial_step(keys.step, n, initial)
    elif source is not None and state.get(keys.source, source) != source:
        state[keys.pos] = max(1, min(n, initial))
        state[keys.playing] = False
        reset = True
    state[keys.source] = source
    state.setdefault(keys.playing, False)
    state.setdefault(keys.speed, "0.5 s")
    state.setdefault(keys.tick, 0.0)
    return reset


def _played_step(keys: PlayerKeys, n: int, pos: int, interval: float) -> int:
    """``pos``, or the next step when playing and it is due (see the module docstring); Play stops at the end."""
    state = st.session_state
    # a click on Pause is never also a frame (its rerun can fall when a frame is due)
    if not state[keys.playing] or state.get(keys.pause):
        return pos
    now, due = clock(), state[keys.tick] + interval
    if now < due - PLAY_SLACK * interval:
        return pos
    if pos >= n:
        state[keys.playing] = False
        st.rerun(scope="app")
    # the next step is due one interval after this one was, however long drawing takes;
    # a frame a whole interval late (a busy server) starts the count again from now
    state[keys.tick] = due if now - due < interval else now
    return pos + 1


def _slider_or_progress(
    keys: PlayerKeys,
    n: int,
    pos: int,
    label: str,
    row: DeltaGenerator | None,
    follow: Callable[[], None],
    reset: list[bool],
) -> None:
    """While playing a progress bar, else the slider (bound to the link); in ``row`` (presentation mode) or
    below it. ``reset`` says a new source sent the player back: the slider must then show ``pos``."""
    state = st.session_state
    where = row if row is not None else st
    state[keys.slider_live] = not state[keys.playing] and n > 1
    if state[keys.playing]:
        where.progress(pos / n, text=f"{label} {pos:,} of {n:,}")
        return
    if n <= 1:
        return
    state[keys.step] = pos
    shown = where.slider(
        label,
        1,
        n,
        key=keys.step,
        on_change=follow,
        bind="query-params",
        label_visibility="collapsed" if row is not None else "visible",
    )
    if reset[0]:
        reset[0] = False
        if shown != pos:
            # A new n makes a new slider widget, which starts from the old step in the URL;
            # one more run lets the step set above win, and the URL follows it.
            st.rerun(scope="app")


def step_player(
    n: int,
    render: Callable[[int], None],
    *,
    keys: PlayerKeys,
    label: str = "Merge",
    source: Hashable = None,
    shortcuts: bool = True,
    initial: int = 1,
) -> None:
    """Draw a player over steps ``1..n`` and call ``render(step)`` for the current step.

    Its buttons answer the keys in :data:`SHORTCUTS` (← →, Space, Home, End); key presses and clicks on
    the step buttons are counted in the browser, so none is lost while a step is drawn. In presentation
    mode (:func:`ui.presentation.presenting`) the slider joins the button row and the row stays
    on screen while the page scrolls.

    Args:
        n: the number of steps (at least 1).
        render: draws one step; called inside the fragment on every frame.
        keys: this player's session-state keys (from :func:`ui.state.player_keys`; several
            players may coexist); the slider's key ``keys.step`` is also its URL parameter.
        label: the slider's label.
        source: what the steps come from (corpus and settings). When it differs from the
            previous run's, the player stops and goes back to its first step (``initial``): step 6 of another
            training is not where the user was. The first run keeps the step a link asks for.
        shortcuts: whether the keys work; a page with two players gives them to one only.
        initial: the step to open at (and to go back to for a new source) when the link names none:
            a walk-through whose point is its outcome opens at its last step.
    """
    pos_key = keys.pos
    reset = [_start(keys, n, source, initial)]  # a list: the fragment clears it once the slider followed
    playing = st.session_state[keys.playing]
    interval = SPEEDS[st.session_state[keys.speed]]

    def move(delta: int = 0, to: int | None = None) -> None:
        current = st.session_state[pos_key]
        st.session_state[pos_key] = max(1, min(n, to if to is not None else current + delta))

    def follow_slider() -> None:
        # Only a slider the last frame drew can have been moved. While playing, a progress bar stands in
        # for it, and the value the browser may still hold for the hidden slider (sent again with the
        # Pause click) is an old step: following it would pull the player back.
        if st.session_state.get(keys.slider_live):
            st.session_state[pos_key] = st.session_state[keys.step]

    @st.fragment(run_every=interval if playing else None)
    def frame() -> None:
        # A click on a control drawn by an earlier run can carry an older n: clamp here.
        pos = _played_step(keys, n, max(1, min(n, st.session_state[pos_key])), interval)
        st.session_state[pos_key] = pos
        present = presenting()
        with st.container(key=f"player-controls-{keys.step}"):
            row = st.container(horizontal=True, vertical_alignment="center", gap="small")
            with row:
                _buttons(keys, n, pos, move, shortcuts)
                speed = st.select_slider(
                    "Speed",
                    list(SPEEDS),
                    key=keys.speed,
                    label_visibility="collapsed",
                    width=150 if present else "stretch",
                )
            if playing and SPEEDS[speed] != interval:
                st.rerun(scope="app")
            pos = st.session_state[pos_key]
            _slider_or_progress(keys, n, pos, label, row if present else None, follow_slider, reset)
            _keys_in_browser(keys, n, pos, shortcuts)
        render(pos)

    frame()

"""A step player: slider, previous/next, play/pause and speed, animated with ``st.fragment``.

Only the fragment reruns while stepping or playing, so the expensive page
work above it (training, cache look-ups) is not repeated on every frame.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

SPEEDS = {"0.25 s": 0.25, "0.5 s": 0.5, "1 s": 1.0, "2 s": 2.0}
"""Seconds per step while playing."""


def _keys(key: str) -> tuple[str, str, str]:
    return f"{key}_step", f"{key}_playing", f"{key}_speed"


def step_player(n: int, render: Callable[[int], None], *, key: str, label: str = "Merge") -> None:
    """Draw a player over steps ``1..n`` and call ``render(step)`` for the current step.

    Args:
        n: the number of steps (at least 1).
        render: draws one step; called inside the fragment on every frame.
        key: a prefix for this player's session-state keys (several players may coexist).
        label: the slider's label.
    """
    step_key, playing_key, speed_key = _keys(key)
    st.session_state.setdefault(step_key, 1)
    st.session_state.setdefault(playing_key, False)
    st.session_state.setdefault(speed_key, "0.5 s")
    if st.session_state[step_key] > n:
        st.session_state[step_key] = n
    playing = st.session_state[playing_key]
    interval = SPEEDS[st.session_state[speed_key]]

    @st.fragment(run_every=interval if playing else None)
    def frame() -> None:
        # A click on a control drawn by an earlier run can carry an older n: clamp again here.
        st.session_state[step_key] = max(1, min(n, st.session_state[step_key]))
        if st.session_state[playing_key]:
            if st.session_state[step_key] >= n:
                st.session_state[playing_key] = False
                st.rerun(scope="app")
            st.session_state[step_key] += 1

        def move(delta: int | None = None, to: int | None = None) -> None:
            current = st.session_state[step_key]
            st.session_state[step_key] = max(1, min(n, to if to is not None else current + (delta or 0)))

        cols = st.columns([1, 1, 1.4, 1, 1, 2.2])
        cols[0].button(
            "First", key=f"{key}_first", icon=":material/first_page:", on_click=move, kwargs={"to": 1}, width="stretch"
        )
        cols[1].button(
            "Prev",
            key=f"{key}_prev",
            icon=":material/chevron_left:",
            on_click=move,
            kwargs={"delta": -1},
            width="stretch",
        )
        if st.session_state[playing_key]:
            if cols[2].button("Pause", key=f"{key}_pause", icon=":material/pause:", type="primary", width="stretch"):
                st.session_state[playing_key] = False
                st.rerun(scope="app")
        elif cols[2].button("Play", key=f"{key}_play", icon=":material/play_arrow:", type="primary", width="stretch"):
            if st.session_state[step_key] >= n:
                st.session_state[step_key] = 1
            st.session_state[playing_key] = True
            st.rerun(scope="app")
        cols[3].button(
            "Next",
            key=f"{key}_next",
            icon=":material/chevron_right:",
            on_click=move,
            kwargs={"delta": 1},
            width="stretch",
        )
        cols[4].button(
            "Last", key=f"{key}_last", icon=":material/last_page:", on_click=move, kwargs={"to": n}, width="stretch"
        )
        speed = cols[5].select_slider("Speed", list(SPEEDS), key=speed_key, label_visibility="collapsed")
        if playing and SPEEDS[speed] != interval:
            st.rerun(scope="app")
        if n > 1:
            st.slider(label, 1, n, key=step_key, bind="query-params")
        render(st.session_state[step_key])

    frame()

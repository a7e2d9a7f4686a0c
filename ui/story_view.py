"""The Encode page's encoding player: one pre-token, rule by rule, with the shared step player."""

from __future__ import annotations

from collections.abc import Callable, Hashable

import streamlit as st

from bpe_core import PieceTrace
from ui import state
from ui.player import step_player
from viz.encode_story import story_caption, story_html, story_rows
from viz.encode_views import blocked_rules
from viz.markdown import plain


def story_player(piece: PieceTrace, show: Callable[[str], str], unit: str, end_of_word: bool, source: Hashable) -> None:
    """Play how ``piece`` is encoded: a token strip per state, the pair that fires next outlined blue.

    Args:
        piece: the chosen pre-token's trace (in the page's merge order).
        show: how tokens are displayed (:func:`viz.tokens.display_of`).
        unit, end_of_word: the tokenizer's unit and whether it writes ``</w>``.
        source: what the trace comes from (tokenizer, text, order, pre-token): a new one restarts the player.
    """
    rows = story_rows(piece, show)
    if rows is None:
        st.caption("This pre-token is too long for the player: its states were not recorded (see the table below).")
        return
    blocked = blocked_rules(piece)

    def render(step: int) -> None:
        st.html(story_html(rows, step, unit, end_of_word, blocked))
        st.caption(plain(story_caption(rows, step, blocked, show)))

    if len(rows) == 1:
        render(1)
        return
    step_player(len(rows), render, keys=state.STORY_PLAYER, label="Step", source=source)

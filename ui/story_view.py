"""The Encode page's encoding player: one pre-token, rule by rule, with the shared step player."""

from __future__ import annotations

from collections.abc import Callable, Hashable

import streamlit as st

from bpe_core import PieceTrace
from ui import state
from ui.player import step_player
from viz.encode_story import ROWS_SHOWN, STRIP, STRIP_CHARS, story_caption, story_html, story_rows
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
    rows = story_rows(piece, show)  # built on demand: a long word's states are not stored
    blocked = blocked_rules(piece)

    def render(step: int) -> None:
        st.html(story_html(rows, step, unit, end_of_word, blocked))
        st.caption(plain(story_caption(rows, step, blocked, show)))
        if len(rows) > ROWS_SHOWN or len(piece.initial) > STRIP:
            st.caption(
                f"A long pre-token: the last {ROWS_SHOWN} states up to this step are drawn, each cut to at most "
                f"{STRIP} symbols ({STRIP_CHARS} characters) around the rule that fires (… counts the symbols "
                "left out)."
            )
        if piece.blocked_omitted:
            st.caption(f"{piece.blocked_omitted:,} more blocked rules are not listed (see the table below).")

    if len(rows) == 1:
        render(1)
        return
    step_player(len(rows), render, keys=state.STORY_PLAYER, label="Step", source=source)

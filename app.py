"""BPE Explorer: watch Byte-Pair Encoding learn and apply its merges. This script is the Train page.

Run with ``streamlit run app.py``. The app is Streamlit's classic multipage
layout: this file is the first page (Train), ``pages/*.py`` are the others, and
every page script starts with :func:`ui.layout.setup_page` (page config,
preload, sidebar, navigation). Page scripts only read widgets, call cached
builders and render.
"""

from __future__ import annotations

import streamlit as st

from bpe_core import BPEError
from ui import sidebar, state
from ui.cache import session_trained
from ui.layout import setup_page
from ui.player import step_player
from ui.presentation import presenting
from ui.step_view import render_step
from viz.corpus_strip import excerpt_pieces
from viz.markdown import plain
from viz.train_tables import compact, corpus_summary

setup_page("Train")
corpus, settings = sidebar.applied()
st.title("Train: watch BPE learn its merges")
try:
    result = session_trained(corpus, settings)
except (BPEError, TypeError) as exc:
    st.error(f"Cannot train on {plain(corpus.name)}: {plain(exc)}")
    st.stop()
st.session_state[state.RESULT] = result

summary = corpus_summary(result)
if presenting():  # one line instead of seven metrics: the step below gets the screen
    st.caption(" · ".join(f"{name} **{value:,}**" for name, value in summary.items()))
else:
    for col, (name, value) in zip(st.columns(len(summary)), summary.items()):
        col.metric(name, compact(value), help=f"{value:,}" if compact(value) != f"{value:,}" else None)
if result.stop_reason:
    st.info(plain(result.stop_reason))
if result.num_merges == 0:
    if result.stop_reason:
        st.warning("No merge was learned: see above why training stopped.")
    else:
        st.warning(
            "No merge was learned: the budget allows none (0 merges, or a vocabulary size equal to the base "
            f"alphabet of {len(result.vocab):,}). Raise the budget in the sidebar."
        )
    st.stop()

excerpt = excerpt_pieces(corpus.text, result.config.pretokenizer, result.config.special_tokens)
step_player(
    result.num_merges,
    lambda step: render_step(st.session_state[state.RESULT], step, excerpt=excerpt),
    keys=state.TRAIN_PLAYER,
    source=(corpus.sha256, settings),
)

"""The Encode page's BPE-dropout section: its controls, the sampled segmentations, and one pre-token across samples.

BPE-dropout (Provilkov et al. 2020) skips each merge that could fire with probability p at every step, so the same
text gets other segmentations from the same vocabulary; the engine draws them (``Tokenizer.encode_with_trace(...,
dropout=p, seed=s)``), :func:`ui.cache.dropout_samples` caches them, and this module only draws.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import streamlit as st

from bpe_core import PieceTrace
from ui import state
from ui.cache import DropoutSample
from ui.links import MAX_DROPOUT_SAMPLES, MAX_DROPOUT_SEED
from viz.encode_views import piece_views
from viz.markdown import plain
from viz.tokens import tokens_row

NO_DROPOUT = "no dropout"
"""The player's choice that plays the plain encoding."""
DROPOUT_NOTE = (
    "BPE-dropout (Provilkov et al. 2020): at every merge step each merge that could fire is skipped with "
    "probability p, so one text gets many segmentations from the same vocabulary; models trained on such samples "
    "see how words are built. p = 0 is the plain encoding, p = 1 leaves every pre-token in its base symbols. The "
    "rule is subword-nmt's (apply_bpe.py --dropout); Hugging Face's differs in detail and cannot be seeded. "
    "The same seed gives the same samples (sample k uses seed + k - 1)."
)


@dataclass(frozen=True)
class DropoutChoice:
    """What the dropout controls hold.

    Attributes:
        on: whether to draw samples.
        dropout: the probability p, in ``[0, 1]``.
        count: how many samples.
        seed: the first sample's seed.
    """

    on: bool
    dropout: float
    count: int
    seed: int

    @property
    def settings(self) -> tuple[float, int, int]:
        """``(dropout, seed, count)``, as :func:`ui.cache.dropout_samples` takes them."""
        return self.dropout, self.seed, self.count


def dropout_requested() -> bool:
    """Whether the Dropout toggle is on in this run, read before it is drawn, so that the page can lay itself out
    around the samples: its value from the last run, or on a link's first run the link's ``encode_dropout``."""
    if state.ENCODE_DROPOUT in st.session_state:
        return bool(st.session_state[state.ENCODE_DROPOUT])
    return st.query_params.get(state.ENCODE_DROPOUT, "").lower() == "true"


def dropout_controls(bind: str) -> DropoutChoice:
    """The section's heading, note and controls (bound to the URL through ``bind``)."""
    st.subheader("BPE-dropout: other segmentations of the same text")
    st.caption(DROPOUT_NOTE)
    c = st.columns([1, 2, 1, 1])
    on = c[0].toggle("Dropout", value=False, key=state.ENCODE_DROPOUT, bind=bind)
    percent = c[1].slider(
        "p: chance of skipping each merge (%)",
        0,
        100,
        10,
        step=5,
        key=state.ENCODE_DROPOUT_PERCENT,
        disabled=not on,
        bind=bind,
    )
    count = c[2].number_input(
        "Samples", 1, MAX_DROPOUT_SAMPLES, 3, key=state.ENCODE_DROPOUT_SAMPLES, disabled=not on, bind=bind
    )
    seed = c[3].number_input("Seed", 0, MAX_DROPOUT_SEED, 0, key=state.ENCODE_DROPOUT_SEED, disabled=not on, bind=bind)
    return DropoutChoice(bool(on), percent / 100, int(count), int(seed))


def no_dropout_label(tokenizer: str, tokens: int) -> None:
    """The label of the plain encoding's tokens when they are drawn as the first of the sample rows
    (``tokenizer``: the tokenizer's name as the page's choice says it)."""
    st.markdown(f"**No dropout** ({plain(tokenizer)}): {tokens:,} tokens")


def sample_rows(samples: Sequence[DropoutSample], plain_tokens: int, show_ws: bool, show_ids: bool) -> None:
    """Each sample's tokens, one row per sample, with its seed and its token count against the plain encoding."""
    for k, sample in enumerate(samples, start=1):
        n = len(sample.trace.ids)
        st.markdown(
            f"**Sample {k}** (seed {sample.seed:,}): {n:,} tokens, {n - plain_tokens:+,} against no dropout; "
            f"{_skipped(sample.trace.skipped_merges)} along the way"
        )
        st.html(tokens_row(sample.views, show_whitespace=show_ws, show_ids=show_ids))
        if len(sample.views) < n:
            st.caption(f"Showing the first {len(sample.views):,} of {n:,} tokens.")


def sample_pieces(samples: Sequence[DropoutSample], index: int, plain: PieceTrace, bind: str, limit: int) -> PieceTrace:
    """Pre-token ``index`` in every sample side by side (after the plain encoding); the one the player plays.

    The samples cut the text into the same pre-tokens as the plain encoding (dropout only changes merging), so
    ``index`` picks the same pre-token in each.
    """
    choices = [NO_DROPOUT, *(f"sample {k}" for k in range(1, len(samples) + 1))]
    chosen = st.radio("Play", choices, key=state.ENCODE_DROPOUT_PLAY, horizontal=True, bind=bind)
    pieces = [plain] + [[p for p in s.trace.pieces if not p.special][index] for s in samples]
    for col, name, piece in zip(st.columns(len(pieces)), choices, pieces):
        n = len(piece.ids)
        col.caption(f"{name}: {n:,} token{'s' if n != 1 else ''}, {_skipped(piece.skipped_merges)}")
        col.html(tokens_row(piece_views(piece)[:limit], show_ids=False))
    return pieces[choices.index(chosen) if chosen in choices else 0]


def _skipped(count: int) -> str:
    """``"3 merges skipped"``: a count of :attr:`bpe_core.PieceTrace.skipped_merges` in words."""
    return f"{count:,} merge{'s' if count != 1 else ''} skipped"

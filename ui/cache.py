"""Cached builders: the expensive calls pages make, each behind ``st.cache_data``."""

from __future__ import annotations

import streamlit as st

import bpe_core
from ui.corpus import read_sample
from ui.settings import TrainSettings


@st.cache_data(max_entries=16, show_spinner=False)
def sample_text(label: str) -> str:
    """A sample corpus's text by label (read once per process)."""
    return read_sample(label)


@st.cache_data(max_entries=8, show_spinner=False)
def trained(text: str, settings: TrainSettings) -> bpe_core.TrainResult:
    """Train on ``text`` with ``settings``, showing a progress bar while it runs.

    The bar is created inside the cached function so that a cache hit replays
    nothing visible (it is emptied before returning).

    Raises:
        bpe_core.BPEError, TypeError: bad corpus or settings (not cached).
    """
    bar = st.progress(0.0, text="Counting pairs…")

    def progress(done: int, total: int) -> None:
        bar.progress(done / total, text=f"Learning merge {done:,} of {total:,}")

    result = bpe_core.train(text, **settings.kwargs(), progress=progress)
    bar.empty()
    return result


def ready_tokenizer_names() -> list[str]:
    """Names of the real tokenizers shipped with the app (empty if their tables are missing)."""
    try:
        from bpe_core.formats import bundled_names
    except ImportError:
        return []
    return list(bundled_names())


@st.cache_resource(show_spinner="Loading the merge table…")
def ready_tokenizer(name: str) -> bpe_core.Tokenizer:
    """A shipped real tokenizer (GPT-2, cl100k_base), parsed once per process.

    ``st.cache_resource`` (not ``cache_data``): the parsed tables are large and
    read-only, so every session shares one copy instead of unpickling it.
    """
    from bpe_core.formats import bundled

    return bundled(name)


@st.cache_data(max_entries=32, show_spinner=False)
def held_out_counts(text: str, settings: TrainSettings, held_out: str, order: str) -> list[int]:
    """Token counts of ``held_out`` after 0..N merges of the run ``trained(text, settings)``."""
    from bpe_core.compression import token_counts_by_merges

    return token_counts_by_merges(trained(text, settings).tokenizer, held_out, order)

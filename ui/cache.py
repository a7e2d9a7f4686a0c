"""Cached builders: the expensive calls pages make, each behind ``st.cache_data``."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

import bpe_core
from bpe_core.formats import Download, Loaded, Proof
from ui import state
from ui.corpus import CorpusChoice, read_sample
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


def session_trained(corpus: CorpusChoice, settings: TrainSettings) -> bpe_core.TrainResult:
    """:func:`trained`, remembered in the session for the corpus and settings it was last called with.

    ``st.cache_data`` hands out a fresh copy on every call, which for a book-sized
    trace means unpickling megabytes on every rerun; keeping this session's copy
    makes reruns with unchanged settings (stepping, encoding) skip that.

    Raises:
        bpe_core.BPEError, TypeError: as :func:`trained`.
    """
    key = (corpus.digest, settings)
    memo = st.session_state.get(state.RESULT_MEMO)
    if memo is not None and memo[0] == key:
        return memo[1]
    result = trained(corpus.text, settings)
    st.session_state[state.RESULT_MEMO] = (key, result)
    return result


READY = {"GPT-2": "gpt2", "cl100k_base": "cl100k_base"}
"""The real tokenizers shipped in reference_tokenizers/, by the label the Encode page shows."""


@st.cache_resource(show_spinner=False)
def start_preload() -> None:
    """Parse the shipped GPT-2 and cl100k_base tables in a background thread, once per process,
    so the Encode page finds them ready instead of waiting about a second."""
    from bpe_core.formats import preload

    preload(list(READY.values()))


@st.cache_resource(show_spinner="Loading the merge table…")
def ready_tokenizer(label: str) -> bpe_core.Tokenizer:
    """A shipped real tokenizer (GPT-2, cl100k_base), parsed once per process.

    ``st.cache_resource`` (not ``cache_data``): the parsed tables are large and
    read-only, so every session shares one copy instead of unpickling it.
    """
    from bpe_core.formats import bundled

    return bundled(READY[label])


@st.cache_data(max_entries=8, show_spinner="Reading the tokenizer files…")
def uploaded_tokenizer(files: dict[str, bytes]) -> Loaded:
    """Load uploaded tokenizer files (any supported format, or a zip of them).

    Raises:
        bpe_core.BPEError: the files are malformed or not a known format (the message says which and why).
    """
    from bpe_core.formats import load_files

    return load_files(files)


@dataclass(frozen=True)
class ExportRow:
    """One format on the download list: the file to offer, or why it cannot be written, and the proof."""

    format: str
    description: str
    download: Download | None
    reason: str | None
    proof: Proof | None


def _export_rows(source: bpe_core.TrainResult | bpe_core.Tokenizer, probe: str, **options: object) -> list[ExportRow]:
    from bpe_core.formats import FORMATS, ExportError, download, prove

    rows = []
    for fmt, description in FORMATS.items():
        try:
            file = download(source, fmt, **options)
        except ExportError as exc:
            rows.append(ExportRow(fmt, description, None, str(exc), None))
            continue
        rows.append(ExportRow(fmt, description, file, None, prove(source, fmt, probe, **options)))
    return rows


@st.cache_data(max_entries=8, show_spinner="Writing every format and reading it back…")
def trained_exports(text: str, settings: TrainSettings, corpus_name: str, probe: str) -> list[ExportRow]:
    """Every format for the tokenizer trained on ``text``, each proven on ``probe`` (same ids after reloading)."""
    result = trained(text, settings)
    return _export_rows(result, probe, name="bpe-explorer", corpus=text, corpus_name=corpus_name)


@st.cache_data(max_entries=8, show_spinner="Writing every format and reading it back…")
def uploaded_exports(files: dict[str, bytes], probe: str) -> list[ExportRow]:
    """Every format for an uploaded tokenizer (conversion between formats), each proven on ``probe``."""
    return _export_rows(uploaded_tokenizer(files).tokenizer, probe, name="converted")


@st.cache_data(max_entries=32, show_spinner=False)
def held_out_counts(text: str, settings: TrainSettings, held_out: str, order: str) -> list[int]:
    """Token counts of ``held_out`` after 0..N merges of the run ``trained(text, settings)``."""
    from bpe_core.compression import token_counts_by_merges

    return token_counts_by_merges(trained(text, settings).tokenizer, held_out, order)

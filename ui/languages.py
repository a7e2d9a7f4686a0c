"""The Languages page's helpers: the UDHR's sections, each tokenizer's counts and a trained table's premium
curves (cached, with progress), the chart click that picks a language, and the button that trains on the UDHR."""

from __future__ import annotations

from collections.abc import Callable, Hashable

import streamlit as st

import bpe_core
from bpe_core import ParallelSection, PremiumCurves
from bpe_core.analysis.languages import token_counts, unseen_characters
from ui import state
from ui.cache import ready_tokenizer, sample_text
from ui.corpus import CorpusChoice

UDHR_SAMPLE = "UDHR in 84 languages + emoji (1.7 MB)"
"""The sample whose ``=== UDHR: <name> [<code>] ===`` sections the page measures."""
TRAINED = "Trained here"
"""The label of the Train page's table among the tokenizers."""
UDHR_TRAINING = {
    state.PRETOKENIZER: "gpt2",
    state.UNIT: "byte",
    state.TIE_BREAK: "first_seen",
    state.BUDGET_KIND: "merges",
    state.BUDGET: 2000,
    state.MIN_FREQUENCY: 2,
    state.SPECIALS: "",
}
"""What the "train on the UDHR" button puts in the sidebar: GPT-2's pre-tokenizer on bytes, 2,000 merges
(about two seconds on the 1.7 MB sample)."""


@st.cache_resource(show_spinner="Reading the UDHR's 84 languages…")
def udhr_sections() -> dict[str, ParallelSection]:
    """The UDHR sample's sections (read-only, shared by every session).

    Raises:
        bpe_core.SectionError: the sample's headers are malformed (a broken checkout).
    """
    return bpe_core.parallel_sections(sample_text(UDHR_SAMPLE), collection="UDHR")


def _bar(what: str) -> tuple[Callable[[int, int], None], Callable[[], None]]:
    """A progress bar for measuring the sections with ``what``: its callback and the function that removes it."""
    bar = st.progress(0.0, text=f"Encoding the declaration in every language with {what}…")

    def progress(done: int, total: int) -> None:
        bar.progress(done / total, text=f"Encoding the declaration with {what}: {done} of {total} languages")

    return progress, bar.empty


@st.cache_data(max_entries=4, show_spinner=False)
def ready_counts(label: str) -> dict[str, int]:
    """Tokens of each UDHR section under a shipped tokenizer (GPT-2, cl100k_base, o200k_base), with a progress bar.

    Raises:
        bpe_core.BPEError: the tokenizer cannot be loaded.
    """
    progress, done = _bar(label)
    try:
        return token_counts(ready_tokenizer(label), udhr_sections(), progress=progress)
    finally:
        done()


@st.cache_data(max_entries=4, show_spinner=False)
def trained_curves(_result: bpe_core.TrainResult, source: Hashable) -> PremiumCurves:
    """The UDHR sections' premium curves over the table ``_result`` (the Train page's run), with a progress bar.

    ``_result`` is not hashed: ``source`` names it (the corpus's source and SHA-256, and the settings).
    """
    progress, done = _bar("the table trained here, merge by merge")
    try:
        return bpe_core.premium_curves(_result, udhr_sections(), progress=progress)
    finally:
        done()


@st.cache_data(max_entries=4, show_spinner=False)
def unseen_counts(_result: bpe_core.TrainResult, source: Hashable) -> dict[str, int]:
    """Characters of each UDHR section outside the alphabet of the table ``_result`` (the Train page's run; all
    0 for a byte-level table): :func:`bpe_core.analysis.languages.unseen_characters`. ``source`` names the table, as for
    :func:`trained_curves`."""
    return unseen_characters(_result, udhr_sections())


def source_of(corpus: CorpusChoice, settings: Hashable) -> Hashable:
    """What names the Train page's run in :func:`trained_curves`'s cache."""
    return (corpus.source, corpus.sha256, settings)


def trained_on_udhr(corpus: CorpusChoice) -> bool:
    """Whether the Train page's corpus is the UDHR sample (a mix of 84 languages)."""
    return corpus.source == "sample" and corpus.name == UDHR_SAMPLE


LANG_PARAM = "lang"
"""The URL parameter naming the picked language by its code (``?lang=mya``); the select box shows names."""
DEFAULT_LANGUAGE = "hin"


def language_from_link(codes: list[str]) -> str | None:
    """Seed the language picker from the link's ``?lang=<code>`` on a session's first run of the page; return
    the link's value when it names no section (the page says so), else ``None``."""
    if state.LANG_CODE in st.session_state:
        return None
    linked = st.query_params.get(LANG_PARAM)
    st.session_state[state.LANG_CODE] = linked if linked in codes else DEFAULT_LANGUAGE
    return linked if linked is not None and linked not in codes else None


def language_to_link(code: str) -> None:
    """Keep the picked language in the link (left out when it is the default)."""
    if code == DEFAULT_LANGUAGE:
        st.query_params.pop(LANG_PARAM, None)
    else:
        st.query_params[LANG_PARAM] = code


def pick_from_chart(chart_key: str) -> None:
    """Chart callback: a clicked bar (its ``customdata`` starts with the code) picks that language."""
    selection = st.session_state.get(chart_key)
    points = selection.selection.points if selection is not None else []
    if points and points[0].get("customdata"):
        st.session_state[state.LANG_CODE] = points[0]["customdata"][0]


def train_on_udhr() -> None:
    """Button callback: choose the UDHR sample and :data:`UDHR_TRAINING` in the sidebar, and apply them as
    Train does (the sidebar trains them on this run)."""
    st.session_state[state.SOURCE] = "Sample"
    st.session_state[state.SAMPLE] = UDHR_SAMPLE
    for key, value in UDHR_TRAINING.items():
        st.session_state[key] = value
    st.session_state[state.APPLY_PENDING] = True


def train_button(key: str) -> None:
    """The button that trains the Train page's table on the UDHR sample (:func:`train_on_udhr`), naming what it
    will train; ``key``: its widget key (the page shows it twice)."""
    st.button(
        f"Train on the UDHR sample ({UDHR_TRAINING[state.PRETOKENIZER]}, {UDHR_TRAINING[state.UNIT]}, "
        f"{UDHR_TRAINING[state.BUDGET]:,} merges)",
        key=key,
        on_click=train_on_udhr,
        icon=":material/model_training:",
    )

"""The Check an example page's helpers: read its boxes, run the checks cached, and open matching settings in Train."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

import bpe_core
from bpe_core.checking import CheckSettings, looks_like_word_counts, parse_claimed, parse_word_counts
from ui import sidebar, state
from ui.corpus import MAX_PASTE_CHARS, CorpusChoice
from ui.provenance import open_train_at
from ui.settings import TrainSettings

KINDS = ("Detect", "Word counts", "Text")
"""How the corpus box is read: detected, ``low 5`` lines, or running text."""
MAX_CORPUS_CHARS = 100_000
"""The corpus box's limit: finding settings trains 24 times."""
PRETOKENIZER_LABELS: dict[str, tuple[str, str]] = {
    "whitespace_eow, </w> separate": ("whitespace_eow", "separate"),
    "whitespace_eow, </w> attached": ("whitespace_eow", "attached"),
    "whitespace (no </w>)": ("whitespace", "separate"),
    "trailing_space": ("trailing_space", "separate"),
    "gpt2": ("gpt2", "separate"),
    "none": ("none", "separate"),
}
"""The check page's pre-tokenizer choices (see :data:`bpe_core.checking.PRETOKENIZER_CHOICES`)."""
TEXT_ONLY = frozenset({"trailing_space", "gpt2", "none"})
"""Pre-tokenizers that only differ from ``whitespace`` on running text, not on word counts."""


@dataclass(frozen=True)
class ExampleCorpus:
    """The corpus box as read: word counts or text, with the text a Train page link would train on.

    Attributes:
        corpus: the ``{word: count}`` read, or the text.
        counted: True for word counts.
        text: the text the Train page gets (word counts: each word repeated its count times), or ``""``
            when that text would not fit the sidebar's paste box (then ``too_long`` says why).
        too_long: why the corpus cannot be opened in the Train page (``""`` when it can).
    """

    corpus: str | dict[str, int]
    counted: bool
    text: str
    too_long: str = ""

    def describe(self) -> str:
        """``4 distinct words, 16 in all (word counts)`` or ``120 characters of text``."""
        if isinstance(self.corpus, dict):
            return f"word counts: {len(self.corpus):,} distinct words, {sum(self.corpus.values()):,} in all"
        return f"text: {len(self.corpus):,} characters"


def read_corpus(box: str, kind: str) -> ExampleCorpus:
    """Read the corpus box as ``kind`` (one of :data:`KINDS`).

    Word counts become, for the Train page, each word repeated its count times in
    the order written, which trains exactly as the counts do with the whitespace
    pre-tokenizers. That text is built only when it fits the sidebar's paste box
    (:data:`ui.corpus.MAX_PASTE_CHARS`); its length is worked out first, so a count
    of millions costs no memory.

    Raises:
        bpe_core.ClaimError: word counts that cannot be read, or a count past
            :data:`bpe_core.corpus.MAX_WORD_FREQUENCY` (naming the line).
        bpe_core.EmptyCorpusError: an empty box.
    """
    if not box.strip():
        raise bpe_core.EmptyCorpusError("the corpus box is empty: type word counts such as 'low 5', or text")
    counted = kind == "Word counts" or (kind == "Detect" and looks_like_word_counts(box))
    if not counted:
        if len(box) > MAX_PASTE_CHARS:
            return ExampleCorpus(box, False, "", _too_long(f"this text has {len(box):,} characters", counted))
        return ExampleCorpus(box, False, box)
    counts = parse_word_counts(box)
    length = sum((len(w) + 1) * n for w, n in counts.items()) - 1  # the words repeated, one space between
    if length > MAX_PASTE_CHARS:
        return ExampleCorpus(counts, True, "", _too_long(f"these counts make {length:,} characters of text", counted))
    return ExampleCorpus(counts, True, " ".join(" ".join([w] * n) for w, n in counts.items()))


def _too_long(what: str, counted: bool) -> str:
    """Why a corpus this long cannot be opened in the Train page, and what to do instead."""
    instead = (
        "upload these counts as a word-count file in the sidebar (Source: Word counts)"
        if counted
        else "upload this text as a .txt file in the sidebar (Source: Upload)"
    )
    return (
        f"Opening in the Train page is off: {what}, more than the sidebar's paste box takes "
        f"({MAX_PASTE_CHARS:,}). To train on it, {instead}."
    )


@st.cache_data(max_entries=32, show_spinner="Training to check the claim…")
def checked(corpus: str | dict[str, int], claim: tuple, settings: CheckSettings) -> bpe_core.MergeCheck:
    """:func:`bpe_core.check_merges` under ``settings``, cached."""
    return bpe_core.check_merges(corpus, list(claim), **settings.kwargs())


@st.cache_data(max_entries=32, show_spinner="Trying every combination of settings…")
def matching(corpus: str | dict[str, int], claim: tuple) -> list[CheckSettings]:
    """:func:`bpe_core.find_settings`, cached."""
    return bpe_core.find_settings(corpus, list(claim))


def read_claim(box: str) -> tuple:
    """The claimed-merges box as a hashable claim (see :func:`bpe_core.checking.parse_claimed`).

    Raises:
        bpe_core.ClaimError: a line that cannot be read (naming it).
    """
    return tuple(parse_claimed(box))


def open_in_train(example: ExampleCorpus, settings: CheckSettings, merges: int, step: int) -> None:
    """Button callback: put the example's corpus and ``settings`` in the sidebar, apply them as Train does,
    and open the Train page at merge ``step``.

    Raises:
        ValueError: ``example.too_long`` is set (the page disables the buttons then).
    """
    if example.too_long:
        raise ValueError(example.too_long)
    choice = CorpusChoice("paste", "pasted text", example.text)
    applied = TrainSettings(
        pretokenizer=settings.pretokenizer,
        unit=settings.unit,
        end_of_word=settings.end_of_word,
        tie_break=settings.tie_break,
        budget_kind="merges",
        budget=merges,
        min_frequency=settings.min_frequency,
    )
    s = st.session_state
    s[state.SOURCE] = "Paste"
    s[state.PASTE] = example.text
    s[state.PRETOKENIZER], s[state.UNIT], s[state.END_OF_WORD] = applied.pretokenizer, applied.unit, applied.end_of_word
    s[state.TIE_BREAK], s[state.BUDGET_KIND], s[state.BUDGET] = applied.tie_break, "merges", merges
    s[state.MIN_FREQUENCY], s[state.SPECIALS] = applied.min_frequency, ""
    s[state.APPLIED_CORPUS], s[state.APPLIED_SETTINGS] = choice, applied
    st.query_params[sidebar.TEXT_PARAM] = choice.digest
    open_train_at(step)

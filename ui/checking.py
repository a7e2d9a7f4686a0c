"""The Check an example page's helpers: read its boxes in the example's notation, run the checks cached, and
open matching settings in Train."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

import bpe_core
from bpe_core.analysis.checking import (
    CheckSettings,
    Notation,
    WordCounts,
    looks_like_word_counts,
    parse_claimed,
    read_word_counts,
)
from bpe_core.analysis.notation import notations_of
from ui import sidebar, state
from ui.corpus import MAX_PASTE_CHARS, CorpusChoice
from ui.links import CHECK_MAX_CORPUS_CHARS
from ui.provenance import open_train_at
from ui.settings import TrainSettings
from viz.checking import COUNT_TEXT_COLUMNS

KINDS = ("Detect", "Word counts", "Text")
"""How the corpus box is read: detected, word counts (``low 5``, ``5 l o w _`` ...), or running text."""
MAX_CORPUS_CHARS = CHECK_MAX_CORPUS_CHARS
"""The corpus box's limit: finding settings trains :data:`bpe_core.analysis.checking.FIND_TRAININGS` times and more."""
PRETOKENIZER_LABELS: dict[str, tuple[str, str]] = {
    "whitespace_eow, </w> separate": ("whitespace_eow", "separate"),
    "whitespace_eow, </w> attached": ("whitespace_eow", "attached"),
    "whitespace (no </w>)": ("whitespace", "separate"),
    "trailing_space": ("trailing_space", "separate"),
    "gpt2": ("gpt2", "separate"),
    "none": ("none", "separate"),
}
"""The check page's pre-tokenizer choices (see :data:`bpe_core.analysis.checking.PRETOKENIZER_CHOICES`)."""
DETECTED_COUNTS = (
    "Most lines read as word counts; to check this box as running text, choose Text under “Read the corpus as”."
)
"""Said after the line a detected word count list cannot read."""
TEXT_ONLY = frozenset({"trailing_space", "gpt2", "none"})
"""Pre-tokenizers that only differ from ``whitespace`` on running text, not on word counts."""
DETECT = "Detect"
AS_PRETOKENIZER = "As the pre-tokenizer writes it"
NOTATION_LABELS: dict[str, Notation | None] = {
    DETECT: None,
    AS_PRETOKENIZER: None,
    "_ separate (Jurafsky & Martin)": Notation("_", "separate"),
    "_ attached": Notation("_", "attached"),
    "</w> separate": Notation("</w>", "separate"),
    "</w> attached": Notation("</w>", "attached"),
    "▁ at the start (SentencePiece)": Notation("▁"),
    "Ġ at the start (GPT-2)": Notation("Ġ"),
    "@@ continuation (subword-nmt)": Notation("@@", "attached"),
}
"""The marker box's choices: detect it, none (the pre-tokenizer's own notation), or one of the markers books use."""
VERDICT_COLUMNS = {name: st.column_config.TextColumn(alignment="right") for name in COUNT_TEXT_COLUMNS}
"""The verdict table's count columns that may be blank are text (:func:`viz.checking.verdict_frame`): aligned
as numbers."""


@dataclass(frozen=True)
class ExampleCorpus:
    """The corpus box as read: word counts (with how they were written) or text.

    Attributes:
        corpus: the ``{word: count}`` read, or the text.
        counts: the :class:`~bpe_core.analysis.notation.WordCounts` read, or ``None`` for text.
    """

    corpus: str | dict[str, int]
    counts: WordCounts | None = None

    @property
    def counted(self) -> bool:
        """True for word counts."""
        return self.counts is not None

    def describe(self) -> str:
        """``5 words with counts, spelled with spaces, _ at the end as a separate symbol (18 in all)``, or
        ``running text (120 characters)``."""
        if self.counts is not None:
            return self.counts.describe()
        return f"running text ({len(self.corpus):,} characters)"

    def train_text(self, settings: CheckSettings) -> tuple[str, str]:
        """``(text, "")``: the text the Train page gets for ``settings`` (word counts: each word, with a start
        marker if the notation has one, repeated its count times); or ``("", why not)`` when that text would
        not fit the sidebar's paste box (:data:`ui.corpus.MAX_PASTE_CHARS`). Its length is worked out first,
        so a count of millions costs no memory."""
        corpus = settings.train_corpus(self.corpus)
        if isinstance(corpus, str):
            if len(corpus) > MAX_PASTE_CHARS:
                return "", _too_long(f"this text has {len(corpus):,} characters", False)
            return corpus, ""
        length = sum((len(w) + 1) * n for w, n in corpus.items()) - 1  # the words repeated, one space between
        if length > MAX_PASTE_CHARS:
            return "", _too_long(f"these counts make {length:,} characters of text", True)
        return " ".join(" ".join([w] * n) for w, n in corpus.items()), ""


def read_corpus(box: str, kind: str) -> ExampleCorpus:
    """Read the corpus box as ``kind`` (one of :data:`KINDS`); word counts in any layout of
    :func:`bpe_core.analysis.checking.read_word_counts`.

    With Detect, a box most of whose lines read as word counts is read as word counts
    (:func:`bpe_core.analysis.checking.looks_like_word_counts`): a line that does not (``low -5``, another layout)
    is named, with how to read the box as running text instead (:data:`DETECTED_COUNTS`), rather than the
    whole box silently read as text.

    Raises:
        bpe_core.ClaimError: word counts that cannot be read, or a count past
            :data:`bpe_core.text.corpus.MAX_WORD_FREQUENCY` (naming the line).
        bpe_core.EmptyCorpusError: an empty box.
    """
    if not box.strip():
        raise bpe_core.EmptyCorpusError("the corpus box is empty: type word counts such as 'low 5', or text")
    if kind == "Word counts":
        counts = read_word_counts(box)
    elif kind == "Detect" and looks_like_word_counts(box):
        try:
            counts = read_word_counts(box)
        except bpe_core.ClaimError as exc:
            if looks_like_word_counts(box, every_entry=True):
                raise  # every line is a word count (one too large, say): no doubt it is meant as counts
            raise bpe_core.ClaimError(f"{exc}. {DETECTED_COUNTS}") from exc
    else:
        return ExampleCorpus(box)
    return ExampleCorpus(counts.counts, counts)


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


def notation_for(label: str, example: ExampleCorpus, claim: tuple) -> tuple[Notation | None, str]:
    """The notation to read the example in, and where it was found (``""`` when chosen or none).

    With :data:`DETECT`: the marker the corpus is spelled with (``5 l o w _``), else the
    first one the claimed merges carry (``er _``); else none (the pre-tokenizer's own).
    """
    if label != DETECT:
        return NOTATION_LABELS.get(label), ""
    if example.counts is not None and example.counts.notation is not None:
        return example.counts.notation, "spelled in the corpus"
    found = notations_of([s for pair, _count in claim for s in pair])
    if found and found[0].marker != bpe_core.MARKER:
        return found[0], "found in the claimed merges"
    return None, ""


def settings_for(
    pre_label: str, tie: str, min_frequency: int, notation: Notation | None, corpus: str | dict[str, int]
) -> CheckSettings:
    """The check's settings: the pre-tokenizer box's, or those the notation stands for."""
    if notation is None:
        return CheckSettings(*PRETOKENIZER_LABELS[pre_label], tie, min_frequency)
    implied = notation.train_settings(corpus)
    return CheckSettings(
        implied["pretokenizer"], notation.end_of_word, tie, min_frequency, implied.get("unit", "char"), notation.marker
    )


@st.cache_data(max_entries=32, show_spinner="Training to check the claim…")
def checked(corpus: str | dict[str, int], claim: tuple, settings: CheckSettings) -> bpe_core.MergeCheck:
    """:func:`bpe_core.check_merges` under ``settings``, cached."""
    return bpe_core.check_merges(corpus, list(claim), **settings.kwargs())


@st.cache_data(max_entries=32, show_spinner="Trying every combination of settings and markers…")
def matching(corpus: str | dict[str, int], claim: tuple, spelled: Notation | None = None) -> list[CheckSettings]:
    """:func:`bpe_core.find_settings`, cached; the markers tried are those the claim carries, and the one the
    corpus is spelled with (``spelled``), both placements of an end marker."""
    found = notations_of([s for pair, _count in claim for s in pair])
    if spelled is not None:
        found = [*notations_of([spelled.spelled("a")]), *found]
    notations = list(dict.fromkeys(n for n in found if n.marker != bpe_core.MARKER))
    return bpe_core.find_settings(corpus, list(claim), notations=notations)


def read_claim(box: str) -> tuple:
    """The claimed-merges box as a hashable claim (see :func:`bpe_core.analysis.checking.parse_claimed`).

    Raises:
        bpe_core.ClaimError: a line that cannot be read (naming it).
    """
    return tuple(parse_claimed(box))


def open_in_train(example: ExampleCorpus, settings: CheckSettings, merges: int, step: int) -> None:
    """Button callback: put the example's corpus (in the engine's notation) and ``settings`` in the sidebar,
    apply them as Train does, and open the Train page at merge ``step``.

    Raises:
        ValueError: the corpus does not fit the paste box (the page disables the buttons then).
    """
    text, too_long = example.train_text(settings)
    if too_long:
        raise ValueError(too_long)
    choice = CorpusChoice("paste", "pasted text", text)
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
    s[state.PASTE] = text
    s[state.PRETOKENIZER], s[state.UNIT], s[state.END_OF_WORD] = applied.pretokenizer, applied.unit, applied.end_of_word
    s[state.TIE_BREAK], s[state.BUDGET_KIND], s[state.BUDGET] = applied.tie_break, "merges", merges
    s[state.MIN_FREQUENCY], s[state.SPECIALS] = applied.min_frequency, ""
    s[state.APPLIED_CORPUS], s[state.APPLIED_SETTINGS] = choice, applied
    st.query_params[sidebar.TEXT_PARAM] = choice.digest
    open_train_at(step)


def follow_first_wrong(report: bpe_core.MergeCheck, labels: list[str], signature: tuple) -> None:
    """Point the "true top pairs" box at the first wrong merge whenever the input (``signature``) changes;
    the user's own choice stays until then."""
    s = st.session_state
    if s.get(state.CHECK_TOP_FOR) != signature or s.get(state.CHECK_TOP_STEP) not in labels:
        s[state.CHECK_TOP_FOR] = signature
        s[state.CHECK_TOP_STEP] = labels[report.first_wrong or 0]

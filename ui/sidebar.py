"""The shared sidebar: corpus source and training settings, applied with the Train button."""

from __future__ import annotations

import streamlit as st

from bpe_core import END_OF_WORD, PRETOKENIZERS, TIE_BREAKS, UNITS, WordCountError, parse_word_counts
from ui import state
from ui.cache import sample_text
from ui.corpus import (
    DEFAULT_SAMPLE,
    MAX_PASTE_CHARS,
    MAX_UPLOAD_MB,
    SAMPLES,
    CorpusChoice,
    CorpusInputError,
    check_paste,
    check_upload,
)
from ui.settings import TrainSettings, parse_special_tokens
from viz.markdown import plain

SOURCES = ("Sample", "Paste", "Upload", "Word counts")
COUNTS_HELP = (
    "A corpus counted elsewhere (DuckDB, Spark, sort | uniq -c): one 'word<TAB>count', 'word count' or "
    "'count word' per line, a header line allowed. Each word is one pre-token; the README shows how to count "
    "a corpus of any size with DuckDB in one line."
)
TEXT_PARAM = "text"
"""URL parameter naming pasted or uploaded text by its hash (the text itself never goes into the URL)."""
BUDGET_KINDS = {"merges": "Number of merges", "vocab_size": "Vocabulary size"}

SOURCES_OF: dict[str, dict[str, str]] = {
    "pretokenizer": {
        "whitespace_eow": "words split at whitespace, each ending in the end-of-word suffix </w> "
        "(Sennrich et al. 2016, subword-nmt).",
        "whitespace": "words split at whitespace, no end-of-word suffix: the spaces are dropped "
        "(like Hugging Face's WhitespaceSplit).",
        "trailing_space": "words split at whitespace, each keeping the space after it, tokens like 'the ' "
        "(a teaching variant: the mirror image of GPT-2's leading space).",
        "gpt2": "GPT-2's split pattern: words with their leading space, digit runs, punctuation runs "
        "(Radford et al. 2019, OpenAI encoder.py).",
        "gpt4": "cl100k_base's split pattern (GPT-3.5/GPT-4): digit runs of at most three, case-insensitive "
        "contractions (tiktoken).",
        "none": "no pre-tokenizer: the whole text is one sequence and merges may cross spaces "
        "(Gage 1994, the original byte-pair compression).",
    },
    "unit": {
        "char": "base symbols are the Unicode characters seen in the corpus (Sennrich et al. 2016, subword-nmt).",
        "byte": "base symbols are the 256 UTF-8 byte values, so no character is ever unknown (GPT-2's byte-level BPE).",
    },
    "end_of_word": {
        "separate": "</w> is a symbol of its own after each word (Sennrich et al. 2016; subword-nmt 0.1).",
        "attached": "</w> is glued to each word's last character, 'r</w>' (subword-nmt 0.2 and later; "
        "Hugging Face's end_of_word_suffix).",
    },
    "tie_break": {
        "first_seen": "the tied pair that occurs first in the corpus wins (Karpathy's minbpe, tiktoken's "
        "educational trainer).",
        "alphabetical": "the tied pair that sorts first by its two symbols wins (a fixed, readable rule).",
        "subword_nmt": "the tied pair that sorts last by its two symbols wins (subword-nmt learn_bpe: max over "
        "(count, pair)).",
        "hf_tokenizers": "the tied pair with the smallest symbol ids wins (Hugging Face tokenizers' BpeTrainer).",
    },
}
"""For each setting, each option's one-line help: what it does and where it comes from."""


def _options_help(intro: str, field: str) -> str:
    """A help text: one line of introduction, then one bullet per option (markdown)."""
    return intro + "\n\n" + "\n".join(f"- **{name}**: {what}" for name, what in SOURCES_OF[field].items())


HELP = {
    "pretokenizer": _options_help(
        "How text is cut into pre-tokens before BPE counts pairs; a merge never crosses a pre-token.",
        "pretokenizer",
    ),
    "unit": _options_help("What the base symbols of the vocabulary are.", "unit"),
    "end_of_word": _options_help(
        "How the end-of-word suffix is written (only for the whitespace_eow pre-tokenizer).", "end_of_word"
    ),
    "tie_break": _options_help("Which pair wins when several share the top count.", "tie_break"),
    "budget_kind": "Count the budget in merges (subword-nmt's -s/--symbols), or as the final vocabulary size: "
    "special tokens + base alphabet + one token per merge (Hugging Face's and SentencePiece's vocab_size).",
    "budget": "How many merge rules to learn, or the vocabulary size to stop at (chosen just above). "
    "Sennrich et al. 2016: the number of merges is BPE's only hyper-parameter; GPT-2 used 50,000.",
    "min_frequency": "Stop when the best pair occurs fewer times than this (subword-nmt's --min-frequency, "
    "Hugging Face's min_frequency).",
    "specials": "Comma-separated tokens such as <|endoftext|>: they get the first ids and are cut out of "
    "the corpus before counting (as Hugging Face and tiktoken treat special tokens).",
}


def _current_choice(source: str) -> CorpusChoice:
    """The corpus the sidebar widgets describe right now.

    Raises:
        CorpusInputError: nothing usable was given (the message says what to do).
    """
    if source == "Paste":
        return CorpusChoice("paste", "pasted text", check_paste(st.session_state.get(state.PASTE) or ""))
    if source == "Upload":
        upload = st.session_state.get(state.UPLOAD)
        if upload is None:
            raise CorpusInputError(f"choose a .txt file to upload (UTF-8, up to {MAX_UPLOAD_MB} MB)")
        return CorpusChoice("upload", upload.name, data=check_upload(upload.getvalue(), upload.name))
    if source == "Word counts":
        upload = st.session_state.get(state.COUNTS_UPLOAD)
        if upload is None:
            raise CorpusInputError(f"choose a word-count file to upload (UTF-8, up to {MAX_UPLOAD_MB} MB)")
        try:
            counts = parse_word_counts(check_upload(upload.getvalue(), upload.name), upload.name)
        except WordCountError as exc:
            raise CorpusInputError(str(exc)) from None
        return CorpusChoice("counts", upload.name, counts=counts)
    label = st.session_state.get(state.SAMPLE) or DEFAULT_SAMPLE
    return CorpusChoice("sample", label, sample_text(label))


def _current_settings() -> TrainSettings:
    s = st.session_state
    return TrainSettings(
        pretokenizer=s[state.PRETOKENIZER],
        unit=s[state.UNIT],
        end_of_word=s[state.END_OF_WORD],
        tie_break=s[state.TIE_BREAK],
        budget_kind=s[state.BUDGET_KIND],
        budget=int(s[state.BUDGET]),
        min_frequency=int(s[state.MIN_FREQUENCY]),
        special_tokens=parse_special_tokens(s[state.SPECIALS] or ""),
    )


def render() -> None:
    """Draw the sidebar; on "Train" (and on first load) store the applied corpus and settings.

    Pages read what was applied with :func:`applied`.
    """
    defaults = TrainSettings()
    bind = "query-params"
    with st.sidebar:
        st.header("Corpus")
        source = st.segmented_control("Source", SOURCES, default="Sample", key=state.SOURCE, required=True, bind=bind)
        with st.form(state.TRAIN_FORM, border=False):
            if source == "Paste":
                st.text_area(
                    "Paste text",
                    key=state.PASTE,
                    height=160,
                    max_chars=MAX_PASTE_CHARS,
                    placeholder="Paste a paragraph, a page or a whole book…",
                    persist_state="session",  # kept while a page without this sidebar (Lessons) is open
                )
            elif source == "Upload":
                st.file_uploader(
                    f"Upload a .txt file (UTF-8, up to {MAX_UPLOAD_MB} MB)",
                    type=["txt"],
                    key=state.UPLOAD,
                    help="Line ends (CRLF or LF) are kept as they are in the file. The file is decoded and "
                    "its words counted in one pass when you press Train.",
                )
            elif source == "Word counts":
                st.file_uploader(
                    f"Upload word counts (UTF-8, up to {MAX_UPLOAD_MB} MB)",
                    type=["txt", "tsv", "counts"],
                    key=state.COUNTS_UPLOAD,
                    help=COUNTS_HELP,
                )
            else:
                st.selectbox(
                    "Sample",
                    list(SAMPLES),
                    index=list(SAMPLES).index(DEFAULT_SAMPLE),
                    key=state.SAMPLE,
                    help="Sources and licences: sample_corpora/README.md",
                    bind=bind,
                )
            st.header("Training")
            st.selectbox(
                "Pre-tokenizer",
                list(PRETOKENIZERS),
                index=list(PRETOKENIZERS).index(defaults.pretokenizer),
                key=state.PRETOKENIZER,
                help=HELP["pretokenizer"],
                bind=bind,
            )
            st.radio("Unit", list(UNITS), key=state.UNIT, horizontal=True, help=HELP["unit"], bind=bind)
            st.radio(
                "End of word (</w>)",
                list(END_OF_WORD),
                key=state.END_OF_WORD,
                horizontal=True,
                help=HELP["end_of_word"],
                bind=bind,
            )
            st.selectbox("Tie rule", list(TIE_BREAKS), key=state.TIE_BREAK, help=HELP["tie_break"], bind=bind)
            st.radio(
                "Budget",
                list(BUDGET_KINDS),
                format_func=BUDGET_KINDS.get,
                key=state.BUDGET_KIND,
                horizontal=True,
                help=HELP["budget_kind"],
                bind=bind,
            )
            st.number_input(
                "Merges / vocabulary size",
                min_value=0,
                max_value=200_000,
                value=defaults.budget,
                step=50,
                key=state.BUDGET,
                help=HELP["budget"],
                bind=bind,
            )
            st.number_input(
                "Min frequency",
                min_value=1,
                max_value=1_000_000,
                value=defaults.min_frequency,
                key=state.MIN_FREQUENCY,
                help=HELP["min_frequency"],
                bind=bind,
            )
            st.text_input(
                "Special tokens",
                key=state.SPECIALS,
                placeholder="<|endoftext|>, <pad>",
                help=HELP["specials"],
                bind=bind,
            )
            submitted = st.form_submit_button("Train", type="primary", width="stretch")
        first = state.APPLIED_SETTINGS not in st.session_state
        if submitted or first:
            try:
                choice = _current_choice(source or "Sample")
            except CorpusInputError as exc:
                if not first:
                    st.error(plain(exc))
                else:  # a shared link to pasted or uploaded text this session has not seen
                    digest = st.query_params.get(TEXT_PARAM)
                    st.info(
                        f"This link was made from {'pasted' if source == 'Paste' else 'uploaded'} text"
                        + (f" (SHA-256 {digest}…)" if digest else "")
                        + " that this browser session does not have. Showing the default sample; "
                        "give the same text and press Train to reproduce the link."
                    )
                    choice = CorpusChoice("sample", DEFAULT_SAMPLE, sample_text(DEFAULT_SAMPLE))
                    st.session_state[state.APPLIED_CORPUS] = choice
                    st.session_state[state.APPLIED_SETTINGS] = _current_settings()
            else:
                st.session_state[state.APPLIED_CORPUS] = choice
                st.session_state[state.APPLIED_SETTINGS] = _current_settings()
                if choice.source == "sample":
                    st.query_params.pop(TEXT_PARAM, None)
                else:
                    st.query_params[TEXT_PARAM] = choice.digest
        choice = st.session_state.get(state.APPLIED_CORPUS)
        if choice is not None:
            st.caption(
                f"Applied with Train: **{plain(choice.name)}**, {choice.describe()} "
                "(for the Train and Compare pages and Encode's “Trained here”)"
            )


def applied() -> tuple[CorpusChoice, TrainSettings]:
    """The corpus and settings of the last "Train" (the defaults before any)."""
    return st.session_state[state.APPLIED_CORPUS], st.session_state[state.APPLIED_SETTINGS]

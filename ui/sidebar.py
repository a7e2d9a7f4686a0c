"""The shared sidebar: corpus source and training settings, applied with the Train button."""

from __future__ import annotations

import streamlit as st

from bpe_core import END_OF_WORD, PRETOKENIZERS, TIE_BREAKS, UNITS, BPEError, WordCountError, parse_word_counts
from bpe_core.options import (
    MAX_MERGES,
    MAX_MIN_FREQUENCY,
    MAX_SPECIAL_LENGTH,
    MAX_SPECIAL_TOKENS,
    MAX_VOCAB_SIZE,
    OPTIONS,
)
from ui import state
from ui.cache import sample_text, session_trained
from ui.corpus import (
    DEFAULT_SAMPLE,
    LONGER_TEXT,
    MAX_PASTE_CHARS,
    MAX_UPLOAD_MB,
    SAMPLES,
    CorpusChoice,
    CorpusInputError,
    check_paste,
    check_upload,
)
from ui.links import MAX_BUDGET
from ui.settings import BUDGET_KINDS, TRAIN_MEMORY_BUDGET, TrainSettings, parse_special_tokens
from viz.markdown import plain

SOURCES = ("Sample", "Paste", "Upload", "Word counts")
COUNTS_HELP = (
    "A corpus counted elsewhere (DuckDB, Spark, sort | uniq -c): one 'word<TAB>count', 'word count' or "
    "'count word' per line, a header line allowed. Each word is one pre-token; the README shows how to count "
    "a corpus of any size with DuckDB in one line."
)
KEPT = {"Upload": (state.UPLOAD, state.UPLOADED_TEXT), "Word counts": (state.COUNTS_UPLOAD, state.UPLOADED_COUNTS)}
"""Source -> (its uploader's key, the key keeping the file last trained on from it)."""
KEPT_SOURCE = {"upload": "Upload", "counts": "Word counts"}
"""A CorpusChoice's source -> the sidebar source whose file it keeps."""
TEXT_PARAM = "corpus_hash"
"""URL parameter naming pasted or uploaded text by its hash (the text itself never goes into the URL).
Links made before it was renamed call it ``text``; :func:`ui.layout.setup_page` reads those as before."""


def _help(name: str) -> str:
    return OPTIONS[name].help()


HELP = {
    "pretokenizer": _help("pretokenizer"),
    "unit": _help("unit"),
    "end_of_word": _help("end_of_word"),
    "tie_break": _help("tie_break"),
    "budget_kind": f"Count the budget in merges ({OPTIONS['num_merges'].source}), or as the final vocabulary "
    f"size: {OPTIONS['vocab_size'].summary[0].lower()}{OPTIONS['vocab_size'].summary[1:]} "
    f"({OPTIONS['vocab_size'].source}).",
    "budget": f"{OPTIONS['num_merges'].summary} ({OPTIONS['num_merges'].source}). Or the vocabulary size to stop "
    f"at, as chosen just above. At most {MAX_MERGES:,} merges or a vocabulary of {MAX_VOCAB_SIZE:,}; a training "
    f"that needs more than {TRAIN_MEMORY_BUDGET // 2**20:,} MB of memory stops early and says so.",
    "min_frequency": _help("min_frequency"),
    "specials": "Comma-separated. " + _help("special_tokens"),
}
"""Help text of each sidebar setting: what it does, its values and where each comes from (from OPTIONS)."""
MAX_SPECIALS_CHARS = MAX_SPECIAL_TOKENS * (MAX_SPECIAL_LENGTH + 2)
"""The special-tokens box holds at most this many characters: the most tokens, each the longest, with ", "."""


EOW_PRETOKENIZER = "whitespace_eow"
"""The one pre-tokenizer that writes the end-of-word suffix (the others ignore the End of word setting)."""


def eow_ignored(pretokenizer: str) -> str:
    """Why the End of word control is disabled under ``pretokenizer`` (one sentence)."""
    return (
        f"Disabled: the {pretokenizer} pre-tokenizer writes no end-of-word suffix, so this setting "
        f"changes nothing. Choose {EOW_PRETOKENIZER} and press Train to set it."
    )


def _current_choice(source: str) -> CorpusChoice:
    """The corpus the sidebar widgets describe right now.

    Raises:
        CorpusInputError: nothing usable was given (the message says what to do).
    """
    if source == "Paste":
        return CorpusChoice("paste", "pasted text", check_paste(st.session_state.get(state.PASTE) or ""))
    if source in KEPT and st.session_state.get(KEPT[source][0]) is None:
        kept = st.session_state.get(KEPT[source][1])
        if kept is not None:  # the uploader is empty on another page, but the file stays until removed
            return kept
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
        _uploader(source)
        with st.form(state.TRAIN_FORM, border=False):
            if source == "Paste":
                st.text_area(
                    "Paste text",
                    key=state.PASTE,
                    height=160,
                    max_chars=MAX_PASTE_CHARS,
                    placeholder=f"Paste a paragraph or a few pages, up to {MAX_PASTE_CHARS:,} characters…",
                    persist_state="session",  # kept while a page without this sidebar (Lessons) is open
                )
                st.caption(
                    f"The box takes up to {MAX_PASTE_CHARS:,} characters; a longer paste does not go in (past that "
                    f"size the browser tab stalls). {LONGER_TEXT}"
                )
            elif source not in ("Upload", "Word counts"):  # their uploaders are above the form (see _uploader)
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
            pretokenizer = st.session_state.get(state.PRETOKENIZER, defaults.pretokenizer)
            ignored = pretokenizer != EOW_PRETOKENIZER
            st.radio(
                "End of word (</w>)",
                list(END_OF_WORD),
                key=state.END_OF_WORD,
                horizontal=True,
                help=(eow_ignored(pretokenizer) + "\n\n" if ignored else "") + HELP["end_of_word"],
                disabled=ignored,
                bind=bind,
            )
            if ignored:
                st.caption(plain(f"Ignored by {pretokenizer}: only {EOW_PRETOKENIZER} writes </w>."))
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
                max_value=MAX_BUDGET,
                value=defaults.budget,
                step=50,
                key=state.BUDGET,
                help=HELP["budget"],
                bind=bind,
            )
            st.number_input(
                "Min frequency",
                min_value=1,
                max_value=MAX_MIN_FREQUENCY,
                value=defaults.min_frequency,
                key=state.MIN_FREQUENCY,
                help=HELP["min_frequency"],
                bind=bind,
            )
            st.text_input(
                "Special tokens",
                key=state.SPECIALS,
                max_chars=MAX_SPECIALS_CHARS,
                placeholder="<|endoftext|>, <pad>",
                help=HELP["specials"],
                bind=bind,
            )
            submitted = st.form_submit_button("Train", type="primary", width="stretch")
        submitted = st.session_state.pop(state.APPLY_PENDING, False) or submitted
        if source == "Paste" and len(st.session_state.get(state.PASTE) or "") >= MAX_PASTE_CHARS:
            st.warning(f"The paste box is full ({MAX_PASTE_CHARS:,} characters). {LONGER_TEXT}")
        first = state.APPLIED_SETTINGS not in st.session_state
        if submitted or first:
            _apply(source or "Sample", first)
        choice = st.session_state.get(state.APPLIED_CORPUS)
        if choice is not None:
            st.caption(
                f"Applied with Train: **{plain(choice.name)}**, {choice.describe()} "
                "(for the Train and Compare pages and Encode's “Trained here”)"
            )
    if problem := st.session_state.pop(state.TRAIN_PROBLEM, None):  # said once, on the run of the Train press
        st.error(plain(problem))


def _uploader(source: str) -> None:
    """The file uploader of the Upload or Word counts source, outside the Train form: choosing a file reruns
    the page, which clears the last Train's error about the file before (a form would keep it on screen)."""
    if source == "Upload":
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
        return
    _kept_upload(*KEPT[source])


def _kept_upload(uploader: str, kept_key: str) -> None:
    """Under an empty uploader, name the file trained on before (Train uses it again) and offer to remove it."""
    kept = st.session_state.get(kept_key)
    if kept is None or st.session_state.get(uploader) is not None:
        return
    st.caption(
        f"Kept from your last upload: **{plain(kept.name)}** ({kept.describe()}); Train uses it until you "
        "upload another file or remove it."
    )
    st.button("Remove the kept file", key=f"{kept_key}_remove", on_click=st.session_state.pop, args=(kept_key, None))


def _link_without_text(source: str) -> CorpusChoice:
    """The default sample, after saying that the link names pasted or uploaded text this session lacks."""
    digest = st.query_params.get(TEXT_PARAM)
    st.info(
        f"This link was made from {'pasted' if source == 'Paste' else 'uploaded'} text"
        + (f" (SHA-256 {plain(digest[:64])}…)" if digest else "")
        + " that this browser session does not have. Showing the default sample; "
        "give the same text and press Train to reproduce the link."
    )
    return CorpusChoice("sample", DEFAULT_SAMPLE, sample_text(DEFAULT_SAMPLE))


def _apply(source: str, first: bool) -> None:
    """Check the sidebar's corpus and settings and train on them; store them only if that works.

    A Train that cannot train (an unusable corpus, a setting past its limits,
    special tokens that cover the whole corpus) says why and keeps the last good
    training applied, so the other pages go on working with it. On a session's
    first run (nothing applied yet) the defaults stand in for what cannot be used.
    """
    st.session_state.pop(state.TRAIN_PROBLEM, None)
    stand_in = False  # the default sample stands in for a link's text: the link keeps naming that text
    try:
        choice = _current_choice(source)
    except CorpusInputError as exc:
        if not first:
            st.error(plain(exc))
            return
        choice = _link_without_text(source)  # a shared link to text this session has not seen
        stand_in = True
    try:
        settings = _current_settings().checked()
        session_trained(choice, settings)
    except (BPEError, TypeError) as exc:
        kept = "the last training stays applied" if not first else "showing the default settings instead"
        st.session_state[state.TRAIN_PROBLEM] = f"Cannot train on {choice.name}: {exc}. Nothing changed: {kept}."
        if not first:
            return
        settings = TrainSettings()
    st.session_state[state.APPLIED_CORPUS] = choice
    st.session_state[state.APPLIED_SETTINGS] = settings
    if choice.source in KEPT_SOURCE:  # kept for the next Train after a page switch empties the uploader
        st.session_state[KEPT[KEPT_SOURCE[choice.source]][1]] = choice
    if stand_in:  # its corpus hash stays in the URL: passed on, the link still says what it was made from
        return
    if choice.source == "sample":
        st.query_params.pop(TEXT_PARAM, None)
    else:
        st.query_params[TEXT_PARAM] = choice.digest


def applied() -> tuple[CorpusChoice, TrainSettings]:
    """The corpus and settings of the last "Train" (the defaults before any)."""
    return st.session_state[state.APPLIED_CORPUS], st.session_state[state.APPLIED_SETTINGS]

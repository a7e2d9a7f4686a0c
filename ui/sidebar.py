"""The shared sidebar: corpus source and training settings, applied with the Train button."""

from __future__ import annotations

import streamlit as st

from bpe_core import (
    END_OF_WORD,
    PRETOKENIZER_SPECS,
    PRETOKENIZERS,
    TIE_BREAKS,
    UNITS,
    BPEError,
    TrainResult,
    WordCountError,
    parse_word_counts,
)
from bpe_core.formats import load_session, to_session
from bpe_core.registry.options import (
    MAX_MERGES,
    MAX_MIN_FREQUENCY,
    MAX_SPECIAL_LENGTH,
    MAX_SPECIAL_TOKENS,
    MAX_VOCAB_SIZE,
    OPTIONS,
)
from ui import state
from ui.cache import kept_texts, sample_text, session_trained
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
from ui.kept_texts import MAX_KEPT_TEXTS
from ui.links import LINK_TEXT_SIZE, MAX_BUDGET, MAX_LINK_TEXT, TEXT_IN_LINK, pack_text, packed_length, unpack_text
from ui.settings import BUDGET_KINDS, TRAIN_MEMORY_BUDGET, TrainSettings, parse_special_tokens
from ui.tokenizer_files import session_settings
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
"""URL parameter naming uploaded text by its short digest (:attr:`~ui.corpus.CorpusChoice.digest`), or pasted
text too long for a link by its whole SHA-256, under which the server keeps it (:func:`ui.cache.kept_texts`).
Pasted text that fits travels in the link itself (:data:`ui.links.TEXT_IN_LINK`). Links made before it was
renamed call it ``text``; :func:`ui.layout.setup_page` reads those as before."""
SESSION_SUFFIX = ".json"
SESSION_FILE = "pasted-text.session.json"
"""The name of the session file offered for pasted text too long for a link."""
"""An upload with this ending is read as a BPE Explorer session file holding its corpus text."""


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


LINK_LIMIT = (
    f"A link carries a paste that compresses to {MAX_LINK_TEXT:,} characters ({LINK_TEXT_SIZE}); "
    "a longer one opens from a link on this server only, while it keeps the text, and goes elsewhere in a "
    "session file."
)
"""What the paste box says about links (the size :data:`ui.links.MAX_LINK_TEXT` allows)."""
TOO_LONG = "link-too-long"
"""The key of the main-area notice saying that the pasted text is too long for a link."""

EOW_PRETOKENIZER = " or ".join(name for name, spec in PRETOKENIZER_SPECS.items() if spec.end_of_word)
"""The pre-tokenizer that writes the end-of-word suffix (the others ignore the End of word setting), from
the registry (:attr:`bpe_core.PreTokenizerSpec.end_of_word`)."""


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
        if upload.name.lower().endswith(SESSION_SUFFIX):  # opened when chosen (_open_session_file); else why not
            return CorpusChoice("paste", "pasted text", session_corpus(upload.getvalue(), upload.name)[0])
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
    first = state.APPLIED_SETTINGS not in st.session_state
    if first:
        _text_from_link()
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
                    f"Up to {MAX_PASTE_CHARS:,} characters (a longer paste does not go in: the tab would stall); "
                    f"for a whole book, choose Upload. {LINK_LIMIT}"
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
            ignored = not PRETOKENIZER_SPECS[pretokenizer].end_of_word
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
        if submitted or first:
            _apply(source or "Sample", first)
        choice = st.session_state.get(state.APPLIED_CORPUS)
        if choice is not None:
            st.caption(
                f"Applied with Train: **{plain(choice.name)}**, {choice.describe()} "
                "(for the Train and Compare pages and Encode's “Trained here”)"
            )
    # the main area from here: on screen at 1280x720, and with the sidebar folded in presentation mode
    if problem := st.session_state.pop(state.TRAIN_PROBLEM, None):  # said once, on the run of the Train press
        st.error(plain(problem))
    if choice is not None:
        _link_corpus(choice)


def _uploader(source: str) -> None:
    """The file uploader of the Upload or Word counts source, outside the Train form: choosing a file reruns
    the page, which clears the last Train's error about the file before (a form would keep it on screen)."""
    if source == "Upload":
        st.file_uploader(
            f"Upload a .txt file or a session file (UTF-8, up to {MAX_UPLOAD_MB} MB)",
            type=["txt", SESSION_SUFFIX[1:]],
            key=state.UPLOAD,
            on_change=_open_session_file,
            help="Line ends (CRLF or LF) are kept as they are in the file. The file is decoded and "
            "its words counted in one pass when you press Train. A session file (.session.json, offered when "
            "pasted text is too long for a link) puts its text in the Paste box and its settings in the "
            "sidebar, and trains them.",
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


def _text_from_link() -> None:
    """On a session's first run, put the link's pasted text in the Paste box, choosing the Paste source unless
    the link names another; the first Train then trains on it.

    The text is the link's own (:data:`~ui.links.TEXT_IN_LINK`), or, for a paste too long for a link, the
    one this server keeps under the link's :data:`TEXT_PARAM` (a reload or a second tab on the same server).
    A text neither gives leaves the Paste box empty: :func:`_apply` then says so in the main area.
    :func:`ui.links.check_link` has already taken an unusable value out of the link (saying why).
    """
    value = st.query_params.get(TEXT_IN_LINK)
    digest = st.query_params.get(TEXT_PARAM)
    if value:
        try:
            text = unpack_text(value)
        except BPEError:  # checked before; kept safe if this is called without the check
            return
    elif digest and st.query_params.get(state.SOURCE, "Paste") == "Paste":
        text = kept_texts().get(digest)
        if text is None:
            return
    else:
        return
    st.session_state[state.PASTE] = text
    if state.SOURCE not in st.query_params:
        st.session_state[state.SOURCE] = "Paste"


def session_corpus(data: bytes, name: str) -> tuple[str, TrainSettings]:
    """The text and training settings of a session file that holds its corpus text (written by
    :func:`session_file`), checked as a paste and as the sidebar's settings are.

    Raises:
        CorpusInputError: not a session file (:func:`bpe_core.formats.load_session` says why), no corpus text
            in it, a text the Paste box cannot take, or settings past the limits.
    """
    try:
        session = load_session(check_upload(data, name), source=name)
        settings = session_settings(session)
    except (BPEError, TypeError) as exc:
        raise CorpusInputError(f"{name} cannot be opened as a session file: {exc}") from None
    if session.corpus_text is None:
        raise CorpusInputError(
            f"{name} holds a tokenizer but not its corpus text: open it on the Encode page (Uploaded file)"
        )
    try:
        session.corpus_text.encode("utf-8")
    except UnicodeEncodeError:
        raise CorpusInputError(f"{name}: its corpus text holds a lone surrogate, which is not text") from None
    return check_paste(session.corpus_text), settings


def _open_session_file() -> None:
    """Uploader callback: a session file's text goes into the Paste box and its settings into the sidebar,
    and they are trained (as if Train was pressed). A file that cannot be opened is left for Train to
    name what is wrong with it."""
    upload = st.session_state.get(state.UPLOAD)
    if upload is None or not upload.name.lower().endswith(SESSION_SUFFIX):
        return
    try:
        text, settings = session_corpus(upload.getvalue(), upload.name)
    except CorpusInputError as exc:
        st.session_state[state.TRAIN_PROBLEM] = str(exc)
        return
    st.session_state.update(settings.widget_values())
    st.session_state[state.SOURCE] = "Paste"
    st.session_state[state.PASTE] = text
    st.session_state[state.APPLY_PENDING] = True


def session_file(result: TrainResult, choice: CorpusChoice) -> bytes:
    """A session file (:func:`bpe_core.formats.to_session`) holding ``result``'s training with ``choice``'s
    text, so another browser opens the same training from it (Source: Upload): UTF-8 JSON."""
    return to_session(result, corpus_text=choice.text, corpus_name=choice.name, name="bpe-explorer").encode()


def _link_without_text(source: str) -> CorpusChoice:
    """The default sample, standing in for the pasted or uploaded text that the link names and this session
    lacks (:func:`_link_corpus` says so in the main area while it stands in)."""
    stand_in = CorpusChoice("sample", DEFAULT_SAMPLE, sample_text(DEFAULT_SAMPLE))
    st.session_state[state.LINK_STAND_IN] = (stand_in, source)
    return stand_in


def _stand_in_notice(source: str) -> None:
    digest = st.query_params.get(TEXT_PARAM)
    pasted = source == "Paste"
    st.info(
        f"This link was made from {'pasted' if pasted else 'uploaded'} text"
        + (f" (SHA-256 {plain(digest[:12])}…)" if digest else "")
        + " that this browser session does not have"
        + (
            " and this server does not keep (the link was made on another server or before a restart, or "
            "the server has since let the text go)"
            if pasted
            else ""
        )
        + ", so it shows the default sample. "
        + (
            "To see its text, open the session file that came with it (Source: Upload), or paste the same text "
            "and press Train."
            if pasted
            else "Upload the same file and press Train to see it."
        ),
        icon=":material/link_off:",
    )


def _link_corpus(choice: CorpusChoice) -> None:
    """Keep the link naming the applied corpus, and say in the main area what a link cannot carry.

    Pasted text that packs into :data:`~ui.links.MAX_LINK_TEXT` characters goes into the link itself; a longer
    paste is named by its SHA-256 (:data:`TEXT_PARAM`) and kept by the server under it (:func:`kept_texts`:
    every run marks it as just used), with a notice offering a session file for other servers; an upload is
    named by its digest. A sample needs neither. Run on every run: a page switch may drop them.
    While the default sample stands in for a link's text this session lacks, the link keeps its parameters.
    """
    stand_in = st.session_state.get(state.LINK_STAND_IN)
    if stand_in is not None and stand_in[0] is choice:
        _stand_in_notice(stand_in[1])
        return
    packed = pack_text(choice.text) if choice.source == "paste" else None
    named = None if packed or choice.source == "sample" else choice.digest
    if choice.source == "paste" and packed is None:
        kept_texts().keep(choice.text)
        named = choice.sha256  # the key it is kept under (a digest alone could name another text)
    wanted = {TEXT_IN_LINK: packed, TEXT_PARAM: named}
    for key, value in wanted.items():
        if value is None:
            st.query_params.pop(key, None)
        elif st.query_params.get(key) != value:
            st.query_params[key] = value
    if choice.source == "paste" and packed is None:
        _too_long_notice(choice)


def _too_long_notice(choice: CorpusChoice) -> None:
    """Before a link is copied: the pasted text is too long to travel in it; a session file carries it."""
    size = packed_length(choice.text)
    packs = f"pack into {size[0]:,}" if size else "hold a character a link cannot carry"
    words, button = st.container(key=TOO_LONG).columns([5, 1], vertical_alignment="center")
    words.warning(
        f"**A link cannot carry this pasted text**: its {choice.chars:,} characters {packs}, and a link carries "
        f"{MAX_LINK_TEXT:,} ({LINK_TEXT_SIZE}). A link copied now opens it **only on this server, while the "
        f"server keeps it** (up to {MAX_KEPT_TEXTS:,} long pastes, the most recently used, until it restarts); "
        "elsewhere it gives the settings and the step without the text: send the session file with it "
        "(Source → Upload opens it).",
        icon=":material/link_off:",
    )
    result = session_trained(choice, st.session_state[state.APPLIED_SETTINGS])  # this session's copy
    button.download_button(
        "Session file",
        data=lambda: session_file(result, choice),  # written only when asked for
        file_name=SESSION_FILE,
        mime="application/json",
        icon=":material/download:",
        on_click="ignore",
        key=f"{TOO_LONG}-download",
        width="stretch",
        help="The pasted text, the training settings and the merges learned, as one .session.json file.",
    )


def _apply(source: str, first: bool) -> None:
    """Check the sidebar's corpus and settings and train on them; store them only if that works.

    A Train that cannot train (an unusable corpus, a setting past its limits,
    special tokens that cover the whole corpus) says why and keeps the last good
    training applied, so the other pages go on working with it. On a session's
    first run (nothing applied yet) the defaults stand in for what cannot be used.
    """
    st.session_state.pop(state.TRAIN_PROBLEM, None)
    try:
        choice = _current_choice(source)
    except CorpusInputError as exc:
        if not first:
            st.error(plain(exc))
            return
        choice = _link_without_text(source)  # a shared link to text this session has not seen
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


def applied() -> tuple[CorpusChoice, TrainSettings]:
    """The corpus and settings of the last "Train" (the defaults before any)."""
    return st.session_state[state.APPLIED_CORPUS], st.session_state[state.APPLIED_SETTINGS]

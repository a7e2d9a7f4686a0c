"""Tokenizer files on the Encode page: the upload box and the download list (shared widgets, no logic)."""

from __future__ import annotations

import streamlit as st

from bpe_core import BPEError, OptionError
from bpe_core.formats import EXPECTED, Session
from ui import state
from ui.cache import ExportRow
from ui.corpus import CorpusChoice
from ui.settings import TrainSettings
from viz.markdown import code, plain


def upload_box() -> dict[str, bytes] | None:
    """An upload box for tokenizer files; returns ``{file name: bytes}`` or ``None`` when empty."""
    uploads = st.file_uploader(
        "Tokenizer files",
        accept_multiple_files=True,
        key=state.TOKENIZER_UPLOAD,
        help="One tokenizer.json; vocab.json + merges.txt (or GPT-2's encoder.json + vocab.bpe); a .tiktoken "
        "rank file with its .json sidecar; a subword-nmt codes file; a BPE Explorer session .json; or a .zip "
        "of any of these. Nothing in them is executed.",
    )
    if not uploads:
        st.info(f"Upload a tokenizer: {EXPECTED}.")
        return None
    return {u.name: u.getvalue() for u in uploads}


def session_settings(session: Session) -> TrainSettings:
    """The training settings a session file holds, checked against the limits every way in shares.

    Raises:
        bpe_core.BPEError: the session holds no settings, or a value past a limit
            (``num_merges=10**9``, an unknown tie rule, too many special tokens...).
    """
    c = session.config
    if c is None:
        raise OptionError("this session holds a tokenizer without training settings")
    budget = ("vocab_size", c.vocab_size) if c.vocab_size is not None else ("merges", c.num_merges or 0)
    return TrainSettings(
        pretokenizer=c.pretokenizer,
        unit=c.unit,
        end_of_word=c.end_of_word,
        tie_break=c.tie_break,
        budget_kind=budget[0],
        budget=budget[1],
        min_frequency=c.min_frequency,
        special_tokens=tuple(c.special_tokens),
    ).checked()


def _apply(settings: TrainSettings) -> None:
    """Callback: put checked training settings into the sidebar and apply them to the current corpus."""
    for key, value in settings.widget_values().items():
        st.session_state[key] = value
    st.session_state[state.APPLY_PENDING] = True  # the sidebar trains them as if Train was pressed


def session_panel(session: Session, corpus: CorpusChoice) -> None:
    """What a loaded session holds, and a button that trains its settings again (when they pass the limits)."""
    c = session.config
    if c is None:
        st.caption("This session holds a tokenizer without training settings.")
        return
    trained_on = plain(session.corpus_name) if session.corpus_name else "an unnamed corpus"
    st.caption(
        f"Session {code(session.name)}: {plain(c.pretokenizer)}, {plain(c.unit)}, {plain(c.tie_break)}, trained on "
        f"{trained_on} (SHA-256 {plain(str(session.corpus_sha256)[:12])}…)."
    )
    if session.corpus_sha256 == corpus.sha256:
        st.success(f"The sidebar corpus ({plain(corpus.name)}) is the one this session was trained on.")
    else:
        st.warning(f"The sidebar corpus ({plain(corpus.name)}) is not the one this session was trained on.")
    try:
        settings = session_settings(session)
    except (BPEError, TypeError) as exc:
        st.error(f"This session's settings cannot be used here: {plain(exc)}")
        return
    st.button(
        "Use these settings in the sidebar and train",
        key=state.APPLY_SESSION,
        on_click=_apply,
        args=(settings,),
        help="Go to the Train page afterwards to step through the merges again.",
    )


def downloads(rows: list[ExportRow]) -> None:
    """One download button per format; formats that cannot hold this tokenizer say why."""
    for row in rows:
        c = st.columns([1.2, 3])
        if row.download is None:
            c[0].button(row.format, disabled=True, key=state.download_key(row.format), width="stretch")
            c[1].caption(f"{row.description} Not available: {plain(row.reason)}")
            continue
        c[0].download_button(
            row.format,
            data=row.download.data,
            file_name=row.download.filename,
            mime=row.download.mime,
            key=state.download_key(row.format),
            width="stretch",
            on_click="ignore",
        )
        proof = row.proof
        mark = "✔" if proof is not None and proof.ok else "✘"
        checked = f"{mark} {plain(proof.message)}. {plain(proof.check)}" if proof else ""
        c[1].caption(f"{row.description} {code(row.download.filename)}. {checked}")

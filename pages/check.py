"""Check an example page: does a printed merge table (or a step-by-step encoding) hold for its corpus?"""

from __future__ import annotations

import streamlit as st

from bpe_core import TIE_BREAKS, BPEError
from bpe_core.analysis.checking import APPLY_ORDERS, check_encoding
from ui import state
from ui.checking import (
    KINDS,
    MAX_CORPUS_CHARS,
    NOTATION_LABELS,
    PRETOKENIZER_LABELS,
    TEXT_ONLY,
    VERDICT_COLUMNS,
    checked,
    follow_first_wrong,
    matching,
    notation_for,
    open_in_train,
    read_claim,
    read_corpus,
    settings_for,
)
from ui.layout import setup_page
from ui.links import CHECK_MAX_CLAIM_CHARS, CHECK_MAX_MIN_FREQUENCY, CHECK_MAX_STEPS_CHARS, CHECK_MAX_WORD_CHARS
from ui.provenance import follow_train_link
from viz.checking import (
    encoding_frame,
    encoding_sentence,
    highlight_row,
    settings_frame,
    top_pairs_frame,
    verdict_frame,
    verdict_markdown,
)
from viz.markdown import code, plain

BIND = "query-params"

setup_page("Check an example")
st.title("Check a worked example")
st.caption(
    "Paste a textbook's corpus and the merges it prints, in the book's own notation. The checker trains BPE on "
    "that corpus and says where the printed table holds, where it first goes wrong and why, and under which "
    "settings and marker it would hold."
)
left, right = st.columns(2)
box = left.text_area(
    "Corpus: word counts (low 5, 5 low, low: 5, 5 l o w _, l o w _ 5, ('low', 5)), one per line, or running text",
    "low 5\nlower 2\nnewest 6\nwidest 3",
    key=state.CHECK_CORPUS,
    height=160,
    max_chars=MAX_CORPUS_CHARS,
    bind=BIND,
)
kind = left.radio("Read the corpus as", KINDS, key=state.CHECK_KIND, horizontal=True, bind=BIND)
claim_box = right.text_area(
    "Claimed merges (one 'left right [count]' per line, in the example's notation: er _ or er </w>)",
    "e s\nes t\nl o\nlo w\nn e",
    key=state.CHECK_CLAIM,
    height=160,
    max_chars=CHECK_MAX_CLAIM_CHARS,
    bind=BIND,
)
c = st.columns(4)
marker_label = c[0].selectbox(
    "Marker",
    list(NOTATION_LABELS),
    key=state.CHECK_MARKER,
    bind=BIND,
    help="How the example writes word boundaries. Detect reads the marker the corpus is spelled with, else the "
    "one the claimed merges carry (_, ▁, Ġ or @@).",
)
try:
    example = read_corpus(box, kind)
    claim = read_claim(claim_box)
except (BPEError, TypeError) as exc:
    example, claim, problem = None, (), exc
else:
    problem = None
notation, where = notation_for(marker_label, example, claim) if example is not None else (None, "")
pre_label = c[1].selectbox(
    "Pre-tokenizer",
    list(PRETOKENIZER_LABELS),
    key=state.CHECK_PRETOKENIZER,
    bind=BIND,
    disabled=notation is not None,
    help="Not used while a marker is set: the marker says how words are cut." if notation is not None else None,
)
tie = c[2].selectbox("Tie rule", list(TIE_BREAKS), key=state.CHECK_TIE_BREAK, bind=BIND)
min_freq = c[3].number_input("Min frequency", 1, CHECK_MAX_MIN_FREQUENCY, 2, key=state.CHECK_MIN_FREQUENCY, bind=BIND)
if problem is not None or example is None:
    st.error(plain(problem))
    st.stop()
settings = settings_for(pre_label, tie, int(min_freq), notation, example.corpus)
left.caption(f"Read as {plain(example.describe())}.")
try:
    report = checked(example.corpus, claim, settings)
except (BPEError, TypeError) as exc:
    st.error(plain(exc))
    st.stop()
if notation is not None:
    st.caption(f"Marker{plain(' ' + where) if where else ''}: {report.boundaries(code)}.")

if report.holds:
    st.success(verdict_markdown(report))
else:
    st.error(verdict_markdown(report))
st.dataframe(
    highlight_row(verdict_frame(report), report.first_wrong),
    hide_index=True,
    width="stretch",
    column_config=VERDICT_COLUMNS,
)
steps = [f"merge {s.index + 1}" for s in report.steps]
follow_first_wrong(report, steps, (box, kind, claim_box, settings))
at = st.selectbox("True top pairs before", steps, key=state.CHECK_TOP_STEP)
st.dataframe(top_pairs_frame(report.steps[steps.index(at) if at in steps else 0]), hide_index=True)

st.subheader("Settings under which the whole claim holds")
found = matching(example.corpus, claim, example.counts.notation if example.counts is not None else None)
if example.counted:
    found = [s for s in found if s.pretokenizer not in TEXT_ONLY]
    st.caption("Word counts are words already cut, so trailing_space, gpt2 and none act as whitespace; not listed.")
if not found:
    st.warning(
        "No combination of pre-tokenizer, marker, tie rule and minimum frequency (1 or 2) makes the whole claim hold."
    )
else:
    st.dataframe(settings_frame(found), hide_index=True)
    reasons = [example.train_text(s)[1] for s in found]
    if any(reasons):
        st.caption(plain(next(r for r in reasons if r)))
    else:
        st.caption("Open one in the Train page (the corpus goes into the sidebar as pasted text):")
    for i, (s, too_long) in enumerate(zip(found, reasons, strict=True)):
        st.button(
            s.label(),
            key=f"check_open_{i}",
            icon=":material/model_training:",
            on_click=open_in_train,
            args=(example, s, len(claim), 1),
            disabled=bool(too_long),
            help=plain(too_long) or None,
        )

with st.expander("Check a step-by-step encoding of one word with the claimed merges"):
    word = st.text_input("Word", "lowest", key=state.CHECK_WORD, max_chars=CHECK_MAX_WORD_CHARS, bind=BIND)
    states = st.text_area(
        "Claimed states, one per line, symbols separated by spaces (initial symbols first), in the example's notation",
        "l o w e s t </w>\nl o w es t </w>\nl o w est </w>\nlo w est </w>\nlow est </w>",
        key=state.CHECK_STEPS,
        height=150,
        max_chars=CHECK_MAX_STEPS_CHARS,
        bind=BIND,
    )
    boundaries = (
        {"marker": notation.marker, "end_of_word": notation.end_of_word}
        if notation is not None
        else {"pretokenizer": settings.pretokenizer, "end_of_word": settings.end_of_word}
    )
    try:
        merges = [pair for pair, _count in claim]
        enc = check_encoding(merges, word, [line for line in states.splitlines() if line.strip()], **boundaries)
    except BPEError as exc:
        st.error(plain(exc))
    else:
        st.markdown(plain(encoding_sentence(enc)))
        st.dataframe(encoding_frame(enc), hide_index=True, width="stretch")
        st.caption(" ".join(f"{order}: {what}." for order, what in APPLY_ORDERS.items()))
follow_train_link()

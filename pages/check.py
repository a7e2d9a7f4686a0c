"""Check an example page: does a printed merge table (or a step-by-step encoding) hold for its corpus?"""

from __future__ import annotations

import streamlit as st

from bpe_core import TIE_BREAKS, BPEError
from bpe_core.checking import APPLY_ORDERS, CheckSettings, check_encoding
from ui import state
from ui.checking import (
    KINDS,
    MAX_CORPUS_CHARS,
    PRETOKENIZER_LABELS,
    TEXT_ONLY,
    checked,
    matching,
    open_in_train,
    read_claim,
    read_corpus,
)
from ui.layout import setup_page
from ui.links import CHECK_MAX_MIN_FREQUENCY
from ui.provenance import follow_train_link
from viz.checking import (
    encoding_frame,
    encoding_sentence,
    highlight_row,
    settings_frame,
    top_pairs_frame,
    verdict_frame,
    verdict_sentence,
)
from viz.markdown import plain

BIND = "query-params"

setup_page("Check an example")
st.title("Check a worked example")
st.caption(
    "Paste a textbook's corpus and the merges it prints. The checker trains BPE on that corpus and says "
    "where the printed table holds, where it first goes wrong and why, and under which settings it would hold."
)
left, right = st.columns(2)
box = left.text_area(
    "Corpus (word counts such as 'low 5', one per line, or running text)",
    "low 5\nlower 2\nnewest 6\nwidest 3",
    key=state.CHECK_CORPUS,
    height=160,
    max_chars=MAX_CORPUS_CHARS,
)
kind = left.radio("Read the corpus as", KINDS, key=state.CHECK_KIND, horizontal=True)
claim_box = right.text_area(
    "Claimed merges (one 'left right [count]' per line)",
    "e s\nes t\nl o\nlo w\nn e",
    key=state.CHECK_CLAIM,
    height=160,
)
c = st.columns(3)
pre_label = c[0].selectbox("Pre-tokenizer", list(PRETOKENIZER_LABELS), key=state.CHECK_PRETOKENIZER, bind=BIND)
tie = c[1].selectbox("Tie rule", list(TIE_BREAKS), key=state.CHECK_TIE_BREAK, bind=BIND)
min_freq = c[2].number_input("Min frequency", 1, CHECK_MAX_MIN_FREQUENCY, 2, key=state.CHECK_MIN_FREQUENCY, bind=BIND)
try:
    example = read_corpus(box, kind)
    claim = read_claim(claim_box)
    settings = CheckSettings(*PRETOKENIZER_LABELS[pre_label], tie, int(min_freq))
    report = checked(example.corpus, claim, settings)
except (BPEError, TypeError) as exc:
    st.error(plain(exc))
    st.stop()
left.caption(f"Read as {plain(example.describe())}.")

if report.holds:
    st.success(plain(verdict_sentence(report)))
else:
    st.error(plain(verdict_sentence(report)))
st.dataframe(highlight_row(verdict_frame(report), report.first_wrong), hide_index=True, width="stretch")
steps = [f"merge {s.index + 1}" for s in report.steps]
at = st.selectbox("True top pairs before", steps, index=report.first_wrong or 0, key="check_top_step")
step = report.steps[steps.index(at) if at in steps else 0]
st.dataframe(top_pairs_frame(step), hide_index=True)

st.subheader("Settings under which the whole claim holds")
found = matching(example.corpus, claim)
if example.counted:
    found = [s for s in found if s.pretokenizer not in TEXT_ONLY]
    st.caption("Word counts are words already cut, so trailing_space, gpt2 and none act as whitespace; not listed.")
if not found:
    st.warning("No combination of pre-tokenizer, tie rule and minimum frequency (1 or 2) makes the whole claim hold.")
else:
    st.dataframe(settings_frame(found), hide_index=True)
    if example.too_long:
        st.caption(plain(example.too_long))
    else:
        st.caption("Open one in the Train page (the corpus goes into the sidebar as pasted text):")
    for i, s in enumerate(found):
        st.button(
            s.label(),
            key=f"check_open_{i}",
            icon=":material/model_training:",
            on_click=open_in_train,
            args=(example, s, len(claim), 1),
            disabled=bool(example.too_long),
            help=plain(example.too_long) or None,
        )

with st.expander("Check a step-by-step encoding of one word with the claimed merges"):
    word = st.text_input("Word", "lowest", key=state.CHECK_WORD)
    states = st.text_area(
        "Claimed states, one per line, symbols separated by spaces (initial symbols first)",
        "l o w e s t </w>\nl o w es t </w>\nl o w est </w>\nlo w est </w>\nlow est </w>",
        key=state.CHECK_STEPS,
        height=150,
    )
    try:
        merges = [pair for pair, _count in claim]
        enc = check_encoding(
            merges,
            word,
            [line for line in states.splitlines() if line.strip()],
            pretokenizer=settings.pretokenizer,
            end_of_word=settings.end_of_word,
        )
    except BPEError as exc:
        st.error(plain(exc))
    else:
        st.markdown(plain(encoding_sentence(enc)))
        st.dataframe(encoding_frame(enc), hide_index=True, width="stretch")
        st.caption(" ".join(f"{order}: {what}." for order, what in APPLY_ORDERS.items()))
follow_train_link()

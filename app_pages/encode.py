"""Encode page: apply a merge table to new text, token by token and rule by rule."""

from __future__ import annotations

import streamlit as st

from bpe_core import BPEError
from bpe_core.formats import BUNDLED
from ui import sidebar, state, tokenizer_files
from ui.cache import READY, ready_tokenizer, session_trained, trained_exports, uploaded_exports, uploaded_tokenizer
from viz.encode_views import (
    blocked_frame,
    display_of,
    encode_stats,
    fallbacks_frame,
    piece_label,
    rule_steps_frame,
    token_views,
)
from viz.tokens import strings_row, tokens_row, visible

DEFAULT_TEXT = "Hello, I've been learning BPE! Lowering the newest tokens: unbelievable 🙂"
TRAINED = "Trained here"
UPLOADED = "Uploaded file"
MAX_CHARS = 100_000
MAX_DRAWN = 3_000

st.title("Encode: apply the merge table to new text")
corpus, settings = sidebar.applied()
choice = st.radio("Tokenizer", [TRAINED, *READY, UPLOADED], key=state.ENCODE_TOKENIZER, horizontal=True)
files = None
try:
    if choice == TRAINED:
        tokenizer = session_trained(corpus, settings).tokenizer
        st.caption(f"Trained on {corpus.name} ({settings.pretokenizer}, {settings.unit}, {settings.tie_break}).")
    elif choice in READY:
        tokenizer = ready_tokenizer(choice)
        st.caption(BUNDLED[READY[choice]] + " Shipped in reference_tokenizers/ (MIT; see its README).")
    else:
        files = tokenizer_files.upload_box()
        if files is None:
            st.stop()
        loaded = uploaded_tokenizer(files)
        tokenizer = loaded.tokenizer
        st.caption(f"Loaded {', '.join(loaded.files)} as {loaded.format}: {len(tokenizer):,} ids.")
        if loaded.session is not None:
            tokenizer_files.session_panel(loaded.session, corpus)
except (BPEError, TypeError, OSError) as exc:
    st.error(f"Cannot use this tokenizer: {exc}")
    st.stop()

text = st.text_area("Text to encode", value=DEFAULT_TEXT, key=state.ENCODE_TEXT, max_chars=MAX_CHARS, height=110)
c = st.columns(4)
order = c[0].radio(
    "Merge order",
    ["rank", "sequential"],
    key=state.ENCODE_ORDER,
    horizontal=True,
    help="rank: lowest-rank pair first (GPT-2, tiktoken, HF). sequential: the table once, in order.",
)
show_ws = c[1].toggle("Show whitespace (· → ↵)", value=True, key=state.SHOW_WHITESPACE)
show_ids = c[2].toggle("Show ids", value=True, key=state.SHOW_IDS)
allow = c[3].toggle(
    "Recognise special tokens",
    value=False,
    key=state.ALLOW_SPECIAL,
    help="Off: text that looks like a special token is encoded as ordinary text (tiktoken's default).",
)

try:
    trace = tokenizer.encode_with_trace(text, order=order, allowed_special="all" if allow else ())
except BPEError as exc:
    st.error(f"Cannot encode this text: {exc}")
    st.stop()
ids = trace.ids

views = token_views(tokenizer, trace, limit=MAX_DRAWN)
st.html(tokens_row(views, show_whitespace=show_ws, show_ids=show_ids))
if len(ids) > MAX_DRAWN:
    st.caption(f"Showing the first {MAX_DRAWN:,} of {len(ids):,} tokens.")
st.caption(
    "Dashed red: a character the training alphabet lacked (kept as its own symbol, <unk>, or <0xNN> bytes). "
    "Dotted purple: bytes that cut a UTF-8 character. "
    "Hover a token for its vocabulary string and id."
)

stats = encode_stats(text, ids)
cols = st.columns(len(stats))
for col, (name, value) in zip(cols, stats.items()):
    col.metric(name, f"{value:,}")

rt = tokenizer.round_trip(text)
if rt.ok:
    st.success("Round trip holds: decode(encode(text)) == text.")
else:
    st.warning(f"Round trip breaks at character {rt.position}: {rt.reason}")
with st.expander("Decoded text and ids"):
    st.code(rt.decoded or " ", language=None)
    st.code(", ".join(map(str, ids[:5000])) or " ", language=None)

show = display_of(tokenizer)
diffs = tokenizer.order_differences(text)
if diffs:
    st.info(f"The two merge orders cut {len(diffs)} word(s) differently:")
    st.dataframe(
        [
            {
                "word": visible(d.text),
                "rank order": " ".join(map(show, d.rank_tokens)),
                "sequential": " ".join(map(show, d.sequential_tokens)),
            }
            for d in diffs
        ],
        hide_index=True,
    )

st.subheader("Rule by rule")
pieces = [p for p in trace.pieces if not p.special]
if not pieces:
    st.caption("Nothing to show: the text is empty.")
    st.stop()
labels = [piece_label(i, p) for i, p in enumerate(pieces)]
label = st.selectbox("Pre-token", labels, key=state.ENCODE_PIECE)
index = labels.index(label) if label in labels else 0
piece = pieces[index]
other = "sequential" if order == "rank" else "rank"
alt = tokenizer.encode_with_trace(piece.text, order=other).pieces
columns = [(order, piece)]
if alt and alt[0].ids != piece.ids:
    columns.append((other, alt[0]))
for col, (name, p) in zip(st.columns(len(columns)), columns):
    with col:
        if len(columns) > 1:
            st.markdown(f"**{name} order**")
        eow = tokenizer.end_of_word is not None
        st.caption("Initial symbols")
        st.html(strings_row(p.initial[:300], tokenizer.unit, eow))
        if p.steps:
            st.dataframe(rule_steps_frame(p, show), hide_index=True, width="stretch")
        else:
            st.caption("No rule applies to this pre-token.")
        st.caption("Final tokens")
        st.html(strings_row(p.tokens[:300], tokenizer.unit, eow))
        if p.blocked:
            st.markdown("**Blocked rules** (both symbols present, never adjacent)")
            st.dataframe(blocked_frame(p, show), hide_index=True, width="stretch")
        if p.fallbacks:
            st.markdown("**Fallbacks** (characters the alphabet could not hold as one symbol)")
            st.dataframe(fallbacks_frame(p, show), hide_index=True, width="stretch")

with st.expander("Save this tokenizer: every format, each reloaded and checked on the text above"):
    if choice == TRAINED:
        rows = trained_exports(corpus.text, settings, corpus.name, text)
    elif files is not None:
        rows = uploaded_exports(files, text)
    else:
        rows = []
        st.caption(f"{choice} ships with the project; its original files are in reference_tokenizers/.")
    tokenizer_files.downloads(rows)

"""Encode page: apply a merge table to new text, token by token and rule by rule."""

from __future__ import annotations

import streamlit as st

from bpe_core import FALLBACKS, ORDERS, BPEError
from bpe_core.encoding.explain import MAX_BETWEEN, MAX_BLOCKED
from bpe_core.formats import BUNDLED
from ui import sidebar, state, tokenizer_files
from ui.cache import (
    READY,
    DropoutSample,
    dropout_samples,
    files_digest,
    order_can_differ,
    piece_in_order,
    ready_tokenizer,
    session_encoded,
    session_trained,
    start_preload,
    trained_exports,
    uploaded_exports,
    uploaded_tokenizer,
)
from ui.corpus import MAX_ENCODE_CHARS
from ui.dropout_view import (
    DropoutChoice,
    dropout_controls,
    dropout_requested,
    no_dropout_label,
    sample_pieces,
    sample_rows,
)
from ui.layout import setup_page
from ui.presentation import presenting
from ui.provenance import RULE_TABLE_HINT, rule_table, token_picker
from ui.story_view import story_player
from ui.token_picker import clicked_piece
from viz.encode_views import (
    blocked_frame,
    blocked_rules,
    fallbacks_frame,
    piece_label,
    piece_views,
    rule_steps_frame,
    rule_token_ids,
)
from viz.markdown import code, left_out, plain
from viz.tokens import display_of, strings_row, tokens_row

DEFAULT_TEXT = "Hello, I've been learning BPE! Lowering the newest tokens: unbelievable 🙂"
TRAINED = "Trained here"
UPLOADED = "Uploaded file"
MAX_CHARS = MAX_ENCODE_CHARS
MAX_DRAWN = 3_000
MAX_IDS = 5_000
MAX_SYMBOLS = 300
BIND = "query-params"
BOOK = "To see a whole book tokenized, choose Upload in the sidebar, give the .txt file and press Train."
FOLDED = "Tokenizer, text and settings"  # the fold that holds the inputs in presentation mode while dropout is on
ORDER_NOTE = (
    "The two orders can only cut a word differently when a token string is formed by more than one rule "
    "(hand-written or imported tables; see Lesson 7). A table learned by BPE forms each token once. {}"
)

setup_page("Encode")
st.title("Encode: apply the merge table to new text")
corpus, settings = sidebar.applied()
start_preload(tuple(READY))  # o200k_base too, in the background, once per process
# presentation mode with dropout: the inputs fold away so that the samples, the point of that view, are on the
# first 1280x720 screen (trial A item 4); messages about the inputs are drawn outside the fold
folded = presenting() and dropout_requested()
inputs = st.expander(FOLDED, key=state.ENCODE_INPUTS) if folded else st.container()
notices = st.container()
with inputs:
    choice = st.radio("Tokenizer", [TRAINED, *READY, UPLOADED], key=state.ENCODE_TOKENIZER, horizontal=True, bind=BIND)
    files = None
    try:
        if choice == TRAINED:
            tokenizer = session_trained(corpus, settings).tokenizer
            source = ("trained", corpus.sha256, settings)
            st.caption(
                f"Trained on {plain(corpus.name)} ({settings.pretokenizer}, {settings.unit}, {settings.tie_break})."
            )
        elif choice in READY:
            tokenizer = ready_tokenizer(choice)
            source = ("ready", choice)
            st.caption(BUNDLED[READY[choice]] + " Shipped in bpe_core/formats/data/ (MIT; see its README).")
        else:
            files = tokenizer_files.upload_box()
            if files is None:
                if folded:
                    notices.info(f"Give the tokenizer's files under “{FOLDED}” above.")
                st.stop()
            loaded = uploaded_tokenizer(files)
            tokenizer = loaded.tokenizer
            source = ("uploaded", files_digest(files))
            st.caption(
                f"Loaded {', '.join(map(code, loaded.files))} as {plain(loaded.format)}: {len(tokenizer):,} ids."
            )
            if loaded.session is not None:
                tokenizer_files.session_panel(loaded.session, corpus)
    except (BPEError, TypeError, OSError) as exc:
        notices.error(f"Cannot use this tokenizer: {plain(exc)}")
        st.stop()

    text = st.text_area(
        "Text to encode",
        value=DEFAULT_TEXT,
        key=state.ENCODE_TEXT,
        max_chars=MAX_CHARS,
        height=110,
        bind=BIND,
        placeholder=f"Type or paste up to {MAX_CHARS:,} characters",
    )
    if len(text) >= MAX_CHARS:
        st.warning(f"The box is full ({MAX_CHARS:,} characters). {BOOK}")
    else:
        st.caption(
            f"Up to {MAX_CHARS:,} characters; a longer paste does not go in (the browser tab would stall). {BOOK}"
        )
    c = st.columns(4)
    differ = order_can_differ(tokenizer, source)
    with c[0] if differ else c[0].expander("Merge order: the same cut either way here"):
        order = st.radio(
            "Merge order",
            list(ORDERS),
            key=state.ENCODE_ORDER,
            horizontal=True,
            help=" ".join(f"{name}: {what}" for name, what in ORDERS.items()),
            bind=BIND,
        )
        st.caption(ORDER_NOTE.format(f"This table forms {differ:,} token(s) by more than one rule." if differ else ""))
    show_ws = c[1].toggle("Show whitespace (· → ↵)", value=True, key=state.SHOW_WHITESPACE, bind=BIND)
    show_ids = c[2].toggle("Show ids", value=True, key=state.SHOW_IDS, bind=BIND)
    allow = c[3].toggle(
        "Special tokens",  # "Recognise special tokens" was cut to "Recognise special t…" at 1280 px
        value=False,
        key=state.ALLOW_SPECIAL,
        help="Recognise special tokens in the text? Off: text that looks like a special token is encoded as "
        "ordinary text, as tiktoken's encode_ordinary does (tiktoken's encode refuses such text by default). On: "
        "each special token becomes its one id, as "
        "tiktoken's encode with allowed_special='all' and Hugging Face's added tokens do.",
        bind=BIND,
    )
    fallback = tokenizer.model.fallback
    if tokenizer.model.unit == "char":
        fallbacks = list(FALLBACKS)
        fallback = st.radio(
            "Characters outside the alphabet",
            fallbacks,
            index=fallbacks.index(tokenizer.model.fallback),
            key=state.ENCODE_FALLBACK,
            horizontal=True,
            help="What a char-level tokenizer does with a character training never saw. "
            + " ".join(f"{name}: {what}" for name, what in FALLBACKS.items()),
            bind=BIND,
        )
        if fallback != tokenizer.model.fallback:
            st.caption(
                f"This tokenizer's own fallback is {tokenizer.model.fallback}; encoding with {fallback} instead."
            )

try:
    enc = session_encoded(tokenizer, source, text, order, allow, fallback, MAX_DRAWN)
except BPEError as exc:
    st.error(f"Cannot encode this text: {plain(exc)}")
    st.stop()
ids = enc.trace.ids


def plain_tokens() -> None:
    st.html(tokens_row(enc.views, show_whitespace=show_ws, show_ids=show_ids))
    if note := left_out(MAX_DRAWN, len(ids), "tokens"):
        st.caption(f"Showing {note}.")


def dropout_section() -> tuple[DropoutChoice, list[DropoutSample]]:
    """The BPE-dropout heading, controls and samples; folded, with the plain tokens as the first row."""
    drop = dropout_controls(BIND)
    if folded:
        no_dropout_label(choice, len(ids))
        plain_tokens()
    samples = []
    if drop.on:
        try:
            limit = MAX_DRAWN // drop.count
            samples = dropout_samples(tokenizer, source, text, order, allow, fallback, *drop.settings, limit)
        except BPEError as exc:
            st.error(f"Cannot sample with dropout: {plain(exc)}")
        sample_rows(samples, len(ids), show_ws, show_ids)
    return drop, samples


if folded:
    drop, samples = dropout_section()
else:
    plain_tokens()
picked = clicked_piece(state.TOKEN_PICKER)
st.caption(
    "Dashed red: a character the training alphabet lacked (kept as its own symbol, <unk>, or <0xNN> bytes); "
    "an id with * is temporary (see below). Dotted purple: bytes that cut a UTF-8 character. "
    "⟨U+200D ZWJ⟩: a character that draws nothing; ◌: the base a lone combining mark sits on. "
    "Hover a token for its vocabulary string and id; click it to play its pre-token rule by rule (below)."
)
tree_source = session_trained(corpus, settings) if choice == TRAINED else tokenizer  # what token trees explain
token_picker(tree_source, ids, key=state.ENCODE_TREE)

cols = st.columns(len(enc.stats))
for col, (name, value) in zip(cols, enc.stats.items()):
    col.metric(name, f"{value:,}")
if enc.temporary:
    st.warning(plain(enc.temporary))

rt = enc.round_trip
if rt.ok:
    st.success("Round trip holds: decode(encode(text)) == text.")
else:
    st.warning(f"Round trip breaks at character {rt.position}: {plain(rt.reason)}")
with st.expander("Decoded text and ids"):
    st.code(rt.decoded or " ", language=None)
    st.code(", ".join(map(str, ids[:MAX_IDS])) or " ", language=None)
    if note := left_out(MAX_IDS, len(ids), "ids"):
        st.caption(f"Showing {note}.")

if len(enc.differences):
    st.info(f"The two merge orders cut {len(enc.differences)} word(s) differently:")
    st.dataframe(enc.differences, hide_index=True)

if not folded:
    drop, samples = dropout_section()

st.subheader("Rule by rule")
pieces = [p for p in enc.trace.pieces if not p.special]
if not pieces:
    specials = sum(p.special for p in enc.trace.pieces)
    st.caption(
        f"No rule applies: the text is {specials:,} special token(s), each encoded as its own id."
        if specials
        else "Nothing to show: the text is empty."
    )
    st.stop()
labels = [piece_label(i, p) for i, p in enumerate(pieces)]
if picked is not None and picked < len(labels):
    st.session_state[state.ENCODE_PIECE] = labels[picked]
label = st.selectbox("Pre-token (or click a token above)", labels, key=state.ENCODE_PIECE, bind=BIND)
index = labels.index(label) if label in labels else 0
piece = pieces[index]
show = display_of(tokenizer)
eow = tokenizer.model.end_of_word is not None
if samples:
    piece = sample_pieces(samples, index, piece, BIND, MAX_SYMBOLS)
played = (drop.dropout, drop.seed, piece.ids) if samples else None
story_player(piece, show, tokenizer.model.unit, eow, (source, text, order, fallback, index, played))
columns = [(order, piece)]
if piece.text in enc.differing and not samples:
    other = next(o for o in ORDERS if o != order)
    alt = piece_in_order(tokenizer, source, fallback, piece.text, other)
    if alt is not None:
        columns.append((other, alt))


def symbols(title: str, count: int, markup: str) -> None:
    note = left_out(MAX_SYMBOLS, count, "symbols")
    st.caption(f"{title}: {note}" if note else title)
    st.html(markup)


for col, (name, p) in zip(st.columns(len(columns)), columns):
    with col:
        if len(columns) > 1:
            st.markdown(f"**{name} order**")
        symbols("Initial symbols", len(p.initial), strings_row(p.initial[:MAX_SYMBOLS], tokenizer.model.unit, eow))
        if p.steps:
            st.caption(RULE_TABLE_HINT)
            rule_table(
                rule_steps_frame(p, show),
                rule_token_ids(tokenizer, p),
                tree_source,
                key=state.rule_table("encode", name, index, p.start, len(p.text)),
                width="stretch",
            )
        else:
            st.caption("No rule applies to this pre-token.")
        # from the ids' records: a typed '</w>' or '<0x41>' is text, the marker and fallbacks are what they are
        symbols("Final tokens", len(p.ids), tokens_row(piece_views(p)[:MAX_SYMBOLS], show_ids=False))
        if blocked_rules(p):
            st.markdown(
                "**Blocked rules**: rules that never fired here although their two symbols stood side by side "
                "at some step (another rule took one of them first) or both end in the word with tokens between"
            )
            st.dataframe(blocked_frame(p, show), hide_index=True, width="stretch")
        if p.blocked_omitted:
            st.caption(
                f"{p.blocked_omitted:,} more blocked rules are not listed: a pre-token lists at most "
                f"{MAX_BLOCKED:,}, and on a long one only rules with at most {MAX_BETWEEN} tokens between "
                "their symbols."
            )
        if p.fallbacks:
            st.markdown("**Fallbacks** (characters the alphabet could not hold as one symbol)")
            st.dataframe(fallbacks_frame(p, show), hide_index=True, width="stretch")

with st.expander("Save this tokenizer: every format, each reloaded and checked on the text above"):
    if choice == TRAINED:
        rows = trained_exports(corpus, settings, text)
    elif files is not None:
        rows = uploaded_exports(files, text)
    else:
        rows = []
        st.caption(f"{choice} ships with the project; its original files are in bpe_core/formats/data/.")
    tokenizer_files.downloads(rows)

"""Compare page: how pre-tokenization, unit, marker and tie rule change what BPE learns."""

from __future__ import annotations

from collections.abc import Hashable

import streamlit as st

import bpe_core
from bpe_core import END_OF_WORD, ORDERS, PRETOKENIZER_SPECS, PRETOKENIZERS, TIE_BREAKS, UNITS, BPEError
from ui import sidebar, state
from ui.cache import (
    READY,
    held_out_counts,
    ready_tokenizer,
    run_encoding,
    sample_text,
    session_trained,
    start_preload,
    trained,
)
from ui.corpus import SAMPLES, shares_text
from ui.layout import setup_page
from ui.links import CMP_MAX_MERGES, CMP_MAX_TEXT_CHARS
from ui.presentation import WRAP_COLUMNS
from ui.settings import TrainSettings
from viz.compare import (
    METRICS,
    coinciding,
    compression_figure,
    compression_values,
    divergence,
    divergence_text,
    merge_diff,
    merge_timeline,
    run_heading,
    text_under_runs,
    texts_row,
    timeline_style,
    tokens_formed_twice,
    unique_tokens,
    vocab_overlap,
)
from viz.markdown import left_out, plain
from viz.tokens import tokens_row
from viz.train_tables import token_counts

# Run A-D's defaults: four settings whose compression curves differ (trailing_space/char, the
# default before, drew on top of A's line). A comment, not a string: Streamlit's magic would show a string.
DEFAULTS = [
    ("whitespace_eow", "char", "separate", "first_seen", "rank"),
    ("gpt2", "byte", "separate", "first_seen", "rank"),
    ("none", "char", "separate", "first_seen", "rank"),
    ("gpt4", "byte", "separate", "hf_tokenizers", "rank"),
]
FIELDS = (
    ("pretokenizer", "Pre-tokenizer", list(PRETOKENIZERS)),
    ("unit", "Unit", list(UNITS)),
    ("end_of_word", "End of word", list(END_OF_WORD)),
    ("tie_break", "Tie rule", list(TIE_BREAKS)),
)
ORDER_FIELD = ("order", "Encoding order", list(ORDERS))
EOW_ONLY = "Only the whitespace_eow pre-tokenizer writes an end-of-word suffix; {} ignores this setting."
ORDER_SAME = (
    "Both orders give the same tokens here: rank and sequential order can only cut a word differently "
    "when a token is formed by more than one rule, and this table forms none (Lesson 7 shows a table that does)."
)
HELD_OUT_CHARS = 20_000
TIE_EXAMPLE = "aaabdaaabac"
MAX_DRAWN = 500
MAX_UNIQUE = 30
BIND = "query-params"
LETTERS = "ABCD"
TRAIN_PAGE_TABLE = "Train page's table"
LONGER = (
    "A longer text, such as a book, goes to Upload in the sidebar: the runs train on it, and Compression measures it."
)

setup_page("Compare")
st.title("Compare: what changes what BPE learns")
corpus, base = sidebar.applied()
st.caption(f"All runs train on **{plain(corpus.name)}** ({corpus.describe()}), chosen in the sidebar.")

top = st.columns([1, 1, 2])
count = top[0].segmented_control("Runs", [2, 3, 4], default=2, key=state.CMP_COUNT, bind=BIND) or 2
budget = top[1].number_input("Merges", 1, CMP_MAX_MERGES, 200, step=50, key=state.CMP_BUDGET, bind=BIND)
test_text = top[2].text_input(
    "Test text",
    "The quick brown fox doesn't jump; unbelievable!",
    key=state.CMP_TEXT,
    max_chars=CMP_MAX_TEXT_CHARS,
    placeholder=f"Type or paste up to {CMP_MAX_TEXT_CHARS:,} characters",
    bind=BIND,
)
if len(test_text) >= CMP_MAX_TEXT_CHARS:
    top[2].warning(f"The box is full ({CMP_MAX_TEXT_CHARS:,} characters). {LONGER}")
else:
    top[2].caption(
        f"Up to {CMP_MAX_TEXT_CHARS:,} characters (every run encodes it); a longer paste does not go in. {LONGER}"
    )

runs: dict[str, TrainSettings] = {}

with st.expander("Settings of each run (pre-tokenizer, unit, end of word, tie rule, encoding order)"):
    columns = st.columns(count)
for i, col in enumerate(columns):
    with col:
        st.markdown(f"**Run {LETTERS[i]}**")
        values = {}
        for (field, label, options), default in zip(FIELDS, DEFAULTS[i]):
            ignored = field == "end_of_word" and not PRETOKENIZER_SPECS[values["pretokenizer"]].end_of_word
            values[field] = st.selectbox(
                label,
                options,
                index=options.index(default),
                key=state.cmp_key(i, field),
                disabled=ignored,
                help=EOW_ONLY.format(values["pretokenizer"]) if ignored else None,
                bind=BIND,
            )
        name = f"{LETTERS[i]}: {values['pretokenizer']}/{values['unit']}" + (
            f"/{values['end_of_word']}" if PRETOKENIZER_SPECS[values["pretokenizer"]].end_of_word else ""
        )
        runs[name] = base.with_(**values, budget_kind="merges", budget=int(budget))

results = {}
try:
    for name, settings in runs.items():
        results[name] = trained(corpus, settings)
except (BPEError, TypeError) as exc:
    st.error(f"Cannot train {name}: {plain(exc)}")
    st.stop()

orders = {}
for (i, col), (name, result) in zip(enumerate(columns), results.items()):
    field, label, options = ORDER_FIELD
    same = tokens_formed_twice(result) == 0
    with col:
        orders[name] = st.selectbox(
            label,
            options,
            index=options.index(DEFAULTS[i][4]),
            key=state.cmp_key(i, field),
            disabled=same,
            help=ORDER_SAME if same else " ".join(f"{o}: {what}" for o, what in ORDERS.items()),
            bind=BIND,
        )

real = st.multiselect(
    "Real tokenizers as runs, on the test text",
    [TRAIN_PAGE_TABLE, *READY],
    default=list(READY),
    key=state.CMP_REAL,
    help="GPT-2, cl100k_base (GPT-4) and o200k_base (GPT-4o) with their own tables, and the Train page's table "
    "(your corpus with the sidebar's settings and budget), beside the runs trained here.",
    bind=BIND,
)
start_preload(tuple(label for label in real if label in READY))
# name -> (what it is, tokenizer, order, what names the tokenizer in run_encoding's cache)
shown_runs: dict[str, tuple[str, bpe_core.Tokenizer, str, Hashable]] = {
    name: (
        f"trained here, {r.num_merges:,} merges",
        r.tokenizer,
        orders[name],
        ("trained", corpus.source, corpus.sha256, runs[name]),
    )
    for name, r in results.items()
}
for label in real:
    try:
        if label == TRAIN_PAGE_TABLE:
            table = session_trained(corpus, base)
            kind = f"the Train page's table: {base.pretokenizer}/{base.unit}, {table.num_merges:,} merges"
            shown_runs[label] = (kind, table.tokenizer, "rank", ("trained", corpus.source, corpus.sha256, base))
        else:
            tok = ready_tokenizer(label)
            shown_runs[label] = (f"{label}, {len(tok.model.merge_ids):,} merges", tok, "rank", ("ready", label))
    except (BPEError, TypeError) as exc:
        st.error(f"Cannot load {label}: {plain(exc)}")
encodings = {}
try:
    for step, (name, (_, tok, order, source)) in enumerate(shown_runs.items()):
        encodings[name] = run_encoding(
            tok, source, test_text, order, MAX_DRAWN, _what=name, _step=(step, len(shown_runs))
        )
except BPEError as exc:
    st.error(f"Cannot encode the test text with {name}: {plain(exc)}")
    st.stop()

st.subheader("The test text under each run")
st.dataframe(
    text_under_runs(test_text, {n: (kind, len(tok), encodings[n].ids) for n, (kind, tok, *_) in shown_runs.items()}),
    hide_index=True,
    width="stretch",
    column_config={  # counts with thousands separators, ratios with two decimals each
        **{c: st.column_config.NumberColumn(format="localized") for c in ("vocabulary", "tokens")},
        **{c: st.column_config.NumberColumn(format="%.2f") for c in ("chars per token", "bytes per token")},
    },
)
groups = [g for g in (list(results), [n for n in shown_runs if n not in results]) if g]
with st.container(key=WRAP_COLUMNS):  # four runs beside a sidebar: a new row, not labels broken mid-word
    rows = [st.columns(len(group)) for group in groups]  # the runs trained here, then the real tokenizers
for group, text_columns in zip(groups, rows):
    for col, name in zip(text_columns, group):
        order = shown_runs[name][2]
        encoding = encodings[name]
        with col:
            st.markdown(
                run_heading(name, len(encoding.ids), len(test_text), f"{order} order" if name in results else "")
            )
            st.html(tokens_row(encoding.views, show_ids=False))
            if note := left_out(MAX_DRAWN, len(encoding.ids), "tokens"):
                st.caption(f"Showing {note}.")

timelines, compression, overlap, switch = st.tabs(
    ["Merge timelines", "Compression", "Vocabulary overlap", "Switch the tie rule"]
)
with timelines:
    parted = divergence(results)
    if parted is None:
        st.success("The merge tables are identical, rank for rank.")
    else:
        st.info(f"The tables first diverge at merge {parted.rank + 1} (rank {parted.rank}).")
        st.caption(plain(divergence_text(parted)))
    merges, status = merge_timeline(results)
    st.dataframe(timeline_style(merges, status), width="stretch", height=320)
    st.caption("Green: the merge is in every other run (at any rank). Yellow: in some of them. Red: in no other run.")

with compression:
    metric = (
        st.segmented_control("Measure", list(METRICS), default="chars per token", key=state.CMP_METRIC, bind=BIND)
        or "chars per token"
    )
    labels = [
        label
        for label in SAMPLES
        if not label.startswith(("Toy", "Textbook"))
        and not (corpus.source == "sample" and shares_text(label, corpus.name))
    ]
    default_held = "Wikipedia: Taylor Swift (186 KB)" if "Wikipedia: Taylor Swift (186 KB)" in labels else labels[0]
    held_label = st.selectbox(
        "Held-out text",
        labels,
        index=labels.index(default_held),
        key=state.CMP_HELD_OUT,
        help=f"The first {HELD_OUT_CHARS:,} characters of this sample, never trained on.",
        bind=BIND,
    )
    held = sample_text(held_label)[:HELD_OUT_CHARS]
    train_curves = {n: token_counts(r) for n, r in results.items()}
    with st.spinner("Encoding the held-out text…"):
        held_curves = {n: held_out_counts(corpus, runs[n], held, orders[n]) for n in results}
    c = st.columns(2)
    for col, curves, chars, nbytes, title in (
        (c[0], train_curves, corpus.chars, corpus.nbytes, f"Training corpus: {corpus.name}"),
        (c[1], held_curves, len(held), len(held.encode("utf-8")), f"Held out: {held_label}"),
    ):
        col.plotly_chart(
            compression_figure(curves, chars=chars, nbytes=nbytes, metric=metric, title=title), width="stretch"
        )
        values = {n: compression_values(v, chars=chars, nbytes=nbytes, metric=metric) for n, v in curves.items()}
        if on_top := coinciding(values):
            col.caption(
                "Dashed: "
                + "; ".join(f"{plain(a)} lies on {plain(b)} (within 1 % everywhere)" for a, b in on_top.items())
                + "."
            )

with overlap:
    st.caption(
        "shared and jaccard count whole vocabularies: the base alphabet and the merged tokens (no special tokens)."
    )
    st.dataframe(vocab_overlap(results), hide_index=True, width="stretch")
    st.caption("Below, per run: the merged tokens no other run learned (alphabets left out), in merge order.")
    for name, tokens in unique_tokens(results).items():
        if not tokens:
            st.markdown(f"**Only {name}**: no merged token of its own")
            continue
        shown = tokens[:MAX_UNIQUE]
        note = left_out(len(shown), len(tokens), "shown")
        n = len(tokens)
        st.markdown(
            f"**Only {name}**: {n:,} merged token{'s' if n != 1 else ''} no other run learned"
            + (f"; {note}" if note else "")
        )
        st.html(texts_row(shown))

with switch:
    c = st.columns(3)
    names = {name[0]: name for name in results}  # chosen by letter: a run's name changes with its settings
    letter = c[0].selectbox("Run", list(names), key=state.CMP_SWITCH_RUN, help=" · ".join(names.values()), bind=BIND)
    settings = runs[names.get(letter, next(iter(results)))]
    other_rules = [r for r in TIE_BREAKS if r != settings.tie_break]
    if st.session_state.get(state.CMP_SWITCH_FROM) not in (None, settings.tie_break):
        # The run's rule changed, so the choices did: start from the new first choice (as a fresh
        # link does), not from a value kept from the old list that the link would not carry.
        st.session_state[state.CMP_SWITCH_RULE] = other_rules[0]
    st.session_state[state.CMP_SWITCH_FROM] = settings.tie_break
    rule = c[1].selectbox(f"Instead of {settings.tie_break}", other_rules, key=state.CMP_SWITCH_RULE, bind=BIND)
    source = c[2].radio(
        "Corpus",
        ["sidebar corpus", f"{TIE_EXAMPLE} (byte, none)"],
        key=state.CMP_SWITCH_CORPUS,
        horizontal=True,
        bind=BIND,
    )
    if source == "sidebar corpus":
        text, left = corpus, settings
    else:
        text = TIE_EXAMPLE
        left = settings.with_(pretokenizer="none", unit="byte", budget=3)
    try:
        diff = merge_diff(trained(text, left), trained(text, left.with_(tie_break=rule)), (left.tie_break, rule))
    except (BPEError, TypeError) as exc:
        st.error(f"Cannot train with {rule}: {plain(exc)}")
        st.stop()
    if diff.first is None:
        st.success(f"Same merges under {left.tie_break} and {rule}: no tie ever decided anything here.")
    else:
        differing = diff.differing
        st.info(
            f"The tables split at merge {diff.first + 1} (rank {diff.first}); "
            f"{len(differing):,} of {len(diff.frame):,} ranks differ, all listed below."
        )
        st.dataframe(differing.drop(columns="same"), hide_index=True, width="stretch")
    with st.expander(f"Both merge tables in full ({len(diff.frame):,} ranks)"):
        st.dataframe(diff.frame, hide_index=True, width="stretch")

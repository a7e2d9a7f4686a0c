"""Languages page: the token tax (Petrov et al. 2023). The same declaration in 84 languages, its tokens and
premium over English under GPT-2, cl100k_base, o200k_base and the table trained here, and the premiums as
curves over the trained table's merges."""

from __future__ import annotations

from functools import partial

import streamlit as st

from bpe_core import BPEError
from ui import sidebar, state
from ui.cache import READY, ready_tokenizer, session_trained, start_preload
from ui.languages import (
    TRAINED,
    language_from_link,
    language_to_link,
    pick_from_chart,
    ready_counts,
    source_of,
    train_button,
    trained_curves,
    trained_on_udhr,
    udhr_sections,
    unseen_counts,
)
from ui.layout import setup_page
from ui.presentation import presenting
from viz.encode_views import token_views
from viz.languages import (
    MEASURES,
    alphabet_characters,
    curves_figure,
    excerpt,
    gains_frame,
    helped_frame,
    merge_share_figure,
    merge_share_frame,
    mostly_unseen,
    premium_column,
    premium_figure,
    premium_frame,
    premium_summary,
    reference_story,
    rule_texts,
    script_colors,
    tokens_column,
    unseen_note,
)
from viz.markdown import plain
from viz.tokens import tokens_row

BIND = "query-params"
SHOWN_CHARS = 200
DEFAULT_CURVES = ["fra", "rus", "arb", "hin", "cmn_hans", "mya"]
# The premium chart's pixels per language and font size, and the height of the box it scrolls in, by
# presentation mode: the dearest languages and the scale show at once, and the language's tokens below stay
# a short scroll away. Comments, not strings: Streamlit's magic would show a string.
BARS = {False: {"bar_height": 16, "font_size": 12}, True: {"bar_height": 19, "font_size": 14}}
CHART_BOX = {False: 520, True: 470}

setup_page("Languages")
st.title("Languages: the token tax")
st.caption(
    "The Universal Declaration of Human Rights in 84 languages: the same text, so the number of tokens it "
    "takes measures what a tokenizer charges each language. The premium is a language's tokens over "
    "English's (Petrov et al. 2023, “Language Model Tokenizers Introduce Unfairness Between Languages”): "
    "at 3×, the same content costs three times the price and fills three times the context."
)
start_preload(tuple(READY))
sections = udhr_sections()
corpus, settings = sidebar.applied()

counts: dict[str, dict[str, int]] = {}
for label in READY:
    try:
        counts[label] = ready_counts(label)
    except BPEError as exc:
        st.error(f"Cannot load {label}: {plain(exc)}")
result = curves = None
try:
    result = session_trained(corpus, settings)
    curves = trained_curves(result, source_of(corpus, settings))
    counts[TRAINED] = {code: c[-1] for code, c in curves.counts.items()}
except (BPEError, TypeError) as exc:
    st.error(f"Cannot train on {plain(corpus.name)}: {plain(exc)}")
frame = premium_frame(sections, counts)
labels = list(counts)

codes = list(sections)
if unknown := language_from_link(codes):
    st.warning(f"This link names a language the UDHR sample does not hold ({plain(unknown[:40])}); showing Hindi.")
pick, note = st.columns([2, 3], vertical_alignment="bottom")
code = pick.selectbox(
    "Language (or click its bar)",
    codes,
    format_func=lambda c: f"{sections[c].name} [{c}], {sections[c].script}",
    key=state.LANG_CODE,
)
language_to_link(code)
note.caption("Bars: the same declaration's tokens over English's, dearest on top, coloured by script.")
tabs = st.tabs([*labels, "All as a table"])
for i, (tab, label) in enumerate(zip(tabs, labels)):
    with tab:
        hatched: list[str] = []
        if label == TRAINED:
            st.caption(
                f"Trained here: the Train page's table, {result.num_merges:,} merges on {plain(corpus.name)} "
                f"({plain(settings.pretokenizer)}, {plain(settings.unit)})."
            )
            unseen = unseen_counts(result, source_of(corpus, settings))
            hatched = mostly_unseen(frame, label, unseen)
            why = unseen_note(frame, label, unseen, corpus=corpus.name, alphabet=alphabet_characters(result),
                              fallback=result.tokenizer.model.fallback)  # fmt: skip
            if why:
                st.info(plain(why), icon=":material/info:")
            if not trained_on_udhr(corpus):
                train_button(state.LANG_TRAIN_TAB)
        st.caption(plain(premium_summary(frame, label)))
        with st.container(height=CHART_BOX[presenting()], border=False):  # 84 names: the chart scrolls here
            st.plotly_chart(
                premium_figure(frame, label, selected=code, hatched=hatched, **BARS[presenting()]),
                width="stretch",
                key=state.lang_chart(i),
                on_select=partial(pick_from_chart, state.lang_chart(i)),
                selection_mode="points",
            )
with tabs[-1]:
    st.dataframe(frame, hide_index=True, width="stretch", column_config={
        premium_column(label): st.column_config.NumberColumn(format="%.2f×") for label in labels
    })  # fmt: skip

section = sections[code]
shown = excerpt(section.text, SHOWN_CHARS)
st.subheader(f"{section.name}, tokenized")
st.caption(
    f"Its first {len(shown):,} characters ({plain(section.script)} script) under each tokenizer; the counts are "
    f"for the whole declaration ({len(section.text):,} characters)."
)
row = frame.set_index("code").loc[code]
for label in labels:
    tok = result.tokenizer if label == TRAINED else ready_tokenizer(label)
    trace = tok.encode_with_trace(shown)
    st.markdown(
        f"**{label}**: {len(trace.ids):,} tokens here; the whole declaration {int(row[tokens_column(label)]):,} "
        f"tokens, {row[premium_column(label)]:.2f}× English"
    )
    st.html(tokens_row(token_views(tok, trace), show_ids=False))

st.header("Over training: who gets the merges")
if curves is None:
    st.stop()
if not trained_on_udhr(corpus):
    st.info(
        f"The Train page's table was trained on {plain(corpus.name)}. To see how a table trained on a mix of "
        f"languages shares its merges out, train it on the UDHR sample itself."
    )
    train_button(state.LANG_TRAIN)
st.caption(
    f"Each language's tokens after the first k of the table's {curves.merges:,} merges, from one traced encoding "
    "of each declaration (the same choices as the table cut to k merges)."
)
st.markdown(plain(reference_story(curves, sections)))
left, right = st.columns([1, 3])
measure = left.radio("Plot", list(MEASURES), key=state.LANG_MEASURE, horizontal=True, bind=BIND)
picked = right.multiselect(
    f"Languages picked out (with {section.name})",
    codes,
    default=DEFAULT_CURVES,
    format_func=lambda c: sections[c].name,
    key=state.LANG_HIGHLIGHT,
    bind=BIND,
)
st.plotly_chart(curves_figure(curves, sections, [code, *picked], measure=measure), width="stretch")
st.subheader("Which merges went to which script")
colors = script_colors([s.script for s in sections.values()])  # as on the premium chart
st.plotly_chart(merge_share_figure(merge_share_frame(curves, sections), colors=colors), width="stretch")
st.caption("Each merge is counted for the script of the language it saved the most tokens.")
st.subheader(f"The merges that saved {section.name} the most")
rules = rule_texts(result, [r for r, _ in curves.helped[code]])
st.dataframe(helped_frame(curves, code, rules, sections), hide_index=True, width="stretch")
with st.expander("Every language: tokens before and after, premium, when it stopped gaining"):
    st.dataframe(gains_frame(curves, sections), hide_index=True, width="stretch")

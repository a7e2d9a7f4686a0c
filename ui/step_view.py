"""What the Train page shows for one merge step (shared with the lessons)."""

from __future__ import annotations

import streamlit as st

from bpe_core import TIE_BREAKS, MergeStep, TrainResult
from ui import state
from ui.provenance import RULE_TABLE_HINT, rule_table
from viz.corpus_strip import Excerpt, corpus_strip, corpus_strip_html
from viz.markdown import left_out, plain
from viz.tokens import STYLE, change_html, display_of
from viz.train_charts import (
    corpus_length_figure,
    mark_step,
    merge_count_figure,
    pair_bars_css,
    pair_bars_figure,
    vocab_growth_figure,
)
from viz.train_tables import merges_frame, pair_counts_frame, pretoken_noun, tie_explanation, word_changes_frame

_RULE_WINDOW = 12
_NUMBER = st.column_config.NumberColumn(format="localized")
"""Counts and ids with thousands separators (12,000), as in the metrics above the tables."""
RULE_COLUMNS = {name: _NUMBER for name in ("rank", "id", "count", "replaced", "tied")}
PAIR_COLUMNS = {
    "left": st.column_config.TextColumn(width="small"),
    "right": st.column_config.TextColumn(width="small"),
    "count": _NUMBER,
    "status": st.column_config.TextColumn(width="small"),
    "tie key": st.column_config.TextColumn(width="large", help="What the tie rule compared for this pair"),
}
WORD_COLUMNS = {
    "freq": _NUMBER,
    "before": st.column_config.TextColumn(width="large"),
    "after": st.column_config.TextColumn(width="large"),
}


def _highlight_first(row):  # pandas Styler row function
    return ["background-color: #fef3c7; font-weight: 600" if row.name == 0 else "" for _ in row]


def _charts(result: TrainResult) -> tuple:
    """The three training charts of ``result``, built once per result and kept in the session."""
    memo = st.session_state.get(state.CHARTS)
    if memo is None or memo[0] is not result:
        memo = (result, (merge_count_figure(result), corpus_length_figure(result), vocab_growth_figure(result)))
        st.session_state[state.CHARTS] = memo
    return memo[1]


def _pair_bars(result: TrainResult, k: int, show) -> None:
    """The top pair counts before merge ``k`` as bars, with the tie in words."""
    s = result.views.steps[k]
    st.markdown(f"**Pair counts before this merge** (ties broken by {s.tie_break})")
    total = result.views.num_pairs_at(k)
    note = left_out(len(s.top_pairs), total, "distinct pairs", first="top")
    st.caption(f"Showing {note}." if note else f"All {total:,} distinct pairs.")
    st.plotly_chart(pair_bars_figure(s, show), width="stretch", key=state.PAIR_BARS)
    shown = st.session_state.get(state.PAIR_BARS_SHOWN)  # the step whose bars were drawn last, and its result
    before = result.views.steps[shown[1]] if shown is not None and shown[0] is result else None
    st.session_state[state.PAIR_BARS_SHOWN] = (result, k)
    if css := pair_bars_css(before, s, f"st-key-{state.PAIR_BARS}"):
        st.html(css)  # only a <style>: it takes no room on the page
    if why := tie_explanation(s, show):
        st.caption(f"Tie: {plain(why)}.")
    if s.num_tied > len(s.tied):
        st.caption(
            f"{s.num_tied:,} pairs share the count {s.count:,}; the bars show the tie rule's best "
            f"{len(s.tied):,} ({s.num_tied - len(s.tied):,} left out)."
        )


def _rewritten_words(result: TrainResult, s: MergeStep, noun: str) -> None:
    """The most frequent words (``noun``: or pre-tokens) merge ``s`` rewrote, before → after."""
    note = left_out(len(s.words), s.num_words, "shown", first="top")
    st.markdown(
        f"**{noun.capitalize()} rewritten** ({s.num_words:,} distinct; most frequent first"
        + (f"; {note})" if note else ")")
    )
    rows = [STYLE]
    for w in s.words:
        rows.append(
            "<div style='display:flex;align-items:center;gap:6px;margin:4px 0'>"
            f"<code>×{w.freq:,}</code>" + change_html(w, result.tokenizer) + "</div>"
        )
    st.html("".join(rows))


def _full_tables(result: TrainResult, k: int, show, noun: str) -> None:
    """The pair counts (with the tie keys) and every rewritten word as tables, across the page's width.

    The expanders are lazy: their tables are built only while open, so a step change does not pay for
    tables nobody unfolded (they were a third of a step's server time).
    """
    s = result.views.steps[k]
    pairs = st.expander("Pair counts as a table, with the tie keys", key=state.PAIR_TABLE_OPEN, on_change="rerun")
    if pairs.open:
        pairs.dataframe(
            pair_counts_frame(s, show).style.apply(_highlight_first, axis=1),
            hide_index=True,
            width="stretch",
            column_config=PAIR_COLUMNS,
        )
    if s.num_words > len(s.words):
        words = st.expander(f"All {s.num_words:,} rewritten {noun}", key=state.WORD_TABLE_OPEN, on_change="rerun")
        if words.open:
            limit = 2000
            words.dataframe(
                word_changes_frame(result.views.word_changes(k, limit=limit), show),
                hide_index=True,
                width="stretch",
                column_config=WORD_COLUMNS,
            )
            note = left_out(limit, s.num_words, "words")
            order = "in corpus order (the list above puts the most frequent first); a column's header sorts by it"
            words.caption(f"Showing {note}, {order}." if note else f"{order[0].upper()}{order[1:]}.")


def render_step(
    result: TrainResult,
    step: int,
    *,
    charts: bool = True,
    excerpt: Excerpt | None = None,
    where: str = "train",
    train_link: bool = True,
) -> None:
    """Draw merge ``step`` (1-based) of ``result``: pair bars, rewritten words, the corpus strip (when
    ``excerpt``, the start of the corpus, is given), rules so far, and the three charts (``charts``).

    A row of a rule table opens its token's tree (:func:`ui.provenance.rule_table`); ``where`` names
    this page's tables in their keys, and ``train_link`` says whether the tree links to the Train page
    (``result`` is the Train page's training)."""
    k = step - 1
    s = result.views.steps[k]
    show = display_of(result)
    noun = pretoken_noun(result.config.pretokenizer)
    a, b, new = (plain(show(t)) for t in (*s.pair, s.token))
    st.subheader(f"Merge {step:,} of {result.num_merges:,} (rank {k:,}): “{a}” + “{b}” → “{new}”")
    m = st.columns(5)
    m[0].metric("pair count", f"{s.count:,}")
    m[1].metric("replaced", f"{s.replacements:,}", help="Overlapping occurrences (a a a) cannot all be replaced.")
    m[2].metric(
        "tied pairs",
        f"{s.num_tied:,}",
        help=f"Pairs with the winning count; the tie rule is {s.tie_break}: " + TIE_BREAKS[s.tie_break],
    )
    m[3].metric("vocabulary", f"{s.vocab_size_after:,}")
    m[4].metric("corpus tokens", f"{s.tokens_after:,}", delta=f"{s.tokens_after - result.tokens_at(k):,}")

    left, right = st.columns([1.2, 1])
    with left:
        _pair_bars(result, k, show)
    with right:
        _rewritten_words(result, s, noun)
    _full_tables(result, k, show, noun)
    if excerpt is not None and excerpt.pieces:
        strip = corpus_strip(result, excerpt, k)
        st.markdown("**The corpus after this merge**")
        st.html(corpus_strip_html(strip))
        st.caption(strip.caption())

    # only the window's rows: a table of every rule so far grows with the step and is built only when unfolded
    recent = merges_frame(result, k, show, first=max(0, k + 1 - _RULE_WINDOW)).iloc[::-1].reset_index(drop=True)
    note = left_out(len(recent), k + 1, "rules", first="last")
    st.markdown(
        "**Merge rules so far** (newest first; the current rule is highlighted" + (f"; {note})" if note else ")")
    )
    st.caption(RULE_TABLE_HINT)
    rule_table(
        recent.style.apply(_highlight_first, axis=1),
        recent["id"].tolist(),
        result,
        key=state.rule_table(where, step),
        train_link=train_link,
        width="stretch",
        column_config=RULE_COLUMNS,
    )
    if k + 1 > _RULE_WINDOW:
        every = st.expander(f"All {k + 1:,} rules up to this merge", key=state.RULE_TABLE_OPEN, on_change="rerun")
        if every.open:  # lazy, as in _full_tables
            rules = merges_frame(result, k, show)
            with every:
                rule_table(
                    rules,
                    rules["id"].tolist(),
                    result,
                    key=state.rule_table(f"{where}_all", step),
                    train_link=train_link,
                    width="stretch",
                    column_config=RULE_COLUMNS,
                )

    if charts:
        figures = _charts(result)
        for col, fig, key in zip(st.columns(3), figures, state.CHART_KEYS):
            col.plotly_chart(mark_step(fig, step), width="stretch", key=key)

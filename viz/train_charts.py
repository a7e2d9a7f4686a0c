"""Training trace -> plotly figures, each marking the current merge step."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from bpe_core import MergeStep, TrainResult
from viz.train_tables import Show, pair_counts_frame, token_counts

_LAYOUT = {
    "height": 300,
    "margin": {"l": 0, "r": 4, "t": 66, "b": 0},
    "hovermode": "x unified",
    "title": {"font": {"size": 15}, "y": 0.98, "yanchor": "top", "x": 0, "xanchor": "left", "pad": {"l": 4}},
    "legend": {"orientation": "h", "x": 0, "xanchor": "left", "y": 1, "yanchor": "bottom", "font": {"size": 12}},
    "xaxis": {"automargin": True, "nticks": 5, "tickangle": 0},
    "yaxis": {"automargin": True, "nticks": 6},
}
"""The three small Train charts (a third of the page each, about 260 px wide at 1280x720 with the sidebar open):
the title at the top left, the legend in one row under it instead of over the plot, horizontal ticks (at most 5
on the x axis), and margins sized by plotly to the tick labels (``automargin``) instead of fixed ones."""


_MARK = "current step"


def _span(first: int, last: int) -> list[float]:
    """An x-axis range that fits the data exactly (a marker or its label never widens it)."""
    return [first - 0.5, last + 0.5] if last <= first else [first, last]


def mark_step(fig: go.Figure, step: int | None, label: str | None = None) -> go.Figure:
    """Move the dashed "current step" line of ``fig`` to merge ``step`` (1-based; ``None`` removes it).

    Changes ``fig`` in place and returns it, so a figure built once can follow a
    step player without being rebuilt (building one costs tens of milliseconds).
    ``label`` is the line's label (``"merge 12"`` by default; a chart whose x axis is not
    merges, such as vocabulary size, says what ``step`` is there).
    """
    text = f"merge {step}" if label is None else html.escape(label)
    line = next((s for s in fig.layout.shapes if s.name == _MARK), None)
    note = next((a for a in fig.layout.annotations if a.name == _MARK), None)
    if step is not None and line is not None and note is not None:  # move the marks: plotly validates new ones
        line.update(x0=step, x1=step)
        note.update(x=step, text=text, xanchor=_anchor(fig, step))
        return fig
    shapes = [s for s in fig.layout.shapes if s.name != _MARK]
    notes = [a for a in fig.layout.annotations if a.name != _MARK]
    if step is not None:
        shapes.append(
            go.layout.Shape(
                type="line",
                name=_MARK,
                x0=step,
                x1=step,
                xref="x",
                y0=0,
                y1=1,
                yref="paper",
                line={"dash": "dash", "color": "#f59e0b"},
            )
        )
        notes.append(
            go.layout.Annotation(
                name=_MARK,
                x=step,
                xref="x",
                y=1,
                yref="paper",
                text=text,
                showarrow=False,
                xanchor=_anchor(fig, step),
                yanchor="top",
            )
        )
    fig.layout.shapes = shapes
    fig.layout.annotations = notes
    return fig


def _anchor(fig: go.Figure, step: int) -> str:
    """Where the step's label sits against its line: left of it in the right half of the x range."""
    lo, hi = fig.layout.xaxis.range or (None, None)
    return "right" if lo is not None and hi is not None and step > (lo + hi) / 2 else "left"


def merge_count_figure(result: TrainResult, step: int | None = None) -> go.Figure:
    """Winning pair count and replacements of merge 1..N (the count never rises); ``step`` is marked."""
    steps = result.summaries
    ranks = np.arange(1, len(steps) + 1)  # numpy arrays: a step change copies and sends them whole, not per number
    counts = np.fromiter((s.count for s in steps), dtype=np.int64, count=len(steps))
    replaced = np.fromiter((s.replacements for s in steps), dtype=np.int64, count=len(steps))
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=ranks, y=counts, name="winning count", mode="lines"))
    fig.add_trace(go.Scatter(x=ranks, y=replaced, name="replaced", mode="lines", line_dash="dot"))
    fig.update_layout(_LAYOUT, title_text="Winning pair count per merge", xaxis_title="merge", yaxis_title="count")
    fig.update_xaxes(range=_span(1, result.num_merges))
    return mark_step(fig, step)


def corpus_length_figure(result: TrainResult, step: int | None = None) -> go.Figure:
    """The training corpus's length in tokens, and characters per token, after 0..N merges; ``step`` is marked.

    (:func:`viz.compare.compression_figure` draws several runs, or held-out text, on one metric.)
    """
    merges = np.arange(result.num_merges + 1)
    tokens = np.asarray(token_counts(result), dtype=np.int64)
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    fig.add_trace(go.Scatter(x=merges, y=tokens, name="tokens", mode="lines"), secondary_y=False)
    fig.add_trace(
        go.Scatter(x=merges, y=result.text_chars / tokens, name="chars per token", mode="lines"), secondary_y=True
    )
    fig.update_layout(_LAYOUT, title_text="Corpus length", xaxis_title="merges learned")
    fig.update_yaxes(title_text="tokens", tickformat="~s", secondary_y=False)
    fig.update_yaxes(title_text=None, tickformat=".2f", automargin=True, nticks=6, showgrid=False, secondary_y=True)
    fig.update_xaxes(range=_span(0, result.num_merges))
    return mark_step(fig, step)


def vocab_growth_figure(result: TrainResult, step: int | None = None) -> go.Figure:
    """Vocabulary size (special tokens + alphabet + merges) after 0..N merges; ``step`` is marked."""
    base = result.summaries[0].vocab_size_after - 1 if result.summaries else len(result.vocab)
    merges = np.arange(result.num_merges + 1)
    fig = go.Figure(go.Scatter(x=merges, y=base + merges, name="vocabulary", mode="lines"))
    fig.add_hline(y=base, line_dash="dot", line_color="#64748b", annotation_text=f"base alphabet + specials: {base}")
    fig.update_layout(_LAYOUT, title_text="Vocabulary size", xaxis_title="merges learned", yaxis_title="tokens")
    fig.update_xaxes(range=_span(0, result.num_merges))
    return mark_step(fig, step)


WINNER = "#f59e0b"
"""The winning pair's bar (the amber of the token boxes' "new" outline)."""
TIED = "#fcd34d"
"""Bars of pairs that tied with the winner and lost the tie rule (hatched as well)."""
OTHER = "#94a3b8"
"""Every other pair's bar."""
TRANSITION = {"duration": 300, "easing": "cubic-in-out"}
"""How long bars take to grow or shrink to the next step's counts while the player runs (ms): plotly's
``layout.transition``, and the CSS animation of :func:`pair_bars_css` (a new chart per step never
transitions in Streamlit, so the CSS one is what the viewer sees)."""


def _same(token: str) -> str:
    return token


def pair_bars_figure(step: MergeStep, show: Show = _same, *, height: int = 300) -> go.Figure:
    """The top pair counts before ``step``'s merge as horizontal bars, best at the top.

    The winner's bar is amber; pairs that tied with it and lost the tie rule are
    pale amber and hatched (``/``) and their label says "tie"; the others are grey.
    Each bar's hover text gives the count and, for tied pairs, the tie key. Bars
    sit at fixed slots ``0..k-1`` (labels are tick texts), so two pairs that
    display alike stay two bars, and ``layout.transition`` lets plotly move the
    bars when the next step's figure replaces this one.

    Args:
        step: a :class:`~bpe_core.MergeStep` (its ``top_pairs``, ``tied``, ``tie_keys``).
        show: how a token string is displayed (:func:`viz.tokens.display_for`).
        height: figure height in pixels.

    Returns:
        A figure with one bar trace; labels are HTML-escaped (plotly reads a few tags).
    """
    frame = pair_counts_frame(step, show)
    slots = list(range(len(frame)))
    labels = [html.escape(f"{a} + {b}", quote=False) for a, b in zip(frame["left"], frame["right"])]
    statuses = frame["status"].tolist()
    colors = [WINNER if k == 0 else TIED if status == "lost tie" else OTHER for k, status in enumerate(statuses)]
    shapes = ["/" if status == "lost tie" else "" for status in statuses]
    marks = ["" if not status else " (tie)" if status == "lost tie" else f" ({status})" for status in statuses]
    top = max(frame["count"], default=0)
    bars = go.Bar(
        x=frame["count"].tolist(),
        y=slots,
        orientation="h",
        marker={"color": colors, "pattern": {"shape": shapes}},
        text=[f"{count:,}{mark}" for count, mark in zip(frame["count"], marks)],
        textposition="outside",
        cliponaxis=False,
        textfont={"size": 13},
        customdata=[html.escape(key, quote=False) for key in frame["tie key"]],
        hovertemplate="%{x:,}<br>%{customdata}<extra></extra>",
        name="pair count",
    )
    layout = {  # one nested dict: plotly's update_* helpers parse property paths and cost far more
        "title": {"text": f"Top {len(frame):,} pair counts before merge {step.rank + 1:,}"},
        "height": height,
        "margin": {"l": 10, "r": 20, "t": 40, "b": 30},
        "transition": TRANSITION,
        "uirevision": "pair-bars",
        "showlegend": False,
        "yaxis": {
            "tickvals": slots,
            "ticktext": labels,
            "autorange": "reversed",
            "automargin": True,
            "tickfont": {"size": 14},
        },
        "xaxis": {"title": {"text": "count"}, "range": [0, top * 1.3 or 1], "tickformat": ","},
    }
    return go.Figure(data=[bars], layout=layout)


def bar_starts(before: MergeStep | None, step: MergeStep) -> list[float]:
    """Where each bar of ``pair_bars_figure(step)`` (top first) starts its animation, as a fraction of its width.

    Streamlit draws a new chart for every step (the chart's identity includes its
    data), so plotly's own transition never runs; the bars are animated by CSS
    instead, each growing or shrinking from the width it had in the chart drawn
    before (``before``). A bar's width is its count over the axis length, which
    is proportional to the step's top count (:func:`pair_bars_figure`), so a pair's
    start is ``(count before / top before) / (count now / top now)``. A pair the
    earlier chart did not show starts at 0 (it grows in); with no earlier chart
    (``before`` is None) or the same step, every bar starts at its width (1.0).

    Returns:
        One fraction per bar, at least 0 and at most 10.
    """
    now = step.top_pairs
    if before is None or before.rank == step.rank or not now:
        return [1.0] * len(now)
    top_now = max(count for _pair, count in now) or 1
    then = dict(before.top_pairs)
    top_then = max(then.values(), default=0) or 1
    starts = []
    for pair, count in now:
        width_now = count / top_now
        width_then = then.get(pair, 0) / top_then
        starts.append(min(10.0, width_then / width_now) if width_now else 1.0)
    return starts


def pair_bars_css(before: MergeStep | None, step: MergeStep, scope: str) -> str:
    """A ``<style>`` element that animates the bars of ``pair_bars_figure(step)`` from the widths they had in the
    chart of ``before`` (:func:`bar_starts`), for the chart in the element whose class is ``scope``
    (Streamlit's ``st-key-<key>``); empty when no bar moves. Every value in it is a number."""
    starts = bar_starts(before, step)
    if all(start == 1.0 for start in starts):
        return ""
    ms = TRANSITION["duration"]
    rules = [
        f".{scope} .bars .point path{{transform-box:fill-box;transform-origin:left center;"
        f"animation:{ms}ms ease-out both}}"
    ]
    for slot, start in enumerate(starts):
        name = f"bpe-bar-{step.rank}-{slot}"
        rules.append(f".{scope} .bars .point:nth-child({slot + 1}) path{{animation-name:{name}}}")
        rules.append(f"@keyframes {name}{{from{{transform:scaleX({start:.4f})}}to{{transform:none}}}}")
    return "<style>" + "".join(rules) + "</style>"

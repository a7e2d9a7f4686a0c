"""Training trace -> plotly figures, each marking the current merge step."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from bpe_core import TrainResult
from viz.train_tables import token_counts

_LAYOUT = {"height": 300, "margin": {"l": 50, "r": 20, "t": 40, "b": 40}, "hovermode": "x unified"}


_MARK = "current step"


def _span(first: int, last: int) -> list[float]:
    """An x-axis range that fits the data exactly (a marker or its label never widens it)."""
    return [first - 0.5, last + 0.5] if last <= first else [first, last]


def mark_step(fig: go.Figure, step: int | None) -> go.Figure:
    """Move the dashed "current step" line of ``fig`` to merge ``step`` (1-based; ``None`` removes it).

    Changes ``fig`` in place and returns it, so a figure built once can follow a
    step player without being rebuilt (building one costs tens of milliseconds).
    """
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
        lo, hi = fig.layout.xaxis.range or (None, None)
        right_half = lo is not None and hi is not None and step > (lo + hi) / 2
        notes.append(
            go.layout.Annotation(
                name=_MARK,
                x=step,
                xref="x",
                y=1,
                yref="paper",
                text=f"merge {step}",
                showarrow=False,
                xanchor="right" if right_half else "left",
                yanchor="top",
            )
        )
    fig.layout.shapes = shapes
    fig.layout.annotations = notes
    return fig


def merge_count_figure(result: TrainResult, step: int | None = None) -> go.Figure:
    """Winning pair count and replacements of merge 1..N (the count never rises); ``step`` is marked."""
    steps = result.summaries
    ranks = [s.rank + 1 for s in steps]
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=ranks, y=[s.count for s in steps], name="winning count", mode="lines"))
    fig.add_trace(
        go.Scatter(x=ranks, y=[s.replacements for s in steps], name="replaced", mode="lines", line_dash="dot")
    )
    fig.update_layout(title="Winning pair count per merge", xaxis_title="merge", yaxis_title="count", **_LAYOUT)
    fig.update_xaxes(range=_span(1, result.num_merges))
    return mark_step(fig, step)


def corpus_length_figure(result: TrainResult, step: int | None = None) -> go.Figure:
    """The training corpus's length in tokens, and characters per token, after 0..N merges; ``step`` is marked.

    (:func:`viz.compare.compression_figure` draws several runs, or held-out text, on one metric.)
    """
    merges = list(range(result.num_merges + 1))
    tokens = token_counts(result)
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    fig.add_trace(go.Scatter(x=merges, y=tokens, name="tokens", mode="lines"), secondary_y=False)
    fig.add_trace(
        go.Scatter(x=merges, y=[result.text_chars / t for t in tokens], name="chars per token", mode="lines"),
        secondary_y=True,
    )
    fig.update_layout(title="Corpus length as merges are learned", xaxis_title="merges learned", **_LAYOUT)
    fig.update_yaxes(title_text="tokens", tickformat="~s", secondary_y=False)
    fig.update_yaxes(title_text="chars per token", tickformat=".2f", secondary_y=True)
    fig.update_xaxes(range=_span(0, result.num_merges))
    return mark_step(fig, step)


def vocab_growth_figure(result: TrainResult, step: int | None = None) -> go.Figure:
    """Vocabulary size (special tokens + alphabet + merges) after 0..N merges; ``step`` is marked."""
    base = result.summaries[0].vocab_size_after - 1 if result.summaries else len(result.vocab)
    merges = list(range(result.num_merges + 1))
    fig = go.Figure(go.Scatter(x=merges, y=[base + k for k in merges], name="vocabulary", mode="lines"))
    fig.add_hline(y=base, line_dash="dot", line_color="#64748b", annotation_text=f"base alphabet + specials: {base}")
    fig.update_layout(title="Vocabulary size", xaxis_title="merges learned", yaxis_title="tokens", **_LAYOUT)
    fig.update_xaxes(range=_span(0, result.num_merges))
    return mark_step(fig, step)

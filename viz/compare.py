"""Side-by-side comparison of training runs: merge timelines, vocabulary overlap, compression.

Runs made with different units or markers spell the same merge differently
(``t h`` in characters, ``t h`` in bytes, ``Ġt`` for a space-led byte token),
so comparisons use each token's *text*: byte tokens decoded, the end-of-word
marker written ``</w>``.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go
from pandas.io.formats.style import Styler

from bpe_core import TrainResult
from viz.encode_views import encode_stats
from viz.tokens import TokenView, end_of_word_mode, tokens_row, view_of_string, visible

STATUS_COLORS = {"shared by all": "#bbf7d0", "shared by some": "#fef08a", "unique": "#fecaca"}
"""Cell colours of the merge timeline."""


def token_text(token: str, result: TrainResult) -> str:
    """A token's text as comparable across runs, whitespace made visible: ``Ġthe`` -> ``·the``; ``er</w>`` stays."""
    view = view_of_string(token, result.config.unit, end_of_word_mode(result))
    return visible(view.text) + ("</w>" if view.end_of_word else "")


def merge_texts(result: TrainResult) -> list[str]:
    """Each merge of ``result`` as ``"left + right"`` in comparable text, in rank order."""
    return [f"{token_text(a, result)} + {token_text(b, result)}" for a, b in result.merges]


def first_divergence(results: Mapping[str, TrainResult]) -> int | None:
    """The first merge rank at which the runs' merge tables differ, or ``None`` if they agree throughout.

    A run that stopped early diverges where it stopped.
    """
    tables = [merge_texts(r) for r in results.values()]
    longest = max((len(t) for t in tables), default=0)
    for rank in range(longest):
        column = {t[rank] if rank < len(t) else None for t in tables}
        if len(column) > 1:
            return rank
    return None


def merge_timeline(results: Mapping[str, TrainResult]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The merge tables aligned by rank, and each cell's status.

    Returns:
        ``(merges, status)``: two DataFrames indexed by rank with one column per
        run. ``merges`` holds ``"left + right"`` texts ("" past a run's end);
        ``status`` holds "shared by all", "shared by some" or "unique": whether
        the same merge appears, at any rank, in every other run, some, or none.
    """
    tables = {name: merge_texts(r) for name, r in results.items()}
    sets = {name: set(t) for name, t in tables.items()}
    longest = max((len(t) for t in tables.values()), default=0)
    merges: dict[str, list[str]] = {}
    status: dict[str, list[str]] = {}
    for name, table in tables.items():
        others = [s for other, s in sets.items() if other != name]
        col, stat = [], []
        for rank in range(longest):
            if rank >= len(table):
                col.append("")
                stat.append("")
                continue
            m = table[rank]
            hits = sum(m in s for s in others)
            col.append(m)
            stat.append("shared by all" if hits == len(others) else "shared by some" if hits else "unique")
        merges[name], status[name] = col, stat
    index = pd.RangeIndex(longest, name="rank")
    return pd.DataFrame(merges, index=index), pd.DataFrame(status, index=index)


def timeline_css(status: pd.DataFrame) -> pd.DataFrame:
    """Each timeline cell's CSS: its status colour (:data:`STATUS_COLORS`), nothing past a run's end."""
    return status.map(lambda s: f"background-color: {STATUS_COLORS[s]}" if s in STATUS_COLORS else "")


def timeline_style(merges: pd.DataFrame, status: pd.DataFrame) -> Styler:
    """The merge timeline with each cell coloured by its status (see :func:`timeline_css`)."""
    css = timeline_css(status)
    return merges.style.apply(lambda _frame: css, axis=None)


def vocab_texts(result: TrainResult) -> set[str]:
    """The vocabulary (alphabet and merged tokens, not special tokens) as comparable texts."""
    return {token_text(t, result) for t in result.alphabet} | {token_text(a + b, result) for a, b in result.merges}


def vocab_overlap(results: Mapping[str, TrainResult]) -> pd.DataFrame:
    """Pairwise overlap of the vocabularies: rows ``a``, ``b``, ``shared``, ``jaccard`` (|A∩B| / |A∪B|)."""
    vocabs = {name: vocab_texts(r) for name, r in results.items()}
    names = list(vocabs)
    rows = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            inter = len(vocabs[a] & vocabs[b])
            union = len(vocabs[a] | vocabs[b])
            rows.append({"a": a, "b": b, "shared": inter, "jaccard": round(inter / union, 3) if union else 1.0})
    return pd.DataFrame(rows, columns=["a", "b", "shared", "jaccard"])


def unique_tokens(results: Mapping[str, TrainResult]) -> dict[str, list[str]]:
    """For each run, every merged token no other run has (as texts, in the run's merge order)."""
    vocabs = {name: vocab_texts(r) for name, r in results.items()}
    out = {}
    for name, r in results.items():
        others = set().union(*(v for other, v in vocabs.items() if other != name))
        learned = list(dict.fromkeys(token_text(a + b, r) for a, b in r.merges))
        out[name] = [t for t in learned if t not in others]
    return out


METRICS = ("tokens", "chars per token", "bytes per token", "tokens per character")
"""What :func:`compression_figure` can plot."""


def compression_values(counts: Sequence[int], *, chars: int, nbytes: int, metric: str) -> list[float]:
    """Token counts turned into ``metric`` (one of :data:`METRICS`) for a text of ``chars`` characters and
    ``nbytes`` UTF-8 bytes (a count of 0 gives 0).

    Raises:
        ValueError: unknown ``metric``.
    """
    if metric == "tokens":
        return [float(c) for c in counts]
    if metric == "chars per token":
        return [chars / c if c else 0.0 for c in counts]
    if metric == "bytes per token":
        return [nbytes / c if c else 0.0 for c in counts]
    if metric == "tokens per character":
        return [c / chars if chars else 0.0 for c in counts]
    raise ValueError(f"unknown metric {metric!r}; expected one of: {', '.join(METRICS)}")


def compression_figure(
    curves: Mapping[str, Sequence[int]],
    *,
    chars: int | Mapping[str, int],
    nbytes: int | Mapping[str, int],
    metric: str,
    title: str,
    x_offset: int = 0,
    x_title: str = "merges used",
) -> go.Figure:
    """One line per curve: a text's length in ``metric`` against the number of merges used.

    A curve that lies on an earlier one (:func:`coinciding`) is drawn dashed and named
    "(on top of ...)", so both stay visible.

    Args:
        curves: curve name -> token count after 0..N merges.
        chars, nbytes: the text's length in characters and UTF-8 bytes; a mapping
            gives each curve its own (curves over different texts).
        metric: one of :data:`METRICS`.
        title: the figure title (escaped: plotly reads a few HTML tags in titles).
        x_offset: added to the merge count on the x axis (the base vocabulary
            size turns "merges used" into "vocabulary size").
        x_title: the x-axis title.

    Raises:
        ValueError: unknown ``metric``.
    """
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; expected one of: {', '.join(METRICS)}")
    fig = go.Figure()
    values = {
        name: compression_values(
            counts,
            chars=chars[name] if isinstance(chars, Mapping) else chars,
            nbytes=nbytes[name] if isinstance(nbytes, Mapping) else nbytes,
            metric=metric,
        )
        for name, counts in curves.items()
    }
    under = coinciding(values)
    for name, y in values.items():
        label = name + (f" (on top of {under[name]})" if name in under else "")
        fig.add_trace(
            go.Scatter(
                x=[x_offset + k for k in range(len(y))],
                y=y,
                name=html.escape(label),
                mode="lines",
                line={"dash": "dash", "width": 3} if name in under else {"width": 2},
            )
        )
    fig.update_layout(
        title=html.escape(title),
        xaxis_title=x_title,
        yaxis_title=metric,
        hovermode="x unified",
        height=400,
        margin={"l": 50, "r": 20, "t": 40, "b": 40},
        # Below the plot, in a row: curve names such as "training corpus: Wikipedia: Taylor Swift (186 KB)"
        # would otherwise take most of a half-width chart.
        legend={"orientation": "h", "yanchor": "top", "y": -0.22, "xanchor": "left", "x": 0},
    )
    return fig


@dataclass(frozen=True)
class MergeDiff:
    """Two merge tables side by side.

    Attributes:
        frame: one row per rank: ``rank``, one column per table (named by its
            label; "" past a table's end), ``same``.
        first: the first rank where the tables differ, or ``None``.
    """

    frame: pd.DataFrame
    first: int | None

    @property
    def differing(self) -> pd.DataFrame:
        """Every rank where the tables differ (the rows of :attr:`frame` whose ``same`` is False)."""
        return self.frame[~self.frame["same"]].reset_index(drop=True)


def merge_diff(a: TrainResult, b: TrainResult, labels: tuple[str, str] = ("a", "b")) -> MergeDiff:
    """Two merge tables of the same corpus side by side, rank by rank, with their column names.

    Raises:
        ValueError: the two labels are equal (or clash with ``rank``/``same``).
    """
    if len({*labels, "rank", "same"}) != 4:
        raise ValueError(f"labels must be two different names other than 'rank' and 'same', got {labels!r}")
    ta, tb = merge_texts(a), merge_texts(b)
    rows = []
    first = None
    for rank in range(max(len(ta), len(tb))):
        x = ta[rank] if rank < len(ta) else ""
        y = tb[rank] if rank < len(tb) else ""
        if x != y and first is None:
            first = rank
        rows.append({"rank": rank, labels[0]: x, labels[1]: y, "same": x == y})
    return MergeDiff(pd.DataFrame(rows, columns=["rank", *labels, "same"]), first)


def texts_row(texts: Sequence[str]) -> str:
    """Escaped HTML: token boxes for comparable token texts (already made visible)."""
    return tokens_row([TokenView(text=t, raw=t) for t in texts], show_whitespace=False, show_ids=False)


@dataclass(frozen=True)
class Divergence:
    """Where the runs' merge tables part, and what parted them.

    Attributes:
        rank: the first rank at which the runs' merges differ.
        at_rank: ``(run, merge)`` for every run at that rank (merge "" past a run's end).
        unshared: the first merge (in rank order, then run order) that one run learned and
            another never learns at any rank: ``(rank, run, merge, runs that never learn it)``;
            ``None`` when every run learns every merge of the others, only in another order.
    """

    rank: int
    at_rank: tuple[tuple[str, str], ...]
    unshared: tuple[int, str, str, tuple[str, ...]] | None


def divergence(results: Mapping[str, TrainResult]) -> Divergence | None:
    """What diverged between the runs' merge tables (``None`` when they agree rank for rank).

    With different pre-tokenizers the tables differ at merge 1 almost always; the useful
    news is which merge one run learned that another never does (:attr:`Divergence.unshared`).
    """
    rank = first_divergence(results)
    if rank is None:
        return None
    tables = {name: merge_texts(r) for name, r in results.items()}
    sets = {name: set(t) for name, t in tables.items()}
    at_rank = tuple((name, t[rank] if rank < len(t) else "") for name, t in tables.items())
    longest = max(len(t) for t in tables.values())
    for k in range(rank, longest):
        for name, table in tables.items():
            if k < len(table):
                missing = tuple(o for o in tables if o != name and table[k] not in sets[o])
                if missing:
                    return Divergence(rank, at_rank, (k, name, table[k], missing))
    return Divergence(rank, at_rank, None)


def divergence_text(d: Divergence) -> str:
    """One or two plain-text sentences saying what diverged (for a caption; escape before markdown)."""
    learned = ", ".join(f"{name} learned “{merge}”" if merge else f"{name} had stopped" for name, merge in d.at_rank)
    text = f"At merge {d.rank + 1:,}: {learned}."
    if d.unshared is None:
        return text + " Every run learns every merge of the others, only in another order."
    k, name, merge, missing = d.unshared
    never = ", ".join(missing)
    return (
        text
        + f" The first merge one run learned and another never does: merge {k + 1:,} of {name}, “{merge}”"
        + f" ({never} never learns it)."
    )


def coinciding(curves: Mapping[str, Sequence[float]], tolerance: float = 0.01) -> dict[str, str]:
    """Curves drawn on top of an earlier one: name -> the earlier curve's name.

    Two curves coincide when they have the same length and every point differs by at most
    ``tolerance`` of the larger value (1 %: closer than a line's width at the usual chart size).
    """
    out: dict[str, str] = {}
    names = list(curves)
    for i, name in enumerate(names):
        ys = curves[name]
        for earlier in names[:i]:
            if earlier in out:
                continue
            xs = curves[earlier]
            if len(xs) == len(ys) and all(abs(x - y) <= tolerance * max(abs(x), abs(y)) for x, y in zip(xs, ys)):
                out[name] = earlier
                break
    return out


def tokens_formed_twice(result: TrainResult) -> int:
    """How many token strings ``result``'s merge table forms by more than one rule.

    The two encoding orders (rank, sequential) can cut a word differently only when this is
    above 0; for tables learned by BPE it is 0 in practice, so the order switch has no effect.
    """
    seen: set[str] = set()
    again: set[str] = set()
    for a, b in result.merges:
        (again if a + b in seen else seen).add(a + b)
    return len(again)


def text_under_runs(text: str, runs: Mapping[str, tuple[str, int, Sequence[int]]]) -> pd.DataFrame:
    """One text seen through several tokenizers, as the tokenizer arenas show it: one row per run.

    Args:
        text: the text every run encoded.
        runs: ``{run name: (what it is, vocabulary size, token ids)}`` in display order.

    Returns:
        Columns ``run``, ``tokenizer``, ``vocabulary``, ``tokens``, ``chars per token`` and
        ``bytes per token`` (0.0 for a run that gave no token).
    """
    rows = []
    for name, (kind, vocabulary, ids) in runs.items():
        stats = encode_stats(text, list(ids))
        rows.append(
            {
                "run": name,
                "tokenizer": kind,
                "vocabulary": vocabulary,
                "tokens": stats["tokens"],
                "chars per token": stats["chars per token"],
                "bytes per token": stats["bytes per token"],
            }
        )
    columns = ["run", "tokenizer", "vocabulary", "tokens", "chars per token", "bytes per token"]
    return pd.DataFrame(rows, columns=columns)


def run_heading(name: str, tokens: int, text_chars: int, note: str = "") -> str:
    """A run's line above its coloured tokens (markdown; ``name`` is the app's own label, not user text):
    ``**GPT-2**: 10 tokens, 4.70 chars per token``, and ``note`` in parentheses."""
    per = f"{text_chars / tokens:.2f}" if tokens else "0"
    return f"**{name}**: {tokens:,} tokens, {per} chars per token" + (f" ({note})" if note else "")

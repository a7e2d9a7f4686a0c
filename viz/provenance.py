"""Merge trees -> a plotly icicle, tables of their merges and corpus places, and the merge list.

Token strings come from users' corpora, so every text that plotly draws is
HTML-escaped first (plotly reads ``<b>``, ``<a href>`` and entities in labels);
table cells are plain text for ``st.dataframe``.
"""

from __future__ import annotations

import html
from collections.abc import Callable

import pandas as pd
import plotly.graph_objects as go

from bpe_core import MergeTree, Tokenizer, merge_tree
from bpe_core.provenance import CorpusPlace

Show = Callable[[str], str]
"""Token string -> how tables show it (see :func:`viz.tokens.display_of`)."""

LEAF_COLOR = "#e2e8f0"
MERGE_COLORS = ("#fde68a", "#bfdbfe", "#bbf7d0", "#fecaca", "#ddd6fe", "#fed7aa", "#a5f3fc", "#f5d0fe")
"""Merge nodes are coloured by depth below the root, leaves grey."""
ROW_HEIGHT = 56
"""Pixels per level of the icicle."""


def _same(token: str) -> str:
    return token


def tree_figure(tree: MergeTree, show: Show = _same) -> go.Figure:
    """A plotly icicle of ``tree``: the token on top, each merge's two parts below it, base symbols at the bottom.

    Each box is as wide as its bytes, so the leaves line up under the token
    they spell; a merge box is labelled with its token and rank.

    Args:
        tree: from :func:`bpe_core.merge_tree`.
        show: how to show a token string (``Ġthe`` -> ``·the``).

    Returns:
        A figure with one ``icicle`` trace; its ``ids`` are paths (``0``, ``0.1``, ...)
        so a token that occurs twice in the tree gets two boxes.
    """
    ids, parents, labels, values, colors, hovers = [], [], [], [], [], []
    stack: list[tuple[MergeTree, str, str, int]] = [(tree, "0", "", 0)]
    while stack:
        node, path, parent, depth = stack.pop()
        ids.append(path)
        parents.append(parent)
        text = html.escape(show(node.token))
        labels.append(text if node.is_leaf else f"{text}<br>rank {node.rank:,}")
        values.append(max(1, len(node.data)))
        colors.append(LEAF_COLOR if node.is_leaf else MERGE_COLORS[depth % len(MERGE_COLORS)])
        hovers.append(_hover(node, show))
        if node.right is not None and node.left is not None:
            stack.append((node.right, path + ".1", path, depth + 1))
            stack.append((node.left, path + ".0", path, depth + 1))
    fig = go.Figure(
        go.Icicle(
            ids=ids,
            parents=parents,
            labels=labels,
            values=values,
            branchvalues="total",
            marker={"colors": colors, "line": {"color": "#475569", "width": 1}},
            tiling={"orientation": "v"},
            hovertext=hovers,
            hoverinfo="text",
            textinfo="label",
            textfont={"family": "ui-monospace, monospace"},
            sort=False,
            maxdepth=-1,
        )
    )
    fig.update_layout(height=ROW_HEIGHT * (tree.depth() + 1) + 40, margin={"l": 4, "r": 4, "t": 4, "b": 4})
    return fig


def _hover(node: MergeTree, show: Show) -> str:
    """Escaped hover text for one box."""
    lines = [f"{html.escape(show(node.token))} (id {node.token_id:,})"]
    if node.is_leaf:
        lines.append("base symbol" if node.rank is None else "")
    else:
        assert node.left is not None and node.right is not None
        parts = " + ".join(html.escape(show(part.token)) for part in (node.left, node.right))
        lines.append(f"rank {node.rank:,}: {parts}")
    if node.step is not None:
        lines.append(f"merge {node.step:,} of the training, pair count {node.count:,}")
    return "<br>".join(line for line in lines if line)


def tree_merges_frame(tree: MergeTree, show: Show = _same) -> pd.DataFrame:
    """One row per merge in the tree, lowest rank first (the order they happened).

    Columns: ``rank``, ``left``, ``right``, ``token``, ``id``, and for a table
    trained here ``step`` and ``count`` (the pair's count when it was merged).
    """
    seen: set[int] = set()
    rows = []
    for node in tree.nodes():
        if node.is_leaf or node.token_id in seen:
            continue
        seen.add(node.token_id)
        assert node.left is not None and node.right is not None
        row = {
            "rank": node.rank,
            "left": show(node.left.token),
            "right": show(node.right.token),
            "token": show(node.token),
            "id": node.token_id,
        }
        if node.step is not None:
            row |= {"step": node.step, "count": node.count}
        rows.append(row)
    columns = ["rank", "left", "right", "token", "id"] + (["step", "count"] if tree.step is not None else [])
    frame = pd.DataFrame(rows, columns=columns)
    return frame.sort_values("rank", kind="stable").reset_index(drop=True)


def places_frame(places: tuple[CorpusPlace, ...], show: Show = _same) -> pd.DataFrame:
    """Where a pair was counted: ``word``, ``freq``, ``offset`` and ``tokens`` (the pair in brackets)."""
    return pd.DataFrame(
        [
            {"word": p.word, "freq": p.freq, "offset": p.offset, "tokens": mark_pair(p.symbols, p.position, show)}
            for p in places
        ],
        columns=["word", "freq", "offset", "tokens"],
    )


def mark_pair(symbols: tuple[str, ...], position: int, show: Show = _same) -> str:
    """Tokens joined by spaces, with the pair at ``position`` in brackets: ``n e w [es t] </w>``."""
    shown = [show(s) for s in symbols]
    shown[position] = "[" + shown[position]
    shown[position + 1] = shown[position + 1] + "]"
    return " ".join(shown)


def tree_summary(tree: MergeTree, show: Show = _same) -> str:
    """One plain sentence: how many merges and base symbols build the token, over which ranks."""
    token = show(tree.token)
    if tree.is_leaf:
        return f"“{token}” (id {tree.token_id:,}) is a base symbol: no merge formed it."
    ranks = [node.rank for node in tree.nodes() if node.rank is not None]
    leaves = len(tree.leaves())
    merges, depth = tree.num_merges(), tree.depth()
    span = f"rank {ranks[0]:,}" if merges == 1 else f"ranks {min(ranks):,} to {max(ranks):,}"
    sentence = (
        f"“{token}” (id {tree.token_id:,}) is built from {leaves:,} base symbols by {_count(merges, 'merge')} "
        f"({span}), {_count(depth, 'level')} deep."
    )
    if tree.recovered:
        sentence += (
            " A tiktoken rank file holds ranks, not merge rules: each pair shown is the one tiktoken's own "
            "merge loop joins last when it encodes the token's bytes (recovered)."
        )
    return sentence


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def tokens_frame(tokenizer: Tokenizer, ids: list[int], show: Show = _same) -> pd.DataFrame:
    """One row per token id: ``id``, ``token``, ``rank``, ``left``, ``right`` (``rank``, ``left`` and
    ``right`` empty for a base symbol or special token)."""
    rows = []
    for i in ids:
        node = merge_tree(tokenizer, i)
        rows.append(
            {
                "id": i,
                "token": show(node.token),
                "rank": node.rank,
                "left": show(node.left.token) if node.left is not None else "",
                "right": show(node.right.token) if node.right is not None else "",
            }
        )
    frame = pd.DataFrame(rows, columns=["id", "token", "rank", "left", "right"])
    frame["rank"] = frame["rank"].astype("Int64")
    return frame

"""Merge trees -> a plotly icicle, tables of their merges and corpus places, and the merge list.

Token strings come from users' corpora, so every text that plotly draws is
HTML-escaped first (plotly reads ``<b>``, ``<a href>`` and entities in labels);
table cells are plain text for ``st.dataframe``.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go

from bpe_core import MARKER, MergeTree, Tokenizer, VocabularyAudit, audit_vocabulary, merge_tree
from bpe_core.analysis.audit import KINDS, own_encoding
from bpe_core.analysis.provenance import CorpusPlace
from viz.contrast import text_color
from viz.tokens import describe_bytes

Show = Callable[[str], str]
"""Token string -> how tables show it (see :func:`viz.tokens.display_of`)."""

LEAF_COLOR = "#e2e8f0"
MERGE_COLORS = ("#fde68a", "#bfdbfe", "#bbf7d0", "#fecaca", "#ddd6fe", "#fed7aa", "#a5f3fc", "#f5d0fe")
"""Merge nodes are coloured by depth below the root, leaves grey. Each box's text takes
:func:`viz.contrast.text_color` of its fill (at least 4.5:1, WCAG 2.1 AA), and leaves are drawn opaque,
so the fill the ratio is computed for is the one on screen (plotly draws leaves at 0.7 opacity by default)."""
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
            leaf={"opacity": 1},
            tiling={"orientation": "v"},
            hovertext=hovers,
            hoverinfo="text",
            textinfo="label",
            textfont={"family": "ui-monospace, monospace", "color": [text_color(c) for c in colors]},
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
        lines.append(LEAF_NAMES[node.kind])
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


LEAF_SENTENCES = {
    "base": "is a base symbol: no merge formed it.",
    "special": (
        "is a special token: it is cut out of the text before pre-tokenization and BPE, so no merge forms it "
        "and it has no merge tree."
    ),
    "fallback": (
        "is a fallback token: it stands for a byte or character outside the base alphabet, so no merge forms it "
        "and it has no merge tree."
    ),
}
"""How :func:`tree_summary` ends for a token no merge formed, by :attr:`bpe_core.MergeTree.kind`."""
LEAF_NAMES = {"base": "base symbol", "special": "special token", "fallback": "fallback token"}
"""A leaf box's hover line, by :attr:`bpe_core.MergeTree.kind`."""


def tree_summary(tree: MergeTree, show: Show = _same) -> str:
    """One plain sentence: how many merges and base symbols build the token, over which ranks (or, for a token
    no merge formed, whether it is a base symbol, a special token or a fallback token)."""
    token = show(tree.token)
    if tree.is_leaf:
        return f"“{token}” (id {tree.token_id:,}) {LEAF_SENTENCES[tree.kind]}"
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


def tokens_frame(
    tokenizer: Tokenizer, ids: list[int], show: Show = _same, audit: VocabularyAudit | None = None
) -> pd.DataFrame:
    """One row per token id: ``id``, ``token``, ``rank``, ``left``, ``right`` (``rank``, ``left`` and
    ``right`` empty for a base symbol or special token).

    With an ``audit`` (:func:`bpe_core.audit_vocabulary`), two more columns mark glitch tokens:
    ``uses`` (times encoding the audit's corpus emitted the token, when it had one) and ``audit``
    (its findings, e.g. ``never used · scaffold``; empty for an ordinary token).
    """
    rows = []
    for i in ids:
        node = merge_tree(tokenizer, i)
        row = {
            "id": i,
            "token": show(node.token),
            "rank": node.rank,
            "left": show(node.left.token) if node.left is not None else "",
            "right": show(node.right.token) if node.right is not None else "",
        }
        if audit is not None:
            row |= _audit_cells(audit, i, compact=True)
        rows.append(row)
    frame = pd.DataFrame(rows, columns=["id", "token", "rank", "left", "right", *_audit_columns(audit)])
    frame["rank"] = frame["rank"].astype("Int64")
    if "uses" in frame:
        frame["uses"] = frame["uses"].astype("Int64")
    return frame


# ---------------------------------------------------------------- the glitch-token audit


AUDIT_VIEWS = {
    "Unreachable": "unreachable",
    "Partial UTF-8": "partial_utf8",
    "Never used in the corpus": "never_used",
    "Scaffolds (never used, part of a merge)": "scaffold",
}
"""The lists the Token trees page offers, by label, with the finding each lists
(:data:`bpe_core.analysis.audit.KINDS`)."""
OWN_TEXT = "own text encodes as"
"""The column that shows, for an unreachable token, the tokens its own text gives instead."""


def _audit_columns(audit: VocabularyAudit | None) -> list[str]:
    if audit is None:
        return []
    return ["uses", "audit"] if audit.usage is not None else ["audit"]


MAIN_FINDING = ("partial_utf8", "unreachable", "scaffold", "never_used")
"""The merge list's audit column names one finding per token, the first of these it has: partial UTF-8 and
unreachable tokens are also never used, and every scaffold is never used."""
MERGE_LIST_AUDIT_HELP = (
    "The token's main finding: partial UTF-8 (bytes that are no text on their own), unreachable (its own text "
    "encodes to other tokens), scaffold (never used, part of a merge) or never used. The Glitch tokens lists "
    "below give every finding."
)
"""The merge list's audit column header's help."""


def _audit_cells(audit: VocabularyAudit, token_id: int, *, compact: bool = False) -> dict[str, object]:
    """``audit`` (every finding's label, or with ``compact`` only the first of :data:`MAIN_FINDING`, for the
    merge list's narrow column) and, with a corpus, ``uses``."""
    kinds = audit.kinds(token_id)
    if compact:
        kinds = next(((k,) for k in MAIN_FINDING if k in kinds), ())
    cells: dict[str, object] = {"audit": " · ".join(KINDS[k] for k in kinds)}
    if audit.usage is not None:
        cells["uses"] = audit.uses(token_id)
    return cells


def audit_ids(audit: VocabularyAudit, kind: str) -> tuple[int, ...]:
    """The ids of one finding (a value of :data:`AUDIT_VIEWS`); empty when it needs a corpus and there was none."""
    found = {
        "unreachable": audit.unreachable,
        "partial_utf8": audit.partial_utf8,
        "never_used": audit.never_used,
        "scaffold": audit.scaffolds,
    }[kind]
    return found or ()


def _left_out_of(audit: VocabularyAudit, *, marker: bool = True) -> str:
    """What the audit leaves out of its tokens (``1 special token and the end-of-word symbol </w>``), or ``""``;
    ``marker=False`` leaves the end-of-word symbol out of the answer."""
    kinds = ((audit.special, "special token"), (audit.fallback, "fallback token"))
    parts = [_count(len(ids), noun) for ids, noun in kinds if ids]
    if marker and audit.marker is not None:
        parts.append(f"the end-of-word symbol {MARKER}")
    return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else "".join(parts)


def audit_summary(audit: VocabularyAudit, corpus_name: str = "") -> str:
    """One plain paragraph: how many audited tokens each finding holds, and what the corpus emitted."""
    n = len(audit.audited)
    aside = f" ({_left_out_of(audit)} aside)" if _left_out_of(audit) else ""
    text = (
        f"Of {n:,} tokens{aside}: {len(audit.partial_utf8):,} partial UTF-8 "
        f"(bytes that are no text on their own), {len(audit.unreachable):,} unreachable (their own text "
        "encodes to other tokens)."
    )
    if audit.never_used is None or audit.scaffolds is None:
        return text + " Give a corpus to see which tokens its encoding never uses."
    where = f" {corpus_name}" if corpus_name else " the corpus"
    return text + (
        f" Encoding{where} gives {audit.corpus_tokens:,} tokens and never uses {len(audit.never_used):,} of the "
        f"{n:,}; {len(audit.scaffolds):,} of those are scaffolds: parts of a merge rule that only built longer tokens."
    )


def audit_headline(audit: VocabularyAudit) -> str:
    """Each finding's count on one plain line, for the top of the Token trees page (the lists below name the
    corpus, what the audit leaves out and what each finding means): ``of 50,256 audited: 344 partial UTF-8,
    0 unreachable, 49,257 never used in the corpus (14,030 of them scaffolds).``"""
    partial, unreachable = len(audit.partial_utf8), len(audit.unreachable)
    text = f"of {len(audit.audited):,} audited: {partial:,} partial UTF-8, {unreachable:,} unreachable"
    if audit.never_used is None or audit.scaffolds is None:
        return text + "."
    never, scaffolds = len(audit.never_used), len(audit.scaffolds)
    return text + f", {never:,} never used in the corpus ({scaffolds:,} of them scaffolds)."


def audit_frame(
    tokenizer: Tokenizer, audit: VocabularyAudit, kind: str, show: Show = _same, limit: int = 200
) -> pd.DataFrame:
    """The first ``limit`` tokens of one finding: ``id``, ``token``, ``bytes``, ``uses`` (with a corpus),
    ``audit`` (every finding about it) and, for unreachable ones, :data:`OWN_TEXT` (the tokens its own text
    gives instead, :func:`bpe_core.analysis.audit.own_encoding`)."""
    rows = []
    for i in audit_ids(audit, kind)[:limit]:
        raw = tokenizer.model.token_bytes(i)
        row: dict[str, object] = {"id": i, "token": show(tokenizer.model.id_to_token(i)), "bytes": describe_bytes(raw)}
        row |= _audit_cells(audit, i)
        if kind == "unreachable":
            row[OWN_TEXT] = " | ".join(show(tokenizer.model.id_to_token(j)) for j in own_encoding(tokenizer, i) or ())
        rows.append(row)
    columns = ["id", "token", "bytes", *_audit_columns(audit)] + ([OWN_TEXT] if kind == "unreachable" else [])
    frame = pd.DataFrame(rows, columns=columns)
    if "uses" in frame:
        frame["uses"] = frame["uses"].astype("Int64")
    return frame


# ---------------------------------------------------------------- the lesson: tokens a model never sees


UNSEEN_TOKENIZER_TEXT = " ".join(
    ["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3 + ["solidgoldmagikarp"] * 4
)
"""The lesson's tokenizer training text: the textbook words, and a name that is frequent only here (as the Reddit
user name behind GPT-2's `` SolidGoldMagikarp`` token was frequent in GPT-2's tokenizer data)."""
UNSEEN_MODEL_TEXT = "the lowest wider newer low widest newest lower lowest"
"""The lesson's model training text: the same words, never the name."""
UNSEEN_MERGES = 25


CHAR_PX = 8
"""A wide estimate of one character's width in a table cell, in CSS pixels (Streamlit's 14 px Source Sans Pro
averages about 6.6 for token text such as ``solidgoldmagikarp</w>``, 139 px)."""
CELL_PADDING_PX = 24
"""A table cell's padding left and right, with room to spare, in CSS pixels."""


def text_width(texts: list[str], header: str = "", most: int = 400) -> int:
    """The width, in CSS pixels, of a table column that shows every one of ``texts`` (and ``header``) whole,
    at most ``most`` (a longer text is cut with ``…`` in its cell)."""
    longest = max((len(t) for t in [*texts, header]), default=0)
    return min(most, longest * CHAR_PX + CELL_PADDING_PX)


@dataclass(frozen=True)
class UnseenLesson:
    """The "tokens never seen" lesson's body.

    Attributes:
        summary: a Markdown-safe sentence: how many tokens the model's text never uses, and why.
        table: one row per such token: ``token``, ``id``, ``in tokenizer text``, ``in model text`` (0), ``why``.
        token_width: the ``token`` column's width in CSS pixels (:func:`text_width`): its longest token whole.
    """

    summary: str
    table: pd.DataFrame
    token_width: int


def unseen_lesson(tokenizer: Tokenizer, tokenizer_text: str, model_text: str, show: Show = _same) -> UnseenLesson:
    """The tokens of ``tokenizer`` (trained on ``tokenizer_text``) that encoding ``model_text`` never emits.

    Each gets a reason: a scaffold (its own training text never emits it either: a later merge took every
    occurrence; Lian et al. 2024, Scaffold-BPE), a token of the tokenizer's text alone (the model's text never
    holds it: the SolidGoldMagikarp case), and partial UTF-8 or unreachable when the audit says so
    (Land & Bartolo 2024).
    """
    own = audit_vocabulary(tokenizer, tokenizer_text)
    model = audit_vocabulary(tokenizer, model_text)
    marker = () if model.marker is None else (model.marker,)
    counted = sorted((*model.audited, *marker))  # the separate </w> is a token of the vocabulary too
    rows = []
    for i in counted:
        if model.uses(i):
            continue
        rows.append(
            {
                "token": show(tokenizer.model.id_to_token(i)),
                "id": i,
                "in tokenizer text": own.uses(i),
                "in model text": 0,
                "why": _why_unseen(own, i),
            }
        )
    rows.sort(key=lambda row: (-row["in tokenizer text"], row["id"]))  # the tokenizer's own words first
    table = pd.DataFrame(rows, columns=["token", "id", "in tokenizer text", "in model text", "why"])
    scaffolds = sum(1 for row in rows if row["in tokenizer text"] == 0)
    only = len(rows) - scaffolds
    summary = (
        f"Encoding the model's text uses {len(counted) - len(rows):,} of the vocabulary's {len(counted):,} "
        f"tokens ({_counted(model)}). The model never sees the other {len(rows):,}: {_count(only, 'token')} of "
        f"the tokenizer's text that the model's text lacks, and {_count(scaffolds, 'token')} that even the "
        "tokenizer's own text never gives (a longer token took every occurrence)."
    )
    return UnseenLesson(summary, table, text_width(table["token"].tolist(), "token"))


def _counted(audit: VocabularyAudit) -> str:
    """What the lesson's count of tokens holds: ``ids 0 to 40, </w> included`` (every id), or what it leaves out
    (``1 special token aside, </w> included``)."""
    aside = _left_out_of(audit, marker=False)
    parts = [f"{aside} aside" if aside else f"ids 0 to {audit.vocab_size - 1:,}"]
    if audit.marker is not None:
        parts.append(f"{MARKER} included")
    return ", ".join(parts)


def _why_unseen(own: VocabularyAudit, token_id: int) -> str:
    kinds = set(own.kinds(token_id))
    if own.uses(token_id):
        why = "only in the tokenizer's text"
    elif "scaffold" in kinds or token_id == own.marker:  # every word ends in </w>: unused, a merge took it
        why = "scaffold: every occurrence went into a longer token"
    else:
        why = "never emitted, even on the tokenizer's text"
    extra = [KINDS[k] for k in ("partial_utf8", "unreachable") if k in kinds]
    return " · ".join([why, *extra])

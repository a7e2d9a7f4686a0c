"""Encoding as a story: one pre-token's symbols, rule by rule, for the step player.

Encoding a pre-token replays the merge table (Sennrich et al. 2016, section 3.2;
GPT-2 and tiktoken take the lowest-ranked pair present each time). The textbook
picture is a strip of symbols per step::

    l o w e s t </w>  ->  l o w es t </w>  ->  l o w est </w>  ->  lo w est </w>  ->  low est </w>

:func:`story_rows` turns a :class:`bpe_core.PieceTrace` into those rows (which
tokens the last rule formed, which pair fires next), :func:`story_html` draws the
first few as escaped HTML, with the blocked rules worth telling a learner about
(:func:`viz.encode_views.blocked_rules`).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bpe_core import BlockedRule, PieceTrace
from viz.tokens import STYLE, TokenView, color_index, row_colors, token_box, view_of_string

Show = Callable[[str], str]

STORY_STYLE = """<style>
.bpe-story{display:grid;grid-template-columns:minmax(9em,max-content) 1fr;gap:6px 12px;align-items:center}
.bpe-story-label{font-family:ui-monospace,monospace;font-size:0.85em;color:#334155}
.bpe-fire{outline:3px solid #2563eb;outline-offset:1px}
.bpe-between{outline:2px dashed #64748b;outline-offset:1px}
.bpe-story-now .bpe-story-label{font-weight:700;color:#0f172a}
</style>"""
"""CSS for the story rows (with :data:`viz.tokens.STYLE` for the boxes)."""


def _same(token: str) -> str:
    return token


@dataclass(frozen=True)
class StoryRow:
    """One state of a pre-token while it is encoded.

    Attributes:
        label: what produced it: ``"start"`` or ``"rank 3: e + s → es"`` (tokens through ``show``).
        tokens: its symbols, as token strings.
        new: indices into ``tokens`` of the symbols the rule in ``label`` formed.
        fires: indices into ``tokens`` of the symbols the next rule joins (empty in the last row).
        rank: the merge rank of the rule that produced the row (``None`` for the start).
        pair, token: that rule's two symbols and the token it formed (``None`` for the start).
    """

    label: str
    tokens: tuple[str, ...]
    new: tuple[int, ...]
    fires: tuple[int, ...]
    rank: int | None
    pair: tuple[str, str] | None = None
    token: str | None = None


def story_rows(piece: PieceTrace, show: Show = _same) -> list[StoryRow] | None:
    """The pre-token's states: its base symbols, then the symbols after each rule that fired.

    Args:
        piece: a pre-token's trace (``steps`` with their ``before``/``after`` states).
        show: how a token string is displayed in labels (:func:`viz.tokens.display_for`).

    Returns:
        ``len(piece.steps) + 1`` rows, or ``None`` when the trace kept no states
        (pre-tokens too long to record symbol by symbol).
    """
    if piece.steps and not all(step.before and step.after for step in piece.steps):
        return None
    rows: list[StoryRow] = []
    tokens, new, label, last = piece.initial, (), "start", None
    for step in piece.steps:
        sites = sorted(step.positions)
        fires = tuple(sorted({i for p in sites for i in (p, p + 1)}))
        rows.append(_row(label, tokens, new, fires, last))
        tokens, last = step.after, step
        new = tuple(p - n for n, p in enumerate(sites))  # each earlier merge shortened the row by one
        a, b, t = (show(x) for x in (*step.pair, step.token))
        label = f"rank {step.rank:,}: {a} + {b} → {t}"
    rows.append(_row(label, tokens if piece.steps else piece.tokens, new, (), last))
    return rows


def _row(label: str, tokens: tuple[str, ...], new: tuple[int, ...], fires: tuple[int, ...], step) -> StoryRow:
    if step is None:
        return StoryRow(label, tokens, new, fires, None)
    return StoryRow(label, tokens, new, fires, step.rank, step.pair, step.token)


def between_positions(tokens: Sequence[str], rule: BlockedRule) -> tuple[int, ...]:
    """Indices into ``tokens`` (a final segmentation) of the tokens that stood between ``rule``'s symbols.

    The first left symbol followed, after exactly ``rule.between``, by the right symbol;
    ``()`` when ``between`` is empty or not found.
    """
    n = len(rule.between)
    if not n:
        return ()
    left, right = rule.pair
    for i, t in enumerate(tokens):
        j = i + n + 1
        if t == left and j < len(tokens) and tokens[j] == right and tuple(tokens[i + 1 : j]) == rule.between:
            return tuple(range(i + 1, j))
    return ()


def _strip(tokens: Sequence[str], unit: str, eow: bool, classes: dict[int, str]) -> str:
    views: list[TokenView] = [view_of_string(t, unit, eow) for t in tokens]
    boxes = []
    for k, (view, slot) in enumerate(zip(views, row_colors(map(color_index, views)))):
        box = token_box(TokenView(**{**view.__dict__, "new": view.new or "bpe-new" in classes.get(k, "")}), slot)
        extra = classes.get(k, "").replace("bpe-new", "").strip()
        if extra:
            box = box.replace('class="bpe-tok', f'class="bpe-tok {extra}', 1)
        boxes.append(box)
    return '<div class="bpe-row">' + "".join(boxes) + "</div>"


def story_html(rows: Sequence[StoryRow], upto: int, unit: str, eow: bool, blocked: Sequence[BlockedRule] = ()) -> str:
    """Escaped HTML: the first ``upto`` rows (``1 <= upto <= len(rows)``), a label and a token strip each.

    In every row the tokens its rule formed are outlined in amber and the symbols the
    next rule joins in blue. When the last row is shown, the tokens that stood between
    the symbols of a ``blocked`` rule are outlined dashed grey, and each blocked rule
    gets a row of its own: its two symbols with what stood between them.

    Args:
        rows: from :func:`story_rows`.
        upto: how many rows to draw (the player's step).
        unit, eow: the tokenizer's unit (``"char"``/``"byte"``) and end-of-word mode, for the boxes.
        blocked: the rules to explain at the end (:func:`viz.encode_views.blocked_rules`).
    """
    upto = max(1, min(len(rows), upto))
    out = [STYLE, STORY_STYLE, '<div class="bpe-story">']
    for k, row in enumerate(rows[:upto]):
        classes: dict[int, str] = {i: "bpe-new" for i in row.new}
        if k == upto - 1:
            for i in row.fires:
                classes[i] = (classes.get(i, "") + " bpe-fire").strip()
        last = k == len(rows) - 1
        if last:
            for rule in blocked:
                for i in between_positions(row.tokens, rule):
                    classes[i] = (classes.get(i, "") + " bpe-between").strip()
        now = " bpe-story-now" if k == upto - 1 else ""
        out.append(f'<div class="bpe-story-label{now}">{html.escape(row.label)}</div>')
        out.append(f'<div class="{now.strip()}">{_strip(row.tokens, unit, eow, classes)}</div>')
    if upto == len(rows):
        for rule in blocked:
            tokens = (rule.pair[0], *rule.between, rule.pair[1])
            classes = {i: "bpe-between" for i in range(1, len(tokens) - 1)}
            label = f"blocked, rank {rule.rank:,}"
            out.append(f'<div class="bpe-story-label">{html.escape(label)}</div>')
            out.append(_strip(tokens, unit, eow, classes))
    out.append("</div>")
    return "".join(out)


def story_caption(rows: Sequence[StoryRow], upto: int, blocked: Sequence[BlockedRule] = (), show: Show = _same) -> str:
    """One sentence for the current step: which rule fires next, or how the pre-token ended.

    ``"Next: rank 1 joins es + t into est."``; at the end ``"Done: 2 tokens after 4 rules; 1 blocked rule
    (ug + </w>: s stood between)."``.
    """
    upto = max(1, min(len(rows), upto))
    if upto < len(rows):
        nxt = rows[upto]
        a, b, t = (show(x) for x in (*nxt.pair, nxt.token))
        return f"Next: rank {nxt.rank:,} joins {a} + {b} into {t}."
    n = len(rows[-1].tokens)
    fired = len(rows) - 1
    done = f"Done: {n:,} token{'s' if n != 1 else ''} after {fired:,} rule{'s' if fired != 1 else ''}"
    if not blocked:
        return done + "."
    parts = []
    for b in blocked:
        a, c = show(b.pair[0]), show(b.pair[1])
        if b.kind == "apart":
            parts.append(f"{a} + {c}: {' '.join(map(show, b.between))} stood between")
        elif b.kind == "taken":
            parts.append(f"{a} + {c}: rank {b.by_rank} took a symbol first")
        else:
            parts.append(f"{a} + {c}: met only after its turn (rank {b.by_rank})")
    return f"{done}; {len(blocked):,} blocked rule{'s' if len(blocked) != 1 else ''} ({'; '.join(parts)})."

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
from typing import overload

from bpe_core import BlockedRule, DroppedMerge, PieceTrace
from viz.tokens import STYLE, TokenView, color_index, row_colors, token_box, view_of_string

Show = Callable[[str], str]

STRIP = 40
"""Symbols drawn per row at most: a longer state is cut to a window around the rule that fires."""
STRIP_CHARS = 40
"""Characters of token text drawn per cut row at most (a line or two at 1280 px), so long tokens keep rows short."""
ROWS_SHOWN = 12
"""Rows drawn at most: the last ones up to the player's step (a long word can take thousands of steps)."""

STORY_STYLE = """<style>
.bpe-story{display:grid;grid-template-columns:minmax(9em,max-content) 1fr;gap:6px 12px;align-items:center}
.bpe-story-label{font-family:ui-monospace,monospace;font-size:0.85em;color:#334155}
.bpe-fire{outline:3px solid #2563eb;outline-offset:1px}
.bpe-skip{outline:3px dotted #c2410c;outline-offset:1px}
.bpe-between{outline:2px dashed #64748b;outline-offset:1px}
.bpe-cut{font-family:ui-monospace,monospace;font-size:0.8em;color:#64748b;align-self:center;padding:0 4px}
.bpe-story-now .bpe-story-label{font-weight:700;color:#0f172a}
</style>"""
"""CSS for the story rows (with :data:`viz.tokens.STYLE` for the boxes)."""


def _same(token: str) -> str:
    return token


@dataclass(frozen=True)
class StoryRow:
    """One state of a pre-token while it is encoded (or a window of it, for long words).

    Attributes:
        label: what produced it: ``"start"`` or ``"rank 3: e + s → es"`` (tokens through ``show``).
        tokens: its symbols, as token strings (the window ``offset .. offset + len(tokens)`` of a long state).
        new: indices into ``tokens`` of the symbols the rule in ``label`` formed.
        fires: indices into ``tokens`` of the symbols the next rule joins (empty in the last row).
        rank: the merge rank of the rule that produced the row (``None`` for the start).
        pair, token: that rule's two symbols and the token it formed (``None`` for the start).
        offset: the index in the whole state of ``tokens[0]`` (0 when the state is shown whole).
        size: the whole state's length.
        skipped: with BPE-dropout, the merges skipped when the next rule was chosen (in the last
            row: at the last attempt, which ended the run).
        skips: indices into ``tokens`` of the symbols of those skipped merges.
    """

    label: str
    tokens: tuple[str, ...]
    new: tuple[int, ...]
    fires: tuple[int, ...]
    rank: int | None
    pair: tuple[str, str] | None = None
    token: str | None = None
    offset: int = 0
    size: int = 0
    skipped: tuple[DroppedMerge, ...] = ()
    skips: tuple[int, ...] = ()


class StoryRows(Sequence[StoryRow]):
    """The states of one pre-token as it is encoded, built on demand: row ``k`` is the word after ``k`` rules.

    Nothing is copied per step: a row is rebuilt from the trace's positions
    (:meth:`bpe_core.PieceTrace.state`), and going forward a few rows from
    the last one built costs O(n) each, so a player stepping through a word of
    20,000 symbols stays fast. States longer than ``width`` are cut to a
    window around the rule that fires next (or the one that just fired).

    Args:
        piece: a pre-token's trace.
        show: how a token string is displayed in labels (:func:`viz.tokens.display_for`).
        width: symbols per row at most.
    """

    def __init__(self, piece: PieceTrace, show: Show = _same, width: int = STRIP) -> None:
        self.piece, self.show, self.width = piece, show, width
        self._last: tuple[int, list[str]] | None = None

    def __len__(self) -> int:
        return len(self.piece.steps) + 1

    @overload
    def __getitem__(self, k: int) -> StoryRow: ...

    @overload
    def __getitem__(self, k: slice) -> list[StoryRow]: ...

    def __getitem__(self, k: int | slice) -> StoryRow | list[StoryRow]:
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        if k < 0:
            k += len(self)
        if not 0 <= k < len(self):
            raise IndexError(k)
        return self._row(k)

    def _state(self, k: int) -> list[str]:
        """The word after ``k`` steps, from the last state built when it is a few steps before."""
        steps = self.piece.steps
        if self._last is not None and 0 <= k - self._last[0] <= 32:
            at, word = self._last[0], list(self._last[1])
            for step in steps[at:k]:
                for p in reversed(step.positions):
                    word[p : p + step.width] = [step.token]
        else:
            word = list(self.piece.state(k))
        self._last = (k, word)
        return word

    def _row(self, k: int) -> StoryRow:
        piece, show = self.piece, self.show
        steps = piece.steps
        word = self._state(k)
        done = steps[k - 1] if k else None
        nxt = steps[k] if k < len(steps) else None
        new = tuple(p - n for n, p in enumerate(done.positions)) if done else ()  # each earlier site shortened the row
        fires = tuple(sorted({p + d for p in nxt.positions for d in range(nxt.width)})) if nxt else ()
        skipped = nxt.dropped if nxt else piece.dropped_at_end
        skips = tuple(sorted({p + d for s in skipped for p in s.positions for d in (0, 1)}))
        label = "start"
        if done is not None:
            a, b, t = (show(x) for x in (*done.pair, done.token))
            label = f"rank {done.rank:,}: {a} + {b} → {t}"
        lo, hi = _window(word, self.width, (fires or new or skips or (0,))[0])

        def inside(idx: tuple[int, ...]) -> tuple[int, ...]:
            return tuple(i - lo for i in idx if lo <= i < hi)

        return StoryRow(
            label=label,
            tokens=tuple(word[lo:hi]),
            new=inside(new),
            fires=inside(fires),
            rank=done.rank if done else None,
            pair=done.pair if done else None,
            token=done.token if done else None,
            offset=lo,
            size=len(word),
            skipped=skipped,
            skips=inside(skips),
        )


def _window(word: Sequence[str], width: int, anchor: int) -> tuple[int, int]:
    """``(lo, hi)``: the whole word when it has at most ``width`` symbols, else a window around ``anchor``
    (about a third of it to the left) of at most ``width`` symbols and :data:`STRIP_CHARS` characters."""
    size = len(word)
    if size <= width:
        return 0, size
    lo = hi = min(max(anchor, 0), size - 1)
    chars = len(word[lo])
    hi += 1
    while hi - lo < width:
        grow_left = lo > 0 and (hi >= size or 3 * (anchor - lo) < hi - anchor)
        k = lo - 1 if grow_left else hi
        if k >= size or chars + len(word[k]) > STRIP_CHARS:
            break
        chars += len(word[k])
        lo, hi = (k, hi) if grow_left else (lo, hi + 1)
    return lo, hi


def story_rows(piece: PieceTrace, show: Show = _same, width: int = STRIP) -> StoryRows:
    """The pre-token's states: its base symbols, then the symbols after each rule that fired.

    Args:
        piece: a pre-token's trace.
        show: how a token string is displayed in labels (:func:`viz.tokens.display_for`).
        width: symbols per row at most (longer states are cut to a window, see :class:`StoryRow`).

    Returns:
        ``len(piece.steps) + 1`` rows, built on demand (:class:`StoryRows`).
    """
    return StoryRows(piece, show, width)


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


def _strip(row: StoryRow, unit: str, eow: bool, classes: dict[int, str]) -> str:
    views: list[TokenView] = [view_of_string(t, unit, eow) for t in row.tokens]
    boxes = []
    if row.offset:
        boxes.append(f'<span class="bpe-cut">… {row.offset:,} before</span>')
    for k, (view, slot) in enumerate(zip(views, row_colors(map(color_index, views)))):
        box = token_box(TokenView(**{**view.__dict__, "new": view.new or "bpe-new" in classes.get(k, "")}), slot)
        extra = classes.get(k, "").replace("bpe-new", "").strip()
        if extra:
            box = box.replace('class="bpe-tok', f'class="bpe-tok {extra}', 1)
        boxes.append(box)
    after = row.size - row.offset - len(row.tokens)
    if after > 0:
        boxes.append(f'<span class="bpe-cut">{after:,} after …</span>')
    return '<div class="bpe-row">' + "".join(boxes) + "</div>"


def _pair_row(tokens: tuple[str, ...]) -> StoryRow:
    return StoryRow("", tokens, (), (), None, size=len(tokens))


def story_html(rows: Sequence[StoryRow], upto: int, unit: str, eow: bool, blocked: Sequence[BlockedRule] = ()) -> str:
    """Escaped HTML: rows up to ``upto`` (``1 <= upto <= len(rows)``; the last :data:`ROWS_SHOWN` of them),
    a label and a token strip each.

    In every row the tokens its rule formed are outlined in amber and, in the
    current row, the symbols the next rule joins in blue and the merges
    BPE-dropout skipped dotted orange. When the last row is shown, the tokens
    that stood between the symbols of a ``blocked`` rule are outlined dashed
    grey, and each blocked rule gets a row of its own: its two symbols with
    what stood between them.

    Args:
        rows: from :func:`story_rows`.
        upto: how many rows the player has reached (its step).
        unit, eow: the tokenizer's unit (``"char"``/``"byte"``) and end-of-word mode, for the boxes.
        blocked: the rules to explain at the end (:func:`viz.encode_views.blocked_rules`).
    """
    upto = max(1, min(len(rows), upto))
    first = max(0, upto - ROWS_SHOWN)
    out = [STYLE, STORY_STYLE, '<div class="bpe-story">']
    if first:
        out.append(f'<div class="bpe-story-label">… {first:,} earlier step{"s" if first != 1 else ""}</div><div></div>')
    for k in range(first, upto):
        row = rows[k]
        classes: dict[int, str] = {i: "bpe-new" for i in row.new}
        if k == upto - 1:
            for i in row.skips:
                classes[i] = (classes.get(i, "") + " bpe-skip").strip()
            for i in row.fires:
                classes[i] = (classes.get(i, "").replace("bpe-skip", "") + " bpe-fire").strip()
        if k == len(rows) - 1:
            for rule in blocked:
                for i in between_positions(row.tokens, rule):
                    classes[i] = (classes.get(i, "") + " bpe-between").strip()
        now = " bpe-story-now" if k == upto - 1 else ""
        out.append(f'<div class="bpe-story-label{now}">{html.escape(row.label)}</div>')
        out.append(f'<div class="{now.strip()}">{_strip(row, unit, eow, classes)}</div>')
    if upto == len(rows):
        for rule in blocked:
            tokens = (rule.pair[0], *rule.between, rule.pair[1])
            classes = {i: "bpe-between" for i in range(1, len(tokens) - 1)}
            out.append(f'<div class="bpe-story-label">{html.escape(blocked_label(rule))}</div>')
            out.append(_strip(_pair_row(tokens), unit, eow, classes))
    out.append("</div>")
    return "".join(out)


def blocked_label(rule: BlockedRule) -> str:
    """A blocked rule's row label: ``blocked, rank 5 (taken at step 1)``."""
    why = {
        "taken": f" (taken at step {rule.step})",
        "too_late": f" (met at step {rule.step}, too late)",
        "dropped": " (skipped by dropout)",
    }
    return f"blocked, rank {rule.rank:,}{why.get(rule.kind, '')}"


def _skipped_text(skipped: Sequence[DroppedMerge], show: Show, limit: int = 3) -> str:
    parts = [f"{show(d.pair[0])} + {show(d.pair[1])} (rank {d.rank:,})" for d in skipped[:limit]]
    more = len(skipped) - limit
    return ", ".join(parts) + (f" and {more:,} more" if more > 0 else "")


def story_caption(rows: Sequence[StoryRow], upto: int, blocked: Sequence[BlockedRule] = (), show: Show = _same) -> str:
    """One sentence for the current step: which rule fires next, or how the pre-token ended.

    ``"Next: rank 1 joins es + t into est."``; at the end ``"Done: 2 tokens after 4 rules; 1 blocked rule
    (ug + </w>: s stood between)."``. With BPE-dropout it adds the merges skipped for that step.
    """
    upto = max(1, min(len(rows), upto))
    current = rows[upto - 1]
    skipped = f" BPE-dropout skipped {_skipped_text(current.skipped, show)}." if current.skipped else ""
    if upto < len(rows):
        nxt = rows[upto]
        a, b, t = (show(x) for x in (*nxt.pair, nxt.token))  # type: ignore[misc]
        return f"Next: rank {nxt.rank:,} joins {a} + {b} into {t}.{skipped}"
    n = current.size or len(current.tokens)
    fired = len(rows) - 1
    done = f"Done: {n:,} token{'s' if n != 1 else ''} after {fired:,} rule{'s' if fired != 1 else ''}"
    if current.skipped:
        done += f" (BPE-dropout skipped every merge left: {_skipped_text(current.skipped, show)})"
    if not blocked:
        return done + "."
    parts = []
    for b in blocked:
        a, c = show(b.pair[0]), show(b.pair[1])
        if b.kind == "apart":
            parts.append(f"{a} + {c}: {' '.join(map(show, b.between))} stood between")
        elif b.kind == "taken":
            parts.append(f"{a} + {c}: rank {b.by_rank:,} took a symbol first, at step {b.step:,}")
        elif b.kind == "dropped":
            parts.append(f"{a} + {c}: skipped by dropout")
        else:
            parts.append(f"{a} + {c}: met only after its turn (rank {b.by_rank:,}, step {b.step:,})")
    return f"{done}; {len(blocked):,} blocked rule{'s' if len(blocked) != 1 else ''} ({'; '.join(parts)})."

"""The training corpus as a strip of token boxes, before and after one merge.

The Train page draws the start of the corpus cut into the tokens it has after
``k + 1`` merges, with the tokens merge ``k`` formed outlined, so that while the
player runs the strip visibly shrinks. The segmentation is the one training
itself produced: each pre-token replayed through merge rules ``0..k`` in learned
order (Sennrich et al. 2016, Algorithm 1), as :meth:`bpe_core.TrainResult.word_changes` does.
"""

from __future__ import annotations

from dataclasses import dataclass

from bpe_core import TrainResult, pretokenize
from bpe_core.text.pretokenize import split_special
from viz.tokens import STYLE, TokenView, color_index, row_colors, token_box, view_of_id

EXCERPT_CHARS = 400
"""How much of the corpus the strip shows, in characters (a few hundred tokens at the start of training)."""


@dataclass(frozen=True)
class Excerpt:
    """The pre-tokens that start a corpus (see :func:`excerpt_pieces`).

    Attributes:
        pieces: ``((chunk, is_special), ...)`` in text order.
        chars: how many characters of the corpus they cover (whitespace between them included).
        total_chars: the whole corpus's length in characters.
    """

    pieces: tuple[tuple[str, bool], ...]
    chars: int
    total_chars: int


@dataclass(frozen=True)
class CorpusStrip:
    """The start of the corpus after one merge.

    Attributes:
        views: one token box per token after the merge; the tokens the merge formed have ``new`` set.
        starts: the index into ``views`` where each pre-token starts (a pre-token never wraps across lines).
        tokens_before: how many tokens the excerpt had before the merge.
        tokens_after: how many it has after (``len(views)``).
        rewritten: how many times the merge fired in the excerpt.
        chars: the excerpt's length in characters.
        total_chars: the whole corpus's length in characters.
    """

    views: tuple[TokenView, ...]
    starts: tuple[int, ...]
    tokens_before: int
    tokens_after: int
    rewritten: int
    chars: int
    total_chars: int

    def caption(self) -> str:
        """One line for under the strip: what it shows and how it shrank."""
        part = "The whole corpus" if self.chars >= self.total_chars else f"The first {self.chars:,} characters"
        fired = (
            f"it fired {self.rewritten:,} time{'s' if self.rewritten != 1 else ''} here; the new tokens are outlined"
            if self.rewritten
            else "it did not fire in this part"
        )
        return f"{part}: {self.tokens_before:,} tokens before this merge, {self.tokens_after:,} after ({fired})."


def excerpt_pieces(
    text: str, pretokenizer: str, special_tokens: tuple[str, ...] = (), limit: int = EXCERPT_CHARS
) -> Excerpt:
    """The pre-tokens that start ``text``, as training cut them.

    Special tokens are cut out first (as training does), then each stretch is
    pre-tokenized. Only the first ``limit`` characters are read; a pre-token that
    the cut splits is dropped, unless it is the only one (``none`` has a single
    pre-token: its first ``limit`` characters stand in for it).

    Raises:
        bpe_core.OptionError: an unknown pre-tokenizer.
    """
    head = text[: limit + 1]
    out: list[tuple[str, bool]] = []
    used = 0
    for piece, special in split_special(head, special_tokens):
        chunks = [piece] if special else pretokenize(piece, pretokenizer)
        for chunk in chunks:
            at = head.find(chunk, used)
            end = (at if at >= 0 else used) + len(chunk)
            if end > limit and out:
                return Excerpt(tuple(out), used, len(text))
            out.append((chunk[: limit - used] if end > limit else chunk, special))
            used = min(end, limit)
    return Excerpt(tuple(out), used, len(text))


def corpus_strip(result: TrainResult, excerpt: Excerpt, k: int) -> CorpusStrip:
    """The start of the corpus (``excerpt``, from :func:`excerpt_pieces`) cut by the first ``k + 1`` merges.

    Args:
        result: a training result.
        excerpt: the start of the corpus ``result`` was trained on.
        k: the merge rank whose rewrites are outlined, ``0 <= k < result.num_merges``.

    Returns:
        A :class:`CorpusStrip`.

    Raises:
        ValueError: ``k`` out of range.
    """
    if not isinstance(k, int) or not 0 <= k < result.num_merges:
        raise ValueError(f"merge {k!r} is out of range 0..{result.num_merges - 1}")
    tokenizer = result.tokenizer
    new_id = result.views.steps[k].token_id
    replay = result.tokenizer.model.replay_ids
    views: list[TokenView] = []
    starts: list[int] = []
    before_count = fired = 0
    for chunk, special in excerpt.pieces:
        starts.append(len(views))
        if special:
            views.append(TokenView(text=chunk, raw=chunk, special=True))
            before_count += 1
            continue
        before = replay(chunk, k)
        after = replay(before, k + 1, start=k)
        before_count += len(before)
        fired += len(before) - len(after)
        changed = len(after) != len(before)
        for t in after:
            view = view_of_id(tokenizer, t)  # from the id: a typed '</w>' is text, only the marker is the marker
            views.append(TokenView(**{**view.__dict__, "new": True}) if changed and t == new_id else view)
    return CorpusStrip(
        views=tuple(views),
        starts=tuple(starts),
        tokens_before=before_count,
        tokens_after=len(views),
        rewritten=fired,
        chars=excerpt.chars,
        total_chars=excerpt.total_chars,
    )


def corpus_strip_html(strip: CorpusStrip, *, show_whitespace: bool = True) -> str:
    """Escaped HTML for a :class:`CorpusStrip`: token boxes without ids, new tokens outlined, and the
    tokens of one pre-token kept together on a line (lines wrap between pre-tokens)."""
    slots = row_colors(map(color_index, strip.views))
    bounds = [*strip.starts, len(strip.views)]
    parts = [STYLE, '<div class="bpe-row">']
    for a, b in zip(bounds, bounds[1:]):
        boxes = "".join(token_box(strip.views[i], slots[i], show_whitespace, False) for i in range(a, b))
        parts.append(f'<span class="bpe-word">{boxes}</span>')
    parts.append("</div>")
    return "".join(parts)

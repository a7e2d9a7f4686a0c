"""Training trace -> pandas DataFrames for the Train page."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from bpe_core import PRETOKENIZER_SPECS, MergeStep, TrainResult, WordChange
from viz.tokens import shown_key

Show = Callable[[str], str]
"""How a token string is displayed (see :func:`viz.tokens.display_for`); identity by default."""


def _same(token: str) -> str:
    return token


def pair_counts_frame(step: MergeStep, show: Show = _same) -> pd.DataFrame:
    """The top pair counts just before ``step``'s merge, winner first.

    Columns: ``left``, ``right``, ``count``, ``status`` ("winner" when no tie,
    "won tie", "lost tie" or ""; short, so that the column stays narrow), ``tie key``
    (what the tie rule ``step.tie_break`` compared, for tied pairs).
    """
    tied = dict(zip(step.tied, map(shown_key, step.tie_keys)))
    rows = []
    for k, (pair, count) in enumerate(step.top_pairs):
        if k == 0:
            status = "winner" if step.num_tied == 1 else "won tie"
        elif pair in tied:
            status = "lost tie"
        else:
            status = ""
        rows.append(
            {
                "left": show(pair[0]),
                "right": show(pair[1]),
                "count": count,
                "status": status,
                "tie key": tied.get(pair, ""),
            }
        )
    return pd.DataFrame(rows, columns=["left", "right", "count", "status", "tie key"])


def tie_explanation(step: MergeStep, show: Show = _same) -> str:
    """Why the tie went the way it did, in one sentence (``""`` when nothing tied).

    ``"first_seen picked e + r (first seen in word 1 'lowest' at offset 3) over r + </w>
    (first seen in word 3 'newer' at offset 3)"``, with ``and N more`` when more pairs tied.
    """
    if step.num_tied < 2 or len(step.tied) < 2:
        return ""

    def pair(k: int) -> str:
        a, b = step.tied[k]
        return f"{show(a)} + {show(b)} ({shown_key(step.tie_keys[k])})"

    more = step.num_tied - 2
    return f"{step.tie_break} picked {pair(0)} over {pair(1)}" + (f" and {more:,} more" if more else "")


def merges_frame(result: TrainResult, upto: int | None = None, show: Show = _same, first: int = 0) -> pd.DataFrame:
    """The merge table learned so far: one row per rule from rank ``first`` up to and including rank ``upto``.

    Columns: ``rank``, ``left``, ``right``, ``token``, ``id``, ``count``,
    ``replaced``, ``tied`` (how many pairs shared the winning count).
    """
    steps = result.summaries[first:] if upto is None else result.summaries[first : upto + 1]
    return pd.DataFrame(
        [
            {
                "rank": s.rank,
                "left": show(s.pair[0]),
                "right": show(s.pair[1]),
                "token": show(s.token),
                "id": s.token_id,
                "count": s.count,
                "replaced": s.replacements,
                "tied": s.num_tied,
            }
            for s in steps
        ],
        columns=["rank", "left", "right", "token", "id", "count", "replaced", "tied"],
    )


def word_changes_frame(words: list[WordChange] | tuple[WordChange, ...], show: Show = _same) -> pd.DataFrame:
    """Rewritten words as a table: ``word``, ``freq``, ``before``, ``after`` (tokens joined by spaces)."""
    return pd.DataFrame(
        [
            {
                "word": w.word if len(w.word) <= 40 else w.word[:40] + "…",
                "freq": w.freq,
                "before": ("… " if w.excerpt else "") + " ".join(map(show, w.before)) + (" …" if w.excerpt else ""),
                "after": ("… " if w.excerpt else "") + " ".join(map(show, w.after)) + (" …" if w.excerpt else ""),
            }
            for w in words
        ],
        columns=["word", "freq", "before", "after"],
    )


def token_counts(result: TrainResult) -> list[int]:
    """The training corpus's length in tokens after 0, 1, ..., ``num_merges`` merges (``num_merges + 1`` values)."""
    return [result.tokens_at(k) for k in range(result.num_merges + 1)]


def pretoken_noun(pretokenizer: str) -> str:
    """What a pre-token is called under ``pretokenizer``: ``"words"`` for the whitespace splitters (whose
    pre-tokens are the text between whitespace), ``"pre-tokens"`` for the others (GPT-2's `` the``, ``,`` and
    ``123`` are pre-tokens, not words; ``none`` keeps the whole text)."""
    return "words" if PRETOKENIZER_SPECS[pretokenizer].drops_whitespace else "pre-tokens"


def corpus_summary(result: TrainResult) -> dict[str, int | float]:
    """Headline numbers: characters, distinct words (or pre-tokens), alphabet size, merges, tokens before and after.

    Characters are the whole text's (whitespace included), so characters per
    token compares fairly across pre-tokenizers. The second key is ``"distinct words"``
    for the whitespace pre-tokenizers and ``"distinct pre-tokens"`` for the others (see
    :func:`pretoken_noun`).
    """
    final = result.tokens_at(result.num_merges)
    return {
        "characters": result.text_chars,
        f"distinct {pretoken_noun(result.config.pretokenizer)}": len(result.words),
        "alphabet": len(result.alphabet),
        "merges": result.num_merges,
        "tokens before": result.initial_tokens,
        "tokens after": final,
        "chars per token": round(result.text_chars / final, 2) if final else 0.0,
    }


def compact(value: float) -> str:
    """A number short enough for a metric tile: ``9,732``, ``1.12 M``, ``2.47``."""
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.2f}"
    if abs(value) >= 1_000_000:
        return f"{value / 1_000_000:,.2f} M"
    return f"{int(value):,}"

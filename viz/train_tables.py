"""Training trace -> pandas DataFrames for the Train page."""

from __future__ import annotations

import pandas as pd

from bpe_core import MergeStep, TrainResult, WordChange


def pair_counts_frame(step: MergeStep) -> pd.DataFrame:
    """The top pair counts just before ``step``'s merge, winner first.

    Columns: ``left``, ``right``, ``count``, ``status`` ("winner", "tied, lost
    on <rule>" or ""), ``tie key`` (what the tie rule compared, for tied pairs).
    """
    tied = dict(zip(step.tied, step.tie_keys))
    rows = []
    for k, (pair, count) in enumerate(step.top_pairs):
        if k == 0:
            status = "winner" if step.num_tied == 1 else f"winner of a {step.num_tied}-way tie ({step.tie_break})"
        elif pair in tied:
            status = f"tied, lost on {step.tie_break}"
        else:
            status = ""
        rows.append(
            {"left": pair[0], "right": pair[1], "count": count, "status": status, "tie key": tied.get(pair, "")}
        )
    return pd.DataFrame(rows, columns=["left", "right", "count", "status", "tie key"])


def merges_frame(result: TrainResult, upto: int | None = None) -> pd.DataFrame:
    """The merge table learned so far: one row per rule up to and including rank ``upto``.

    Columns: ``rank``, ``left``, ``right``, ``token``, ``id``, ``count``,
    ``replaced``, ``tied`` (how many pairs shared the winning count).
    """
    steps = result.steps if upto is None else result.steps[: upto + 1]
    return pd.DataFrame(
        [
            {
                "rank": s.rank,
                "left": s.pair[0],
                "right": s.pair[1],
                "token": s.token,
                "id": s.token_id,
                "count": s.count,
                "replaced": s.replacements,
                "tied": s.num_tied,
            }
            for s in steps
        ],
        columns=["rank", "left", "right", "token", "id", "count", "replaced", "tied"],
    )


def word_changes_frame(words: list[WordChange] | tuple[WordChange, ...]) -> pd.DataFrame:
    """Rewritten words as a table: ``word``, ``freq``, ``before``, ``after`` (tokens joined by spaces)."""
    return pd.DataFrame(
        [
            {
                "word": w.word if len(w.word) <= 40 else w.word[:40] + "…",
                "freq": w.freq,
                "before": ("… " if w.excerpt else "") + " ".join(w.before) + (" …" if w.excerpt else ""),
                "after": ("… " if w.excerpt else "") + " ".join(w.after) + (" …" if w.excerpt else ""),
            }
            for w in words
        ],
        columns=["word", "freq", "before", "after"],
    )


def corpus_summary(result: TrainResult) -> dict[str, int | float]:
    """Headline numbers: characters, distinct words, alphabet size, merges, tokens before and after."""
    final = result.tokens_at(result.num_merges)
    return {
        "characters": result.num_chars,
        "distinct words": len(result.words),
        "alphabet": len(result.alphabet),
        "merges": result.num_merges,
        "tokens before": result.initial_tokens,
        "tokens after": final,
        "chars per token": round(result.num_chars / final, 3) if final else 0.0,
    }

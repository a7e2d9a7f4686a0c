"""Encoding trace -> token views, DataFrames and statistics for the Encode page."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import pandas as pd

from bpe_core import BlockedRule, DroppedMerge, EncodeTrace, Fallback, OrderDifference, PieceTrace, Tokenizer
from viz.tokens import TokenView, describe_bytes, isolate_words, piece_number, visible

Show = Callable[[str], str]


def _same(token: str) -> str:
    return token


def temporary_ids(trace: EncodeTrace) -> range:
    """The temporary ids in ``trace``: characters a ``keep`` fallback met outside the alphabet.

    They lie past the vocabulary and are numbered in the order the text met them (see
    ``bpe_core.FALLBACKS``), so the same character can get another id in another text. Empty
    for byte-unit tokenizers and the ``unk``/``bytes`` fallbacks, whose fallback tokens are part
    of the vocabulary.
    """
    met = trace.temporary_ids
    return range(met[0], met[-1] + 1) if met else range(0)


def token_views(tokenizer: Tokenizer, trace: EncodeTrace, limit: int | None = None) -> list[TokenView]:
    """One :class:`~viz.tokens.TokenView` per token of ``trace`` (at most ``limit``).

    Each view shows the text the token stands for (hex for bytes that cut a
    UTF-8 character), its vocabulary string and id, and flags for the
    end-of-word marker, fallback (``<unk>``, ``<0xNN>``, or a character kept
    although the training alphabet lacked it, whose id is then temporary, see
    :func:`temporary_ids`) and special tokens. Fallback tokens show their
    vocabulary string (``<unk>``, ``<0xC3>``), as the rule tables do: the bytes
    of ``<unk>``, U+FFFD, would read as a broken character. Everything is read
    from the trace's records (``tokenizer``, the one that made the trace, is not opened).
    """
    views: list[TokenView] = []
    for piece in trace.pieces:
        views += piece_views(piece)
        if limit is not None and len(views) >= limit:
            return views[:limit]
    return views


def piece_views(piece: PieceTrace) -> list[TokenView]:
    """One :class:`~viz.tokens.TokenView` per final token of one pre-token, read from its ids' records
    (bytes, end-of-word flag, kind) as :func:`token_views` draws them: a typed ``</w>`` or ``<0x41>``
    is text, the marker and the fallback tokens are drawn as what they are."""
    views = []
    for tid, raw, data, eow, kind in zip(piece.ids, piece.tokens, piece.token_bytes, piece.ends_word, piece.kinds):
        text = raw if kind == "fallback" else describe_bytes(data)
        views.append(
            TokenView(
                text=text,
                raw=raw,
                token_id=tid,
                end_of_word=eow,
                partial=text.startswith("⟨") and bool(data),
                fallback=kind in ("fallback", "temporary"),
                special=piece.special,
                temporary=kind == "temporary",
            )
        )
    return views


def temporary_note(tokenizer: Tokenizer, trace: EncodeTrace) -> str:
    """A sentence on the temporary ids of ``trace`` (see :func:`temporary_ids`), or ``""`` when it has none.

    Read from the trace's records alone (``tokenizer``, the one that made the trace, is not opened).
    """
    met = trace.temporary_ids
    if not met:
        return ""
    wanted = set(met)  # a character and its end-of-word twin count once
    chars = {data for p in trace.pieces for tid, data in zip(p.ids, p.token_bytes) if tid in wanted}
    n = len(chars)
    span = f"{met[0]:,}" if len(met) == 1 else f"{met[0]:,}–{met[-1]:,}"
    return (
        f"{n:,} character{'s' if n != 1 else ''} outside the alphabet got temporary id{'s' if len(met) != 1 else ''} "
        f"({span}, marked *): past the vocabulary, numbered in the order this text meets them, so another text "
        "can give them other ids. Choose the unk or bytes fallback for stable ids."
    )


def encode_stats(text: str, ids: list[int]) -> dict[str, float]:
    """Characters, UTF-8 bytes, tokens, characters per token and bytes per token."""
    chars = len(text)
    nbytes = len(text.encode("utf-8", "surrogatepass"))
    tokens = len(ids)
    return {
        "characters": chars,
        "bytes": nbytes,
        "tokens": tokens,
        "chars per token": round(chars / tokens, 3) if tokens else 0.0,
        "bytes per token": round(nbytes / tokens, 3) if tokens else 0.0,
    }


def piece_label(index: int, piece: PieceTrace) -> str:
    """A short label for a pre-token in a picker: ``#4 '·learning' → 2 tokens`` (whitespace made visible).

    ``index`` is the pre-token's 0-based index among the ordinary pre-tokens (as the page keeps it); the label
    numbers pre-tokens from 1, as people count them (:func:`viz.tokens.piece_number`).
    """
    text = visible(piece.text if len(piece.text) <= 30 else piece.text[:30] + "…")
    n = len(piece.ids)
    return f"{piece_number(index)} {text!r} → {n} token{'s' if n != 1 else ''}"


STATES_SHOWN = 512
"""Pre-tokens with more symbols show no ``after`` column in the rule table (the player shows each state)."""


def rule_steps_frame(piece: PieceTrace, show: Show = _same) -> pd.DataFrame:
    """Each rule that fired in the pre-token: ``step``, ``rank``, ``left``, ``right``, ``token``,
    ``positions`` (where the left symbol stood), ``after`` (the symbols after it fired, rebuilt from the
    trace for pre-tokens of at most :data:`STATES_SHOWN` symbols) and, with BPE-dropout, ``dropped``
    (the merges skipped at that step: ``e + s @ 3``)."""
    short = len(piece.initial) <= STATES_SHOWN
    states = iter(piece.states()) if short else None
    if states is not None:
        next(states)  # the spelling, before the first step
    dropout = any(a.dropped for a in piece.steps)
    rows = []
    for i, a in enumerate(piece.steps):
        row = {
            "step": i + 1,
            "rank": a.rank,
            "left": show(a.pair[0]),
            "right": show(a.pair[1]),
            "token": show(a.token),
            "positions": ", ".join(map(str, a.positions)),
            "after": " ".join(map(show, next(states))) if states is not None else "(long piece: see the player)",
        }
        if dropout:
            row["dropped"] = dropped_text(a.dropped, show)
        rows.append(row)
    columns = ["step", "rank", "left", "right", "token", "positions", "after"] + (["dropped"] if dropout else [])
    return pd.DataFrame(rows, columns=columns)


def dropped_text(dropped: Sequence[DroppedMerge], show: Show = _same, limit: int = 6) -> str:
    """Merges BPE-dropout skipped, in a few words: ``e + s @ 3; es + t @ 1`` (at most ``limit`` rules)."""
    parts = [
        f"{show(d.pair[0])} + {show(d.pair[1])} @ {', '.join(map(str, d.positions[:4]))}"
        + ("…" if len(d.positions) > 4 else "")
        for d in dropped[:limit]
    ]
    more = len(dropped) - limit
    return "; ".join(parts) + (f"; and {more:,} more" if more > 0 else "")


def rule_token_ids(tokenizer: Tokenizer, piece: PieceTrace) -> list[int]:
    """Per rule that fired in ``piece`` (the rows of :func:`rule_steps_frame`), the id of the token it formed.

    A trace's rank is the rule's position in the merge table (``tokenizer.model.merge_ids``), for
    rank files too, where the position is not the token's id (GPT-2's ``Hello`` is rule 15,240, id 15,496).
    """
    rules = tokenizer.model.merge_ids
    return [rules[a.rank][2] for a in piece.steps]


def blocked_rules(piece: PieceTrace) -> list[BlockedRule]:
    """The blocked rules worth explaining: the rule had a chance, or nearly, and something stopped it.

    Kept: rules whose two symbols stood side by side at some step and lost one
    to another rule first (``"taken"``: ``n + e`` in ``nest`` once ``e + s``
    took the ``e``), met only after their turn (``"too_late"``, sequential
    order) or were skipped by BPE-dropout (``"dropped"``), and rules whose
    symbols both end in the word but never met because tokens stood between
    them (``"apart"`` with a non-empty ``between``). Left out: ``"apart"`` rules
    with nothing between, where the right symbol only ever comes before the
    left one (``o + l`` in ``lo``): nothing blocked them, they never had a chance.
    """
    return [b for b in piece.blocked if b.kind != "apart" or b.between]


BLOCKED_KINDS = {
    "apart": "never met",
    "taken": "a symbol taken",
    "too_late": "met too late",
    "dropped": "skipped by dropout",
}
"""Each :class:`bpe_core.BlockedRule` kind in a few words, for the ``blocked`` table."""


def blocked_frame(piece: PieceTrace, show: Show = _same) -> pd.DataFrame:
    """The blocked rules worth explaining (:func:`blocked_rules`): ``rank``, ``left``, ``right``, ``what``
    (the kind in words), ``step`` (when a symbol was taken, or the pair met too late; empty otherwise),
    ``between`` (the tokens that stood between, joined by spaces), ``why``."""
    return pd.DataFrame(
        [
            {
                "rank": b.rank,
                "left": show(b.pair[0]),
                "right": show(b.pair[1]),
                "what": BLOCKED_KINDS.get(b.kind, b.kind),
                "step": "" if b.step is None else str(b.step),
                "between": " ".join(map(show, b.between)),
                "why": isolate_words(b.reason),
            }
            for b in blocked_rules(piece)
        ],
        columns=["rank", "left", "right", "what", "step", "between", "why"],
    )


def _outcome(f: Fallback) -> str:
    """What became of a character the alphabet could not hold as one symbol, in a few words."""
    n = len(f.tokens)
    if f.kind == "raw_bytes":
        return "its bytes merged into one token" if f.merged else f"its bytes stay in {n:,} tokens"
    if f.kind == "bytes":
        return f"spelled as {n:,} byte token{'s' if n != 1 else ''}"
    if f.kind == "unk":
        return "became <unk>: the character is lost"
    return "kept as a symbol of its own (an id past the vocabulary)"


def fallbacks_frame(piece: PieceTrace, show: Show = _same) -> pd.DataFrame:
    """Characters outside the alphabet or left as raw bytes: ``char``, ``offset`` (its character offset in
    the encoded text, the same whatever the pre-tokenizer), ``kind``, ``bytes`` (hex), ``tokens``,
    ``outcome`` (what became of it, in words)."""
    return pd.DataFrame(
        [
            {
                "char": f.char,
                "offset": piece.start + f.offset,
                "kind": f.kind,
                "bytes": " ".join(f"{b:02X}" for b in f.data),
                "tokens": " ".join(map(show, f.tokens)),
                "outcome": _outcome(f),
            }
            for f in piece.fallbacks
        ],
        columns=["char", "offset", "kind", "bytes", "tokens", "outcome"],
    )


def order_differences_frame(diffs: list[OrderDifference], show: Show = _same) -> pd.DataFrame:
    """The pre-tokens that ``rank`` and ``sequential`` order cut differently: ``word`` (whitespace made
    visible), ``rank order`` and ``sequential`` (the tokens, joined by spaces)."""
    return pd.DataFrame(
        [
            {
                "word": visible(d.text),
                "rank order": " ".join(map(show, d.rank_tokens)),
                "sequential": " ".join(map(show, d.sequential_tokens)),
            }
            for d in diffs
        ],
        columns=["word", "rank order", "sequential"],
    )


def with_pieces(views: list[TokenView], trace: EncodeTrace) -> list[TokenView]:
    """``views`` (from :func:`token_views`, in the order of ``trace``'s tokens) with each token's pre-token
    index set, counting only ordinary pre-tokens (special tokens stay unclickable), as the Encode page's
    pre-token picker numbers them."""
    owners: list[int | None] = []
    index = 0
    for piece in trace.pieces:
        owners += [None if piece.special else index] * len(piece.ids)
        index += not piece.special
    return [replace(view, piece=owner) for view, owner in zip(views, owners)]


def multi_rule_tokens(merges: list[tuple[str, str]]) -> int:
    """How many token strings the merge table ``merges`` forms by more than one rule.

    Rank order (GPT-2, tiktoken) and sequential order (one pass over the table) can
    cut a word differently only when some token can be built by two rules (``ab + c``
    and ``a + bc``): a table learned by BPE forms every token by exactly one rule, so
    this is 0 and the two orders always agree (Lesson 7 shows a table where they do not).
    """
    seen: set[str] = set()
    again: set[str] = set()
    for a, b in merges:
        token = a + b
        (again if token in seen else seen).add(token)
    return len(again)

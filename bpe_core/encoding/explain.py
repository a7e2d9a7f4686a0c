"""Explanations of an encoding, as pure functions over a tokenizer and a text.

* :func:`encode_trace`: every rule applied to every pre-token, the rules that
  could have fired but did not (and why), and the characters that fell back;
* :func:`round_trip`: whether ``decode(encode(text)) == text``, and why not;
* :func:`order_differences`: the pre-tokens ``rank`` and ``sequential`` order
  cut differently.

The last two can read a trace already made of the same text (``trace=``)
instead of pre-tokenizing and encoding it again.

Each takes the tokenizer's parts (:class:`~bpe_core.encoding.tokenizer_parts.TokenizerParts`:
``model``, ``pre_tokenizer``, ``specials``, ``decoder``; a
:class:`~bpe_core.Tokenizer` is one) and returns frozen records (:mod:`bpe_core.trace`) that carry
token strings and bytes, so a UI never opens the symbol table. Nothing here
changes the tokenizer: calling one twice gives equal records.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence

from ..text.pretokenize import budgeted
from ..text.spelling import FallbackLog, Temporaries
from ..text.symbols import MARKER, SHIFT, utf8
from ..trace import (
    BlockedRule,
    DroppedMerge,
    EncodeTrace,
    Fallback,
    OrderDifference,
    PieceTrace,
    RoundTrip,
    RuleApplication,
)
from .merge_run import Candidate, MergeRun, Step, dropout_rng
from .merging import RANK, SEQUENTIAL, MergeOrder, merge_order
from .model import MergeModel
from .pipeline import AllowedSpecial
from .tokenizer_parts import TokenizerParts, decode, encode

TRACE_SYMBOLS = 512
"""On pre-tokens with more symbols, ``apart`` blocked rules are listed only with a short gap (:data:`MAX_BETWEEN`)."""
MAX_BETWEEN = 32
"""Tokens between an ``apart`` rule's symbols above which a long pre-token's rule is left out (and counted)."""
MAX_BLOCKED = 200
"""Blocked rules listed per pre-token at most (the lowest ranks); the rest are counted in ``blocked_omitted``."""


def _namer(model: MergeModel, temporaries: Temporaries) -> Callable[[Sequence[int]], tuple[str, ...]]:
    """``names(ids)``: display strings of ids, temporary ids included."""
    strings = model.table.strings
    size = len(strings)

    def names(ids: Sequence[int]) -> tuple[str, ...]:
        try:
            return tuple(map(strings.__getitem__, ids))
        except IndexError:  # a temporary id (keep fallback)
            return tuple(strings[i] if i < size else temporaries.token(i)[0] for i in ids)

    return names


@budgeted
def encode_trace(
    parts: TokenizerParts,
    text: str,
    *,
    order: str = "rank",
    allowed_special: AllowedSpecial = (),
    dropout: float = 0.0,
    seed: int | random.Random | None = None,
) -> EncodeTrace:
    """Encode text and record every rule application, blocked rule and fallback.

    The ids in the returned trace equal :func:`bpe_core.encoding.tokenizer_parts.encode` ``(parts, text, ...)`` (with
    the same ``dropout`` and ``seed``). Each rule application records its rank,
    pair, token and positions, not a copy of the word: time O(n log n) and
    memory O(n) for a pre-token of n symbols; :meth:`~bpe_core.trace.PieceTrace.state`
    rebuilds the word at any step.

    Blocked rules (:class:`~bpe_core.trace.BlockedRule`): every rule whose two
    symbols stood side by side at some state of the word and never fired, with
    the step that took one of them (found while merging, at the positions each
    merge touches), and every rule whose symbols both end in the final tokens
    without ever meeting. At most :data:`MAX_BLOCKED` per pre-token are listed,
    and on pre-tokens over :data:`TRACE_SYMBOLS` symbols ``apart`` rules only
    with at most :data:`MAX_BETWEEN` tokens between; ``blocked_omitted`` counts the rest.

    Args:
        parts: the tokenizer's parts (any :class:`~bpe_core.Tokenizer` is one).
        text, order, allowed_special, dropout, seed: as for :meth:`~bpe_core.Tokenizer.encode`;
            with dropout, each step lists the merges it skipped.

    Returns:
        An :class:`~bpe_core.trace.EncodeTrace`: the order that ran and one
        :class:`~bpe_core.trace.PieceTrace` per pre-token (initial symbols,
        rule applications, blocked rules, fallbacks, final tokens with their
        ids, bytes and kinds).

    Raises:
        OptionError, TypeError: as for :meth:`~bpe_core.Tokenizer.encode`.
    """
    mode = merge_order(order)
    rng = dropout_rng(dropout, seed)
    model = parts.model
    temporaries = Temporaries(len(model))
    names = _namer(model, temporaries)
    pieces: list[PieceTrace] = []
    offset = 0
    for piece, special in parts.specials.split(text, allowed_special):
        if special:
            sid = parts.specials.ids[piece]
            data, ends = (utf8(piece),), (bool(parts.decoder.spaced),)  # a word of its own under whitespace_eow
            pieces.append(
                PieceTrace(piece, offset, True, (piece,), (), (), (), (piece,), (sid,), data, ends, ("special",))
            )
        else:
            for chunk, at in parts.pre_tokenizer.with_offsets(piece):
                pieces.append(_trace_piece(model, chunk, offset + at, mode, temporaries, names, rng))
        offset += len(piece)
    shown_seed = seed if isinstance(seed, int) and rng is not None else None
    return EncodeTrace(text, mode.name, tuple(pieces), float(dropout) if rng else 0.0, shown_seed)


def _plain_names(strings: Sequence[str]) -> Callable[[Sequence[int]], tuple[str, ...]]:
    """``names(ids)`` for ids that are all in the vocabulary."""
    getitem = strings.__getitem__
    return lambda ids: tuple(map(getitem, ids))


def _trace_piece(
    model: MergeModel,
    chunk: str,
    start: int,
    order: MergeOrder,
    temporaries: Temporaries,
    names: Callable[[Sequence[int]], tuple[str, ...]],
    rng: tuple[float, random.Random] | None = None,
) -> PieceTrace:
    """The trace of one pre-token (``rng``: the dropout probability and generator, or ``None``)."""
    log: FallbackLog = []
    initial = model.spell(chunk, temporaries, log)
    p, gen = rng if rng is not None else (0.0, None)
    run = model.rules.run(initial, order, dropout=p, rng=gen)
    final = run.final
    if not log or not model.policy.temporary:  # no temporary id: plain lookups, no fallback path
        names = _plain_names(model.table.strings)
    steps = tuple(_application(model, step) for step in run.steps)
    blocked, omitted = _blocked(model, order, initial, run, names)
    data, ends, kinds = _token_fields(model, final, temporaries)
    return PieceTrace(
        text=chunk,
        start=start,
        special=False,
        initial=names(initial),
        steps=steps,
        blocked=blocked,
        fallbacks=_fallbacks(model, chunk, final, log),
        tokens=names(final),
        ids=tuple(final),
        token_bytes=data,
        ends_word=ends,
        kinds=kinds,
        dropped_at_end=_dropped(model, run.end_dropped),
        blocked_omitted=omitted,
    )


def _application(model: MergeModel, step: Step) -> RuleApplication:
    """A recorded step as a trace record (``pair``: the two ids joined at its first site; a rule's
    symbols, and so these, are never temporary)."""
    strings = model.table.strings
    return RuleApplication(
        step.rank,
        (strings[step.left], strings[step.right]),
        strings[model.merge_ids[step.rank][2]],
        step.sites,
        step.width,
        _dropped(model, step.dropped) if step.dropped else (),
    )


def _dropped(model: MergeModel, candidates: Sequence[Candidate]) -> tuple[DroppedMerge, ...]:
    """Skipped candidates grouped by rank (lowest first), with the first site's pair and every position."""
    if not candidates:
        return ()
    strings = model.table.strings
    groups: dict[int, list[Candidate]] = {}
    for c in sorted(candidates):
        groups.setdefault(c[0], []).append(c)
    return tuple(
        DroppedMerge(
            rank,
            (strings[group[0][2]], strings[group[0][3]]),
            strings[model.merge_ids[rank][2]],
            tuple(c[1] for c in group),
        )
        for rank, group in groups.items()
    )


def _token_fields(
    model: MergeModel, ids: Sequence[int], temporaries: Temporaries
) -> tuple[tuple[bytes, ...], tuple[bool, ...], tuple[str, ...]]:
    """Per token: the bytes it stands for (marker left out), whether it ends a word, and its kind."""
    table = model.table
    fallback = model.fallback_ids
    try:
        raw = [table.data[i] for i in ids]
        ends = [table.ends_word[i] for i in ids]
        kinds = ["fallback" if i in fallback else "" for i in ids] if fallback else [""] * len(ids)
    except IndexError:  # a temporary id (keep fallback)
        tokens = [temporaries.token(i) if i >= len(table) else (None, table.data[i], table.ends_word[i]) for i in ids]
        raw = [t[1] for t in tokens]
        ends = [t[2] for t in tokens]
        kinds = ["temporary" if i >= len(table) else "fallback" if i in fallback else "" for i in ids]
    data = tuple(r[:-1] if e else r for r, e in zip(raw, ends))
    return data, tuple(ends), tuple(kinds)


def _blocked(
    model: MergeModel,
    order: MergeOrder,
    initial: Sequence[int],
    run: MergeRun,
    names: Callable[[Sequence[int]], tuple[str, ...]],
) -> tuple[tuple[BlockedRule, ...], int]:
    """The rules that could have joined two symbols of this pre-token and never fired, and how many were left out.

    Two sources, both near-linear in the word: the rules whose symbols stood
    side by side at some state (``run.met``, recorded while merging at the
    positions each merge touched) and did not fire, judged by :func:`_judge`;
    and the rules whose two symbols both end in the final tokens without ever
    meeting (:func:`_apart`). At most :data:`MAX_BLOCKED`, lowest ranks first.
    """
    final = run.final
    long = len(initial) > TRACE_SYMBOLS
    gaps = _Gaps(final, names, MAX_BETWEEN if long else None)
    fired = run.fired()
    out = [_judge(model, order, run, rank, met, gaps) for rank, met in run.met.items() if rank not in fired]
    apart, omitted = _apart(model, final, run.met, gaps, long)
    out += apart
    out.sort(key=lambda r: r.rank)
    omitted += max(0, len(out) - MAX_BLOCKED)
    return tuple(out[:MAX_BLOCKED]), omitted


class _Gaps:
    """Where each token stands in a final segmentation, to find what stood between two of them
    (``limit``: the most tokens :meth:`tokens` gives; a longer gap gives ``()``)."""

    def __init__(
        self, final: Sequence[int], names: Callable[[Sequence[int]], tuple[str, ...]], limit: int | None = None
    ) -> None:
        self.final = final
        self.names = names
        self.limit = limit
        self.where: dict[int, list[int]] = {}
        for i, s in enumerate(final):
            self.where.setdefault(s, []).append(i)
        self.adjacent = set(zip(final, final[1:]))

    def between(self, left: int, right: int) -> tuple[int, int] | None:
        """``(i, j)``: the first ``left`` and the first ``right`` after it, or ``None`` (absent, or only before)."""
        lefts, rights = self.where.get(left), self.where.get(right)
        if not lefts or not rights:
            return None
        i = lefts[0]
        k = bisect_right(rights, i)
        return (i, rights[k]) if k < len(rights) else None

    def tokens(self, left: int, right: int) -> tuple[str, ...]:
        """The tokens between the first ``left`` that has a ``right`` after it and that ``right`` (``()`` if none)."""
        if (left, right) in self.adjacent:
            return ()
        span = self.between(left, right)
        if span is None or (self.limit is not None and span[1] - span[0] - 1 > self.limit):
            return ()
        return self.names(self.final[span[0] + 1 : span[1]])


def _judge(
    model: MergeModel, order: MergeOrder, run: MergeRun, rank: int, met: tuple[int, int, int], gaps: _Gaps
) -> BlockedRule:
    """Why rule ``rank``, whose symbols first stood side by side at state ``met[0]``, never fired."""
    state, left, right = met
    strings = model.table.strings
    maker = run.steps[state - 1] if state else None
    if order.sequential and maker is not None and maker.rank > rank:
        pair = (strings[left], strings[right])
        reason = (
            f"{pair[0]!r} and {pair[1]!r} only became neighbours at step {state}, when rule {maker.rank} "
            f"{model.show_pair(maker.left, maker.right)} fired, after this rule's turn in the single pass "
            "over the merge table"
        )
        return BlockedRule(rank, pair, gaps.tokens(left, right), reason, "too_late", maker.rank, state)
    if rank not in run.taken:
        pair = (strings[left], strings[right])
        reason = f"{pair[0]!r} and {pair[1]!r} stood side by side to the end, but BPE-dropout skipped this merge"
        return BlockedRule(rank, pair, (), reason, "dropped")
    step_no, taker, left, right, lost = run.taken[rank]
    pair = (strings[left], strings[right])
    took = run.steps[step_no - 1]
    token = strings[model.merge_ids[taker][2]]
    if taker < rank or order.sequential:
        earlier = "comes earlier in the table" if order.sequential else "has a lower rank"
        why = f"rule {taker} {model.show_pair(took.left, took.right)} {earlier}"
    else:  # only with dropout: a higher rank fired while this one was skipped
        why = f"BPE-dropout skipped this merge and rule {taker} {model.show_pair(took.left, took.right)}"
    reason = (
        f"{pair[0]!r} and {pair[1]!r} stood side by side, but {why} and merged {strings[lost]!r} "
        f"into {token!r} first, at step {step_no}"
    )
    return BlockedRule(rank, pair, gaps.tokens(left, right), reason, "taken", taker, step_no)


def _apart(
    model: MergeModel, final: Sequence[int], met: dict[int, tuple[int, int, int]], gaps: _Gaps, long: bool
) -> tuple[list[BlockedRule], int]:
    """Rules whose two symbols both end in the final tokens but never stood side by side; and how many
    were left out (long pre-tokens: more than :data:`MAX_BETWEEN` tokens between)."""
    out: list[BlockedRule] = []
    omitted = 0
    names = gaps.names
    for left, right, rank in _final_rules(model, final):
        if rank in met or (left == right and len(gaps.where[left]) < 2):
            continue
        span = gaps.between(left, right)
        if long and span is not None and span[1] - span[0] - 1 > MAX_BETWEEN:
            omitted += 1
            continue
        pair = names((left, right))
        if span is None:
            reason = f"{pair[1]!r} only comes before {pair[0]!r}, never right after it"
            out.append(BlockedRule(rank, (pair[0], pair[1]), (), reason))
            continue
        between = names(final[span[0] + 1 : span[1]])
        reason = f"{pair[0]!r} and {pair[1]!r} never met: {' '.join(map(repr, between))} stood between them"
        out.append(BlockedRule(rank, (pair[0], pair[1]), between, reason))
    return out, omitted


def _final_rules(model: MergeModel, final: Sequence[int]) -> list[tuple[int, int, int]]:
    """``(left, right, rank)`` of every rule of the table whose two symbols are both among ``final``.

    Walks whichever is shorter: the rules starting with each distinct final
    token, or every pair of distinct final tokens (long words have many).
    """
    distinct = list(dict.fromkeys(final))
    present = set(distinct)
    by_left = model.rules_by_left
    if sum(len(by_left.get(x, ())) for x in distinct) <= len(distinct) ** 2:
        return [(x, y, r) for x in distinct for y, r in by_left.get(x, ()) if y in present]
    get = model.pair_rank.get
    found = ((x, y, get(x * SHIFT + y)) for x in distinct for y in distinct)
    return [(x, y, r) for x, y, r in found if r is not None]


def _fallbacks(model: MergeModel, chunk: str, final: list[int], log: FallbackLog) -> tuple[Fallback, ...]:
    """The characters of a pre-token that did not become one base symbol of their own."""
    if model.table.byte_level:
        return _raw_bytes(model, chunk, final)
    tokens = model.policy.tokens
    return tuple(Fallback(ch, offset, kind, utf8(ch), tokens(ch), False) for offset, ch, kind in log)


def _raw_bytes(model: MergeModel, chunk: str, final: list[int]) -> tuple[Fallback, ...]:
    """Byte unit: where each multi-byte character's bytes ended up, and whether they merged into one token."""
    table = model.table
    ends = []
    pos = 0
    for s in final:
        pos += len(table.data[s]) - (1 if table.ends_word[s] else 0)
        ends.append(pos)
    out = []
    byte_pos = t = 0
    for k, ch in enumerate(chunk):
        data = utf8(ch)
        first, last = byte_pos, byte_pos + len(data)
        byte_pos = last
        if len(data) == 1:
            continue
        while t < len(ends) and ends[t] <= first:
            t += 1
        holders = []
        u = t
        while u < len(ends):
            holders.append(u)
            if ends[u] >= last:
                break
            u += 1
        tokens = tuple(table.strings[final[x]] for x in holders)
        out.append(Fallback(ch, k, "raw_bytes", data, tokens, len(holders) == 1))
    return tuple(out)


@budgeted
def order_differences(parts: TokenizerParts, text: str, *, trace: EncodeTrace | None = None) -> list[OrderDifference]:
    """The pre-tokens of ``text`` that ``rank`` and ``sequential`` order cut differently.

    The two orders agree on tables that training learned from the same
    pre-tokens, and can disagree when a token can be built by two routes
    (see :mod:`bpe_core.encoding.encoder`).

    Args:
        parts: the tokenizer's parts (any :class:`~bpe_core.Tokenizer` is one).
        text: the text to pre-tokenize and encode both ways (special tokens are not matched).
        trace: ``text``'s trace (:func:`encode_trace`, any order): its pre-tokens are read instead of
            splitting the text again, unless a special token was cut out of it (here none is matched).

    Returns:
        One :class:`~bpe_core.trace.OrderDifference` per distinct pre-token
        that differs, in order of first appearance.

    Raises:
        OptionError: text holding a lone surrogate (byte unit).
    """
    if trace is not None and trace.text == text and not any(p.special for p in trace.pieces):
        return _differences(parts, (p.text for p in trace.pieces))  # none cut: the same split as with none matched
    return _differences(parts, _pre_tokens(parts, text))


def _pre_tokens(parts: TokenizerParts, text: str) -> Iterator[str]:
    """The pre-tokens of ``text`` with no special token matched, in order (what :func:`order_differences` reads)."""
    for piece, _special in parts.specials.split(text, ()):
        yield from parts.pre_tokenizer.split(piece)


def _differences(parts: TokenizerParts, chunks: Iterable[str]) -> list[OrderDifference]:
    """The distinct ``chunks`` that ``rank`` and ``sequential`` order cut apart (see :func:`order_differences`)."""
    model = parts.model
    temporaries = Temporaries(len(model))
    names = _namer(model, temporaries)
    out = []
    seen: set[str] = set()
    for chunk in chunks:
        if chunk in seen:
            continue
        seen.add(chunk)
        r = model.encode_chunk(chunk, RANK, temporaries)
        s = model.encode_chunk(chunk, SEQUENTIAL, temporaries)
        if r != s:
            out.append(OrderDifference(chunk, names(r), names(s)))
    return out


@budgeted
def round_trip(
    parts: TokenizerParts,
    text: str,
    *,
    order: str = "rank",
    allowed_special: AllowedSpecial = (),
    trace: EncodeTrace | None = None,
) -> RoundTrip:
    """Check ``decode(encode(text)) == text`` and explain the first difference.

    Byte-level tokenizers always round-trip. The ones that cannot: the
    whitespace pre-tokenizers (``whitespace`` drops spacing, ``whitespace_eow``
    turns every run of whitespace into one space), ``<unk>`` fallback, and
    with the attached marker a word-final character that fell back (its
    end-of-word marker is lost with it). Characters the ``keep`` fallback
    kept decode through their temporary ids.

    Args:
        parts: the tokenizer's parts (any :class:`~bpe_core.Tokenizer` is one).
        text, order, allowed_special: as for :meth:`~bpe_core.Tokenizer.encode`.
        trace: ``text``'s trace with the same ``order`` and ``allowed_special`` and no dropout
            (:func:`encode_trace`): its ids are decoded instead of encoding the text again.

    Returns:
        A :class:`~bpe_core.trace.RoundTrip`: ``ok``, the decoded text, the
        first differing character index and a reason.

    Raises:
        OptionError: an unknown order, or text holding a lone surrogate.
    """
    if trace is not None and trace.text == text and trace.order == merge_order(order).name and not trace.dropout:
        temporaries = _temporaries(parts, trace)
        if temporaries is not None:
            return _round_trip(parts, text, trace.ids, temporaries, lambda: trace)
    temporaries = Temporaries(len(parts.model))
    ids = encode(parts, text, order=order, allowed_special=allowed_special, temporaries=temporaries)
    return _round_trip(
        parts, text, ids, temporaries, lambda: encode_trace(parts, text, order=order, allowed_special=allowed_special)
    )


def _temporaries(parts: TokenizerParts, trace: EncodeTrace) -> Temporaries | None:
    """The temporary symbols ``trace``'s encoding handed out (``keep`` fallback), rebuilt from its tokens.

    Ids are handed out as the text meets unseen characters and no rule merges
    them, so they first appear in the final tokens in id order; ``None`` if
    they do not (then the caller encodes again).
    """
    temporaries = Temporaries(len(parts.model))
    for p in trace.pieces:
        for i, name, ends, kind in zip(p.ids, p.tokens, p.ends_word, p.kinds):
            if kind != "temporary" or i < temporaries.first + len(temporaries):
                continue
            if i != temporaries.first + len(temporaries) or (ends and not name.endswith(MARKER)):
                return None
            temporaries.get(name[: -len(MARKER)] if ends else name, ends)
    return temporaries


def _round_trip(
    parts: TokenizerParts, text: str, ids: Sequence[int], temporaries: Temporaries, trace: Callable[[], EncodeTrace]
) -> RoundTrip:
    """:func:`round_trip` of ``text`` encoded as ``ids``; ``trace()`` gives its trace, read only to find a cause."""
    decoded = decode(parts, ids, temporaries=temporaries)
    if decoded == text:
        return RoundTrip(True, text, decoded, None, "")
    pos = next((k for k, (x, y) in enumerate(zip(text, decoded)) if x != y), min(len(text), len(decoded)))
    pos, reason = _difference(parts, trace(), text, decoded, pos)
    return RoundTrip(False, text, decoded, pos, reason)


def _difference(parts: TokenizerParts, trace: EncodeTrace, text: str, decoded: str, pos: int) -> tuple[int, str]:
    """The position and the reason of the first difference between ``text`` and ``decoded`` (at ``pos``)."""
    ch = text[pos] if pos < len(text) else ""
    got = decoded[pos] if pos < len(decoded) else ""
    # the first fallback at or before the difference, if any, is the cause
    fell = next(
        (
            (p.start + f.offset, f)
            for p in trace.pieces
            for f in p.fallbacks
            if f.kind in ("unk", "bytes") and p.start + f.offset <= pos
        ),
        None,
    )
    pre = parts.pre_tokenizer
    if fell is not None and fell[1].kind == "unk":
        reason = f"character {fell[1].char!r} at position {fell[0]} is not in the alphabet and was encoded as <unk>"
        return min(pos, fell[0]), reason
    if fell is not None and parts.model.table.marker_layout.twins:
        char = fell[1].char
        known = char in parts.model.speller.alphabet.char_ids
        why = "never ended a word in training" if known else "is not in the alphabet"
        reason = (
            f"character {char!r} at position {fell[0]} {why}, so it has no end-of-word twin: it fell back to "
            "byte tokens, which carry no end-of-word marker, and the word boundary after it was lost"
        )
        return pos, reason
    beside = [p for p in trace.pieces if p.special and pos in (p.start, p.start + len(p.text))]
    if got == " " and parts.decoder.spaced and beside:
        where = "after the one that ends" if beside[0].start != pos else "before the one that starts"
        reason = (
            f"under {pre.name} a special token is a word of its own: decoding puts one space {where} "
            f"at position {pos}, where the text has {ch!r}"
        )
        return pos, reason
    if pre.drops_whitespace and (ch.isspace() or got.isspace() or not ch or not got):
        reason = (
            f"the {pre.name} pre-tokenizer drops whitespace: at position {pos} the text has "
            f"{ch!r} but decoding gives {got!r}"
        )
        return pos, reason
    return pos, f"at position {pos} the text has {ch!r} but decoding gives {got!r}"

"""Explanations of an encoding, as pure functions over a tokenizer and a text.

* :func:`encode_trace`: every rule applied to every pre-token, the rules that
  could have fired but did not (and why), and the characters that fell back;
* :func:`round_trip`: whether ``decode(encode(text)) == text``, and why not;
* :func:`order_differences`: the pre-tokens ``rank`` and ``sequential`` order
  cut differently.

Each reads the tokenizer's public parts (``model``, ``pre_tokenizer``,
``specials``) and returns frozen records (:mod:`bpe_core.trace`) that carry
token strings and bytes, so a UI never opens the symbol table. Nothing here
changes the tokenizer: calling one twice gives equal records.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from .merging import RANK, SEQUENTIAL, MergeOrder, Record, merge_order
from .model import MergeModel
from .pipeline import AllowedSpecial, Decoder, PreTokenizer, SpecialTokens
from .pretokenize import budgeted
from .spelling import FallbackLog, Temporaries
from .symbols import utf8
from .trace import BlockedRule, EncodeTrace, Fallback, OrderDifference, PieceTrace, RoundTrip, RuleApplication


class TokenizerParts(Protocol):
    """The parts of a tokenizer the explanations read; :class:`bpe_core.Tokenizer` has them all.

    Typing against this protocol instead of the class keeps :mod:`bpe_core.encoder`
    (which calls these functions for its ``encode_with_trace``, ``round_trip`` and
    ``order_differences``) out of this module's imports: no cycle, not even for a type checker.
    """

    @property
    def model(self) -> MergeModel:
        """The frozen merge model (symbol table, merges, speller)."""
        ...

    @property
    def pre_tokenizer(self) -> PreTokenizer:
        """Cuts text into pre-tokens."""
        ...

    @property
    def specials(self) -> SpecialTokens:
        """Cuts special tokens out of the text."""
        ...

    @property
    def decoder(self) -> Decoder:
        """Turns ids back into text."""
        ...

    def encode(
        self,
        text: str,
        *,
        order: str = "rank",
        allowed_special: AllowedSpecial = (),
        temporaries: Temporaries | None = None,
    ) -> list[int]:
        """Token ids of ``text`` (see :meth:`bpe_core.Tokenizer.encode`)."""
        ...

    def decode(self, ids: Iterable[int], errors: str = "replace", *, temporaries: Temporaries | None = None) -> str:
        """The text of ``ids`` (see :meth:`bpe_core.Tokenizer.decode`)."""
        ...


TRACE_SYMBOLS = 512
"""Rule applications on longer pieces record positions but not the whole before/after spelling."""


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
    tokenizer: TokenizerParts, text: str, *, order: str = "rank", allowed_special: AllowedSpecial = ()
) -> EncodeTrace:
    """Encode text and record every rule application, blocked rule and fallback.

    The ids in the returned trace equal ``tokenizer.encode(text, ...)``. Pieces
    longer than 512 symbols record the positions of each rule application
    but not the whole spelling (and their blocked rules are judged on the
    final tokens alone).

    Args:
        tokenizer: any :class:`~bpe_core.Tokenizer`.
        text, order, allowed_special: as for :meth:`~bpe_core.Tokenizer.encode`.

    Returns:
        An :class:`~bpe_core.trace.EncodeTrace`: the order that ran and one
        :class:`~bpe_core.trace.PieceTrace` per pre-token (initial symbols,
        rule applications, blocked rules, fallbacks, final tokens with their
        ids, bytes and kinds).

    Raises:
        OptionError, TypeError: as for :meth:`~bpe_core.Tokenizer.encode`.
    """
    mode = merge_order(order)
    model = tokenizer.model
    temporaries = Temporaries(len(model))
    names = _namer(model, temporaries)
    pieces: list[PieceTrace] = []
    offset = 0
    for piece, special in tokenizer.specials.split(text, allowed_special):
        if special:
            sid = tokenizer.specials.ids[piece]
            data, ends = (utf8(piece),), (bool(tokenizer.decoder.spaced),)  # a word of its own under whitespace_eow
            pieces.append(
                PieceTrace(piece, offset, True, (piece,), (), (), (), (piece,), (sid,), data, ends, ("special",))
            )
        else:
            for chunk, at in tokenizer.pre_tokenizer.with_offsets(piece):
                pieces.append(_trace_piece(model, chunk, offset + at, mode, temporaries, names))
        offset += len(piece)
    return EncodeTrace(text=text, order=mode.name, pieces=tuple(pieces))


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
) -> PieceTrace:
    """The trace of one pre-token."""
    log: FallbackLog = []
    initial = model.spell(chunk, temporaries, log)
    record: Record = []
    final = model.rules.apply(list(initial), order, record)
    full = len(initial) <= TRACE_SYMBOLS
    if not log or not model.policy.temporary:  # no temporary id: plain lookups, no fallback path
        names = _plain_names(model.table.strings)
    steps = tuple(_application(model, rank, sites, before, after, full, names) for rank, sites, before, after in record)
    run = _Run(model, order, initial, final, record, full, names)
    data, ends, kinds = _token_fields(model, final, temporaries)
    return PieceTrace(
        text=chunk,
        start=start,
        special=False,
        initial=names(initial),
        steps=steps,
        blocked=run.blocked(),
        fallbacks=_fallbacks(model, chunk, final, log),
        tokens=names(final),
        ids=tuple(final),
        token_bytes=data,
        ends_word=ends,
        kinds=kinds,
    )


def _application(
    model: MergeModel,
    rank: int,
    sites: tuple[int, ...],
    before: list[int],
    after: list[int],
    full: bool,
    names: Callable[[Sequence[int]], tuple[str, ...]],
) -> RuleApplication:
    a, b, new = model.merge_ids[rank]
    if model.rules.by_bytes and sites and len(before) == len(after) + len(sites):
        a, b = before[sites[0]], before[sites[0] + 1]  # tiktoken joins whichever two pieces spell the token
    strings = model.table.strings  # a rule's symbols are never temporary
    return RuleApplication(
        rank=rank,
        pair=(strings[a], strings[b]),
        token=strings[new],
        positions=sites,
        before=names(before) if full else (),
        after=names(after) if full else (),
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


class _Run:
    """One pre-token's merge run, as :func:`_trace_piece` recorded it, for judging blocked rules."""

    __slots__ = ("model", "order", "initial", "final", "record", "full", "names")

    def __init__(
        self,
        model: MergeModel,
        order: MergeOrder,
        initial: list[int],
        final: list[int],
        record: Record,
        full: bool,
        names: Callable[[Sequence[int]], tuple[str, ...]],
    ) -> None:
        self.model, self.order, self.initial, self.final = model, order, initial, final
        self.record, self.full, self.names = record, full, names

    def blocked(self) -> tuple[BlockedRule, ...]:
        """The rules that could have joined two symbols of this pre-token but did not (see :class:`BlockedRule`).

        A rule is a candidate when both its symbols are in the final tokens and
        it did not fire on them: either they are never adjacent at the end, or
        (sequential order) they are adjacent but the rule's turn had passed.
        The recorded states (``initial`` and each step's ``after``) tell whether
        the two were ever side by side and which rule separated them. Pieces
        too long to record whole (``full`` False) get the final-state reason only.
        """
        final = self.final
        present = set(final)
        adjacent = set(zip(final, final[1:]))
        neighbours: list[set[tuple[int, int]]] | None = None  # adjacent pairs of each state, built on first need
        out = []
        for left in dict.fromkeys(final):
            for right, rank in self.model.rules_by_left.get(left, ()):
                if right not in present or (left == right and final.count(left) < 2):
                    continue
                if (left, right) in adjacent and (not self.order.sequential or not self.full):
                    continue  # rank order would have merged them; nothing to explain
                if self.full and neighbours is None:
                    states = [self.initial] + [after for _r, _s, _b, after in self.record]
                    neighbours = [set(zip(st, st[1:])) for st in states]
                met = [k for k, seen in enumerate(neighbours or ()) if (left, right) in seen]
                between = () if (left, right) in adjacent else self._between(left, right)
                out.append(self._judge(left, right, rank, met, between))
        out.sort(key=lambda r: r.rank)
        return tuple(out)

    def _judge(self, left: int, right: int, rank: int, met: list[int], between: tuple[str, ...]) -> BlockedRule:
        """Why rule ``rank`` (``left``, ``right``) did not fire; ``met``: the states where they stood side by side."""
        pair = self.names((left, right))
        pair = (pair[0], pair[1])
        shown = f"{pair[0]!r} and {pair[1]!r}"
        model, record = self.model, self.record
        maker = record[met[0] - 1][0] if met and met[0] else None
        if self.order.sequential and maker is not None and maker > rank:
            reason = (
                f"{shown} only became neighbours when rule {maker} {model.show_pair(*model.merge_ids[maker][:2])} "
                "fired, after this rule's turn in the single pass over the merge table"
            )
            return BlockedRule(rank, pair, between, reason, "too_late", maker)
        last = met[-1] if met else -1
        if 0 <= last < len(record):
            taker = record[last][0]
            took = model.merge_ids[taker]
            lost = [self.names((s,))[0] for s in (left, right) if s in took[:2]] or [pair[0]]
            earlier = "comes earlier in the table" if self.order.sequential else "has a lower rank"
            reason = (
                f"{shown} stood side by side, but rule {taker} {model.show_pair(*took[:2])} {earlier} "
                f"and merged {lost[0]!r} into {self.names((took[2],))[0]!r} first"
            )
            return BlockedRule(rank, pair, between, reason, "taken", taker)
        if between:
            return BlockedRule(
                rank, pair, between, f"{shown} never met: {' '.join(map(repr, between))} stood between them"
            )
        return BlockedRule(rank, pair, between, f"{pair[1]!r} only comes before {pair[0]!r}, never right after it")

    def _between(self, left: int, right: int) -> tuple[str, ...]:
        """The tokens between the first ``left`` that has a ``right`` after it and that ``right``."""
        final = self.final
        for i, s in enumerate(final):
            if s != left:
                continue
            for j in range(i + 1, len(final)):
                if final[j] == right:
                    return self.names(final[i + 1 : j])
        return ()


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
def order_differences(tokenizer: TokenizerParts, text: str) -> list[OrderDifference]:
    """The pre-tokens of ``text`` that ``rank`` and ``sequential`` order cut differently.

    The two orders agree on tables that training learned from the same
    pre-tokens, and can disagree when a token can be built by two routes
    (see :mod:`bpe_core.encoder`).

    Args:
        tokenizer: any :class:`~bpe_core.Tokenizer`.
        text: the text to pre-tokenize and encode both ways (special tokens are not matched).

    Returns:
        One :class:`~bpe_core.trace.OrderDifference` per distinct pre-token
        that differs, in order of first appearance.

    Raises:
        OptionError: text holding a lone surrogate (byte unit).
    """
    model = tokenizer.model
    temporaries = Temporaries(len(model))
    names = _namer(model, temporaries)
    out = []
    seen: set[str] = set()
    for piece, _special in tokenizer.specials.split(text, ()):
        for chunk in tokenizer.pre_tokenizer.split(piece):
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
    tokenizer: TokenizerParts, text: str, *, order: str = "rank", allowed_special: AllowedSpecial = ()
) -> RoundTrip:
    """Check ``decode(encode(text)) == text`` and explain the first difference.

    Byte-level tokenizers always round-trip. The ones that cannot: the
    whitespace pre-tokenizers (``whitespace`` drops spacing, ``whitespace_eow``
    turns every run of whitespace into one space), ``<unk>`` fallback, and
    with the attached marker a word-final character that fell back (its
    end-of-word marker is lost with it). Characters the ``keep`` fallback
    kept decode through their temporary ids.

    Args:
        tokenizer: any :class:`~bpe_core.Tokenizer`.
        text, order, allowed_special: as for :meth:`~bpe_core.Tokenizer.encode`.

    Returns:
        A :class:`~bpe_core.trace.RoundTrip`: ``ok``, the decoded text, the
        first differing character index and a reason.

    Raises:
        OptionError: an unknown order, or text holding a lone surrogate.
    """
    temporaries = Temporaries(len(tokenizer.model))
    ids = tokenizer.encode(text, order=order, allowed_special=allowed_special, temporaries=temporaries)
    decoded = tokenizer.decode(ids, temporaries=temporaries)
    if decoded == text:
        return RoundTrip(True, text, decoded, None, "")
    trace = encode_trace(tokenizer, text, order=order, allowed_special=allowed_special)  # to find the cause
    pos = next((k for k, (x, y) in enumerate(zip(text, decoded)) if x != y), min(len(text), len(decoded)))
    pos, reason = _difference(tokenizer, trace, text, decoded, pos)
    return RoundTrip(False, text, decoded, pos, reason)


def _difference(tokenizer: TokenizerParts, trace: EncodeTrace, text: str, decoded: str, pos: int) -> tuple[int, str]:
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
    pre = tokenizer.pre_tokenizer
    if fell is not None and fell[1].kind == "unk":
        reason = f"character {fell[1].char!r} at position {fell[0]} is not in the alphabet and was encoded as <unk>"
        return min(pos, fell[0]), reason
    if fell is not None and tokenizer.model.table.marker_layout.twins:
        char = fell[1].char
        known = char in tokenizer.model.speller.alphabet.char_ids
        why = "never ended a word in training" if known else "is not in the alphabet"
        reason = (
            f"character {char!r} at position {fell[0]} {why}, so it has no end-of-word twin: it fell back to "
            "byte tokens, which carry no end-of-word marker, and the word boundary after it was lost"
        )
        return pos, reason
    beside = [p for p in trace.pieces if p.special and pos in (p.start, p.start + len(p.text))]
    if got == " " and tokenizer.decoder.spaced and beside:
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

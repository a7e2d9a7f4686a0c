"""Check a worked example: does a printed merge table or step-by-step encoding hold for its corpus?

Textbooks and blog posts print BPE merge tables and encodings that are often
wrong for the corpus they show: a table computed without the end-of-word
marker beside a corpus written with ``</w>``, a tie broken by another rule than
the one the text names, a step trace that merges one occurrence at a time where
the code merges all. These functions say exactly where a claim holds:

* :func:`check_merges` trains on the corpus with the given settings
  (Sennrich et al. 2016, Algorithm 1, as :func:`bpe_core.train` does) and
  compares the claimed merges, and counts if given, step by step;
* :func:`find_settings` tries every combination of pre-tokenizer, tie rule and
  minimum frequency and lists those under which the whole claim holds;
* :func:`check_encoding` replays a merge table on one word in the three ways
  tokenizers apply tables and compares a claimed sequence of states.

Each takes the example in its own notation (``marker="_"`` for Jurafsky &
Martin's ``l o w _``; see :mod:`bpe_core.analysis.notation`), and prints it back the same
way. :func:`parse_claimed` and :func:`read_word_counts` read the layouts a user
pastes (``e s 9``; ``low 5``, ``5 l o w _``, ``('low', 5)`` ...).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import product

from ..encoding.encoder import Tokenizer
from ..errors import OptionError
from ..registry.options import OPTIONS
from ..registry.pretokenizers import PRETOKENIZER_SPECS
from ..text.corpus import Corpus
from ..text.symbols import MARKER, UNIT_KINDS
from ..trace import Pair, train_kwargs
from ..training.result import TrainResult
from ..training.trainer import train
from .notation import (
    MARKERS,
    ClaimError,
    Notation,
    WordCounts,
    looks_like_word_counts,
    notations_of,
    parse_claimed,
    parse_word_counts,
    read_word_counts,
)

Claim = Sequence[Pair | tuple[Pair, int | None]]
"""Claimed merges: ``[("e", "s"), ...]``, or with counts ``[(("e", "s"), 9), ...]``."""

PRETOKENIZER_CHOICES: tuple[tuple[str, str], ...] = (
    ("whitespace_eow", "separate"),
    ("whitespace_eow", "attached"),
    ("whitespace", "separate"),
    ("trailing_space", "separate"),
    ("gpt2", "separate"),
    ("none", "separate"),
)
"""The ``(pretokenizer, end_of_word)`` combinations :func:`find_settings` tries (``end_of_word`` only
matters for ``whitespace_eow``)."""

TIE_RULES: tuple[str, ...] = tuple(OPTIONS["tie_break"].choices)
"""The tie rules :func:`find_settings` tries: every one (see :mod:`bpe_core.registry.tie_rules`)."""

FIND_TRAININGS = len(PRETOKENIZER_CHOICES) * len(TIE_RULES)
"""How many trainings :func:`find_settings` runs at least: one per pre-tokenizer choice and tie rule (and as
many more for each notation the claim suggests)."""

MIN_FREQUENCIES: tuple[int, ...] = (1, 2)
"""The minimum frequencies :func:`find_settings` tries."""

APPLY_ORDERS: dict[str, str] = {
    "rank": "rank order, every occurrence of the lowest-ranked pair at once (GPT-2 encoder.py)",
    "sequential": "the table once, in learned order, each rule on every occurrence (the training loop)",
    "leftmost": "rank order, one occurrence at a time, leftmost first (tiktoken, Hugging Face)",
}
"""The ways :func:`check_encoding` applies a table, with a one-line description each."""

STATES_KEPT = 64
""":func:`check_encoding` keeps at least this many true states per way (more when the claim has more)."""

_SETTING_NAMES = frozenset({"pretokenizer", "unit", "end_of_word", "tie_break", "min_frequency", "special_tokens"})


__all__ = [
    "APPLY_ORDERS",
    "CheckSettings",
    "ClaimError",
    "ClaimStep",
    "EncodingCheck",
    "MergeCheck",
    "Notation",
    "WordCounts",
    "check_encoding",
    "check_merges",
    "find_settings",
    "looks_like_word_counts",
    "parse_claimed",
    "parse_word_counts",
    "read_word_counts",
]


@dataclass(frozen=True)
class CheckSettings:
    """One combination of training settings under which a claim was checked.

    Attributes:
        pretokenizer, end_of_word, tie_break, min_frequency, unit: as for :func:`bpe_core.train`
            (with a marker: the settings that marker stands for, see :meth:`Notation.train_settings`).
        marker: the example's marker (a key of :data:`bpe_core.analysis.notation.MARKERS`), or ``None`` when
            it writes tokens as the engine does (``</w>``, or no marker).
    """

    pretokenizer: str
    end_of_word: str
    tie_break: str
    min_frequency: int
    unit: str = "char"
    marker: str | None = None

    @property
    def notation(self) -> Notation | None:
        """The example's notation, or ``None``."""
        return None if self.marker is None else Notation(self.marker, self.end_of_word)

    def kwargs(self) -> dict[str, object]:
        """Keyword arguments for :func:`check_merges` (with ``marker`` when one is set)."""
        kwargs = self.train_kwargs()
        return kwargs if self.marker is None else {**kwargs, "marker": self.marker}

    def train_kwargs(self) -> dict[str, object]:
        """Keyword arguments for :func:`bpe_core.train` on :meth:`train_corpus` (no ``marker``)."""
        return train_kwargs(self.pretokenizer, self.unit, self.end_of_word, self.tie_break, self.min_frequency)

    def train_corpus(self, corpus: Corpus) -> Corpus:
        """The corpus :func:`bpe_core.train` gets: ``corpus``, its words prefixed with a start marker."""
        notation = self.notation
        return corpus if notation is None else notation.corpus(corpus)

    def label(self) -> str:
        """A short description: ``whitespace_eow (_ separate), first_seen, min frequency 2``."""
        byte = UNIT_KINDS[self.unit].byte_level
        pre = self.pretokenizer + (" bytes" if byte else "")
        if self.marker is not None:
            pre += f" ({Notation(self.marker, self.end_of_word).label()})"
        elif not byte and PRETOKENIZER_SPECS[self.pretokenizer].end_of_word:
            pre += f" (</w> {self.end_of_word})"
        elif pre == "whitespace":
            pre += " (no </w>)"
        return f"{pre}, {self.tie_break}, min frequency {self.min_frequency}"


@dataclass(frozen=True)
class ClaimStep:
    """One claimed merge next to the merge training really made at that step.

    Attributes:
        index: the step, 0-based (the merge rank).
        claimed: the claimed pair.
        claimed_count: the count the claim printed, or ``None``.
        actual: the pair training merged at this step (``None``: training had stopped).
        actual_count: that pair's count before the merge (``None`` when training had stopped).
        claimed_pair_count: the true count of the claimed pair before this step (0 if absent).
        ok: the claimed pair is the actual one, and the claimed count (if any) is its count.
        top_pairs: the true highest pair counts before this step, ``((pair, count), ...)``,
            best first (empty when training had stopped).
        num_tied: how many pairs shared the winning count (1: no tie).
    """

    index: int
    claimed: Pair
    claimed_count: int | None
    actual: Pair | None
    actual_count: int | None
    claimed_pair_count: int
    ok: bool
    top_pairs: tuple[tuple[Pair, int], ...]
    num_tied: int

    def reason(self) -> str:
        """One sentence on this step: why it holds, or what training did instead."""
        claimed = _show_pair(self.claimed)
        if self.actual is None:
            return f"training had stopped: no pair was left with the minimum frequency, but {claimed} is claimed"
        if self.ok:
            tie = f", winning a {self.num_tied}-way tie" if self.num_tied > 1 else ""
            return f"{claimed} holds: it has the highest count, {self.actual_count}{tie}"
        actual = f"{_show_pair(self.actual)} with {self.actual_count}"
        if self.claimed == self.actual:
            return f"the pair is right but its count is {self.actual_count}, not {self.claimed_count}"
        if self.claimed_pair_count == self.actual_count:
            return f"{claimed} also has {self.claimed_pair_count} but loses the tie to {actual}"
        return f"{claimed} has {self.claimed_pair_count}, but the merge here is {actual}"


@dataclass(frozen=True)
class MergeCheck:
    """The verdict of :func:`check_merges`.

    Attributes:
        settings: the training settings used (``train`` keyword arguments).
        steps: one :class:`ClaimStep` per claimed merge, in order.
        first_wrong: the index of the first step whose pair (or claimed count)
            differs, or ``None`` when the whole claim holds.
        stop_reason: why training learned fewer merges than claimed, else ``None``.
    """

    settings: tuple[tuple[str, object], ...]
    steps: tuple[ClaimStep, ...]
    first_wrong: int | None
    stop_reason: str | None
    notation: Notation | None = None
    word: str = "low"

    @property
    def holds(self) -> bool:
        """True when every claimed merge (and count) is what training does."""
        return self.first_wrong is None

    def setting(self, name: str) -> object:
        """A training setting's value: as given, or the default of :func:`bpe_core.train`."""
        return dict(self.settings).get(name, OPTIONS[name].default)

    def boundaries(self, quote: Callable[[str], str] = str) -> str:
        """How the words' boundaries were read: ``_ as a separate end-of-word marker, a symbol of its own after
        each word (l o w _)`` (see :meth:`Notation.describe`), or ``no end-of-word marker``; ``quote`` wraps the
        marker and the example."""
        notation = self.notation
        pre = self.setting("pretokenizer")
        spec = PRETOKENIZER_SPECS.get(str(pre))
        if notation is None and spec is not None and spec.end_of_word:
            notation = Notation(MARKER, str(self.setting("end_of_word")))
        if notation is not None:
            return notation.describe(self.word, quote)
        if pre == "whitespace":
            return "no end-of-word marker"
        return f"the {pre} pre-tokenizer and no end-of-word marker"

    def conditions(self, quote: Callable[[str], str] = str) -> str:
        """``first_seen, with _ as a separate end-of-word marker ...``: the tie rule and the word boundaries."""
        return f"{self.setting('tie_break')}, with {self.boundaries(quote)}"


@dataclass(frozen=True)
class EncodingCheck:
    """The verdict of :func:`check_encoding`.

    Attributes:
        word: the word encoded.
        claimed: the claimed states, initial symbols first.
        states_by_order: for each way in :data:`APPLY_ORDERS`, the true states,
            initial symbols first, one state per merge; only the first
            ``max(len(claimed) + 1, STATES_KEPT)`` of them (a long word can pass
            through as many states as it has symbols, each as long as the word).
        first_wrong_by_order: for each way, the index of the first claimed state
            that differs (``len(claimed)`` when the claim stops while a merge
            still applies), or ``None`` when the whole claim holds.
        num_states_by_order: for each way, how many states it goes through in all.
    """

    word: str
    claimed: tuple[tuple[str, ...], ...]
    states_by_order: dict[str, tuple[tuple[str, ...], ...]]
    first_wrong_by_order: dict[str, int | None]
    num_states_by_order: dict[str, int] = field(default_factory=dict)

    def num_states(self, order: str) -> int:
        """How many states way ``order`` goes through in all (``states_by_order`` may keep only the first ones)."""
        return self.num_states_by_order.get(order, len(self.states_by_order[order]))

    @property
    def holding(self) -> list[str]:
        """The ways of applying the table under which the whole claim holds."""
        return [order for order, wrong in self.first_wrong_by_order.items() if wrong is None]


# ---------------------------------------------------------------- merges


def check_merges(corpus: Corpus, claimed: Claim, *, marker: str | None = None, **settings: object) -> MergeCheck:
    """Compare claimed merges (and counts) with what BPE training learns on ``corpus``.

    Training runs once for ``len(claimed)`` merges with ``settings``; step ``i``
    compares claimed merge ``i`` with the merge learned at rank ``i``, and its
    count if the claim gives one. Steps after the first wrong one are still
    compared with the true run (whose state no longer matches the claim's).

    Args:
        corpus: text, or word counts ``{"low": 5, ...}`` (taken as pre-tokenized).
        claimed: ``[("e", "s"), ...]`` or ``[(("e", "s"), 9), ...]`` (a count of
            ``None`` is not checked). Symbols are display strings: ``</w>`` for the
            marker, ``est</w>`` for a token ending a word; or in ``marker``'s notation.
        marker: the example's own marker (a key of :data:`bpe_core.analysis.notation.MARKERS`:
            ``_`` for Jurafsky & Martin's ``er _``), placed as ``end_of_word`` says;
            it sets the pre-tokenizer it stands for (:meth:`Notation.train_settings`),
            and the claim is read, and true merges printed, in that notation.
        **settings: ``pretokenizer``, ``unit``, ``end_of_word``, ``tie_break``,
            ``min_frequency``, ``special_tokens``, as for :func:`bpe_core.train`
            (same defaults).

    Returns:
        A :class:`MergeCheck`; ``first_wrong`` is ``None`` when all holds.

    Raises:
        ClaimError: an empty claim, or a claimed merge that is not a pair of
            non-empty strings (with an optional non-negative int count).
        OptionError: an unknown setting name or value, an unknown marker, or a
            setting that contradicts the marker (``pretokenizer="gpt2"`` with ``_``).
        EmptyCorpusError, TypeError: a corpus ``train`` refuses.
    """
    pairs = _claim_pairs(claimed)
    unknown = set(settings) - _SETTING_NAMES
    if unknown:
        raise OptionError(
            f"unknown setting(s) {', '.join(sorted(unknown))}; expected {', '.join(sorted(_SETTING_NAMES))}"
        )
    notation, engine_corpus, engine_settings = _in_notation(corpus, marker, settings)
    result = train(engine_corpus, num_merges=len(pairs), top_k=10, max_tied=1, trace_words=0, **engine_settings)  # type: ignore[arg-type]
    given = tuple(sorted({**settings, **({"marker": marker} if marker else {})}.items()))
    return _compare(result, pairs, notation, given, _first_word(corpus))


def _in_notation(
    corpus: Corpus, marker: str | None, settings: dict[str, object]
) -> tuple[Notation | None, Corpus, dict[str, object]]:
    """``(notation, the corpus and settings to train with)`` for an example written with ``marker``.

    Raises:
        OptionError: an unknown marker, or a setting that contradicts it.
    """
    if marker is None:
        return None, corpus, settings
    default = "attached" if MARKERS.get(marker) == "continuation" else "separate"
    notation = Notation(marker, str(settings.get("end_of_word", default)))
    implied = notation.train_settings(corpus)
    for name, value in implied.items():
        given = settings.get(name)
        if given is not None and given != value:
            raise OptionError(f"the marker {marker} ({notation.label()}) stands for {name}={value}, not {given!r}")
    return notation, notation.corpus(corpus), {**settings, **implied}


def _first_word(corpus: Corpus) -> str:
    """The corpus's first word of at most 10 characters (among its first 1,000), to spell as an example of the
    notation; ``low`` when there is none."""
    words = corpus.split()[:1000] if isinstance(corpus, str) else list(corpus)[:1000]
    return next((w for w in words if len(w) <= 10), "low")


def _compare(
    result: TrainResult,
    pairs: list[tuple[Pair, int | None]],
    notation: Notation | None,
    settings: tuple,
    word: str = "low",
) -> MergeCheck:
    """Step the claim (in ``notation``) against a training run of at least as many merges (or one that stopped
    early); true pairs are printed in the claim's notation."""
    shown = notation.shown if notation is not None else str
    engine = notation.engine_symbol if notation is not None else str
    steps = []
    first_wrong = None
    for i, (pair, count) in enumerate(pairs):
        if i < result.num_merges:
            step = result.summaries[i]
            claimed = (engine(pair[0]), engine(pair[1]))
            ok = step.pair == claimed and (count is None or count == step.count)
            top = tuple(((shown(a), shown(b)), c) for (a, b), c in result.views.steps[i].top_pairs)
            actual = (shown(step.pair[0]), shown(step.pair[1]))
            claimed_count = result.views.pair_count_at(i, claimed)
            steps.append(ClaimStep(i, pair, count, actual, step.count, claimed_count, ok, top, step.num_tied))
        else:
            ok = False
            steps.append(ClaimStep(i, pair, count, None, None, 0, False, (), 0))
        if not ok and first_wrong is None:
            first_wrong = i
    return MergeCheck(settings, tuple(steps), first_wrong, result.stop_reason, notation, word)


def _lowest_count_if_holds(
    result: TrainResult, pairs: list[tuple[Pair, int | None]], notation: Notation | None
) -> int | None:
    """The lowest count among the merges when the whole claim (in ``notation``) holds for ``result``, else
    ``None``. Reads only the merge table and its counts: no step view is built."""
    if result.num_merges < len(pairs):
        return None
    engine = notation.engine_symbol if notation is not None else str
    for ((left, right), count), merged, true in zip(pairs, result.merges, result.log.counts):
        if merged != (engine(left), engine(right)) or (count is not None and count != true):
            return None
    return min(result.log.counts[: len(pairs)])


def find_settings(
    corpus: Corpus,
    claimed: Claim,
    *,
    unit: str = "char",
    special_tokens: Sequence[str] = (),
    notations: Sequence[Notation] | None = None,
) -> list[CheckSettings]:
    """Every combination of settings under which the whole claim holds.

    Tries each ``(pretokenizer, end_of_word)`` of :data:`PRETOKENIZER_CHOICES`,
    then each notation the claim could be written in (a marker its symbols carry:
    ``_``, ``▁``, ``Ġ`` or ``@@``, see :func:`bpe_core.analysis.notation.notations_of`),
    each with every tie rule of :data:`TIE_RULES` and each minimum frequency of
    :data:`MIN_FREQUENCIES` (one training per combination: a higher minimum
    frequency only stops the same run earlier). With word counts as the corpus,
    the words are taken as already pre-tokenized, so only the marker tells the
    pre-tokenizers apart.

    Args:
        corpus: text or word counts, as for :func:`check_merges`.
        claimed: as for :func:`check_merges`.
        unit: ``"char"`` or ``"byte"``.
        special_tokens: as for :func:`bpe_core.train`.
        notations: the notations to try besides the engine's own (default: those the claim suggests).

    Returns:
        The matching :class:`CheckSettings` (``marker`` set for a notation), in the order tried (empty if none).

    Raises:
        ClaimError, EmptyCorpusError, TypeError: as :func:`check_merges`.
    """
    pairs = _claim_pairs(claimed)
    if notations is None:
        notations = [n for n in notations_of([s for pair, _ in pairs for s in pair]) if n.marker != MARKER]
    ways: list[tuple[Notation | None, dict[str, object]]] = [
        (None, {"pretokenizer": pre, "end_of_word": eow, "unit": unit}) for pre, eow in PRETOKENIZER_CHOICES
    ]
    ways += [(n, {"unit": unit, "end_of_word": n.end_of_word, **n.train_settings(corpus)}) for n in notations]
    found = []
    for (notation, settings), rule in product(ways, TIE_RULES):
        trained = notation.corpus(corpus) if notation is not None else corpus
        result = train(
            trained,
            num_merges=len(pairs),
            tie_break=rule,
            min_frequency=1,
            special_tokens=tuple(special_tokens),
            trace=False,
            **settings,  # type: ignore[arg-type]  # only the merges and their counts are compared
        )
        lowest = _lowest_count_if_holds(result, pairs, notation)
        if lowest is not None:
            marker = notation.marker if notation is not None else None
            pre, eow, used = str(settings["pretokenizer"]), str(settings["end_of_word"]), str(settings["unit"])
            found.extend(CheckSettings(pre, eow, rule, m, used, marker) for m in MIN_FREQUENCIES if lowest >= m)
    return found


def _claim_pairs(claimed: Claim) -> list[tuple[Pair, int | None]]:
    """Normalise a claim to ``[(pair, count or None), ...]``, checking every entry."""
    if isinstance(claimed, (str, bytes)) or not isinstance(claimed, Iterable):
        raise ClaimError("the claim must be a list of pairs such as [('e', 's'), ('es', 't')]")
    out: list[tuple[Pair, int | None]] = []
    for n, item in enumerate(claimed):
        count = None
        if isinstance(item, (tuple, list)) and len(item) == 2 and isinstance(item[0], (tuple, list)):
            item, count = item
        if not (isinstance(item, (tuple, list)) and len(item) == 2 and all(isinstance(s, str) and s for s in item)):
            raise ClaimError(f"claimed merge {n + 1} ({item!r}) is not a pair of two non-empty strings")
        if count is not None and (isinstance(count, bool) or not isinstance(count, int) or count < 0):
            raise ClaimError(f"claimed merge {n + 1}: the count {count!r} is not a non-negative integer")
        out.append(((item[0], item[1]), count))
    if not out:
        raise ClaimError("the claim holds no merge: give at least one pair")
    return out


def _show_pair(pair: Pair) -> str:
    return f"({pair[0]}, {pair[1]})"


# ---------------------------------------------------------------- encodings


def check_encoding(
    merges: Sequence[Pair] | Tokenizer,
    word: str,
    claimed_steps: Sequence[Sequence[str] | str],
    *,
    marker: str | None = None,
    **settings: object,
) -> EncodingCheck:
    """Compare a claimed step-by-step encoding of one word with the three ways of applying a table.

    The ways (:data:`APPLY_ORDERS`): ``rank``, repeatedly merge every occurrence of
    the lowest-ranked adjacent pair (GPT-2 ``encoder.py`` ``bpe()``); ``sequential``,
    the table once in learned order, each rule on all its occurrences (the loop of
    Sennrich et al. 2016, Algorithm 1, replayed); ``leftmost``, the lowest-ranked
    pair's leftmost occurrence only, one merge per state (Hugging Face
    ``Word::merge_all``; tiktoken ``_byte_pair_merge`` merges the same way by bytes).
    All three end in the same tokens on tables learned by BPE; their intermediate
    states differ.

    Args:
        merges: the merge table ``[(left, right), ...]`` in rank order (display
            strings, ``</w>`` for the marker), or a :class:`~bpe_core.Tokenizer`.
        word: the word (one pre-token) to encode.
        claimed_steps: the states the text prints, initial symbols first; each a
            list of symbols or a string of symbols separated by spaces.
        marker: the example's own marker, as for :func:`check_merges`: the merges,
            the word (a start marker is put before it) and the claimed states are
            read in that notation, and the true states printed in it
            (``l o w e s t _`` for ``_``, ``lo@@ w@@ est`` for ``@@``).
        **settings: for a merge list, ``pretokenizer``, ``unit`` and ``end_of_word``
            as for :meth:`bpe_core.Tokenizer.from_merges` (default
            ``whitespace_eow``, ``char``, ``separate``).

    Returns:
        An :class:`EncodingCheck` with ``first_wrong_by_order`` for each way.

    Raises:
        ClaimError: no claimed state, an empty state, or a word that the
            pre-tokenizer cuts into several pre-tokens (or none).
        MergeTableError, OptionError: a table or setting ``from_merges`` refuses, an
            unknown marker, or a setting that contradicts it.
    """
    notation, _counts, settings = _in_notation({}, marker, settings)  # read as word counts: one word
    engine, shown = (notation.engine_symbol, notation.shown) if notation is not None else (str, str)
    if not isinstance(merges, Tokenizer):
        table = [(engine(a), engine(b)) for a, b in merges] if notation is not None else merges
        merges = Tokenizer.from_merges(table, **settings)  # type: ignore[arg-type]
    claimed = tuple(_state(n, s) for n, s in enumerate(claimed_steps))
    if not claimed:
        raise ClaimError("give at least the initial symbols of the word")
    read = tuple(tuple(map(engine, state)) for state in claimed)
    keep = max(len(claimed) + 1, STATES_KEPT)
    engine_word = notation.word(word) if notation is not None else word
    found = {order: _states(merges, engine_word, order, keep) for order in ("rank", "sequential")}
    found["leftmost"] = _leftmost_states(merges, found["rank"][0][0], keep)
    wrong = {order: _first_wrong(read, kept, total) for order, (kept, total) in found.items()}
    states = {order: tuple(tuple(map(shown, s)) for s in kept) for order, (kept, _total) in found.items()}
    totals = {order: total for order, (_kept, total) in found.items()}
    return EncodingCheck(word, claimed, {o: states[o] for o in APPLY_ORDERS}, wrong, totals)


def _state(n: int, state: Sequence[str] | str) -> tuple[str, ...]:
    symbols = tuple(state.split()) if isinstance(state, str) else tuple(state)
    if not symbols or not all(isinstance(s, str) and s for s in symbols):
        raise ClaimError(f"claimed state {n + 1} ({state!r}) is not a list of non-empty symbols")
    return symbols


def _states(tokenizer: Tokenizer, word: str, order: str, keep: int) -> tuple[tuple[tuple[str, ...], ...], int]:
    """The word's first ``keep`` states under ``order`` (initial symbols, then one per rule applied), and how
    many there are in all."""
    pieces = [p for p in tokenizer.encode_with_trace(word, order=order).pieces if not p.special]
    if len(pieces) != 1:
        raise ClaimError(
            f"{word!r} is {len(pieces)} pre-tokens under {tokenizer.pre_tokenizer.name}; give one word (one pre-token)"
        )
    piece = pieces[0]
    return tuple(piece.states(keep - 1)), len(piece.steps) + 1


def _leftmost_states(
    tokenizer: Tokenizer, initial: tuple[str, ...], keep: int
) -> tuple[tuple[tuple[str, ...], ...], int]:
    """Rank order, one merge per state: the leftmost occurrence of the lowest-ranked adjacent pair.

    A heap of ``(rank, position)`` over a linked list of symbols (as Hugging Face
    ``Word::merge_all`` keeps its queue), so a word of ``n`` symbols costs
    ``O(n log n)``; only the first ``keep`` states are written out.

    Returns:
        The first ``keep`` states (initial symbols first), and how many there are in all.
    """
    ranks: dict[Pair, int] = {}
    for rank, pair in enumerate(tokenizer.model.merges):
        ranks.setdefault(pair, rank)
    sym = list(initial)
    nxt = [*range(1, len(sym)), -1]
    prv = list(range(-1, len(sym) - 1))
    heap = [(ranks[p], i) for i, p in enumerate(zip(sym, sym[1:])) if p in ranks]
    heapq.heapify(heap)
    out = [tuple(sym)]
    total = 1
    while heap:
        rank, i = heapq.heappop(heap)
        j = nxt[i] if sym[i] is not None else -1
        if j < 0 or ranks.get((sym[i], sym[j])) != rank:  # type: ignore[arg-type]
            continue  # stale: a symbol of the pair was merged since
        sym[i], sym[j] = sym[i] + sym[j], None  # type: ignore[operator]
        nxt[i] = nxt[j]
        if nxt[i] >= 0:
            prv[nxt[i]] = i
        for left in (prv[i], i):
            if left >= 0 and nxt[left] >= 0 and (r := ranks.get((sym[left], sym[nxt[left]]))) is not None:  # type: ignore[arg-type]
                heapq.heappush(heap, (r, left))
        total += 1
        if len(out) < keep:
            out.append(tuple(s for s in sym if s is not None))
    return tuple(out), total


def _first_wrong(claimed: tuple[tuple[str, ...], ...], true: tuple[tuple[str, ...], ...], total: int) -> int | None:
    """The first claimed state that differs from the true ones (``true`` holds the first ones of ``total``)."""
    for i, state in enumerate(claimed):
        if i >= total or state != true[i]:
            return i
    return None if len(claimed) == total else len(claimed)

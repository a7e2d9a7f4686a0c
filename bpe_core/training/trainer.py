"""BPE training with an incremental pair-count index and a full merge trace.

The algorithm is Sennrich, Haddow & Birch (2016), "Neural Machine Translation
of Rare Words with Subword Units", Algorithm 1: count every adjacent symbol
pair (weighted by word frequency), merge the most frequent pair everywhere,
repeat. Like subword-nmt's ``learn_bpe.py`` it never recounts the corpus: an
index from each pair to the places that hold it means a merge touches only the
words that contain the merged pair.

Here the index goes one level further down, to *positions*: every distinct
word is laid out once in flat arrays as a doubly linked list of symbols, and
each pair maps to the sorted positions where it starts. A merge visits exactly
its occurrences (left to right, so overlapping ones such as ``a a a`` merge as
``aa a``), rewires the list and adjusts the counts of the neighbouring pairs.
This also keeps the ``none`` pre-tokenizer fast, where the whole text is one
"word" of a million symbols. The maximum is taken from a lazy heap whose
entries are re-checked when they reach the top.
"""

from __future__ import annotations

import gc
import heapq
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from itertools import accumulate, chain, filterfalse, islice, repeat
from operator import add, mul

from ..encoding.encoder import Tokenizer
from ..errors import BudgetError
from ..memory import (
    PAIR_BYTES,
    POSITION_BYTES,
    SITE_BYTES,
    SLACK,
    SYMBOL_BYTES,
    SYMBOL_CHAR_BYTES,
    WORD_BYTES,
    MemoryBudget,
    megabytes,
)
from ..registry.options import check_training, marker_style
from ..registry.tie_rules import TieRule, tie_rule
from ..text.corpus import Corpus, word_counts
from ..text.symbols import MARKER_LAYOUTS, SHIFT, UNIT_KINDS, SymbolTable, spell_flat
from ..trace import TrainConfig
from .recorder import MergeLog, Recorder, TraceRecorder, gone_marker
from .result import TrainResult

ProgressCallback = Callable[[int, int], None]
"""``progress(merges_done, merges_requested)``, called as training advances."""

_WATCH_EVERY = 16  # merges between two memory checks (a check reads /proc/self/statm: about 10 µs)

INDEX_CHUNK = 1 << 20
"""Symbols indexed between two checks of the pair index against a memory budget."""

_END = -(1 << 62)
"""The layout's end sentinel (``sym[edge]``): below every pair key's right half, so a word's last key is negative."""

TOKEN_TEXT_LIMIT = 16_000_000
"""Training stops once the learned tokens hold this many characters in all.

Normal runs stay far below it (5,000 merges of words hold about 40,000). It
binds only when merges keep joining ever longer tokens that occur once or
twice (``pretokenizer="none"`` with ``min_frequency=1``), where every merge
copies the whole growing token and memory would grow with the square of the
number of merges.
"""


def train(
    corpus: Corpus,
    *,
    num_merges: int | None = None,
    vocab_size: int | None = None,
    pretokenizer: str = "whitespace_eow",
    unit: str = "char",
    end_of_word: str = "separate",
    tie_break: str = "first_seen",
    min_frequency: int = 2,
    special_tokens: tuple[str, ...] | list[str] = (),
    progress: ProgressCallback | None = None,
    max_memory: int | MemoryBudget | None = None,
    trace: bool = True,
    top_k: int = 10,
    max_tied: int = 10,
    trace_words: int = 6,
) -> TrainResult:
    """Learn a BPE merge table from a corpus, recording every merge.

    Args:
        corpus: raw text, or a word-frequency mapping ``{"low": 5, "lower": 2}``
            taken as already pre-tokenized (insertion order kept).
        num_merges: how many merges to learn. Give exactly one of
            ``num_merges`` and ``vocab_size``.
        vocab_size: the target vocabulary size, counting special tokens + base
            alphabet (+ end-of-word symbols) + merges.
        pretokenizer: a name in :data:`bpe_core.registry.pretokenizers.PRETOKENIZER_SPECS`
            (``whitespace_eow``, ``gpt2``, ``llama3``, ...; see :mod:`bpe_core.text.pretokenize`).
        unit: ``"char"`` (Unicode code points) or ``"byte"`` (UTF-8 bytes, 256
            base symbols shown with GPT-2's byte-to-unicode table).
        end_of_word: ``"separate"`` or ``"attached"``; how ``whitespace_eow``
            marks word ends (ignored by the other pre-tokenizers).
        tie_break: ``first_seen``, ``alphabetical``, ``subword_nmt`` or
            ``hf_tokenizers`` (see :mod:`bpe_core.registry.tie_rules`).
        min_frequency: stop when the best pair occurs fewer times than this.
        special_tokens: strings that get the first ids and are cut out of the
            corpus before counting (never merged).
        progress: optional callback ``progress(done, total)``.
        max_memory: a memory budget in bytes for the whole run. Each phase's
            memory is estimated before it is allocated (the distinct words after
            each slice of text, the layout before the words are spelled, the pair
            index every :data:`INDEX_CHUNK` symbols, each merge before it runs;
            see :mod:`bpe_core.memory`): a phase before the first merge that would
            not fit raises :class:`~bpe_core.memory.MemoryBudgetError`; a merge that
            would not fit, or a process grown past the budget (its RSS, checked
            every few merges), stops training cleanly, keeping the merges learned
            so far and saying why in ``stop_reason``. A
            :class:`~bpe_core.memory.MemoryBudget` instead of a number continues
            one already in use (the command line's, which holds its word counts).
        trace: record words, top pairs, ties and pair-count deltas (False keeps
            only the merge table and counts, for speed).
        top_k: how many top pair counts each step records.
        max_tied: how many tied pairs each step lists (``num_tied`` counts all;
            :meth:`TrainResult.tied_at` rebuilds every one).
        trace_words: how many rewritten words each step records with their
            before/after segmentation, most frequent first
            (:meth:`TrainResult.word_changes` gives all of them).

    Returns:
        A :class:`~bpe_core.training.result.TrainResult` with ``merges``, ``steps``,
        ``vocab`` and ``tokenizer``. Training stops early, with
        ``result.stop_reason`` saying why, when no pair reaches ``min_frequency``
        or the ``max_memory`` budget is reached.

    Raises:
        OptionError: an unknown pre-tokenizer, unit, end-of-word style or tie rule.
        BudgetError: both or neither of ``num_merges``/``vocab_size``, a budget
            outside ``0..MAX_MERGES``/``MAX_VOCAB_SIZE`` (:mod:`bpe_core.registry.options`), or a
            ``vocab_size`` below what the alphabet needs (the message names the minimum).
        SpecialTokenError: more than ``MAX_SPECIAL_TOKENS`` special tokens, or one
            empty or longer than ``MAX_SPECIAL_LENGTH`` characters.
        EmptyCorpusError: the corpus has no words.
        MemoryBudgetError: (a :class:`BudgetError`) counting the words, the
            layout or the pair index would pass ``max_memory``; the message gives
            the estimate, what it is for, and the budget.
        BPEError: byte unit on text holding a lone surrogate (not valid Unicode).
        TypeError: a corpus of the wrong type (see :func:`bpe_core.text.corpus.word_counts`).
    """
    checked = check_training(
        num_merges=num_merges,
        vocab_size=vocab_size,
        pretokenizer=pretokenizer,
        unit=unit,
        end_of_word=end_of_word,
        tie_break=tie_break,
        min_frequency=min_frequency,
        special_tokens=special_tokens,
    )
    config = TrainConfig(**checked)  # type: ignore[arg-type]  # the options as checked: 200.0 is 200
    budget = _check_recording(top_k, max_tied, trace_words, max_memory)
    run = TrainRun(config, trace, top_k, max_tied, trace_words, progress, budget)

    # Training allocates millions of small containers and creates no reference
    # cycles; the cyclic garbage collector would spend a fifth of the time
    # scanning them, so it is paused for the whole run, from counting the words
    # to building the result (reference counting still frees memory). It is
    # switched back on only after the trainer's working state is dropped, so
    # the next collection scans just the result the caller keeps.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _train(corpus, run)
    finally:
        if collecting:
            gc.enable()


@dataclass(frozen=True)
class TrainRun:
    """One call of :func:`train`, validated: the settings it records and how it runs.

    Attributes:
        config: the training settings (exactly one of ``num_merges``/``vocab_size`` set),
            kept as the result's :attr:`~bpe_core.training.result.TrainResult.config`.
        trace, top_k, max_tied, trace_words, progress: as for :func:`train`.
        budget: the memory budget (``None``: none).
    """

    config: TrainConfig
    trace: bool
    top_k: int
    max_tied: int
    trace_words: int
    progress: ProgressCallback | None
    budget: MemoryBudget | None


def _train(corpus: Corpus, run: TrainRun) -> TrainResult:
    """The body of :func:`train`, on validated options, with the garbage collector paused."""
    config, budget = run.config, run.budget
    counts = word_counts(corpus, config.pretokenizer, config.special_tokens, budget)
    eow = marker_style(config.pretokenizer, config.end_of_word)
    if budget is not None:
        _check_layout(counts, config.unit, eow, budget)
    table, sym, lengths = spell_flat(counts, config.unit, eow, config.special_tokens)
    num_merges = _merges_for_budget(table, config.num_merges, config.vocab_size)
    texts = list(counts)
    freqs = list(counts.values())
    recorder = TraceRecorder(run.top_k, run.max_tied, run.trace_words) if run.trace else Recorder()
    rule = tie_rule(config.tie_break)
    state = _Trainer(texts, sym, lengths, freqs, table, rule, config.min_frequency, budget)
    del sym  # the trainer's from now on
    stop_reason = state.run(num_merges, config.min_frequency, run.progress, recorder, budget)
    log = recorder.finish(state.sym)
    del state  # the layout, index and heap: freed before the tokenizer and result are built, to lower the peak
    return _result(corpus, counts, config, table, recorder.merge_ids, recorder.initial_tokens, log, stop_reason)


def _result(
    corpus: Corpus,
    counts: dict[str, int],
    config: TrainConfig,
    table: SymbolTable,
    merge_ids: list[tuple[int, int, int]],
    initial_tokens: int,
    log: MergeLog,
    stop_reason: str | None,
) -> TrainResult:
    """The :class:`TrainResult` of a finished run: the tokenizer, the corpus lengths and the recorder's log."""
    tokenizer = Tokenizer._from_training(table, merge_ids, config)
    num_chars = sum(map(mul, map(len, counts), counts.values()))  # in C: no Python loop per word
    wider = filterfalse(str.isascii, counts)  # an ASCII word has a byte per character (found in C)
    num_bytes = num_chars + sum((len(w.encode("utf-8", "surrogatepass")) - len(w)) * counts[w] for w in wider)
    return TrainResult(
        config=config,
        merges=[(table.strings[a], table.strings[b]) for a, b, _ in merge_ids],
        vocab={s: i for i, s in reversed(list(enumerate(table.strings)))},
        tokenizer=tokenizer,
        alphabet=tuple(table.strings[table.num_special : table.num_base]),
        words=tuple(counts.items()),
        initial_tokens=initial_tokens,
        num_chars=num_chars,
        num_bytes=num_bytes,
        text_chars=len(corpus) if isinstance(corpus, str) else num_chars,
        text_bytes=_utf8_length(corpus) if isinstance(corpus, str) else num_bytes,
        stop_reason=stop_reason,
        symbol_strings=tuple(table.strings),
        hf_ranks=tuple(table.hf_rank),
        log=log,
    )


def _utf8_length(text: str) -> int:
    """Bytes of ``text`` in UTF-8 (lone surrogates as 3 bytes each); no copy made for ASCII text."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def _check_recording(
    top_k: int, max_tied: int, trace_words: int, max_memory: int | MemoryBudget | None
) -> MemoryBudget | None:
    """Check the trace sizes and the memory budget; return the budget (``None``: none).

    Raises:
        BudgetError: a size or budget that is not an int, or below its minimum.
    """
    _check_int("top_k", top_k, 1)
    _check_int("max_tied", max_tied, 1)
    _check_int("trace_words", trace_words, 0)
    if max_memory is None or isinstance(max_memory, MemoryBudget):
        return max_memory
    _check_int("max_memory", max_memory, 1)
    return MemoryBudget(max_memory)


def _check_layout(counts: dict[str, int], unit: str, eow: str | None, budget: MemoryBudget) -> None:
    """Put the training layout of ``counts`` on the budget before it is spelled (:data:`POSITION_BYTES` a symbol).

    Raises:
        MemoryBudgetError: it does not fit; the message gives the symbols and words.
    """
    words = len(counts)
    if UNIT_KINDS[unit].byte_level:
        symbols = sum(len(w.encode("utf-8", "surrogatepass")) for w in counts)
    else:
        symbols = sum(map(len, counts))
    symbols += words * len(MARKER_LAYOUTS[eow].own_symbols)  # a separate </w> after each word
    nbytes = symbols * POSITION_BYTES + words * WORD_BYTES
    budget.need(nbytes, f"the training layout of {symbols:,} symbols in {words:,} distinct words")
    budget.hold(nbytes)


def _merges_for_budget(table: SymbolTable, num_merges: int | None, vocab_size: int | None) -> int:
    """How many merges to learn: ``num_merges``, or what ``vocab_size`` leaves after the alphabet.

    Raises:
        BudgetError: ``vocab_size`` below the special tokens plus the base symbols (naming the minimum).
    """
    if vocab_size is None:
        assert num_merges is not None
        return num_merges
    if vocab_size < len(table):
        raise BudgetError(
            f"vocab_size={vocab_size} is below the minimum of {len(table)} for this corpus: "
            f"{table.num_special} special tokens + {len(table) - table.num_special} base symbols; "
            f"use vocab_size >= {len(table)}"
        )
    return vocab_size - len(table)


def _times(count: int) -> str:
    """``count`` as "1 time" or "2,345 times", for the stop messages."""
    return "1 time" if count == 1 else f"{count:,} times"


def _check_int(name: str, value: object, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BudgetError(f"{name} must be an int, got {type(value).__name__}")
    if value < minimum:
        raise BudgetError(f"{name} must be at least {minimum}, got {value}")


def _layout(sym: list[int], lengths: list[int]) -> tuple[list[int], list[int], list[int], list[int], list[int]]:
    """Link the words spelled one after another in ``sym``: ``(nxt, prv, positions, starts, ends)``.

    ``sym`` gets the sentinel :data:`_END` appended, at position ``sum(lengths)``;
    ``nxt``/``prv`` link each position to its neighbours in the word, and hold
    the sentinel's position at a word's edge. ``positions[p]`` is ``p``.

    These are lists, not C arrays: the merge loop reads and writes them several
    times per site, and a list does that about five times faster than an array
    (which makes an int object on every read). Their ints are shared:
    ``nxt[p]``, ``prv[p]`` and the pair index all refer to the one int object of
    each position (28 bytes, plus 8 bytes per reference).
    """
    size = len(sym)
    sym.append(_END)
    ends = list(accumulate(lengths))
    starts = [0, *ends[:-1]]
    positions = list(range(size + 1))
    edge = positions[size]
    nxt = positions[1:]
    prv = [edge, *positions[: size - 1]] if size else []
    for start, end in zip(starts, ends):
        nxt[end - 1] = edge
        prv[start] = edge
    return nxt, prv, positions, starts, ends


def _pair_index(
    sym: list[int], ends: list[int], positions: list[int], budget: MemoryBudget | None = None
) -> dict[int, list[int]]:
    """Pair key -> the sorted positions where the pair starts, in one pass over the layout of :func:`_layout`.

    A word's last position pairs with the end sentinel, so its key is negative
    and dropped afterwards: no per-word test in the loop. The positions are the
    int objects of ``positions``, shared with ``nxt``/``prv``, so the index adds
    only its list slots. With a ``budget``, the distinct pairs are put on it
    every :data:`INDEX_CHUNK` symbols (:data:`PAIR_BYTES` each).

    Raises:
        MemoryBudgetError: the pairs found so far pass the budget.
    """
    right = sym[1:]  # right[p] is sym[p + 1], or the sentinel where p ends its word
    for end in ends:
        right[end - 1] = _END
    keys = map(add, map(mul, sym, repeat(SHIFT)), right)
    index: defaultdict[int, list[int]] = defaultdict(list)  # index[key] creates a missing list without a call
    pairs = zip(positions, keys)
    size = len(right)
    chunk = INDEX_CHUNK if budget is not None else size
    for done in range(chunk, size + chunk, chunk or 1):
        for p, key in islice(pairs, chunk) if budget is not None else pairs:  # the hot loop: one pass
            index[key].append(p)
        if budget is not None:
            found = f"{len(index):,} distinct pairs in the first {min(done, size):,} of {size:,} symbols"
            budget.need(len(index) * PAIR_BYTES, f"the pair index ({found})")
    del right
    if budget is not None:
        budget.hold(len(index) * PAIR_BYTES)
    for key in [key for key in index if key < 0]:
        del index[key]
    index.default_factory = None  # from here on a missing pair is a KeyError, as in a plain dict
    return index


class _Trainer:
    """Mutable training state: the linked-list layout, pair counts, index and heap.

    Layout: position ``p`` holds symbol ``sym[p]`` (a marker above every
    symbol id once merged away, see :func:`bpe_core.training.recorder.gone_marker`),
    with neighbours ``prv[p]``/``nxt[p]`` (``edge`` at a word's edge); word ``w``
    holds positions ``starts[w]`` to ``ends[w] - 1``.
    ``index[k]`` is a superset of the positions where pair ``k`` starts:
    entries that stopped holding the pair are dropped lazily, when read, which
    saves a removal per neighbour update. Every index entry is a sorted list: a
    pair gains all its occurrences at once, at the start or in the merge that
    forms it (its new symbol did not exist before), and that merge visits its
    sites left to right, so appending keeps the order.
    """

    def __init__(
        self,
        texts: list[str],
        sym: list[int],
        lengths: list[int],
        freqs: list[int],
        table: SymbolTable,
        rule: TieRule,
        floor: int = 1,
        budget: MemoryBudget | None = None,
    ):
        self.texts, self.freqs, self.table, self.rule = texts, freqs, table, rule
        nxt, prv, positions, starts, ends = _layout(sym, lengths)
        index = _pair_index(sym, ends, positions, budget)
        self.edge = positions[-1]  # what nxt/prv hold at a word's edge: the position of the end sentinel
        del positions
        self.word_of = list(chain.from_iterable(map(repeat, range(len(lengths)), lengths)))  # one int per word
        weight = list(chain.from_iterable(map(repeat, freqs, lengths)))  # freed once counted
        wget = weight.__getitem__
        self.counts = {key: sum(map(wget, members)) for key, members in index.items()}
        del weight
        self.sym, self.nxt, self.prv, self.index = sym, nxt, prv, index
        self.starts, self.ends = starts, ends
        self.total_tokens = sum(n * f for n, f in zip(lengths, freqs))
        self.token_text = 0  # characters held by the learned tokens (see TOKEN_TEXT_LIMIT)
        self.floor = floor
        self._start_heap(rule, table)

    def _start_heap(self, rule: TieRule, table: SymbolTable) -> None:
        """Key every pair by the tie rule and heap them: ``(-count, tie key, pair key)``, smallest first.

        A pair's count never grows once it exists (a merge forms only pairs that
        hold its new symbol), so a pair below the floor (``min_frequency``) can
        never be merged: it stays counted but is left out of the heap and the
        index (most pairs of a corpus occur once). ``hf_tokenizers`` keys a pair
        by its symbols' Hugging Face ids
        (``HfTokenizersRule.pair_key``); where those are our ids (the char unit)
        the tie key is the pair key itself, and ``identity`` skips computing it.
        """
        self.first_seen = rule.positional
        self.keys: list[object] = []
        self.pair_key = None
        self.identity = False
        if not self.first_seen:
            self.keys = [rule.symbol_key(s, r) for s, r in zip(table.strings, table.hf_rank)]
            self.pair_key = rule.pair_key(self.keys)
            self.identity = rule.identity_keys(self.keys)
        index, counts, floor = self.index, self.counts, self.floor
        for k in [k for k, c in counts.items() if c < floor]:
            del index[k]
        if self.pair_key is None:
            self.heap = [(-counts[k], held[0], k) for k, held in index.items()]
        elif self.identity:
            self.heap = [(-counts[k], k, k) for k in index]
        else:
            pair_key = self.pair_key
            keys = (pair_key(*divmod(k, SHIFT)) for k in index)
            self.heap = [(-counts[k], k if key == k else key, k) for k, key in zip(index, keys)]
        heapq.heapify(self.heap)

    def _first_position(self, k: int) -> int:
        """The first position that still holds pair ``k`` (pruning stale index entries)."""
        a, b = divmod(k, SHIFT)
        sym, nxt = self.sym, self.nxt
        held = self.index[k]  # sorted: drop the stale head
        j = 0
        while not (sym[held[j]] == a and sym[nxt[held[j]]] == b):
            j += 1
        if j:
            del held[:j]
        return held[0]

    def _push_fresh(self, fresh: list[int]) -> None:
        """Push the pairs a merge formed onto the heap, keyed by the tie rule (smallest wins)."""
        heap, counts, push = self.heap, self.counts, heapq.heappush
        if self.pair_key is None:
            first = self._first_position
            for k in fresh:
                push(heap, (-counts[k], first(k), k))
        elif self.identity:
            for k in fresh:
                push(heap, (-counts[k], k, k))
        else:
            pair_key = self.pair_key
            for k in fresh:
                key = pair_key(*divmod(k, SHIFT))
                push(heap, (-counts[k], k if key == k else key, k))  # share the int when equal (saves memory)

    def _pop_valid(self) -> tuple[int, object, int] | None:
        """Pop the best heap entry after bringing stale entries up to date.

        Entries are lower bounds: a pair's count only falls once it exists (new
        pairs always hold the newest symbol), and its first position only moves
        right, so an entry that is exact when it reaches the top is the best.
        """
        heap, counts, sym, nxt = self.heap, self.counts, self.sym, self.nxt
        while heap:
            negc, key, k = heap[0]
            c = counts.get(k)
            if c is None:
                heapq.heappop(heap)
            elif c != -negc:
                heapq.heapreplace(heap, (-c, key, k))
            elif self.first_seen and not (sym[key] == k // SHIFT and sym[nxt[key]] == k % SHIFT):  # type: ignore[index]
                heapq.heapreplace(heap, (negc, self._first_position(k), k))
            else:
                return heapq.heappop(heap)
        return None

    def run(
        self,
        num_merges: int,
        min_frequency: int,
        progress: ProgressCallback | None,
        recorder: Recorder,
        budget: MemoryBudget | None = None,
    ) -> str | None:
        """Learn up to ``num_merges`` merges, each handed to ``recorder``; return why it stopped early, or None.

        With a ``budget``, each merge is put on it before it runs (:meth:`_merge_cost`),
        and the process's growth is read every few merges.
        """
        recorder.start(self.counts, self.sym, self.starts, self.total_tokens, len(self.table))
        every = max(1, num_merges // 200)
        watch = None if budget is None else budget.watch
        for step in range(num_merges):
            if watch is not None and step % _WATCH_EVERY == 0 and (over := watch.exceeded()):
                return f"stopped after {step:,} of {num_merges:,} merges: {over}"
            best = self._pop_valid()
            stop = self._stop_reason(step, num_merges, best, min_frequency)
            if stop:
                return stop
            assert best is not None
            if budget is not None and (over := self._merge_cost(best[2], budget)):
                return f"stopped after {step:,} of {num_merges:,} merges: {over}"
            pk = best[2]
            a, b = divmod(pk, SHIFT)
            new = self.table.add_merge(a, b)
            self._grow(new)
            recorder.record(a, b, new, -best[0], *self._merge(pk, a, b, new, -best[0], gone_marker(step)))
            if progress is not None and (step % every == 0 or step == num_merges - 1):
                progress(step + 1, num_merges)
        return None

    def _merge_cost(self, pk: int, budget: MemoryBudget) -> str | None:
        """Put the merge of pair ``pk`` on the budget; say why not if it does not fit.

        A merge keeps at most :data:`SITE_BYTES` per occurrence it rewrites (its
        index entry lists a superset of them) and the new symbol, which holds
        the pair's text (:data:`SYMBOL_BYTES`).
        """
        sites = len(self.index[pk])
        a, b = divmod(pk, SHIFT)
        strings = self.table.strings
        nbytes = sites * SITE_BYTES + SYMBOL_BYTES + SYMBOL_CHAR_BYTES * (len(strings[a]) + len(strings[b]))
        if budget.fits(nbytes):
            budget.hold(nbytes)
            return None
        return (
            f"the next merge rewrites up to {sites:,} occurrences and would bring the run to about "
            f"{megabytes((budget.held + nbytes) * SLACK)} MB, over the memory budget of {megabytes(budget.budget)} MB"
        )

    def _grow(self, new: int) -> None:
        """Account for the new symbol: its tie key (static rules) and its text."""
        string = self.table.strings[new]
        if self.pair_key is not None:
            key = self.rule.symbol_key(string, self.table.hf_rank[new])
            self.keys.append(key)
            self.identity = self.identity and key == new  # if not, keys from here on are computed (ints all the same)
        self.token_text += len(string)

    def _stop_reason(self, step: int, num_merges: int, best: tuple | None, min_frequency: int) -> str | None:
        """Why training must stop before merge ``step``, or ``None`` to go on."""
        if best is not None and -best[0] >= min_frequency and self.token_text <= TOKEN_TEXT_LIMIT:
            return None  # the usual case, decided before any message is formatted
        head = f"stopped after {step:,} of {num_merges:,} merges"
        if not self.counts:
            return f"{head}: no pair is left (every word is a single token)"
        if best is None or -best[0] < min_frequency:  # the heap holds only pairs that reached the floor: ask all
            top = max(self.counts.values())
            return f"{head}: the most frequent pair occurs {_times(top)}, below min_frequency={min_frequency:,}"
        if self.token_text > TOKEN_TEXT_LIMIT:
            return (
                f"{head}: the learned tokens hold {self.token_text:,} characters in all, over the limit of "
                f"{TOKEN_TEXT_LIMIT:,}; the pairs left occur {_times(-best[0])} each, so every further merge "
                "only makes an ever longer token (raise min_frequency or use a pre-tokenizer)"
            )
        return None

    def _merge(self, pk: int, a: int, b: int, new: int, count: int, gone: int) -> tuple[int, dict, list[int]]:
        """Merge every occurrence of pair ``pk = (a, b)`` into ``new``; return ``(replaced, changes, rewritten)``.

        ``changes`` maps pair key -> count change (never 0), in the order pairs
        were first touched; ``rewritten`` lists the words changed, in corpus
        order. A slot merged away keeps ``gone`` (this merge's marker) for the trace.

        The loop over the sites rewires the list and notes, per neighbour
        symbol, the weight and positions of the pairs it changed: the left
        neighbour ``x`` (noted under ``x``) turns ``(x, a)`` at ``p`` into
        ``(x, new)``, the right one ``y`` (under ``~y``) turns ``(b, y)`` into
        ``(new, y)``. Both changes of a neighbour carry the same weight, so
        :meth:`_changes` writes the two pair keys once per neighbour, not once
        per site.
        """
        sym, nxt, prv, edge = self.sym, self.nxt, self.prv, self.edge
        word_of, ends, freqs = self.word_of, self.ends, self.freqs
        rewritten: list[int] = []
        end = -1  # the current word's end: sites come in position order, so a site past it starts a new word
        f = replaced = 0
        touched: dict[int, list[int]] = {}  # neighbour (x, or ~y) -> [weight, positions...], in first-touch order
        tget = touched.get
        for i in self.index.pop(pk):  # the hot loop: one pass over the pair's sites, kept inline for speed
            j = nxt[i]
            if sym[i] != a or sym[j] != b:
                continue  # a stale index entry, or consumed by an overlapping occurrence
            if i >= end:
                w = word_of[i]
                end = ends[w]
                f = freqs[w]
                rewritten.append(w)
            replaced += f
            p = prv[i]
            if p != edge:  # (x, a) becomes (x, new)
                x = sym[p]
                held = tget(x)
                if held is None:
                    touched[x] = [f, p]
                else:
                    held[0] += f
                    held.append(p)
            n = nxt[j]
            if n != edge:  # (b, y) becomes (new, y)
                y = ~sym[n]
                held = tget(y)
                if held is None:
                    touched[y] = [f, i]
                else:
                    held[0] += f
                    held.append(i)
                prv[n] = i
            nxt[i] = n
            sym[i] = new
            sym[j] = gone
        delta = self._changes(touched, a, b, new)
        delta[pk] = -count
        self._apply(delta)
        self.total_tokens -= replaced
        return replaced, delta, rewritten

    def _changes(self, touched: dict[int, list[int]], a: int, b: int, new: int) -> dict[int, int]:
        """The pair-count changes of one merge from its noted neighbours; index the new pairs' positions.

        Returns ``{pair key: change}`` (zeros kept) in the order a site-by-site
        update would first touch the keys: a neighbour's old key, then its new
        one, where its first site put them. Every pair holding ``new`` is new
        (the symbol did not exist before), so its index entry is the noted list
        of positions, sorted since sites come left to right.
        """
        index = self.index
        delta: dict[int, int] = {}
        dget = delta.get
        new_s, b_s = new * SHIFT, b * SHIFT
        for key, held in touched.items():
            f = held[0]
            del held[0]
            if key >= 0:
                x = key * SHIFT
                old, made = x + a, x + new
            else:
                old, made = b_s + ~key, new_s + ~key
            delta[old] = dget(old, 0) - f
            delta[made] = dget(made, 0) + f
            index[made] = held
        return delta

    def _apply(self, delta: dict[int, int]) -> None:
        """Apply count changes; drop pairs that reach zero, push the ones that appear; drop the zero changes."""
        counts, index, floor = self.counts, self.index, self.floor
        cget = counts.get
        fresh = []
        unchanged = []  # pairs made and unmade in the same merge
        for k, d in delta.items():
            if not d:
                unchanged.append(k)
                continue
            old = cget(k, 0)
            c = old + d
            if c:
                counts[k] = c
                if not old:
                    if c >= floor:
                        fresh.append(k)
                    else:
                        index.pop(k, None)  # below the floor for good (see _start_heap)
            else:
                del counts[k]
                index.pop(k, None)
        for k in unchanged:
            del delta[k]
        self._push_fresh(fresh)

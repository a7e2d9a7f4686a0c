"""BPE training with an incremental pair-count index and a full merge trace.

The algorithm is Sennrich, Haddow & Birch (2016), "Neural Machine Translation
of Rare Words with Subword Units", Algorithm 1: count every adjacent symbol
pair (weighted by word frequency), merge the most frequent pair everywhere,
repeat. Like subword-nmt's ``learn_bpe.py`` it never recounts the corpus: an
index from each pair to the places that hold it means a merge touches only the
words that contain the merged pair.

Here the index goes one level further down, to *positions*: every distinct
word is laid out once in flat arrays as a doubly linked list of symbols, and
each pair maps to the sorted list of positions where it starts. A merge visits exactly
its occurrences (left to right, so overlapping ones such as ``a a a`` merge as
``aa a``), rewires the list and adjusts the counts of the neighbouring pairs.
This also keeps the ``none`` pre-tokenizer fast, where the whole text is one
"word" of a million symbols. The maximum is taken from a lazy heap whose
entries are re-checked when they reach the top.
"""

from __future__ import annotations

import gc
import heapq
from array import array
from collections import Counter
from collections.abc import Callable
from itertools import accumulate, chain, repeat

from .corpus import Corpus, word_counts
from .errors import BudgetError
from .memory import MemoryWatch
from .options import check_training
from .result import TrainResult
from .symbols import SHIFT, SymbolTable, spell_corpus
from .tiebreak import StaticKeys, describe_key
from .trace import MergeStep, TrainConfig, WordChange

ProgressCallback = Callable[[int, int], None]
"""``progress(merges_done, merges_requested)``, called as training advances."""

WORD_TRACE_LIMIT = 64
"""Words longer than this (in symbols) are recorded as excerpts in the trace."""

_EXCERPT_BEFORE = 8
_EXCERPT_LEN = 32
_SLICE_LIMIT = 4 * WORD_TRACE_LIMIT  # words up to this long (as spelled at the start) are read by slicing
_WATCH_EVERY = 16  # merges between two memory checks (a check reads /proc/self/statm: about 10 µs)
_LIVE = (-1).__ne__  # filter predicate: a position still holds a symbol


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
    max_memory: int | None = None,
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
        pretokenizer: see :mod:`bpe_core.pretokenize` (``whitespace_eow``,
            ``whitespace``, ``trailing_space``, ``gpt2``, ``gpt4``, ``none``).
        unit: ``"char"`` (Unicode code points) or ``"byte"`` (UTF-8 bytes, 256
            base symbols shown with GPT-2's byte-to-unicode table).
        end_of_word: ``"separate"`` or ``"attached"``; how ``whitespace_eow``
            marks word ends (ignored by the other pre-tokenizers).
        tie_break: ``first_seen``, ``alphabetical``, ``subword_nmt`` or
            ``hf_tokenizers`` (see :mod:`bpe_core.tiebreak`).
        min_frequency: stop when the best pair occurs fewer times than this.
        special_tokens: strings that get the first ids and are cut out of the
            corpus before counting (never merged).
        progress: optional callback ``progress(done, total)``.
        max_memory: a memory budget in bytes: training stops cleanly, keeping the
            merges learned so far and saying why in ``stop_reason``, once the
            process has grown by more than this since training began (checked
            every few merges; see :class:`bpe_core.memory.MemoryWatch`).
        trace: record words, top pairs, ties and pair-count deltas (False keeps
            only the merge table and counts, for speed).
        top_k: how many top pair counts each step records.
        max_tied: how many tied pairs each step lists (``num_tied`` counts all;
            :meth:`TrainResult.tied_at` rebuilds every one).
        trace_words: how many rewritten words each step records with their
            before/after segmentation, most frequent first
            (:meth:`TrainResult.word_changes` gives all of them).

    Returns:
        A :class:`~bpe_core.result.TrainResult` with ``merges``, ``steps``,
        ``vocab`` and ``tokenizer``. Training stops early, with
        ``result.stop_reason`` saying why, when no pair reaches ``min_frequency``
        or the ``max_memory`` budget is reached.

    Raises:
        OptionError: an unknown pre-tokenizer, unit, end-of-word style or tie rule.
        BudgetError: both or neither of ``num_merges``/``vocab_size``, a budget
            outside ``0..MAX_MERGES``/``MAX_VOCAB_SIZE`` (:mod:`bpe_core.options`), or a
            ``vocab_size`` below what the alphabet needs (the message names the minimum).
        SpecialTokenError: more than ``MAX_SPECIAL_TOKENS`` special tokens, or one
            empty or longer than ``MAX_SPECIAL_LENGTH`` characters.
        EmptyCorpusError: the corpus has no words.
        BPEError: byte unit on text holding a lone surrogate (not valid Unicode).
        TypeError: a corpus of the wrong type (see :func:`bpe_core.corpus.word_counts`).
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
    specials: tuple[str, ...] = checked["special_tokens"]  # type: ignore[assignment]
    _check_int("top_k", top_k, 1)
    _check_int("max_tied", max_tied, 1)
    _check_int("trace_words", trace_words, 0)
    if max_memory is not None:
        _check_int("max_memory", max_memory, 1)

    # Training allocates millions of small containers and creates no reference
    # cycles; the cyclic garbage collector would spend a fifth of the time
    # scanning them, so it is paused for the whole run, from counting the words
    # to building the result (reference counting still frees memory). It is
    # switched back on only after the trainer's working state is dropped, so
    # the next collection scans just the result the caller keeps.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _train(
            corpus,
            num_merges,
            vocab_size,
            pretokenizer,
            unit,
            end_of_word,
            tie_break,
            min_frequency,
            specials,
            progress,
            None if max_memory is None else MemoryWatch(max_memory),
            trace,
            top_k,
            max_tied,
            trace_words,
        )
    finally:
        if collecting:
            gc.enable()


def _train(
    corpus: Corpus,
    num_merges: int | None,
    vocab_size: int | None,
    pretokenizer: str,
    unit: str,
    end_of_word: str,
    tie_break: str,
    min_frequency: int,
    specials: tuple[str, ...],
    progress: ProgressCallback | None,
    watch: MemoryWatch | None,
    trace: bool,
    top_k: int,
    max_tied: int,
    trace_words: int,
) -> TrainResult:
    """The body of :func:`train`, on validated options, with the garbage collector paused."""
    counts = word_counts(corpus, pretokenizer, specials)
    eow = end_of_word if pretokenizer == "whitespace_eow" else None
    table, words = spell_corpus(counts, unit, eow, specials)

    if vocab_size is not None:
        if vocab_size < len(table):
            raise BudgetError(
                f"vocab_size={vocab_size} is below the minimum of {len(table)} for this corpus: "
                f"{table.num_special} special tokens + {len(table) - table.num_special} base symbols; "
                f"use vocab_size >= {len(table)}"
            )
        num_merges = vocab_size - len(table)
    assert num_merges is not None

    config = TrainConfig(
        pretokenizer=pretokenizer,
        unit=unit,
        end_of_word=end_of_word,
        tie_break=tie_break,
        min_frequency=min_frequency,
        special_tokens=specials,
        num_merges=num_merges if vocab_size is None else None,
        vocab_size=vocab_size,
    )
    texts = list(counts)
    freqs = list(counts.values())
    state = _Trainer(texts, words, freqs, table, tie_break, trace, top_k, max_tied, trace_words)
    del words  # the trainer holds its own flat copy
    initial_counts = state.snapshot_counts() if trace else b""
    initial_tokens = state.total_tokens
    stop_reason = state.run(num_merges, min_frequency, progress, watch)

    from .encoder import Tokenizer  # late import: the tokenizer module imports this one's types

    tokenizer = Tokenizer._from_training(table, state.merge_ids, config)
    num_chars = sum(len(w) * f for w, f in counts.items())
    num_bytes = sum(len(w.encode("utf-8", "surrogatepass")) * f for w, f in counts.items())
    return TrainResult(
        config=config,
        merges=[(table.strings[a], table.strings[b]) for a, b, _ in state.merge_ids],
        steps=state.steps,
        vocab={s: i for i, s in reversed(list(enumerate(table.strings)))},
        tokenizer=tokenizer,
        alphabet=tuple(table.strings[table.num_special : table.num_base]),
        words=tuple(zip(texts, freqs)),
        initial_tokens=initial_tokens,
        num_chars=num_chars,
        num_bytes=num_bytes,
        text_chars=len(corpus) if isinstance(corpus, str) else num_chars,
        text_bytes=len(corpus.encode("utf-8", "surrogatepass")) if isinstance(corpus, str) else num_bytes,
        stop_reason=stop_reason,
        pair_counts_initial=initial_counts,
        pair_count_deltas=tuple(state.deltas),
        changed_words=tuple(state.changed_words),
        symbol_strings=tuple(table.strings),
    )


def _short(text: str, limit: int = 24) -> str:
    """``repr`` of a word, cut to ``limit`` characters for messages."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "…"


def _check_int(name: str, value: object, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BudgetError(f"{name} must be an int, got {type(value).__name__}")
    if value < minimum:
        raise BudgetError(f"{name} must be at least {minimum}, got {value}")


class _Trainer:
    """Mutable training state: the linked-list layout, pair counts, index and heap.

    Layout: position ``p`` holds symbol ``sym[p]`` (``-1`` once merged away),
    with neighbours ``prv[p]``/``nxt[p]`` (``-1`` at a word's edge) in word
    ``wid[p]``. ``index[k]`` is a superset of the positions where pair ``k``
    starts: entries that stopped holding the pair are dropped lazily, when
    read, which saves a removal per neighbour update. Every index entry
    is a sorted list: a pair gains all its occurrences at once, at the start
    or in the merge that forms it (its new symbol did not exist before), and
    that merge visits its sites left to right, so appending keeps the order.
    """

    def __init__(
        self,
        texts: list[str],
        words: list[list[int]],
        freqs: list[int],
        table: SymbolTable,
        rule: str,
        trace: bool,
        top_k: int,
        max_tied: int,
        trace_words: int,
    ) -> None:
        self.texts = texts
        self.freqs = freqs
        self.table = table
        self.rule = rule
        self.trace = trace
        self.top_k = top_k
        self.max_tied = max_tied
        self.trace_words = trace_words
        self.first_seen = rule == "first_seen"
        self.static = None if self.first_seen else StaticKeys(rule, table)
        self.pair_key = None if self.static is None else self.static.pair_key()

        lengths = list(map(len, words))
        sym = list(chain.from_iterable(words))
        size = len(sym)
        ends = list(accumulate(lengths))
        wstart = [0, *ends[:-1]]
        nxt = list(range(1, size + 1))
        prv = list(range(-1, size - 1))
        for start, end in zip(wstart, ends):
            nxt[end - 1] = -1
            prv[start] = -1
        wid = list(chain.from_iterable(repeat(w, n) for w, n in enumerate(lengths)))
        weight = list(chain.from_iterable(repeat(f, n) for f, n in zip(freqs, lengths)))
        # The pair starting at each position, -1 where a word ends. One pass
        # groups the positions by pair into lists (in position order, so each
        # list is sorted and its head is the pair's first occurrence), at about
        # half the cost of sorting the positions by pair and grouping the run.
        keys = [a * SHIFT + b for a, b in zip(sym, sym[1:])]
        keys.append(-1)
        for end in ends:
            keys[end - 1] = -1
        index: dict[int, list[int]] = {}
        group = index.setdefault
        for p, key in enumerate(keys):
            group(key, []).append(p)
        index.pop(-1, None)
        del keys
        wget = weight.__getitem__
        counts = {key: sum(map(wget, members)) for key, members in index.items()}
        sym.append(-2)  # sentinel: sym[nxt[p]] is -2 when p ends its word (nxt[p] == -1)
        self.sym, self.nxt, self.prv, self.wid, self.weight = sym, nxt, prv, wid, weight
        self.wstart, self.wend, self.wlen = wstart, ends, lengths
        self.counts, self.index = counts, index
        self.total_tokens = sum(n * f for n, f in zip(lengths, freqs))
        self.hist: dict[int, int] = dict(Counter(counts.values())) if trace else {}  # count -> pairs (num_tied)
        if self.pair_key is None:
            self.heap = [(-c, index[k][0], k) for k, c in counts.items()]
        else:
            pair_key = self.pair_key
            self.heap = [(-c, pair_key(k // SHIFT, k % SHIFT), k) for k, c in counts.items()]
        heapq.heapify(self.heap)
        self.merge_ids: list[tuple[int, int, int]] = []
        self.pair_strings: dict[int, tuple[str, str]] = {}
        self.described: dict[int, str] = {}
        self.steps: list[MergeStep] = []
        self.deltas: list[bytes] = []
        self.changed_words: list[bytes] = []

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
        else:
            pair_key = self.pair_key
            for k in fresh:
                a, b = divmod(k, SHIFT)
                push(heap, (-counts[k], pair_key(a, b), k))

    def snapshot_counts(self) -> bytes:
        """All current pair counts, packed as ``array('q', [key, count, ...])`` bytes, by pair key."""
        return array("q", chain.from_iterable(sorted(self.counts.items()))).tobytes()

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
        self, num_merges: int, min_frequency: int, progress: ProgressCallback | None, watch: MemoryWatch | None = None
    ) -> str | None:
        """Learn up to ``num_merges`` merges; return why training stopped early, or ``None``."""
        every = max(1, num_merges // 200)
        for step in range(num_merges):
            if watch is not None and step % _WATCH_EVERY == 0 and (over := watch.exceeded()):
                return f"stopped after {step:,} of {num_merges:,} merges: {over}"
            best = self._pop_valid()
            if best is None:
                return f"stopped after {step} of {num_merges} merges: no pair is left (every word is a single token)"
            if -best[0] < min_frequency:
                return (
                    f"stopped after {step} of {num_merges} merges: the most frequent pair occurs "
                    f"{-best[0]} time(s), below min_frequency={min_frequency}"
                )
            self._merge_step(step, best)
            if progress is not None and (step % every == 0 or step == num_merges - 1):
                progress(step + 1, num_merges)
        return None

    def _ranked(self, best: tuple[int, object, int]) -> list[tuple[int, object, int]]:
        """The winner, then the next entries in priority order (top pairs, ties), left in the heap."""
        count = -best[0]
        top_k = self.top_k
        want = max(top_k, self.max_tied)
        pop = self._pop_valid
        ranked = [best]
        while len(ranked) < want:
            if len(ranked) >= top_k and -ranked[-1][0] < count:
                break
            entry = pop()
            if entry is None:
                break
            ranked.append(entry)
        heap, push = self.heap, heapq.heappush
        for entry in ranked[1:]:
            push(heap, entry)
        return ranked

    def _pair(self, k: int) -> tuple[str, str]:
        """Pair ``k`` as display strings, one shared tuple per pair (the same pairs top many steps)."""
        pair = self.pair_strings.get(k)
        if pair is None:
            strings = self.table.strings
            pair = self.pair_strings[k] = (strings[k // SHIFT], strings[k % SHIFT])
        return pair

    def _record_ties(self, best: tuple[int, object, int]) -> tuple[tuple, tuple, tuple]:
        """``(top_pairs, tied, tie_keys)`` for the step about to merge ``best``."""
        ranked = self._ranked(best)
        shared, pair = self.pair_strings, self._pair
        pairs = [shared.get(k) or pair(k) for _c, _key, k in ranked]
        top_k = self.top_k
        top_pairs = tuple(zip(pairs[:top_k], [-c for c, _key, _k in ranked[:top_k]]))
        # ranked is in priority order, so the pairs tied with the winner lead it
        num = 1
        while num < len(ranked) and ranked[num][0] == best[0]:
            num += 1
        num = min(num, self.max_tied)
        tied = tuple(pairs[:num])
        if self.first_seen:
            wid, wstart, texts = self.wid, self.wstart, self.texts
            tie_keys = tuple(
                f"first seen in word #{wid[p]} {_short(texts[wid[p]])} at offset {p - wstart[wid[p]]}"  # type: ignore[operator]
                for _c, p, _k in ranked[:num]
            )
        else:
            described = self.described
            keys = []
            for _c, _key, k in ranked[:num]:
                text = described.get(k)
                if text is None:
                    text = described[k] = describe_key(self.rule, self.table, k // SHIFT, k % SHIFT)
                keys.append(text)
            tie_keys = tuple(keys)
        return top_pairs, tied, tie_keys

    def _merge_step(self, step: int, best: tuple[int, object, int]) -> None:
        table = self.table
        strings = table.strings
        pk = best[2]
        a, b = divmod(pk, SHIFT)
        count = -best[0]
        trace = self.trace
        if trace:
            num_tied = self.hist.get(count, 1)
            top_pairs, tied, tie_keys = self._record_ties(best)
        else:
            num_tied, top_pairs, tied, tie_keys = 1, (), ((strings[a], strings[b]),), ()

        new = table.add_merge(a, b)
        if self.static is not None:
            self.static.grow()
        self.merge_ids.append((a, b, new))

        sym, nxt, prv, wid, freqs, weight = self.sym, self.nxt, self.prv, self.wid, self.freqs, self.weight
        index, counts, wlen = self.index, self.counts, self.wlen
        rewritten: dict[int, tuple[int, int]] = {}  # word -> (leftmost merge site, length before)
        cur_w = -1
        delta: dict[int, int] = {}  # count changes, in the order the pairs are first touched
        dget = delta.get
        iget = index.get
        replaced = 0
        new_s = new * SHIFT
        b_s = b * SHIFT
        for i in index.pop(pk):
            j = nxt[i]
            if sym[i] != a or sym[j] != b:
                continue  # a stale index entry, or consumed by an overlapping occurrence
            w = wid[i]
            if w != cur_w:
                cur_w = w
                if trace:
                    rewritten[w] = (i, wlen[w])
            f = weight[i]
            p = prv[i]
            if p >= 0:  # (x, a) becomes (x, new)
                x = sym[p] * SHIFT
                k = x + a
                delta[k] = dget(k, 0) - f
                k = x + new
                delta[k] = dget(k, 0) + f
                held = iget(k)
                if held is None:
                    index[k] = [p]
                else:
                    held.append(p)
            n = nxt[j]
            if n >= 0:  # (b, y) becomes (new, y)
                y = sym[n]
                k = b_s + y
                delta[k] = dget(k, 0) - f
                k = new_s + y
                delta[k] = dget(k, 0) + f
                held = iget(k)
                if held is None:
                    index[k] = [i]
                else:
                    held.append(i)
                prv[n] = i
            nxt[i] = n
            sym[i] = new
            sym[j] = -1
            wlen[w] -= 1
            replaced += f
        delta[pk] = -count

        changes = [(k, d) for k, d in delta.items() if d]
        if trace:
            self.deltas.append(array("q", chain.from_iterable(changes)).tobytes())
        hist = self.hist
        cget = counts.get
        fresh = []
        for k, d in changes:
            old = cget(k, 0)
            c = old + d
            if trace:
                if old:
                    hist[old] -= 1
                if c:
                    hist[c] = hist.get(c, 0) + 1
            if c:
                counts[k] = c
                if not old:
                    fresh.append(k)
            else:
                del counts[k]
                index.pop(k, None)
        self._push_fresh(fresh)
        self.total_tokens -= replaced
        if trace:
            self.changed_words.append(array("i", rewritten).tobytes())
            num_words = len(rewritten)
            # the most frequent words; the sort is stable, so ties stay in corpus order
            shown = sorted(rewritten, key=freqs.__getitem__, reverse=True)[: self.trace_words]
            pair = self._pair(pk)
            words = tuple(self._word_change(w, *rewritten[w], pair, new) for w in shown)
        else:
            num_words, words = 0, ()
        self.steps.append(
            MergeStep(
                rank=step,
                pair=self._pair(pk),
                token=strings[new],
                token_id=new,
                count=count,
                replacements=replaced,
                tied=tied,
                tie_keys=tie_keys,
                num_tied=num_tied,
                tie_break=self.rule,
                top_pairs=top_pairs,
                words=words,
                num_words=num_words,
                tokens_after=self.total_tokens,
                vocab_size_after=len(table),
            )
        )

    def _walk(self, start: int, limit: int) -> list[int]:
        """Positions of up to ``limit`` live symbols from ``start`` rightwards."""
        nxt = self.nxt
        out = []
        p = start
        while p != -1 and limit:
            out.append(p)
            p = nxt[p]
            limit -= 1
        return out

    def _window(self, w: int, anchor: int, excerpt: bool) -> list[int]:
        """The positions to show for word ``w``: all of it, or a window around ``anchor``."""
        if not excerpt:
            return self._walk(self.wstart[w], WORD_TRACE_LIMIT + 1)
        prv = self.prv
        p = anchor
        for _ in range(_EXCERPT_BEFORE):
            if prv[p] < 0:
                break
            p = prv[p]
        return self._walk(p, _EXCERPT_LEN)

    def _word_change(self, w: int, first_site: int, len_before: int, pair: tuple[str, str], new: int) -> WordChange:
        """Record word ``w`` just after merging ``pair`` into ``new``.

        The spelling before the merge is the spelling after it with every
        ``new`` split back into the pair: ``new`` did not exist before this merge.
        """
        sym = self.sym
        excerpt = self.wlen[w] > WORD_TRACE_LIMIT
        start, end = self.wstart[w], self.wend[w]
        if excerpt:
            after = [sym[p] for p in self._window(w, first_site, True)]
        elif end - start <= _SLICE_LIMIT:
            # Merged-away positions hold -1, so a word's live symbols are its
            # original slots with those left out: filtered in C, no list walk.
            after = list(filter(_LIVE, sym[start:end]))
        else:
            after = [sym[p] for p in self._walk(start, WORD_TRACE_LIMIT + 1)]
        shown = tuple(map(self.table.strings.__getitem__, after))
        merged_at = []
        m = -1
        for _ in range(after.count(new)):
            m = after.index(new, m + 1)
            merged_at.append(m)
        parts = []
        prev = 0
        for m in merged_at:
            parts.append(shown[prev:m])
            parts.append(pair)
            prev = m + 1
        parts.append(shown[prev:])
        return WordChange(
            word=self.texts[w],
            freq=self.freqs[w],
            before=tuple(chain.from_iterable(parts)),
            after=shown,
            merged_at=tuple(merged_at),
            excerpt=excerpt,
            occurrences=len_before - self.wlen[w],
        )

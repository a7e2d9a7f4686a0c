"""A naive reference trainer: recount every pair before every merge.

This is Sennrich et al. (2016), Algorithm 1, written as plainly as possible:
``get_stats`` over every word, pick the best pair, ``merge_vocab`` over every
word. It is slow (each merge costs a full pass over the corpus) and exists to
check :func:`bpe_core.train` (tests) and to time it against (benchmarks). Ties
are broken by the same rules, each computed here from its definition rather
than from the incremental index:

* ``first_seen``: Python's ``max`` over the freshly built, insertion-ordered
  count dict (minbpe ``get_stats``; tiktoken ``_educational.py``);
* ``alphabetical`` / ``subword_nmt``: ``min`` / ``max`` of the pair strings;
* ``hf_tokenizers``: ``min`` of the pair of Hugging Face ids.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from itertools import accumulate

from bpe_core.registry.options import marker_style
from bpe_core.registry.tie_rules import FirstSeen, pick, tie_rule
from bpe_core.text.corpus import Corpus, word_counts
from bpe_core.text.symbols import SymbolTable, spell_corpus
from bpe_core.trace import MergeStep, WordChange


def naive_train(
    corpus: Corpus,
    num_merges: int,
    *,
    pretokenizer: str = "whitespace_eow",
    unit: str = "char",
    end_of_word: str = "separate",
    tie_break: str = "first_seen",
    min_frequency: int = 2,
    special_tokens: tuple[str, ...] = (),
) -> list[tuple[tuple[str, str], int]]:
    """Train by recounting everything each merge; return ``[((left, right), count), ...]``.

    Arguments mean what they mean for :func:`bpe_core.train`. Stops early, like
    it, when no pair reaches ``min_frequency``.
    """
    counts = word_counts(corpus, pretokenizer, special_tokens)
    table, words = spell_corpus(counts, unit, marker_style(pretokenizer, end_of_word), tuple(special_tokens))
    freqs = list(counts.values())
    rule = tie_rule(tie_break)
    rounds = _recount_loop(
        table,
        words,
        num_merges,
        min_frequency,
        lambda words: (_count_pairs(words, freqs), {}),
        lambda stats, _seen: [pick(rule, stats, table.strings, table.hf_rank)],
    )
    s = table.strings
    return [((s[a], s[b]), r.stats[(a, b)]) for r in rounds for a, b in r.ranked[:1]]


@dataclass(frozen=True)
class _Round:
    """One merge of the naive loop: the counts before it, the pairs best first (the winner at least),
    and every word before and after."""

    rank: int
    stats: dict[tuple[int, int], int]
    seen: dict[tuple[int, int], FirstSeen]
    ranked: list[tuple[int, int]]
    new: int
    before: list[list[int]]
    after: list[list[int]]


def _recount_loop(
    table: SymbolTable,
    words: list[list[int]],
    num_merges: int,
    min_frequency: int,
    recount: Callable[[list[list[int]]], tuple[dict[tuple[int, int], int], dict[tuple[int, int], FirstSeen]]],
    choose: Callable[[dict[tuple[int, int], int], dict[tuple[int, int], FirstSeen]], list[tuple[int, int]]],
) -> Iterator[_Round]:
    """Sennrich et al. 2016, Algorithm 1, without any index: before each merge ``recount(words)`` counts
    every pair (and where each is first seen), ``choose`` ranks them (the winner first, at least), and
    every word is rewritten.

    Stops after ``num_merges`` merges, or when no pair is left or reaches ``min_frequency``. The merge is
    added to ``table`` before its round is yielded.
    """
    for k in range(num_merges):
        stats, seen = recount(words)
        if not stats or max(stats.values()) < min_frequency:
            return
        ranked = choose(stats, seen)
        a, b = ranked[0]
        new = table.add_merge(a, b)
        merged = [_merge_word(syms, a, b, new) for syms in words]
        yield _Round(k, stats, seen, ranked, new, words, merged)
        words = merged


def _count_pairs(words: list[list[int]], freqs: list[int]) -> dict[tuple[int, int], int]:
    """Every adjacent pair's count, weighted by word frequency, in corpus order of first occurrence."""
    stats: dict[tuple[int, int], int] = {}
    for syms, f in zip(words, freqs):
        for pair in zip(syms, syms[1:]):
            stats[pair] = stats.get(pair, 0) + f
    return stats


def _merge_word(syms: list[int], a: int, b: int, new: int) -> list[int]:
    """Replace every ``a b`` by ``new``, left to right without overlap."""
    out = []
    i = 0
    n = len(syms)
    while i < n:
        if i + 1 < n and syms[i] == a and syms[i + 1] == b:
            out.append(new)
            i += 2
        else:
            out.append(syms[i])
            i += 1
    return out


def naive_steps(
    corpus: Corpus,
    num_merges: int,
    *,
    pretokenizer: str = "whitespace_eow",
    unit: str = "char",
    end_of_word: str = "separate",
    tie_break: str = "first_seen",
    min_frequency: int = 2,
    top_k: int = 10,
    max_tied: int = 10,
    trace_words: int = 6,
) -> list[tuple[MergeStep, list[WordChange]]]:
    """Every merge's full record, recounted from scratch: ``[(step, all rewritten words), ...]``.

    The eager reference for :attr:`bpe_core.TrainResult.steps`: before each
    merge every pair is recounted, with where it is first seen (words in
    corpus order, each left to right, offsets in base symbols); pairs are
    ranked by count, then by the tie rule (:mod:`bpe_core.registry.tie_rules`). Words
    are always whole here (``excerpt`` is False), also in ``step.words``.
    Arguments mean what they mean for :func:`bpe_core.train`.
    """
    counts = word_counts(corpus, pretokenizer, ())
    table, words = spell_corpus(counts, unit, marker_style(pretokenizer, end_of_word), ())
    texts, freqs = list(counts), list(counts.values())
    starts = [0, *accumulate(map(len, words))]
    rule = tie_rule(tie_break)
    width = [1] * len(table)  # base symbols per token
    tokens = sum(len(w) * f for w, f in zip(words, freqs))
    out: list[tuple[MergeStep, list[WordChange]]] = []

    def choose(stats: dict[tuple[int, int], int], seen: dict[tuple[int, int], FirstSeen]) -> list[tuple[int, int]]:
        ordered = []
        for c in sorted(set(stats.values()), reverse=True):
            ordered += rule.order([p for p in stats if stats[p] == c], table.strings, table.hf_rank, seen)
        return ordered

    recount = partial(_recount, freqs=freqs, texts=texts, starts=starts, width=width)
    for r in _recount_loop(table, words, num_merges, min_frequency, recount, choose):
        stats, seen, ordered, new = r.stats, r.seen, r.ranked, r.new
        a, b = ordered[0]
        width.append(width[a] + width[b])
        changes = _changes(r.before, r.after, freqs, texts, table.strings, new)
        tokens -= sum(w.occurrences * w.freq for w in changes)
        tied = [p for p in ordered if stats[p] == stats[(a, b)]]
        s = table.strings
        step = MergeStep(
            rank=r.rank,
            pair=(s[a], s[b]),
            token=s[new],
            token_id=new,
            count=stats[(a, b)],
            replacements=sum(w.occurrences * w.freq for w in changes),
            tied=tuple((s[x], s[y]) for x, y in tied[:max_tied]),
            tie_keys=tuple(rule.describe(s, table.hf_rank, x, y, seen[(x, y)]) for x, y in tied[:max_tied]),
            num_tied=len(tied),
            tie_break=tie_break,
            top_pairs=tuple(((s[x], s[y]), stats[(x, y)]) for x, y in ordered[:top_k]),
            words=tuple(sorted(changes, key=lambda w: -w.freq)[:trace_words]),
            num_words=len(changes),
            tokens_after=tokens,
            vocab_size_after=len(table),
        )
        out.append((step, changes))
    return out


def _recount(
    words: list[list[int]], freqs: list[int], texts: list[str], starts: list[int], width: list[int]
) -> tuple[dict[tuple[int, int], int], dict[tuple[int, int], FirstSeen]]:
    """Every pair's count, and where each is first seen (offsets in base symbols)."""
    stats: dict[tuple[int, int], int] = {}
    seen: dict[tuple[int, int], FirstSeen] = {}
    for w, (syms, f) in enumerate(zip(words, freqs)):
        offset = 0
        for pair in zip(syms, syms[1:]):
            if pair not in stats:
                seen[pair] = FirstSeen(w, texts[w], offset, starts[w] + offset)
            stats[pair] = stats.get(pair, 0) + f
            offset += width[pair[0]]
    return stats, seen


def _changes(
    words: list[list[int]], merged: list[list[int]], freqs: list[int], texts: list[str], strings: list[str], new: int
) -> list[WordChange]:
    """The words a merge into ``new`` changed (``words`` before, ``merged`` after), as records."""
    changes = []
    for w, (syms, after) in enumerate(zip(words, merged)):
        if len(after) < len(syms):
            changes.append(
                WordChange(
                    word=texts[w],
                    freq=freqs[w],
                    before=tuple(strings[i] for i in syms),
                    after=tuple(strings[i] for i in after),
                    merged_at=tuple(i for i, t in enumerate(after) if t == new),
                    excerpt=False,
                    occurrences=len(syms) - len(after),
                    before_ids=tuple(syms),
                    after_ids=tuple(after),
                )
            )
    return changes

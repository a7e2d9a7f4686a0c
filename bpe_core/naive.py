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

from .corpus import Corpus, word_counts
from .symbols import spell_corpus
from .tiebreak import pick, tie_rule


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
    eow = end_of_word if pretokenizer == "whitespace_eow" else None
    table, words = spell_corpus(counts, unit, eow, tuple(special_tokens))
    freqs = list(counts.values())
    rule = tie_rule(tie_break)
    out: list[tuple[tuple[str, str], int]] = []
    for _ in range(num_merges):
        stats: dict[tuple[int, int], int] = {}
        for syms, f in zip(words, freqs):
            for pair in zip(syms, syms[1:]):
                stats[pair] = stats.get(pair, 0) + f
        if not stats:
            break
        best = pick(rule, stats, table.strings, table.hf_rank)
        if stats[best] < min_frequency:
            break
        a, b = best
        new = table.add_merge(a, b)
        out.append(((table.strings[a], table.strings[b]), stats[best]))
        words = [_merge_word(syms, a, b, new) for syms in words]
    return out


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

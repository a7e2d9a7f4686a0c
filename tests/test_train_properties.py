"""Property tests for training (hypothesis): monotone counts, replayable trace, determinism, exactness."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core import TIE_BREAKS, train

from .engine_helpers import initial_segmentations, replay
from .naive_bpe import naive_train

SYMBOLS = st.sampled_from(["a", "b", "c", "d", "e", "é", "🙂", "</w>", "<", "w", ">"])
"""Mostly letters, with a multi-byte character, an emoji and the marker's text typed literally."""
WORDS = st.lists(SYMBOLS, min_size=1, max_size=9).map("".join)
CORPORA = st.lists(WORDS, min_size=1, max_size=40).map(" ".join)
MODES = st.sampled_from(
    [
        {"pretokenizer": "whitespace_eow", "end_of_word": "separate"},
        {"pretokenizer": "whitespace_eow", "end_of_word": "attached"},
        {"pretokenizer": "whitespace"},
        {"pretokenizer": "trailing_space"},
        {"pretokenizer": "none"},
        {"pretokenizer": "gpt2", "unit": "byte"},
    ]
)
RULES = st.sampled_from(list(TIE_BREAKS))


@settings(max_examples=150, deadline=None)
@given(CORPORA, MODES, RULES)
def test_winning_counts_never_increase(corpus, mode, rule):
    """A merge can only shrink the counts of existing pairs, and new pairs count at most what they replace."""
    counts = [s.count for s in train(corpus, num_merges=30, tie_break=rule, min_frequency=1, **mode).steps]
    assert all(a >= b for a, b in zip(counts, counts[1:]))


@settings(max_examples=150, deadline=None)
@given(CORPORA, MODES, RULES)
def test_replaying_the_trace_reproduces_the_final_segmentation(corpus, mode, rule):
    """Start from the base symbols, apply every recorded word change in order: the result is the final cut."""
    r = train(corpus, num_merges=25, tie_break=rule, min_frequency=1, **mode)
    segs = {i: seg for i, seg in enumerate(initial_segmentations(r))}
    index = {word: i for i, (word, _f) in enumerate(r.words)}
    for k, step in enumerate(r.steps):
        changes = r.word_changes(k)
        # what the trainer recorded while merging equals what the replay rebuilds afterwards
        by_word = {change.word: change for change in changes}
        assert len(changes) == step.num_words
        assert all(by_word[w.word] == w for w in step.words if not w.excerpt)
        for change in changes:
            i = index[change.word]
            assert segs[i] == change.before
            segs[i] = change.after
        assert sum(len(s) * r.words[i][1] for i, s in segs.items()) == step.tokens_after
    for i in segs:
        assert segs[i] == r.segmentation(i, r.num_merges)
        # the tokenizer's sequential replay of the merge table agrees with the trace
        assert segs[i] == replay(r.tokenizer, r.words[i][0], r.num_merges)


@settings(max_examples=100, deadline=None)
@given(CORPORA, MODES, RULES)
def test_training_is_deterministic(corpus, mode, rule):
    a = train(corpus, num_merges=20, tie_break=rule, min_frequency=1, **mode)
    b = train(corpus, num_merges=20, tie_break=rule, min_frequency=1, **mode)
    assert a.merges == b.merges and [s.tied for s in a.steps] == [s.tied for s in b.steps]
    assert a.vocab == b.vocab


@settings(max_examples=200, deadline=None)
@given(CORPORA, MODES, RULES)
def test_incremental_trainer_equals_naive_recount(corpus, mode, rule):
    fast = train(corpus, num_merges=25, tie_break=rule, min_frequency=1, trace=False, **mode)
    slow = naive_train(corpus, 25, tie_break=rule, min_frequency=1, **mode)
    assert [(s.pair, s.count) for s in fast.steps] == slow


@settings(max_examples=100, deadline=None)
@given(CORPORA, MODES, RULES)
def test_recorded_ties_are_the_pairs_with_the_winning_count(corpus, mode, rule):
    r = train(corpus, num_merges=15, min_frequency=1, max_tied=1000, top_k=1000, tie_break=rule, **mode)
    s = r.symbol_strings
    for k, step in enumerate(r.steps):
        counts = r.pair_counts_at(k, by_id=True)  # by id: a typed '</w>' may render like the marker
        tied = [(s[a], s[b]) for (a, b), c in counts.items() if c == step.count]
        assert step.num_tied == len(tied) and sorted(step.tied) == sorted(tied)
        assert step.tied[0] == step.pair and step.count == max(counts.values())
        assert r.tied_at(k) == list(step.tied)  # the whole tie list, in the trainer's order

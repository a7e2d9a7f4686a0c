"""The lazy trace equals an eager recomputation: every step's view rebuilt by recounting every pair.

:attr:`bpe_core.TrainResult.steps` builds each step from the recorded count
changes, snapshots and corpus layout; :func:`tests.naive_bpe.naive_steps`
recounts the whole corpus before every merge and ranks pairs from the tie
rules' definitions. On a sample of every shared corpus, under all four tie
rules, the two must agree at sampled steps: top pairs, every tied pair in order
with its tie key, and the rewritten words before/after.
"""

from __future__ import annotations

import pickle

import pytest

from bench.corpora import sample
from bpe_core import TIE_BREAKS, train
from bpe_core.training import recorder
from tests.conftest import TEXT_CORPORA

from .naive_bpe import naive_steps

MODES = {
    "first_seen": {"pretokenizer": "whitespace_eow", "end_of_word": "separate"},
    "alphabetical": {"pretokenizer": "gpt2", "unit": "byte"},
    "subword_nmt": {"pretokenizer": "whitespace_eow", "end_of_word": "attached"},
    "hf_tokenizers": {"pretokenizer": "whitespace", "unit": "byte"},
}
"""One pre-tokenizer per rule, so that every rule meets a different layout."""

MERGES = 30
SAMPLED = (0, 1, 2, 9, 17, MERGES - 1)


@pytest.mark.parametrize("rule", list(TIE_BREAKS))
@pytest.mark.parametrize("name", [*TEXT_CORPORA, "code"])
def test_lazy_steps_equal_a_recount(corpora, name, rule):
    text = sample(corpora[name], 2000)
    options = {"tie_break": rule, "min_frequency": 1, **MODES[rule]}
    r = train(text, num_merges=MERGES, max_tied=10_000, **options)
    eager = naive_steps(text, MERGES, max_tied=10_000, **options)
    assert r.num_merges == len(eager) == MERGES
    for k in SAMPLED:
        lazy, (step, changes) = r.steps[k], eager[k]
        assert lazy.top_pairs == step.top_pairs
        assert (lazy.tied, lazy.tie_keys, lazy.num_tied) == (step.tied, step.tie_keys, step.num_tied)
        assert r.tied_at(k) == list(step.tied)
        assert r.ties_at(k) == list(zip(step.tied, step.tie_keys))
        assert r.word_changes(k) == changes
        assert [w for w in lazy.words if not w.excerpt] == [w for w in step.words if len(w.after) <= 64]
        assert lazy == step or any(w.excerpt for w in lazy.words)


@pytest.mark.parametrize("rule", list(TIE_BREAKS))
def test_lazy_steps_with_caps_and_one_long_word(rule):
    """The ``none`` pre-tokenizer makes one long word (shown as an excerpt); caps cut ties, tops and words."""
    text = "the cat sat on the mat; the hat sat on the cat. " * 6 + "that thin thing"
    options = {"tie_break": rule, "min_frequency": 1, "top_k": 3, "max_tied": 2, "trace_words": 1}
    r = train(text, num_merges=25, pretokenizer="whitespace_eow", **options)
    eager = naive_steps(text, 25, pretokenizer="whitespace_eow", **options)
    assert list(r.steps) == [step for step, _changes in eager]
    long = train(text, num_merges=25, pretokenizer="none", unit="byte", **options)
    eager = naive_steps(text, 25, pretokenizer="none", unit="byte", **options)
    for k, (step, changes) in enumerate(eager):
        lazy = long.steps[k]
        assert (lazy.top_pairs, lazy.tied, lazy.tie_keys) == (step.top_pairs, step.tied, step.tie_keys)
        assert long.word_changes(k) == changes
        (shown,), (whole,) = lazy.words, changes
        assert shown.excerpt == (len(whole.after) > 64) and shown.occurrences == whole.occurrences
        assert shown == whole or (len(shown.after) <= 32 and " ".join(shown.after) in " ".join(whole.after))


def test_steps_behave_as_a_sequence_and_survive_pickling():
    r = train("low lower newest widest " * 3, num_merges=8)
    steps = r.steps
    assert len(steps) == 8 and steps[-1] == steps[7] and steps[2:4] == [steps[2], steps[3]]
    assert [s.rank for s in steps] == list(range(8))
    with pytest.raises(IndexError):
        steps[8]
    copy = pickle.loads(pickle.dumps(r))
    assert list(copy.steps) == list(steps) and copy.word_changes(3) == r.word_changes(3)
    assert [(s.count, s.num_tied, s.tokens_after) for s in r.summaries] == [
        (s.count, s.num_tied, s.tokens_after) for s in steps
    ]


def test_trace_off_keeps_the_merge_records():
    r = train("low lower newest widest " * 3, num_merges=8, trace=False)
    full = train("low lower newest widest " * 3, num_merges=8)
    assert [(s.pair, s.count, s.replacements, s.tokens_after) for s in r.steps] == [
        (s.pair, s.count, s.replacements, s.tokens_after) for s in full.steps
    ]
    assert r.steps[0].top_pairs == () and r.steps[0].num_tied == 1
    assert r.segmentation(0, 8) == full.segmentation(0, 8)
    with pytest.raises(ValueError, match="trace=True"):
        r.word_changes(0)


@pytest.mark.parametrize(
    ("snapshot_every", "batch_changes"), [(1, 50), (recorder.SNAPSHOT_EVERY, recorder.BATCH_CHANGES)]
)
@pytest.mark.parametrize("options", [{"pretokenizer": "gpt2", "unit": "byte"}, {"pretokenizer": "whitespace_eow"}])
def test_counts_rebuilt_across_snapshots_and_batches_equal_a_replay(
    corpora, monkeypatch, options, snapshot_every, batch_changes
):
    """Pair counts rebuilt from snapshots plus changes equal counts of the words replayed by the tokenizer.

    A longer run than above, so that the recorder takes count snapshots and
    packs its changes in batches of many sizes (more of both with the small
    settings): the steps just before, at and after each snapshot, and the
    first and last ones, are recounted from a ``trace=False`` run's
    segmentations (the tokenizer replays the first ``k`` rules; neither the
    recorded layout nor the recorded changes are read).
    """
    monkeypatch.setattr(recorder, "SNAPSHOT_EVERY", snapshot_every)
    monkeypatch.setattr(recorder, "BATCH_CHANGES", batch_changes)
    text = sample(corpora["tinyshakespeare"], 30_000) + " xabab" * 3  # (new, a) is made and unmade by (a, b)
    traced = train(text, num_merges=2000, min_frequency=1, **options)
    plain = train(text, num_merges=2000, min_frequency=1, trace=False, **options)
    trace = traced.log.trace
    assert len(trace.checkpoints) >= (5 if snapshot_every == 1 else 1)
    assert all(change for k in range(traced.num_merges) for _key, change in trace.changes(k))
    steps = {0, 1, 2, traced.num_merges} | {k + d for k, _counts in trace.checkpoints for d in (-1, 0, 1)}
    for k in sorted(steps):
        expect: dict[tuple[str, str], int] = {}
        for i, (_word, freq) in enumerate(plain.words):
            seg = plain.segmentation(i, k)
            for pair in zip(seg, seg[1:]):
                expect[pair] = expect.get(pair, 0) + freq
        assert traced.pair_counts_at(k) == expect, k
        assert traced.num_pairs_at(k) == len(expect)

"""``train(max_memory=...)`` estimates before it allocates (issue 18, item 3).

The reproducers run in a child process under an address-space limit
(:func:`tests.test_hostile.run_limited`): each ends within its budget, with a
message that gives the estimate, what it is for and the budget. Memory growth is
checked with ``tracemalloc`` (deterministic) at ``n`` and ``4n``; nothing here
depends on the machine's speed.
"""

from __future__ import annotations

import random
import tracemalloc

import pytest

import bpe_core
from bpe_core import BudgetError, memory
from bpe_core.memory import SLACK, MemoryBudget, MemoryBudgetError
from bpe_core.training import trainer

from .conftest import REPO
from .test_hostile import GB, run_limited

MB = 2**20
APP_BUDGET = 600 * MB
"""The app's per-training budget (``ui.settings.TRAIN_MEMORY_BUDGET``)."""

OVERHEAD = 64 * MB
"""What the process may take beyond the budget: the allocator's slack, a slice of text being counted."""


def test_one_25_mb_word_is_refused_before_its_layout_is_built():
    result = run_limited(
        f"""
        import random
        from bench.measure import read_status_kb
        import bpe_core
        text = "".join(random.Random(1).choices("abcdefghij", k=25_000_000))
        base = read_status_kb("VmRSS")
        try:
            bpe_core.train(text, num_merges=100, max_memory={APP_BUDGET})
            report(error=None)
        except bpe_core.BudgetError as exc:
            report(error=type(exc).__name__, message=str(exc), grown_mb=(read_status_kb("VmHWM") - base) / 1024)
        """,
        memory=2 * GB,
        cpu_seconds=120,
    )
    assert result["error"] == "MemoryBudgetError"
    assert result["message"].startswith("the training layout of 25,000,001 symbols in 1 distinct words needs about ")
    assert result["message"].endswith("; the memory budget (max_memory) is 600 MB")
    assert result["grown_mb"] * MB < APP_BUDGET + OVERHEAD


def test_25_mb_of_random_words_stop_within_the_budget():
    result = run_limited(
        f"""
        import random
        from bench.measure import read_status_kb
        import bpe_core
        r = random.Random(2)
        text = " ".join("".join(r.choices("abcdefghijklmnopqrstuvwxyz", k=r.randint(3, 9))) for _ in range(3_600_000))
        base = read_status_kb("VmRSS")
        try:
            bpe_core.train(text, num_merges=100, max_memory={APP_BUDGET})
            report(error=None, megabytes=len(text) / 2**20)
        except bpe_core.BudgetError as exc:
            report(error=type(exc).__name__, message=str(exc), grown_mb=(read_status_kb("VmHWM") - base) / 1024,
                   megabytes=len(text) / 2**20)
        """,
        memory=3 * GB,
        cpu_seconds=300,
    )
    assert result["megabytes"] > 24 and result["error"] == "MemoryBudgetError"
    assert " needs about " in result["message"] and result["message"].endswith("(max_memory) is 600 MB")
    assert result["grown_mb"] * MB < APP_BUDGET + OVERHEAD


def test_a_run_that_fits_stays_within_its_budget_and_its_estimate():
    """Tiny Shakespeare with the pre-tokenizer ``none`` (one word of 1.1M symbols) under a budget that fits it."""
    result = run_limited(
        """
        from bench.measure import read_status_kb
        import bpe_core
        from bpe_core.memory import MemoryBudget, SLACK
        text = open("sample_corpora/tinyshakespeare.txt", encoding="utf-8").read()
        base = read_status_kb("VmRSS")
        budget = MemoryBudget(400 * 2**20)
        r = bpe_core.train(text, num_merges=3000, pretokenizer="none", max_memory=budget)
        report(merges=r.num_merges, reason=r.stop_reason, estimate_mb=budget.held * SLACK / 2**20,
               grown_mb=(read_status_kb("VmHWM") - base) / 1024)
        """,
        memory=2 * GB,
        cpu_seconds=300,
    )
    assert result["merges"] == 3000 and result["reason"] is None
    assert result["grown_mb"] <= result["estimate_mb"] <= 400


def test_the_estimate_covers_what_training_allocates():
    """tracemalloc's peak of a whole run stays under the budget's own figure (both deterministic)."""
    corpus = (REPO / "sample_corpora" / "taylorswift.txt").read_text(encoding="utf-8")
    for kwargs in ({}, {"pretokenizer": "gpt2", "unit": "byte"}, {"pretokenizer": "none", "min_frequency": 1}):
        budget = MemoryBudget(GB)
        tracemalloc.start()
        bpe_core.train(corpus, num_merges=1500, max_memory=budget, **kwargs)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak <= budget.held * SLACK, kwargs


def _random_words(count: int, seed: int = 3) -> str:
    r = random.Random(seed)
    return " ".join("".join(r.choices("abcdefghijklmnopqrstuvwxyz", k=r.randint(2, 10))) for _ in range(count))


@pytest.mark.parametrize(
    ("make", "kwargs"),
    [
        (_random_words, {}),
        (lambda n: "".join(random.Random(4).choices("ab", k=6 * n)), {"pretokenizer": "none"}),
        (lambda n: "x" * (6 * n), {"pretokenizer": "none", "min_frequency": 1}),
    ],
    ids=["random words", "one word of two letters", "one repeated letter"],
)
def test_memory_grows_near_linearly(make, kwargs):
    """tracemalloc's peak at 4n is near 4x the peak at n (a quadratic structure would give 16x)."""

    def peak(n: int) -> int:
        text = make(n)
        tracemalloc.start()
        bpe_core.train(text, num_merges=200, **kwargs)
        value = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return value

    small, large = peak(20_000), peak(80_000)
    assert 3.0 < large / small < 4.8


def test_a_merge_that_would_pass_the_budget_stops_training_cleanly(monkeypatch):
    """Deterministic: the RSS watch is switched off, and the budget leaves room for the layout, not the merges."""
    monkeypatch.setattr(memory.MemoryWatch, "exceeded", lambda self: None)
    corpus = (REPO / "sample_corpora" / "tinyshakespeare.txt").read_text(encoding="utf-8")
    held: list[float] = []
    run = trainer._Trainer.run

    def noting_run(self, *args):  # type: ignore[no-untyped-def]
        if args[-1] is not None:
            held.append(args[-1].held)
        return run(self, *args)

    monkeypatch.setattr(trainer._Trainer, "run", noting_run)
    bpe_core.train(corpus, num_merges=10, max_memory=MemoryBudget(GB))
    tight = int(held[0] * SLACK) + 2 * MB  # room for the layout and index, and a few small merges at most
    r = bpe_core.train(corpus, num_merges=5000, max_memory=MemoryBudget(tight))
    assert r.num_merges < 5000
    assert "the next merge rewrites up to" in r.stop_reason and "over the memory budget of" in r.stop_reason
    assert r.merges == bpe_core.train(corpus, num_merges=r.num_merges).merges


def test_counting_stops_at_the_budget_with_the_number_of_words():
    text = _random_words(200_000)
    with pytest.raises(MemoryBudgetError, match=r"^counting the [\d,]+ distinct pre-tokens seen so far needs about"):
        bpe_core.train(text, num_merges=10, max_memory=2 * MB)
    assert issubclass(MemoryBudgetError, BudgetError)


def test_a_mapping_too_large_to_copy_is_refused_before_the_copy():
    counts = {f"w{i}": 2 for i in range(100_000)}
    with pytest.raises(MemoryBudgetError, match=r"^copying 100,000 word counts needs about \d+ MB"):
        bpe_core.train(counts, num_merges=10, max_memory=MB)

"""Tie keys, tie lists and the worked-example checker in near-linear time (issue 18, items 5 and 6).

Three kinds of proof, none of them timed:

* the fast paths equal a recount from the definitions (:mod:`tests.naive_bpe`, and
  a plain rescan for the leftmost-first encoding) on tie-heavy random corpora;
* the Python lines the engine executes, and its peak memory (``tracemalloc``),
  grow about 4x when the input grows 4x (a quadratic path grows 16x);
* each of the issue's reproducers runs in a child under a CPU and address-space
  limit and gives the right answer.
"""

from __future__ import annotations

import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bpe_core
from bpe_core import TIE_BREAKS, train
from bpe_core.analysis.checking import _leftmost_states, check_encoding, check_merges, find_settings
from bpe_core.text.symbols import SHIFT
from bpe_core.training.ranking import FirstPlaces

from .conftest import CORPORA
from .naive_bpe import naive_steps
from .test_hostile import GB, run_limited

ENGINE = str(Path(bpe_core.__file__).parent)

# ----------------------------------------------------------------- the fast paths equal a recount

TIE_HEAVY = st.lists(st.text("ab", min_size=1, max_size=9), min_size=1, max_size=8).map(" ".join)
LAYOUTS = st.sampled_from(
    [
        {"pretokenizer": "whitespace_eow"},
        {"pretokenizer": "whitespace_eow", "end_of_word": "attached"},
        {"pretokenizer": "whitespace"},
        {"pretokenizer": "none"},
    ]
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TIE_HEAVY, layout=LAYOUTS, rule=st.sampled_from(list(TIE_BREAKS)), limit=st.sampled_from([None, 1, 3]))
def test_tied_lists_and_step_views_equal_a_recount(text, layout, rule, limit):
    options = {"tie_break": rule, "min_frequency": 1, **layout}
    result = train(text, num_merges=10, max_tied=1000, **options)
    eager = naive_steps(text, 10, max_tied=1000, **options)
    lists = result.tied_lists(limit)
    assert len(lists) == len(eager) == result.num_merges
    for k, (step, _changes) in enumerate(eager):
        assert lists[k] == list(step.tied)[:limit]
        assert (result.steps[k].top_pairs, result.steps[k].tie_keys) == (step.top_pairs, step.tie_keys)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TIE_HEAVY, layout=LAYOUTS)
def test_first_places_replayed_equal_a_recount(text, layout):
    """After every merge, each pair's first place equals the naive recount's (``aaa``, ``abab`` included)."""
    result = train(text, num_merges=10, min_frequency=1, **layout)
    eager = naive_steps(text, 10, min_frequency=1, max_tied=1000, top_k=1000, **layout)
    places = FirstPlaces(result.log.trace.layout)
    strings = result.symbol_strings
    for k, (a, b, new) in enumerate(result.log.merge_ids):
        step = eager[k][0]
        assert {(strings[key // SHIFT], strings[key % SHIFT]) for key in places.first} == {p for p, _ in step.top_pairs}
        seen = {divmod(key, SHIFT): slot for key, slot in places.first.items()}
        for pair, key in zip(step.tied, step.tie_keys):
            ids = next(p for p in seen if (strings[p[0]], strings[p[1]]) == pair)
            assert result.views.first_seen([ids], k)[ids].position == seen[ids]
            assert str(result.views.first_seen([ids], k)[ids]) == key
        places.merge(a, b, new)


def _rescanned_leftmost(merges: list[tuple[str, str]], initial: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The leftmost-first states by their definition: rescan the word for the lowest-ranked pair each time."""
    ranks: dict[tuple[str, str], int] = {}
    for rank, pair in enumerate(merges):
        ranks.setdefault(pair, rank)
    state, out = list(initial), [initial]
    while True:
        found = [(ranks[p], i) for i, p in enumerate(zip(state, state[1:])) if p in ranks]
        if not found:
            return out
        _rank, i = min(found)
        state[i : i + 2] = [state[i] + state[i + 1]]
        out.append(tuple(state))


@settings(max_examples=80, deadline=None)
@given(
    word=st.text("abc", min_size=1, max_size=14),
    corpus=st.text("abc", min_size=2, max_size=30),
    k=st.integers(1, 12),
)
def test_leftmost_states_equal_a_rescan(word, corpus, k):
    merges = train(corpus, num_merges=k, pretokenizer="none", min_frequency=1).merges
    tokenizer = bpe_core.Tokenizer.from_merges(merges, pretokenizer="none")
    initial = tuple(word)
    expected = _rescanned_leftmost(merges, initial)
    states, total = _leftmost_states(tokenizer, initial, 1000)
    assert list(states) == expected and total == len(expected)
    kept, total = _leftmost_states(tokenizer, initial, 2)
    assert list(kept) == expected[:2] and total == len(expected)


def test_check_encoding_keeps_the_first_states_and_counts_them_all():
    table = [("x" * 2**i, "x" * 2**i) for i in range(8)]
    word = "x" * 200
    report = check_encoding(table, word, [" ".join(word)], pretokenizer="none")
    assert report.first_wrong_by_order == {"rank": 1, "sequential": 1, "leftmost": 1}
    # 200 x end as x^128 x^64 x^8: 197 merges one at a time (198 states), 7 rules all at once (8 states)
    assert report.num_states("leftmost") == 198 and len(report.states_by_order["leftmost"]) == 64
    assert report.states_by_order["leftmost"][1] == ("xx", *"x" * 198)
    assert report.num_states("rank") == len(report.states_by_order["rank"]) == 8
    assert report.states_by_order["rank"][-1] == ("x" * 128, "x" * 64, "x" * 8)


# ----------------------------------------------------------------- growth at n and 4n, counted


def lines_run(work: Callable[[], object]) -> int:
    """How many lines of ``bpe_core`` run while ``work()`` runs (a count that does not depend on the machine)."""
    count = 0

    def local(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
        return local

    def tracer(frame, event, arg):
        return local if frame.f_code.co_filename.startswith(ENGINE) else None

    sys.settrace(tracer)
    try:
        work()
    finally:
        sys.settrace(None)
    return count


def peak_memory(work: Callable[[], object]) -> int:
    """The peak of memory allocated while ``work()`` runs, in bytes (``tracemalloc``: deterministic)."""
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _all_steps(text: str, **options: object) -> Callable[[], object]:
    result = train(text, num_merges=40, **options)  # trained outside the measured call
    return lambda: [(s.top_pairs, s.tie_keys) for s in result.steps]


def _tied_lists(text: str, merges: int, **options: object) -> Callable[[], object]:
    result = train(text, num_merges=merges, min_frequency=1, **options)
    return lambda: result.tied_lists(10)


def _distinct_words(n: int) -> str:
    """``n`` distinct one-character words from U+0100 on (surrogates and whitespace skipped), one space apart."""
    chars = (chr(c) for c in range(0x100, 0x110000) if not 0xD800 <= c <= 0xDFFF and not chr(c).isspace())
    return " ".join(next(chars) for _ in range(n))


PATHS: dict[str, Callable[[int], Callable[[], object]]] = {
    **{f"steps over x * n, {rule}": lambda n, r=rule: _all_steps("x" * n, tie_break=r) for rule in TIE_BREAKS},
    "steps over - * n, gpt2 bytes": lambda n: _all_steps("-" * n, pretokenizer="gpt2", unit="byte"),
    "steps over n distinct words": lambda n: _all_steps(_distinct_words(n), min_frequency=1),
    **{
        f"tied_lists of n distinct words, {rule}": lambda n, r=rule: _tied_lists(
            _distinct_words(n), n // 10, tie_break=r
        )
        for rule in TIE_BREAKS
    },
    "tied_lists over x * n": lambda n: _tied_lists("x" * n, 40),
    "check_merges over x * n": lambda n: lambda: check_merges("x" * n, [("x", "x")] * 20),
    "find_settings over x * n": lambda n: lambda: find_settings("x" * n, [("x", "x"), ("xx", "xx")]),
    "check_encoding of x * n": lambda n: (
        lambda: check_encoding([("x", "x"), ("xx", "xx"), ("x", "xx")], "x" * n, ["x x x", "xx x"], pretokenizer="none")
    ),
}


@pytest.mark.parametrize("path", list(PATHS))
def test_lines_run_grow_near_linearly(path):
    """Four times the input runs at most about 4 log(4n)/log(n) times the lines (well under 16).

    The tie lists cover a number of merges that grows with the input (a tenth of the words): listing
    them must not cost a pass over every tied pair per merge."""
    small, large = (lines_run(PATHS[path](n)) for n in (1500, 6000))
    assert large <= 5.5 * small, (small, large)


@pytest.mark.parametrize("path", list(PATHS))
def test_peak_memory_grows_near_linearly(path):
    small, large = (peak_memory(PATHS[path](n)) for n in (3000, 12000))
    assert large <= 5.5 * small + 200_000, (small, large)


# ----------------------------------------------------------------- the reproducers, in a child


def _limited(code: str, cpu_seconds: int = 60, memory: int = 2 * GB) -> dict:
    return run_limited(code, cpu_seconds=cpu_seconds, memory=memory)


def test_check_merges_on_200000_x():
    out = _limited(
        """
        from bpe_core import check_merges
        r = check_merges("x" * 200000, [("x", "x")] * 50)
        report(first_wrong=r.first_wrong, steps=len(r.steps), second=r.steps[1].actual, top=r.steps[1].top_pairs[0])
        """
    )
    assert out["first_wrong"] == 1 and out["steps"] == 50
    assert out["second"] == ["xx", "xx"] and out["top"] == [["xx", "xx"], 99999]


def test_check_page_sized_corpus_and_find_settings():
    """100,000 x and a 20-line claim: the first 16 merges hold (then the pairs count 1, below min frequency 2)."""
    out = _limited(
        """
        from bpe_core import check_merges, find_settings
        claim = [("x" * 2**i, "x" * 2**i) for i in range(20)]
        r = check_merges("x" * 100000, claim)
        found = find_settings("x" * 100000, claim[:16])
        report(first_wrong=r.first_wrong, stopped=r.steps[16].actual, found=[s.label() for s in found])
        """
    )
    assert out["first_wrong"] == 16 and out["stopped"] is None
    assert "whitespace_eow (</w> separate), first_seen, min frequency 2" in out["found"]


@pytest.mark.parametrize("rule", list(TIE_BREAKS))
def test_step_views_over_long_runs(rule):
    out = _limited(
        f"""
        from bpe_core import train
        xs = train("x" * 40000, num_merges=40, tie_break={rule!r})
        dashes = train("-" * 60000, num_merges=40, pretokenizer="gpt2", unit="byte", tie_break={rule!r})
        views = [(s.pair, s.num_tied, s.top_pairs[0]) for r in (xs, dashes) for s in r.steps]
        report(merges=[xs.num_merges, dashes.num_merges], views=views[:2], keys=xs.steps[-1].tie_keys)
        """
    )
    assert out["merges"] == [14, 15]  # 40,000 x: after (x^8192, x^8192), every pair counts 1
    assert out["views"] == [[["x", "x"], 1, [["x", "x"], 39999]], [["xx", "xx"], 1, [["xx", "xx"], 19999]]]
    if rule == "first_seen":
        assert out["keys"] == ["first seen in word 1 'xxxxxxxxxxxxxxxxxxxxxxxx'… at offset 0"]


@pytest.mark.parametrize("rule", ["first_seen", "alphabetical"])
def test_cli_lists_100000_tied_words(tmp_path, rule):
    path = tmp_path / "words.txt"
    path.write_text(_distinct_words(100_000), encoding="utf-8")
    out = _limited(
        f"""
        import contextlib, io
        from bpe_core.__main__ import main
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            status = main(["train", {str(path)!r}, "--merges", "100", "--min-frequency", "1", "--tie-break", {rule!r}])
        rows = buf.getvalue().splitlines()[2:]
        report(status=status, rows=len(rows), first=rows[0].split(), last=rows[-1].split())
        """
    )
    assert out["status"] == 0 and out["rows"] == 100
    assert out["first"][:3] == ["0", "Ā", "</w>"] and out["first"][6:9] == ["100000", "tied:", "ā+</w>,"]
    assert out["last"][:3] == ["99", chr(0x100 + 99), "</w>"] and out["last"][6] == "99901"


def test_cli_on_taylor_swift_lists_3000_merges():
    path = CORPORA / "taylorswift.txt"
    out = _limited(
        f"""
        import contextlib, io
        from bpe_core import train
        from bpe_core.__main__ import MAX_TIED, main
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            status = main(["train", {str(path)!r}, "--merges", "3000"])
        rows = buf.getvalue().splitlines()[2:]
        result = train(open({str(path)!r}, encoding="utf-8").read(), num_merges=3000)
        lists = result.tied_lists(MAX_TIED)
        same = all(lists[k] == result.tied_at(k)[:MAX_TIED] for k in (0, 1, 500, 1999, 2998, 2999))
        report(status=status, rows=len(rows), same=same, tied=sum(len(t) > 1 for t in lists))
        """
    )
    assert out["status"] == 0 and out["rows"] == 3000 and out["same"] and out["tied"] > 100


def test_cli_lists_1000000_tied_words(tmp_path):
    path = tmp_path / "words.txt"
    path.write_text(_distinct_words(1_000_000), encoding="utf-8")
    out = _limited(
        f"""
        import contextlib, io
        from bpe_core.__main__ import main
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            status = main(["train", {str(path)!r}, "--merges", "100", "--min-frequency", "1"])
        rows = buf.getvalue().splitlines()[2:]
        report(status=status, rows=len(rows), last=rows[-1].split())
        """,
        memory=3 * GB,
    )
    assert out["status"] == 0 and out["rows"] == 100 and out["last"][6] == "999901"

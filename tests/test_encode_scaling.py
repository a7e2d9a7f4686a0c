"""Issue 18 (items 1-2): encoding one piece, with or without the trace, in O(n log n) time and O(n) memory.

The recorded merge loop (``RuleApplier.run``) must apply exactly the rules the old list loop applied: the old loop
(which copied the word at every step) is kept below, in this test only, as the reference, and the two are compared
on real corpus slices with the bundled tables and on random strings with small trained tables: ranks, sites,
pairs, every state of the word (rebuilt from the trace) and the ids. Cost is checked without a clock: tracemalloc
peaks at n and 4n, heap operations counted at n and 4n, and the issue's reproducer in a child under setrlimit.
"""

from __future__ import annotations

import base64
import heapq
import random
import tracemalloc
from collections.abc import Callable

import pytest

from bpe_core import Tokenizer, train
from bpe_core.encoding import merging as merging_module
from bpe_core.encoding.merging import INF, RANK, SEQUENTIAL, MergeOrder, RuleApplier
from bpe_core.formats import bundled, load_tiktoken
from bpe_core.text.symbols import SHIFT

from .test_hostile import run_limited

TEXTBOOK = " ".join(["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3)
SLICE = 6_000
"""Characters of each corpus compared per table (the first and a middle slice): every script and layout."""


# ----------------------------------------------------------------- the old loop, as it was (reference only)


def old_apply(rules: RuleApplier, syms: list[int], order: MergeOrder) -> tuple[list[int], list]:
    """The list loop that recorded ``(rank, sites, before, after)`` per step, copying the word each time."""
    if rules.by_bytes:
        get, data = rules.token_rank.get, rules.data
        rank_of: Callable[[int, int], int] = lambda x, y: get(data[x] + data[y], INF)  # noqa: E731
    else:
        pget = rules.pair_rank.get
        rank_of = lambda x, y: pget(x * SHIFT + y, INF)  # noqa: E731
    ranks = [rank_of(x, y) for x, y in zip(syms, syms[1:])]
    record: list = []
    sequential = order.sequential
    single = rules.by_bytes and not sequential
    last = -1
    while ranks:
        best = min((r for r in ranks if r > last), default=INF) if sequential else min(ranks)
        if best == INF:
            break
        new = rules.merge_ids[best][2]
        before = syms[:]
        sites: list[int] = []
        i = ranks.index(best)
        while True:
            sites.append(i + len(sites))
            syms[i] = new
            del syms[i + 1]
            del ranks[i]
            if i:
                ranks[i - 1] = rank_of(syms[i - 1], new)
            if i < len(ranks):
                ranks[i] = rank_of(new, syms[i + 1])
            if single:
                break
            try:
                i = ranks.index(best, i + 1)
            except ValueError:
                break
        record.append((best, tuple(sites), before, syms[:]))
        last = best
    if rules.by_bytes and len(syms) > 1 and not sequential and rules.whole_piece:
        rank = rules.token_rank.get(b"".join(rules.data[x] for x in syms))
        if rank is not None:
            new = rules.merge_ids[rank][2]
            record.append((rank, (0,), syms, [new]))
            syms = [new]
    return syms, record


def assert_same_as_old(tok: Tokenizer, text: str, order: str = "rank") -> int:
    """Every pre-token of ``text``: the trace equals the old loop's record; returns the steps compared."""
    model = tok.model
    strings = model.table.strings
    trace = tok.encode_with_trace(text, order=order)
    assert trace.ids == tok.encode(text, order=order)
    compared = 0
    for piece in trace.pieces:
        if piece.special:
            continue
        spelled = model.spell(piece.text)
        temporary = dict(zip(spelled, piece.initial))  # a keep fallback's temporary ids, by their trace names

        def name(i: int, temporary: dict[int, str] = temporary) -> str:
            return strings[i] if i < len(strings) else temporary[i]

        final, record = old_apply(model.rules, spelled, merging_module.merge_order(order))
        assert list(piece.ids) == final, piece.text
        assert [s.rank for s in piece.steps] == [r[0] for r in record], piece.text
        assert [s.positions for s in piece.steps] == [r[1] for r in record], piece.text
        states = list(piece.states())
        assert states[0] == piece.initial and states[-1] == piece.tokens
        for k, (step, (_rank, sites, before, after)) in enumerate(zip(piece.steps, record)):
            assert states[k] == tuple(map(name, before))
            assert states[k + 1] == tuple(map(name, after))
            if len(before) == len(after) + len(sites):
                assert step.pair == (strings[before[sites[0]]], strings[before[sites[0] + 1]])
        if len(piece.initial) > 64 and piece.steps:
            k = len(piece.steps) // 2
            assert piece.state(k) == states[k]  # the Fenwick replay, not the list one
        compared += len(record)
    return compared


# ----------------------------------------------------------------- the same rules as the old loop


@pytest.mark.reference
@pytest.mark.parametrize("table", ["gpt2", "cl100k_base", "o200k_base"])
def test_traces_equal_the_old_loop_on_real_text(corpora, table):
    tok = bundled(table)
    compared = 0
    for name in corpora:
        text = corpora[name]
        middle = len(text) // 2
        for part in (text[:SLICE], text[middle : middle + SLICE]):
            compared += assert_same_as_old(tok, part)
    assert compared > 10_000


@pytest.mark.parametrize("order", ["rank", "sequential"])
def test_traces_equal_the_old_loop_on_random_strings(order):
    rng = random.Random(18)
    corpus = " ".join("".join(rng.choice("abcab") for _ in range(rng.randint(1, 9))) for _ in range(400))
    tables = [
        train(corpus, num_merges=40).tokenizer,  # char unit, </w>
        train(corpus, num_merges=40, pretokenizer="none", min_frequency=1).tokenizer,  # one long piece
        train(corpus, num_merges=60, pretokenizer="gpt2", unit="byte").tokenizer,  # byte level, pair semantics
        Tokenizer.from_merges([("a", "b"), ("b", "c"), ("ab", "c"), ("a", "bc"), ("c", "c")], pretokenizer="none"),
    ]
    for tok in tables:
        for _ in range(60):
            text = "".join(rng.choice("abcab ") for _ in range(rng.randint(0, 300)))
            assert_same_as_old(tok, text, order)


def test_byte_semantics_and_whole_piece_equal_the_old_loop(tmp_path):
    """tiktoken semantics on a table with an unreachable token: the whole-piece lookup is one step of all symbols."""
    ranks = {bytes([b]): b for b in range(256)}
    ranks.update({b"bc": 256, b"ab": 257, b"cd": 258, b"abcd": 259, b"aa": 260})  # abcd: a bc d, then whole
    path = tmp_path / "toy.tiktoken"
    path.write_text("".join(f"{base64.b64encode(t).decode()} {r}\n" for t, r in ranks.items()))
    tok = load_tiktoken(path, r"\S+|\s+")
    assert_same_as_old(tok, "abcd aabcd abc " + "a" * 300)
    piece = tok.encode_with_trace("abcd").pieces[0]
    assert piece.tokens == ("abcd",) and piece.steps[-1].width == 3 and piece.steps[-1].positions == (0,)
    assert piece.state(len(piece.steps) - 1) == ("a", "bc", "d")


# ----------------------------------------------------------------- cost without a clock


def trace_peak(tok: Tokenizer, text: str) -> int:
    tok.encode_with_trace(text[:10])  # warm: pattern compiled, lookups built
    tracemalloc.start()
    try:
        trace = tok.encode_with_trace(text)
        assert len(trace.pieces) >= 1
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("char", ["a", "-", " "])
def test_trace_memory_grows_linearly_on_a_rank_table(char):
    tok = bundled("cl100k_base")
    small, large = (trace_peak(tok, char * n) for n in (2_000, 8_000))
    assert large / small < 5.5, (small, large)  # the old loop: about 16 (a copy of the word per step)


def test_trace_memory_grows_linearly_on_a_trained_table():
    tok = train(TEXTBOOK * 20, num_merges=30, pretokenizer="none", min_frequency=1).tokenizer
    text = (TEXTBOOK + " ") * 40
    small, large = trace_peak(tok, text), trace_peak(tok, text * 4)
    assert large / small < 5.5, (small, large)


class CountingHeap:
    """Stands in for :mod:`heapq` inside the merge loops and counts every push and pop."""

    def __init__(self) -> None:
        self.ops = 0

    def heappush(self, heap: list, item: int) -> None:
        self.ops += 1
        heapq.heappush(heap, item)

    def heappop(self, heap: list) -> int:
        self.ops += 1
        return heapq.heappop(heap)

    def heapify(self, heap: list) -> None:
        self.ops += len(heap)
        heapq.heapify(heap)


@pytest.mark.parametrize("traced", [False, True])
@pytest.mark.parametrize("table", ["cl100k_base", "trained"])
def test_heap_operations_grow_linearly(monkeypatch, table, traced):
    from bpe_core.encoding import merge_run

    tok = bundled(table) if table != "trained" else train(TEXTBOOK, num_merges=10, pretokenizer="none").tokenizer
    counts = []
    for n in (4_000, 16_000):
        counter = CountingHeap()
        monkeypatch.setattr(merging_module, "heapq", counter)
        monkeypatch.setattr(merge_run, "heapq", counter)
        syms = tok.model.spell("lowest newest " * (n // 14) if table == "trained" else "a" * n)
        if traced:
            ids = tok.model.rules.run(syms, RANK).final
        else:
            ids = tok.model.rules.apply(list(syms), RANK)
        assert ids == tok.model.rules.run(syms, RANK, traced=False).final
        counts.append(counter.ops)
    assert 3.5 < counts[1] / counts[0] < 4.6, counts


def test_the_issue_reproducer_finishes_under_a_memory_limit():
    """Issue 18 item 1: 20,000 x "a" on cl100k_base raised MemoryError under 3 GB; now well inside 1.5 GB."""
    out = run_limited(
        """
        from bpe_core.formats import bundled
        tok = bundled("cl100k_base")
        trace = tok.encode_with_trace("a" * 20000)
        ids = trace.ids
        piece = trace.pieces[0]
        last = list(piece.state(len(piece.steps))) == list(piece.tokens)
        report(same=ids == tok.encode("a" * 20000), n=len(ids), steps=len(piece.steps), last=last)
        """,
        memory=1_500_000_000,
        cpu_seconds=120,
    )
    assert out["same"] and out["last"] and out["steps"] > 10_000
    assert out["n"] == 2_500  # 20,000 a's: 2,500 x 'aaaaaaaa' (tiktoken cl100k_base gives the same)


@pytest.mark.reference
def test_long_runs_equal_tiktoken(reference_dir):
    import tiktoken.load

    ranks = tiktoken.load.load_tiktoken_bpe(str(reference_dir / "cl100k_base.tiktoken"))
    from unittest import mock

    import tiktoken_ext.openai_public as openai_public

    with mock.patch.object(openai_public, "load_tiktoken_bpe", return_value=ranks):
        enc = tiktoken.Encoding(**openai_public.cl100k_base())
    tok = bundled("cl100k_base")
    for text in ("a" * 20_000, "-" * 20_000, " " * 20_000, "ab" * 7_000 + "=" * 5_001, "x" * 129):
        assert tok.encode(text) == enc.encode_ordinary(text)
        assert tok.encode_with_trace(text).ids == enc.encode_ordinary(text)


def test_sequential_order_on_a_long_piece_equals_the_short_loop():
    tok = train(TEXTBOOK, num_merges=10, pretokenizer="none").tokenizer
    text = "lowest newest widest " * 30
    syms = tok.model.spell(text)
    ranks = [tok.model.pair_rank.get(x * SHIFT + y, INF) for x, y in zip(syms, syms[1:])]
    short = tok.model.rules._merge_short(list(syms), ranks, SEQUENTIAL, 0, INF)
    assert tok.encode(text, order="sequential") == short == tok.encode_with_trace(text, order="sequential").ids


def test_the_scaling_benchmark_fits_exponents():
    from bench.encode_scaling import Series, texts

    linear = Series("encode", "t", "x", [1_000, 2_000, 4_000], [1.0, 2.0, 4.0], [10, 40, 160])
    assert linear.exponent(linear.seconds) == pytest.approx(1.0)
    assert linear.exponent([float(p) for p in linear.peaks]) == pytest.approx(2.0)
    assert {k: len(v) for k, v in texts(1_000, "some text ").items()} == dict.fromkeys(
        ("ordinary", "one char", "one pair", "distinct"), 1_000
    )

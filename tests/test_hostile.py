"""Hostile input gets a bounded, clear answer: a specific engine error or the right result, never a hang.

Heavy cases run in a child process under ``resource.setrlimit`` (address space
and CPU time), so a regression fails the test instead of taking the machine
down; the child reports its own peak memory and time, and the test bounds both.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import textwrap

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

import bpe_core
from bpe_core import BPEError, BudgetError, OptionError
from bpe_core.errors import ResourceLimitError, SpecialTokenError, TokenIdError
from bpe_core.formats import FormatError, load_files
from bpe_core.registry.options import (
    MAX_MERGES,
    MAX_SPECIAL_LENGTH,
    MAX_SPECIAL_TOKENS,
    OPTIONS,
    check_training,
    parse_int,
)
from bpe_core.text.pretokenize import split_special
from ui.corpus import CorpusChoice
from ui.settings import TRAIN_MEMORY_BUDGET, TrainSettings

from .conftest import REPO, waited
from .speed import SLOWNESS_SOURCE

GB = 2**30


def run_limited(code: str, *, memory: int = 3 * GB, cpu_seconds: int = 300) -> dict:
    """Run ``code`` in a child Python under an address-space and CPU limit; return the JSON it prints last.

    The child's code may use ``report(**values)``, which adds its peak RSS (MB),
    wall time and CPU time (s) and :func:`tests.speed.slowness`, and prints the whole as the last line of JSON.
    Bounds are put on CPU time: on a shared machine wall time says more about the
    neighbours than about the code.
    """
    prelude = textwrap.dedent(
        f"""
        import json, resource, sys, time
        resource.setrlimit(resource.RLIMIT_AS, ({memory}, {memory}))
        resource.setrlimit(resource.RLIMIT_CPU, ({cpu_seconds}, {cpu_seconds}))
        sys.path.insert(0, {str(REPO)!r})
        _t0 = time.perf_counter()
        def report(**values):
            usage = resource.getrusage(resource.RUSAGE_SELF)
            with open("/proc/self/status") as fh:  # VmHWM: this image's peak (ru_maxrss keeps the forked parent's)
                values["peak_mb"] = next(int(x.split()[1]) for x in fh if x.startswith("VmHWM")) / 1024
            values["seconds"] = time.perf_counter() - _t0
            values["cpu_seconds"] = usage.ru_utime + usage.ru_stime
            values["slowness"] = slowness()
            print(json.dumps(values))
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", SLOWNESS_SOURCE + prelude + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=waited(cpu_seconds * 3),
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------ options: one validation, the same limits


@pytest.mark.parametrize(
    "value",
    ["inf", "-inf", "1e400", "nan", "1e9", "9" * 5000, "-5", "", "2.5", "٣"],
    ids=["inf", "-inf", "1e400", "nan", "1e9", "5000-digits", "-5", "empty", "2.5", "arabic-3"],
)
def test_link_numbers_are_refused_with_the_range(value):
    with pytest.raises(BudgetError, match="num_merges must be") as info:
        parse_int("num_merges", value, 0, MAX_MERGES)
    assert len(str(info.value)) < 200  # a 5,000-digit value is shortened, not echoed


def test_link_numbers_that_fit_are_read():
    assert parse_int("num_merges", " 200 ", 0, MAX_MERGES) == 200
    assert parse_int("num_merges", 200.0, 0, MAX_MERGES) == 200  # JSON and number boxes give floats


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_merges": 10**9},
        {"num_merges": 10**400},
        {"num_merges": float("inf")},
        {"vocab_size": 10**9},
        {"num_merges": 10, "min_frequency": 10**30},
        {"num_merges": 10, "min_frequency": float("nan")},
    ],
)
def test_budgets_past_the_limits_are_refused_by_train(kwargs):
    with pytest.raises(BudgetError, match="must be"):
        bpe_core.train("low lower", **kwargs)


def test_every_way_in_shares_the_limits(tmp_path):
    """train(), the app's settings and the CLI give the same answer for num_merges = 10**9."""
    with pytest.raises(BudgetError) as from_train:
        bpe_core.train("low lower", num_merges=10**9)
    with pytest.raises(BudgetError) as from_settings:
        TrainSettings(budget=10**9).checked()
    assert str(from_train.value) == str(from_settings.value)
    corpus = tmp_path / "c.txt"
    corpus.write_text("low lower", encoding="utf-8")
    cli = subprocess.run(
        [sys.executable, "-m", "bpe_core", "train", str(corpus), "--merges", str(10**9)],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert cli.returncode == 2 and str(from_train.value) in cli.stderr and "Traceback" not in cli.stderr


def test_options_describe_every_choice_with_its_source():
    for name in ("pretokenizer", "unit", "end_of_word", "tie_break", "fallback", "order"):
        option = OPTIONS[name]
        assert option.default in option.choices and option.source
        assert all(what.endswith((".", ")")) for what in option.choices.values())
    assert check_training(num_merges=5)["special_tokens"] == ()
    with pytest.raises(OptionError, match="expected one of: char, byte"):
        check_training(num_merges=5, unit="word")


# ------------------------------------------------------------------ special tokens


def test_special_tokens_too_long_or_too_many_are_refused_at_once():
    with pytest.raises(SpecialTokenError, match=f"at most {MAX_SPECIAL_LENGTH} characters"):
        bpe_core.train("x" * 3000, num_merges=5, special_tokens=["x" * 3000])
    with pytest.raises(SpecialTokenError, match=f"at most {MAX_SPECIAL_TOKENS} special tokens"):
        bpe_core.train("abc", num_merges=5, special_tokens=[f"<{i}>" for i in range(MAX_SPECIAL_TOKENS + 1)])
    with pytest.raises(SpecialTokenError, match="non-empty"):
        bpe_core.train("abc", num_merges=5, special_tokens=[""])


def _alternation(text: str, specials: list[str]) -> list[tuple[str, bool]]:
    """The old definition: a regex alternation of the tokens, longest first."""
    ordered = sorted(set(specials), key=lambda s: (-len(s), s))
    if not ordered:
        return [(text, False)] if text else []
    pattern = regex.compile("(" + "|".join(regex.escape(s) for s in ordered) + ")")
    return [(p, k % 2 == 1) for k, p in enumerate(pattern.split(text)) if p]


@settings(max_examples=400, deadline=None)
@given(
    st.text(alphabet="ab<>|", max_size=40),
    st.lists(st.text(alphabet="ab<>|", min_size=1, max_size=5), max_size=5),
)
def test_special_matching_equals_the_longest_first_alternation(text, specials):
    assert split_special(text, specials) == _alternation(text, specials)


def test_special_matching_is_linear_in_the_text():
    """Near misses everywhere: 100 tokens of 100 characters over 2 MB, in seconds, not hours."""
    result = run_limited(
        """
        from bpe_core.text.pretokenize import split_special
        text = ("x" * 99 + "y") * 20_000
        specials = ["x" * 100] + ["x" * k + "z" for k in range(1, 99)]
        pieces = split_special(text, specials)
        report(pieces=len(pieces))
        """,
        memory=2 * GB,
        cpu_seconds=60,
    )
    assert result["pieces"] == 1 and result["cpu_seconds"] < 15 * result["slowness"] and result["peak_mb"] < 500


def test_special_tokens_in_a_training_corpus_are_matched_in_linear_time():
    result = run_limited(
        """
        import bpe_core
        text = ("x" * 99 + " y ") * 5_000 + "x" * 100
        r = bpe_core.train(text, num_merges=5, special_tokens=["x" * 100])
        report(merges=r.num_merges)
        """,
        memory=2 * GB,
        cpu_seconds=60,
    )
    assert result["merges"] == 5 and result["cpu_seconds"] < 15 * result["slowness"]


# ------------------------------------------------------------------ memory budget


def test_the_200000_merge_link_stops_under_its_memory_budget():
    """Issue 11/12: Tiny Shakespeare, no pre-tokenizer, bytes, 200,000 merges, min frequency 1.

    Under the app's per-training budget the run ends (finished or stopped with a
    message in ``stop_reason``) with the process under 1.5 GB.
    """
    result = run_limited(
        f"""
        import bpe_core
        text = open("sample_corpora/tinyshakespeare.txt", encoding="utf-8").read()
        r = bpe_core.train(text, num_merges=200_000, pretokenizer="none", unit="byte", min_frequency=1,
                           max_memory={TRAIN_MEMORY_BUDGET})
        report(merges=r.num_merges, reason=r.stop_reason, step=r.steps[-1].rank)
        """,
        memory=3 * GB,
        cpu_seconds=600,
    )
    assert result["peak_mb"] < 1536
    # Either clean stop is fine: the memory budget, or the trainer's own limit on the learned tokens' text.
    reason = result["reason"]
    assert reason is None or "memory budget" in reason or "learned tokens hold" in reason
    assert result["merges"] > 1000


def test_a_memory_budget_stops_training_with_the_merges_so_far(monkeypatch):
    # The process's real growth depends on what ran before in it (freed memory is reused), so the watch
    # reads a resident size that grows 1 MB per look; the real budget is proven by the 200,000-merge link.
    looks = iter(range(10**6))
    monkeypatch.setattr(bpe_core.memory, "resident_bytes", lambda: next(looks) * 2**20)
    text = (REPO / "sample_corpora" / "shakespeare_excerpt.txt").read_text(encoding="utf-8")
    r = bpe_core.train(text, num_merges=5000, pretokenizer="none", min_frequency=1, max_memory=3 * 2**20)
    assert r.num_merges < 5000 and "memory budget of 3 MB reached (the run grew by 4 MB)" in r.stop_reason
    assert r.merges == bpe_core.train(text, num_merges=r.num_merges, pretokenizer="none", min_frequency=1).merges
    with pytest.raises(BudgetError):
        bpe_core.train(text, num_merges=5, max_memory=0)


# ------------------------------------------------------------------ numbers and nesting past the engine's limits


@pytest.mark.parametrize("count", [10**30, 2**63, 10**5000], ids=["1e30", "2**63", "1e5000"])
def test_huge_word_counts_are_refused_by_the_engine(count):
    with pytest.raises(ResourceLimitError, match="2\\*\\*48"):
        bpe_core.train({"low": count, "lower": 2}, num_merges=3)


def test_word_counts_below_one_are_an_engine_error():
    with pytest.raises(BPEError, match="at least 1"):
        bpe_core.train({"low": -(10**5000)}, num_merges=3)


def test_large_word_counts_within_the_limit_train():
    r = bpe_core.train({"low": 2**40, "lower": 2}, num_merges=2)
    assert r.steps[0].count == 2**40 + 2


@pytest.mark.parametrize(
    "doc", ['{"model":' * 100_000 + "1" + "}" * 100_000, "[" * 100_000 + "]" * 100_000], ids=["objects", "lists"]
)
def test_deeply_nested_json_is_a_format_error(doc):
    with pytest.raises(FormatError, match="nested too deeply"):
        load_files({"tokenizer.json": doc.encode()})


def test_a_5000_digit_number_in_json_is_a_format_error():
    doc = '{"model":{"type":"BPE","vocab":{"a":0,"b":' + "9" * 5000 + '},"merges":[]}}'
    with pytest.raises(FormatError, match="more than 4,300 digits"):
        load_files({"tokenizer.json": doc.encode()})


@pytest.mark.parametrize("token_id", [10**400, -(10**5000), 2**64], ids=["1e400", "-1e5000", "2**64"])
def test_huge_ids_are_token_id_errors_with_a_short_message(token_id):
    tok = bpe_core.train("low lower", num_merges=2).tokenizer
    with pytest.raises(TokenIdError, match="out of range") as info:
        tok.decode([token_id])
    assert len(str(info.value)) < 160  # short: never the thousands of digits of the id itself


# ------------------------------------------------------------------ cache keys


def test_texts_whose_short_digests_collide_have_different_keys():
    """Issue 12.13: these two texts share the first 48 bits of their SHA-256."""
    a = CorpusChoice("paste", "pasted text", "low lower newest widest 631852")
    b = CorpusChoice("paste", "pasted text", "low lower newest widest 3700475")
    assert a.digest == b.digest  # the short digest shown to people and put in links
    assert a.sha256 != b.sha256 and len(a.sha256) == 64  # what cache keys use


def test_random_specials_never_hang_training():
    rnd = random.Random(7)
    text = "".join(rnd.choice("ab <>") for _ in range(5000))
    specials = ["".join(rnd.choice("ab<>") for _ in range(rnd.randint(1, 6))) for _ in range(30)]
    try:
        r = bpe_core.train(text, num_merges=20, special_tokens=specials)
    except BPEError as exc:  # everything cut out: an engine error, not a crash
        assert "no words" in str(exc)
    else:
        assert all(a not in specials and b not in specials for a, b in r.merges)

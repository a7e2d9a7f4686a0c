"""The paths :mod:`bench.scaling` measures: what each one calls, on which input kinds, from which size.

A path is one public operation of the engine or of the command line. For one input
kind and one size, :meth:`ScalingPath.prepare` builds the input and whatever the call
needs (a tokenizer, a finished training: untimed setup) and returns a :class:`Case`;
``case.arm()`` does the untimed per-run setup (an emptied cache, a fresh training
whose lazy views are not built yet) and returns the call to time.

Every training learns :data:`MERGES` merges with ``min_frequency=1`` (so that the
adversarial inputs merge at all: on all-distinct characters every pair occurs once
and every merge is a tie among all pairs). Sizes are characters of text, or bytes of
the file(s) a loader reads.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from fnmatch import fnmatch
from functools import cache
from pathlib import Path

from .corpora import REPO
from .scaling_inputs import (
    codes_prefix,
    distinct_chars,
    gpt2_base_vocab,
    gpt2_prefix,
    make_text,
    ranks_prefix,
    ranks_with_token,
    word_count_file,
)

MERGES = 100
"""Merges every training path learns (the CLI paths too: ``--merges 100 --min-frequency 1``)."""
CLAIM_MERGES = 20
"""Claimed merges for ``check_merges`` (a Check-page-sized claim)."""
FIND_MERGES = 5
"""Claimed merges for ``find_settings`` (it trains once per pre-tokenizer and tie rule: 24 trainings)."""
N_LOG_N = "n log n"
"""The growth of a path that sorts what it answers (:attr:`ScalingPath.growth`)."""
TIE_RULES = ("first_seen", "alphabetical", "subword_nmt", "hf_tokenizers")
BUNDLED_TABLES = ("cl100k_base", "o200k_base", "gpt2")
ADVERSARIAL = ("a", "ab", "distinct")
TEXT_KINDS = ("text", *ADVERSARIAL)
WORD_KINDS = ("text", *ADVERSARIAL, "words")


@dataclass(frozen=True)
class Case:
    """One size of one path: the input's real size and the per-run setup that returns the timed call."""

    size: int
    arm: Callable[[], Callable[[], object]]


@dataclass(frozen=True)
class ProcessRun:
    """One run of a separate process: CPU seconds and peak RSS above the baseline run's, and how it ended."""

    cpu: float
    rss_bytes: int
    status: int
    tail: str


@dataclass(frozen=True)
class ScalingPath:
    """One public path of the engine or the CLI, measured by doubling its input.

    Attributes:
        name: the path's name in the report (``--only`` matches it).
        call: the call measured, for the report.
        kinds: the input kinds (:data:`bench.scaling_inputs.KINDS`) it runs on.
        base: the smallest size of a full run (characters, or bytes for ``unit="bytes"``);
            ``bases`` overrides it per kind. :data:`FIRST_SIZES` sets both for the listed paths.
        prepare: ``prepare(kind, n) -> Case``.
        unit: ``"chars"`` or ``"bytes"`` (of the file the call reads).
        process: the call runs a separate process (:class:`ProcessRun`): its time is that
            process's CPU time and its memory its peak RSS, both above a run on 256 characters.
        budget_s: CPU seconds for the whole run (every size and repeat, setup included).
        budget_mb: the address-space limit of the run's process, MB.
        quick: the smallest size for ``--quick`` (default: a sixteenth of ``base``).
        hidden: left out unless ``--only`` names it (the harness's own self-tests).
        growth: ``"n"``, or ``"n log n"`` for a path whose answer is sorted by design (a step
            view ranks every pair of the step, best first): its time exponent is fitted
            against ``n log n`` (see :meth:`bench.scaling.Run.exponent`).
    """

    name: str
    call: str
    kinds: tuple[str, ...]
    base: int
    prepare: Callable[[str, int], Case]
    unit: str = "chars"
    process: bool = False
    budget_s: float = 20.0
    budget_mb: int = 1536
    bases: Mapping[str, int] = field(default_factory=dict)
    quick: int | None = None
    hidden: bool = False
    growth: str = "n"

    def base_for(self, kind: str, quick: bool = False) -> int:
        """The smallest size of a run on ``kind``: a sixteenth of the full run's for ``--quick`` (or ``quick``)."""
        base = self.bases.get(kind, self.base)
        if quick:
            return self.quick if self.quick is not None else max(1, base // 16)
        return base


def _fixed(size: int, call: Callable[[], object]) -> Case:
    """A case whose call needs no per-run setup."""
    return Case(size, lambda: call)


def _on_text(fn: Callable[[str], object]) -> Callable[[str, int], Case]:
    """``prepare`` for a call on the text alone: ``fn(text)``."""

    def prepare(kind: str, n: int) -> Case:
        text = make_text(kind, n)
        return _fixed(n, lambda: fn(text))

    return prepare


# ---------------------------------------------------------------- training and its views


def _trainer(**settings: object) -> Callable[[str], object]:
    from bpe_core import train

    return lambda text: train(text, num_merges=MERGES, min_frequency=1, **settings)


def _train_path(pretokenizer: str, unit: str, kinds: tuple[str, ...], base: int) -> ScalingPath:
    return ScalingPath(
        f"train {pretokenizer}",
        f"train(text, num_merges={MERGES}, pretokenizer={pretokenizer!r}, unit={unit!r}, min_frequency=1)",
        kinds,
        base,
        _on_text(_trainer(pretokenizer=pretokenizer, unit=unit)),
    )


def _view_steps(result: object) -> int:
    """Every step view of every merge (the step player can show any); returns the items built.

    Viewing only a few steps misses the costly ones: on ``"a" * n`` it is the steps where the
    last long runs are merged. Each view ranks every pair of its step (``pair_counts_at``
    sorts the whole table by count, ``tied_at``/``ties_at`` every tied pair by the tie rule),
    so for a fixed number of merges the path is ``n log n`` by design, and its time
    exponent is fitted against ``n log n`` (:attr:`ScalingPath.growth`).
    """
    built = 0
    for k in range(result.num_merges):  # type: ignore[attr-defined]
        result.steps[k]  # type: ignore[attr-defined]
        built += len(result.pair_counts_at(k)) + len(result.tied_at(k)) + len(result.ties_at(k))  # type: ignore[attr-defined]
        built += len(result.word_changes(k))  # type: ignore[attr-defined]
    return built


def _after_training(rule: str, view: Callable[[object], object]) -> Callable[[str, int], Case]:
    """A path that trains (untimed, afresh for every run: views build lazy helpers) and times ``view(result)``."""
    run = _trainer(tie_break=rule)

    def prepare(kind: str, n: int) -> Case:
        text = make_text(kind, n)

        def arm() -> Callable[[], object]:
            result = run(text)
            return lambda: view(result)

        return Case(n, arm)

    return prepare


def _step_paths() -> list[ScalingPath]:
    out = []
    for rule in TIE_RULES:
        out.append(
            ScalingPath(
                f"step views {rule}",
                "steps[k], pair_counts_at(k), tied_at(k), ties_at(k), word_changes(k) for every merge k of a "
                f"fresh training (whitespace_eow, tie_break={rule!r})",
                WORD_KINDS,
                16_000,
                _after_training(rule, _view_steps),
                growth=N_LOG_N,
            )
        )
        out.append(
            ScalingPath(
                f"tied_lists {rule}",
                f"result.tied_lists(10) of a fresh training (whitespace_eow, tie_break={rule!r})",
                WORD_KINDS,
                16_000,
                _after_training(rule, lambda result: result.tied_lists(10)),  # type: ignore[attr-defined]
            )
        )
    return out


def _merge_tree_view(result: object) -> int:
    """``merge_tree`` of the token of every tenth merge (with corpus places, from the training)."""
    from bpe_core import merge_tree

    return sum(merge_tree(result, s.token_id).num_merges() for s in result.summaries[::10])  # type: ignore[attr-defined]


# ---------------------------------------------------------------- tokenizers


TABLE_DISTINCT = 3000
"""How many of :func:`distinct_chars` the trained tables saw (the first ones): the char-level table knows them."""


@cache
def trained_table(unit: str) -> object:
    """A table of 1,000 merges trained on ordinary text plus runs of 'a', 'ab' and distinct characters.

    ``unit="byte"``: GPT-2's pattern and bytes (the Encode page's trained table);
    ``unit="char"``: ``whitespace_eow`` on characters (the Check page's kind).
    """
    from bpe_core import train

    text = " ".join((make_text("text", 200_000), "a" * 4000, "ab" * 2000, distinct_chars(TABLE_DISTINCT)))
    pre = "gpt2" if unit == "byte" else "whitespace_eow"
    return train(text, num_merges=1000, pretokenizer=pre, unit=unit, trace=False).tokenizer


@cache
def tokenizer(table: str) -> object:
    """A bundled table by name, or ``"trained"`` (:func:`trained_table` on bytes); warmed up once."""
    from bpe_core import formats

    tok = trained_table("byte") if table == "trained" else formats.bundled(table)
    tok.encode("Warm up: the lazily built tables, 123 !?")  # type: ignore[attr-defined]
    return tok


def _tokenizer_path(
    name: str,
    call: str,
    table: str,
    fn: Callable[[object, str], object],
    base: int,
    kinds: tuple[str, ...] = TEXT_KINDS,
) -> ScalingPath:
    """A path that times ``fn(tokenizer, text)`` with the tokenizer's per-pre-token cache emptied before each run."""

    def prepare(kind: str, n: int) -> Case:
        tok = tokenizer(table)
        text = make_text(kind, n)

        def arm() -> Callable[[], object]:
            tok.model.clear_cache()  # type: ignore[attr-defined]
            return lambda: fn(tok, text)

        return Case(n, arm)

    return ScalingPath(name, f"{table} {call}, per-pre-token cache emptied", kinds, base, prepare, budget_mb=2048)


def _encode_path(table: str, method: str) -> ScalingPath:
    base = 4_000 if method == "encode_with_trace" else 16_000
    return _tokenizer_path(
        f"{method} {table}", f"tokenizer.{method}(text)", table, lambda tok, text: getattr(tok, method)(text), base
    )


def _other_paths() -> list[ScalingPath]:
    """Public paths the issue does not list: the other merge order, explanations, pre-tokenizing, audits."""
    from bpe_core import audit_vocabulary, pretokenize
    from bpe_core.analysis.compression import token_counts_by_merges

    T = _tokenizer_path  # noqa: N806 - a short alias keeps the table readable
    paths = [
        T(
            "encode sequential trained",
            "tokenizer.encode(text, order='sequential')",
            "trained",
            lambda tok, text: tok.encode(text, order="sequential"),
            16_000,
        ),
        T(
            "encode_with_trace sequential trained",
            "tokenizer.encode_with_trace(text, order='sequential')",
            "trained",
            lambda tok, text: tok.encode_with_trace(text, order="sequential"),
            4_000,
        ),
        T(
            "order_differences trained",
            "tokenizer.order_differences(text)",
            "trained",
            lambda tok, text: tok.order_differences(text),
            4_000,
        ),
        T(
            "token_counts_by_merges trained",
            "token_counts_by_merges(tokenizer, text) (1,000 merges)",
            "trained",
            token_counts_by_merges,
            4_000,
        ),
        T(
            "audit_vocabulary trained",
            "audit_vocabulary(tokenizer, text) (1,000 merges)",
            "trained",
            audit_vocabulary,
            16_000,
        ),
    ]
    for pre in ("gpt2", "gpt4"):
        split = _on_text(lambda text, pre=pre: pretokenize(text, pre))
        paths.append(ScalingPath(f"pretokenize {pre}", f"pretokenize(text, {pre!r})", TEXT_KINDS, 64_000, split))
    return paths


def _decode_path(table: str) -> ScalingPath:
    def prepare(kind: str, n: int) -> Case:
        tok = tokenizer(table)
        ids = tok.encode(make_text(kind, n))  # type: ignore[attr-defined]
        return _fixed(n, lambda: tok.decode(ids))  # type: ignore[attr-defined]

    return ScalingPath(
        f"decode {table}", f"{table} tokenizer.decode(ids of the text)", TEXT_KINDS, 64_000, prepare, budget_mb=2048
    )


# ---------------------------------------------------------------- checking


def _check_merges(text: str) -> object:
    from bpe_core import check_merges

    return check_merges(text, [("a", "a")] * CLAIM_MERGES)


def _find_settings(text: str) -> object:
    from bpe_core import find_settings

    return find_settings(text, [("a", "a")] * FIND_MERGES)


def check_encoding_word(kind: str, n: int) -> str:
    """The word ``check_encoding`` reads: ``n`` characters of ``kind`` without spaces.

    On ``distinct``, characters the char-level table never saw: it knows the first
    :data:`TABLE_DISTINCT` distinct characters, and an unknown character costs about
    twice a known one (the fallback spells it). A word of the first ``n`` would be all
    known at 3,000 characters and 80% unknown at 16,000: a mix that shifts with the size,
    which the time exponent would take for growth.
    """
    if kind == "distinct":
        return distinct_chars(TABLE_DISTINCT + n)[TABLE_DISTINCT:]
    return "".join(make_text(kind, n + n // 4 + 8).split())[:n]


def _check_encoding(kind: str, n: int) -> Case:
    from bpe_core import check_encoding

    tok = trained_table("char")
    word = check_encoding_word(kind, n)
    return _fixed(n, lambda: check_encoding(tok, word, [list(word)]))  # type: ignore[arg-type]


# ---------------------------------------------------------------- file loaders

_BYTES_PER = {"gpt2": 24, "hf": 40, "ranks": 16, "codes": 9}
"""About how many bytes one merge (or rank) takes in each format's file, to pick a table size for a file size."""


def _big(kind: str, n: int) -> str:
    """One symbol of ``n`` characters of an adversarial kind."""
    return make_text(kind, n)


def _load_gpt2(kind: str, n: int) -> Case:
    from bpe_core.formats import load_vocab_merges

    if kind == "text":
        vocab, merges = gpt2_prefix(n // _BYTES_PER["gpt2"])
    else:
        vocab, merges = gpt2_base_vocab(), f"#version: 0.2\n{_big(kind, n)} a\n".encode()
    return _fixed(len(vocab) + len(merges), lambda: load_vocab_merges(vocab, merges, unit="byte", pretokenizer="gpt2"))


def _load_hf(kind: str, n: int) -> Case:
    from bpe_core.formats import load_hf_json, load_vocab_merges, to_hf_json

    merges = n // _BYTES_PER["hf"] if kind == "text" else 0
    doc = to_hf_json(load_vocab_merges(*gpt2_prefix(merges), unit="byte", pretokenizer="gpt2"))
    if kind != "text":
        parsed = json.loads(doc)
        parsed["model"]["merges"].append([_big(kind, n), "a"])
        doc = json.dumps(parsed, ensure_ascii=False)
    data = doc.encode()
    return _fixed(len(data), lambda: load_hf_json(data))


def _load_ranks(kind: str, n: int) -> Case:
    from bpe_core.formats import parse_ranks, tokenizer_from_ranks
    from bpe_core.text.pretokenize import GPT4_PATTERN

    data = ranks_prefix(n // _BYTES_PER["ranks"]) if kind == "text" else ranks_with_token(_big(kind, n).encode())
    return _fixed(len(data), lambda: tokenizer_from_ranks(parse_ranks(data), GPT4_PATTERN))


def _load_codes(kind: str, n: int) -> Case:
    from bpe_core.formats import load_subword_nmt

    if kind == "text":
        data = codes_prefix(n // _BYTES_PER["codes"])
    else:
        data = f"#version: 0.2\n{_big(kind, n)} a\n".encode()
    return _fixed(len(data), lambda: load_subword_nmt(data))


def _load_session(kind: str, n: int) -> Case:
    from bpe_core.formats import load_session, to_session

    text = make_text(kind, n)
    data = to_session(_trainer()(text), corpus_text=text).encode()  # type: ignore[arg-type]
    return _fixed(len(data), lambda: load_session(data))


def _load_word_counts(kind: str, n: int) -> Case:
    from bpe_core import parse_word_counts

    data = word_count_file(make_text(kind, n)) if kind in ("text", "words") else f"{_big(kind, n)}\t1\n".encode()
    return _fixed(len(data), lambda: parse_word_counts(data))


# ---------------------------------------------------------------- the command line

_RUN_LIMITS: dict[str, float] = {}
"""Set by the child process: its CPU budget (``cpu_s``) and address-space limit (``as_bytes``)."""
SCRATCH: dict[str, Path] = {}
"""Set by the child process: ``{"dir": a folder the parent removes after the run}`` for input files."""


def _scratch() -> Path:
    """The folder for input files: the parent's (removed after the run), else a new temporary one."""
    if "dir" not in SCRATCH:
        SCRATCH["dir"] = Path(tempfile.mkdtemp(prefix="bench-scaling-"))
    return SCRATCH["dir"]


def _grandchild_limits() -> Callable[[], None]:
    """A preexec_fn for a CLI run: the CPU seconds left of the run's budget, and the run's address-space limit."""
    used = sum(resource.getrusage(who).ru_utime + resource.getrusage(who).ru_stime for who in (0, -1))
    left = max(1, int(_RUN_LIMITS.get("cpu_s", 3600) - used))
    limit = int(_RUN_LIMITS.get("as_bytes", resource.RLIM_INFINITY))

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (left, left + 2))
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return apply


def run_process(args: list[str]) -> tuple[float, int, int, str]:
    """Run ``args`` to the end; return its CPU seconds, peak RSS in bytes, exit status and last stderr line.

    The status is negative for a signal (``-24``: it spent the CPU budget). Output goes
    to ``/dev/null``; stderr to a temporary file (a traceback may be megabytes).
    """
    with tempfile.TemporaryFile() as err:
        limits = _grandchild_limits()
        proc = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, cwd=REPO, preexec_fn=limits
        )
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(max(0, os.fstat(err.fileno()).st_size - 600))
        tail = err.read().decode("utf-8", "replace").strip().splitlines()
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, proc.returncode, tail[-1][-200:] if tail else ""


def _cli_args(path: Path, json_flag: bool) -> list[str]:
    args = [sys.executable, "-m", "bpe_core", "train", str(path), "--merges", str(MERGES), "--min-frequency", "1"]
    return args + ["--json"] if json_flag else args


@cache
def _cli_baseline(json_flag: bool, kind: str) -> tuple[float, int]:
    """The CLI's CPU seconds and peak RSS on 256 characters of the same kind: min of 3 runs.

    What the interpreter, the imports and the first use of each code path cost, so
    that what remains grows with the input.
    """
    path = _scratch() / f"tiny-{kind}.txt"
    path.write_text(make_text(kind, 256), encoding="utf-8")
    runs = [run_process(_cli_args(path, json_flag)) for _ in range(3)]
    return min(r[0] for r in runs), min(r[1] for r in runs)


def _cli_path(json_flag: bool) -> ScalingPath:
    def prepare(kind: str, n: int) -> Case:
        cpu0, rss0 = _cli_baseline(json_flag, kind)
        file = _scratch() / f"{kind}-{n}.txt"
        file.write_text(make_text(kind, n), encoding="utf-8")
        args = _cli_args(file, json_flag)

        def call() -> ProcessRun:
            cpu, rss, status, tail = run_process(args)
            return ProcessRun(cpu - cpu0, rss - rss0, status, tail)

        return _fixed(n, call)

    flag = " --json" if json_flag else ""
    return ScalingPath(
        f"cli{flag}",
        f"python3 -m bpe_core train FILE --merges {MERGES} --min-frequency 1{flag} (a separate process)",
        WORD_KINDS,
        64_000,
        prepare,
        process=True,
        budget_s=40.0,
        bases={"text": 128_000},
    )


# ---------------------------------------------------------------- the harness's own tests


def _selftest(kind: str, n: int) -> Case:
    """``selftest linear``: n bytes and n steps of a Python loop."""
    return _fixed(n, lambda: (bytearray(n), sum(1 for _ in range(n))))


def _selftest_quadratic(kind: str, n: int) -> Case:
    """n/8 blocks of n bytes: memory and time grow with n squared."""
    return _fixed(n, lambda: [bytes(n) for _ in range(n // 8)])


def _selftest_spin(kind: str, n: int) -> Case:
    def spin() -> None:
        while True:
            pass

    return _fixed(n, spin)


def _selftest_hog(kind: str, n: int) -> Case:
    def hog() -> list[bytes]:
        held = []
        while True:
            held.append(bytes(16 << 20))

    return _fixed(n, hog)


# ---------------------------------------------------------------- the registry


def _registry() -> dict[str, ScalingPath]:
    P = ScalingPath  # noqa: N806 - a short alias keeps the table readable
    paths = [
        _train_path("whitespace_eow", "char", WORD_KINDS, 32_000),
        _train_path("gpt2", "byte", WORD_KINDS, 32_000),
        _train_path("none", "char", TEXT_KINDS, 32_000),
        *_step_paths(),
    ]
    for table in (*BUNDLED_TABLES, "trained"):
        paths += [_encode_path(table, "encode"), _encode_path(table, "encode_with_trace")]
    for table in ("cl100k_base", "trained"):
        paths.append(_decode_path(table))
        paths.append(
            P(
                f"round_trip {table}",
                f"{table} tokenizer.round_trip(text)",
                TEXT_KINDS,
                16_000,
                _encode_path(table, "round_trip").prepare,
                budget_mb=2048,
            )
        )
    paths += [
        P(
            "check_merges",
            f"check_merges(text, {CLAIM_MERGES} claimed merges)",
            WORD_KINDS,
            16_000,
            _on_text(_check_merges),
        ),
        P(
            "find_settings",
            f"find_settings(text, {FIND_MERGES} claimed merges)",
            WORD_KINDS,
            4_000,
            _on_text(_find_settings),
        ),
        P(
            "check_encoding",
            "check_encoding(char-level trained tokenizer, one word of n characters, [its characters])",
            TEXT_KINDS,
            1_000,
            _check_encoding,
        ),
        P(
            "merge_tree",
            "merge_tree(result, token) of every tenth merge of a training (whitespace_eow)",
            WORD_KINDS,
            16_000,
            _after_training("first_seen", _merge_tree_view),
        ),
        P("load gpt2", "load_vocab_merges(vocab.json, merges.txt)", TEXT_KINDS, 32_000, _load_gpt2, "bytes"),
        P("load tokenizer.json", "load_hf_json(tokenizer.json)", TEXT_KINDS, 64_000, _load_hf, "bytes"),
        P(
            "load tiktoken",
            "tokenizer_from_ranks(parse_ranks(file), cl100k pattern)",
            TEXT_KINDS,
            32_000,
            _load_ranks,
            "bytes",
        ),
        P("load subword-nmt", "load_subword_nmt(codes)", TEXT_KINDS, 8_000, _load_codes, "bytes"),
        P(
            "load session",
            "load_session(to_session(training, corpus_text=text))",
            WORD_KINDS,
            16_000,
            _load_session,
            "bytes",
        ),
        P(
            "load word counts",
            "parse_word_counts(word<TAB>count lines)",
            WORD_KINDS,
            32_000,
            _load_word_counts,
            "bytes",
        ),
        _cli_path(False),
        _cli_path(True),
        *_other_paths(),
    ]
    paths += [
        P(
            "selftest linear",
            "bytearray(n) and a loop of n steps",
            ("text",),
            1 << 16,
            _selftest,
            quick=1 << 16,
            hidden=True,
        ),
        P(
            "selftest quadratic",
            "n/8 blocks of n bytes",
            ("text",),
            1 << 9,
            _selftest_quadratic,
            quick=1 << 9,
            hidden=True,
        ),
        P("selftest spin", "an endless loop", ("text",), 1, _selftest_spin, budget_s=1.0, hidden=True),
        P(
            "selftest hog",
            "16 MB blocks until memory runs out",
            ("text",),
            1,
            _selftest_hog,
            budget_mb=256,
            hidden=True,
        ),
    ]
    return {p.name: _sized(p) for p in paths}


_K = 1000
FIRST_SIZES: tuple[tuple[str, dict[str, int], float], ...] = (
    ("train none", {"text": 8 * _K, "a": 8 * _K, "ab": 8 * _K, "distinct": 4 * _K}, 20),
    ("train *", {"text": 16 * _K, "a": 8 * _K, "ab": 8 * _K, "distinct": 4 * _K, "words": 4 * _K}, 20),
    ("step views *", {"text": 8 * _K, "a": _K, "ab": _K, "distinct": 125, "words": 250}, 45),
    ("tied_lists *", {"text": 8 * _K, "a": 4 * _K, "ab": 4 * _K, "distinct": 250, "words": 250}, 20),
    ("encode_with_trace *", {"text": _K, "a": 250, "ab": 250, "distinct": 250}, 20),
    ("encode *", {"text": 8 * _K, "a": 2 * _K, "ab": 2 * _K, "distinct": 4 * _K}, 20),
    ("round_trip *", {"text": 8 * _K, "a": 2 * _K, "ab": 2 * _K, "distinct": 4 * _K}, 20),
    ("decode *", {"text": 32 * _K, "a": 2 * _K, "ab": 2 * _K, "distinct": 8 * _K}, 20),
    ("check_merges", {"text": 8 * _K, "a": _K, "ab": _K, "distinct": 4 * _K, "words": 4 * _K}, 20),
    ("find_settings", {"text": 2 * _K, "a": 500, "ab": 500, "distinct": 125, "words": 125}, 20),
    ("check_encoding", {"text": 62, "a": 62, "ab": 62, "distinct": 500}, 20),
    ("merge_tree", {"text": 8 * _K, "*": 500}, 60),
    ("load gpt2", {"text": 32 * _K, "distinct": 16 * _K, "*": 64 * _K}, 20),
    ("load tokenizer.json", {"distinct": 16 * _K, "*": 64 * _K}, 20),
    ("load tiktoken", {"text": 32 * _K, "distinct": 16 * _K, "*": 64 * _K}, 20),
    ("load subword-nmt", {"text": 8 * _K, "distinct": 16 * _K, "*": 64 * _K}, 20),
    ("load session", {"text": 16 * _K, "*": 8 * _K}, 20),
    ("load word counts", {"text": 32 * _K, "words": 16 * _K, "distinct": 16 * _K, "*": 64 * _K}, 20),
    ("cli*", {"text": 256 * _K, "distinct": 16 * _K, "words": 16 * _K, "*": 4 * _K}, 60),
    ("order_differences *", {"text": 2 * _K, "a": _K, "ab": _K, "distinct": 2 * _K}, 20),
    ("token_counts_by_merges *", {"text": 8 * _K, "*": _K}, 20),
    ("audit_vocabulary *", {"text": 8 * _K, "a": 2 * _K, "ab": 2 * _K, "distinct": 4 * _K}, 20),
    ("pretokenize *", {"distinct": 16 * _K, "*": 64 * _K}, 20),
)
"""The first size of each path on each kind (``"*"``: the other kinds) and its CPU budget in seconds.

The first matching name pattern (:mod:`fnmatch`) wins. Chosen on a 2-core Xeon so that a
linear path takes about 0.05-0.3 s at its largest size (32 times the first): the run under
``tracemalloc`` costs 10-15 times a plain one, and the whole run stays well inside the
budget. Where a path is superlinear today the first sizes are small enough that it still
finishes three or more sizes before it spends the budget.

Every size of a training or step-view run learns all :data:`MERGES` merges: the step views
on ``words`` start at 250 characters (125 one-character words), since 125 characters hold
63 words and so only 63 merges, which made the first doubling cost 1.6 times more than its
size alone (100 merges against 63) and lifted the fitted exponent. Their budget allows the
8,000-character size (about 3 s a view of all 100 merges) five times over.

The command line on ``distinct`` and ``words`` starts at 16,000 characters: its figures are a
whole process's CPU time less a baseline run's (about 0.3 s of start-up and imports), whose
repeats spread by 0.1 s or more on a busy machine, and at 4,000-8,000 characters the
input's own share was 0.00-0.03 s (16,000 distinct characters: repeats from 0.014 to 0.156 s).

``merge_tree`` builds ten trees, each finding its token's places in the corpus: linear, but
2.7 s at 16,000 distinct characters, so its five repeats of every size need more than the
usual 20 s.
"""


def _sized(path: ScalingPath) -> ScalingPath:
    """``path`` with its first sizes and budget from :data:`FIRST_SIZES` (unchanged if no pattern matches)."""
    for pattern, first, budget in FIRST_SIZES:
        if fnmatch(path.name, pattern):
            return replace(path, base=first.get("*", path.base), bases=first, budget_s=budget)
    return path


PATHS: dict[str, ScalingPath] = _registry()
"""Every path by name, in report order."""

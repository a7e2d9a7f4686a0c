"""Cross-checks of :func:`bpe_core.train` against reference trainers on the shared real corpora.

* subword-nmt ``learn_bpe`` (Sennrich's reference implementation, codes format 0.2);
* Hugging Face ``tokenizers`` ``BpeTrainer`` with the byte-level pre-tokenizer;
* :func:`tests.naive_bpe.naive_train`, which recounts every pair before every merge.

Each test says why the two sides are configured to mean the same thing. The corpora
come from ``../shared`` through the ``corpora`` fixture (tests skip when it is absent);
the reference packages are skipped with :func:`pytest.importorskip` when missing.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from collections import Counter

import pytest

from bench.corpora import sample
from bpe_core import TIE_BREAKS, train
from bpe_core.text.pretokenize import GPT4_PATTERN

from .naive_bpe import naive_train

CORPUS_NAMES = ("tinyshakespeare", "wikitext2-test", "taylorswift", "udhr-multiscript", "code")
NUM_MERGES = 1000

SUBWORD_NMT_SIZE = {"udhr-multiscript": 250_000}
"""Characters of real text per corpus for subword-nmt (others whole). Its ``replace_pair`` re-joins
and regex-substitutes every word holding the pair: ~10 s for 1000 merges on the 59k distinct words
of the whole multi-script corpus. A sample spread over the file keeps scripts from all parts of it."""

PAIR_LINE = re.compile(r"pair (\d+): (\S+) (\S+) -> (\S+) \(frequency (\d+)\)\n")
"""One line of ``learn_bpe(..., verbose=True)`` on stderr."""

HF_GPT4_PATTERN = GPT4_PATTERN.replace(r"\p{N}{1,3}+", r"\p{N}{1,3}")
"""cl100k's pattern as Hugging Face's Oniguruma must be given it. Oniguruma's default (Ruby) syntax reads
``{n,m}+`` not as possessive but as ``(?:{n,m})+``, so the verbatim pattern lets digit runs grow without
bound (see test_reference_encoding.py). Dropping that ``+`` changes nothing for Python's ``regex``: the
digit alternative ends right there, so nothing could ever backtrack into it."""


def subword_nmt_learn(source: str, num_merges: int, *, is_dict: bool) -> tuple[list[tuple[str, str]], list[int]]:
    """Run subword-nmt's ``learn_bpe``; return its merges (codes file, header skipped) and their frequencies."""
    learn_bpe = pytest.importorskip("subword_nmt.learn_bpe")
    codes, log = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(log):  # verbose lines (and a tqdm bar, if installed) go to stderr
        learn_bpe.learn_bpe(io.StringIO(source), codes, num_merges, min_frequency=2, verbose=True, is_dict=is_dict)
    lines = codes.getvalue().split("\n")
    assert lines[0] == "#version: 0.2", lines[0]
    assert lines[-1] == ""
    merges = [tuple(line.split(" ")) for line in lines[1:-1]]
    logged = PAIR_LINE.findall(log.getvalue())
    assert [int(m[0]) for m in logged] == list(range(len(merges))), "could not read subword-nmt's verbose log"
    assert [(m[1], m[2]) for m in logged] == merges
    return merges, [int(m[4]) for m in logged]  # type: ignore[misc]


SUBWORD_NMT_SETTINGS = dict(
    pretokenizer="whitespace_eow",
    unit="char",
    end_of_word="attached",
    tie_break="subword_nmt",
    min_frequency=2,
    num_merges=NUM_MERGES,
    trace=False,
)
"""``train`` settings that mean what subword-nmt >= 0.2 does (see test_subword_nmt_word_counts)."""


@pytest.mark.reference
@pytest.mark.parametrize("name", CORPUS_NAMES)
def test_subword_nmt_word_counts(corpora, name):
    """subword-nmt ``learn_bpe`` (is_dict mode) and ``train`` learn the same merges with the same counts.

    Both get the very same ``{word: count}`` table (``str.split`` of the real text), so their
    differing input parsing plays no part. The settings coincide: subword-nmt >= 0.2 glues
    ``</w>`` to each word's last character (``attached``), counts pairs per distinct word
    weighted by its count, picks ``max(stats, key=lambda x: (stats[x], x))`` (highest count,
    then the largest pair of strings: tie rule ``subword_nmt``) and stops below
    ``--min-frequency 2``. Its verbose log gives each merge's pair frequency, our ``step.count``.
    """
    text = corpora[name]
    if name in SUBWORD_NMT_SIZE:
        text = sample(text, SUBWORD_NMT_SIZE[name])
    counts = dict(Counter(text.split()))
    ref_merges, ref_counts = subword_nmt_learn(
        "".join(f"{word} {count}\n" for word, count in counts.items()), NUM_MERGES, is_dict=True
    )
    result = train(counts, **SUBWORD_NMT_SETTINGS)
    assert len(ref_merges) == NUM_MERGES
    assert result.merges == ref_merges
    assert [s.count for s in result.steps] == ref_counts


@pytest.mark.reference
@pytest.mark.parametrize("name", ["tinyshakespeare", "wikitext2-test"])
def test_subword_nmt_raw_text(corpora, name):
    """subword-nmt ``learn_bpe`` on raw text and ``train(text, pretokenizer="whitespace_eow")`` agree.

    subword-nmt reads words with ``line.strip('\\r\\n ').split(' ')`` (empty words dropped);
    ``whitespace_eow`` uses ``str.split()``. The two cut the same words exactly when the only
    whitespace in the text is spaces and newlines, which these two corpora satisfy (checked
    here; taylorswift has tabs and udhr-multiscript has no-break spaces, which subword-nmt
    would keep inside words). The other settings are as in test_subword_nmt_word_counts.
    """
    text = corpora[name]
    assert {ch for ch in text if ch.isspace()} <= {" ", "\n"}
    ref_merges, ref_counts = subword_nmt_learn(text, NUM_MERGES, is_dict=False)
    result = train(text, **SUBWORD_NMT_SETTINGS)
    assert len(ref_merges) == NUM_MERGES
    assert result.merges == ref_merges
    assert [s.count for s in result.steps] == ref_counts


# ----------------------------------------------------------------- Hugging Face tokenizers


def hf_train(text: str, num_merges: int, pretokenizer: str) -> list[tuple[str, str]]:
    """Train a Hugging Face byte-level BPE on ``text`` (one sequence); return its merges in rank order."""
    tokenizers = pytest.importorskip("tokenizers")
    pre = tokenizers.pre_tokenizers
    tok = tokenizers.Tokenizer(tokenizers.models.BPE())
    if pretokenizer == "gpt2":
        tok.pre_tokenizer = pre.ByteLevel(add_prefix_space=False)  # use_regex=True: GPT-2's pattern
    else:
        tok.pre_tokenizer = pre.Sequence(
            [
                pre.Split(tokenizers.Regex(HF_GPT4_PATTERN), behavior="isolated"),
                pre.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        )
    trainer = tokenizers.trainers.BpeTrainer(
        vocab_size=256 + num_merges,
        min_frequency=2,
        show_progress=False,
        initial_alphabet=pre.ByteLevel.alphabet(),
        special_tokens=[],
    )
    tok.train_from_iterator([text], trainer=trainer)
    merges = json.loads(tok.to_str())["model"]["merges"]
    # newer versions write ["a", "b"], older ones "a b" (byte-level symbols never hold a space)
    return [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in merges]


@pytest.mark.reference
@pytest.mark.parametrize("pretokenizer", ["gpt2", "gpt4"])
@pytest.mark.parametrize("name", CORPUS_NAMES)
def test_hf_bpe_trainer(corpora, name, pretokenizer):
    """Hugging Face ``BpeTrainer`` and ``train(unit="byte", tie_break="hf_tokenizers")`` learn the same merges.

    The settings coincide: ``ByteLevel(add_prefix_space=False)`` splits with GPT-2's pattern
    (our ``gpt2``; for ``gpt4`` a ``Split`` with cl100k's pattern, see HF_GPT4_PATTERN, then
    ``ByteLevel`` without its own regex) and maps bytes to GPT-2's byte-to-unicode characters,
    our byte-unit display strings; ``initial_alphabet=ByteLevel.alphabet()`` gives all 256
    bytes, as the byte unit does; with no special tokens ``vocab_size=256 + N`` leaves room
    for exactly N merges; ``min_frequency=2`` is ours. Ties go to the smallest pair of HF ids
    (alphabet sorted by character, then merges): tie rule ``hf_tokenizers``. The whole text is
    one sequence, as ``train`` sees it.
    """
    text = corpora[name]
    ref = hf_train(text, NUM_MERGES, pretokenizer)
    result = train(
        text,
        num_merges=NUM_MERGES,
        pretokenizer=pretokenizer,
        unit="byte",
        tie_break="hf_tokenizers",
        min_frequency=2,
        trace=False,
    )
    assert len(ref) == NUM_MERGES
    assert result.merges == ref


# ----------------------------------------------------------------- naive reference trainer

NAIVE_SIZE = 50_000
NAIVE_MERGES = (50, 300)
NAIVE_SETTINGS = (
    dict(pretokenizer="whitespace_eow", unit="char", end_of_word="separate"),
    dict(pretokenizer="whitespace_eow", unit="char", end_of_word="attached"),
    dict(pretokenizer="gpt2", unit="byte"),
    dict(pretokenizer="gpt4", unit="byte"),
    dict(pretokenizer="trailing_space", unit="char"),
)
"""Crossed with corpora and tie rules as a Latin square: every tie rule meets every setting once."""


@pytest.mark.reference
@pytest.mark.parametrize("tie_break", list(TIE_BREAKS))
@pytest.mark.parametrize("name", CORPUS_NAMES)
def test_fast_trainer_equals_naive(corpora, name, tie_break):
    """The incremental trainer makes the same merges with the same counts as ``naive_train``.

    ``naive_train`` recounts every pair from scratch before each merge (Sennrich et al. 2016,
    Algorithm 1, verbatim) and computes each tie rule from its definition, so any slip in the
    incremental index, the lazy heap or the tie keys shows up as a different pair or count.
    A 50 KB real-text sample per corpus keeps the naive side to about a second.
    """
    settings = NAIVE_SETTINGS[(CORPUS_NAMES.index(name) + list(TIE_BREAKS).index(tie_break)) % len(NAIVE_SETTINGS)]
    text = sample(corpora[name], NAIVE_SIZE)
    expected = naive_train(text, max(NAIVE_MERGES), tie_break=tie_break, **settings)
    assert len(expected) == max(NAIVE_MERGES)
    for n, trace in zip(NAIVE_MERGES, (False, True)):  # trace=True also reads the heap for top pairs and ties
        result = train(text, num_merges=n, tie_break=tie_break, trace=trace, **settings)
        assert [(s.pair, s.count) for s in result.steps] == expected[:n], f"{n} merges, {settings}"


@pytest.mark.reference
@pytest.mark.parametrize("tie_break", list(TIE_BREAKS))
def test_fast_trainer_equals_naive_without_pretokenizer(corpora, tie_break):
    """``pretokenizer="none"``: the whole sample is one word of thousands of symbols.

    Checks the positional index where a single word holds many (overlapping) occurrences,
    e.g. runs of spaces in code, against ``naive_train``; byte unit, a 12 KB sample of code.
    """
    text = sample(corpora["code"], 12_000)
    expected = naive_train(text, 100, pretokenizer="none", unit="byte", tie_break=tie_break)
    result = train(text, num_merges=100, pretokenizer="none", unit="byte", tie_break=tie_break)
    assert [(s.pair, s.count) for s in result.steps] == expected

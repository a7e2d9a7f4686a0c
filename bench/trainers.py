"""The training contenders: bpe_core in several settings and the reference trainers, side by side.

Each :class:`Contender` has an untimed ``prepare`` step, a timed ``run`` and an
untimed ``merges`` step that turns what ``run`` returned into a list of
``(left, right)`` string pairs, so that every pairing can also be checked for
identical merge tables.

The pairings (see :data:`PAIRINGS`) put side by side settings that do the same work:

* ``bpe_ws_*`` vs ``hf_ws``: Hugging Face ``BpeTrainer`` with ``WhitespaceSplit`` and
  ``end_of_word_suffix="</w>"`` against ``train(pretokenizer="whitespace_eow",
  end_of_word="attached", unit="char", tie_break="hf_tokenizers")``. Both cut words at
  Unicode whitespace and glue ``</w>`` to each word's last character; HF orders the
  suffixed characters in its own way, so ties can go differently (the report says where
  the tables first differ, if they do).
* ``bpe_byte_*`` vs ``hf_byte``: ``ByteLevel(add_prefix_space=False)`` with all 256 bytes
  as initial alphabet against ``train(pretokenizer="gpt2", unit="byte",
  tie_break="hf_tokenizers")``: identical merges (tests/test_reference_training.py).
* ``bpe_snmt`` vs ``subword_nmt``: ``learn_bpe`` on the raw text against
  ``train(pretokenizer="whitespace_eow", end_of_word="attached", tie_break="subword_nmt")``.
  subword-nmt splits on ``' '`` only, so on text with tabs or no-break spaces the word
  sets (and so the tables) differ slightly; the report says so where they do.
* ``naive`` vs ``bpe_naive``: :func:`tests.naive_bpe.naive_train`, which recounts every
  pair before every merge, against ``train`` with the same settings (trace on).

Every contender uses ``min_frequency=2``.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Merges = list[tuple[str, str]]


@dataclass(frozen=True)
class Contender:
    """One trainer in one configuration.

    Attributes:
        key: a short identifier (``bpe_ws_trace``).
        label: what the report prints.
        library: ``bpe_core``, ``tokenizers``, ``subword-nmt``.
        run: ``run(text, num_merges, prepared) -> raw`` (the timed call).
        prepare: ``prepare(text, num_merges) -> prepared`` (untimed).
        merges: ``merges(raw) -> [(left, right), ...]`` (untimed).
        trace: for bpe_core, whether the full trace is recorded.
    """

    key: str
    label: str
    library: str
    run: Callable[[str, int, Any], Any]
    prepare: Callable[[str, int], Any] = field(default=lambda text, n: None)
    merges: Callable[[Any], Merges] = field(default=lambda raw: list(raw.merges))
    trace: bool | None = None


# ----------------------------------------------------------------- bpe_core

WS_SETTINGS = dict(pretokenizer="whitespace_eow", end_of_word="attached", unit="char", tie_break="hf_tokenizers")
BYTE_SETTINGS = dict(pretokenizer="gpt2", unit="byte", tie_break="hf_tokenizers")
SNMT_SETTINGS = dict(pretokenizer="whitespace_eow", end_of_word="attached", unit="char", tie_break="subword_nmt")


def _bpe(settings: dict, trace: bool) -> Callable[[str, int, Any], Any]:
    def run(text: str, num_merges: int, _prepared: Any) -> Any:
        from bpe_core import train

        return train(text, num_merges=num_merges, min_frequency=2, trace=trace, **settings)

    return run


# ----------------------------------------------------------------- Hugging Face tokenizers


def _hf_merges(tok: Any) -> Merges:
    merges = json.loads(tok.to_str())["model"]["merges"]
    # newer versions write ["a", "b"], older ones "a b"
    return [tuple(m) if isinstance(m, list) else tuple(m.split(" ", 1)) for m in merges]  # type: ignore[misc]


def _alphabet_with_suffix(text: str) -> int:
    """The base symbols HF starts from with ``</w>``: every character, plus each word-final one + ``</w>``."""
    words = set(text.split())
    chars: set[str] = set()
    for w in words:
        chars.update(w)
    return len(chars) + len({w[-1] for w in words})


def _hf_ws_prepare(text: str, num_merges: int) -> Any:
    return _alphabet_with_suffix(text) + num_merges


def _hf_ws_run(text: str, num_merges: int, vocab_size: int) -> Any:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE(end_of_word_suffix="</w>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, min_frequency=2, show_progress=False, end_of_word_suffix="</w>", special_tokens=[]
    )
    tok.train_from_iterator([text], trainer=trainer)
    return tok


def _hf_byte_run(text: str, num_merges: int, _prepared: Any) -> Any:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(
        vocab_size=256 + num_merges,
        min_frequency=2,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=[],
    )
    tok.train_from_iterator([text], trainer=trainer)
    return tok


# ----------------------------------------------------------------- subword-nmt


def _snmt_run(text: str, num_merges: int, _prepared: Any) -> str:
    from subword_nmt import learn_bpe

    codes = io.StringIO()
    with contextlib.redirect_stderr(io.StringIO()):  # a tqdm bar, if installed, goes to stderr
        learn_bpe.learn_bpe(io.StringIO(text), codes, num_merges, min_frequency=2)
    return codes.getvalue()


def _snmt_merges(codes: str) -> Merges:
    lines = codes.split("\n")
    if not lines or lines[0] != "#version: 0.2":
        raise RuntimeError(f"unexpected subword-nmt codes header {lines[:1]}")
    return [tuple(line.split(" ")) for line in lines[1:] if line]  # type: ignore[misc]


# ----------------------------------------------------------------- naive


def _naive_run(text: str, num_merges: int, _prepared: Any) -> list:
    from tests.naive_bpe import naive_train

    return naive_train(text, num_merges, min_frequency=2, **SNMT_SETTINGS)


def _naive_merges(steps: list) -> Merges:
    return [pair for pair, _count in steps]


CONTENDERS: dict[str, Contender] = {
    c.key: c
    for c in (
        Contender("bpe_ws_trace", "bpe_core whitespace_eow, trace on", "bpe_core", _bpe(WS_SETTINGS, True), trace=True),
        Contender(
            "bpe_ws_notrace", "bpe_core whitespace_eow, trace off", "bpe_core", _bpe(WS_SETTINGS, False), trace=False
        ),
        Contender(
            "hf_ws",
            "tokenizers BpeTrainer, WhitespaceSplit + </w>",
            "tokenizers",
            _hf_ws_run,
            prepare=_hf_ws_prepare,
            merges=_hf_merges,
        ),
        Contender("bpe_byte_trace", "bpe_core gpt2/byte, trace on", "bpe_core", _bpe(BYTE_SETTINGS, True), trace=True),
        Contender(
            "bpe_byte_notrace", "bpe_core gpt2/byte, trace off", "bpe_core", _bpe(BYTE_SETTINGS, False), trace=False
        ),
        Contender("hf_byte", "tokenizers BpeTrainer, ByteLevel", "tokenizers", _hf_byte_run, merges=_hf_merges),
        Contender(
            "bpe_snmt",
            "bpe_core whitespace_eow, subword_nmt ties, trace on",
            "bpe_core",
            _bpe(SNMT_SETTINGS, True),
            trace=True,
        ),
        Contender("subword_nmt", "subword-nmt learn_bpe", "subword-nmt", _snmt_run, merges=_snmt_merges),
        Contender("naive", "tests.naive_bpe (recount every merge)", "bpe_core", _naive_run, merges=_naive_merges),
    )
}
"""Every contender by key."""

MAIN_KEYS = (
    "bpe_ws_trace",
    "bpe_ws_notrace",
    "hf_ws",
    "bpe_byte_trace",
    "bpe_byte_notrace",
    "hf_byte",
    "bpe_snmt",
    "subword_nmt",
)
"""The contenders timed on whole corpora at every merge budget (``naive`` runs on its own sample)."""


@dataclass(frozen=True)
class Pairing:
    """Two contenders compared: ``ratio = seconds(slow) / seconds(fast)`` as the report states it.

    Attributes:
        ours: the bpe_core contender.
        ref: the reference contender.
        label: the column heading.
        speedup: ``True`` when the figure is ``ref / ours`` (how many times faster we are),
            ``False`` when it is ``ours / ref`` (how many times the reference's time we take).
    """

    ours: str
    ref: str
    label: str
    speedup: bool

    @property
    def args(self) -> tuple[str, str, bool]:
        """``(ours, ref, speedup)``, the arguments of :func:`bench.report.pairing_ratio`."""
        return self.ours, self.ref, self.speedup


PAIRINGS = (
    Pairing("bpe_ws_trace", "hf_ws", "whitespace, trace on / HF", False),
    Pairing("bpe_ws_notrace", "hf_ws", "whitespace, trace off / HF", False),
    Pairing("bpe_byte_trace", "hf_byte", "byte-level, trace on / HF", False),
    Pairing("bpe_byte_notrace", "hf_byte", "byte-level, trace off / HF", False),
    Pairing("bpe_snmt", "subword_nmt", "subword-nmt / ours (trace on)", True),
)
"""The ratio columns of the training table."""

NAIVE_PAIRING = Pairing("bpe_snmt", "naive", "naive / ours (trace on)", True)


def first_difference(a: Merges, b: Merges) -> int | None:
    """The first index where two merge tables differ (``None`` if identical, length included)."""
    for k, (x, y) in enumerate(zip(a, b)):
        if tuple(x) != tuple(y):
            return k
    return None if len(a) == len(b) else min(len(a), len(b))

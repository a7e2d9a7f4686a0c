"""Only the split patterns written in this package run without the ``regex`` time limit.

The limit slows matching by about 60%, so the published GPT-2, GPT-4 (cl100k_base) and GPT-4o (o200k_base)
patterns, known to match in linear time, run without it; every pattern that arrives from outside (a
``tokenizer.json``, a tiktoken sidecar, a session file, a caller) keeps it, even one that merely looks like a
trusted pattern in a Hugging Face ``Split``.
"""

from __future__ import annotations

import importlib

import pytest

from bpe_core.formats import tiktoken_ranks
from bpe_core.formats._common import WHOLE_TEXT_PATTERN

from .test_hostile import run_limited

pt = importlib.import_module("bpe_core.text.pretokenize")


@pytest.mark.parametrize(
    "pattern",
    [
        pt.GPT2_PATTERN,
        pt.GPT4_PATTERN,
        tiktoken_ranks.O200K_PATTERN,
        tiktoken_ranks.R50K_PATTERN,
        WHOLE_TEXT_PATTERN,
    ],
)
def test_the_packages_own_patterns_are_trusted_and_split_alike(pattern):
    compiled = pt.compiled_pattern(pattern)
    assert compiled.trusted
    text = "Hello, world!  It's 2026:\n\tnaïve café 12345 — done.\r\n"
    assert compiled.findall(text) == [m for m in compiled.regex.findall(text, timeout=5) if m]


def test_patterns_from_outside_keep_the_time_limit():
    assert not pt.compiled_pattern(r"(a|a)+$").trusted
    assert not pt.compiled_pattern(pt.HFSplit(pt.GPT2_PATTERN, "Isolated", False)).trusted
    out = run_limited(  # in a child: were the limit ever lost, this match would run for hours
        """
        from bpe_core.errors import PatternError
        from bpe_core.text.pretokenize import compiled_pattern
        try:
            compiled_pattern(r"(a|aa)+$").findall("a" * 40 + "!")
            report(error=None)
        except PatternError as exc:
            report(error=str(exc))
        """,
        cpu_seconds=60,
    )
    assert "backtracks catastrophically" in (out["error"] or "")

"""The token-tax benchmark: what the Languages page computes, as ratios measured in one process.

``python3 -m bench.languages [--repeats N]`` prints, each as the median of N runs (CPU seconds):

* premium curves over a table trained on the UDHR sample (every ``k`` at once, from one traced encoding per
  language) against encoding the same 84 sections once with the same table (``token_counts``): what the
  curves cost over the counts they end at;
* the curves on 42 and on 84 languages, and over the first half and the whole of the table: both ratios
  should be near 2 (cost grows linearly with the text and with the table);
* ``token_premiums`` with the shipped GPT-2 / cl100k_base / o200k_base against tiktoken's ``encode_ordinary``
  of the same sections (tiktoken is a test and benchmark dependency).
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Callable
from typing import Any

import bpe_core
from bpe_core import Tokenizer
from bpe_core.analysis.languages import token_counts
from bpe_core.formats import bundled

from .measure import REPO, timed_cpu

UDHR = REPO / "sample_corpora" / "udhr-multiscript.txt"
TRAINING = {"num_merges": 2000, "pretokenizer": "gpt2", "unit": "byte"}
"""The Languages page's "train on the UDHR" settings."""


def median_cpu(fn: Callable[[Any], Any], repeats: int, setup: Callable[[], Any] = lambda: None) -> float:
    """The median process CPU seconds of ``repeats`` runs of ``fn(setup())``, ``setup`` left out of the time."""
    times = []
    for _ in range(repeats):
        arg = setup()
        times.append(timed_cpu(lambda arg=arg: fn(arg))[1])
    return statistics.median(times)


def _tiktoken(name: str) -> Any:
    """tiktoken's encoding for a shipped table, built from the shipped files (no network)."""
    import tiktoken
    import tiktoken.load

    from bpe_core.formats._common import rendered_to_bytes
    from bpe_core.formats.tiktoken_ranks import O200K_PATTERN
    from bpe_core.text.pretokenize import GPT2_PATTERN, GPT4_PATTERN

    folder = REPO / "bpe_core" / "formats" / "data"
    if name == "gpt2":
        encoder = json.loads((folder / "encoder.json").read_text(encoding="utf-8"))
        ranks = {rendered_to_bytes(k): v for k, v in encoder.items() if k != "<|endoftext|>"}
        return tiktoken.Encoding(name, pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens={})
    pattern = GPT4_PATTERN if name == "cl100k_base" else O200K_PATTERN
    ranks = tiktoken.load.load_tiktoken_bpe(str(folder / f"{name}.tiktoken"))
    return tiktoken.Encoding(name, pat_str=pattern, mergeable_ranks=ranks, special_tokens={})


def _bytes(sections: dict[str, bpe_core.ParallelSection]) -> int:
    return sum(len(s.text.encode("utf-8")) for s in sections.values())


def main(repeats: int = 3) -> None:
    """Measure and print every ratio (see the module docstring)."""
    text = UDHR.read_text(encoding="utf-8")
    sections = bpe_core.parallel_sections(text, collection="UDHR")
    result = bpe_core.train(text, **TRAINING)
    half_sections = dict(list(sections.items())[: len(sections) // 2])
    half_table = Tokenizer.from_merges(result.merges[: len(result.merges) // 2], pretokenizer="gpt2", unit="byte")

    def fresh(tok: Tokenizer) -> Tokenizer:
        return tok.with_fallback("unk")  # a separate model: no encoding cache carried over between runs

    def trained() -> Tokenizer:
        return fresh(result.tokenizer)

    curves = median_cpu(lambda tok: bpe_core.premium_curves(tok, sections), repeats, trained)
    counts = median_cpu(lambda tok: token_counts(tok, sections), repeats, trained)
    half_text = median_cpu(lambda tok: bpe_core.premium_curves(tok, half_sections), repeats, trained)
    half_merges = median_cpu(lambda tok: bpe_core.premium_curves(tok, sections), repeats, lambda: fresh(half_table))
    print(f"UDHR: {len(sections)} languages, {sum(len(s.text) for s in sections.values()):,} characters")
    print(f"premium curves, {result.num_merges:,} merges: {curves:.2f} s CPU; one encoding of every section "
          f"{counts:.2f} s; ratio {curves / counts:.2f}")  # fmt: skip
    grown = _bytes(sections) / _bytes(half_sections)
    print(f"84 / 42 languages ({grown:.2f}x the UTF-8 bytes): {curves / half_text:.2f}x the time; "
          f"{result.num_merges:,} / {result.num_merges // 2:,} merges: {curves / half_merges:.2f}x")  # fmt: skip
    for name in ("gpt2", "cl100k_base", "o200k_base"):
        tok, enc = bundled(name), _tiktoken(name)
        ours = median_cpu(lambda t: bpe_core.token_premiums(t, sections), repeats, lambda tok=tok: fresh(tok))
        theirs = median_cpu(lambda _: [len(enc.encode_ordinary(s.text)) for s in sections.values()], repeats)  # noqa: B023
        print(f"token_premiums {name}: {ours:.2f} s CPU; tiktoken {theirs:.3f} s; ratio {ours / theirs:.1f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    main(parser.parse_args().repeats)

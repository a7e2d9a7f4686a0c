"""The encoding benchmark: bpe_core's ``Tokenizer.encode`` against tiktoken and Hugging Face tokenizers.

Three merge tables per corpus:

* ``trained``: a byte-level table (GPT-2 pattern) trained here on that corpus;
  tiktoken gets its tokens as mergeable ranks (rank = our id), Hugging Face a
  ``BPE`` model with our ``vocab`` and ``merges`` and ``ByteLevel(add_prefix_space=False)``;
* ``gpt2`` and ``cl100k_base``: the real tables shipped with bpe_core
  (``bpe_core.formats.bundled``); tiktoken is built from OpenAI's published files
  in ``../shared/reference`` (the repository's own copies where that is absent),
  Hugging Face from our ``tokenizer.json`` export (:func:`bpe_core.formats.to_hf_json`).

Each side encodes the whole corpus in one call. Ours is timed *cold* (the
per-pre-token cache cleared before every run: the honest figure, as tiktoken
keeps no such cache) and *warm* (right after, with the cache full). The ids
of ours (cold), tiktoken and HF must be identical.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .corpora import REFERENCE_DIR, REPO
from .measure import Timing, timed_cpu


@dataclass
class EncodeRow:
    """One (table, corpus) measurement."""

    table: str
    corpus: str
    megabytes: float
    tokens: int
    pieces: int = 0
    distinct_pieces: int = 0
    timings: dict[str, Timing] = field(default_factory=dict)
    ids_identical: dict[str, bool] = field(default_factory=dict)

    def mb_per_s(self, key: str) -> float:
        """Megabytes (10^6 bytes of UTF-8) per second of contender ``key`` (median time)."""
        return self.megabytes / self.timings[key].median

    def ratio(self, key: str, ref: str, cpu: bool = False) -> float:
        """``time(key) / time(ref)`` (medians; of process CPU time with ``cpu``)."""
        if cpu:
            return self.timings[key].cpu_median / self.timings[ref].cpu_median
        return self.timings[key].median / self.timings[ref].median


KEYS = ("ours_cold", "ours_warm", "tiktoken", "hf_encode", "hf_batch")
"""``hf_batch`` is ``encode_batch`` over the corpus's lines (tokenizers' thread pool; ids not compared)."""


def _hf_pre_tokenizer(pretokenizer: str) -> Any:
    from tokenizers import Regex, pre_tokenizers

    from bpe_core.text.pretokenize import GPT4_PATTERN

    if pretokenizer == "gpt2":
        return pre_tokenizers.ByteLevel(add_prefix_space=False)
    # Oniguruma reads cl100k's `{1,3}+` as repetition, not possessive (tests/test_reference_encoding.py)
    pattern = GPT4_PATTERN.replace(r"\p{N}{1,3}+", r"\p{N}{1,3}")
    return pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(pattern), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )


def trained_contenders(text: str, num_merges: int, pretokenizer: str = "gpt2") -> tuple[Any, Any, Any]:
    """``(ours, tiktoken_encoding, hf_tokenizer)`` for a byte-level table trained on ``text``."""
    import tiktoken
    import tokenizers

    from bpe_core import train
    from bpe_core.text.pretokenize import REGEX_PATTERNS

    tok = train(text, num_merges=num_merges, pretokenizer=pretokenizer, unit="byte", trace=False).tokenizer
    ranks = {tok.model.token_bytes(i): i for i in range(len(tok))}
    if len(ranks) != len(tok):
        raise RuntimeError("two ids share the same bytes: not a tiktoken rank table")
    enc = tiktoken.Encoding(
        name="bpe_core", pat_str=REGEX_PATTERNS[pretokenizer], mergeable_ranks=ranks, special_tokens={}
    )
    hf = tokenizers.Tokenizer(tokenizers.models.BPE(vocab=tok.model.vocab, merges=tok.model.merges))
    hf.pre_tokenizer = _hf_pre_tokenizer(pretokenizer)
    return tok, enc, hf


def bundled_contenders(name: str) -> tuple[Any, Any, Any]:
    """``(ours, tiktoken_encoding, hf_tokenizer)`` for a real table (``gpt2`` or ``cl100k_base``)."""
    import tiktoken
    import tiktoken.load
    import tokenizers

    from bpe_core.formats import bundled, to_hf_json
    from bpe_core.formats._common import rendered_to_bytes
    from bpe_core.text.pretokenize import GPT2_PATTERN, GPT4_PATTERN

    tok = bundled(name)
    shipped = REPO / "bpe_core" / "formats" / "data"
    if name == "gpt2":
        path = REFERENCE_DIR / "gpt2" / "encoder.json"
        if not path.exists():
            path = shipped / "encoder.json"
        encoder = json.loads(path.read_text(encoding="utf-8"))
        ranks = {rendered_to_bytes(k): v for k, v in encoder.items() if k != "<|endoftext|>"}
        enc = tiktoken.Encoding("gpt2", pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens={})
    else:
        path = REFERENCE_DIR / "cl100k_base.tiktoken"
        if not path.exists():
            path = shipped / "cl100k_base.tiktoken"
        ranks = tiktoken.load.load_tiktoken_bpe(str(path))
        enc = tiktoken.Encoding("cl100k_base", pat_str=GPT4_PATTERN, mergeable_ranks=ranks, special_tokens={})
    hf = tokenizers.Tokenizer.from_str(to_hf_json(tok))
    return tok, enc, hf


def clear_caches(tok: Any) -> None:
    """Empty ``tok``'s per-pre-token caches (the next encode is cold)."""
    tok.model.clear_cache()


def measure_encoding(
    table: str, corpus: str, text: str, contenders: tuple[Any, Any, Any], repeats: int, log=print
) -> EncodeRow:
    """Time the three encoders on ``text`` (interleaved, ``repeats`` times) and check their ids."""
    from bpe_core.text.pretokenize import compiled_pattern

    tok, enc, hf = contenders
    lines = text.splitlines(keepends=True)
    row = EncodeRow(table, corpus, len(text.encode("utf-8")) / 1e6, 0)
    row.timings = {k: Timing() for k in KEYS}
    for r in range(repeats):
        clear_caches(tok)
        t, cpu, ours = timed_cpu(lambda: tok.encode(text))
        row.timings["ours_cold"].add(t, cpu)
        t, cpu, warm = timed_cpu(lambda: tok.encode(text))
        row.timings["ours_warm"].add(t, cpu)
        t, cpu, theirs = timed_cpu(lambda: enc.encode_ordinary(text))
        row.timings["tiktoken"].add(t, cpu)
        t, cpu, hf_ids = timed_cpu(lambda: hf.encode(text, add_special_tokens=False).ids)
        row.timings["hf_encode"].add(t, cpu)
        t, cpu, _ = timed_cpu(lambda: hf.encode_batch(lines, add_special_tokens=False))
        row.timings["hf_batch"].add(t, cpu)
        if r == 0:
            row.tokens = len(ours)
            pieces = compiled_pattern(tok.pre_tokenizer.pattern).findall(text)
            row.pieces, row.distinct_pieces = len(pieces), len(set(pieces))
            del pieces
            row.ids_identical = {"warm": warm == ours, "tiktoken": theirs == ours, "hf": hf_ids == ours}
        del ours, warm, theirs, hf_ids
    log(
        f"  encode {table:12} {corpus:17} ours {row.mb_per_s('ours_cold'):5.2f} MB/s cold, "
        f"{row.mb_per_s('ours_warm'):5.2f} warm; tiktoken {row.mb_per_s('tiktoken'):5.2f}; "
        f"HF {row.mb_per_s('hf_encode'):5.2f}; x{row.ratio('ours_cold', 'tiktoken'):.2f} tiktoken; "
        f"ids {'identical' if all(row.ids_identical.values()) else 'DIFFER ' + str(row.ids_identical)}"
    )
    return row

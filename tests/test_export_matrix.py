"""Every export reloaded by the real library, across units, pre-tokenizers, end-of-word styles and fallbacks.

For each combination and each format, the export either is refused with a
reason (:class:`~bpe_core.formats.ExportError`) or the reference library that
reads the format gives bpe_core's ids (token strings for subword-nmt codes) on
texts with spaces, newlines, special tokens and characters outside the alphabet.
"""

from __future__ import annotations

import io
import json

import pytest

from bpe_core import train
from bpe_core.formats import ExportError, export, segments
from bpe_core.formats.export import REFERENCE_CHECKS, prove

tokenizers = pytest.importorskip("tokenizers", reason="Hugging Face tokenizers is a test-only dependency")
tiktoken = pytest.importorskip("tiktoken", reason="tiktoken is a test-only dependency")
apply_bpe = pytest.importorskip("subword_nmt.apply_bpe", reason="subword-nmt is a test-only dependency")

CORPUS = (
    "low lower lowest newer wider <|endoftext|> the thé <unk> a<unk>b 1234 12\n"
    "low low newest widest lower  wider\tnewer, (low)! <0x41>"
) * 8
INSIDE = ["lower newest", "  wider\tlow\n newer  ", "the <|endoftext|>thé lowest", "<unk> a<unk>b", "1234, (low)!"]
OUTSIDE = ["Ωmega café 👍", "low🙂", "lowerZ Zlow", "x"]

PRETOKENIZERS = [
    ("whitespace_eow", "attached"),
    ("whitespace_eow", "separate"),
    ("whitespace", None),
    ("trailing_space", None),
    ("gpt2", None),
    ("gpt4", None),
    ("none", None),
]
SETTINGS = [
    (unit, pre, eow, fallback)
    for unit in ("char", "byte")
    for pre, eow in PRETOKENIZERS
    for fallback in (("keep", "unk", "bytes") if unit == "char" else ("keep",))
]


def _label(s: tuple) -> str:
    return "-".join(str(x) for x in s if x is not None)


def _tokenizer(unit: str, pre: str, eow: str | None, fallback: str):
    kw = {"end_of_word": eow} if eow else {}
    result = train(CORPUS, num_merges=40, unit=unit, pretokenizer=pre, special_tokens=["<|endoftext|>"], **kw)
    return result.tokenizer.with_fallback(fallback) if unit == "char" else result.tokenizer


def _texts(tok, fallback: str) -> list[str]:
    """Characters outside the alphabet have no id in any file under "keep" (it invents ids while encoding)."""
    return INSIDE + ([] if tok.model.unit == "char" and fallback == "keep" else OUTSIDE)


def _hf_ids(files: dict[str, bytes], texts: list[str]) -> list[list[int]]:
    hf = tokenizers.Tokenizer.from_str(files["tokenizer.json"].decode())
    return [hf.encode(t, add_special_tokens=False).ids for t in texts]


def _hf_pair_ids(tok, files: dict[str, bytes], texts: list[str], tmp_path) -> list[list[int]]:
    """vocab.json + merges.txt read by tokenizers' ``BPE.from_file`` with the pair's convention."""
    from tokenizers import models, pre_tokenizers

    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    vocab = json.loads(files["vocab.json"])
    options: dict = {}
    if tok.model.unit == "char":
        if tok.model.end_of_word == "attached":
            options["end_of_word_suffix"] = "</w>"
        if "<unk>" in vocab and tok.model.fallback == "unk":
            options["unk_token"] = "<unk>"
        if tok.model.fallback == "bytes":
            options["byte_fallback"] = True
    hf = tokenizers.Tokenizer(
        models.BPE.from_file(str(tmp_path / "vocab.json"), str(tmp_path / "merges.txt"), **options)
    )
    hf.pre_tokenizer = (
        pre_tokenizers.ByteLevel(add_prefix_space=False)
        if tok.model.unit == "byte"
        else pre_tokenizers.WhitespaceSplit()
    )
    hf.add_special_tokens(list(tok.specials.ids))
    return [hf.encode(t, add_special_tokens=False).ids for t in texts]


def _tiktoken_ids(files: dict[str, bytes], texts: list[str], tmp_path) -> list[list[int]]:
    import tiktoken.load

    (rank_name,) = [n for n in files if n.endswith(".tiktoken")]
    (tmp_path / rank_name).write_bytes(files[rank_name])
    side = json.loads(files[rank_name + ".json"])
    enc = tiktoken.Encoding(
        "matrix",
        pat_str=side["pat_str"],
        mergeable_ranks=tiktoken.load.load_tiktoken_bpe(str(tmp_path / rank_name)),
        special_tokens=side["special_tokens"],
    )
    return [enc.encode(t, allowed_special="all") for t in texts]


def _subword_nmt_segments(files: dict[str, bytes], texts: list[str]) -> list[list[str]]:
    (codes,) = files.values()
    bpe = apply_bpe.BPE(io.StringIO(codes.decode()), separator="@@")
    return [bpe.segment_tokens(t.split()) for t in texts]


@pytest.mark.parametrize("setting", SETTINGS, ids=_label)
def test_every_export_is_read_alike_by_the_real_library(setting, tmp_path):
    unit, pre, eow, fallback = setting
    tok = _tokenizer(unit, pre, eow, fallback)
    texts = _texts(tok, fallback)
    for fmt in ("hf_json", "gpt2", "tiktoken", "subword_nmt"):
        try:
            files = export(tok, fmt)
        except ExportError as exc:
            assert len(str(exc)) > 40, (fmt, str(exc))  # refused, with the reason
            continue
        proof = prove(tok, fmt, " ".join(texts))
        assert proof.ok and REFERENCE_CHECKS[fmt] in proof.check, (fmt, proof.message)
        if fmt == "gpt2" and eow == "separate":
            continue  # no library reads a separate </w> from vocab.json + merges.txt: bpe_core's reader only
        if fmt == "subword_nmt":
            ours_tokens = [segments(tok, t) for t in texts]
            assert ours_tokens == _subword_nmt_segments(files, texts), fmt
            continue
        ours = [tok.encode(t, allowed_special="all") for t in texts]
        if fmt == "hf_json":
            theirs = _hf_ids(files, texts)
        elif fmt == "gpt2":
            theirs = _hf_pair_ids(tok, files, texts, tmp_path)
        else:
            theirs = _tiktoken_ids(files, texts, tmp_path)
        for text, a, b in zip(texts, ours, theirs):
            assert a == b, f"{fmt}: {text!r}: ours {a}, {REFERENCE_CHECKS[fmt]} {b}"
    proof = prove(tok, "session", " ".join(texts))
    assert proof.ok and "session reader" in proof.check


def test_the_issue_example_is_refused_or_read_alike():
    """Attached </w> + bytes fallback: Hugging Face byte-falls back on the whole 'ā</w>', 4 more tokens."""
    tok = train("ab ab ab", num_merges=2, end_of_word="attached").tokenizer.with_fallback("bytes")
    assert tok.encode("abā") == [0, 1, 200, 133]
    for fmt in ("hf_json", "gpt2"):
        with pytest.raises(ExportError, match=r"adds the 4 bytes of '</w>' .* after the character's bytes"):
            export(tok, fmt)
    assert _hf_ids(export(tok.with_fallback("unk"), "hf_json"), ["abā"]) == [tok.with_fallback("unk").encode("abā")]


def test_wikitext_unk_and_the_unk_fallback_share_one_id():
    tok = train("a <unk> b <unk> = <unk> =", num_merges=10, pretokenizer="whitespace").tokenizer.with_fallback("unk")
    assert [s for s in tok.model.vocab if s == "<unk>"] == ["<unk>"]
    unk = tok.model.vocab["<unk>"]
    assert tok.encode("<unk> Ω") == [unk, unk]
    files = export(tok, "hf_json")
    assert _hf_ids(files, ["<unk> Ω a"]) == [tok.encode("<unk> Ω a")]
    assert prove(tok, "hf_json", "<unk> Ω a <unk>").ok

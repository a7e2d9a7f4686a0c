"""Every import and export proven against the reference libraries on the shared corpora.

tiktoken, tokenizers and subword-nmt are test-only dependencies; no network is used: tiktoken
encodings are built from the files in ../shared/reference (the same bytes as bpe_core/formats/data/).
"""

from __future__ import annotations

import io
import json

import pytest
import tiktoken
import tiktoken.load
from subword_nmt.apply_bpe import BPE
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import decoders, models, pre_tokenizers, trainers

from bpe_core import train
from bpe_core.formats import (
    CL100K_SPECIAL_TOKENS,
    bundled,
    export,
    load_files,
    load_hf_json,
    parse_ranks,
    segments,
    to_hf_json,
    to_sidecar,
    to_subword_nmt,
    to_tiktoken,
)
from bpe_core.formats._common import rendered_to_bytes
from bpe_core.text.pretokenize import GPT2_PATTERN, GPT4_PATTERN

pytestmark = pytest.mark.reference

CORPUS_NAMES = ("tinyshakespeare", "wikitext2-test", "taylorswift", "udhr-multiscript", "code")


@pytest.fixture(scope="module")
def gpt2_tiktoken(reference_dir):
    """tiktoken's GPT-2 built from encoder.json through the byte-to-unicode table (as tiktoken's gpt2() does)."""
    encoder = json.loads((reference_dir / "gpt2" / "encoder.json").read_text(encoding="utf-8"))
    ranks = {rendered_to_bytes(k): v for k, v in encoder.items() if k != "<|endoftext|>"}
    return tiktoken.Encoding(
        "gpt2", pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens={"<|endoftext|>": 50256}
    )


@pytest.fixture(scope="module")
def cl100k_tiktoken(reference_dir):
    ranks = tiktoken.load.load_tiktoken_bpe(str(reference_dir / "cl100k_base.tiktoken"))
    return tiktoken.Encoding(
        "cl100k_base", pat_str=GPT4_PATTERN, mergeable_ranks=ranks, special_tokens=CL100K_SPECIAL_TOKENS
    )


@pytest.fixture(scope="module")
def training_text(corpora):
    """A mixed slice (English, 80+ scripts with emoji, code) to train on; probes come from it."""
    return corpora["tinyshakespeare"][:60_000] + corpora["udhr-multiscript"][:25_000] + corpora["code"][:25_000]


@pytest.fixture(scope="module")
def probe(corpora):
    """Text the tokenizers never trained on: a Wikipedia article with non-ASCII, plus code."""
    return corpora["taylorswift"][:20_000] + corpora["code"][-5_000:]


def _first_difference(ours: list, theirs: list) -> str:
    k = next((k for k, (x, y) in enumerate(zip(ours, theirs)) if x != y), min(len(ours), len(theirs)))
    lengths = f"{len(ours)} vs {len(theirs)} tokens"
    return f"first difference at token {k}: ours {ours[k : k + 5]}, theirs {theirs[k : k + 5]} ({lengths})"


# ----------------------------------------------------------------- real tokenizers, whole corpora


@pytest.mark.parametrize("corpus", CORPUS_NAMES)
def test_gpt2_ids_equal_tiktoken(corpora, gpt2_tiktoken, corpus):
    text = corpora[corpus]
    ours = bundled("gpt2").encode(text)
    theirs = gpt2_tiktoken.encode_ordinary(text)
    assert ours == theirs, _first_difference(ours, theirs)


@pytest.mark.parametrize("corpus", CORPUS_NAMES)
def test_cl100k_ids_equal_tiktoken(corpora, cl100k_tiktoken, corpus):
    text = corpora[corpus]
    ours = bundled("cl100k_base").encode(text)
    theirs = cl100k_tiktoken.encode_ordinary(text)
    assert ours == theirs, _first_difference(ours, theirs)


def test_specials_equal_tiktoken(cl100k_tiktoken, gpt2_tiktoken):
    text = "a<|endoftext|>b<|fim_prefix|>c<|endofprompt|>"
    assert bundled("cl100k_base").encode(text, allowed_special="all") == cl100k_tiktoken.encode(
        text, allowed_special="all"
    )
    assert bundled("gpt2").encode(text, allowed_special="all") == gpt2_tiktoken.encode(text, allowed_special="all")


def test_shipped_copies_equal_the_reference(reference_dir):
    from bpe_core.formats import REFERENCE_DIR

    for shipped, ref in [
        ("encoder.json", "gpt2/encoder.json"),
        ("vocab.bpe", "gpt2/vocab.bpe"),
        ("cl100k_base.tiktoken", "cl100k_base.tiktoken"),
    ]:
        assert (REFERENCE_DIR / shipped).read_bytes() == (reference_dir / ref).read_bytes()


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base"])
def test_tokenizer_json_of_real_tokenizers_equals_tokenizers(corpora, name):
    """GPT-2 and cl100k_base exported to tokenizer.json: Hugging Face gives our (= tiktoken's) ids on every corpus."""
    tok = bundled(name)
    hf = HFTokenizer.from_str(to_hf_json(tok))
    for corpus in CORPUS_NAMES:
        text = corpora[corpus]
        ours = tok.encode(text)
        theirs = hf.encode(text, add_special_tokens=False).ids
        assert ours == theirs, f"{corpus}: {_first_difference(ours, theirs)}"


def test_tokenizers_own_gpt2_file_loads_with_the_same_ids(reference_dir, probe):
    """A tokenizer.json written by Hugging Face itself (BPE from encoder.json + vocab.bpe, ByteLevel) loads here."""
    model = models.BPE.from_file(
        str(reference_dir / "gpt2" / "encoder.json"), str(reference_dir / "gpt2" / "vocab.bpe")
    )
    hf = HFTokenizer(model)
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.decoder = decoders.ByteLevel()
    ours = load_hf_json(hf.to_str())
    ids = ours.encode(probe)
    assert ids == hf.encode(probe, add_special_tokens=False).ids == bundled("gpt2").encode(probe)


@pytest.mark.parametrize("suffix", [None, "</w>"])
def test_tokenizers_trained_file_loads_with_the_same_ids(training_text, suffix):
    """A tokenizer.json trained by Hugging Face's BpeTrainer (byte-level, or characters with </w>) loads here."""
    if suffix:
        model = models.BPE(end_of_word_suffix=suffix)
        trainer = trainers.BpeTrainer(vocab_size=600, end_of_word_suffix=suffix, special_tokens=["<s>"])
        pre = pre_tokenizers.WhitespaceSplit()
    else:
        model = models.BPE()
        trainer = trainers.BpeTrainer(
            vocab_size=600, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), special_tokens=["<s>"]
        )
        pre = pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf = HFTokenizer(model)
    hf.pre_tokenizer = pre
    hf.train_from_iterator([training_text], trainer)
    ours = load_hf_json(hf.to_str())
    text = training_text[2000:12000]
    assert ours.encode(text) == hf.encode(text, add_special_tokens=False).ids


def test_rank_files_are_read_as_tiktoken_reads_them(reference_dir, tmp_path, monkeypatch, cl100k_tiktoken):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")
    ref = reference_dir / "cl100k_base.tiktoken"
    assert (
        parse_ranks(ref.read_bytes()) == tiktoken.load.load_tiktoken_bpe(str(ref)) == cl100k_tiktoken._mergeable_ranks
    )
    path = tmp_path / "gpt2.tiktoken"  # GPT-2 written as a rank file: tiktoken reads the same ranks
    path.write_bytes(to_tiktoken(bundled("gpt2")))
    gpt2 = bundled("gpt2")
    assert tiktoken.load.load_tiktoken_bpe(str(path)) == {gpt2.model.table.data[i]: i for i in range(50256)}


# ----------------------------------------------------------------- what we train, exported


HF_SETTINGS = [
    dict(unit="byte", pretokenizer="gpt2"),
    dict(unit="byte", pretokenizer="gpt4"),
    dict(unit="byte", pretokenizer="none"),
    dict(unit="byte", pretokenizer="whitespace"),
    dict(unit="byte", pretokenizer="trailing_space"),
    dict(unit="byte", pretokenizer="whitespace_eow", end_of_word="attached"),
    dict(unit="char", pretokenizer="whitespace_eow", end_of_word="attached"),
    dict(unit="char", pretokenizer="whitespace"),
    dict(unit="char", pretokenizer="trailing_space"),
    dict(unit="char", pretokenizer="gpt2"),
    dict(unit="char", pretokenizer="gpt4"),
    dict(unit="char", pretokenizer="none"),
]


def _label(kw: dict) -> str:
    return "-".join(str(v) for v in kw.values())


def _train(text: str, **kw: object):
    return train(text, num_merges=300, special_tokens=["<|endoftext|>"], trace=False, **kw).tokenizer


@pytest.mark.parametrize("kw", HF_SETTINGS, ids=_label)
def test_tokenizer_json_export_equals_tokenizers(training_text, probe, kw):
    tok = _train(training_text, **kw)
    text = probe if kw["unit"] == "byte" else training_text[3000:15000]  # char unit: stay within the alphabet
    hf = HFTokenizer.from_str(to_hf_json(tok))
    ours = tok.encode(text, allowed_special="all")
    theirs = hf.encode(text, add_special_tokens=False).ids
    assert ours == theirs, _first_difference(ours, theirs)
    if kw.get("end_of_word") != "attached" or kw["unit"] == "char":
        assert hf.decode(theirs) == tok.decode(ours)


def test_tokenizer_json_with_attached_marker_on_held_out_text(training_text):
    """Held-out text ends words with characters that never ended one in training ('D' of 'RICHARD'):
    their ``c</w>`` tokens exist from the start, so the export holds them and the ids still agree."""
    tok = _train(training_text[:20000], pretokenizer="whitespace_eow", end_of_word="attached")
    held_out = training_text[20000:60000]
    hf = HFTokenizer.from_str(to_hf_json(tok))
    size = len(tok.model.vocab)
    held_out = "".join(ch for ch in held_out if ch in tok.model.table.char_ids or ch.isspace())  # within the alphabet
    ours = tok.encode(held_out)
    theirs = hf.encode(held_out, add_special_tokens=False).ids
    assert ours == theirs, _first_difference(ours, theirs)
    assert len(tok.model.vocab) == size  # encoding added no ids


@pytest.mark.parametrize("pretokenizer", ["gpt2", "gpt4", "none", "whitespace"])
def test_tiktoken_export_equals_tiktoken(training_text, probe, tmp_path, monkeypatch, pretokenizer):
    tok = _train(training_text, unit="byte", pretokenizer=pretokenizer)
    rank_file = tmp_path / "trained.tiktoken"
    rank_file.write_bytes(to_tiktoken(tok))
    sidecar = json.loads(to_sidecar(tok, name="trained"))
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # read the file directly, no cache copy
    enc = tiktoken.Encoding(
        sidecar["name"],
        pat_str=sidecar["pat_str"],
        mergeable_ranks=tiktoken.load.load_tiktoken_bpe(str(rank_file)),
        special_tokens=sidecar["special_tokens"],
    )
    text = probe + "<|endoftext|>" + probe[:500]
    ours = tok.encode(text, allowed_special="all")
    theirs = enc.encode(text, allowed_special="all")
    assert ours == theirs, _first_difference(ours, theirs)
    assert enc.decode(theirs) == tok.decode(ours)
    back = load_files(export(tok, "tiktoken")).tokenizer  # and back into bpe_core, merging by bytes
    assert back.model.merge_by == "bytes" and back.encode(text, allowed_special="all") == ours


@pytest.mark.parametrize("end_of_word", ["attached", "separate"])
def test_subword_nmt_export_equals_apply_bpe(training_text, end_of_word):
    tok = _train(training_text, unit="char", pretokenizer="whitespace_eow", end_of_word=end_of_word)
    codes = to_subword_nmt(tok)
    assert codes.startswith("#version: 0.2\n") == (end_of_word == "attached")
    bpe = BPE(io.StringIO(codes), separator="@@")
    text = training_text[5000:40000]
    theirs = bpe.segment_tokens(text.split())
    assert segments(tok, text) == theirs
    back = load_files({"trained.codes": codes.encode()}).tokenizer
    assert segments(back, text) == theirs


def test_subword_nmt_own_codes_load_alike(training_text):
    """Codes learned by subword-nmt itself load here and segment exactly as apply_bpe does."""
    from subword_nmt.learn_bpe import learn_bpe

    words = training_text[:40000]
    out = io.StringIO()
    learn_bpe(io.StringIO(words), out, 200, min_frequency=2)
    codes = out.getvalue()
    tok = load_files({"learned.codes": codes.encode()}).tokenizer
    text = training_text[40000:50000]
    assert segments(tok, text) == BPE(io.StringIO(codes)).segment_tokens(text.split())


@pytest.mark.parametrize(
    "kw",
    [dict(unit="byte", pretokenizer="gpt2"), dict(unit="char", pretokenizer="whitespace_eow", end_of_word="attached")],
    ids=_label,
)
def test_vocab_merges_export_equals_tokenizers(training_text, probe, tmp_path, kw):
    tok = _train(training_text, **kw)
    files = export(tok, "gpt2")
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    vocab, merges = str(tmp_path / "vocab.json"), str(tmp_path / "merges.txt")
    if kw["unit"] == "byte":
        hf = HFTokenizer(models.BPE.from_file(vocab, merges))
        hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        text = probe
    else:
        hf = HFTokenizer(models.BPE.from_file(vocab, merges, end_of_word_suffix="</w>"))
        hf.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
        text = training_text[3000:15000]
    ours = tok.encode(text)
    assert ours == hf.encode(text, add_special_tokens=False).ids


def test_reference_gpt2_folder_loads_as_gpt2(reference_dir):
    from bpe_core.formats import load

    loaded = load(reference_dir / "gpt2")
    assert loaded.format == "gpt2" and loaded.tokenizer.name == "GPT-2"
    assert loaded.tokenizer.encode("hello a a") == [31373, 257, 257]

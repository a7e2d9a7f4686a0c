"""Cross-checks of :class:`bpe_core.Tokenizer` encoding against tiktoken and Hugging Face ``tokenizers``.

A byte-level tokenizer is trained here with the ``gpt2`` and with the ``gpt4`` pre-tokenizer;
its merge table is then handed to tiktoken (as mergeable ranks) and to a Hugging Face ``BPE``
model (as vocab + merges), and every shared corpus, whole, must encode to the same ids.
The regular-expression engines behind the three (Python ``regex``, tiktoken's Rust
``fancy-regex``, Hugging Face's Oniguruma) are checked against each other too.
"""

from __future__ import annotations

import unicodedata
from functools import cache

import pytest
import regex

from bench.corpora import sample
from bpe_core import Tokenizer, pretokenize, train
from bpe_core.text.byte_level import bytes_to_unicode
from bpe_core.text.pretokenize import GPT2_PATTERN, GPT4_PATTERN

CORPUS_NAMES = ("tinyshakespeare", "wikitext2-test", "taylorswift", "udhr-multiscript", "code")
PRETOKENIZERS = ("gpt2", "gpt4")
PATTERNS = {"gpt2": GPT2_PATTERN, "gpt4": GPT4_PATTERN}
NUM_MERGES = 3000

HF_GPT4_PATTERN = GPT4_PATTERN.replace(r"\p{N}{1,3}+", r"\p{N}{1,3}")
"""cl100k's pattern as Hugging Face's Oniguruma must be given it. Oniguruma's default (Ruby) syntax reads
``{n,m}+`` not as a possessive quantifier but as ``(?:{n,m})+`` ("{n,m}+, {n,}+, {n}+ are possessive op.
in ONIG_SYNTAX_JAVA only", Oniguruma doc/RE), so the verbatim pattern lets digit runs grow without bound
(test_hf_reads_bounded_possessive_as_repetition). Dropping that ``+`` changes nothing for Python's
``regex`` or tiktoken: the digit alternative ends right there, so nothing could backtrack into it; the
corpus tests below confirm it on every corpus."""


@pytest.fixture(scope="module")
def trained(corpora) -> dict[str, Tokenizer]:
    """Byte-level tokenizers (3000 merges) per pre-tokenizer, trained on real mixed text.

    taylorswift plus 100 KB samples of the multi-script and code corpora, so the merge
    table holds tokens from many scripts, partial UTF-8 sequences and whitespace runs.
    """
    text = corpora["taylorswift"] + sample(corpora["udhr-multiscript"], 100_000) + sample(corpora["code"], 100_000)
    out = {}
    for pretokenizer in PRETOKENIZERS:
        result = train(text, num_merges=NUM_MERGES, pretokenizer=pretokenizer, unit="byte", trace=False)
        assert len(result.merges) == NUM_MERGES
        out[pretokenizer] = result.tokenizer
    return out


@pytest.fixture(scope="module")
def ours(trained, corpora):
    """``ours(pretokenizer, name)``: our ids for a whole corpus (computed once per module)."""

    @cache
    def encode(pretokenizer: str, name: str) -> tuple[int, ...]:
        return tuple(trained[pretokenizer].encode(corpora[name]))

    return encode


def tiktoken_encoding(tok: Tokenizer, pattern: str):
    """A tiktoken ``Encoding`` with ``tok``'s tokens as mergeable ranks (rank = our id)."""
    tiktoken = pytest.importorskip("tiktoken")
    ranks = {tok.model.token_bytes(i): i for i in range(len(tok))}
    assert len(ranks) == len(tok), "two ids share the same bytes: not a tiktoken rank table"
    return tiktoken.Encoding(name="bpe_core", pat_str=pattern, mergeable_ranks=ranks, special_tokens={})


def hf_pre_tokenizer(pretokenizer: str):
    tokenizers = pytest.importorskip("tokenizers")
    pre = tokenizers.pre_tokenizers
    if pretokenizer == "gpt2":
        return pre.ByteLevel(add_prefix_space=False)  # use_regex=True: GPT-2's pattern
    return pre.Sequence(
        [
            pre.Split(tokenizers.Regex(HF_GPT4_PATTERN), behavior="isolated"),
            pre.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )


def hf_tokenizer(tok: Tokenizer, pretokenizer: str):
    """A Hugging Face ``BPE`` model built from ``tok.model.vocab`` and ``tok.model.merges``."""
    tokenizers = pytest.importorskip("tokenizers")
    hf = tokenizers.Tokenizer(tokenizers.models.BPE(vocab=tok.model.vocab, merges=tok.model.merges))
    hf.pre_tokenizer = hf_pre_tokenizer(pretokenizer)
    return hf


# ----------------------------------------------------------------- encoding


@pytest.mark.reference
@pytest.mark.parametrize("name", CORPUS_NAMES)
@pytest.mark.parametrize("pretokenizer", PRETOKENIZERS)
def test_encode_matches_tiktoken(trained, ours, corpora, pretokenizer, name):
    """``Tokenizer.encode`` equals tiktoken ``encode_ordinary`` on a whole corpus; ``decode`` inverts it.

    The settings coincide: the same split pattern (``GPT2_PATTERN`` / ``GPT4_PATTERN``,
    verbatim), and mergeable ranks ``{token bytes: id}`` taken from our table, where ids
    0..255 are the bytes and merge i has id 256 + i, so tiktoken's rank order is our merge
    order. tiktoken merges by the rank of the *concatenated bytes* (``_byte_pair_merge``),
    our default encoder by the rank of the *pair* of symbols (GPT-2 ``encoder.py``); on a
    table learned by BPE training the two must agree, which this checks on real text.
    """
    tok = trained[pretokenizer]
    text = corpora[name]
    ids = list(ours(pretokenizer, name))
    assert ids == tiktoken_encoding(tok, PATTERNS[pretokenizer]).encode_ordinary(text)
    assert tok.decode(ids) == text


@pytest.mark.reference
@pytest.mark.parametrize("name", CORPUS_NAMES)
@pytest.mark.parametrize("pretokenizer", PRETOKENIZERS)
def test_byte_rank_encoder_matches_tiktoken(trained, corpora, pretokenizer, name):
    """The tiktoken-semantics encoder (``merge_by="bytes"``) equals tiktoken on a whole corpus.

    Same table and pattern as test_encode_matches_tiktoken; here our encoder follows
    tiktoken's own rule (leftmost adjacent pair whose concatenated bytes have the lowest
    rank, one merge at a time), so it must agree with tiktoken on any table.
    """
    tok = trained[pretokenizer]
    byte_rank = Tokenizer(tok.model.table, tok.model.merge_ids, pretokenizer=pretokenizer, merge_by="bytes")
    text = corpora[name]
    assert byte_rank.encode(text) == tiktoken_encoding(tok, PATTERNS[pretokenizer]).encode_ordinary(text)


@pytest.mark.reference
@pytest.mark.parametrize("name", CORPUS_NAMES)
@pytest.mark.parametrize("pretokenizer", PRETOKENIZERS)
def test_encode_matches_hf_bpe(trained, ours, corpora, pretokenizer, name):
    """``Tokenizer.encode`` equals a Hugging Face ``BPE`` model built from our vocab and merges.

    The settings coincide: the vocab and merges are ours verbatim (byte-level display
    strings, ids included); ``ByteLevel(add_prefix_space=False)`` splits with GPT-2's pattern
    and maps bytes to the same GPT-2 byte-to-unicode characters; for ``gpt4``, ``Split`` with
    cl100k's pattern (HF_GPT4_PATTERN, see there why one ``+`` goes) then ``ByteLevel``
    without its own regex. HF applies merges lowest rank first, as our ``order="rank"``.
    """
    tok = trained[pretokenizer]
    hf = hf_tokenizer(tok, pretokenizer)
    assert list(ours(pretokenizer, name)) == hf.encode(corpora[name]).ids


# ----------------------------------------------------------------- the regex engines


@pytest.mark.reference
@pytest.mark.parametrize("name", ["udhr-multiscript", "code"])
@pytest.mark.parametrize("pretokenizer", PRETOKENIZERS)
def test_hf_pre_tokenizer_matches(corpora, pretokenizer, name):
    """Hugging Face's pre-tokenizers cut the multi-script and code corpora exactly as ``pretokenize``.

    A direct check of the split behind test_encode_matches_hf_bpe and the HF training tests,
    on the two corpora with the most varied characters (84 languages and emoji; six
    programming languages): Oniguruma's ``\\p{L}``, ``\\p{N}`` and ``\\s`` agree with Python
    ``regex`` on all of it. Our pieces are mapped to GPT-2's byte-level characters as HF's are.
    """
    table = bytes_to_unicode()
    text = corpora[name]
    expected = ["".join(table[b] for b in piece.encode("utf-8")) for piece in pretokenize(text, pretokenizer)]
    assert [piece for piece, _ in hf_pre_tokenizer(pretokenizer).pre_tokenize_str(text)] == expected


@pytest.mark.reference
def test_hf_reads_bounded_possessive_as_repetition():
    """Why HF_GPT4_PATTERN exists: Oniguruma reads cl100k's ``\\p{N}{1,3}+`` as unbounded digit runs.

    With the verbatim pattern HF keeps ``2024`` and ``1234567`` whole, where tiktoken and
    Python ``regex`` cut digit runs into threes; without the ``+`` HF agrees with them.
    If this starts failing, Oniguruma (or HF's syntax choice) changed and the verbatim
    pattern may work; HF_GPT4_PATTERN stays correct either way.
    """
    tokenizers = pytest.importorskip("tokenizers")
    text = "in 2024, 1234567"
    split = tokenizers.pre_tokenizers.Split

    def hf(pattern: str) -> list[str]:
        return [p for p, _ in split(tokenizers.Regex(pattern), behavior="isolated").pre_tokenize_str(text)]

    expected = ["in", " ", "202", "4", ",", " ", "123", "456", "7"]
    assert pretokenize(text, "gpt4") == expected
    assert hf(HF_GPT4_PATTERN) == expected
    assert hf(GPT4_PATTERN) == ["in", " ", "2024", ",", " ", "1234567"]


@cache
def assigned() -> str:
    """Every code point assigned in this Python's Unicode database (``unicodedata.unidata_version``)."""
    return "".join(chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) not in ("Cn", "Cs"))


@pytest.mark.reference
@pytest.mark.parametrize("cls", [r"\p{L}", r"\p{N}", r"\s"])
def test_character_classes_agree(cls):
    """``\\p{L}``, ``\\p{N}`` and ``\\s`` hold the same characters in all three regex engines.

    The split patterns are built from these three classes and literals, so this extends
    the corpus checks to every character. It runs over the characters assigned in Python's
    own Unicode database. Beyond it they do differ: ``regex`` 2026.5.9 takes 4,644 more
    letters and 13 more numbers (e.g. U+10940, U+11DE0, U+323B0, newly assigned code points)
    into ``\\p{L}``/``\\p{N}`` than tiktoken 0.14 and tokenizers 0.23.3, so text using them
    pre-tokenizes differently. tiktoken drops text its pattern does not match, so encoding
    with single-byte ranks returns exactly the matched characters; HF's ``removed`` split
    returns exactly the unmatched ones.
    """
    tiktoken = pytest.importorskip("tiktoken")
    tokenizers = pytest.importorskip("tokenizers")
    text = assigned()
    expected = "".join(regex.findall(cls, text))
    ranks = {bytes([b]): b for b in range(256)}
    probe = tiktoken.Encoding(name="probe", pat_str=cls, mergeable_ranks=ranks, special_tokens={})
    assert bytes(probe.encode_ordinary(text)).decode("utf-8") == expected
    removed = tokenizers.pre_tokenizers.Split(tokenizers.Regex(cls), behavior="removed")
    rest = set("".join(piece for piece, _ in removed.pre_tokenize_str(text)))
    assert "".join(ch for ch in text if ch not in rest) == expected

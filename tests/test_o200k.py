"""o200k_base (GPT-4o's table), shipped in bpe_core/formats/data/: hash check, tiktoken's pattern and special tokens,
and ids equal to tiktoken's on every shared corpus.

tiktoken is a test-only dependency; no network is used: tiktoken's own ``o200k_base()`` constructor is read with its
file download replaced, and the tiktoken encoding is built from the reference rank file (the same bytes as the shipped
copy), as the cl100k_base test does.
"""

from __future__ import annotations

import shutil
from unittest import mock

import pytest
import tiktoken
import tiktoken.load
import tiktoken_ext.openai_public as openai_public

from bpe_core.formats import (
    REFERENCE_DIR,
    FormatError,
    bundled,
    load,
    shipped,
)
from bpe_core.formats.tiktoken_ranks import O200K_PATTERN, O200K_SPECIAL_TOKENS

pytestmark = pytest.mark.reference

CORPUS_NAMES = ("tinyshakespeare", "wikitext2-test", "taylorswift", "udhr-multiscript", "code")
SLICE = 120_000
"""Characters of each corpus compared (the first and the last slice): enough for every script and layout it holds."""

SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"


@pytest.fixture(scope="module")
def o200k():
    return bundled("o200k_base")


@pytest.fixture(scope="module")
def o200k_tiktoken(reference_dir):
    ranks = tiktoken.load.load_tiktoken_bpe(str(reference_dir / "o200k_base.tiktoken"), expected_hash=SHA256)
    return tiktoken.Encoding(
        "o200k_base", pat_str=O200K_PATTERN, mergeable_ranks=ranks, special_tokens=O200K_SPECIAL_TOKENS
    )


def test_pattern_and_specials_are_tiktokens():
    with mock.patch.object(openai_public, "load_tiktoken_bpe", return_value={}) as loader:
        spec = openai_public.o200k_base()
    assert loader.call_args.kwargs["expected_hash"] == SHA256 == shipped.FILE_SHA256["o200k_base.tiktoken"]
    assert spec["pat_str"] == O200K_PATTERN
    assert spec["special_tokens"] == O200K_SPECIAL_TOKENS == {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}


def test_shipped_copy_equals_the_reference(reference_dir):
    assert (REFERENCE_DIR / "o200k_base.tiktoken").read_bytes() == (reference_dir / "o200k_base.tiktoken").read_bytes()


@pytest.mark.parametrize("corpus", CORPUS_NAMES)
def test_ids_equal_tiktoken(corpora, o200k, o200k_tiktoken, corpus):
    text = corpora[corpus]
    for part in (text[:SLICE], text[-SLICE:]):
        ours = o200k.encode(part)
        theirs = o200k_tiktoken.encode_ordinary(part)
        assert ours == theirs, next(
            f"first difference at token {k}: ours {ours[k : k + 5]}, theirs {theirs[k : k + 5]}"
            for k in range(min(len(ours), len(theirs)) + 1)
            if k == min(len(ours), len(theirs)) or ours[k] != theirs[k]
        )


def test_worked_examples_and_specials(o200k, o200k_tiktoken):
    assert o200k.encode("hello world") == [24912, 2375] == o200k_tiktoken.encode("hello world")
    # o200k splits at a change from upper to lower case, keeps a contraction on its word, cuts digits in threes
    for text, pieces in [
        ("HTTPServer isn't", ["HTTP", "Server", " isn't"]),
        ("CamelCase 12345", ["Camel", "Case", " ", "123", "45"]),
    ]:
        ids = o200k.encode(text)
        assert [o200k.decode([i]) for i in ids] == pieces and ids == o200k_tiktoken.encode_ordinary(text)
    text = "a<|endoftext|>b<|endofprompt|>"
    assert o200k.encode(text, allowed_special="all") == o200k_tiktoken.encode(text, allowed_special="all")
    assert o200k.encode("<|endofprompt|>", allowed_special="all") == [200018]
    assert o200k.encode(text) == o200k_tiktoken.encode_ordinary(text)  # special-looking text as ordinary text


def test_ids_ranks_and_gaps(o200k):
    assert (
        o200k.model.merge_by == "bytes" and o200k.pre_tokenizer.pattern == O200K_PATTERN and o200k.name == "o200k_base"
    )
    assert o200k.specials.ids == O200K_SPECIAL_TOKENS
    assert len(o200k) == 200019
    assert o200k.model.table.gaps == frozenset([199998, *range(200000, 200018)])
    data = o200k.model.table.data
    assert len(o200k.model.merge_ids) == 199998 - 256
    previous = -1
    for a, b, new in o200k.model.merge_ids:  # every recovered pair rebuilds its token from two lower ranks
        assert data[a] + data[b] == data[new] and a < new and b < new and new > previous
        previous = new


def test_an_upload_of_the_published_file_needs_no_sidecar():
    loaded = load(REFERENCE_DIR / "o200k_base.tiktoken")
    assert loaded.format == "tiktoken" and loaded.tokenizer.name == "o200k_base"
    assert (
        loaded.tokenizer.pre_tokenizer.pattern == O200K_PATTERN
        and loaded.tokenizer.specials.ids == O200K_SPECIAL_TOKENS
    )


def test_a_damaged_or_missing_file_is_refused(tmp_path, monkeypatch):
    damaged = bytearray((REFERENCE_DIR / "o200k_base.tiktoken").read_bytes())
    damaged[-3:-1] = b"99"  # the last rank changed: still a well-formed rank file
    (tmp_path / "o200k_base.tiktoken").write_bytes(bytes(damaged))
    monkeypatch.setattr(shipped, "REFERENCE_DIR", tmp_path)
    with pytest.raises(FormatError, match=f"not the published {SHA256}; the file is damaged or replaced"):
        shipped._load.__wrapped__("o200k_base")  # the uncached load
    (tmp_path / "o200k_base.tiktoken").unlink()
    with pytest.raises(FormatError, match="o200k_base.tiktoken is missing"):
        shipped._load.__wrapped__("o200k_base")
    shutil.copyfile(REFERENCE_DIR / "o200k_base.tiktoken", tmp_path / "o200k_base.tiktoken")
    assert shipped._load.__wrapped__("o200k_base").encode("hello world") == [24912, 2375]

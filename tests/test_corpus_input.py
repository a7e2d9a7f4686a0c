"""Checks on uploaded and pasted corpora (ui/corpus.py: pure functions, no Streamlit)."""

from __future__ import annotations

import hashlib

import pytest

from ui.corpus import (
    MAX_UPLOAD_MB,
    SAMPLE_DIR,
    SAMPLES,
    CorpusChoice,
    CorpusInputError,
    check_paste,
    decode_upload,
    read_sample,
    shares_text,
)


def test_utf8_upload_keeps_crlf_and_drops_the_bom():
    assert decode_upload("\ufeffab\r\ncd\r\n".encode(), "a.txt") == "ab\r\ncd\r\n"


def test_valid_utf8_text_with_a_stray_nul_is_text():
    # An 875 KB text file with one NUL byte in it (a real report): text, NUL kept.
    text = ("To be, or not to be: that is the question. " * 21_000)[:875_000]
    data = (text[:1000] + "\x00" + text[1000:]).encode()
    decoded = decode_upload(data, "play.txt")
    assert len(decoded) == 875_001 and decoded.count("\x00") == 1 and decoded[1000] == "\x00"
    assert decode_upload(b"abc\x00" * 2 + b"x" * 100, "few.txt").count("\x00") == 2  # 2 NULs in 108 bytes


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "is empty"),
        (b"   \n", "is empty"),
        ("café".encode("latin-1"), "not UTF-8 text: byte 0xE9 at offset 3"),
        ("hi".encode("utf-16"), "UTF-16"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "binary"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4, "binary .*NUL bytes"),
        (b"text\x00" * 500, "binary file \\(it holds 500 NUL bytes\\)"),
        (bytes(range(1, 32)) * 10, "binary"),
        (b"a" * (MAX_UPLOAD_MB * 1024 * 1024 + 1), f"the limit is {MAX_UPLOAD_MB} MB"),
    ],
)
def test_bad_uploads_say_why(data, message):
    with pytest.raises(CorpusInputError, match=message):
        decode_upload(data, "f.txt")


def test_paste_checks():
    assert check_paste("hello") == "hello"
    with pytest.raises(CorpusInputError, match="holds only whitespace"):
        check_paste(" \n\t")
    with pytest.raises(CorpusInputError, match="the pasted text is empty"):
        check_paste("")


def test_every_sample_reads_and_hashes():
    digests = set()
    for label, file in SAMPLES.items():
        data = (SAMPLE_DIR / file).read_bytes()
        text = read_sample(label)
        assert text == data.decode("utf-8") and text.strip()
        digest = CorpusChoice("sample", label, text).digest
        assert digest == hashlib.sha256(data).hexdigest()[:12]  # the SHA-256 of the file as stored
        digests.add(digest)
    assert len(digests) == len(SAMPLES)  # links tell every sample apart
    textbook = read_sample("Textbook: low lower newest widest")
    assert textbook.split() == ["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3
    assert CorpusChoice("paste", "pasted text", "hug pug").digest == hashlib.sha256(b"hug pug").hexdigest()[:12]
    with pytest.raises(CorpusInputError, match="unknown sample"):
        read_sample("nope")


def test_held_out_samples_share_no_text():
    assert shares_text("Tiny Shakespeare (1.1 MB)", "Tiny Shakespeare (1.1 MB)")
    assert shares_text("Shakespeare excerpt (12 KB)", "Tiny Shakespeare (1.1 MB)")
    assert shares_text("Tiny Shakespeare (1.1 MB)", "Shakespeare excerpt (12 KB)")
    assert not shares_text("Wikipedia: Taylor Swift (186 KB)", "Tiny Shakespeare (1.1 MB)")
    excerpt = read_sample("Shakespeare excerpt (12 KB)")
    assert excerpt[:2000] in read_sample("Tiny Shakespeare (1.1 MB)")  # why they count as one text

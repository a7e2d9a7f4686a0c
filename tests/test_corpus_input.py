"""Checks on uploaded and pasted corpora (ui/corpus.py: pure functions, no Streamlit)."""

from __future__ import annotations

import pytest

from ui.corpus import MAX_UPLOAD_MB, SAMPLES, CorpusChoice, CorpusInputError, check_paste, decode_upload, read_sample


def test_utf8_upload_keeps_crlf_and_drops_the_bom():
    assert decode_upload("\ufeffab\r\ncd\r\n".encode(), "a.txt") == "ab\r\ncd\r\n"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "is empty"),
        (b"   \n", "is empty"),
        ("café".encode("latin-1"), "not UTF-8 text: byte 0xE9 at offset 3"),
        ("hi".encode("utf-16"), "UTF-16"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "binary"),
        (bytes(range(1, 32)) * 10, "binary"),
        (b"a" * (MAX_UPLOAD_MB * 1024 * 1024 + 1), f"the limit is {MAX_UPLOAD_MB} MB"),
    ],
)
def test_bad_uploads_say_why(data, message):
    with pytest.raises(CorpusInputError, match=message):
        decode_upload(data, "f.txt")


def test_paste_checks():
    assert check_paste("hello") == "hello"
    with pytest.raises(CorpusInputError, match="empty"):
        check_paste(" \n\t")


def test_every_sample_reads_and_hashes():
    for label in SAMPLES:
        text = read_sample(label)
        assert text.strip()
        assert len(CorpusChoice("sample", label, text).digest) == 12
    with pytest.raises(CorpusInputError, match="unknown sample"):
        read_sample("nope")

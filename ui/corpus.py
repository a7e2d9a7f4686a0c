"""Corpus input: the sample registry, and checks on uploaded files (no Streamlit here)."""

from __future__ import annotations

import codecs
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

from bpe_core.formats import corpus_sha256

SAMPLE_DIR = Path(__file__).resolve().parents[1] / "sample_corpora"

SAMPLES: dict[str, str] = {
    "Shakespeare excerpt (12 KB)": "shakespeare_excerpt.txt",
    "Textbook: low lower newest widest": "textbook_low_lower_newest_widest.txt",
    "Toy: hug pug bug": "toy_hug_pug_bug.txt",
    "Toy: abababc": "toy_abababc.txt",
    "Toy: banana": "toy_banana.txt",
    "Wikipedia: Taylor Swift (186 KB)": "taylorswift.txt",
    "Tiny Shakespeare (1.1 MB)": "tinyshakespeare.txt",
    "UDHR in 84 languages + emoji (1.7 MB)": "udhr-multiscript.txt",
}
"""Sample label -> file in ``sample_corpora/`` (sources and licences in its README)."""

DEFAULT_SAMPLE = "Shakespeare excerpt (12 KB)"
PART_OF: dict[str, str] = {"Shakespeare excerpt (12 KB)": "Tiny Shakespeare (1.1 MB)"}
"""Samples whose text is taken from another sample (so neither is held-out text for the other)."""


def shares_text(a: str, b: str) -> bool:
    """True when samples ``a`` and ``b`` are the same or one is cut from the other: not held-out text."""
    return a == b or PART_OF.get(a) == b or PART_OF.get(b) == a


MAX_UPLOAD_MB = 50
"""Upload limit in MB; ``.streamlit/config.toml`` enforces the same (``server.maxUploadSize``). An uploaded text is
kept as bytes and decoded and counted in one streaming pass when trained on (:func:`bpe_core.count_utf8`)."""
MAX_PASTE_CHARS = 20_000
"""The sidebar's "Paste text" box takes at most this many characters (Streamlit's ``max_chars``: a longer
paste does not go in at all). Measured in Chromium with ``python3 -m bench.paste``: a paste this size keeps the
tab responsive, while 100,000 characters froze it for 38 s. Longer text (a book) goes to Upload."""
MAX_ENCODE_CHARS = 20_000
"""The Encode page's text box takes at most this many characters (measured the same way; 100,000 took 28 s)."""
LONGER_TEXT = f"For a longer text, such as a whole book, choose Upload and give a .txt file (up to {MAX_UPLOAD_MB} MB)."
BINARY_SHARE = 10
"""An upload whose first 64 KB holds more than one NUL (or other control character) in this many
bytes is refused as binary; fewer are kept as part of the text."""
HEAD_BYTES = 65536
"""The bytes of an upload checked when it is chosen (the rest is checked as it is streamed)."""
_CONTINUATION = bytes(range(0x80, 0xC0))


class CorpusInputError(ValueError):
    """Uploaded or pasted input that cannot be used as a corpus (the message says why)."""


@dataclass(frozen=True)
class CorpusChoice:
    """The corpus the user applied: a text, an uploaded text file, or word counts.

    Attributes:
        source: ``"sample"``, ``"paste"``, ``"upload"`` (a text file, kept as its bytes)
            or ``"counts"`` (a word-count file, parsed).
        name: the sample label, the file name, or ``"pasted text"``.
        text: the text of a sample or paste ("" for the other sources).
        data: an uploaded text file's bytes (UTF-8, checked at its start; decoded when trained on).
        counts: a word-count file's ``{word: count}``.
        sha256: the corpus's SHA-256 as :func:`bpe_core.formats.corpus_sha256` gives it (for a text, of
            its UTF-8 bytes; an uploaded file's bytes are those bytes, a byte-order mark left out).
        digest: the first 12 hex digits of ``sha256`` (names pasted or uploaded text in links).
        chars, nbytes: the corpus's characters and UTF-8 bytes (word counts: the words' times their counts).
    """

    source: str
    name: str
    text: str = ""
    data: bytes = field(default=b"", repr=False)
    counts: Mapping[str, int] | None = field(default=None, repr=False, compare=False)
    sha256: str = field(init=False, compare=False)
    digest: str = field(init=False, compare=False)
    chars: int = field(init=False, compare=False)
    nbytes: int = field(init=False, compare=False)

    def __post_init__(self) -> None:
        if self.counts is not None:
            sha256 = corpus_sha256(self.counts)
            chars = sum(len(w) * c for w, c in self.counts.items())
            nbytes = sum(len(w.encode("utf-8", "surrogatepass")) * c for w, c in self.counts.items())
        elif self.source == "upload":
            body = memoryview(self.data)[3:] if self.data.startswith(codecs.BOM_UTF8) else memoryview(self.data)
            sha256 = hashlib.sha256(body).hexdigest()
            nbytes = len(body)
            chars = len(body.tobytes().translate(None, _CONTINUATION))  # the bytes that start a character
        else:
            encoded = self.text.encode("utf-8", "surrogatepass")
            sha256, chars, nbytes = hashlib.sha256(encoded).hexdigest(), len(self.text), len(encoded)
        for name, value in (("sha256", sha256), ("digest", sha256[:12]), ("chars", chars), ("nbytes", nbytes)):
            object.__setattr__(self, name, value)

    def describe(self) -> str:
        """What the corpus holds, for a caption: characters, or words for word counts."""
        if self.counts is not None:
            total = sum(self.counts.values())
            return f"{total:,} words ({len(self.counts):,} distinct)"
        return f"{self.chars:,} characters"


def read_sample(label: str) -> str:
    """The text of a sample by its label.

    Raises:
        CorpusInputError: unknown label.
    """
    if label not in SAMPLES:
        raise CorpusInputError(f"unknown sample {label!r}; choose one of: {', '.join(SAMPLES)}")
    return (SAMPLE_DIR / SAMPLES[label]).read_text(encoding="utf-8")


def check_upload(data: bytes, name: str) -> bytes:
    """Check an uploaded ``.txt`` file's size and its first :data:`HEAD_BYTES` bytes, without decoding the rest.

    The rest is checked as it is decoded, when it is trained on (:func:`bpe_core.count_utf8` names the
    offset and line of a byte that is not UTF-8).

    Args:
        data: the file's bytes.
        name: its file name, for messages.

    Returns:
        ``data``, unchanged.

    Raises:
        CorpusInputError: the file is larger than :data:`MAX_UPLOAD_MB`, empty, UTF-16, or
            not UTF-8 or binary at its start: in its first 64 KB more than one byte in
            :data:`BINARY_SHARE` is NUL or a control character (a stray NUL in valid UTF-8
            text is kept), or it holds NUL bytes and is not UTF-8.
    """
    if len(data) > MAX_UPLOAD_MB * 1024 * 1024:
        raise CorpusInputError(f"{name} is {len(data) / 1e6:.1f} MB; the limit is {MAX_UPLOAD_MB} MB")
    if not data or data.isspace():
        raise CorpusInputError(f"{name} is empty")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise CorpusInputError(f"{name} is UTF-16 text; save it as UTF-8 and upload it again")
    head = data[:HEAD_BYTES]
    nuls = head.count(0)
    if nuls > max(1, len(head) // BINARY_SHARE):
        raise CorpusInputError(f"{name} looks like a binary file (it holds {nuls:,} NUL bytes), not text")
    bom = 3 if head.startswith(codecs.BOM_UTF8) else 0
    try:
        sample = head[bom:].decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.reason == "unexpected end of data" and len(head) < len(data):
            sample = head[bom : bom + exc.start].decode("utf-8")  # a character cut by the 64 KB mark
        else:
            _not_utf8(data, name, bom + exc.start, nuls)
    controls = sum(1 for ch in sample if ord(ch) < 32 and ch not in "\t\n\r\f\v")
    if controls > len(sample) // BINARY_SHARE:
        raise CorpusInputError(f"{name} looks like a binary file ({controls:,} control characters), not text")
    return data


def _not_utf8(data: bytes, name: str, offset: int, nuls: int) -> NoReturn:
    if nuls:
        raise CorpusInputError(f"{name} looks like a binary file (NUL bytes, not UTF-8), not text")
    raise CorpusInputError(
        f"{name} is not UTF-8 text: byte 0x{data[offset]:02X} at offset {offset} cannot be decoded. "
        "Save it as UTF-8 plain text and upload it again."
    )


def decode_upload(data: bytes, name: str) -> str:
    """Check an uploaded ``.txt`` file (:func:`check_upload`) and decode it whole, keeping CRLF line ends.

    Returns:
        The text (a leading UTF-8 byte-order mark is dropped).

    Raises:
        CorpusInputError: as :func:`check_upload`, or a byte past the first 64 KB is not UTF-8.
    """
    check_upload(data, name)
    bom = 3 if data.startswith(codecs.BOM_UTF8) else 0
    try:
        return data[bom:].decode("utf-8")
    except UnicodeDecodeError as exc:
        _not_utf8(data, name, bom + exc.start, data[:HEAD_BYTES].count(0))


def check_paste(text: str) -> str:
    """Check pasted text.

    Raises:
        CorpusInputError: nothing, nothing but whitespace, or more than :data:`MAX_PASTE_CHARS` characters.
    """
    if not text:
        raise CorpusInputError("the pasted text is empty: paste some text, or pick a sample")
    if not text.strip():
        raise CorpusInputError("the pasted text holds only whitespace: paste some text, or pick a sample")
    if len(text) > MAX_PASTE_CHARS:
        raise CorpusInputError(f"the pasted text has {len(text):,} characters; the limit is {MAX_PASTE_CHARS:,}")
    return text

"""Corpus input: the sample registry, and checks on uploaded files (no Streamlit here)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

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


MAX_UPLOAD_MB = 5
"""Upload limit in MB; ``.streamlit/config.toml`` enforces the same (``server.maxUploadSize``)."""
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


class CorpusInputError(ValueError):
    """Uploaded or pasted input that cannot be used as a corpus (the message says why)."""


@dataclass(frozen=True)
class CorpusChoice:
    """The corpus the user applied.

    Attributes:
        source: ``"sample"``, ``"paste"`` or ``"upload"``.
        name: the sample label, the file name, or ``"pasted text"``.
        text: the corpus text.
    """

    source: str
    name: str
    text: str
    sha256: str = field(init=False, compare=False)
    """The text's whole SHA-256 in hex: what cache keys use (a short prefix could collide)."""
    digest: str = field(init=False, compare=False)
    """First 12 hex digits of :attr:`sha256`, to show to people and to name pasted text in links."""

    def __post_init__(self) -> None:
        sha256 = hashlib.sha256(self.text.encode("utf-8", "surrogatepass")).hexdigest()
        object.__setattr__(self, "sha256", sha256)
        object.__setattr__(self, "digest", sha256[:12])


def read_sample(label: str) -> str:
    """The text of a sample by its label.

    Raises:
        CorpusInputError: unknown label.
    """
    if label not in SAMPLES:
        raise CorpusInputError(f"unknown sample {label!r}; choose one of: {', '.join(SAMPLES)}")
    return (SAMPLE_DIR / SAMPLES[label]).read_text(encoding="utf-8")


def decode_upload(data: bytes, name: str) -> str:
    """Decode an uploaded ``.txt`` file, keeping CRLF line ends.

    Args:
        data: the file's bytes.
        name: its file name, for messages.

    Returns:
        The text (a leading UTF-8 byte-order mark is dropped).

    Raises:
        CorpusInputError: the file is larger than :data:`MAX_UPLOAD_MB`, empty,
            UTF-16, not UTF-8, or looks binary: in its first 64 KB more than one byte
            in :data:`BINARY_SHARE` is NUL or a control character (a stray NUL in valid
            UTF-8 text is kept), or it holds NUL bytes and is not UTF-8.
    """
    if len(data) > MAX_UPLOAD_MB * 1024 * 1024:
        raise CorpusInputError(f"{name} is {len(data) / 1e6:.1f} MB; the limit is {MAX_UPLOAD_MB} MB")
    if not data.strip():
        raise CorpusInputError(f"{name} is empty")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise CorpusInputError(f"{name} is UTF-16 text; save it as UTF-8 and upload it again")
    head = data[:65536]
    nuls = head.count(0)
    if nuls > max(1, len(head) // BINARY_SHARE):
        raise CorpusInputError(f"{name} looks like a binary file (it holds {nuls:,} NUL bytes), not text")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if nuls:
            raise CorpusInputError(f"{name} looks like a binary file (NUL bytes, not UTF-8), not text") from None
        raise CorpusInputError(
            f"{name} is not UTF-8 text: byte 0x{data[exc.start]:02X} at offset {exc.start} cannot be decoded. "
            "Save it as UTF-8 plain text and upload it again."
        ) from None
    sample = text[:65536]
    controls = sum(1 for ch in sample if ord(ch) < 32 and ch not in "\t\n\r\f\v")
    if controls > len(sample) // BINARY_SHARE:
        raise CorpusInputError(f"{name} looks like a binary file ({controls:,} control characters), not text")
    return text


def check_paste(text: str) -> str:
    """Check pasted text.

    Raises:
        CorpusInputError: nothing but whitespace, or more than :data:`MAX_PASTE_CHARS` characters.
    """
    if not text.strip():
        raise CorpusInputError("the pasted text is empty: paste some text, or pick a sample")
    if len(text) > MAX_PASTE_CHARS:
        raise CorpusInputError(f"the pasted text has {len(text):,} characters; the limit is {MAX_PASTE_CHARS:,}")
    return text

"""Recognise a tokenizer file (or a set of uploaded files, or a zip of them) and load it.

Recognition is by content, not by name (names only break ties):

* a JSON object with ``"format": "bpe-explorer-session"`` -> session file;
* a JSON object with a ``"model"`` object -> Hugging Face ``tokenizer.json``;
* a JSON object with ``"format": "tiktoken-encoding"`` -> a rank file's sidecar (pattern, specials);
* a JSON object of token -> integer id -> ``vocab.json`` / ``encoder.json`` (needs its merges file);
* text whose first line is ``#version: ...`` -> ``merges.txt`` / ``vocab.bpe`` (with a vocab file) or
  subword-nmt codes (alone, when tokens carry ``</w>``);
* lines of ``base64 rank`` -> a tiktoken rank file (with a sidecar, or one of OpenAI's published files).

Nothing is executed or unpickled; zip members are read in memory (no paths
are written) with a size limit.
"""

from __future__ import annotations

import hashlib
import io
import re
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..encoding.encoder import Tokenizer
from ..errors import quote
from ..text.symbols import MARKER
from ._common import FormatError, Source, decode_text, parse_json, read_file
from .gpt2 import load_vocab_merges, parse_merges_txt
from .hf_json import load_hf_json
from .session import Session, load_session
from .shipped import FILE_SHA256
from .subword_nmt import load_subword_nmt
from .tiktoken_ranks import known_rank_file, parse_ranks, parse_sidecar, tokenizer_from_ranks

FORMATS: dict[str, str] = {
    "hf_json": "Hugging Face tokenizer.json: BPE model (vocab, merges as pairs), pre-tokenizer and decoder.",
    "gpt2": "GPT-2 style vocab.json + merges.txt (#version: 0.2), like OpenAI's encoder.json + vocab.bpe.",
    "tiktoken": "tiktoken rank file (base64 token and rank per line) with its split pattern and special tokens.",
    "subword_nmt": "subword-nmt codes file (#version: 0.2, </w> attached; no header for a separate </w>).",
    "session": "BPE Explorer session JSON: corpus hash, settings, merges and alphabet, with the same ids.",
}
"""Every file format by key, with a one-line description (keys are used by export, download, prove)."""

EXPECTED = (
    "expected a Hugging Face tokenizer.json, vocab.json + merges.txt (GPT-2's encoder.json + vocab.bpe), "
    "a .tiktoken rank file (with its .json sidecar), a subword-nmt codes file, a bpe-explorer session .json, "
    "or a .zip holding one of these"
)

MAX_BYTES = 64 * 1024 * 1024
"""The largest file (or zip member, or zip total) accepted, in bytes."""

_RANK_LINE = re.compile(rb"\s*[A-Za-z0-9+/]+=*[ \t]+\d+\s*(\n|$)")
_FORMAT_FIELD = re.compile(r'\A\s*\{\s*"format"\s*:\s*"([^"\\]*)"')


@dataclass(frozen=True)
class Loaded:
    """What :func:`load`, :func:`load_bytes` and :func:`load_files` found.

    Attributes:
        tokenizer: the loaded tokenizer.
        format: the key of :data:`FORMATS`.
        files: the file names used (zip members by their own names).
        session: for a session file, the whole :class:`~bpe_core.formats.session.Session`; else ``None``.
    """

    tokenizer: Tokenizer
    format: str
    files: tuple[str, ...]
    session: Session | None = None


MAX_ZIP_RATIO = 25
"""A zip may expand to at most this many times its own size (plus :data:`MIN_ZIP_ALLOWANCE`): tokenizer
files compress 2-6 times, a zip bomb hundreds of times."""

MIN_ZIP_ALLOWANCE = 4 * 1024 * 1024
"""Bytes any zip may expand to, however small it is."""


def _read_member(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: int, name: str, too_large: FormatError
) -> bytes:
    """A member's bytes, read in blocks; ``too_large`` is raised as soon as they pass ``budget`` bytes."""
    chunks: list[bytes] = []
    size = 0
    try:
        with archive.open(info) as member:
            while True:
                block = member.read(min(1 << 20, budget - size + 1))
                if not block:
                    break
                size += len(block)
                if size > budget:
                    raise too_large
                chunks.append(block)
    except (zipfile.BadZipFile, RuntimeError, NotImplementedError, OSError, EOFError) as exc:
        raise FormatError(f"{name}: member {quote(info.filename)} cannot be read ({exc})") from None
    return b"".join(chunks)


def _unzip(name: str, data: bytes) -> dict[str, bytes]:
    """The files in a zip, by base name; reading stops as soon as the expanded size passes the limit."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as exc:
        raise FormatError(f"{name}: not a readable zip file ({exc})") from None
    limit = min(MAX_BYTES, MAX_ZIP_RATIO * len(data) + MIN_ZIP_ALLOWANCE)
    too_large = FormatError(
        f"{name}: the zip expands to more than {limit:,} bytes ({MAX_ZIP_RATIO} times its size plus "
        f"{MIN_ZIP_ALLOWANCE // 2**20} MiB, at most {MAX_BYTES // 2**20} MiB); reading stopped there"
    )
    out: dict[str, bytes] = {}
    total = 0
    for info in archive.infolist():
        base = Path(info.filename).name
        if info.is_dir() or not base or info.filename.startswith("__MACOSX/") or base.startswith("."):
            continue
        if base in out:
            raise FormatError(f"{name}: two members are named {quote(base)}")
        if info.file_size > limit - total:
            raise too_large
        member = _read_member(archive, info, limit - total, name, too_large)
        if member.startswith(b"PK\x03\x04"):
            raise FormatError(f"{name}: member {quote(info.filename)} is itself a zip; put the files in one zip")
        total += len(member)
        out[base] = member
    if not out:
        raise FormatError(f"{name}: the zip holds no files; {EXPECTED}")
    return out


def classify(data: bytes, filename: str) -> str:
    """The kind of one file: ``session``, ``hf_json``, ``tiktoken_json``, ``vocab_json``, ``merges`` or ``ranks``.

    The content decides (JSON keys, the ``#version`` header, base64 lines);
    the file name only breaks ties.

    Args:
        data: the file's bytes.
        filename: its name, for messages.

    Returns:
        The kind's name.

    Raises:
        FormatError: the content matches no kind (:data:`EXPECTED` is in the
            message), or JSON-looking content is invalid (line and column).
    """
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    lower = filename.lower()
    if head.startswith(b"{") or (lower.endswith(".json") and not head.startswith(b"#")):
        text = decode_text(data, filename)
        found = _FORMAT_FIELD.match(text)
        if found and found.group(1) == "bpe-explorer-session":
            return "session"
        if found and found.group(1) == "tiktoken-encoding":
            return "tiktoken_json"
        doc = parse_json(text, filename)
        if isinstance(doc, dict):
            if doc.get("format") == "bpe-explorer-session":
                return "session"
            if doc.get("format") == "tiktoken-encoding":
                return "tiktoken_json"
            if doc and all(isinstance(v, int) and not isinstance(v, bool) for v in doc.values()):
                return "vocab_json"  # before "model": GPT-2's vocabulary has the token "model"
            if isinstance(doc.get("model"), dict):
                return "hf_json"
        raise FormatError(f"{filename}: this JSON is not a tokenizer file; {EXPECTED}")
    if head.startswith(b"#version"):
        return "merges"
    if _RANK_LINE.match(head) or lower.endswith(".tiktoken"):
        return "ranks"
    if lower.endswith((".bpe", ".codes", "merges.txt")) or "codes" in lower:
        return "merges"
    raise FormatError(f"{filename}: unknown format; {EXPECTED}")


def _looks_like_codes(text: str) -> bool:
    """Whether a merges file without a vocabulary is subword-nmt codes (its symbols carry ``</w>``)."""
    for line in text.split("\n")[:2000]:
        if MARKER in line and not line.startswith("#"):
            return True
    return False


def load_files(
    files: Mapping[str, bytes],
    *,
    name: str = "",
    pattern: str | None = None,
    special_tokens: Mapping[str, int] | Iterable[str] | None = None,
    pretokenizer: str | None = None,
    unit: str | None = None,
    end_of_word: str | None = None,
) -> Loaded:
    """Load a tokenizer from one or more uploaded files (``st.file_uploader(accept_multiple_files=True)``).

    Args:
        files: file name -> contents. A ``.zip`` is opened and its members
            take part. Accepted sets: one ``tokenizer.json``; one session file;
            ``vocab.json`` + ``merges.txt`` (any names); a rank file, with its
            sidecar JSON unless it is OpenAI's cl100k_base or r50k_base; one
            subword-nmt codes file.
        name: a label for the tokenizer (default: from the files).
        pattern: rank file without sidecar: the split pattern (tiktoken ``pat_str``);
            vocab.json + merges.txt: a replacement pattern.
        special_tokens: rank file without sidecar: ``{token: id}``;
            vocab.json + merges.txt: which tokens are special (default: inferred).
        pretokenizer, unit, end_of_word: vocab.json + merges.txt: override
            what is inferred (see :func:`bpe_core.formats.gpt2.load_vocab_merges`).

    Returns:
        A :class:`Loaded` with the tokenizer and the format's key.

    Raises:
        FormatError: an unknown format or combination of files (saying what
            was expected), or a malformed file (naming the file and the line,
            key or field).
        MergeTableError: a byte-level table missing single bytes (listed).
    """
    expanded = _expand(files)
    kinds: dict[str, list[str]] = {}
    for fname, data in expanded.items():
        kinds.setdefault(classify(data, fname), []).append(fname)
    names = tuple(expanded)

    def only(*wanted: str) -> bool:
        return sorted(kinds) == sorted(wanted) and all(len(kinds[w]) == 1 for w in wanted)

    if only("session"):
        f = kinds["session"][0]
        session = load_session(expanded[f], source=f)
        return Loaded(session.tokenizer, "session", names, session)
    if only("hf_json"):
        f = kinds["hf_json"][0]
        return Loaded(load_hf_json(expanded[f], source=f, name=name or Path(f).stem), "hf_json", names)
    if only("vocab_json", "merges"):
        v, m = kinds["vocab_json"][0], kinds["merges"][0]
        specials = None if special_tokens is None else list(special_tokens)
        tok = load_vocab_merges(
            expanded[v],
            expanded[m],
            unit=unit,
            end_of_word=end_of_word,
            pretokenizer=pretokenizer,
            pattern=pattern,
            special_tokens=specials,
            name=name or ("GPT-2" if hashlib.sha256(expanded[v]).hexdigest() == FILE_SHA256["encoder.json"] else v),
            sources=(v, m),
        )
        return Loaded(tok, "gpt2", names)
    if only("ranks") or only("ranks", "tiktoken_json"):
        sidecar = kinds["tiktoken_json"][0] if "tiktoken_json" in kinds else None
        tok = _load_ranks(expanded, kinds["ranks"][0], sidecar, name, pattern, special_tokens)
        return Loaded(tok, "tiktoken", names)
    if only("merges"):
        return Loaded(_load_codes(expanded, kinds["merges"][0], name), "subword_nmt", names)
    if only("vocab_json"):
        vocab = kinds["vocab_json"][0]
        hint = ""
        if vocab.lower().endswith("tokenizer.json"):  # every value a number: read as a vocabulary, e.g. {"model": 5}
            hint = ' (read as a vocab.json: every value is a number; a tokenizer.json\'s "model" is an object)'
        raise FormatError(f"{vocab}: vocab.json needs its merges.txt (vocab.bpe); upload both{hint}")
    if only("tiktoken_json"):
        raise FormatError(f"{kinds['tiktoken_json'][0]}: this sidecar needs its .tiktoken rank file; upload both")
    got = ", ".join(f"{f} ({k})" for k, fs in kinds.items() for f in fs)
    raise FormatError(f"cannot combine these files: {got}; {EXPECTED}")


def _expand(files: Mapping[str, bytes]) -> dict[str, bytes]:
    """File name -> bytes, each ``.zip`` replaced by its members (in order).

    Raises:
        TypeError: a file's contents are not bytes.
        FormatError: a file over :data:`MAX_BYTES`, two files with one name, or no file at all.
    """
    expanded: dict[str, bytes] = {}
    for fname, data in files.items():
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError(f"{fname}: expected the file's bytes, got {type(data).__name__}")
        if len(data) > MAX_BYTES:
            raise FormatError(f"{fname}: {len(data):,} bytes is over the {MAX_BYTES // 2**20} MiB limit")
        members = _unzip(fname, bytes(data)) if bytes(data[:4]) == b"PK\x03\x04" else {fname: bytes(data)}
        for member, content in members.items():
            if member in expanded:
                raise FormatError(f"two files are named {quote(member)}")
            expanded[member] = content
    if not expanded:
        raise FormatError(f"no file was given; {EXPECTED}")
    return expanded


def _load_ranks(
    expanded: Mapping[str, bytes],
    r: str,
    s: str | None,
    name: str,
    pattern: str | None,
    special_tokens: Mapping[str, int] | Iterable[str] | None,
) -> Tokenizer:
    """A tiktoken rank file ``r``, its split pattern and special tokens from the sidecar ``s``, the
    arguments, or the known OpenAI encodings (in that order of precedence: arguments first).

    Raises:
        FormatError: the sidecar names another rank file, or no pattern is known.
    """
    data = expanded[r]
    label = name or Path(r).stem
    specials_map: Mapping[str, int] | None = special_tokens if isinstance(special_tokens, Mapping) else None
    pat = pattern
    if s is not None:
        sidecar = parse_sidecar(expanded[s], s)
        if sidecar["mergeable_ranks"] not in (None, r):
            raise FormatError(f"{s}: it describes the rank file {quote(sidecar['mergeable_ranks'])}, not {quote(r)}")
        pat = pat or sidecar["pat_str"]  # type: ignore[assignment]
        specials_map = specials_map if specials_map is not None else sidecar["special_tokens"]  # type: ignore[assignment]
        label = name or sidecar["name"] or label  # type: ignore[assignment]
    elif pat is None:
        known = known_rank_file(data)
        if known is None:
            raise FormatError(
                f"{r}: a rank file does not hold its split pattern; upload its .json sidecar with it "
                "(as this app's tiktoken download has), or give the pattern"
            )
        label = name or known[0]
        pat = known[1]
        specials_map = specials_map if specials_map is not None else known[2]
    return tokenizer_from_ranks(parse_ranks(data, r), pat, specials_map, name=label, source=r)


def _load_codes(expanded: Mapping[str, bytes], m: str, name: str) -> Tokenizer:
    """A merges file alone: a subword-nmt codes file (its symbols carry ``</w>``, or its name says codes).

    Raises:
        FormatError: a GPT-2 merges file without its vocabulary, or a malformed line.
    """
    text = decode_text(expanded[m], m)
    if _looks_like_codes(text) or "codes" in m.lower():
        return load_subword_nmt(text, source=m, name=name or Path(m).stem)
    parse_merges_txt(text, m)  # a malformed line is the clearer error
    raise FormatError(
        f"{m}: a merges file without its vocab.json has no ids; upload vocab.json (encoder.json) with it. "
        "(A subword-nmt codes file is recognised by the </w> in its merges.)"
    )


def load_bytes(data: bytes, filename: str, **options: object) -> Loaded:
    """Load one uploaded file (a ``.zip`` may hold several); see :func:`load_files` for ``options``.

    Raises:
        FormatError, MergeTableError: see :func:`load_files`.
    """
    return load_files({filename: data}, **options)  # type: ignore[arg-type]


def _is_note(name: str) -> bool:
    """Files a directory may hold beside the tokenizer files (README, licence, hidden files)."""
    upper = name.upper()
    return (
        name.startswith(".") or upper.endswith(".MD") or upper.startswith(("README", "LICENSE", "LICENCE", "SOURCES"))
    )


def load(*paths: Source, **options: object) -> Loaded:
    """Load tokenizer files from disk; a directory stands for the files in it (README/licence files skipped).

    Examples: ``load("tokenizer.json")``, ``load("encoder.json", "vocab.bpe")``,
    ``load("bpe_core/formats/data/cl100k_base.tiktoken")``, ``load("exported.zip")``.

    Raises:
        FormatError, MergeTableError: see :func:`load_files`.
        OSError: a path cannot be read.
    """
    files: dict[str, bytes] = {}
    for path in paths:
        p = Path(path)
        if p.is_dir():
            members = sorted(x for x in p.iterdir() if x.is_file() and not _is_note(x.name))
        else:
            members = [p]
        for member in members:
            if member.name in files:
                raise FormatError(f"two files are named {quote(member.name)}")
            files[member.name] = read_file(member)
    return load_files(files, **options)  # type: ignore[arg-type]

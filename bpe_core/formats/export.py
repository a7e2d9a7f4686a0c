"""Write a tokenizer in each format, offer it as one download, and prove the result by re-encoding.

Every exporter returns ``str``/``bytes`` (nothing is written to disk), so a UI
can pass the result straight to a download button. :func:`prove` is the
check the app runs after an export or an import: the files are loaded back
with :func:`~bpe_core.formats.load_files` and a probe text must encode to
identical ids (identical token strings for subword-nmt codes, which hold no ids).
The reference libraries are test-only dependencies: the test suite reloads
every format with the library named in :data:`REFERENCE_CHECKS`, and each
:class:`Proof` says which check it ran.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..encoding.encoder import Tokenizer
from ..errors import quote
from ..text.symbols import check_option
from . import gpt2, hf_json, session, subword_nmt, tiktoken_ranks
from ._common import ExportError
from .detect import FORMATS, load_files

if TYPE_CHECKING:
    from ..training.result import TrainResult


@dataclass(frozen=True)
class Download:
    """One file to offer for download.

    Attributes:
        filename: the suggested file name (``tokenizer.json``, ``name.zip``, ...).
        data: the file's bytes.
        mime: its MIME type.
    """

    filename: str
    data: bytes
    mime: str


@dataclass(frozen=True)
class Proof:
    """The outcome of :func:`prove`.

    Attributes:
        format: the format's key.
        ok: whether the reloaded tokenizer encodes the probe identically.
        compared: ``"ids"`` or ``"tokens"`` (subword-nmt codes hold no ids).
        length: how many tokens the original gave.
        first_difference: the index of the first differing token, or ``None``.
        expected: up to 8 original tokens (ids or strings) from the first difference on.
        got: the reloaded tokenizer's tokens at the same place.
        message: one sentence for the UI.
        check: which check ran (bpe_core's own reader) and the library the test
            suite proves this format against (:data:`REFERENCE_CHECKS`).
    """

    format: str
    ok: bool
    compared: str
    length: int
    first_difference: int | None
    expected: tuple
    got: tuple
    message: str
    check: str = ""


REFERENCE_CHECKS: dict[str, str] = {
    "hf_json": "Hugging Face tokenizers (Tokenizer.from_str)",
    "gpt2": "Hugging Face tokenizers (models.BPE.from_file)",
    "tiktoken": "tiktoken (Encoding over load_tiktoken_bpe)",
    "subword_nmt": "subword-nmt (apply_bpe.BPE)",
    "session": "no other library (the format is BPE Explorer's own)",
}
"""For each format, the real library the project's tests reload its exports with (tests/test_export_matrix.py)."""


def check_description(fmt: str) -> str:
    """One sentence saying what :func:`prove` runs for ``fmt`` and what the test suite adds."""
    return (
        f"Checked here by reloading the file with bpe_core's own {fmt} reader and encoding the text again; "
        f"the project's tests reload such files with {REFERENCE_CHECKS[fmt]}."
    )


def _tokenizer(source: TrainResult | Tokenizer) -> Tokenizer:
    return source if isinstance(source, Tokenizer) else source.tokenizer


def _safe(name: str) -> str:
    cleaned = "".join(c if c.isalnum() or c in "-_." else "_" for c in name).strip("._")
    return cleaned or "tokenizer"


def export(
    source: TrainResult | Tokenizer,
    fmt: str,
    *,
    name: str = "tokenizer",
    corpus: str | Mapping[str, int] | None = None,
    corpus_name: str | None = None,
    corpus_hash: str | None = None,
) -> dict[str, bytes]:
    """The files of one format: file name -> contents.

    Args:
        source: a training result or a tokenizer.
        fmt: a key of :data:`~bpe_core.formats.FORMATS`: ``hf_json`` ->
            ``tokenizer.json``; ``gpt2`` -> ``vocab.json`` + ``merges.txt``;
            ``tiktoken`` -> ``<name>.tiktoken`` + ``<name>.tiktoken.json`` (pattern
            and special tokens); ``subword_nmt`` -> ``<name>.codes``;
            ``session`` -> ``<name>.session.json``.
        name: the base name for file names and labels.
        corpus, corpus_name: session only: the corpus (its hash is stored) and a label.
        corpus_hash: session only: the corpus's :func:`~bpe_core.formats.corpus_sha256`, instead of ``corpus``.

    Raises:
        OptionError: an unknown format.
        ExportError: settings the format cannot hold (the message says which and what to use instead).
    """
    check_option("format", fmt, FORMATS)
    tok = _tokenizer(source)
    base = _safe(name)
    if fmt == "hf_json":
        return {"tokenizer.json": hf_json.to_hf_json(tok).encode()}
    if fmt == "gpt2":
        return {"vocab.json": gpt2.to_vocab_json(tok).encode(), "merges.txt": gpt2.to_merges_txt(tok).encode()}
    if fmt == "tiktoken":
        rank_file = f"{base}.tiktoken"
        return {
            rank_file: tiktoken_ranks.to_tiktoken(tok),
            f"{base}.tiktoken.json": tiktoken_ranks.to_sidecar(tok, name=base, rank_file=rank_file).encode(),
        }
    if fmt == "subword_nmt":
        return {f"{base}.codes": subword_nmt.to_subword_nmt(tok).encode()}
    text = session.to_session(source, corpus=corpus, corpus_hash=corpus_hash, corpus_name=corpus_name, name=name)
    return {f"{base}.session.json": text.encode()}


def download(source: TrainResult | Tokenizer, fmt: str, **options: object) -> Download:
    """:func:`export` as one file: a single file as is, several in a zip (``<name>-<fmt>.zip``).

    Args:
        source: a training result or a tokenizer.
        fmt: a format name from :data:`FORMATS`.
        options: passed to :func:`export`.

    Returns:
        A :class:`Download` with the file name, bytes and MIME type.

    Raises:
        OptionError, ExportError: see :func:`export`.
    """
    files = export(source, fmt, **options)  # type: ignore[arg-type]
    if len(files) == 1:
        ((fname, data),) = files.items()
        mime = "application/json" if fname.endswith(".json") else "text/plain"
        return Download(fname, data, mime)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for fname, data in files.items():
            info = zipfile.ZipInfo(fname, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    base = _safe(str(options.get("name", "tokenizer")))
    return Download(f"{base}-{fmt}.zip", buffer.getvalue(), "application/zip")


def exportable(source: TrainResult | Tokenizer) -> dict[str, str | None]:
    """For each format, ``None`` if ``source`` can be saved in it, else the reason it cannot (for the UI).

    Runs :func:`export` for each format (linear in the vocabulary; about a second for cl100k_base).
    """
    out: dict[str, str | None] = {}
    for fmt in FORMATS:
        try:
            export(source, fmt)
        except ExportError as exc:
            out[fmt] = str(exc)
        else:
            out[fmt] = None
    return out


def prove(source: TrainResult | Tokenizer, fmt: str, probe: str, **options: object) -> Proof:
    """Export in ``fmt``, load the files back, and compare the encodings of ``probe``.

    Use it after an export (is the file faithful?) and after an import (does
    the loaded tokenizer survive its own format?). The reference libraries
    (tiktoken, tokenizers, subword-nmt) are not needed; the project's tests
    prove the same files against them.

    Args:
        source: a training result or a tokenizer.
        fmt: a key of :data:`~bpe_core.formats.FORMATS`.
        probe: any text.
        options: passed to :func:`export`.

    Returns:
        A :class:`Proof`; ``ok`` is False with the first difference when the ids differ.

    Raises:
        OptionError, ExportError: see :func:`export`.
    """
    tok = _tokenizer(source)
    files = export(source, fmt, **options)  # type: ignore[arg-type]
    loaded = load_files(files).tokenizer
    if fmt == "subword_nmt":
        compared = "tokens"
        before: list = tok.tokenize(probe)
        after: list = loaded.tokenize(probe)
    else:
        compared = "ids"
        before = tok.encode(probe)
        after = loaded.encode(probe)
    check = check_description(fmt)
    if before == after:
        message = f"identical {compared}: {len(before):,} tokens"
        return Proof(fmt, True, compared, len(before), None, (), (), message, check)
    k = next((k for k, (x, y) in enumerate(zip(before, after)) if x != y), min(len(before), len(after)))
    message = (
        f"the reloaded {fmt} tokenizer differs at token {k} of {len(before):,}: "
        f"{quote(before[k : k + 3])} became {quote(after[k : k + 3])}"
    )
    expected, got = tuple(before[k : k + 8]), tuple(after[k : k + 8])
    return Proof(fmt, False, compared, len(before), k, expected, got, message, check)


__all__ = ["REFERENCE_CHECKS", "Download", "Proof", "check_description", "download", "export", "exportable", "prove"]

"""Tokenizer files in and out: real tokenizers (GPT-2, cl100k_base) and the standard formats.

Loading (the ids are always the file's ids):

* :func:`bundled` -- the GPT-2 and cl100k_base tables shipped in ``bpe_core/formats/data/``, parsed once per process;
* :func:`load` (paths), :func:`load_bytes` (one upload, a ``.zip`` may hold several files),
  :func:`load_files` (several uploads) -- recognise the format by content and return a :class:`Loaded`;
* per format: :func:`load_gpt2`, :func:`load_vocab_merges`, :func:`load_tiktoken`,
  :func:`tokenizer_from_ranks`, :func:`load_hf_json`, :func:`load_subword_nmt`, :func:`load_session`.

Saving (each returns ``str``/``bytes``): :func:`export` (file name -> bytes for one
format), :func:`download` (one file or a zip), :func:`exportable` (which formats can
hold a tokenizer, and why not), and the writers :func:`to_hf_json`,
:func:`to_vocab_json` / :func:`to_merges_txt`, :func:`to_tiktoken` / :func:`to_sidecar`,
:func:`to_subword_nmt`, :func:`to_session`.

Proof: :func:`prove` writes a format, loads it back and compares a probe text's ids.

Errors: :class:`FormatError` (a :class:`~bpe_core.MergeTableError`) for files that
cannot be read, naming the file and line, key or field; :class:`ExportError` (an
:class:`~bpe_core.OptionError`) for settings a format cannot hold. Nothing is
executed or unpickled.
"""

from ._common import DuplicateKeyError, ExportError, FormatError
from .detect import EXPECTED, FORMATS, Loaded, classify, load, load_bytes, load_files
from .export import Download, Proof, download, export, exportable, prove
from .gpt2 import load_gpt2, load_vocab_merges, to_merges_txt, to_vocab_json
from .hf_json import load_hf_json, to_hf_json
from .session import Session, corpus_sha256, load_session, to_session
from .shipped import BUNDLED, REFERENCE_DIR, bundled, preload
from .subword_nmt import load_subword_nmt, segments, to_subword_nmt
from .tiktoken_ranks import (
    CL100K_SPECIAL_TOKENS,
    load_tiktoken,
    parse_ranks,
    recover_merges,
    to_sidecar,
    to_tiktoken,
    tokenizer_from_ranks,
)

__all__ = [
    "BUNDLED",
    "CL100K_SPECIAL_TOKENS",
    "Download",
    "DuplicateKeyError",
    "EXPECTED",
    "ExportError",
    "FORMATS",
    "FormatError",
    "Loaded",
    "Proof",
    "REFERENCE_DIR",
    "Session",
    "bundled",
    "classify",
    "corpus_sha256",
    "download",
    "export",
    "exportable",
    "load",
    "load_bytes",
    "load_files",
    "load_gpt2",
    "load_hf_json",
    "load_session",
    "load_subword_nmt",
    "load_tiktoken",
    "load_vocab_merges",
    "parse_ranks",
    "preload",
    "prove",
    "recover_merges",
    "segments",
    "to_hf_json",
    "to_merges_txt",
    "to_session",
    "to_sidecar",
    "to_subword_nmt",
    "to_tiktoken",
    "to_vocab_json",
    "tokenizer_from_ranks",
]

"""The real tokenizers that ship with the project: GPT-2, cl100k_base and o200k_base.

Their tables are package data in ``bpe_core/formats/data/`` (see its README
for sources, hashes and the MIT licence); this module reads them with
:mod:`importlib.resources`, checks each file's sha256 against the one OpenAI
published (tiktoken's ``expected_hash``), parses them once per process and
caches the result.
"""

from __future__ import annotations

import hashlib
import threading
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING

from ..encoding.encoder import Tokenizer
from ..errors import quote
from ..text.pretokenize import GPT4_PATTERN
from ._common import FormatError
from .gpt2 import load_vocab_merges
from .tiktoken_ranks import (
    CL100K_SPECIAL_TOKENS,
    O200K_PATTERN,
    O200K_SPECIAL_TOKENS,
    parse_ranks,
    tokenizer_from_ranks,
)

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable  # Python 3.11+; only for the annotation

REFERENCE_DIR: Traversable = resources.files(__package__) / "data"
"""The shipped tables' folder, ``bpe_core/formats/data/`` (package data; a :class:`~pathlib.Path` when the
package is installed as files, the usual case)."""
_SOURCE = "bpe_core/formats/data/"
"""How a loaded shipped tokenizer names the folder its files came from."""

FILE_SHA256: dict[str, str] = {
    "encoder.json": "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783",
    "vocab.bpe": "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5",
    "cl100k_base.tiktoken": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base.tiktoken": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}
"""The sha256 of each shipped file (tiktoken 0.14 ``tiktoken_ext/openai_public.py`` ``expected_hash``)."""

BUNDLED: dict[str, str] = {
    "gpt2": "GPT-2 (OpenAI 2019): 50,000 byte-level merges, GPT-2's regex, <|endoftext|> = 50256.",
    "cl100k_base": "cl100k_base (GPT-3.5/GPT-4): 100,256 ranks looked up by bytes, digit runs of at most 3.",
    "o200k_base": "o200k_base (GPT-4o): 199,998 ranks looked up by bytes; words split at upper-to-lower case changes.",
}
"""The shipped tokenizers by name, with a one-line description."""

_ALIASES = {
    "gpt2": "gpt2",
    "gpt-2": "gpt2",
    "r50k_base": "gpt2",
    "cl100k_base": "cl100k_base",
    "cl100k": "cl100k_base",
    "o200k_base": "o200k_base",
    "o200k": "o200k_base",
}
_RANK_FILES: dict[str, tuple[str, dict[str, int]]] = {
    "cl100k_base": (GPT4_PATTERN, CL100K_SPECIAL_TOKENS),
    "o200k_base": (O200K_PATTERN, O200K_SPECIAL_TOKENS),
}
"""Each shipped rank file's split pattern and special tokens (tiktoken ``tiktoken_ext/openai_public.py``)."""
_LOCKS = {key: threading.Lock() for key in BUNDLED}
"""One lock per table: a page asking for one table never waits while another is parsed."""


def _checked(name: str) -> bytes:
    path = REFERENCE_DIR / name
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise FormatError(f"{path} is missing: the project ships it in {_SOURCE}") from None
    digest = hashlib.sha256(data).hexdigest()
    if digest != FILE_SHA256[name]:
        raise FormatError(
            f"{path}: sha256 is {digest}, not the published {FILE_SHA256[name]}; the file is damaged or replaced"
        )
    return data


@lru_cache(maxsize=len(BUNDLED))
def _load(key: str) -> Tokenizer:
    if key == "gpt2":
        return load_vocab_merges(
            _checked("encoder.json"),
            _checked("vocab.bpe"),
            unit="byte",
            pretokenizer="gpt2",
            name="GPT-2",
            sources=(f"{_SOURCE}encoder.json", f"{_SOURCE}vocab.bpe"),
        )
    pattern, specials = _RANK_FILES[key]
    source = f"{_SOURCE}{key}.tiktoken"
    ranks = parse_ranks(_checked(f"{key}.tiktoken"), source)
    return tokenizer_from_ranks(ranks, pattern, specials, name=key, source=source)


def bundled(name: str) -> Tokenizer:
    """The shipped GPT-2, cl100k_base or o200k_base tokenizer, parsed once per process.

    Args:
        name: ``"gpt2"`` (also ``"GPT-2"``, ``"r50k_base"``), ``"cl100k_base"``
            (also ``"cl100k"``) or ``"o200k_base"`` (also ``"o200k"``); case-insensitive.

    Returns:
        The shared :class:`~bpe_core.Tokenizer` (the same object on every call;
        do not modify it). GPT-2 merges by pair with ids from ``encoder.json``;
        cl100k_base and o200k_base merge by bytes with ids = ranks and their
        special tokens (five and two), as tiktoken defines them.

    Raises:
        OptionError: an unknown name (the message lists the known ones).
        FormatError: a shipped file is missing or its sha256 differs from the published one.
    """
    from ..errors import OptionError

    key = _ALIASES.get(str(name).strip().lower())
    if key is None:
        raise OptionError(f"unknown bundled tokenizer {quote(name)}; expected one of: {', '.join(BUNDLED)}")
    with _LOCKS[key]:
        return _load(key)


def preload(names: tuple[str, ...] = tuple(BUNDLED)) -> threading.Thread:
    """Parse the bundled tokenizers in a background thread so a page need not wait.

    Args:
        names: which bundled tokenizers to parse (default: all).

    Returns:
        The started daemon thread; later :func:`bundled` calls return at once
        (or wait for the parse in progress). An error in the thread is not
        raised there: the next :func:`bundled` call parses again and raises it.
    """
    thread = threading.Thread(target=lambda: [bundled(n) for n in names], name="bpe-bundled-preload", daemon=True)
    thread.start()
    return thread

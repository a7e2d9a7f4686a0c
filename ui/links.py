"""Shared links: check the values a URL puts into widgets before any widget reads them.

Widgets bound to query parameters take their first value from the link. A value
no widget could hold (``?set_budget=inf`` makes ``st.number_input`` raise
``OverflowError``; ``1e9`` merges is past every limit; a special token of 10,000
characters) is taken out of the link here, with a message saying what was
ignored and what the limit is, so the page opens with the default instead of a
traceback or an hour of training.

Pasted text travels in the link itself (:data:`TEXT_IN_LINK`), compressed as the TypeScript
playground carries whole programs: :func:`pack_text` and :func:`unpack_text`. A path that names no
page (``/token_trees``) is said to be one, with the pages listed: :func:`unknown_page_notice`.
"""

from __future__ import annotations

import base64
import binascii
import difflib
import math
import re
import zlib
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from pathlib import PurePosixPath
from urllib.parse import unquote, urlsplit

import streamlit as st
from streamlit.errors import StreamlitAPIException

from bpe_core import ORDERS, BPEError
from bpe_core.registry.options import (
    MAX_MERGES,
    MAX_MIN_FREQUENCY,
    MAX_VOCAB_SIZE,
    OPTIONS,
    check_special_tokens,
    parse_int,
)
from ui import state
from ui.corpus import MAX_ENCODE_CHARS, MAX_PASTE_CHARS, SAMPLES, CorpusInputError, check_paste
from ui.settings import BUDGET_KINDS, parse_special_tokens
from viz.markdown import plain

MAX_BUDGET = max(MAX_MERGES, MAX_VOCAB_SIZE)
"""The sidebar's budget box holds merges or a vocabulary size (checked against its own limit on Train)."""
CMP_MAX_MERGES = 20_000
"""The Compare page trains up to four runs at once: each gets at most this many merges."""
CMP_MAX_RUNS = 4
"""The Compare page trains at most this many runs (its Runs control offers 2, 3 and 4)."""
CMP_RUN_FIELDS = ("pretokenizer", "unit", "end_of_word", "tie_break", "order")
"""The settings of each Compare run bound to the link (``cmp_0_unit``: see :func:`ui.state.cmp_key`)."""
CMP_MAX_TEXT_CHARS = MAX_ENCODE_CHARS
"""The Compare page's test-text box holds as much as the Encode page's box: every run (up to four trained here and
four real tokenizers) encodes it, with a full trace each."""
COMPARE_KEYS = frozenset(
    {state.CMP_COUNT, state.CMP_BUDGET, state.CMP_TEXT, state.CMP_HELD_OUT, state.CMP_METRIC, state.CMP_REAL,
     state.CMP_SWITCH_RUN, state.CMP_SWITCH_RULE, state.CMP_SWITCH_CORPUS}
    | {state.cmp_key(i, field) for i in range(CMP_MAX_RUNS) for field in CMP_RUN_FIELDS}
)  # fmt: skip
"""Every parameter a Compare link may hold; another ``cmp_`` name (``cmp_budget``) is said to be none of them."""

CHECK_MAX_MIN_FREQUENCY = 1_000_000
"""The Check page's minimum-frequency box (its corpora are a few lines long)."""
MAX_DROPOUT_SAMPLES = 6
"""The Encode page's BPE-dropout draws at most this many segmentations side by side."""
MAX_DROPOUT_SEED = 2**31 - 1
"""The largest seed the Encode page's dropout seed box takes."""
CHECK_MAX_CORPUS_CHARS = 100_000
"""The Check page's corpus box (finding settings trains :data:`bpe_core.analysis.checking.FIND_TRAININGS` times and
more):
also the longest a link may carry."""
CHECK_MAX_CLAIM_CHARS = 20_000
"""The Check page's claimed-merges box."""
CHECK_MAX_WORD_CHARS = 2_000
"""The Check page's word box (one word, encoded three ways)."""
CHECK_MAX_STEPS_CHARS = 20_000
"""The Check page's claimed-states box."""

NUMBERS: dict[str, tuple[int, int]] = {
    state.BUDGET: (0, MAX_BUDGET),
    state.MIN_FREQUENCY: (1, MAX_MIN_FREQUENCY),
    state.CMP_BUDGET: (1, CMP_MAX_MERGES),
    state.CMP_COUNT: (2, CMP_MAX_RUNS),
    state.CHECK_MIN_FREQUENCY: (1, CHECK_MAX_MIN_FREQUENCY),
    state.ENCODE_DROPOUT_PERCENT: (0, 100),
    state.ENCODE_DROPOUT_SAMPLES: (1, MAX_DROPOUT_SAMPLES),
    state.ENCODE_DROPOUT_SEED: (0, MAX_DROPOUT_SEED),
}
"""Number boxes bound to the URL: their allowed range."""
_OTHER_NUMBERS = re.compile(r"lesson\d+_merges$|\w+_step$")
"""Other number widgets bound to the URL: lesson merge boxes and the players' step sliders (``train_step``)
(their range is checked by the widget; here only that the value is a number)."""

CHOICES: dict[str, Mapping[str, object]] = {
    state.PRETOKENIZER: OPTIONS["pretokenizer"].choices,
    state.UNIT: OPTIONS["unit"].choices,
    state.END_OF_WORD: OPTIONS["end_of_word"].choices,
    state.TIE_BREAK: OPTIONS["tie_break"].choices,
    state.BUDGET_KIND: BUDGET_KINDS,
    state.SAMPLE: SAMPLES,
} | {
    state.cmp_key(i, field): ORDERS if field == "order" else OPTIONS[field].choices
    for i in range(CMP_MAX_RUNS)
    for field in CMP_RUN_FIELDS
}
"""Choice widgets bound to the URL (the sidebar's, each Compare run's): their allowed values."""


def _check_specials(value: str) -> None:
    check_special_tokens(parse_special_tokens(value))


def _check_encode_text(value: str) -> None:
    if len(value) > MAX_ENCODE_CHARS:
        raise BPEError(
            f"{state.ENCODE_TEXT} holds {len(value):,} characters; the Encode box holds {MAX_ENCODE_CHARS:,}"
        )


TEXT_IN_LINK = "corpus_text"
"""URL parameter holding pasted text: its UTF-8 bytes compressed with raw DEFLATE (RFC 1951, zlib level 9,
no header) and written in URL-safe base64 without padding (RFC 4648, section 5). A browser makes the same
with ``CompressionStream("deflate-raw")``."""
MAX_LINK_TEXT = 6_000
"""The most characters :data:`TEXT_IN_LINK` may hold (the compressed text, as the link spells it).

A whole link then stays under 8 KB with room for every other parameter. The limit is set by what may stand
between a browser and the app: Apache and nginx (as a proxy in front of Streamlit) refuse a request line over
8,190 bytes by default, while Streamlit's own server (uvicorn) answered a 70,000-character link here and
Chromium takes links of up to 2 MB. Measured with :func:`pack_text`: 6,000
characters hold the first 9,892 characters of Tiny Shakespeare, 9,414 of the Taylor Swift article, and
7,500-8,700 of the Urdu, Tamil or Mongolian declarations of the UDHR sample; the 11,916-character Shakespeare
excerpt needs 7,156."""
LINK_TEXT_SIZE = "about 9,900 characters of English, fewer in other scripts"
"""What :data:`MAX_LINK_TEXT` holds, in words for the page."""
_MAX_UNPACKED = 4 * MAX_PASTE_CHARS
"""Bytes a link's text may inflate to: the paste box's limit, at four UTF-8 bytes a character (a
decompression bomb stops here)."""
_BASE64URL = re.compile(r"[A-Za-z0-9_-]+")


def pack_text(text: str) -> str | None:
    """``text`` as :data:`TEXT_IN_LINK` spells it, or ``None`` when that is longer than :data:`MAX_LINK_TEXT`
    characters (or the text holds a lone surrogate, which UTF-8 cannot carry)."""
    packed = packed_length(text)
    return packed[1] if packed is not None and packed[0] <= MAX_LINK_TEXT else None


@lru_cache(maxsize=16)  # a paste is packed on every rerun that draws the sidebar
def packed_length(text: str) -> tuple[int, str] | None:
    """``(length, value)`` of ``text`` packed for a link, whatever its length; ``None`` for a lone surrogate."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        return None
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)  # wbits -15: raw DEFLATE, no zlib header or checksum
    value = base64.urlsafe_b64encode(packer.compress(data) + packer.flush()).rstrip(b"=").decode("ascii")
    return len(value), value


def unpack_text(value: str) -> str:
    """The pasted text a link's :data:`TEXT_IN_LINK` value holds, decoded within bounded time and memory.

    At most :data:`MAX_LINK_TEXT` characters are decoded, and they may inflate to at most four bytes per
    character of the paste box (``zlib.decompressobj().decompress(max_length=)``), so a decompression bomb
    stops after 80 KB.

    Raises:
        bpe_core.BPEError: a value too long, not URL-safe base64, not raw DEFLATE, cut short or followed by
            other bytes, inflating past the paste box's limit, not UTF-8, or not a usable paste (empty,
            whitespace only, more than :data:`~ui.corpus.MAX_PASTE_CHARS` characters); the message says which.
    """
    name = TEXT_IN_LINK
    if len(value) > MAX_LINK_TEXT:
        raise BPEError(f"{name} holds {len(value):,} characters; a link carries at most {MAX_LINK_TEXT:,}")
    if not _BASE64URL.fullmatch(value):
        raise BPEError(f"{name} is not compressed text (URL-safe base64 letters only)")
    try:
        data = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
        unpacker = zlib.decompressobj(-15)
        raw = unpacker.decompress(data, _MAX_UNPACKED + 1)
    except (binascii.Error, zlib.error):
        raise BPEError(f"{name} is not compressed text (raw DEFLATE in base64)") from None
    if len(raw) > _MAX_UNPACKED or unpacker.unconsumed_tail:
        raise BPEError(f"{name} unpacks to more than the paste box's {MAX_PASTE_CHARS:,} characters")
    if not unpacker.eof or unpacker.unused_data:
        raise BPEError(f"{name} is cut short or has bytes after its end: the link was not copied whole")
    try:
        return check_paste(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise BPEError(f"{name} does not unpack to UTF-8 text") from None
    except CorpusInputError as exc:
        raise BPEError(f"{name}: {exc}") from None


def _check_link_text(value: str) -> None:
    unpack_text(value)


def _at_most(key: str, limit: int, box: str) -> Callable[[str], None]:
    """A check that ``key``'s value holds at most ``limit`` characters (the limit of the page's ``box``)."""

    def check(value: str) -> None:
        if len(value) > limit:
            raise BPEError(f"{key} holds {len(value):,} characters; the {box} holds {limit:,}")

    return check


TEXTS: dict[str, Callable[[str], None]] = {
    state.SPECIALS: _check_specials,
    state.ENCODE_TEXT: _check_encode_text,
    TEXT_IN_LINK: _check_link_text,
    state.CHECK_CORPUS: _at_most(state.CHECK_CORPUS, CHECK_MAX_CORPUS_CHARS, "Check page's corpus box"),
    state.CHECK_CLAIM: _at_most(state.CHECK_CLAIM, CHECK_MAX_CLAIM_CHARS, "claimed-merges box"),
    state.CHECK_WORD: _at_most(state.CHECK_WORD, CHECK_MAX_WORD_CHARS, "word box"),
    state.CHECK_STEPS: _at_most(state.CHECK_STEPS, CHECK_MAX_STEPS_CHARS, "claimed-states box"),
    state.CMP_TEXT: _at_most(state.CMP_TEXT, CMP_MAX_TEXT_CHARS, "Compare page's test-text box"),
}
"""Text boxes bound to the URL whose value has limits: a check raising ``BPEError``."""


def problem(key: str, value: str) -> str | None:
    """Why the link's ``key=value`` cannot be used (a sentence), or ``None`` when it can.

    Args:
        key: a query parameter (a widget key such as ``set_budget``).
        value: its value as the URL gives it.
    """
    try:
        if key in NUMBERS:
            low, high = NUMBERS[key]
            parse_int(key, value, low, high)
        elif _OTHER_NUMBERS.match(key):
            number = float(value)
            if not math.isfinite(number) or abs(number) > 2**53:
                return f"{key} must be a whole number, got {value[:40]!r}"
        elif key in CHOICES and value not in CHOICES[key]:
            return f"{key} must be one of: {', '.join(CHOICES[key])}; got {value[:40]!r}"
        elif key in TEXTS:
            TEXTS[key](value)
        elif key.startswith("cmp_") and key not in COMPARE_KEYS:
            return (
                f"{key[:40]} is not a setting of the Compare page (its numbers are {state.CMP_BUDGET}, merges "
                f"from 1 to {CMP_MAX_MERGES:,}, and {state.CMP_COUNT}, runs from 2 to {CMP_MAX_RUNS})"
            )
    except (BPEError, TypeError) as exc:
        return str(exc)
    except ValueError:
        return f"{key} must be a number, got {value[:40]!r}"
    return None


def check_link() -> list[str]:
    """Take every unusable value out of the URL before a widget reads it; return what was ignored and why.

    Call before drawing any widget bound to the query parameters. Widgets are
    seeded from the URL the run started with, so when a value is taken out the
    script is run again at once (``st.rerun``) from the corrected URL. The
    messages wait in the session (``state.LINK_PROBLEMS``) for that run to show them.
    """
    found = []
    for key in list(st.query_params):
        values = st.query_params.get_all(key)
        reasons = [r for v in values if (r := problem(key, v))]
        if not reasons:
            continue
        try:
            del st.query_params[key]
        except StreamlitAPIException:  # bound to a widget this run already drew: the widget holds a good value
            continue
        found.append(f"{reasons[0]}. The link's value was ignored; the default is used instead.")
    if found:
        st.session_state[state.LINK_PROBLEMS] = found
        st.rerun()
    return found


def page_path(script: str) -> str:
    """The URL path Streamlit gives a page script: ``""`` for the main one (``app.py``), else its file name
    without ``.py`` (``pages/encode.py`` -> ``encode``)."""
    return "" if "/" not in script else PurePosixPath(script).stem


def unknown_path(url: str | None, base: str, known: Sequence[str]) -> str | None:
    """The path of ``url`` when it names no page (``token_trees`` for ``http://host/token_trees``), else ``None``.

    Args:
        url: the page's URL as ``st.context.url`` gives it (query left out; ``None`` outside a browser).
        base: the server's ``server.baseUrlPath`` (the app's own prefix, not a page).
        known: every page's path (:func:`page_path`).
    """
    if not url:
        return None
    path = unquote(urlsplit(url).path).strip("/")
    base = base.strip("/")
    if base and (path == base or path.startswith(base + "/")):
        path = path[len(base) :].strip("/")
    return path if path and path not in known else None


def _squash(name: str) -> str:
    return re.sub(r"[^0-9a-z]", "", name.lower())


def unknown_page_notice(pages: Sequence[tuple[str, str]]) -> None:
    """Say so in the main area when the URL names no page (Streamlit then runs the main page, Train, and its
    own dialog names no page): the path asked for, the page closest to it, and every page with its path.

    Args:
        pages: ``(title, script)`` of every page, the main page first (``("Train", "app.py")``).
    """
    paths = {title: page_path(script) for title, script in pages}
    path = unknown_path(st.context.url, st.get_option("server.baseUrlPath") or "", list(paths.values()))
    if path is None:
        return
    names = {_squash(name): title for title, p in paths.items() for name in (title, p) if name}
    guess = difflib.get_close_matches(_squash(path), names, n=1, cutoff=0.6)
    listing = ", ".join(f"{title} (/{p})" for title, p in paths.items())
    shown = path if len(path) <= 60 else path[:60] + "…"
    st.warning(
        f"There is no page at /{plain(shown)}, so the {pages[0][0]} page opened."
        + (f" Did you mean {names[guess[0]]} (/{paths[names[guess[0]]]})?" if guess else "")
        + f" The pages are: {listing}.",
        icon=":material/explore_off:",
    )

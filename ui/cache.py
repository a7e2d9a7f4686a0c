"""Cached builders: the expensive calls pages make, each behind ``st.cache_data`` or ``st.cache_resource``.

Training results are shared, not copied: every session on the same corpus and settings (a class
opening one link) reads the same :class:`bpe_core.TrainResult` object, which nothing changes after
training (see :func:`trained`)."""

from __future__ import annotations

import dataclasses
import hashlib
import threading
import time
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import TypeVar

import pandas as pd
import streamlit as st

import bpe_core
from bpe_core.encoding.explain import order_differences, round_trip
from bpe_core.encoding.pipeline import AllowedSpecial
from bpe_core.formats import Download, Loaded, Proof
from ui import state
from ui.corpus import CorpusChoice, read_sample
from ui.kept_texts import KeptTexts
from ui.settings import TRAIN_MEMORY_BUDGET, TrainSettings
from viz.encode_views import (
    encode_stats,
    multi_rule_tokens,
    order_differences_frame,
    temporary_note,
    token_views,
    with_pieces,
)
from viz.tokens import TokenView, display_of


@st.cache_data(max_entries=16, show_spinner=False)
def sample_text(label: str) -> str:
    """A sample corpus's text by label (read once per process)."""
    return read_sample(label)


@st.cache_resource(show_spinner=False)
def kept_texts() -> KeptTexts:
    """The server's one store of pasted texts too long for a link (:mod:`ui.kept_texts`), shared by every
    session; clearing Streamlit's resource cache empties it, as a restart does."""
    return KeptTexts()


def _corpus_key(corpus: CorpusChoice) -> str:
    """What names a corpus in cache keys: its source and whole SHA-256 (not its megabytes)."""
    return f"{corpus.source}:{corpus.sha256}"


@st.cache_resource(max_entries=2, show_spinner=False, hash_funcs={CorpusChoice: _corpus_key})
def streamed_counts(corpus: CorpusChoice, pretokenizer: str, special_tokens: tuple[str, ...]) -> dict[str, int]:
    """An uploaded text file's pre-token counts, decoded and counted in one streaming pass with a progress bar.

    ``st.cache_resource``: every run with the same pre-tokenizer (another budget, tie rule or unit,
    the Compare page's runs) shares these counts instead of reading the file again or copying them.

    Raises:
        bpe_core.BPEError: a byte that is not UTF-8 (offset and line named), or no words.
    """
    mb = corpus.nbytes / 1e6
    bar = st.progress(0.0, text=f"Reading and counting {corpus.name} ({mb:,.1f} MB)…")

    def progress(done: int, total: int) -> None:
        bar.progress(done / total, text=f"Reading and counting {corpus.name}: {done / 1e6:,.1f} of {mb:,.1f} MB")

    try:
        return bpe_core.count_utf8(corpus.data, pretokenizer, special_tokens, source=corpus.name, progress=progress)
    finally:
        bar.empty()


def training_corpus(corpus: str | CorpusChoice, settings: TrainSettings) -> str | Mapping[str, int]:
    """What :func:`bpe_core.train` gets for a corpus: its text, its word counts, or an upload's streamed counts.

    Raises:
        bpe_core.BPEError: as :func:`streamed_counts`.
    """
    if isinstance(corpus, str):
        return corpus
    if corpus.counts is not None:
        return corpus.counts
    if corpus.source == "upload":
        return streamed_counts(corpus, settings.pretokenizer, tuple(settings.special_tokens))
    return corpus.text


PROGRESS_EVERY = 0.1
"""Seconds between two moves of the training's progress bar."""
TRAINED_ENTRIES = 16
"""At most this many training results are kept (the least recently used goes first). Each one's growth of
the server's memory is bounded by :data:`~ui.settings.TRAIN_MEMORY_BUDGET`, so the cache is bounded too;
the Lessons page alone keeps about ten small ones."""
TRAINED_TTL = 2 * 3600
"""Seconds a training result is kept after it was computed: an idle server lets go of its memory."""


@st.cache_resource(
    max_entries=TRAINED_ENTRIES, ttl=TRAINED_TTL, show_spinner=False, hash_funcs={CorpusChoice: _corpus_key}
)
def trained(corpus: str | CorpusChoice, settings: TrainSettings) -> bpe_core.TrainResult:
    """Train on ``corpus`` (a text, or the sidebar's choice) with ``settings``, showing a progress bar while it runs.

    ``st.cache_resource``: every session on the same corpus and settings gets the same result
    object, trained once (concurrent first calls wait for that one training), instead of a copy
    unpickled per session (a class of 30 on one link held 30 copies and spent about a second of
    server time on each). This is safe because the result is read-only after training: it is a
    frozen dataclass, and what it computes on demand (the steps' views, the tokenizer's per-word
    cache) is derived from it, the same whichever session asks first; no page changes it
    (``tests/test_class_server.py`` checks that using it leaves it as it was).

    Training stops early, saying so in ``stop_reason``, once it has grown the
    server's memory by :data:`~ui.settings.TRAIN_MEMORY_BUDGET`. For an uploaded
    text file, ``text_chars`` and ``text_bytes`` are the file's (:attr:`CorpusChoice.chars`,
    ``nbytes``), not those of the word counts it was trained from.

    The bar is created inside the cached function so that a cache hit replays
    nothing visible (it is emptied before returning, and when training fails, so
    the error is not shown under a bar that looks still at work).

    Raises:
        bpe_core.BPEError, TypeError: bad corpus or settings (not cached).
    """
    source = training_corpus(corpus, settings)
    bar = st.progress(0.0, text="Counting pairs…")
    shown = [0.0]  # when the bar last moved

    def progress(done: int, total: int) -> None:
        # the engine reports up to 200 times; a message each is server time a short training notices
        if time.monotonic() - shown[0] >= PROGRESS_EVERY:
            shown[0] = time.monotonic()
            bar.progress(done / total, text=f"Learning merge {done:,} of {total:,}")

    try:
        result = bpe_core.train(source, **settings.kwargs(), progress=progress, max_memory=TRAIN_MEMORY_BUDGET)
    finally:
        bar.empty()
    if isinstance(corpus, CorpusChoice) and corpus.source == "upload":
        # trained on the upload's streamed counts, which leave whitespace out: give the file's own length
        # (what the sidebar and Compare show), so characters and chars per token match the same text as a sample
        result = dataclasses.replace(result, text_chars=corpus.chars, text_bytes=corpus.nbytes)
    return result


def session_trained(corpus: CorpusChoice, settings: TrainSettings) -> bpe_core.TrainResult:
    """:func:`trained`, remembered in the session for the corpus and settings it was last called with.

    The shared result is looked up once per training, not hashed again on every rerun (stepping,
    encoding). A session keeps the result it shows even after the cache lets it go.

    Raises:
        bpe_core.BPEError, TypeError: as :func:`trained`.
    """
    return remembered(state.RESULT_MEMO, (_corpus_key(corpus), settings), lambda: trained(corpus, settings))


T = TypeVar("T")


def remembered(slot: str, key: Hashable, build: Callable[[], T]) -> T:
    """``build()``, remembered in this session under ``slot`` (a key of :mod:`ui.state`) for ``key``.

    Only the last key is kept: a rerun that asks again for the same ``key``
    gets the same object, without hashing the inputs of a cached builder or
    unpickling its copy; another key builds anew and takes the slot.

    Args:
        slot: the session-state key the ``(key, value)`` pair is kept under.
        key: what the value depends on (compared with ``==``).
        build: makes the value (a call of a cached builder).

    Returns:
        The value for ``key``.
    """
    memo = st.session_state.get(slot)
    if memo is not None and memo[0] == key:
        return memo[1]
    value = build()
    st.session_state[slot] = (key, value)
    return value


READY = {"GPT-2": "gpt2", "cl100k_base": "cl100k_base", "o200k_base": "o200k_base"}
"""The real tokenizers shipped in bpe_core/formats/data/, by the label the Encode page shows."""

AT_START = ("GPT-2", "cl100k_base")
"""Parsed in the background once the server is first idle (about a second of CPU, 100 MB). o200k_base (2.4 s,
a further 120 MB) waits until a page that offers it opens (:func:`start_preload` with its label), so a server
whose users never open such a page does not hold it."""
IDLE_WINDOW = 0.5
"""Seconds over which :func:`when_idle` measures how busy the server is."""
IDLE_SHARE = 0.3
"""The server counts as idle while it uses less than this share of one core."""
IDLE_LIMIT = 30.0
"""Seconds after which the preload starts even on a server that has not been idle (a class arriving)."""


def when_idle(
    then: Callable[[], object],
    *,
    cpu: Callable[[], float] = time.process_time,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> None:
    """Call ``then()`` once this process has used under :data:`IDLE_SHARE` of a core for :data:`IDLE_WINDOW`
    seconds, or after :data:`IDLE_LIMIT` seconds at the latest.

    The bundled tables are parsed in pure Python: parsed while a page is being drawn, they take half of
    Python's one running thread from it (the GIL), and the first visitor after a restart waited a second or
    more for tables the Train page does not use. Waiting for a quiet moment keeps that second off every page.

    Args:
        then: what to run.
        cpu, sleep, clock: the process's CPU seconds (all threads), a sleep and a monotonic clock in seconds
            (tests pass their own).
    """
    deadline = clock() + IDLE_LIMIT
    while clock() < deadline:
        used = cpu()
        sleep(IDLE_WINDOW)
        if cpu() - used < IDLE_SHARE * IDLE_WINDOW:
            break
    then()


@st.cache_resource(show_spinner=False)
def start_preload(labels: tuple[str, ...] = AT_START) -> None:
    """Parse shipped tables in a background thread, once per process and set of labels, so a page that
    needs one later finds it ready.

    The thread waits until the server is idle (:func:`when_idle`), so no page waits for the preload: a
    page that asks for a table before then parses it at once, under a spinner (:func:`ready_tokenizer`),
    and the preload finds it done.
    """
    from bpe_core.formats import preload

    names = tuple(READY[label] for label in labels)
    waiter = threading.Thread(target=when_idle, args=(lambda: preload(names),), name="bpe-preload", daemon=True)
    waiter.start()


@st.cache_resource(show_spinner="Loading the merge table…")
def ready_tokenizer(label: str) -> bpe_core.Tokenizer:
    """A shipped real tokenizer (GPT-2, cl100k_base, o200k_base), parsed once per process.

    ``st.cache_resource`` (not ``cache_data``): the parsed tables are large and
    read-only, so every session shares one copy instead of unpickling it.
    """
    from bpe_core.formats import bundled

    return bundled(READY[label])


@st.cache_data(max_entries=8, show_spinner="Reading the tokenizer files…")
def uploaded_tokenizer(files: dict[str, bytes]) -> Loaded:
    """Load uploaded tokenizer files (any supported format, or a zip of them).

    Raises:
        bpe_core.BPEError: the files are malformed or not a known format (the message says which and why).
    """
    from bpe_core.formats import load_files

    return load_files(files)


def files_digest(files: dict[str, bytes]) -> str:
    """A SHA-256 over uploaded files' names and bytes: names an uploaded tokenizer in cache keys."""
    h = hashlib.sha256()
    for name in sorted(files):
        h.update(name.encode("utf-8", "surrogatepass") + b"\0" + len(files[name]).to_bytes(8, "big") + files[name])
    return h.hexdigest()


def with_fallback(tokenizer: bpe_core.Tokenizer, fallback: str) -> bpe_core.Tokenizer:
    """A char-unit tokenizer with ``fallback`` (see ``bpe_core.FALLBACKS``); byte-unit
    tokenizers never fall back and are returned as they are.

    Tokenizers never change while encoding (``keep`` gives unseen characters
    temporary ids per text), so the result is shared, not copied.

    Raises:
        bpe_core.BPEError: an unknown fallback.
    """
    return tokenizer.with_fallback(fallback) if tokenizer.model.unit == "char" else tokenizer


@dataclass(frozen=True)
class Encoding:
    """Everything the Encode page draws from one encoding, computed once per input.

    Attributes:
        trace: the full trace (every pre-token, rule, blocked rule and fallback).
        views: the first ``limit`` tokens as token boxes.
        stats: characters, bytes, tokens, chars per token, bytes per token.
        round_trip: whether decode(encode(text)) gives the text back.
        differences: the pre-tokens that rank and sequential order cut differently (a table).
        differing: the same pre-tokens' texts, to look a pre-token up.
        temporary: what to say about ids the ``keep`` fallback handed out ("" when none).
    """

    trace: bpe_core.EncodeTrace
    views: list[TokenView]
    stats: dict[str, float]
    round_trip: bpe_core.RoundTrip
    differences: pd.DataFrame
    differing: frozenset[str]
    temporary: str = ""


@st.cache_data(max_entries=8, show_spinner="Encoding…")
def encoded(
    _tokenizer: bpe_core.Tokenizer,
    source: Hashable,
    text: str,
    order: str,
    allow_special: bool,
    fallback: str,
    limit: int,
) -> Encoding:
    """Encode ``text`` with a copy of ``_tokenizer`` using ``fallback``, with all the page's views.

    The text is pre-tokenized once: the round trip and the order differences read the trace
    (``trace=`` of :func:`bpe_core.encoding.explain.round_trip` and
    :func:`~bpe_core.encoding.explain.order_differences`).

    ``_tokenizer`` is not hashed (the leading underscore tells ``st.cache_data``
    so): ``source`` names it instead, e.g. ``("trained", corpus SHA-256, settings)``,
    ``("ready", "GPT-2")`` or ``("uploaded", files digest)``.

    Raises:
        bpe_core.BPEError: the text cannot be encoded (not cached).
    """
    tok = with_fallback(_tokenizer, fallback)
    allowed = _allowed(allow_special)
    trace = tok.encode_with_trace(text, order=order, allowed_special=allowed)
    diffs = order_differences(tok, text, trace=trace)
    return Encoding(
        trace=trace,
        views=_boxes(tok, trace, limit),
        stats=encode_stats(text, trace.ids),
        round_trip=round_trip(tok, text, order=order, allowed_special=allowed, trace=trace),
        differences=order_differences_frame(diffs, display_of(tok)),
        differing=frozenset(d.text for d in diffs),
        temporary=temporary_note(tok, trace),
    )


def session_encoded(
    tokenizer: bpe_core.Tokenizer,
    source: Hashable,
    text: str,
    order: str,
    allow_special: bool,
    fallback: str,
    limit: int,
) -> Encoding:
    """:func:`encoded`, remembered in the session for the inputs it was last called with.

    ``st.cache_data`` hands out a fresh copy on every call: a cache hit still unpickles the whole trace
    (about 0.8 s for 100k characters), so a rerun that changes nothing the
    encoding depends on (a display toggle, another pre-token) reuses this
    session's copy.

    Raises:
        bpe_core.BPEError: as :func:`encoded`.
    """
    key = (source, text, order, allow_special, fallback, limit)
    return remembered(
        state.ENCODE_MEMO, key, lambda: encoded(tokenizer, source, text, order, allow_special, fallback, limit)
    )


def _allowed(allow_special: bool) -> AllowedSpecial:
    """The page's special-token switch as ``allowed_special``: all of them, or none (matched as text)."""
    return "all" if allow_special else ()


def _boxes(tok: bpe_core.Tokenizer, trace: bpe_core.EncodeTrace, limit: int) -> list[TokenView]:
    """The first ``limit`` tokens of ``trace`` as token boxes, each knowing its pre-token."""
    return with_pieces(token_views(tok, trace, limit=limit), trace)


@dataclass(frozen=True)
class DropoutSample:
    """One BPE-dropout segmentation of the Encode page's text.

    Attributes:
        seed: the seed it was drawn with.
        trace: its trace (each step lists the merges dropout skipped).
        views: its first ``limit`` tokens as token boxes (see :func:`encoded`).
    """

    seed: int
    trace: bpe_core.EncodeTrace
    views: list[TokenView]


@st.cache_data(max_entries=8, show_spinner="Sampling segmentations with BPE-dropout…")
def dropout_samples(
    _tokenizer: bpe_core.Tokenizer,
    source: Hashable,
    text: str,
    order: str,
    allow_special: bool,
    fallback: str,
    dropout: float,
    seed: int,
    count: int,
    limit: int,
) -> list[DropoutSample]:
    """``count`` segmentations of ``text`` with BPE-dropout ``dropout``, drawn with seeds ``seed``, ``seed + 1``, ...

    ``_tokenizer`` and ``source`` as for :func:`encoded`. The engine's
    per-pre-token cache is not used with dropout (each sample is drawn anew),
    this page cache only remembers the samples of the same inputs and seed.

    Raises:
        bpe_core.BPEError: the text cannot be encoded, or ``dropout`` is not in ``[0, 1]`` (not cached).
    """
    tok = with_fallback(_tokenizer, fallback)
    allowed = _allowed(allow_special)
    out = []
    for k in range(count):
        trace = tok.encode_with_trace(text, order=order, allowed_special=allowed, dropout=dropout, seed=seed + k)
        out.append(DropoutSample(seed + k, trace, _boxes(tok, trace, limit)))
    return out


@st.cache_data(max_entries=16, show_spinner=False)
def order_can_differ(_tokenizer: bpe_core.Tokenizer, source: Hashable) -> int:
    """How many tokens ``_tokenizer`` forms by more than one rule (0: both merge orders always agree).

    See :func:`viz.encode_views.multi_rule_tokens`; ``source`` names the tokenizer as for :func:`encoded`.
    """
    return multi_rule_tokens(_tokenizer.model.merges)


@st.cache_data(max_entries=64, show_spinner=False)
def piece_in_order(
    _tokenizer: bpe_core.Tokenizer, source: Hashable, fallback: str, text: str, order: str
) -> bpe_core.PieceTrace | None:
    """The trace of one pre-token ``text`` in ``order`` (its first piece), for the side-by-side view."""
    pieces = with_fallback(_tokenizer, fallback).encode_with_trace(text, order=order).pieces
    return pieces[0] if pieces else None


@dataclass(frozen=True)
class ExportRow:
    """One format on the download list: the file to offer, or why it cannot be written, and the proof."""

    format: str
    description: str
    download: Download | None
    reason: str | None
    proof: Proof | None


def _export_rows(source: bpe_core.TrainResult | bpe_core.Tokenizer, probe: str, **options: object) -> list[ExportRow]:
    from bpe_core.formats import FORMATS, ExportError, download, prove

    rows = []
    for fmt, description in FORMATS.items():
        try:
            file = download(source, fmt, **options)
        except ExportError as exc:
            rows.append(ExportRow(fmt, description, None, str(exc), None))
            continue
        rows.append(ExportRow(fmt, description, file, None, prove(source, fmt, probe, **options)))
    return rows


@st.cache_data(
    max_entries=8, show_spinner="Writing every format and reading it back…", hash_funcs={CorpusChoice: _corpus_key}
)
def trained_exports(corpus: CorpusChoice, settings: TrainSettings, probe: str) -> list[ExportRow]:
    """Every format for the tokenizer trained on ``corpus``, each proven on ``probe`` (same ids after reloading)."""
    result = trained(corpus, settings)
    return _export_rows(result, probe, name="bpe-explorer", corpus_hash=corpus.sha256, corpus_name=corpus.name)


@st.cache_data(max_entries=8, show_spinner="Writing every format and reading it back…")
def uploaded_exports(files: dict[str, bytes], probe: str) -> list[ExportRow]:
    """Every format for an uploaded tokenizer (conversion between formats), each proven on ``probe``."""
    return _export_rows(uploaded_tokenizer(files).tokenizer, probe, name="converted")


@st.cache_data(max_entries=32, show_spinner=False, hash_funcs={CorpusChoice: _corpus_key})
def held_out_counts(corpus: str | CorpusChoice, settings: TrainSettings, held_out: str, order: str) -> list[int]:
    """Token counts of ``held_out`` after 0..N merges of the run ``trained(corpus, settings)``."""
    from bpe_core.analysis.compression import token_counts_by_merges

    return token_counts_by_merges(trained(corpus, settings).tokenizer, held_out, order)


@dataclass(frozen=True)
class RunEncoding:
    """One tokenizer's encoding of the Compare page's test text: what the page draws of it.

    Attributes:
        ids: the token ids (a ``keep`` fallback's temporary ids included).
        views: the first ``limit`` tokens as token boxes (:func:`viz.encode_views.token_views`).
    """

    ids: tuple[int, ...]
    views: list[TokenView]


RUN_ENCODINGS = 32
"""At most this many Compare encodings are kept (eight runs of four test texts). Each holds one id per token
(at most a few per character of a text capped at :data:`ui.links.CMP_MAX_TEXT_CHARS`) and a few hundred token
boxes, well under a megabyte."""


@st.cache_data(max_entries=RUN_ENCODINGS, ttl=TRAINED_TTL, show_spinner=False)
def run_encoding(
    _tokenizer: bpe_core.Tokenizer,
    source: Hashable,
    text: str,
    order: str,
    limit: int,
    _what: str = "",
    _step: tuple[int, int] = (0, 1),
) -> RunEncoding:
    """Encode ``text`` with ``_tokenizer`` in ``order`` (with a trace, for the token boxes), showing a progress bar.

    ``_tokenizer`` is not hashed: ``source`` names it, e.g. ``("trained", corpus source, SHA-256, settings)`` or
    ``("ready", "GPT-2")``, so a rerun that leaves text, tokenizer and order as they were (another run added,
    another tab) encodes nothing again. ``_what`` (the run's name) and ``_step`` (``(index, count)`` of the runs
    being encoded) only label the bar; a cache hit shows nothing.

    Raises:
        bpe_core.BPEError: the text cannot be encoded (not cached).
    """
    index, count = _step
    bar = st.progress(index / count, text=f"Encoding the test text: run {index + 1} of {count} ({_what})…")
    try:
        trace = _tokenizer.encode_with_trace(text, order=order)
    finally:
        bar.empty()
    return RunEncoding(tuple(trace.ids), token_views(_tokenizer, trace, limit=limit))

"""Counting a large UTF-8 text in one streaming pass: decode, pre-tokenize and count, chunk by chunk.

:func:`count_utf8` gives exactly what :func:`bpe_core.text.corpus.word_counts` gives
for the decoded text (the same pre-tokens, counts and first-appearance order), so
``train(count_utf8(data, p, s), pretokenizer=p, special_tokens=s, ...)`` learns
the same merges as ``train(data.decode("utf-8"), pretokenizer=p, ...)``, without
holding the decoded text or its list of pre-tokens at once.

Where a chunk may be cut is the pre-tokenizer's own
(:attr:`bpe_core.registry.pretokenizers.PreTokenizerSpec.cut`, which says why the
pre-tokens on each side are the ones the whole text gives); this module looks
for the *last* such place in each chunk. A special token that holds whitespace
could span a cut, so with one the text is counted whole (decoded in chunks all
the same). ``trailing_space`` gives a word its space when the next word of the
same piece turns up (:class:`bpe_core.text.pretokenize.PretokenCounter`), and
``none`` (the whole text is one pre-token) has no cut.
"""

from __future__ import annotations

import codecs
import sys
from collections import Counter
from collections.abc import Callable, Iterable
from typing import BinaryIO

import regex

from ..errors import BPEError, EmptyCorpusError
from ..memory import POSITION_BYTES, MemoryBudget
from ..registry.pretokenizers import PreTokenizerSpec, pretokenizer_spec
from .corpus import CountsOnBudget
from .pretokenize import PretokenCounter, split_special

CHUNK_BYTES = 1 << 20
"""Bytes decoded per step (1 MiB)."""

StreamProgress = Callable[[int, int], None]
"""``progress(bytes_done, bytes_total)``, called after each chunk."""


class TextDecodeError(BPEError):
    """The bytes are not UTF-8 text; the message gives the byte offset and the line."""


class _Counter:
    """Pre-token counts of text fed in cut pieces (see the module docstring for where it may be cut)."""

    def __init__(self, spec: PreTokenizerSpec, special_tokens: tuple[str, ...]) -> None:
        self.specials = special_tokens
        self.counts: Counter[str] = Counter()
        self.pieces = PretokenCounter(spec, self.counts)

    def feed(self, text: str) -> None:
        """Count ``text``, which ends at a cut (or the end of the corpus: then call :meth:`close`)."""
        for piece, special in split_special(text, self.specials):
            if special:
                self.pieces.end_piece()
            else:
                self.pieces.feed(piece)

    def close(self) -> dict[str, int]:
        self.pieces.end_piece()
        return dict(self.counts)


def _chunks(data: bytes | bytearray | memoryview | BinaryIO, chunk_bytes: int) -> Iterable[bytes]:
    if isinstance(data, (bytes, bytearray, memoryview)):
        view = memoryview(data)
        for start in range(0, len(view), chunk_bytes):
            yield bytes(view[start : start + chunk_bytes])
        return
    while block := data.read(chunk_bytes):
        yield block


def _decode_error(exc: UnicodeDecodeError, block: bytes, offset: int, lines_before: int, source: str) -> BPEError:
    """The error for invalid UTF-8 at ``exc.start`` of ``block`` (which starts at byte ``offset`` of the file)."""
    start = max(exc.start, 0)
    line = lines_before + block.count(b"\n", 0, start) + 1
    bad = block[start : start + 1]
    shown = f"0x{bad[0]:02X}" if bad else "a cut-off character"
    return TextDecodeError(
        f"{source} is not UTF-8 text: byte {shown} at offset {offset + start} (line {line}) cannot be decoded; "
        "save it as UTF-8 plain text"
    )


def count_utf8(
    data: bytes | bytearray | memoryview | BinaryIO,
    pretokenizer: str,
    special_tokens: Iterable[str] = (),
    *,
    source: str = "the text",
    total: int | None = None,
    progress: StreamProgress | None = None,
    chunk_bytes: int = CHUNK_BYTES,
    budget: MemoryBudget | None = None,
) -> dict[str, int]:
    """Decode UTF-8 bytes and count their pre-tokens in one pass, one chunk at a time.

    Args:
        data: the file's bytes, or a binary file object read in chunks. A leading
            UTF-8 byte-order mark is dropped; line ends are kept as they are.
        pretokenizer: one of :data:`bpe_core.text.pretokenize.PRETOKENIZERS`.
        special_tokens: literal strings cut out before pre-tokenizing (never counted).
        source: the file's name, for messages.
        total: the number of bytes, for ``progress`` (default: ``len(data)`` for bytes).
        progress: called as ``progress(bytes_done, total)`` after each chunk.
        chunk_bytes: bytes decoded per step.
        budget: a memory budget, checked after each chunk: the text held since
            the last cut (a single pre-token that long must fit the training
            layout, :data:`~bpe_core.memory.POSITION_BYTES` a character) and the
            distinct pre-tokens, which stay on it.

    Returns:
        ``{pre-token: count}`` in order of first appearance: equal, item for item and
        in order, to :func:`bpe_core.text.corpus.word_counts` of the decoded text.

    Raises:
        TextDecodeError: the bytes are not UTF-8 (the message gives the byte offset and line).
        EmptyCorpusError: no pre-token remains.
        OptionError: an unknown pre-tokenizer.
        MemoryBudgetError: the held text or the counts would pass ``budget``.
    """
    spec = pretokenizer_spec(pretokenizer)
    specials = tuple(dict.fromkeys(special_tokens))
    if total is None and isinstance(data, (bytes, bytearray, memoryview)):
        total = len(data)
    decoder = codecs.getincrementaldecoder("utf-8")()
    counter = _Counter(spec, specials)
    held = _Held(spec, specials, budget)
    tally = None if budget is None else CountsOnBudget(counter.counts, budget)
    done = lines = 0
    for block in _chunks(data, chunk_bytes):
        if not done and block.startswith(codecs.BOM_UTF8):
            block, done = block[3:], 3
        pending = decoder.getstate()[0]  # the bytes of a character cut by the previous block
        try:
            text = decoder.decode(block)
        except UnicodeDecodeError as exc:
            raise _decode_error(exc, pending + block, done - len(pending), lines, source) from None
        done += len(block)
        lines += block.count(b"\n")
        if held.add(text):
            counter.feed(held.take())
            if tally is not None:
                tally.check()
        if progress is not None:
            progress(done, total if total is not None else done)
    pending = decoder.getstate()[0]
    if pending:
        exc = UnicodeDecodeError("utf-8", pending, 0, len(pending), "unexpected end of data")
        raise _decode_error(exc, pending, done - len(pending), lines, source)
    counter.feed(held.take(final=True))
    counts = counter.close()
    if not counts:
        raise EmptyCorpusError(
            f"{source} has no words to learn from: it is empty, or holds only whitespace or special tokens"
        )
    return counts


class _Held:
    """The decoded text since the last cut: where the next cut goes, and a budget check as it grows.

    Args:
        spec: the pre-tokenizer, which decides the cut (see the module docstring).
        specials: with one that holds whitespace there is no cut.
        budget: checked after each addition, or ``None``.
    """

    def __init__(self, spec: PreTokenizerSpec, specials: tuple[str, ...], budget: MemoryBudget | None) -> None:
        can_cut = spec.cut is not None and not any(regex.search(r"\s", s) for s in specials)
        self.cut = spec.cut if can_cut else None
        # text since a cut before a separator is one word; so is the whole text of a spec without pre-tokenizer
        self.one_word = (self.cut is not None and not self.cut.after) or (spec.whole_text and not specials)
        self.budget = budget
        self.parts: list[str] = []
        self.ready = ""  # text up to the last cut, for take()
        self.lead = 0  # whitespace characters before the held word (whitespace modes: the one the cut left)

    def add(self, text: str) -> bool:
        """Append a decoded chunk; True when a cut makes text ready for :meth:`take`.

        Raises:
            MemoryBudgetError: the held text does not fit the budget.
        """
        at = self.cut.last(text) if self.cut is not None else None
        if at is None:
            self.parts.append(text)
            if self.budget is not None:
                self._check()
            return False
        self.parts.append(text[:at])
        self.ready = "".join(self.parts)
        self.parts = [text[at:]]
        self.lead = 0 if self.cut.after else 1  # a cut before a separator leaves it at the held text's start
        return True

    def take(self, final: bool = False) -> str:
        """The text up to the last cut (all of it when ``final``), which leaves the holder."""
        if final:
            self.ready, self.parts = "".join(self.parts), []
        text, self.ready = self.ready, ""
        return text

    def _check(self) -> None:
        """One word held (no whitespace since the cut) must fit the training layout; other text, twice its size."""
        assert self.budget is not None
        chars = sum(map(len, self.parts)) - self.lead
        if self.one_word:
            self.budget.need(
                chars * POSITION_BYTES,
                f"training on a single pre-token of at least {chars:,} characters (no whitespace ends it)",
            )
        else:
            nbytes = 2 * sum(map(sys.getsizeof, self.parts))
            self.budget.need(nbytes, f"holding {chars:,} characters of text with no place to cut it for counting")

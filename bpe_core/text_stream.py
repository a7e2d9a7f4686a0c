"""Counting a large UTF-8 text in one streaming pass: decode, pre-tokenize and count, chunk by chunk.

:func:`count_utf8` gives exactly what :func:`bpe_core.corpus.word_counts` gives
for the decoded text (the same pre-tokens, counts and first-appearance order), so
``train(count_utf8(data, p, s), pretokenizer=p, special_tokens=s, ...)`` learns
the same merges as ``train(data.decode("utf-8"), pretokenizer=p, ...)``, without
holding the decoded text or its list of pre-tokens at once.

Where a chunk may be cut: between a letter (``\\p{L}``) and an ASCII whitespace
character. No pre-token of any pre-tokenizer here holds a letter followed by
whitespace (GPT-2's and cl100k's patterns put a space at the *start* of a word;
the whitespace modes split there), and no construct of those patterns tells the
end of the text from a whitespace character there (``(?!\\S)`` holds for both;
``\\s++$`` needs whitespace before the end), so the pre-tokens on each side are
the ones the whole text gives. A special token that holds whitespace could span
such a cut, so with one the text is counted whole (decoded in chunks all the
same). ``trailing_space`` gives a word its space when the next word of the same
piece turns up, and ``none`` (the whole text is one pre-token) has no cut.
"""

from __future__ import annotations

import codecs
from collections import Counter
from collections.abc import Callable, Iterable
from typing import BinaryIO

import regex

from .errors import BPEError, EmptyCorpusError
from .pretokenize import check_pretokenizer, pretokenize, split_special

CHUNK_BYTES = 1 << 20
"""Bytes decoded per step (1 MiB)."""

_CUT = regex.compile(r"(?r)\p{L}(?=[\t\n\v\f\r ])")
"""The last place in a chunk where the text may be cut: just after a letter that whitespace follows."""

StreamProgress = Callable[[int, int], None]
"""``progress(bytes_done, bytes_total)``, called after each chunk."""


class TextDecodeError(BPEError):
    """The bytes are not UTF-8 text; the message gives the byte offset and the line."""


class _Counter:
    """Pre-token counts of text fed in cut pieces (see the module docstring for where it may be cut)."""

    def __init__(self, pretokenizer: str, special_tokens: tuple[str, ...]) -> None:
        self.pretokenizer = pretokenizer
        self.specials = special_tokens
        self.counts: Counter[str] = Counter()
        self.last_word: str | None = None  # trailing_space: the last word of the open piece, counted with its space

    def feed(self, text: str) -> None:
        """Count ``text``, which ends at a cut (or the end of the corpus: then call :meth:`close`)."""
        pieces = split_special(text, self.specials)
        for piece, special in pieces:
            if special:
                self._end_piece()
            elif self.pretokenizer == "trailing_space":
                words = piece.split()
                if words:
                    self.counts.update(w + " " for w in words)
                    self.last_word = words[-1]
            else:
                self.counts.update(pretokenize(piece, self.pretokenizer))

    def close(self) -> dict[str, int]:
        self._end_piece()
        return dict(self.counts)

    def _end_piece(self) -> None:
        """trailing_space: the last word of a piece keeps no space (as :func:`~bpe_core.pretokenize.pretokenize`)."""
        word, self.last_word = self.last_word, None
        if word is None:
            return
        key = word + " "
        self.counts[key] -= 1
        if not self.counts[key]:
            del self.counts[key]  # a later occurrence then enters at its own place in first-appearance order
        self.counts[word] += 1


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
) -> dict[str, int]:
    """Decode UTF-8 bytes and count their pre-tokens in one pass, one chunk at a time.

    Args:
        data: the file's bytes, or a binary file object read in chunks. A leading
            UTF-8 byte-order mark is dropped; line ends are kept as they are.
        pretokenizer: one of :data:`bpe_core.pretokenize.PRETOKENIZERS`.
        special_tokens: literal strings cut out before pre-tokenizing (never counted).
        source: the file's name, for messages.
        total: the number of bytes, for ``progress`` (default: ``len(data)`` for bytes).
        progress: called as ``progress(bytes_done, total)`` after each chunk.
        chunk_bytes: bytes decoded per step.

    Returns:
        ``{pre-token: count}`` in order of first appearance: equal, item for item and
        in order, to :func:`bpe_core.corpus.word_counts` of the decoded text.

    Raises:
        TextDecodeError: the bytes are not UTF-8 (the message gives the byte offset and line).
        EmptyCorpusError: no pre-token remains.
        OptionError: an unknown pre-tokenizer.
    """
    check_pretokenizer(pretokenizer)
    specials = tuple(dict.fromkeys(special_tokens))
    if total is None and isinstance(data, (bytes, bytearray, memoryview)):
        total = len(data)
    can_cut = pretokenizer != "none" and not any(regex.search(r"\s", s) for s in specials)
    decoder = codecs.getincrementaldecoder("utf-8")()
    counter = _Counter(pretokenizer, specials)
    held: list[str] = []  # decoded text since the last cut
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
        cut = _CUT.search(text) if can_cut else None
        if cut is None:
            held.append(text)
        else:
            held.append(text[: cut.end()])
            counter.feed("".join(held))
            held = [text[cut.end() :]]
        if progress is not None:
            progress(done, total if total is not None else done)
    pending = decoder.getstate()[0]
    if pending:
        exc = UnicodeDecodeError("utf-8", pending, 0, len(pending), "unexpected end of data")
        raise _decode_error(exc, pending, done - len(pending), lines, source)
    counter.feed("".join(held))
    counts = counter.close()
    if not counts:
        raise EmptyCorpusError(
            f"{source} has no words to learn from: it is empty, or holds only whitespace or special tokens"
        )
    return counts

"""Word-count files: a corpus counted elsewhere (DuckDB, Spark, ``sort | uniq -c``), one word and its count a line.

Three layouts are read, one per file:

``word<TAB>count``
    Everything before the line's last TAB is the word, kept exactly (leading
    spaces too, so GPT-2-style pre-tokens such as `` the`` survive). What
    DuckDB's or Spark's ``COPY ... (DELIMITER '\\t')`` writes.
``word count``
    Two fields separated by spaces.
``count word``
    What ``uniq -c`` writes: the count right-aligned, one space, the word.

A line with a TAB is read as ``word<TAB>count``. A line of two space-separated
fields is ``word count`` or ``count word``: the first line where exactly one of
the fields is an integer decides for the whole file (a line where both are, such
as ``1984 3``, is read that way; before any line decides, a line that starts
with spaces is read as ``uniq -c`` writes it, any other as ``word count``). The
first line may be a header (two fields, neither an integer: ``word<TAB>count``,
``token freq``). Blank lines are skipped; CRLF line ends and a UTF-8 byte-order
mark are accepted.

subword-nmt's ``learn_bpe.py --dict-input`` reads the ``word count`` layout;
Hugging Face trainers accept the same counts through ``train_from_iterator``.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterable, Iterator
from typing import BinaryIO

from ..errors import BPEError, quote
from ..memory import POSITION_BYTES, MemoryBudget, megabytes
from .corpus import CountsOnBudget

MAX_COUNT = 2**63 - 1
"""The largest count accepted (a signed 64-bit integer, what DuckDB's ``count(*)`` returns)."""

_INTEGER = re.compile(r"[+-]?[0-9]+")
_NUMBER = re.compile(r"[+-]?(?:[0-9][0-9_,]*(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


class WordCountError(BPEError):
    """A word-count file cannot be read: the message names the line and says what is wrong with it."""


def _shown(text: str, limit: int = 60) -> str:
    return quote(text, limit)


def _count(field: str, where: str, line: str) -> int:
    """The count in ``field`` (an integer from 1 to :data:`MAX_COUNT`), or the error saying why not."""
    if not field:
        raise WordCountError(f"{where}: the count is missing (in {_shown(line)})")
    if not _INTEGER.fullmatch(field):
        what = "a number but not an integer" if _NUMBER.fullmatch(field) else "not a number"
        raise WordCountError(f"{where}: the count {_shown(field, 30)} is {what} (in {_shown(line)})")
    if len(field.lstrip("+-").lstrip("0")) > 19 or int(field) > MAX_COUNT:
        raise WordCountError(f"{where}: the count {_shown(field, 30)} is larger than {MAX_COUNT:,}")
    value = int(field)
    if value < 1:
        raise WordCountError(f"{where}: the count {field} is not positive; every count must be at least 1")
    return value


def _decode(data: bytes | str, source: str) -> str:
    if isinstance(data, str):
        return data[1:] if data.startswith("\ufeff") else data
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"{source}: expected bytes or str, got {type(data).__name__}")
    data = bytes(data)
    if data.startswith(codecs.BOM_UTF8):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise WordCountError(
            f"{source}: line {line}: byte 0x{data[exc.start]:02X} (offset {exc.start}) is not UTF-8; "
            "save the file as UTF-8"
        ) from None


class _Reader:
    """Reads rows one line at a time, deciding the space layout from the first line that tells."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.order: str | None = None  # "word count" or "count word", once a line decides it
        self.decided_on = 0

    def row(self, n: int, line: str) -> tuple[str, int]:
        word, tab, field = line.rpartition("\t")
        if word and field.isdigit() and field.isascii() and field[0] != "0" and len(field) < 19:
            return word, int(field)  # the common case, quickly: a word, a TAB, a positive count
        where = f"{self.source}: line {n}"
        if tab:
            if not word:
                raise WordCountError(f"{where}: the word before the TAB is empty (in {_shown(line)})")
            return word, _count(field.strip(), where, line)
        return self._spaced(n, line, where)

    def _spaced(self, n: int, line: str, where: str) -> tuple[str, int]:
        fields = line.split()
        if len(fields) != 2:
            raise WordCountError(
                f"{where}: {len(fields)} field{'s' if len(fields) != 1 else ''} ({_shown(line)}); expected "
                "'word<TAB>count', 'word count' or 'count word' (as uniq -c writes)"
            )
        first, second = (bool(_INTEGER.fullmatch(f)) for f in fields)
        if first != second:
            order = "count word" if first else "word count"
            if self.order is None:
                self.order, self.decided_on = order, n
            elif order != self.order:
                raise WordCountError(
                    f"{where}: {_shown(line)} reads as '{order}', but line {self.decided_on} set "
                    f"'{self.order}' for this file; use one layout per file"
                )
        order = self.order or ("count word" if line[:1].isspace() else "word count")
        word, field = fields if order == "word count" else fields[::-1]
        return word, _count(field, where, line)


def parse_word_counts(data: bytes | str, source: str = "word counts") -> dict[str, int]:
    """Read a word-count file (see the module docstring for the layouts).

    Args:
        data: the file's contents (UTF-8 bytes, or text).
        source: the file's name, for messages.

    Returns:
        ``{word: count}`` in file order, ready for :func:`bpe_core.train` (each
        word is taken as one pre-token, as a word-frequency mapping always is).

    Raises:
        WordCountError: bytes that are not UTF-8, a malformed row (not two fields),
            an empty word, a count that is not an integer, not positive, or above
            :data:`MAX_COUNT`, a word given twice (naming both lines), mixed layouts,
            or no rows at all. Each message names the line.
        TypeError: ``data`` is neither bytes nor str.
    """
    text = _decode(data, source)
    return _collect(text.split("\n"), source, lambda: text.split("\n"))


def read_word_counts(
    file: BinaryIO, source: str = "word counts", *, budget: MemoryBudget | None = None, chunk_bytes: int = 1 << 20
) -> dict[str, int]:
    """Read a word-count file from a binary file object, a chunk at a time (what :func:`parse_word_counts` reads).

    Args:
        file: an open binary file (standard input too); a seekable one is read
            again from the start only to name the first line of a repeated word.
        source: the file's name, for messages.
        budget: a memory budget: a line may hold at most as many characters as a
            word that fits the training layout (:data:`~bpe_core.memory.POSITION_BYTES`
            each), and the words read are put on it after each chunk.
        chunk_bytes: bytes read per step.

    Returns:
        ``{word: count}`` in file order, as :func:`parse_word_counts`.

    Raises:
        WordCountError: as :func:`parse_word_counts`, or a line longer than the budget allows.
        MemoryBudgetError: the words read pass the budget.
        OSError: the file cannot be read.
    """
    counts: dict[str, int] = {}
    tally = None if budget is None else CountsOnBudget(counts, budget)

    def again() -> Iterable[str]:
        if not file.seekable():
            return []
        file.seek(0)
        return _stream_lines(file, source, None, chunk_bytes, None)

    return _collect(_stream_lines(file, source, budget, chunk_bytes, tally), source, again, counts)


def _stream_lines(
    file: BinaryIO, source: str, budget: MemoryBudget | None, chunk_bytes: int, tally: CountsOnBudget | None
) -> Iterator[str]:
    """The file's lines (without ``\\n``), decoded a chunk at a time; the tally is checked after each chunk.

    Offsets in messages count from after a byte-order mark, as :func:`parse_word_counts` gives them.

    Raises:
        WordCountError: invalid UTF-8 (naming the line and offset), or a line longer than a word the
            budget could train on.
    """
    limit = None if budget is None else max(1, budget.budget // POSITION_BYTES)
    decoder = codecs.getincrementaldecoder("utf-8")()
    partial, done, lines, first = "", 0, 0, True
    while True:
        raw = file.read(chunk_bytes)
        block = raw[3:] if first and raw.startswith(codecs.BOM_UTF8) else raw
        pending = decoder.getstate()[0]  # the bytes of a character the previous block cut
        try:
            text = partial + decoder.decode(block, final=not raw)
        except UnicodeDecodeError as exc:
            raw, at = pending + block, max(exc.start, 0)
            line = lines + 1 + raw.count(b"\n", 0, at)
            raise _not_utf8(source, line, raw[at : at + 1], done - len(pending) + at) from None
        done += len(block)
        if first and text:
            text, first = text.removeprefix("\ufeff"), False  # a mark cut by a chunk smaller than itself
        *complete, partial = text.split("\n")
        lines += len(complete)
        if limit is not None and len(partial) > limit:
            assert budget is not None
            raise WordCountError(
                f"{source}: line {lines + 1} is longer than {limit:,} characters: training on a word that long "
                f"would need more than the memory budget ({budget.name}) of {megabytes(budget.budget)} MB; "
                "is it a word-count file?"
            )
        yield from complete
        if tally is not None:
            tally.check()
        if not raw:
            break
    yield partial


def _not_utf8(source: str, line: int, bad: bytes, offset: int) -> WordCountError:
    shown = f"0x{bad[0]:02X}" if bad else "a cut-off character"
    return WordCountError(f"{source}: line {line}: byte {shown} (offset {offset}) is not UTF-8; save the file as UTF-8")


def _collect(
    lines: Iterable[str], source: str, again: Callable[[], Iterable[str]], counts: dict[str, int] | None = None
) -> dict[str, int]:
    """``{word: count}`` from the file's lines; ``again()`` gives the lines anew, to name a repeated word's first line.

    Raises:
        WordCountError: as :func:`parse_word_counts`.
    """
    counts = {} if counts is None else counts
    size = len(counts)
    for n, word, count in _rows(lines, source):
        counts[word] = count
        if len(counts) == size:
            first = next((f"line {m}" for m, w, _ in _rows(again(), source) if w == word), "an earlier line")
            raise WordCountError(
                f"{source}: line {n}: the word {_shown(word, 40)} was already counted on {first}; "
                "each word must appear once (add the counts up first)"
            )
        size += 1
    if not counts:
        first_line = next((line.strip() for line in again() if line.strip()), "")
        header = f" besides the header line {_shown(first_line)}" if first_line else ""
        raise WordCountError(
            f"{source}: no rows{header}; expected one 'word<TAB>count', 'word count' or 'count word' (uniq -c) per line"
        )
    return counts


def _rows(lines: Iterable[str], source: str) -> Iterator[tuple[int, str, int]]:
    """``(line number, word, count)`` for each row, the header and blank lines left out."""
    reader = _Reader(source)
    first = True
    for n, line in enumerate(lines, start=1):
        line = line.removesuffix("\r")
        if not line.strip():
            continue
        if first:
            first = False
            if _is_header(line):
                continue
        word, count = reader.row(n, line)
        yield n, word, count


def _is_header(line: str) -> bool:
    """A first line of column names: two non-empty fields, neither a number."""
    fields = [f.strip() for f in (line.rsplit("\t", 1) if "\t" in line else line.split())]
    return len(fields) == 2 and all(fields) and not any(_NUMBER.fullmatch(f) for f in fields)

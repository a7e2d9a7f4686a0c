"""A worked example's notation: the word-boundary marker it prints, and the corpus layouts books use.

Books and posts mark word boundaries in several ways, each from a real tool or text:

* ``</w>`` at the end of a word: Sennrich et al. 2016, Figure 1 and subword-nmt;
* ``_`` at the end of a word: Jurafsky & Martin, *Speech and Language Processing*
  (3rd ed.), ch. 2, "Byte-Pair Encoding" (``5 l o w _``);
* ``▁`` at the start of a word: SentencePiece (Kudo & Richardson 2018), Hugging
  Face's ``Metaspace`` pre-tokenizer;
* ``Ġ`` at the start of a word: the space before it, as GPT-2 prints that byte
  (Radford et al. 2019, ``encoder.py`` ``bytes_to_unicode``);
* ``@@`` after every token but a word's last: subword-nmt ``apply_bpe.py``.

An end marker is a symbol of its own (``separate``: ``l o w _``) or glued to the
word's last character (``attached``: ``l o w_``), as the engine's
``end_of_word`` option says. :class:`Notation` translates a claim's symbols
into the engine's (which always writes ``</w>``) and the engine's tokens back,
and says which training settings the notation stands for.

:func:`read_word_counts` reads word counts in the layouts books print them:
``low 5``, ``5 low``, ``low: 5``, ``5 l o w _``, ``l o w _ 5``, ``('low', 5)``
and ``{'l o w </w>': 5}`` (the dict of Sennrich et al. 2016, Figure 1).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from ..errors import BPEError, OptionError
from ..text.corpus import MAX_WORD_FREQUENCY, Corpus
from ..text.symbols import MARKER, MARKER_LAYOUTS

MARKERS: Mapping[str, str] = {
    "</w>": "end",
    "_": "end",
    "▁": "start",
    "Ġ": "start",
    "@@": "continuation",
}
"""Every marker a worked example may use, with where it stands: ``end`` of a word, ``start``, or
``continuation`` (after each token that the next one continues)."""


class ClaimError(BPEError):
    """A claimed merge, count, encoding step or word-count line cannot be read (the message names it)."""


@dataclass(frozen=True)
class Notation:
    """How an example writes word boundaries: a marker of :data:`MARKERS`, and for an end marker its placement.

    Attributes:
        marker: ``</w>``, ``_``, ``▁``, ``Ġ`` or ``@@``.
        end_of_word: ``separate`` (a symbol of its own) or ``attached`` (glued to
            the last character); ``@@`` is always ``attached`` (the word's last
            token is the one without ``@@``), a start marker always ``separate``.

    Raises:
        OptionError: an unknown marker, or a placement the marker cannot take.
    """

    marker: str
    end_of_word: str = "separate"

    def __post_init__(self) -> None:
        if self.marker not in MARKERS:
            raise OptionError(f"unknown marker {self.marker[:20]!r}; expected one of {', '.join(MARKERS)}")
        allowed = {"end": ("separate", "attached"), "start": ("separate",), "continuation": ("attached",)}
        if self.end_of_word not in allowed[self.place]:
            raise OptionError(
                f"the marker {self.marker} stands at the {self.place} of a word: end_of_word must be "
                f"{' or '.join(allowed[self.place])}, not {self.end_of_word!r}"
            )

    @property
    def glued(self) -> bool:
        """True when the marker is glued to a character (``attached``: ``w_``, ``lo@@``)."""
        return MARKER_LAYOUTS[self.end_of_word].twins

    @property
    def place(self) -> str:
        """``end``, ``start`` or ``continuation``."""
        return MARKERS[self.marker]

    def engine_symbol(self, symbol: str) -> str:
        """A symbol as the example writes it -> the engine's display string (``er_`` -> ``er</w>``)."""
        m = self.marker
        if self.place == "end" and symbol.endswith(m):
            return symbol[: -len(m)] + MARKER
        if self.place == "continuation":
            return symbol[:-2] if symbol.endswith("@@") else symbol + MARKER
        return symbol

    def shown(self, token: str) -> str:
        """An engine token -> as the example writes it (``er</w>`` -> ``er_``; ``lo`` -> ``lo@@`` for ``@@``)."""
        if self.place == "end" and token.endswith(MARKER):
            return token[: -len(MARKER)] + self.marker
        if self.place == "continuation":
            return token[: -len(MARKER)] if token.endswith(MARKER) else token + "@@"
        return token

    def spelled(self, word: str) -> str:
        """``word``'s initial symbols in this notation, one space apart (``low`` -> ``l o w _``; with a start
        marker, ``low`` and ``▁low`` -> ``▁ l o w``: a word that already starts with it does not get it twice)."""
        if self.place == "start":
            return " ".join([self.marker, *word.removeprefix(self.marker)])
        chars = list(word)
        if self.place == "continuation":
            return " ".join([c + "@@" for c in chars[:-1]] + chars[-1:])
        if self.glued:
            return " ".join(chars[:-1] + [chars[-1] + self.marker])
        return " ".join([*chars, self.marker])

    def describe(self, word: str = "low", quote: Callable[[str], str] = str) -> str:
        """How the example writes word boundaries, in the words of :meth:`label` (``separate``, ``attached``):
        ``_ as a separate end-of-word marker, a symbol of its own after each word (l o w _)``, or
        ``_ as an attached end-of-word marker, glued to each word's last character (l o w_)``.

        ``word`` is the example spelled in brackets; ``quote`` wraps the marker and that example
        (a code span, on a page)."""
        m, example = quote(self.marker), f"({quote(self.spelled(word))})"
        if self.marker == "Ġ":
            return f"{m} (the space before a word, as GPT-2 prints it), a symbol of its own before each word {example}"
        if self.place == "start":
            return f"{m} as the start-of-word marker, a symbol of its own before each word {example}"
        if self.place == "continuation":
            return f"{m} after every token that the next one continues {example}"
        if self.glued:
            return f"{m} as an attached end-of-word marker, glued to each word's last character {example}"
        return f"{m} as a separate end-of-word marker, a symbol of its own after each word {example}"

    def label(self) -> str:
        """A short name: ``_ separate``, ``_ attached``, ``▁ at the start``, ``@@ continuation``."""
        if self.place == "end":
            return f"{self.marker} {self.end_of_word}"
        return f"{self.marker} at the start" if self.place == "start" else f"{self.marker} continuation"

    def train_settings(self, corpus: Corpus) -> dict[str, str]:
        """The :func:`bpe_core.train` settings this notation stands for on ``corpus``.

        End markers and ``@@``: ``whitespace_eow`` with this placement. ``▁``: the
        words prefixed with it (see :meth:`corpus`), cut at whitespace. ``Ġ`` on
        running text: GPT-2's pre-tokenizer on bytes, whose display already writes
        the space as ``Ġ``; on word counts, each word prefixed with ``Ġ``.
        """
        if self.place in ("end", "continuation"):
            return {"pretokenizer": "whitespace_eow", "end_of_word": self.end_of_word}
        if self.marker == "Ġ" and isinstance(corpus, str):
            return {"pretokenizer": "gpt2", "unit": "byte"}
        return {"pretokenizer": "whitespace"}

    def corpus(self, corpus: Corpus) -> Corpus:
        """The corpus the engine trains on: unchanged, or each word prefixed with a start marker (once: a word
        already written with it, ``▁low``, keeps the one it has)."""
        if self.place != "start" or (self.marker == "Ġ" and isinstance(corpus, str)):
            return corpus
        if isinstance(corpus, str):
            return " ".join(self.word(w) for w in corpus.split())
        return {self.word(w): c for w, c in corpus.items()}

    def word(self, word: str) -> str:
        """One word as the engine reads it: prefixed with a start marker unless it already starts with it."""
        if self.place == "start" and not word.startswith(self.marker):
            return self.marker + word
        return word


def notations_of(symbols: list[str]) -> list[Notation]:
    """The notations a claim's symbols could be written in, most likely first (empty: no marker shows).

    ``_`` and ``</w>`` standing alone suggest ``separate``, glued to other
    characters ``attached``; both placements are listed when the marker shows.
    """
    found: list[Notation] = []
    for marker, place in MARKERS.items():
        if place == "start":
            hit = any(s.startswith(marker) for s in symbols)
        else:
            hit = any(s.endswith(marker) for s in symbols)
        if not hit:
            continue
        if place == "end":
            placements = ("separate", "attached") if marker in symbols else ("attached", "separate")
            found += [Notation(marker, p) for p in placements]
        else:
            found.append(Notation(marker, "attached" if place == "continuation" else "separate"))
    return found


# ---------------------------------------------------------------- word counts as books print them


@dataclass(frozen=True)
class WordCounts:
    """Word counts as read from a box, with how they were written.

    Attributes:
        counts: ``{word: count}`` in the order written (a repeated word's counts added),
            words without any marker.
        layout: the layout found, written for the ``low`` example: ``low 5``,
            ``5 low``, ``low: 5``, ``5 l o w``, ``l o w 5``, ``('low', 5)`` or ``{'low': 5}``.
        spelled: the words were written symbol by symbol, one space apart.
        notation: the marker the spelled words carry, or ``None``.
        glued_start: a start marker was written glued to the first character (``▁l o w``); it is read as
            the symbol of its own it is in SentencePiece and GPT-2 (``▁ l o w``), and :meth:`describe` says so.
    """

    counts: dict[str, int]
    layout: str
    spelled: bool = False
    notation: Notation | None = None
    glued_start: bool = False

    def describe(self) -> str:
        """``5 words with counts, spelled with spaces, _ at the end as a separate symbol (18 in all)`` (or
        ``attached to the last character``: the words of :meth:`Notation.label`)."""
        parts = [f"{len(self.counts):,} word{'s' if len(self.counts) != 1 else ''} with counts"]
        if self.spelled:
            parts.append("spelled with spaces")
        n = self.notation
        if n is not None:
            where = {"end": "at the end", "start": "at the start", "continuation": "on every token but the last"}
            placed = ""
            if n.place == "end":
                placed = " attached to the last character" if n.glued else " as a separate symbol"
            elif self.glued_start:
                placed = " glued to the first character, read as a symbol of its own"
            parts.append(f"{n.marker} {where[n.place]}{placed}")
        return ", ".join(parts) + f" ({sum(self.counts.values()):,} in all)"


_QUOTED = re.compile(r"""\(\s*(['"])((?:(?!\1).)*)\1\s*,\s*(\d+)\s*\)|(['"])((?:(?!\4).)*)\4\s*:\s*(\d+)""")
"""A Python tuple ``('low', 5)``, or a dict entry ``'low': 5``."""
_QUOTED_REST = re.compile(r"[\s,\[\]{}()]*")
_COLON = re.compile(r"^(\S+?)\s*:\s*(\S+)$")
_NUMBER_LIKE = re.compile(r"[-+−]?(?:\d+(?:[.,]\d*)?|[.,]\d+)")
"""A field written as a number though not as a count: ``-5``, ``0``, ``+3``, ``5.5``."""


def read_word_counts(text: str) -> WordCounts:
    """Read word counts in any layout of :class:`WordCounts` (one entry per line, or entries separated by commas).

    Args:
        text: the pasted counts.

    Returns:
        The :class:`WordCounts` read.

    Raises:
        ClaimError: an entry none of the layouts reads (naming its line), lines in
            different layouts, words spelled with different markers, a count of 0
            or past :data:`bpe_core.text.corpus.MAX_WORD_FREQUENCY` (naming the line), or no entry.
    """
    entries = _quoted_entries(text)
    layout = "('low', 5)" if entries and "(" in text else "{'low': 5}"
    if not entries:
        entries, layout = _line_entries(text)
    spelled = {i: _unspell(symbols, n) for i, (n, symbols, _digits) in enumerate(entries) if len(symbols) > 1}
    markers = {notation for _word, notation, _glued in spelled.values()}
    if len(markers) > 1:
        raise ClaimError("the words are spelled with different markers: " + ", ".join(sorted(_marks(markers))))
    notation = markers.pop() if markers else None
    counts: dict[str, int] = {}
    for i, (n, symbols, digits) in enumerate(entries):
        word = spelled[i][0] if i in spelled else _one_symbol(symbols[0], notation)
        total = counts.get(word, 0) + _bounded_count(digits, n)
        if total > MAX_WORD_FREQUENCY:
            raise ClaimError(
                f"line {n}: the word {word[:40]!r} is counted {total:,} times in all; "
                f"at most {MAX_WORD_FREQUENCY:,} (2**48) is allowed"
            )
        counts[word] = total
    if not counts:
        raise ClaimError("no word counts: write one 'word count' per line, such as 'low 5'")
    if spelled:
        layout = layout.replace("low", notation.spelled("low") if notation else "l o w")
    glued_start = any(glued for _word, _notation, glued in spelled.values())
    return WordCounts(counts, layout, bool(spelled), notation, glued_start)


def _one_symbol(word: str, notation: Notation | None) -> str:
    """A one-symbol entry among spelled ones (``a_`` beside ``l o w_``, ``▁a`` beside ``▁ l o w``): its glued
    end marker, or its start marker, dropped."""
    if notation is None or len(word) <= len(notation.marker):
        return word
    if notation.place == "end" and notation.glued:
        return word.removesuffix(notation.marker)
    return word.removeprefix(notation.marker) if notation.place == "start" else word


def _marks(markers: set[Notation | None]) -> list[str]:
    return [m.label() if m else "none" for m in markers]


def _quoted_entries(text: str) -> list[tuple[int, list[str], str]]:
    """``(line, symbols, digits)`` of each ``('low', 5)`` or ``'low': 5`` entry when the whole box is made of
    them (with brackets, braces and commas between); else ``[]``."""
    out = []
    at = 0
    for match in _QUOTED.finditer(text):
        if _QUOTED_REST.fullmatch(text, at, match.start()) is None:
            return []
        word = match.group(2) if match.group(1) else match.group(5)
        digits = match.group(3) or match.group(6)
        out.append((text.count("\n", 0, match.start()) + 1, word.split() or [word], digits))
        at = match.end()
    return out if out and _QUOTED_REST.fullmatch(text, at) is not None else []


def _line_entries(text: str) -> tuple[list[tuple[int, list[str], str]], str]:
    """``(line, symbols, digits)`` of each plain entry, and the layout all of them share.

    Raises:
        ClaimError: an entry with no count at either end, or entries in different layouts.
    """
    out = []
    layouts: set[str] = set()
    for n, entry in _plain_entries(text):
        read = _entry(entry, "5 low" in layouts)
        if read is None:
            bad = _bad_count(entry)
            if bad is not None:
                raise ClaimError(f"line {n}: {entry[:60]!r}: the count {bad[:20]!r} is not a positive whole number")
            raise ClaimError(f"line {n}: {entry[:60]!r} is not 'word count' with a positive count")
        layout, symbols, digits = read
        layouts.add(layout)
        if len(layouts) > 1:
            raise ClaimError(f"line {n}: {entry[:60]!r} is written another way than the lines above ({layout})")
        out.append((n, symbols, digits))
    return out, layouts.pop() if layouts else "low 5"


def _entry(entry: str, count_first: bool) -> tuple[str, list[str], str] | None:
    """``(layout, symbols, count digits)`` of one entry, or ``None`` when no layout reads it.

    A count at both ends (``5 5``) follows the lines above (``count_first``)."""
    colon = _COLON.match(entry)
    if colon and _is_count(colon.group(2)):
        return "low: 5", [colon.group(1)], colon.group(2)
    fields = entry.split()
    if len(fields) < 2:
        return None
    last = _is_count(fields[-1]) and _spelled(fields[:-1])
    first = _is_count(fields[0]) and _spelled(fields[1:])
    if last and not (first and count_first):
        return "low 5", fields[:-1], fields[-1]
    if first:
        return "5 low", fields[1:], fields[0]
    return None


def _bad_count(entry: str) -> str | None:
    """The number-like field of an entry that would read as a word count but for it (``low -5``, ``0 low``,
    ``low: 5.5``), or ``None``."""
    colon = _COLON.match(entry)
    if colon and _NUMBER_LIKE.fullmatch(colon.group(2)):
        return colon.group(2)
    fields = entry.split()
    if len(fields) < 2:
        return None
    if _NUMBER_LIKE.fullmatch(fields[-1]) and _spelled(fields[:-1]):
        return fields[-1]
    if _NUMBER_LIKE.fullmatch(fields[0]) and _spelled(fields[1:]):
        return fields[0]
    return None


def _count_like(entry: str) -> bool:
    """An entry that reads as a word count in one of the layouts, or would but for its count (:func:`_bad_count`)."""
    return _entry(entry, False) is not None or _entry(entry, True) is not None or _bad_count(entry) is not None


def _plain_entries(text: str) -> Iterator[tuple[int, str]]:
    """``(line number, entry)`` of each non-blank entry (lines, cut at commas)."""
    for n, raw in enumerate(text.splitlines(), start=1):
        for entry in raw.split(","):
            if entry.strip():
                yield n, entry.strip()


def _spelled(symbols: list[str]) -> bool:
    """One word, or a word spelled symbol by symbol: each symbol one character, a marker, or a character
    with a marker glued to it (``w_``, ``l@@``). ``see page`` is neither: that line is running text."""
    if len(symbols) == 1:
        return True
    for s in symbols:
        for marker, place in MARKERS.items():
            s = s.removeprefix(marker) if place == "start" else s.removesuffix(marker)
        if len(s) > 1:
            return False
    return True


def _is_count(field: str) -> bool:
    """A positive count in ASCII digits (``0`` and ``²`` are not)."""
    return field.isascii() and field.isdigit() and bool(field.strip("0"))


def _unspell(symbols: list[str], line: int) -> tuple[str, Notation | None, bool]:
    """A spelled word (``l o w _``) -> ``("low", the marker's notation, False)``; one symbol is the word itself.

    A start marker glued to the first character (``▁l o w``) is read as the start marker, the third item
    ``True``: ``("low", Notation("▁"), True)``.
    """
    if len(symbols) == 1:
        return symbols[0], None, False
    notation = None
    glued_start = False
    first, last = symbols[0], symbols[-1]
    for marker, place in MARKERS.items():
        if place == "start" and first.startswith(marker):
            glued_start = first != marker
            notation, symbols = Notation(marker), [first[len(marker) :], *symbols[1:]]
        elif place == "end" and last.endswith(marker):
            notation = Notation(marker, "separate" if last == marker else "attached")
            symbols = symbols[:-1] if last == marker else [*symbols[:-1], last[: -len(marker)]]
        elif place == "continuation" and all(s.endswith(marker) for s in symbols[:-1]):
            notation, symbols = Notation(marker, "attached"), [s.removesuffix(marker) for s in symbols]
        if notation is not None:
            break
    word = "".join(symbols)
    if not word:
        raise ClaimError(f"line {line}: the word is only a marker")
    return word, notation, glued_start


def _bounded_count(digits: str, line: int) -> int:
    """``digits`` (ASCII, not all zeros) as an int, refused past :data:`~bpe_core.text.corpus.MAX_WORD_FREQUENCY`
    before a long digit string is converted (Python refuses over 4,300 digits; 16 already pass the cap)."""
    if not _is_count(digits):
        raise ClaimError(f"line {line}: the count {digits[:30]!r} is not a positive whole number")
    digits = digits.lstrip("0")
    if len(digits) > len(str(MAX_WORD_FREQUENCY)) or int(digits) > MAX_WORD_FREQUENCY:
        shown = f"{int(digits):,}" if len(digits) <= 30 else f"a number of {len(digits):,} digits"
        raise ClaimError(
            f"line {line}: the count {shown} is too large; at most {MAX_WORD_FREQUENCY:,} (2**48) is allowed"
        )
    return int(digits)


def parse_word_counts(text: str) -> dict[str, int]:
    """The ``{word: count}`` of :func:`read_word_counts` (words without markers, in the order written).

    Raises:
        ClaimError: as :func:`read_word_counts`.
    """
    return read_word_counts(text).counts


def looks_like_word_counts(text: str, *, every_entry: bool = False) -> bool:
    """True when ``text`` is meant as word counts: its entries (lines, cut at commas) are in the layouts of
    :func:`read_word_counts`, or most of them are.

    Every entry reading as a word count, in one layout, is the clear case (the only one with
    ``every_entry=True``). When more than half of the entries read as one in some layout, or would but
    for their count (``low -5``, ``low 0``, ``low 5.5``), the text is still taken as word counts, so
    that :func:`read_word_counts` names the line that does not read (a wrong count, or a layout other
    than the lines above) instead of the box being read silently as running text. Running text (lines
    of several words, ``see page 5``) stays running text. A count past the limit reads as a count, so
    its error is shown too.
    """
    if _quoted_entries(text):
        return True
    if every_entry:
        try:
            entries, _layout = _line_entries(text)
        except ClaimError:
            return False
        return bool(entries)
    plain = [entry for _n, entry in _plain_entries(text)]
    return 2 * sum(1 for entry in plain if _count_like(entry)) > len(plain)


# ---------------------------------------------------------------- claimed merges

_CLAIM_LINE = re.compile(r"^\(\s*(\S+?)\s*,\s*(\S+?)\s*\)\s*[:=]?\s*(\d+)?$")
_NUMBERED = re.compile(r"^\d+[.)]\s+")
_RESULT = re.compile(r"\s*(?:→|->)\s*\S+$")


def parse_claimed(text: str) -> list[tuple[tuple[str, str], int | None]]:
    """Read claimed merges, one per line: ``e s``, ``e s 9``, ``(e, s)``, ``(e, s): 9`` or ``e r → er``.

    Blank lines and lines starting with ``#`` are skipped; a leading ``1.`` or
    ``1)`` numbering is dropped, and so is the merged token after an arrow
    (``→`` or ``->``), as Jurafsky & Martin print merges.

    Args:
        text: the pasted lines.

    Returns:
        ``[((left, right), count or None), ...]``.

    Raises:
        ClaimError: a line that is none of these forms (naming the line), or no merge at all.
    """
    out: list[tuple[tuple[str, str], int | None]] = []
    for n, raw in enumerate(text.splitlines(), start=1):
        line = _RESULT.sub("", _NUMBERED.sub("", raw.strip()))
        if not line or line.startswith("#"):
            continue
        fields = line.split()
        counted = len(fields) == 3 and fields[2].isascii() and fields[2].isdigit() and len(fields[2]) <= 20
        if not line.startswith("(") and (len(fields) == 2 or counted):
            out.append(((fields[0], fields[1]), int(fields[2]) if len(fields) == 3 else None))
            continue
        match = _CLAIM_LINE.match(line)
        if match is None:
            raise ClaimError(f"line {n}: {raw.strip()[:60]!r} is not 'left right' or 'left right count'")
        left, right, count = match.groups()
        out.append(((left, right), int(count) if count is not None else None))
    if not out:
        raise ClaimError("no claimed merge: write one merge per line, such as 'e s' or 'e s 9'")
    return out

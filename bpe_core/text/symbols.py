"""The symbol table: every token id with its display string and its bytes.

A *symbol* is one entry of the vocabulary. Ids are assigned in the order
special tokens, base alphabet, merges (then fallback tokens, if any), so the
table is also the vocabulary. Symbols are told apart by id, never by string: the
end-of-word marker ``</w>`` is its own symbol (or is glued to a base symbol), so
the literal characters ``<``, ``/``, ``w``, ``>`` typed in a corpus can never be
mistaken for it, even when a merge spells the same string.

Units:

``char``
    One base symbol per Unicode code point seen in the corpus, sorted by code
    point (the order Hugging Face ``BpeTrainer`` gives its alphabet).
``byte``
    256 base symbols, the UTF-8 byte values, with id = byte value when there
    are no special tokens (the tiktoken / minbpe convention). Each is shown with
    GPT-2's byte-to-unicode character (``Ġ`` for a space), as ``merges.txt``
    files write them.

End-of-word marker (``whitespace_eow`` only): ``separate`` appends the symbol
``</w>`` to every word (Sennrich et al. 2016, section 3.2; subword-nmt 0.1);
``attached`` glues it to the word's last base symbol, ``r</w>``, as subword-nmt
>= 0.2 and Hugging Face's ``end_of_word_suffix`` do. Marker symbols come after
the plain alphabet, so the first merge's id is shifted by them: with the byte
unit, no special tokens and no marker (every pre-tokenizer but
``whitespace_eow``), bytes are ids 0..255 and merge ``i`` is id ``256 + i``; a
separate marker takes id 256 (merge ``i`` is ``257 + i``), an attached one adds
a marked twin per byte that ends a word. The marker decodes to a single space.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from itertools import accumulate

from ..errors import BPEError, MergeTableError, OptionError, quote
from ..registry.options import OPTIONS
from ..registry.pairkeys import SHIFT as SHIFT  # re-exported: pair keys are left * SHIFT + right
from .byte_level import bytes_to_unicode

MARKER = "</w>"
"""The end-of-word marker's display string (Sennrich et al. 2016)."""

UNITS: Mapping[str, str] = OPTIONS["unit"].choices
"""Every unit name with a one-line description (a read-only view of :data:`bpe_core.registry.options.OPTIONS`)."""

END_OF_WORD: Mapping[str, str] = OPTIONS["end_of_word"].choices
"""Every end-of-word style with a one-line description (used by ``whitespace_eow``; a view of ``OPTIONS``)."""


class FrozenList(list):  # type: ignore[type-arg]
    """A list that refuses every change: the id-indexed columns of a frozen :class:`SymbolTable`.

    It reads, compares, slices (slices are plain lists) and pickles like a list.
    """

    def _refuse(self, *args: object, **kwargs: object) -> None:
        raise TypeError("this symbol table is frozen (a tokenizer's); copy() it to change it")

    append = extend = insert = pop = remove = clear = sort = reverse = _refuse  # type: ignore[assignment]
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse  # type: ignore[assignment]

    def __reduce__(self) -> tuple[type, tuple[list]]:  # type: ignore[type-arg]
        return FrozenList, (list(self),)

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(self))


def check_option(name: str, value: object, allowed: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``allowed``.

    Raises:
        OptionError: naming the option, the bad value and the allowed values.
    """
    allowed = list(allowed)
    if not isinstance(value, str) or value not in allowed:
        raise OptionError(f"unknown {name} {value!r}; expected one of: {', '.join(allowed)}")
    return value


def utf8(text: str) -> bytes:
    """UTF-8 bytes of ``text``; lone surrogates (not valid Unicode) are kept as-is."""
    return text.encode("utf-8", "surrogatepass")


class SymbolTable:
    """Id -> display string and id -> bytes for one vocabulary, plus base-symbol lookups.

    Attributes:
        unit: ``"char"`` or ``"byte"``.
        end_of_word: ``None`` (no marker), ``"separate"`` or ``"attached"``.
        strings: id -> display string (``Ġthe``, ``er</w>``, ``<|endoftext|>``).
        data: id -> the bytes the token decodes to (the marker decodes to ``b" "``).
        ends_word: id -> whether the symbol holds the end-of-word marker.
        num_special: how many special tokens lead the table.
        num_base: special tokens + base alphabet (+ marker symbols); merges start here.
        char_ids: char unit: character -> id of its plain base symbol.
        byte_ids: byte unit: byte value -> id of its base symbol.
        final_ids: attached marker: base symbol id -> id of its marker-glued twin.
        marker_id: separate marker: the id of ``</w>``; else ``None``.
        hf_rank: id -> the id Hugging Face ``BpeTrainer`` would give (differs only
            for byte-unit base symbols, which it sorts by their rendered character).
        gaps: ids below ``len(table)`` that name no token (only tables built by
            :meth:`from_vocab`, e.g. cl100k_base's 100256); their string is ``""``.
    """

    gaps: frozenset[int] = frozenset()

    def __init__(
        self,
        unit: str,
        end_of_word: str | None,
        special_tokens: Iterable[str],
        chars: Iterable[str] = (),
        final_units: Iterable[str | int] = (),
    ) -> None:
        """Build the base vocabulary.

        Args:
            unit: ``"char"`` or ``"byte"``.
            end_of_word: ``None``, ``"separate"`` or ``"attached"``.
            special_tokens: special-token strings, ids 0.. in this order (duplicates dropped).
            chars: char unit: the alphabet (any order; sorted by code point here).
            final_units: attached marker: the base units (characters, or byte
                values for the byte unit) that need a marker-glued twin.

        Raises:
            OptionError: bad ``unit`` or ``end_of_word``.
        """
        check_option("unit", unit, UNITS)
        if end_of_word is not None:
            check_option("end_of_word", end_of_word, END_OF_WORD)
        self.unit = unit
        self.end_of_word = end_of_word
        self.strings: list[str] = []
        self.data: list[bytes] = []
        self.ends_word: list[bool] = []
        self.special_ids: dict[str, int] = {}
        for tok in special_tokens:
            if tok not in self.special_ids:
                self.special_ids[tok] = self._add(tok, utf8(tok))
        self.num_special = len(self.strings)
        self.char_ids: dict[str, int] = {}
        self.byte_ids: list[int] = []
        self.unit_kind.add_alphabet(self, chars)
        self.final_ids: dict[int, int] = {}
        self.marker_id: int | None = None
        self.marker_layout.add_symbols(self, final_units)
        self.num_base = len(self.strings)
        self.hf_rank = self.unit_kind.hf_ranks(self)

    @classmethod
    def from_vocab(
        cls,
        tokens: Mapping[int, tuple[str, bytes]],
        *,
        unit: str,
        end_of_word: str | None = None,
        specials: Mapping[str, int] | None = None,
        ends_word: Iterable[int] = (),
    ) -> SymbolTable:
        """Build a table whose ids are given, as a loaded vocabulary file fixes them.

        Used for GPT-2 ``encoder.json``, tiktoken rank files and ``tokenizer.json``:
        ids need not start at the base symbols, special tokens may sit anywhere
        (GPT-2's ``<|endoftext|>`` is the last id) and ids may be missing (cl100k_base
        has no token 100256); such *gaps* are listed in :attr:`gaps`.

        Args:
            tokens: id -> ``(display string, bytes)`` for every token that is not
                special. Base symbols are found here: byte unit, the tokens of one
                byte; char unit, the tokens of one character (the lowest id wins).
            unit: ``"char"`` or ``"byte"``.
            end_of_word: ``None``, ``"separate"`` (the token ``</w>`` among
                ``ends_word``) or ``"attached"`` (``c</w>`` twins among ``ends_word``).
            specials: special token -> id (its bytes are its UTF-8 encoding).
            ends_word: ids of the tokens that hold the end-of-word marker; their
                bytes end with the marker's ``b" "``.

        Returns:
            A table with ``len(table) == max id + 1``; ``hf_rank`` is the identity,
            ``num_special`` counts the specials at ids ``0, 1, ...`` and
            ``num_base`` is one past the highest base-symbol id.

        Raises:
            OptionError: bad ``unit`` or ``end_of_word``.
            MergeTableError: an id is negative, not an int or used twice; a
                byte-unit table lacks some of the 256 single bytes (they are
                listed); a separate marker table has no ``</w>`` token.
        """
        check_option("unit", unit, UNITS)
        if end_of_word is not None:
            check_option("end_of_word", end_of_word, END_OF_WORD)
        specials = dict(specials or {})
        by_id = _special_ids_by_id(tokens, specials)
        n = max([*tokens, *specials.values()], default=-1) + 1
        table = object.__new__(cls)
        table.unit = unit
        table.end_of_word = end_of_word
        table._fill_columns(n, tokens, specials, ends_word)
        table.special_ids = {tok: i for i, tok in sorted(by_id.items())}
        num_special = 0
        while num_special in by_id:
            num_special += 1
        table.num_special = num_special
        if len(tokens) + len(specials) < n:
            table.gaps = frozenset(range(n)).difference(tokens, specials.values())
        ordered = sorted(tokens)
        base = table._find_base_symbols(ordered) + table._find_markers(ordered)
        table.num_base = max(base, default=num_special - 1) + 1
        table.hf_rank = list(range(n))
        return table

    def _fill_columns(
        self, n: int, tokens: Mapping[int, tuple[str, bytes]], specials: Mapping[str, int], ends_word: Iterable[int]
    ) -> None:
        """:meth:`from_vocab`: ``strings``, ``data`` and ``ends_word`` of ``n`` ids (gaps: ``""``, ``b""``)."""
        self.strings = [""] * n
        self.data = [b""] * n
        for i, (string, raw) in tokens.items():
            self.strings[i] = string
            self.data[i] = raw
        for tok, i in specials.items():
            self.strings[i] = tok
            self.data[i] = utf8(tok)
        self.ends_word = [False] * n
        for i in ends_word:
            self.ends_word[i] = True

    def _find_base_symbols(self, ordered: list[int]) -> list[int]:
        """:meth:`from_vocab`: fill ``byte_ids`` or ``char_ids`` from the non-special ids (ascending); return them.

        Raises:
            MergeTableError: byte unit and single bytes are missing (listed).
        """
        self.char_ids = {}
        self.byte_ids = []
        return self.unit_kind.find_alphabet(self, ordered)

    def _find_markers(self, ordered: list[int]) -> list[int]:
        """:meth:`from_vocab`: find ``marker_id`` or the ``final_ids`` twins among the non-special ids; return them.

        Raises:
            MergeTableError: a separate marker table without the token ``</w>``.
        """
        self.final_ids = {}
        self.marker_id = None
        return self.marker_layout.find(self, ordered)

    @property
    def unit_kind(self) -> UnitKind:
        """The :class:`UnitKind` object of :attr:`unit` (what the base symbols are)."""
        return UNIT_KINDS[self.unit]

    @property
    def marker_layout(self) -> MarkerLayout:
        """The :class:`MarkerLayout` object of :attr:`end_of_word` (where the marker symbols are)."""
        return MARKER_LAYOUTS[self.end_of_word]

    @property
    def byte_level(self) -> bool:
        """True for the byte unit (256 byte symbols: no character is ever unknown)."""
        return self.unit_kind.byte_level

    def _add(self, string: str, data: bytes, ends_word: bool = False) -> int:
        self.strings.append(string)
        self.data.append(data)
        self.ends_word.append(ends_word)
        return len(self.strings) - 1

    def copy(self) -> SymbolTable:
        """An independent copy (adding symbols to it leaves this table alone)."""
        new = object.__new__(SymbolTable)
        new.__dict__.update(self.__dict__)
        for name in ("strings", "data", "ends_word", "hf_rank", "byte_ids"):
            setattr(new, name, list(getattr(self, name)))
        for name in ("char_ids", "final_ids", "special_ids"):
            setattr(new, name, dict(getattr(self, name)))
        return new

    def frozen(self) -> SymbolTable:
        """A copy whose id-indexed lists refuse changes (:class:`FrozenList`), for a model that must never change.

        ``add_token``/``add_merge`` fail on it; the dicts (``char_ids``,
        ``final_ids``, ``special_ids``) are private copies that its holder only
        reads. :meth:`copy` gives a mutable table back.
        """
        return self.copy().freeze()

    def freeze(self) -> SymbolTable:
        """Make this table's id-indexed lists :class:`FrozenList` in place (see :meth:`frozen`); return it."""
        for name in ("strings", "data", "ends_word", "hf_rank", "byte_ids"):
            setattr(self, name, FrozenList(getattr(self, name)))
        return self

    def truncated(self, size: int) -> SymbolTable:
        """An independent copy holding only ids ``0 .. size - 1`` (drops tokens appended after them).

        Args:
            size: how many leading ids to keep, at least ``num_base``.

        Raises:
            ValueError: ``size`` would cut into the base alphabet.
        """
        if not self.num_base <= size <= len(self.strings):
            raise ValueError(f"size {size} must be between {self.num_base} and {len(self.strings)}")
        new = self.copy()
        for name in ("strings", "data", "ends_word", "hf_rank"):
            del getattr(new, name)[size:]
        new.char_ids = {c: i for c, i in new.char_ids.items() if i < size}
        new.final_ids = {b: i for b, i in new.final_ids.items() if b < size and i < size}
        new.special_ids = {t: i for t, i in new.special_ids.items() if i < size}
        return new

    def __len__(self) -> int:
        return len(self.strings)

    def add_merge(self, left: int, right: int) -> int:
        """Append the symbol made by merging ``left`` and ``right``; return its id."""
        new = self._add(
            self.strings[left] + self.strings[right],
            self.data[left] + self.data[right],
            ends_word=self.ends_word[right],
        )
        self.hf_rank.append(new)
        return new

    def add_token(self, string: str, data: bytes, ends_word: bool = False) -> int:
        """Append a token that is not a merge (``<unk>``, ``<0x41>``, a new character); return its id."""
        new = self._add(string, data, ends_word)
        self.hf_rank.append(new)
        return new

    def base_units(self, chunk: str) -> list[int]:
        """The plain base symbols of ``chunk`` (no marker), for a corpus whose alphabet holds them all.

        Raises:
            KeyError: a character is not in the alphabet (char unit).
            UnicodeEncodeError: the chunk holds a lone surrogate (byte unit).
        """
        return list(map(self.unit_kind.lookup(self), self.unit_kind.units_of(chunk)))


# ---------------------------------------------------------------- units and marker layouts


class UnitKind:
    """What a table's base symbols are: one object per unit (:data:`UNIT_KINDS`), so the table
    asks it instead of comparing unit names.

    Attributes:
        name: the public name (``"char"``, ``"byte"``).
        byte_level: True when the alphabet is the 256 byte values (nothing is unknown).
    """

    name = ""
    byte_level = False

    def add_alphabet(self, table: SymbolTable, chars: Iterable[str]) -> None:
        """Append the base alphabet to a table being built (``chars``: the char unit's characters)."""
        raise NotImplementedError

    def find_alphabet(self, table: SymbolTable, ordered: list[int]) -> list[int]:
        """Fill ``char_ids``/``byte_ids`` of a table with given ids from its non-special ids (ascending).

        Returns:
            The base symbols found.
        """
        raise NotImplementedError

    def twin_bases(self, table: SymbolTable, final_units: Iterable[str | int]) -> list[int]:
        """The ids of the base symbols that get an end-of-word twin, in id order."""
        raise NotImplementedError

    def plain_of(self, table: SymbolTable, twin: int, core: str) -> int | None:
        """The plain base symbol of the marked single-unit token ``twin`` (display string ``core + </w>``)."""
        raise NotImplementedError

    def hf_ranks(self, table: SymbolTable) -> list[int]:
        """Id -> the id Hugging Face ``BpeTrainer`` gives it (the identity unless the unit says otherwise)."""
        return list(range(len(table.strings)))

    def units_of(self, word: str) -> Iterable[str] | bytes:
        """A word's base units: its characters or its UTF-8 bytes.

        Raises:
            UnicodeEncodeError: byte unit, a lone surrogate.
        """
        raise NotImplementedError

    def lookup(self, table: SymbolTable) -> Callable[[object], int]:
        """``id_of(unit)``: the base symbol of one unit (a bound lookup, fast under ``map``)."""
        raise NotImplementedError

    def every_unit(self, chars: Iterable[str]) -> set[str | int]:
        """Every base unit of an alphabet holding ``chars`` (the twins a table needs when any unit may end a word)."""
        raise NotImplementedError

    def corpus_finals(self, words: Iterable[str]) -> set[str | int]:
        """The units that need an end-of-word twin for a corpus of ``words`` (attached marker)."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<unit {self.name}>"


class CharUnit(UnitKind):
    """Base symbols are the Unicode characters seen (Sennrich et al. 2016), sorted by code point."""

    name = "char"

    def add_alphabet(self, table: SymbolTable, chars: Iterable[str]) -> None:
        # sorted as given, repeats skipped after: an alphabet that comes sorted (a session file's) sorts in one
        # linear pass in memory order, where a set's hash order cost n log n comparisons between strings scattered
        # in memory (256,000 characters: 27 ms against 210 ms)
        char_ids = table.char_ids
        for ch in sorted(chars):
            if ch not in char_ids:
                char_ids[ch] = table._add(ch, utf8(ch))

    def find_alphabet(self, table: SymbolTable, ordered: list[int]) -> list[int]:
        strings, marked, char_ids = table.strings, table.ends_word, table.char_ids
        for i in ordered:
            string = strings[i]
            if len(string) == 1 and not marked[i] and string not in char_ids:
                char_ids[string] = i
        return list(char_ids.values())

    def twin_bases(self, table: SymbolTable, final_units: Iterable[str | int]) -> list[int]:
        return sorted(table.char_ids[str(c)] for c in set(final_units))

    def plain_of(self, table: SymbolTable, twin: int, core: str) -> int | None:
        return table.char_ids.get(core)

    def units_of(self, word: str) -> str:
        return word

    def lookup(self, table: SymbolTable) -> Callable[[object], int]:
        return table.char_ids.__getitem__  # type: ignore[return-value]

    def every_unit(self, chars: Iterable[str]) -> set[str | int]:
        return set(chars)

    def corpus_finals(self, words: Iterable[str]) -> set[str | int]:
        return {w[-1] for w in words}


class ByteUnit(UnitKind):
    """Base symbols are the 256 byte values (GPT-2 byte-level BPE), shown in GPT-2's byte-to-unicode alphabet."""

    name = "byte"
    byte_level = True

    def add_alphabet(self, table: SymbolTable, chars: Iterable[str]) -> None:
        rendered = bytes_to_unicode()
        for b in range(256):
            table.byte_ids.append(table._add(rendered[b], bytes([b])))

    def find_alphabet(self, table: SymbolTable, ordered: list[int]) -> list[int]:
        data, marked = table.data, table.ends_word
        found: dict[int, int] = {}
        for i in ordered:
            raw = data[i]
            if len(raw) == 1 and not marked[i] and raw[0] not in found:
                found[raw[0]] = i
        missing = [b for b in range(256) if b not in found]
        if missing:
            raise missing_bytes_error(missing)
        table.byte_ids = [found[b] for b in range(256)]
        return list(table.byte_ids)

    def twin_bases(self, table: SymbolTable, final_units: Iterable[str | int]) -> list[int]:
        return [table.byte_ids[b] for b in sorted({int(u) for u in final_units})]

    def plain_of(self, table: SymbolTable, twin: int, core: str) -> int | None:
        return table.byte_ids[table.data[twin][0]]

    def hf_ranks(self, table: SymbolTable) -> list[int]:
        """Hugging Face sorts the byte alphabet by its rendered character."""
        ranks = list(range(len(table.strings)))
        first = table.num_special
        order = sorted(range(first, first + 256), key=lambda i: table.strings[i])
        for rank, i in enumerate(order, start=first):
            ranks[i] = rank
        return ranks

    def units_of(self, word: str) -> bytes:
        return word.encode("utf-8")

    def lookup(self, table: SymbolTable) -> Callable[[object], int]:
        return table.byte_ids.__getitem__  # type: ignore[return-value]

    def every_unit(self, chars: Iterable[str]) -> set[str | int]:
        return set(range(256))

    def corpus_finals(self, words: Iterable[str]) -> set[str | int]:
        return set(range(256))  # every byte gets a marker twin: nothing is ever unknown


UNIT_KINDS: dict[str, UnitKind] = {u.name: u for u in (CharUnit(), ByteUnit())}
"""Every unit's object by name (the names of :data:`UNITS`)."""


def unit_kind(unit: object) -> UnitKind:
    """The :class:`UnitKind` of the unit named ``unit``.

    Raises:
        OptionError: an unknown unit, listing the known ones.
    """
    return UNIT_KINDS[check_option("unit", unit, UNITS)]


class MarkerLayout:
    """Where a table keeps the end-of-word marker: one object per style (:data:`MARKER_LAYOUTS`).

    This base class is the layout without a marker (every pre-tokenizer but ``whitespace_eow``).

    Attributes:
        name: ``None``, ``"separate"`` or ``"attached"``.
        twins: True when base symbols have marker-glued twins ``c</w>`` (attached).
        own_symbols: the marker symbols that stand on their own (``("</w>",)`` for separate).
    """

    name: str | None = None
    twins = False
    own_symbols: tuple[str, ...] = ()

    def add_symbols(self, table: SymbolTable, final_units: Iterable[str | int]) -> None:
        """Append the marker symbols to a table being built (after its alphabet)."""

    def find(self, table: SymbolTable, ordered: list[int]) -> list[int]:
        """Fill ``marker_id``/``final_ids`` of a table with given ids (non-special ids, ascending); return them.

        Raises:
            MergeTableError: the marker's token is missing.
        """
        return []

    def mark_all(self, table: SymbolTable, words: list[list[int]]) -> None:
        """Put the marker on each word's base symbols, in place."""

    def mark_flat(self, table: SymbolTable, flat: list[int], lengths: list[int]) -> tuple[list[int], list[int]]:
        """Put the marker on each word of words laid out one after another (``lengths`` each).

        Returns:
            ``(symbols, lengths)``, marked (the same lists, or new ones).
        """
        return flat, lengths

    def base_char(self, part: str) -> str | None:
        """The single character a base-symbol string stands for (its twin's marker removed), or ``None``."""
        return part if len(part) == 1 else None

    def __repr__(self) -> str:
        return f"<end-of-word layout {self.name}>"


class SeparateLayout(MarkerLayout):
    """``</w>`` is a symbol of its own, after each word (Sennrich et al. 2016, section 3.2)."""

    name = "separate"
    own_symbols = (MARKER,)

    def add_symbols(self, table: SymbolTable, final_units: Iterable[str | int]) -> None:
        table.marker_id = table._add(MARKER, b" ", ends_word=True)

    def find(self, table: SymbolTable, ordered: list[int]) -> list[int]:
        strings, marked = table.strings, table.ends_word
        table.marker_id = next((i for i in ordered if marked[i] and strings[i] == MARKER), None)
        if table.marker_id is None:
            raise MergeTableError(f"a table with a separate end-of-word marker needs the token {MARKER!r}")
        return [table.marker_id]

    def mark_all(self, table: SymbolTable, words: list[list[int]]) -> None:
        marker = table.marker_id
        for w in words:
            w.append(marker)  # type: ignore[arg-type]

    def mark_flat(self, table: SymbolTable, flat: list[int], lengths: list[int]) -> tuple[list[int], list[int]]:
        out: list[int] = []
        extend, append, marker = out.extend, out.append, table.marker_id
        for end, n in zip(accumulate(lengths), lengths):
            extend(flat[end - n : end])
            append(marker)  # type: ignore[arg-type]
        return out, [n + 1 for n in lengths]


class AttachedLayout(MarkerLayout):
    """The marker is glued to a word's last base symbol, ``r</w>`` (subword-nmt >= 0.2, HF ``end_of_word_suffix``)."""

    name = "attached"
    twins = True

    def add_symbols(self, table: SymbolTable, final_units: Iterable[str | int]) -> None:
        strings, data = table.strings, table.data
        for base in table.unit_kind.twin_bases(table, final_units):
            table.final_ids[base] = table._add(strings[base] + MARKER, data[base] + b" ", ends_word=True)

    def find(self, table: SymbolTable, ordered: list[int]) -> list[int]:
        strings, marked, kind = table.strings, table.ends_word, table.unit_kind
        found = []
        for i in (i for i in ordered if marked[i]):
            core = strings[i][: -len(MARKER)] if strings[i].endswith(MARKER) else ""
            if len(core) != 1:
                continue
            plain = kind.plain_of(table, i, core)
            if plain is not None and plain not in table.final_ids:
                table.final_ids[plain] = i
                found.append(i)
        return found

    def mark_all(self, table: SymbolTable, words: list[list[int]]) -> None:
        final = table.final_ids
        for w in words:
            if w:
                w[-1] = final[w[-1]]

    def mark_flat(self, table: SymbolTable, flat: list[int], lengths: list[int]) -> tuple[list[int], list[int]]:
        final = table.final_ids
        for end, n in zip(accumulate(lengths), lengths):
            if n:
                flat[end - 1] = final[flat[end - 1]]
        return flat, lengths

    def base_char(self, part: str) -> str | None:
        core = part[: -len(MARKER)] if part.endswith(MARKER) else part
        return core if len(core) == 1 else None


MARKER_LAYOUTS: dict[str | None, MarkerLayout] = {
    m.name: m for m in (MarkerLayout(), SeparateLayout(), AttachedLayout())
}
"""Every end-of-word layout by name (``None``: no marker; the others are the names of :data:`END_OF_WORD`)."""


def _special_ids_by_id(tokens: Mapping[int, tuple[str, bytes]], specials: Mapping[str, int]) -> dict[int, str]:
    """Id -> special token, after checking every id is a non-negative int used once.

    Raises:
        MergeTableError: a bad id, two specials sharing an id, or an id both special and a token.
    """
    for i in [*tokens, *specials.values()]:
        if isinstance(i, bool) or not isinstance(i, int) or i < 0:
            raise MergeTableError(f"token id {quote(i)} is not a non-negative int")
    by_id: dict[int, str] = {}
    for tok, i in specials.items():
        if i in by_id:
            raise MergeTableError(f"special tokens {quote(by_id[i])} and {quote(tok)} share id {i}")
        by_id[i] = tok
        if i in tokens:
            raise MergeTableError(f"id {i} is both the special token {quote(tok)} and the token {quote(tokens[i][0])}")
    return by_id


def missing_bytes_error(missing: Iterable[int]) -> MergeTableError:
    """The error for a byte-level vocabulary without a token for each of the 256 single bytes.

    Args:
        missing: the byte values (0..255) that have no token, ascending.

    Returns:
        A :class:`~bpe_core.errors.MergeTableError` listing the first 16 (hex and GPT-2 rendering).
    """
    missing = list(missing)
    shown = ", ".join(f"0x{b:02X} ({bytes_to_unicode()[b]})" for b in missing[:16])
    more = f" and {len(missing) - 16} more" if len(missing) > 16 else ""
    return MergeTableError(
        f"the byte-level vocabulary lacks {len(missing)} of the 256 single bytes: {shown}{more}; "
        "byte-level BPE needs a token for every byte, or text holding that byte cannot be encoded"
    )


def spell_corpus(
    counts: Mapping[str, int], unit: str, eow: str | None, specials: tuple[str, ...]
) -> tuple[SymbolTable, list[list[int]]]:
    """Build the base symbol table for a corpus and spell every word in it.

    Args:
        counts: distinct pre-tokens (keys; counts unused here) in corpus order.
        unit: ``"char"`` or ``"byte"``.
        eow: ``None``, ``"separate"`` or ``"attached"``.
        specials: special tokens (first ids).

    Returns:
        ``(table, words)``: the base table and each word's symbol ids, marker included.

    Raises:
        BPEError: byte unit and a word holds a lone surrogate.
    """
    table, flat, lengths = spell_flat(counts, unit, eow, specials)
    ends = list(accumulate(lengths))
    return table, [flat[e - n : e] for e, n in zip(ends, lengths)]


def spell_flat(
    counts: Mapping[str, int], unit: str, eow: str | None, specials: tuple[str, ...]
) -> tuple[SymbolTable, list[int], list[int]]:
    """:func:`spell_corpus` with the words' symbols one after another in one list, and each word's length.

    The words are joined and spelled in one pass in C (a bound lookup under
    ``map``), and the marker layout marks the word ends afterwards
    (:meth:`MarkerLayout.mark_flat`): no list per word is ever made.

    Returns:
        ``(table, symbols, lengths)``: word ``w`` is ``symbols[sum(lengths[:w]) :][: lengths[w]]``.

    Raises:
        BPEError: byte unit and a word holds a lone surrogate.
    """
    kind, layout = UNIT_KINDS[unit], MARKER_LAYOUTS[eow]
    try:
        raw = [kind.units_of(w) for w in counts] if kind.byte_level else list(counts)
    except UnicodeEncodeError as exc:
        raise BPEError(
            f"the corpus holds a lone surrogate ({exc.object[exc.start]!r}), which has no UTF-8 bytes; "
            "byte-level BPE needs valid Unicode text"
        ) from None
    joined = (b"" if kind.byte_level else "").join(raw)  # type: ignore[attr-defined]
    chars = () if kind.byte_level else set(joined)
    finals = kind.corpus_finals(counts) if layout.twins else set()
    table = SymbolTable(unit, eow, specials, chars=chars, final_units=finals)
    flat = list(map(kind.lookup(table), joined))
    del joined
    return (table, *layout.mark_flat(table, flat, list(map(len, raw))))

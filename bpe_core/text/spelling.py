"""Spelling a pre-token in base symbols: the end-of-word marker and the fallback for unseen characters.

Before any merge rule applies, a pre-token is written in base symbols: its
UTF-8 bytes (byte unit) or its characters (char unit). Two choices shape that
spelling, each a small object here instead of a string compared all over:

* an :class:`EndOfWordStyle` (none, ``separate``, ``attached``; see
  :mod:`bpe_core.text.symbols`) puts the end-of-word marker on the word;
* a :class:`FallbackPolicy` (``keep``, ``unk``, ``bytes``) says what a
  char-unit alphabet does with a character it never saw.

The ``keep`` fallback (subword-nmt ``apply_bpe``) gives an unseen character a
symbol of its own. Those symbols are **temporary**: their ids lie past the
vocabulary, are numbered in the order one encoding meets them
(:class:`Temporaries`, created per call) and never enter the model, so the
same text always gets the same ids whatever was encoded before.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ..errors import OptionError
from ..registry.options import OPTIONS, mode_object
from .symbols import MARKER, SymbolTable, utf8

UNK = "<unk>"
"""The unknown token of the ``unk`` fallback."""

FallbackLog = list[tuple[int, str, str]]
"""``(offset in the pre-token, character, kind)`` per character that fell back."""


class Temporaries:
    """The temporary symbols one encoding hands out (``keep`` fallback), numbered as the text meets them.

    Ids start at ``first`` (the vocabulary size) and count up; a character and
    its end-of-word twin ``c</w>`` are two symbols. Create one per encoding
    call; :meth:`bpe_core.Tokenizer.encode` does unless given one.

    Attributes:
        first: the first temporary id.
        tokens: ``(string, bytes, ends_word)`` per temporary id, from ``first`` on.
        lookups: how many times :meth:`get` was called (a caller compares it
            before and after spelling a pre-token to know whether the pre-token
            holds a temporary symbol, and so whether its ids may be cached).
    """

    def __init__(self, first: int) -> None:
        self.first = first
        self.tokens: list[tuple[str, bytes, bool]] = []
        self.lookups = 0
        self._ids: dict[tuple[str, bool], int] = {}

    def __len__(self) -> int:
        return len(self.tokens)

    def get(self, char: str, ends_word: bool = False) -> int:
        """The temporary id of ``char`` (or of its twin ``char</w>``), handing out the next one if new."""
        self.lookups += 1
        key = (char, ends_word)
        found = self._ids.get(key)
        if found is None:
            found = self._ids[key] = self.first + len(self.tokens)
            data = utf8(char)
            self.tokens.append((char + MARKER, data + b" ", True) if ends_word else (char, data, False))
        return found

    def token(self, token_id: int) -> tuple[str, bytes, bool]:
        """``(string, bytes, ends_word)`` of a temporary id.

        Raises:
            KeyError: ``token_id`` is not one of these temporary ids.
        """
        k = token_id - self.first
        if not 0 <= k < len(self.tokens):
            raise KeyError(token_id)
        return self.tokens[k]

    def ids(self) -> range:
        """Every temporary id handed out so far."""
        return range(self.first, self.first + len(self.tokens))


class IdsWithTemporaries(list):
    """A list of token ids holding temporary ids, with the :class:`Temporaries` that explain them.

    :meth:`bpe_core.Tokenizer.encode` returns one (instead of a plain list)
    when the ``keep`` fallback handed out temporary ids, so that
    ``decode(encode(text))`` works; it compares equal to the plain list of the
    same ids. Slicing or copying gives a plain list (pass ``temporaries=`` to
    ``decode`` then).
    """

    temporaries: Temporaries

    def __init__(self, ids: Iterable[int], temporaries: Temporaries) -> None:
        super().__init__(ids)
        self.temporaries = temporaries


@dataclass(frozen=True)
class Alphabet:
    """The base symbols of one frozen vocabulary, as :class:`Speller` reads them.

    Attributes:
        byte_unit: True for the byte unit (256 byte symbols; nothing is unknown).
        char_ids: char unit: character -> its plain base symbol.
        byte_ids: byte unit: byte value -> its base symbol.
        final_ids: attached marker: base symbol -> its twin ``c</w>``.
        marker_id: separate marker: the id of ``</w>``.
        unk_id: the ``<unk>`` id (``unk`` fallback), else ``None``.
        byte_fallback_ids: the 256 ``<0xNN>`` ids (``bytes`` fallback), else empty.
        size: the vocabulary size: the first temporary id.
        plain_ids: the ids in ``char_ids`` (a character's plain symbol, not
            ``<unk>``, ``<0xNN>`` or a twin).
    """

    byte_unit: bool
    char_ids: dict[str, int] = field(hash=False)
    byte_ids: tuple[int, ...]
    final_ids: dict[int, int] = field(hash=False)
    marker_id: int | None
    unk_id: int | None
    byte_fallback_ids: tuple[int, ...]
    size: int
    plain_ids: frozenset[int] = field(hash=False)


class FallbackPolicy:
    """What a char-unit alphabet does with a character it never saw (one object per policy).

    Attributes:
        name: the public name (``"keep"``, ``"unk"``, ``"bytes"``).
        kind: the :class:`~bpe_core.trace.Fallback` kind it records.
        description: one line for help texts.
        temporary: True when an unseen character gets a temporary id (``keep``).
    """

    name = ""
    kind = ""
    description = ""
    temporary = False

    def install(self, table: SymbolTable) -> tuple[int | None, tuple[int, ...]]:
        """Append this policy's tokens to a char-unit table being built; return ``(unk_id, byte_fallback_ids)``."""
        return None, ()

    def keeps_twins(self) -> bool:
        """True when every base character gets its ``c</w>`` twin at construction (attached marker)."""
        return False

    def unknown(self, ch: str, alphabet: Alphabet, temporaries: Temporaries) -> list[int]:
        """The symbols standing for ``ch``, a character outside the alphabet."""
        raise NotImplementedError

    def tokens(self, ch: str) -> tuple[str, ...]:
        """The display strings of the tokens standing for the unseen character ``ch``."""
        return (ch,)

    def word_end(self, ch: str, alphabet: Alphabet) -> list[int]:
        """The symbols standing for a known word-final ``ch`` whose twin ``ch</w>`` does not exist."""
        return self.unknown(ch, alphabet, Temporaries(alphabet.size))

    def __repr__(self) -> str:
        return f"<fallback {self.name}>"


class KeepFallback(FallbackPolicy):
    """subword-nmt ``apply_bpe``: an unseen character is a symbol of its own, with a temporary id."""

    name = "keep"
    kind = "kept"
    description = OPTIONS["fallback"].choices["keep"]
    temporary = True

    def keeps_twins(self) -> bool:
        return True

    def unknown(self, ch: str, alphabet: Alphabet, temporaries: Temporaries) -> list[int]:
        return [temporaries.get(ch)]


class UnkFallback(FallbackPolicy):
    """An unseen character becomes ``<unk>`` (appended to the vocabulary, or the table's own)."""

    name = "unk"
    kind = "unk"
    description = OPTIONS["fallback"].choices["unk"]

    def install(self, table: SymbolTable) -> tuple[int | None, tuple[int, ...]]:
        unk = table.special_ids.get(UNK)
        if unk is None and UNK in table.strings:  # a learned "<unk>" (WikiText's literal)
            unk = table.strings.index(UNK)
        if unk is None:
            unk = table.add_token(UNK, "\ufffd".encode())
        return unk, ()

    def unknown(self, ch: str, alphabet: Alphabet, temporaries: Temporaries) -> list[int]:
        return [alphabet.unk_id]  # type: ignore[list-item]

    def tokens(self, ch: str) -> tuple[str, ...]:
        return (UNK,)


class BytesFallback(FallbackPolicy):
    """SentencePiece / Llama byte fallback: an unseen character is spelled as ``<0xNN>`` tokens."""

    name = "bytes"
    kind = "bytes"
    description = OPTIONS["fallback"].choices["bytes"]

    def install(self, table: SymbolTable) -> tuple[int | None, tuple[int, ...]]:
        return None, tuple(table.add_token(f"<0x{b:02X}>", bytes([b])) for b in range(256))

    def unknown(self, ch: str, alphabet: Alphabet, temporaries: Temporaries) -> list[int]:
        ids = alphabet.byte_fallback_ids
        return [ids[b] for b in utf8(ch)]

    def tokens(self, ch: str) -> tuple[str, ...]:
        return tuple(f"<0x{b:02X}>" for b in utf8(ch))


FALLBACK_POLICIES: dict[str, FallbackPolicy] = {p.name: p for p in (KeepFallback(), UnkFallback(), BytesFallback())}
"""Every fallback policy by name."""

FALLBACKS: Mapping[str, str] = OPTIONS["fallback"].choices
"""Every fallback for characters outside a char-level alphabet, with a one-line description (a view of OPTIONS)."""


def fallback_policy(name: str | FallbackPolicy) -> FallbackPolicy:
    """The :class:`FallbackPolicy` named ``name`` (a policy is returned as it is).

    Raises:
        OptionError: an unknown name, listing the known ones.
    """
    return mode_object("fallback", name, FALLBACK_POLICIES, FallbackPolicy)


class EndOfWordStyle:
    """How a word's spelling carries the end-of-word marker (one object per style)."""

    name: str | None = None

    def finish(self, syms: list[int], chunk: str, speller: Speller, temporaries: Temporaries, log: FallbackLog | None):
        """Put the marker on the spelled word ``syms`` (in place)."""

    def __repr__(self) -> str:
        return f"<end of word {self.name}>"


class SeparateMarker(EndOfWordStyle):
    """``</w>`` is a symbol of its own after the word (Sennrich et al. 2016, section 3.2)."""

    name = "separate"

    def finish(self, syms: list[int], chunk: str, speller: Speller, temporaries: Temporaries, log: FallbackLog | None):
        syms.append(speller.alphabet.marker_id)  # type: ignore[arg-type]


class AttachedMarker(EndOfWordStyle):
    """The marker is glued to the last base symbol, ``r</w>`` (subword-nmt >= 0.2, HF ``end_of_word_suffix``)."""

    name = "attached"

    def finish(self, syms: list[int], chunk: str, speller: Speller, temporaries: Temporaries, log: FallbackLog | None):
        if not syms:
            return
        alphabet = speller.alphabet
        last = syms[-1]
        twin = alphabet.final_ids.get(last)
        if twin is not None:
            syms[-1] = twin
        elif last >= alphabet.size:  # a temporary character (keep): its twin is temporary too
            syms[-1] = temporaries.get(chunk[-1], True)
        elif last in alphabet.plain_ids:  # a known character that never ended a word in training
            ch = chunk[-1]
            syms[-1:] = speller.policy.word_end(ch, alphabet)
            if log is not None:
                log.append((len(chunk) - 1, ch, speller.policy.kind))
        # else the last symbol is already a fallback token (<unk>, <0xNN>)


END_OF_WORD_STYLES: dict[str | None, EndOfWordStyle] = {
    None: EndOfWordStyle(),
    "separate": SeparateMarker(),
    "attached": AttachedMarker(),
}
"""Every end-of-word style by name (``None``: no marker)."""


@dataclass(frozen=True)
class Speller:
    """Spells pre-tokens in base symbols for one frozen vocabulary.

    Attributes:
        alphabet: the base symbols and fallback tokens.
        policy: the fallback for characters outside a char-unit alphabet.
        style: where the end-of-word marker goes.
    """

    alphabet: Alphabet
    policy: FallbackPolicy
    style: EndOfWordStyle

    def spell(self, chunk: str, temporaries: Temporaries | None = None, log: FallbackLog | None = None) -> list[int]:
        """The base symbols of ``chunk``, marker included.

        Args:
            chunk: one pre-token.
            temporaries: where the ``keep`` fallback takes temporary ids from;
                ``None`` starts a fresh set at the vocabulary size.
            log: if given, ``(offset, character, kind)`` is appended per
                character that fell back.

        Raises:
            OptionError: the chunk holds a lone surrogate (byte unit).
        """
        alphabet = self.alphabet
        if temporaries is None:
            temporaries = Temporaries(alphabet.size)
        if alphabet.byte_unit:
            try:
                syms = list(map(alphabet.byte_ids.__getitem__, chunk.encode("utf-8")))
            except UnicodeEncodeError as exc:
                raise OptionError(
                    f"text holds a lone surrogate {exc.object[exc.start]!r}, which has no UTF-8 bytes"
                ) from None
        else:
            try:
                syms = list(map(alphabet.char_ids.__getitem__, chunk))
            except KeyError:
                syms = self._spell_unknown(chunk, temporaries, log)
        self.style.finish(syms, chunk, self, temporaries, log)
        return syms

    def _spell_unknown(self, chunk: str, temporaries: Temporaries, log: FallbackLog | None) -> list[int]:
        """Char unit, a chunk with characters outside the alphabet: each one goes through the policy."""
        alphabet, policy = self.alphabet, self.policy
        get = alphabet.char_ids.get
        syms: list[int] = []
        for k, ch in enumerate(chunk):
            i = get(ch)
            if i is not None:
                syms.append(i)
                continue
            syms.extend(policy.unknown(ch, alphabet, temporaries))
            if log is not None:
                log.append((k, ch, policy.kind))
        return syms


def alphabet_of(table: SymbolTable, unk_id: int | None, byte_fallback_ids: Iterable[int]) -> Alphabet:
    """The :class:`Alphabet` of a finished table (its fallback tokens already appended)."""
    return Alphabet(
        byte_unit=table.byte_level,
        char_ids=dict(table.char_ids),
        byte_ids=tuple(table.byte_ids),
        final_ids=dict(table.final_ids),
        marker_id=table.marker_id,
        unk_id=unk_id,
        byte_fallback_ids=tuple(byte_fallback_ids),
        size=len(table),
        plain_ids=frozenset(table.char_ids.values()),
    )

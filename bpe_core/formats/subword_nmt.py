"""subword-nmt codes files: ``#version: 0.2`` then one merge ``left right`` per line.

Source of the format: subword-nmt ``learn_bpe.py`` (``--version 0.2`` header;
the end-of-word marker ``</w>`` is glued to each word's last character, so
merges read ``e r</w>``) and ``apply_bpe.py`` (class ``BPE``), which splits
input on spaces and applies the codes to each word. A file without the
header is version 0.1, where ``</w>`` is a symbol of its own; this package
writes one for ``end_of_word="separate"``.

The file has no ids, no alphabet and no settings: loading gives a char-unit
``whitespace_eow`` tokenizer whose ids come from the merges
(:meth:`~bpe_core.Tokenizer.from_merges`), so a round trip keeps the merges and
the segmentation (token strings), not the ids. Save a session file to keep ids.
"""

from __future__ import annotations

import re

from ..encoding.encoder import Tokenizer
from ..errors import MergeTableError, quote
from ..registry.pretokenizers import pretokenizer_spec
from ..text.spelling import Temporaries
from ..text.symbols import MARKER
from ._common import ExportError, FormatError, decode_text, describe_settings, whitespace_in_merges

VERSION_LINE = "#version: 0.2"
"""The header subword-nmt ``learn_bpe.py`` writes for the attached marker."""


def check_exportable(tok: Tokenizer) -> None:
    """Raise :class:`ExportError` unless ``tok`` is char-unit ``whitespace_eow`` with the ``keep`` fallback
    (what subword-nmt applies: unknown characters stay as they are)."""
    if tok.model.table.byte_level or not pretokenizer_spec(tok.pre_tokenizer.name).end_of_word:
        raise ExportError(
            "subword-nmt splits text on spaces and works on characters with the </w> marker; this tokenizer has "
            f"{describe_settings(tok)}; train with unit='char', pretokenizer='whitespace_eow' or save "
            "tokenizer.json or a session file instead"
        )
    if not tok.model.policy.temporary:
        raise ExportError(
            f"a subword-nmt codes file holds merges only, no vocabulary: apply_bpe keeps a character it never saw "
            f"as it is, where this tokenizer's {tok.model.fallback} fallback gives "
            f"{'<unk>' if tok.model.fallback == 'unk' else 'its <0xNN> bytes'}; use the keep fallback, or save "
            "tokenizer.json or a session file"
        )
    whitespace_in_merges(tok, "a subword-nmt codes file")


def to_subword_nmt(tok: Tokenizer) -> str:
    """The codes file for ``subword-nmt apply-bpe -c``.

    Returns:
        ``#version: 0.2`` then ``left right`` per line (marker attached), or,
        for a separate marker, the version 0.1 layout without a header.

    Raises:
        ExportError: another unit or pre-tokenizer, or a merge holding whitespace.
    """
    check_exportable(tok)
    header = VERSION_LINE + "\n" if tok.model.end_of_word == "attached" else ""
    return header + "".join(f"{a} {b}\n" for a, b in tok.model.merges)


def load_subword_nmt(text: str | bytes, *, source: str = "codes", name: str = "") -> Tokenizer:
    """Load a subword-nmt codes file as a char-unit ``whitespace_eow`` tokenizer.

    A ``#version: 0.2`` header (or later) means the marker is attached; no
    header means version 0.1, a separate ``</w>``.

    Args:
        text: the file's contents.
        source: the file name, for messages.
        name: a label.

    Raises:
        FormatError: an unsupported version, a line without exactly two
            symbols, or a rule using a symbol that no earlier line formed
            (each naming the line).
    """
    text = decode_text(text, source)
    lines = text.rstrip("\n").split("\n")
    first = 1
    end_of_word = "separate"
    if lines and lines[0].startswith("#version:"):
        version = lines[0].split()[-1]
        if version not in ("0.2", "0.2.0"):
            raise FormatError(f"{source}: line 1: version {quote(version)} is not supported; expected '#version: 0.2'")
        end_of_word = "attached"
        lines = lines[1:]
        first = 2
    merges: list[tuple[str, str]] = []
    for n, line in enumerate(lines, start=first):
        parts = line.strip("\r\n ").split(" ")
        if len(parts) != 2 or not parts[0] or not parts[1]:
            raise FormatError(
                f"{source}: line {n} holds {len(parts)} field{'s' if len(parts) != 1 else ''} ({quote(line)}); "
                "expected two subword units separated by one space"
            )
        merges.append((parts[0], parts[1]))
    if not merges and not text.strip():
        raise FormatError(f"{source}: the file is empty; expected '#version: 0.2' and one merge per line")
    try:
        return Tokenizer.from_merges(
            merges, pretokenizer="whitespace_eow", unit="char", end_of_word=end_of_word, name=name
        )
    except MergeTableError as exc:
        message = str(exc)
        rule = re.match(r"merge rule (\d+)", message)
        if rule:
            message = f"line {int(rule.group(1)) + first}: {message}"
        raise FormatError(f"{source}: {message}") from None


def _word_tokens(tok: Tokenizer, text: str) -> list[tuple[str, bool]]:
    """``(token string, ends a word)`` per token of ``text`` (temporary tokens included): the flag tells the
    end-of-word marker apart from typed text that spells ``</w>``, which the strings alone cannot."""
    temporaries = Temporaries(len(tok.model))
    ids = tok.encode(text, temporaries=temporaries)
    table = tok.model.table
    size = len(table)
    strings, ends = table.strings, table.ends_word
    return [(strings[i], ends[i]) if i < size else temporaries.token(i)[::2] for i in ids]  # (string, ends)


def segments(tok: Tokenizer, text: str, separator: str = "@@") -> list[str]:
    """``tok``'s segmentation written as ``subword-nmt apply-bpe`` prints it: ``["lo@@", "w", ...]``.

    Every subword but a word's last gets ``separator``; the ``</w>`` marker is
    dropped. Needs an end-of-word marker (``whitespace_eow``).

    Raises:
        ExportError: ``tok`` has no end-of-word marker.
    """
    if tok.model.end_of_word is None:
        raise ExportError("subword-nmt segments need word ends: use a whitespace_eow tokenizer")
    out: list[str] = []
    word: list[str] = []
    for s, end in _word_tokens(tok, text):
        if end:
            s = s[: -len(MARKER)]
            if s:
                word.append(s)
            out.extend(w + separator for w in word[:-1])
            out.extend(word[-1:])
            word = []
        else:
            word.append(s)
    out.extend(w + separator for w in word)
    return out

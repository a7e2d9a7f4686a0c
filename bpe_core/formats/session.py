"""BPE Explorer's own session file: a trained tokenizer with its settings and the corpus's hash.

The format (JSON, ``"format": "bpe-explorer-session"``, ``"version": 1``)::

    {
      "format": "bpe-explorer-session", "version": 1, "name": "trained",
      "corpus": {"sha256": "<hex of the corpus's UTF-8 bytes>", "name": "tinyshakespeare.txt",
                 "text": "..." (optional: the corpus itself, so the session opens where the text is not)} | null,
      "settings": {"pretokenizer", "unit", "end_of_word", "tie_break", "min_frequency",
                   "special_tokens", "num_merges", "vocab_size", "fallback", "pattern", "merge_by"},
      "stop_reason": str | null,
      "alphabet": ["a", "b", ...],          # char unit: base characters in id order (ids depend on it)
      "end_of_word_units": ["r", ...],      # attached marker: the units that have a "c</w>" twin
      "merges": [["l", "o"], ...],          # rank order, display strings (for people)
      "merge_ids": [[left, right, new], ...],  # the same merges as ids (what loading uses)
      "learned_size": 312                   # ids before any fallback token
    }

Loading rebuilds the exact symbol table (special tokens, alphabet, marker
twins, then one id per merge), so ids are those of the saved tokenizer.
Settings unknown for a tokenizer that was not trained here are ``null``.
Only tokenizers trained or built here can be saved this way; a loaded GPT-2
or tiktoken table keeps its own file format.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..encoding.encoder import FALLBACKS, Tokenizer
from ..errors import BPEError, MergeTableError, OptionError, quote
from ..registry.options import marker_style
from ..registry.tie_rules import TIE_BREAKS
from ..text.pretokenize import PRETOKENIZERS, REGEX_PATTERNS
from ..text.symbols import END_OF_WORD, UNITS, SymbolTable, unit_kind, utf8
from ..trace import TrainConfig
from ._common import ExportError, FormatError, check_pattern, decode_text, parse_json

if TYPE_CHECKING:
    from ..training.result import TrainResult

SESSION_FORMAT = "bpe-explorer-session"
"""The ``format`` field of a session file."""

SESSION_VERSION = 1
"""The session format version this module writes and reads."""


def corpus_sha256(corpus: str | Mapping[str, int]) -> str:
    """The hash a session stores for its corpus.

    Args:
        corpus: raw text (hashed as UTF-8, lone surrogates kept), or a
            word-frequency mapping (hashed as the compact JSON of its items in order).

    Returns:
        64 lowercase hex digits.
    """
    if isinstance(corpus, str):
        data = utf8(corpus)
    else:
        data = utf8(json.dumps(list(corpus.items()), ensure_ascii=False, separators=(",", ":")))
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Session:
    """A loaded session file.

    Attributes:
        tokenizer: the tokenizer, with the saved ids.
        config: the training settings, or ``None`` if the session was saved from a bare tokenizer.
        corpus_sha256: the corpus's hash (see :func:`corpus_sha256`), or ``None``.
        corpus_name: a label for the corpus, or ``None``.
        stop_reason: why training stopped early, or ``None``.
        name: the session's label.
        corpus_text: the corpus's text, when the file holds it (its hash is checked on loading), else ``None``.
    """

    tokenizer: Tokenizer
    config: TrainConfig | None
    corpus_sha256: str | None
    corpus_name: str | None
    stop_reason: str | None
    name: str
    corpus_text: str | None = None

    def matches(self, corpus: str | Mapping[str, int]) -> bool:
        """True when ``corpus`` is the one the session was trained on (same hash)."""
        return self.corpus_sha256 is not None and corpus_sha256(corpus) == self.corpus_sha256


def _base_layout(tok: Tokenizer) -> tuple[list[str], list[str | int]]:
    """``(alphabet, end_of_word_units)`` of a table laid out as training lays it out."""
    t = tok.model.table
    alphabet = (
        [t.strings[i] for i in range(t.num_special, t.num_base) if not t.ends_word[i]] if not t.byte_level else []
    )
    finals: list[str | int] = []
    for base, twin in sorted(t.final_ids.items()):
        if twin < t.num_base:
            finals.append(t.data[base][0] if t.byte_level else t.strings[base])
    return alphabet, finals


def _rebuild(
    unit: str,
    eow: str | None,
    specials: list[str],
    alphabet: list[str],
    finals: list[str | int],
    merge_ids: list[tuple[int, int, int]],
    fail: type[BPEError],
    source: str,
) -> SymbolTable:
    """The symbol table a session describes; ``fail`` is raised naming the field at fault."""
    try:
        table = SymbolTable(unit, eow, specials, chars=alphabet, final_units=finals)
    except KeyError as exc:
        raise fail(f"{source}: end_of_word_units holds {quote(exc.args[0])}, which is not in the alphabet") from None
    if len(table.char_ids) != len(alphabet):
        raise fail(f"{source}: the alphabet repeats a character")
    for k, (a, b, new) in enumerate(merge_ids):
        n = len(table)
        if not (0 <= a < n and 0 <= b < n):
            raise fail(f"{source}: merge_ids[{k}] = {[a, b, new]} names an id that does not exist yet (there are {n})")
        if new == n:
            table.add_merge(a, b)
        elif not (0 <= new < n and table.strings[new] == table.strings[a] + table.strings[b]):
            raise fail(
                f"{source}: merge_ids[{k}] = {[a, b, new]}: the new id must be {n} (a new token) or an earlier id "
                f"spelling {quote(table.strings[a] + table.strings[b])}"
            )
    return table


def to_session(
    source: TrainResult | Tokenizer,
    *,
    corpus: str | Mapping[str, int] | None = None,
    corpus_hash: str | None = None,
    corpus_name: str | None = None,
    name: str | None = None,
    corpus_text: str | None = None,
) -> str:
    """Write a session file.

    Args:
        source: a :class:`~bpe_core.TrainResult` (settings included) or a
            :class:`~bpe_core.Tokenizer` trained or built here (settings it
            does not know are written as ``null``).
        corpus: the training corpus, to store its hash; or give ``corpus_hash``.
        corpus_hash: the corpus's :func:`corpus_sha256`, if already known.
        corpus_name: a label for the corpus.
        name: the session's label (default: the tokenizer's name).
        corpus_text: the corpus's text, stored whole under ``corpus.text`` (its hash is taken from it), so
            the session can be opened where the text is not: a pasted text too long for a link.

    Returns:
        The JSON text.

    Raises:
        ExportError: the tokenizer's table is not laid out as training lays it
            out (a loaded GPT-2 / tiktoken / tokenizer.json table).
    """
    if isinstance(source, Tokenizer):
        tok, config, stop = source, None, None
    else:
        tok, config, stop = source.tokenizer, source.config, source.stop_reason
    alphabet, finals = _base_layout(tok)
    model, t = tok.model, tok.model.table
    specials = list(t.special_ids)
    learned = model.num_learned
    try:
        rebuilt = _rebuild(
            model.unit, model.end_of_word, specials, alphabet, finals, model.merge_ids, ExportError, "session"
        )
    except ExportError:
        rebuilt = None
    if rebuilt is None or rebuilt.strings != t.strings[:learned] or rebuilt.data != t.data[:learned]:
        raise ExportError(
            "a session file holds tokenizers trained or built here (special tokens, alphabet, then merges); "
            "this one has its own id layout, so save it in its own format (GPT-2 files, tiktoken, tokenizer.json)"
        )
    if corpus_text is not None:
        corpus = corpus_text
    if corpus is not None:
        corpus_hash = corpus_sha256(corpus)
    default_pattern = REGEX_PATTERNS.get(tok.pre_tokenizer.name)
    settings = {
        "pretokenizer": tok.pre_tokenizer.name,
        "unit": tok.model.unit,
        "end_of_word": config.end_of_word if config else (tok.model.end_of_word or "separate"),
        "tie_break": config.tie_break if config else None,
        "min_frequency": config.min_frequency if config else None,
        "special_tokens": specials,
        "num_merges": config.num_merges if config else len(tok.model.merge_ids),
        "vocab_size": config.vocab_size if config else None,
        "fallback": tok.model.fallback,
        "pattern": tok.pre_tokenizer.pattern if tok.pre_tokenizer.pattern != default_pattern else None,
        "merge_by": tok.model.merge_by,
    }
    doc = {
        "format": SESSION_FORMAT,
        "version": SESSION_VERSION,
        "name": name if name is not None else tok.name,
        "corpus": None if corpus_hash is None else _corpus_entry(corpus_hash, corpus_name, corpus_text),
        "settings": settings,
        "stop_reason": stop,
        "alphabet": alphabet,
        "end_of_word_units": finals,
        "merges": [list(m) for m in tok.model.merges],
        "merge_ids": [list(m) for m in tok.model.merge_ids],
        "learned_size": learned,
    }
    return json.dumps(doc, ensure_ascii=False, indent=1) + "\n"


def _corpus_entry(sha256: str, name: str | None, text: str | None) -> dict[str, str | None]:
    """The ``corpus`` object of a session file (``text`` only when given)."""
    return {"sha256": sha256, "name": name} | ({"text": text} if text is not None else {})


def _get(doc: dict, key: str, kind: type | tuple[type, ...], source: str, *, null: bool = False) -> object:
    if key not in doc:
        raise FormatError(f"{source}: the field {quote(key)} is missing")
    value = doc[key]
    if value is None and null:
        return None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise FormatError(f"{source}: the field {quote(key)} has the wrong type ({type(value).__name__})")
    return value


def _choice(value: object, key: str, allowed: Mapping[str, str], source: str) -> str:
    if value not in allowed:
        raise FormatError(f"{source}: settings.{key} is {quote(value)}; expected one of: {', '.join(allowed)}")
    return value  # type: ignore[return-value]


def load_session(text: str | bytes, *, source: str = "session.json") -> Session:
    """Read a session file back into a tokenizer with the saved ids.

    Args:
        text: the file's content (UTF-8 JSON written by :func:`to_session`).
        source: the file name, for messages.

    Returns:
        A :class:`Session`: the tokenizer, the saved settings and merge table,
        the corpus hash and name, and the stop reason of the run.

    Raises:
        FormatError: invalid or truncated JSON (line and column), another
            ``format``/``version``, a missing or mistyped field (named), a bad
            setting value, or merges that do not fit the alphabet (naming
            ``merge_ids[k]`` / ``merges[k]``).
    """
    doc = _read_doc(text, source)
    s = _read_settings(doc, source)
    alphabet, finals, merge_ids, merges = _read_table(doc, s["unit"], source)
    if s["pattern"] is not None:
        check_pattern(s["pattern"], source, "settings.pattern")
    eow = marker_style(s["pretokenizer"], s["end_of_word"])
    table = _rebuild(s["unit"], eow, list(s["special_tokens"]), alphabet, finals, merge_ids, FormatError, source)
    for k, (item, (a, b, _new)) in enumerate(zip(merges, merge_ids)):
        if item != [table.strings[a], table.strings[b]]:
            raise FormatError(
                f"{source}: merges[{k}] is {quote(item)} but merge_ids[{k}] spells "
                f"{quote([table.strings[a], table.strings[b]])}"
            )
    learned = doc.get("learned_size")
    if learned is not None and learned != len(table):
        raise FormatError(f"{source}: learned_size is {quote(learned)} but the merges give {len(table)} ids")
    try:
        tok = Tokenizer(
            table,
            merge_ids,
            pretokenizer=s["pretokenizer"],
            fallback=s["fallback"],
            pattern=s["pattern"],
            name=str(doc.get("name") or ""),
            merge_by=s["merge_by"],
        )
    except (MergeTableError, OptionError) as exc:
        raise FormatError(f"{source}: {exc}") from None
    config = None
    if s["tie_break"] is not None and s["min_frequency"] is not None:
        config = TrainConfig(**{key: s[key] for key in _CONFIG_KEYS}, special_tokens=tuple(s["special_tokens"]))
    corpus = doc.get("corpus")
    if corpus is not None and (not isinstance(corpus, dict) or not isinstance(corpus.get("sha256"), str)):
        raise FormatError(f"{source}: the field 'corpus' must be null or hold a 'sha256' string")
    text = _read_corpus_text(corpus, source)
    stop = doc.get("stop_reason")
    return Session(
        tokenizer=tok,
        config=config,
        corpus_sha256=corpus["sha256"] if corpus else None,
        corpus_name=(corpus.get("name") if corpus else None),
        stop_reason=stop if isinstance(stop, str) else None,
        name=str(doc.get("name") or ""),
        corpus_text=text,
    )


def _read_corpus_text(corpus: dict | None, source: str) -> str | None:
    """The corpus text a session file holds (``corpus.text``), or ``None``.

    Raises:
        FormatError: ``text`` is not a string, or its hash is not the file's ``corpus.sha256``.
    """
    text = corpus.get("text") if corpus else None
    if text is None:
        return None
    if not isinstance(text, str):
        raise FormatError(f"{source}: the field 'corpus.text' must be a string")
    if corpus_sha256(text) != corpus["sha256"]:  # type: ignore[index]
        raise FormatError(f"{source}: corpus.text does not hash to corpus.sha256: the file was changed or cut")
    return text


_CONFIG_KEYS = ("pretokenizer", "unit", "end_of_word", "tie_break", "min_frequency", "num_merges", "vocab_size")
"""The saved settings that make up a :class:`~bpe_core.trace.TrainConfig` (with the special tokens)."""


def _read_doc(text: str | bytes, source: str) -> dict:
    """The session file's JSON object, after checking its ``format`` and ``version``.

    Raises:
        FormatError: invalid JSON, another format or an unsupported version.
    """
    doc = parse_json(decode_text(text, source), source)
    if not isinstance(doc, dict) or doc.get("format") != SESSION_FORMAT:
        raise FormatError(f'{source}: expected a JSON object with "format": "{SESSION_FORMAT}"')
    if doc.get("version") != SESSION_VERSION:
        raise FormatError(
            f"{source}: session version {quote(doc.get('version'))} is not supported; expected {SESSION_VERSION}"
        )
    return doc


def _read_settings(doc: dict, source: str) -> dict[str, Any]:
    """The ``settings`` object, each value type-checked and each named option one of its allowed values.

    ``tie_break``, ``min_frequency``, ``num_merges``, ``vocab_size`` and
    ``pattern`` may be ``null`` (a tokenizer loaded from another format).

    Raises:
        FormatError: a missing or mistyped field, or a value outside the option's choices.
    """
    s = _get(doc, "settings", dict, source)
    assert isinstance(s, dict)
    where = f"{source} settings"
    out: dict[str, Any] = {
        key: _choice(_get(s, key, str, where), key, allowed, source)
        for key, allowed in (
            ("pretokenizer", PRETOKENIZERS),
            ("unit", UNITS),
            ("end_of_word", END_OF_WORD),
            ("fallback", FALLBACKS),
            ("merge_by", {"pair": "", "bytes": ""}),
        )
    }
    out["tie_break"] = tie_break = _get(s, "tie_break", str, where, null=True)
    if tie_break is not None:
        _choice(tie_break, "tie_break", TIE_BREAKS, source)
    for key in ("min_frequency", "num_merges", "vocab_size"):
        out[key] = _get(s, key, int, where, null=True)
    out["pattern"] = _get(s, "pattern", str, where, null=True)
    out["special_tokens"] = specials = _get(s, "special_tokens", list, where)
    if not all(isinstance(x, str) and x for x in specials):  # type: ignore[union-attr]
        raise FormatError(f"{source}: settings.special_tokens must be a list of non-empty strings")
    return out


def _read_table(doc: dict, unit: str, source: str) -> tuple[list, list, list[tuple[int, int, int]], list]:
    """``(alphabet, end_of_word_units, merge_ids, merges)`` of a session file, each type-checked.

    Raises:
        FormatError: a missing or mistyped field, a malformed ``merge_ids[k]``,
            or ``merges`` and ``merge_ids`` of different lengths.
    """
    alphabet = _get(doc, "alphabet", list, source)
    if not all(isinstance(x, str) and len(x) == 1 for x in alphabet):  # type: ignore[union-attr]
        raise FormatError(f"{source}: the field 'alphabet' must list single characters")
    finals = _get(doc, "end_of_word_units", list, source)
    unit_type = int if unit_kind(unit).byte_level else str
    if not all(isinstance(x, unit_type) and not isinstance(x, bool) for x in finals):  # type: ignore[union-attr]
        raise FormatError(f"{source}: the field 'end_of_word_units' must list {unit_type.__name__} values")
    raw_ids = _get(doc, "merge_ids", list, source)
    merge_ids: list[tuple[int, int, int]] = []
    for k, item in enumerate(raw_ids):  # type: ignore[arg-type]
        if not (isinstance(item, list) and len(item) == 3 and all(type(x) is int for x in item)):
            raise FormatError(f"{source}: merge_ids[{k}] is {quote(item)}; expected [left_id, right_id, new_id]")
        merge_ids.append((item[0], item[1], item[2]))
    merges = _get(doc, "merges", list, source)
    if len(merges) != len(merge_ids):  # type: ignore[arg-type]
        raise FormatError(f"{source}: 'merges' has {len(merges)} entries but 'merge_ids' has {len(merge_ids)}")  # type: ignore[arg-type]
    return list(alphabet), list(finals), merge_ids, list(merges)  # type: ignore[arg-type]

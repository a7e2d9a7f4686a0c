"""Helpers shared by the format modules: errors, text and JSON reading, the generic vocabulary builder.

Nothing here executes or unpickles input: files are read as UTF-8 text, JSON
(``json.loads``), base64 or zip members, and every value is type-checked.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from os import PathLike
from pathlib import Path

import regex

from ..encoding.encoder import Tokenizer
from ..errors import MergeTableError, OptionError, PatternError, quote
from ..registry.pretokenizers import PRETOKENIZER_SPECS, PreTokenizerSpec, pretokenizer_spec, spec_for_pattern
from ..registry.pretokenizers import PY_WHITESPACE as PY_WHITESPACE  # re-exported: defined with the whitespace specs
from ..registry.pretokenizers import WHITESPACE_RUN as WHITESPACE_RUN
from ..registry.pretokenizers import WHOLE_TEXT_PATTERN as WHOLE_TEXT_PATTERN
from ..registry.pretokenizers import WORD_PATTERN as WORD_PATTERN
from ..text.byte_level import bytes_to_unicode
from ..text.pretokenize import compiled_pattern
from ..text.symbols import MARKER, SymbolTable, unit_kind, utf8

Source = str | PathLike[str]
"""A file path (``str`` or :class:`pathlib.Path`)."""


class FormatError(MergeTableError):
    """A file cannot be read as the format it claims, or its format is not recognised.

    The message names the file and the line, key or field at fault.
    """


class ExportError(OptionError):
    """A tokenizer's settings cannot be written in the requested format without changing its ids.

    The message names the setting and the formats that can hold it.
    """


# ---------------------------------------------------------------- whitespace and split patterns


def check_pattern(pattern: str, source: str, field: str) -> str:
    """Compile a split pattern read from a file, so a bad one fails at load time, not at the first encode.

    Args:
        pattern: the pattern text (``regex`` package syntax, as tiktoken's ``pat_str``).
        source: the file name, for the message.
        field: where in the file the pattern stood (``pat_str``, ``pre_tokenizer.pattern.Regex``).

    Returns:
        ``pattern`` unchanged.

    Raises:
        FormatError: the pattern does not compile; the message names the file and field.
    """
    try:
        compiled_pattern(pattern)
    except regex.error as exc:
        raise FormatError(
            f"{source}: the split pattern in {field} does not compile ({exc}): {quote(pattern)}"
        ) from None
    except PatternError as exc:
        raise FormatError(f"{source}: {field}: {exc}") from None
    return pattern


def pretokenizer_for_pattern(
    pattern: str, specs: Mapping[str, PreTokenizerSpec] = PRETOKENIZER_SPECS
) -> tuple[str, str | None]:
    """Map a split pattern read from a file to ``(pretokenizer, pattern override)`` for :class:`~bpe_core.Tokenizer`.

    A pattern that is exactly a pre-tokenizer's tiktoken pattern
    (:attr:`~bpe_core.registry.pretokenizers.PreTokenizerSpec.tiktoken_pattern`: GPT-2's, cl100k's, Llama 3's, the
    whitespace and whole-text patterns) maps to that pre-tokenizer's name; any other pattern is kept as an
    override under the ``gpt4`` label (if it caps digit runs at three, as cl100k does) or ``gpt2``.

    Args:
        pattern: the pattern (a plain ``str``, or an :class:`~bpe_core.text.pretokenize.HFSplit`, never recognised).
        specs: the pre-tokenizer registry to recognise from.
    """
    known = spec_for_pattern(pattern, specs)
    if known is not None:
        return known, None
    return ("gpt4" if r"\p{N}{1,3}" in pattern else "gpt2"), pattern


def split_pattern(tok: Tokenizer) -> str | None:
    """The regex whose matches are ``tok``'s pre-tokens (tiktoken's ``pat_str``), or ``None`` when there is
    none (``trailing_space``, ``whitespace_eow``): a regex pre-tokenizer's pattern, else its spec's tiktoken one."""
    spec = pretokenizer_spec(tok.pre_tokenizer.name)
    return tok.pre_tokenizer.pattern if spec.is_regex else spec.tiktoken_pattern


# ---------------------------------------------------------------- reading


def read_file(path: Source) -> bytes:
    """The bytes of a file (``OSError`` if it cannot be read)."""
    return Path(path).read_bytes()


def decode_text(data: bytes, source: str) -> str:
    """UTF-8 text of a file (a leading BOM dropped).

    Raises:
        FormatError: the bytes are not UTF-8, naming the line and byte offset.
    """
    if isinstance(data, str):
        return data
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"{source}: expected bytes or str, got {type(data).__name__}")
    data = bytes(data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise FormatError(
            f"{source}: line {line}: not UTF-8 text (byte {exc.start} is 0x{data[exc.start]:02X}); "
            "expected a UTF-8 text file"
        ) from None
    return text[1:] if text.startswith("\ufeff") else text


class DuplicateKeyError(FormatError):
    """A JSON object of a file names one key twice (``{"a": 0, "a": 1}``); the message names the key."""


def _no_duplicate_keys(source: str) -> Callable[[list[tuple[str, object]]], dict[str, object]]:
    def hook(pairs: list[tuple[str, object]]) -> dict[str, object]:
        out = dict(pairs)
        if len(out) < len(pairs):
            seen: set[str] = set()
            for key, _value in pairs:
                if key in seen:
                    break
                seen.add(key)
            raise DuplicateKeyError(
                f"{source}: a JSON object repeats the key {quote(key)}; each key may appear once "
                "(a JSON reader would silently keep the last value)"
            )
        return out

    return hook


def parse_json(text: str, source: str) -> object:
    """Parse JSON, refusing repeated keys (``json.loads`` would silently keep the last).

    Raises:
        FormatError: invalid or truncated JSON, naming line and column; a key repeated in one
            object (:class:`DuplicateKeyError`, naming the key); JSON nested too deeply, or a
            number of more than 4,300 digits.
    """
    try:
        return json.loads(text, object_pairs_hook=_no_duplicate_keys(source))
    except json.JSONDecodeError as exc:
        hint = " (the file looks truncated)" if exc.pos >= len(text.rstrip()) else ""
        raise FormatError(
            f"{source}: not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}{hint}"
        ) from None
    except RecursionError:
        raise FormatError(f"{source}: the JSON is nested too deeply to be a tokenizer file") from None
    except FormatError:
        raise  # the hook's own error (a repeated key) is a ValueError too: it must not pass for the number's
    except ValueError as exc:
        if "digits" not in str(exc):  # Python: "Exceeds the limit (4300 digits) for integer string conversion"
            raise FormatError(f"{source}: the JSON cannot be read ({quote(str(exc))})") from None
        raise FormatError(f"{source}: the JSON holds a number of more than 4,300 digits; no id is that long") from None


def field(obj: object, path: str, source: str, kind: type | tuple[type, ...], *, optional: bool = False) -> object:
    """Look up a dotted field (``"model.vocab"``) in parsed JSON and check its type.

    Raises:
        FormatError: the field is missing or has the wrong type, naming it.
    """
    value = obj
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            if optional:
                return None
            raise FormatError(f"{source}: the field {quote(path)} is missing")
        value = value[part]
    if value is None and optional:
        return None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise FormatError(f"{source}: the field {quote(path)} must be {names}, got {type(value).__name__}")
    return value


# ---------------------------------------------------------------- byte-level strings

_TO_LATIN1 = {ord(ch): chr(b) for b, ch in bytes_to_unicode().items()}
for _c in range(256):
    _TO_LATIN1.setdefault(_c, "\uffff")  # a character below U+0100 outside the alphabet must not pass through
_FROM_LATIN1 = {b: ch for b, ch in bytes_to_unicode().items()}


def rendered_to_bytes(text: str) -> bytes:
    """GPT-2 byte-to-unicode string -> bytes (``"Ġhi"`` -> ``b" hi"``).

    Raises:
        KeyError: a character is outside the byte-level alphabet (callers name the file and token).
    """
    try:
        return text.translate(_TO_LATIN1).encode("latin-1")
    except UnicodeEncodeError:
        alphabet = _TO_LATIN1
        bad = next(c for c in text if ord(c) > 0x143 or alphabet.get(ord(c), "\uffff") == "\uffff")
        raise KeyError(bad) from None


def render_many(tokens: Sequence[bytes]) -> list[str]:
    """Render many byte strings in GPT-2's byte-to-unicode alphabet at once (fast path for 100k tokens)."""
    joined = b"".join(tokens).decode("latin-1").translate(_FROM_LATIN1)
    out = []
    pos = 0
    for t in tokens:
        end = pos + len(t)
        out.append(joined[pos:end])
        pos = end
    return out


# ---------------------------------------------------------------- building a tokenizer from an explicit vocabulary


MAX_SUSPECT_LENGTH = 64
"""The longest unformed token that :func:`_reject_missing_merges` examines, in characters."""


def _reject_missing_merges(guessed: Iterable[str], vocab: Mapping[str, int], source: str, what: str) -> None:
    """Refuse a table whose "special tokens" look like merges cut off the end of its merge list.

    Special tokens are guessed as the tokens no merge forms. A truncated
    ``merges.txt`` turns every token of its lost lines into such a guess; a
    real special token (``<|endoftext|>``) is almost never two tokens of the
    vocabulary with lower ids glued together, while a lost merge's token always is.

    Only tokens of at most :data:`MAX_SUSPECT_LENGTH` characters are examined,
    and only cuts whose two sides have lengths that some token has, so the
    check is linear in the vocabulary's size (a lost merge's token is short).

    Raises:
        FormatError: some guessed special token is two lower-id vocabulary tokens joined.
    """
    length_set = {len(s) for s in vocab}
    suspects = []
    for s in guessed:
        n = len(s)
        if n > MAX_SUSPECT_LENGTH:
            continue
        i = vocab[s]
        cuts = (k for k in range(1, n) if k in length_set and n - k in length_set)
        if any(vocab.get(s[:k], i) < i and vocab.get(s[k:], i) < i for k in cuts):
            suspects.append((i, s))
    if suspects:
        suspects.sort()
        first = ", ".join(f"{quote(s)} (id {i})" for i, s in suspects[:3])
        raise FormatError(
            f"{source}: {len(suspects)} token(s) of the vocabulary, e.g. {first}, are formed by no merge although "
            f"they are two lower-id tokens joined: the {what} look truncated or incomplete (pass the special "
            "tokens explicitly if these really are special)"
        )


MAX_ID_GAPS = 1024
"""Ids may leave gaps (cl100k_base has no token 100256), but stay below twice the token count plus this."""


def check_dense_ids(count: int, top: int, name_of: Callable[[int], str | bytes], source: str) -> None:
    """Refuse ids far beyond a file's token count, before any table is built.

    A vocabulary keeps one entry per id up to the largest, so a 74-byte file
    giving one token the id 10**8 would cost gigabytes; memory must follow the
    file, so the largest id must stay below ``2 * count + MAX_ID_GAPS``.

    Args:
        count: how many tokens (ids) the file holds.
        top: the largest id.
        name_of: id -> the token's text (or bytes), for the message.
        source: the file name, for messages.

    Raises:
        FormatError: naming the token with the largest id, the id, the token count and the limit.
    """
    limit = 2 * count + MAX_ID_GAPS
    if top >= limit:
        number = f"{top:,}" if top < 10**15 else f"a number of {len(str(top)):,} digits"
        raise FormatError(
            f"{source}: token {quote(name_of(top))} has id {number}, but the file holds only {count:,} tokens; ids "
            f"may leave gaps but must stay below {limit:,} (twice the token count plus {MAX_ID_GAPS:,}), because a "
            "vocabulary keeps one entry for every id up to the largest"
        )


def fallback_tokens() -> tuple[str, list[str]]:
    """The strings ``<unk>`` and ``<0x00>``..``<0xFF>`` that char-unit fallbacks add (:data:`bpe_core.FALLBACKS`)."""
    return "<unk>", [f"<0x{b:02X}>" for b in range(256)]


def infer_unit(vocab: Mapping[str, int], specials: Iterable[str]) -> str:
    """``"byte"`` when a vocabulary looks byte-level (GPT-2 alphabet), else ``"char"``.

    Byte-level: every non-special token is written in GPT-2's byte-to-unicode
    alphabet, and at least 200 of the 256 single bytes are tokens or some token
    holds ``Ġ`` (a space, which a character-level vocabulary split on whitespace
    never holds). Pass ``unit=`` to the loaders to decide otherwise.
    """
    skip = set(specials)
    alphabet = _TO_LATIN1
    space = False
    for s in vocab:
        if s in skip:
            continue
        core = s[: -len(MARKER)] if s.endswith(MARKER) and len(s) > len(MARKER) else s
        for c in core:
            o = ord(c)
            if o > 0x143 or alphabet.get(o, "\uffff") == "\uffff":
                return "char"
        space = space or "\u0120" in core
    singles = sum(1 for ch in bytes_to_unicode().values() if ch in vocab)
    return "byte" if space or singles >= 200 else "char"


def infer_end_of_word(vocab: Mapping[str, int], merges: Sequence[tuple[str, str]]) -> str | None:
    """``"separate"`` if a merge uses ``</w>`` as a symbol, ``"attached"`` if tokens end with it, else ``None``."""
    if any(MARKER in (a, b) for a, b in merges):
        return "separate"
    if any(s.endswith(MARKER) and len(s) > len(MARKER) for s in vocab):
        return "attached"
    return None


def tokenizer_from_vocab(
    vocab: Mapping[str, int],
    merges: Sequence[tuple[str, str]],
    *,
    unit: str,
    end_of_word: str | None,
    pretokenizer: str,
    pattern: str | None = None,
    specials: Iterable[str] | None = None,
    fallback: str | None = None,
    merge_by: str = "pair",
    name: str = "",
    source: str,
    where: Callable[[int], str],
) -> Tokenizer:
    """Build a :class:`~bpe_core.Tokenizer` that keeps a file's ids exactly.

    Args:
        vocab: token string -> id (byte unit: GPT-2 byte-to-unicode strings;
            ``</w>`` ends the strings that hold the end-of-word marker).
        merges: ``(left, right)`` display strings in rank order.
        unit, end_of_word, pretokenizer, pattern: the settings.
        specials: the special tokens among ``vocab``; ``None`` infers them as the
            tokens that are neither base symbols nor formed by a merge.
        fallback: char unit: ``None`` infers it from the ``<unk>`` / ``<0xNN>``
            tokens at the top of the vocabulary (as :class:`~bpe_core.Tokenizer`
            appends them), else ``"keep"``.
        merge_by: ``"pair"`` or ``"bytes"``.
        name: a label.
        source: the file name, for messages.
        where: merge index -> where it is in the file (``"line 7"``, ``"model.merges[5]"``).

    Raises:
        FormatError: a bad id, a merge naming a token outside the vocabulary, a
            token outside the byte-level alphabet, a repeated merge.
        MergeTableError: byte unit and single bytes are missing (listed).
    """
    by_id = _ids_to_tokens(vocab, source)
    merge_ids, formed = _merge_triples(vocab, merges, source, where)
    explicit = None if specials is None else set(specials)
    fallback, drop = _trailing_fallback(vocab, unit, fallback, formed, explicit, max(by_id, default=-1), source)
    if explicit is None:
        explicit = {s for s, i in vocab.items() if i not in drop and s not in formed and not _is_base(s, end_of_word)}
        _reject_missing_merges(explicit, vocab, source, "merges")
    special_ids = {s: vocab[s] for s in explicit if s in vocab and vocab[s] not in drop}
    for s in explicit:
        if s not in vocab:
            raise FormatError(f"{source}: the special token {quote(s)} is not in the vocabulary")
    special_set = set(special_ids.values())
    skip = drop | special_set
    tokens, ends_word = _token_bytes(by_id, skip, unit, end_of_word, source)
    table = SymbolTable.from_vocab(
        tokens, unit=unit, end_of_word=end_of_word, specials=special_ids, ends_word=ends_word
    )
    for k, (_a, _b, new) in enumerate(merge_ids):
        if new in skip:
            raise FormatError(f"{source}: {where(k)}: the merge forms {quote(by_id[new])}, a special or fallback token")
    try:
        return Tokenizer(
            table,
            merge_ids,
            pretokenizer=pretokenizer,
            fallback=fallback,
            pattern=pattern,
            name=name,
            merge_by=merge_by,
        )
    except MergeTableError as exc:
        raise FormatError(f"{source}: {exc}") from None


def _ids_to_tokens(vocab: Mapping[str, int], source: str) -> dict[int, str]:
    """Id -> token string of a file's vocabulary, checking each entry and that the ids are dense enough.

    Raises:
        FormatError: an empty or non-string token, a bad id, two tokens sharing an id, or too many id gaps.
    """
    by_id: dict[int, str] = {}
    for s, i in vocab.items():
        if not isinstance(s, str) or not s:
            raise FormatError(f"{source}: the vocabulary holds an empty or non-string token {quote(s)}")
        if isinstance(i, bool) or not isinstance(i, int) or i < 0:
            raise FormatError(f"{source}: token {quote(s)} has id {quote(i)}; ids must be non-negative integers")
        if i in by_id:
            raise FormatError(f"{source}: tokens {quote(by_id[i])} and {quote(s)} share id {i}")
        by_id[i] = s
    check_dense_ids(len(by_id), max(by_id, default=-1), by_id.__getitem__, source)
    return by_id


def _merge_triples(
    vocab: Mapping[str, int], merges: Sequence[tuple[str, str]], source: str, where: Callable[[int], str]
) -> tuple[list[tuple[int, int, int]], set[str]]:
    """``([(left id, right id, merged id), ...], the merged strings)`` of a file's merges, in rank order.

    Raises:
        FormatError: a merge naming a token (or forming one) outside the vocabulary.
    """
    merge_ids: list[tuple[int, int, int]] = []
    formed: set[str] = set()
    for k, (left, right) in enumerate(merges):
        merged = left + right
        for part in (left, right, merged):
            if part not in vocab:
                raise FormatError(
                    f"{source}: {where(k)}: the merge ({quote(left)}, {quote(right)}) needs {quote(part)}, which is "
                    "not in the vocabulary"
                )
        formed.add(merged)
        merge_ids.append((vocab[left], vocab[right], vocab[merged]))
    return merge_ids, formed


def _is_base(token: str, end_of_word: str | None) -> bool:
    """True for a base symbol: one character, its ``c</w>`` twin, or the separate marker itself."""
    core = token[: -len(MARKER)] if end_of_word is not None and token.endswith(MARKER) else token
    return len(core) == 1 or (end_of_word == "separate" and token == MARKER)


def _trailing_fallback(
    vocab: Mapping[str, int],
    unit: str,
    fallback: str | None,
    formed: set[str],
    explicit: set[str] | None,
    top: int,
    source: str,
) -> tuple[str, set[int]]:
    """``(fallback, ids to drop)``: the fallback a char-unit file uses and the trailing tokens it appended.

    :class:`~bpe_core.Tokenizer` appends ``<unk>`` or ``<0x00>``..``<0xFF>``
    after the learned table; those ids are dropped here so that building the
    tokenizer appends them again at the same ids. ``fallback=None`` infers the
    fallback from them. The byte unit never falls back (``"keep"``).

    Raises:
        FormatError: the fallback's tokens are in the vocabulary but not at its top, in order.
    """
    if unit_kind(unit).byte_level:
        return "keep", set()
    unk, byte_tokens = fallback_tokens()
    trailing_unk = unk in vocab and vocab[unk] == top and unk not in formed
    trailing_bytes = all(vocab.get(t) == top - 255 + b for b, t in enumerate(byte_tokens))
    if fallback is None:
        fallback = "unk" if trailing_unk else "bytes" if trailing_bytes else "keep"
    if explicit is not None and unk in explicit:
        return fallback, set()
    if fallback == "unk" and trailing_unk:
        return fallback, {top}
    if fallback == "bytes" and trailing_bytes:
        return fallback, set(range(top - 255, top + 1))
    if fallback == "unk" and unk in formed:
        return fallback, set()  # a learned "<unk>" (WikiText's literal text) is also the unknown token, as in HF
    if fallback in ("unk", "bytes") and (unk in vocab if fallback == "unk" else byte_tokens[0] in vocab):
        raise FormatError(
            f"{source}: the {quote(fallback)} fallback tokens must have the highest ids ({quote(unk)}, or "
            "<0x00>..<0xFF> in order), as bpe_core appends them"
        )
    return fallback, set()


def _token_bytes(
    by_id: Mapping[int, str], skip: set[int], unit: str, end_of_word: str | None, source: str
) -> tuple[dict[int, tuple[str, bytes]], list[int]]:
    """``({id: (string, bytes)}, ids ending a word)`` for every id not in ``skip``.

    A byte-unit token's string is read through GPT-2's byte-to-unicode
    alphabet; a token ending in ``</w>`` (when the file has a marker) gets a
    trailing space byte and is listed as ending a word.

    Raises:
        FormatError: a byte-unit token holding a character outside GPT-2's alphabet.
    """
    tokens: dict[int, tuple[str, bytes]] = {}
    ends_word: list[int] = []
    byte_level = unit_kind(unit).byte_level
    for i, s in by_id.items():
        if i in skip:
            continue
        marked = end_of_word is not None and s.endswith(MARKER)
        core = s[: -len(MARKER)] if marked else s
        if byte_level:
            try:
                raw = rendered_to_bytes(core)
            except KeyError as exc:
                raise FormatError(
                    f"{source}: token {quote(s)} (id {i}) holds {quote(exc.args[0])}, which is not in GPT-2's "
                    "byte-to-unicode alphabet; a byte-level vocabulary writes every byte as one of its 256 characters"
                ) from None
        else:
            raw = utf8(core)
        if marked:
            raw += b" "
            ends_word.append(i)
        tokens[i] = (s, raw)
    return tokens, ends_word


# ---------------------------------------------------------------- exporting


def learned_ids(tok: Tokenizer) -> range:
    """The ids a file should hold: the learned table with its end-of-word twins, plus ``<unk>``/``<0xNN>``
    fallback tokens, but not characters that ``fallback="keep"`` added while encoding."""
    return range(tok.model.num_saved) if tok.model.policy.temporary else range(len(tok.model.table))


def unique_vocab(tok: Tokenizer, fmt: str) -> dict[str, int]:
    """Token string -> id for every exported id, refusing strings that two ids share.

    Raises:
        ExportError: two ids share a string (a file mapping strings to ids
            cannot keep both), naming them.
    """
    strings = tok.model.table.strings
    gaps = tok.model.table.gaps
    out: dict[str, int] = {}
    for i in learned_ids(tok):
        if i in gaps:
            continue
        s = strings[i]
        if s in out:
            raise ExportError(
                f"{fmt} maps each token string to one id, but {quote(s)} has two ids, {out[s]} and {i} "
                f"({_why_twice(tok, out[s], i)}); save a session file instead, which keeps both"
            )
        out[s] = i
    return out


def _why_twice(tok: Tokenizer, first: int, second: int) -> str:
    """Why two ids share a string, in words: what each id is (merge, fallback token, special token...)."""
    merges = {new: rank for rank, (_a, _b, new) in enumerate(tok.model.merge_ids)}
    if first in merges and second in merges:
        return "two different merges formed it"
    fallback = tok.model.byte_fallback_ids

    def what(i: int) -> str:
        if i in merges:
            return (
                f"id {i} was learned by merge rank {merges[i]} from text that types {quote(tok.model.table.strings[i])}"
            )
        if i == tok.model.unk_id:
            return f"id {i} is the unk fallback's token"
        if i in fallback:
            return f"id {i} is the bytes fallback's token for the byte 0x{fallback.index(i):02X}"
        if i < tok.model.table.num_special:
            return f"id {i} is a special token"
        return f"id {i} is a base symbol"

    advice = ""
    if first in fallback or second in fallback:
        advice = "; the training text typed a byte fallback token's name: the unk or keep fallback avoids the clash"
    return f"{what(first)}; {what(second)}{advice}"


def whitespace_in_merges(tok: Tokenizer, fmt: str) -> None:
    """Refuse merges whose symbols hold whitespace (a line-based merges file splits on it).

    Raises:
        ExportError: naming the first such merge.
    """
    for k, (a, b) in enumerate(tok.model.merges):
        if any(c.isspace() for c in a + b):
            raise ExportError(
                f"{fmt} writes one merge per line as two symbols separated by a space, but merge {k} "
                f"({quote(a)}, {quote(b)}) holds whitespace; use tokenizer.json (merges as pairs) or a session file"
            )


def suffix_with_byte_fallback(tok: Tokenizer, fmt: str) -> None:
    """Refuse an attached ``</w>`` with the ``bytes`` fallback for formats Hugging Face's BPE model reads.

    Hugging Face byte-falls back on the whole unknown symbol ``"ā</w>"``, so a
    word ending in an unknown character gets the bytes of ``</w>`` too (4 more
    ids, decoded as the literal text ``</w>``); bpe_core spells only the
    character's bytes.

    Raises:
        ExportError: ``tok`` is char-unit with the attached marker and the ``bytes`` fallback.
    """
    if not tok.model.table.byte_level and tok.model.end_of_word == "attached" and tok.model.fallback == "bytes":
        raise ExportError(
            f"{fmt} is read by Hugging Face's BPE model, which byte-falls back on a whole unknown word end such as "
            "'ā</w>': it adds the 4 bytes of '</w>' (<0x3C> <0x2F> <0x77> <0x3E>) after the character's bytes, where "
            "this tokenizer spells the character alone; use the unk fallback, or save a session file"
        )


def describe_settings(tok: Tokenizer) -> str:
    """``"unit=char, pretokenizer=whitespace_eow, end_of_word=separate"`` for messages."""
    eow = f", end_of_word={tok.model.end_of_word}" if tok.model.end_of_word else ""
    return f"unit={tok.model.unit}, pretokenizer={tok.pre_tokenizer.name}{eow}"

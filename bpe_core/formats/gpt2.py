"""GPT-2 style ``vocab.json`` + ``merges.txt``: OpenAI GPT-2's ``encoder.json`` + ``vocab.bpe``.

Source of the format: OpenAI GPT-2 ``src/encoder.py`` (``get_encoder`` reads
``encoder.json``, token string -> id, and ``vocab.bpe``, a ``#version: 0.2``
line then one merge ``left right`` per line in rank order, ending with a
newline); Hugging Face ``GPT2Tokenizer`` and ``models.BPE.from_file`` read the
same pair under the names ``vocab.json`` and ``merges.txt``.

The pair holds ids and merges but no pre-tokenizer, so a file pair implies one
of these conventions, which is what :func:`load_vocab_merges` infers and
:func:`to_vocab_json` accepts:

* byte-level tokens (``Ġ`` for a space) -> byte unit with GPT-2's regex
  (GPT-2, RoBERTa, ...), merged by pair as GPT-2's ``bpe()`` does;
* character tokens ending in ``</w>`` -> ``whitespace_eow`` with the marker
  attached (Hugging Face ``end_of_word_suffix``, OpenAI GPT-1); a merge that
  uses ``</w>`` as a symbol of its own -> the marker separate;
* other character tokens -> the ``whitespace`` pre-tokenizer.
"""

from __future__ import annotations

import json

from ..encoding.encoder import Tokenizer
from ..errors import quote
from ..registry.options import marker_style
from ..registry.pretokenizers import pretokenizer_spec
from ..text.pretokenize import GPT2_PATTERN
from ..text.symbols import unit_kind
from ._common import (
    ExportError,
    FormatError,
    Source,
    decode_text,
    describe_settings,
    infer_end_of_word,
    infer_unit,
    parse_json,
    read_file,
    suffix_with_byte_fallback,
    tokenizer_from_vocab,
    unique_vocab,
    whitespace_in_merges,
)

VERSION_LINE = "#version: 0.2"
"""The first line GPT-2's ``vocab.bpe`` and Hugging Face's ``merges.txt`` carry."""


def parse_vocab_json(text: str, source: str = "vocab.json") -> dict[str, int]:
    """Parse ``encoder.json``/``vocab.json``: a JSON object token string -> id.

    Returns:
        ``{token: id}`` in file order.

    Raises:
        FormatError: invalid or truncated JSON (line and column), not an object,
            a repeated key, or a value that is not a non-negative integer (naming the token).
    """
    data = parse_json(text, source)
    if not isinstance(data, dict):
        raise FormatError(f"{source}: expected a JSON object mapping token strings to ids, got {type(data).__name__}")
    for key, value in data.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise FormatError(
                f"{source}: the id of token {quote(key)} is {quote(value)}; expected a non-negative integer"
            )
    return data  # type: ignore[return-value]


def parse_merges_txt(text: str, source: str = "merges.txt") -> tuple[list[tuple[str, str]], list[int], str | None]:
    """Parse ``vocab.bpe``/``merges.txt``: an optional ``#version: ...`` line, then ``left right`` per line.

    Lines are split on single spaces, as Hugging Face ``tokenizers`` does;
    ``\\r\\n`` line ends are accepted and a final newline is optional.

    Returns:
        ``(merges, line_numbers, version)``: the merges in rank order, the
        1-based line of each, and the version string (``"0.2"``) or ``None``.

    Raises:
        FormatError: a line without exactly two non-empty symbols (naming the
            line and what it holds), or an empty line before the end.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    version = None
    merges: list[tuple[str, str]] = []
    numbers: list[int] = []
    for n, line in enumerate(lines, start=1):
        line = line.removesuffix("\r")
        if n == 1 and line.startswith("#version"):
            version = line.partition(":")[2].strip() or None
            continue
        parts = line.split(" ")
        if len(parts) != 2 or not parts[0] or not parts[1]:
            what = "is empty" if not line else f"holds {len(parts)} space-separated fields: {quote(line)}"
            raise FormatError(f"{source}: line {n} {what}; expected two symbols separated by one space ('Ġ t')")
        merges.append((parts[0], parts[1]))
        numbers.append(n)
    return merges, numbers, version


def load_vocab_merges(
    vocab_text: str | bytes,
    merges_text: str | bytes,
    *,
    unit: str | None = None,
    end_of_word: str | None = None,
    pretokenizer: str | None = None,
    pattern: str | None = None,
    special_tokens: list[str] | None = None,
    name: str = "",
    sources: tuple[str, str] = ("vocab.json", "merges.txt"),
) -> Tokenizer:
    """Load a ``vocab.json`` + ``merges.txt`` pair with the file's ids.

    Args:
        vocab_text, merges_text: the two files' contents (``bytes`` are decoded as UTF-8).
        unit: ``"byte"``/``"char"``; ``None`` infers it (byte if the tokens are
            written in GPT-2's byte-to-unicode alphabet, see :func:`~bpe_core.formats._common.infer_unit`).
        end_of_word: ``None`` infers it from ``</w>`` in the tokens (see the module docstring).
        pretokenizer: ``None`` infers it: ``gpt2`` for bytes, ``whitespace_eow``
            when there is a marker, else ``whitespace``.
        pattern: a replacement split pattern for a regex pre-tokenizer (``gpt2``, ``gpt4``, ``llama3``).
        special_tokens: the special tokens; ``None`` takes every token that is
            neither a base symbol nor formed by a merge (GPT-2's ``<|endoftext|>``).
        name: a label.
        sources: the two file names, for messages.

    Returns:
        A tokenizer merging by pair, whose ids are the vocabulary's.

    Raises:
        FormatError: malformed JSON or merges lines, a merge naming a token
            missing from the vocabulary (naming its line).
        MergeTableError: a byte-level vocabulary missing single bytes (listed).
    """
    vsrc, msrc = sources
    vocab = parse_vocab_json(decode_text(vocab_text, vsrc), vsrc)
    merges, numbers, _version = parse_merges_txt(decode_text(merges_text, msrc), msrc)
    if end_of_word is None:
        end_of_word = infer_end_of_word(vocab, merges)
    if unit is None:
        unit = infer_unit(vocab, special_tokens or ())
    if pretokenizer is None:
        pretokenizer = "gpt2" if unit_kind(unit).byte_level else "whitespace_eow" if end_of_word else "whitespace"
    end_of_word = marker_style(pretokenizer, end_of_word)
    return tokenizer_from_vocab(
        vocab,
        merges,
        unit=unit,
        end_of_word=end_of_word,
        pretokenizer=pretokenizer,
        pattern=pattern,
        specials=special_tokens,
        name=name,
        source=msrc,
        where=lambda k: f"line {numbers[k]}",
    )


def load_gpt2(encoder_json: Source, vocab_bpe: Source, *, name: str = "GPT-2") -> Tokenizer:
    """Load OpenAI GPT-2's ``encoder.json`` + ``vocab.bpe`` (or any byte-level ``vocab.json`` + ``merges.txt``).

    Args:
        encoder_json: path of the token -> id file.
        vocab_bpe: path of the merges file.
        name: a label.

    Returns:
        A byte-unit tokenizer with GPT-2's regex, merging by pair; ids are the
        file's (``hello`` -> ``[31373]``; ``<|endoftext|>`` = 50256 is special).

    Raises:
        FormatError: a malformed file (naming line or key).
        MergeTableError: single bytes missing from the vocabulary (listed).
        OSError: a file cannot be read.
    """
    sources = (str(encoder_json), str(vocab_bpe))
    return load_vocab_merges(
        read_file(encoder_json), read_file(vocab_bpe), unit="byte", pretokenizer="gpt2", name=name, sources=sources
    )


def check_exportable(tok: Tokenizer) -> None:
    """Raise :class:`ExportError` unless ``tok`` fits the vocab.json + merges.txt conventions (module docstring)."""
    if tok.model.table.byte_level:
        fits = (
            tok.pre_tokenizer.name == "gpt2"
            and tok.pre_tokenizer.pattern == GPT2_PATTERN
            and tok.model.end_of_word is None
        )
    else:
        spec = pretokenizer_spec(tok.pre_tokenizer.name)
        fits = spec.drops_whitespace and not spec.trailing_space  # words are the text between whitespace
    if not fits:
        raise ExportError(
            f"vocab.json + merges.txt carry no pre-tokenizer: the convention is byte-level tokens with GPT-2's regex, "
            f"or characters split on whitespace (with </w> attached or separate); this tokenizer has "
            f"{describe_settings(tok)}; save tokenizer.json or a session file instead"
        )
    suffix_with_byte_fallback(tok, "vocab.json + merges.txt")
    if (
        not tok.model.table.byte_level
        and tok.model.fallback == "unk"
        and tok.model.unk_id is not None
        and tok.model.unk_id < tok.model.num_learned
    ):
        raise ExportError(
            "vocab.json + merges.txt say nothing of a fallback: a reader takes <unk> at the top of the vocabulary "
            f"as the unknown token, but here <unk> is a learned token (id {tok.model.unk_id}, the corpus's own text) "
            "that "
            "also serves as the unk fallback; save tokenizer.json (its unk_token says so) or a session file"
        )
    whitespace_in_merges(tok, "merges.txt")


def to_vocab_json(tok: Tokenizer) -> str:
    """``vocab.json`` (GPT-2 ``encoder.json``): ``{"token": id, ...}`` in id order, UTF-8 JSON.

    Args:
        tok: the tokenizer to save.

    Returns:
        The file's text.

    Raises:
        ExportError: settings the pair cannot carry, or two ids sharing a token string.
    """
    check_exportable(tok)
    vocab = unique_vocab(tok, "vocab.json")
    return json.dumps(vocab, ensure_ascii=False, separators=(",", ":")) + "\n"


def to_merges_txt(tok: Tokenizer) -> str:
    """``merges.txt`` (GPT-2 ``vocab.bpe``): ``#version: 0.2`` then ``left right`` per line, newline-terminated.

    Args:
        tok: the tokenizer to save.

    Returns:
        The file's text, one merge per line in rank order.

    Raises:
        ExportError: settings the pair cannot carry, or a merge symbol holding whitespace.
    """
    check_exportable(tok)
    return VERSION_LINE + "\n" + "".join(f"{a} {b}\n" for a, b in tok.model.merges)


__all__ = [
    "VERSION_LINE",
    "check_exportable",
    "load_gpt2",
    "load_vocab_merges",
    "parse_merges_txt",
    "parse_vocab_json",
    "to_merges_txt",
    "to_vocab_json",
]

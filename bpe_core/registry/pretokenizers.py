"""The pre-tokenizer registry: everything about one pre-tokenizer in one :class:`PreTokenizerSpec`.

A pre-tokenizer decides where text is cut before BPE sees it (BPE never
merges across a cut), so one spec holds its name, description and source, how
it splits (a regex's matches or a whitespace split), whether its regex runs
without the time limit, where a long text may be cut for slice-wise counting,
how it is written to and recognised in ``tokenizer.json`` and tiktoken
sidecars, and whether its words get the end-of-word marker ``</w>``. The
option list, the sidebar, the CLI, the loaders and the writers all read
:data:`PRETOKENIZER_SPECS`; adding a pre-tokenizer is one more entry in
:data:`_SPECS` (and its test). Nothing here is changed after import.

This module imports nothing from the rest of ``bpe_core`` but its errors, so
every other module (``options`` included) may read it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType

import regex

from ..errors import OptionError, quote

GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
"""GPT-2's split pattern, verbatim from OpenAI GPT-2 ``src/encoder.py``."""

GPT4_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+|"""
    r""" ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
"""cl100k_base's split pattern, verbatim from tiktoken ``tiktoken_ext/openai_public.py``."""

LLAMA3_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|"""
    r""" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
"""Llama 3's split pattern: the ``pre_tokenizer`` ``Split`` regex of Meta's ``Meta-Llama-3-8B/tokenizer.json``,
the ``pat_str`` of meta-llama/llama3 ``llama/tokenizer.py`` (whose raw string there doubles each backslash), the
same text as tiktoken's cl100k_base ``pat_str`` before tiktoken made its quantifiers possessive. It cuts every text
as :data:`GPT4_PATTERN` does (the shared corpora, piece for piece) except whitespace after a line break at the very
end of a text: ``"\\n\\t"`` is ``["\\n", "\\t"]`` here, one piece under cl100k's ``\\s++$``."""

R50K_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
"""r50k_base's pattern as tiktoken 0.14 writes it (equivalent to GPT-2's, ``tiktoken_ext/openai_public.py``)."""

O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
"""o200k_base's split pattern (GPT-4o), verbatim from tiktoken 0.14 ``tiktoken_ext/openai_public.py``: a word is
an optional non-letter, then upper-case letters and lower-case letters (so ``CamelCase`` splits at the case change),
with an English contraction kept on; digit runs of at most three; punctuation keeps a following ``/`` or newlines."""

PY_WHITESPACE = "".join(chr(c) for c in range(0x110000) if chr(c).isspace())
"""Every character Python's ``str.split()`` splits on (Unicode White_Space plus U+001C..U+001F)."""

WHITESPACE_CLASS = "".join(f"\\x{{{ord(c):X}}}" for c in PY_WHITESPACE)
"""The inside of a character class matching one :data:`PY_WHITESPACE` character, for ``tokenizer.json``
(``\\x{...}`` escapes, as Oniguruma and Rust read them; the ``regex`` package does not)."""

WHITESPACE_RUN = f"[{WHITESPACE_CLASS}]+"
"""A regex for one run of ``str.split()`` whitespace."""

WORD_PATTERN = f"[^{WHITESPACE_CLASS}]+"
"""A split pattern whose matches are exactly ``text.split()`` (the ``whitespace`` pre-tokenizers)."""

WHOLE_TEXT_PATTERN = r"[\s\S]+"
"""A split pattern that keeps the whole text as one piece (the ``none`` pre-tokenizer)."""


@dataclass(frozen=True)
class Cut:
    """Where a long text may be cut so that pre-tokenizing the parts gives the pre-tokens of the whole.

    Attributes:
        pattern: a ``regex`` pattern matching one character next to a safe cut.
        after: ``True`` cuts just after the match; ``False`` just before it, the match being a separator
            (so text holding no match is one word).
    """

    pattern: str
    after: bool

    def next(self, text: str, pos: int) -> int | None:
        """The first cut in ``text`` at or after the match starting from ``pos``, or ``None``."""
        found = _compiled(self.pattern, False).search(text, pos)
        return None if found is None else (found.end() if self.after else found.start())

    def last(self, text: str) -> int | None:
        """The last cut in ``text`` (a reverse search, so a text without one is scanned once), or ``None``."""
        found = _compiled(self.pattern, True).search(text)
        return None if found is None else (found.end() if self.after else found.start())


@lru_cache(maxsize=32)
def _compiled(pattern: str, reverse: bool) -> regex.Pattern[str]:
    return regex.compile(("(?r)" if reverse else "") + pattern)


REGEX_CUT = Cut(r"[\p{L}\p{N}](?=[\t\n\v\f\r ])", after=True)
r"""Regex pre-tokenizers: just after a letter or digit that ASCII whitespace follows. No match of the GPT-2,
cl100k or Llama 3 pattern spans it (their letter and digit runs end there, and what follows starts a match of its
own whatever precedes it), and none ends at the letter for another reason than the text ending there (a cut after
punctuation would split cl100k's ``!\n``; a cut after whitespace would change what ``\s+(?!\S)`` sees at the end).
No construct of those patterns tells the end of the text from a whitespace character there (``(?!\S)`` holds for
both; ``\s++$`` needs whitespace before the end)."""

SPACE_CUT = Cut("[" + "".join(f"\\u{ord(c):04X}" for c in PY_WHITESPACE) + "]", after=False)
"""Whitespace splitters: just before any whitespace character (``str.split`` splits there whatever surrounds it)."""


@dataclass(frozen=True)
class HFStep:
    """How a pre-tokenizer is written in ``tokenizer.json``: one Hugging Face ``Split`` step.

    Source: Hugging Face ``tokenizers`` ``pre_tokenizers.Split`` and ``normalizers.Replace``/``Strip``.

    Attributes:
        pattern: the Split pattern, or ``None`` for the tokenizer's own split pattern (regex pre-tokenizers).
        behavior: the Split behaviour (``Isolated``, ``Removed``, ``MergedWithPrevious``, ...).
        literal: ``True`` writes ``{"String": pattern}``, else ``{"Regex": pattern}``.
        normalizer: preceded by the normalizer ``Replace(<whitespace>+, " ")`` + ``Strip``.
        byte_level_regex: with the byte unit and the spec's own pattern, written as
            ``ByteLevel(use_regex=true)`` alone (whose built-in regex is GPT-2's).
    """

    pattern: str | None = None
    behavior: str = "Isolated"
    literal: bool = False
    normalizer: bool = False
    byte_level_regex: bool = False


def _words(text: str) -> list[str]:
    """Words split at any whitespace (``str.split()``)."""
    return text.split()


def with_trailing_spaces(words: list[str]) -> list[str]:
    """``words`` of one piece, each keeping one following space but the last (``trailing_space``)."""
    return [w + " " for w in words[:-1]] + words[-1:]


def _whole(text: str) -> list[str]:
    """The whole text as one piece (none for an empty text)."""
    return [text] if text else []


@dataclass(frozen=True)
class PreTokenizerSpec:
    """One pre-tokenizer: everything the engine, the formats and the UI need to know about it.

    Attributes:
        name: the option value (``pretokenizer="gpt2"``).
        description: one line for help texts, with its source.
        source: the paper or code it comes from (a URL or a citation).
        pattern: the split pattern of a regex pre-tokenizer (its pre-tokens are the matches), else ``None``.
        split: for the others, ``text -> pre-tokens`` (a whitespace split or the whole text; with
            ``trailing_space``, the words before their spaces are added).
        trusted: the pattern is known to match in linear time, so it runs without the ``regex`` time limit.
        cut: where a long text may be cut for slice-wise counting, or ``None`` (counted whole).
        end_of_word: its words end with the end-of-word marker ``</w>`` (the ``end_of_word`` option applies).
        drops_whitespace: a whitespace splitter: whitespace is dropped or normalised, so decoding
            cannot give it back.
        trailing_space: each word of ``split`` keeps one following space, but the last word of a piece
            (:func:`with_trailing_spaces`).
        whole_text: no pre-tokenizer: each piece of text (between special tokens) is one pre-token.
        covers_text: every character of any text lies in some match of ``pattern`` (so Hugging Face's
            ``Split(pattern, Isolated)`` gives exactly the matches).
        hf: how it is written to ``tokenizer.json`` (``None``: no pre-tokenizer step).
        tiktoken_pattern: the regex whose matches are its pre-tokens, as a tiktoken ``pat_str`` (and by which a
            loaded pattern is recognised), or ``None`` when tiktoken cannot hold it.
    """

    name: str
    description: str
    source: str
    pattern: str | None = None
    split: Callable[[str], list[str]] | None = None
    trusted: bool = False
    cut: Cut | None = None
    end_of_word: bool = False
    drops_whitespace: bool = False
    trailing_space: bool = False
    whole_text: bool = False
    covers_text: bool = False
    hf: HFStep | None = None
    tiktoken_pattern: str | None = None

    def __post_init__(self) -> None:
        if (self.pattern is None) == (self.split is None):
            raise ValueError(f"pre-tokenizer {self.name!r}: give exactly one of pattern and split")

    @property
    def is_regex(self) -> bool:
        """True when the pre-tokens are a split pattern's matches (which a loaded file may replace)."""
        return self.pattern is not None


def _regex_spec(
    name: str, description: str, source: str, pattern: str, *, byte_level_regex: bool = False
) -> PreTokenizerSpec:
    """A regex pre-tokenizer: trusted, cut after a letter before whitespace, written as ``Split(Isolated)``."""
    return PreTokenizerSpec(
        name,
        description,
        source,
        pattern=pattern,
        trusted=True,
        cut=REGEX_CUT,
        covers_text=True,
        hf=HFStep(byte_level_regex=byte_level_regex),
        tiktoken_pattern=pattern,
    )


_SPECS: tuple[PreTokenizerSpec, ...] = (
    PreTokenizerSpec(
        "whitespace_eow",
        "words split at any whitespace, each ending in the end-of-word suffix </w> "
        "(Sennrich et al. 2016; subword-nmt splits at ASCII spaces only).",
        "Sennrich, Haddow & Birch 2016, section 3.2; https://github.com/rsennrich/subword-nmt",
        split=_words,
        cut=SPACE_CUT,
        end_of_word=True,
        drops_whitespace=True,
        hf=HFStep(WHITESPACE_RUN, "Removed"),
    ),
    PreTokenizerSpec(
        "whitespace",
        "words split at whitespace, no end-of-word suffix: the spaces are dropped "
        "(like Hugging Face's WhitespaceSplit).",
        "Hugging Face tokenizers pre_tokenizers.WhitespaceSplit",
        split=_words,
        cut=SPACE_CUT,
        drops_whitespace=True,
        hf=HFStep(WHITESPACE_RUN, "Removed"),
        tiktoken_pattern=WORD_PATTERN,
    ),
    PreTokenizerSpec(
        "trailing_space",
        "words split at whitespace, each keeping the space after it, tokens like 'the ' "
        "(a teaching variant: the mirror image of GPT-2's leading space).",
        "this package (the mirror image of GPT-2's leading space)",
        split=_words,
        cut=SPACE_CUT,
        drops_whitespace=True,
        trailing_space=True,
        hf=HFStep(" ", "MergedWithPrevious", literal=True, normalizer=True),
    ),
    _regex_spec(
        "gpt2",
        "GPT-2's split pattern: words with their leading space, digit runs, punctuation runs "
        "(Radford et al. 2019, OpenAI encoder.py).",
        "Radford et al. 2019; https://github.com/openai/gpt-2/blob/master/src/encoder.py",
        GPT2_PATTERN,
        byte_level_regex=True,
    ),
    _regex_spec(
        "gpt4",
        "cl100k_base's split pattern (GPT-3.5/GPT-4): digit runs of at most three, case-insensitive "
        "contractions (tiktoken).",
        "https://github.com/openai/tiktoken/blob/main/tiktoken_ext/openai_public.py",
        GPT4_PATTERN,
    ),
    _regex_spec(
        "llama3",
        "Llama 3's split pattern (Meta 2024): cl100k's older, non-possessive spelling; it cuts text as gpt4 "
        "does but for whitespace after a line break at the very end of a text (tiktoken).",
        "https://github.com/meta-llama/llama3/blob/main/llama/tokenizer.py (pat_str)",
        LLAMA3_PATTERN,
    ),
    PreTokenizerSpec(
        "none",
        "no pre-tokenizer: the whole text is one sequence and merges may cross spaces "
        "(Gage 1994, the original byte-pair compression).",
        "Gage 1994, A New Algorithm for Data Compression",
        split=_whole,
        whole_text=True,
        tiktoken_pattern=WHOLE_TEXT_PATTERN,
    ),
)

ALSO_TRUSTED = (R50K_PATTERN, O200K_PATTERN, WHOLE_TEXT_PATTERN)
"""Published or built-in patterns known to match in linear time that are no pre-tokenizer's own pattern:
tiktoken's r50k_base and o200k_base, and the ``none`` pre-tokenizer's tiktoken form."""


def registry(specs: Iterable[PreTokenizerSpec]) -> Mapping[str, PreTokenizerSpec]:
    """A read-only registry from specs, by name, in the order given.

    Raises:
        ValueError: two specs share a name.
    """
    out: dict[str, PreTokenizerSpec] = {}
    for spec in specs:
        if spec.name in out:
            raise ValueError(f"two pre-tokenizers are called {spec.name!r}")
        out[spec.name] = spec
    return MappingProxyType(out)


PRETOKENIZER_SPECS: Mapping[str, PreTokenizerSpec] = registry(_SPECS)
"""Every pre-tokenizer by name, in menu order (read only)."""


def trusted_patterns(specs: Mapping[str, PreTokenizerSpec] = PRETOKENIZER_SPECS) -> frozenset[str]:
    """The split patterns that run without the time limit: each trusted spec's, plus :data:`ALSO_TRUSTED`."""
    return frozenset([*(s.pattern for s in specs.values() if s.trusted and s.pattern), *ALSO_TRUSTED])


def pretokenizer_spec(name: object, specs: Mapping[str, PreTokenizerSpec] = PRETOKENIZER_SPECS) -> PreTokenizerSpec:
    """The spec called ``name``.

    Raises:
        OptionError: ``name`` is not a known pre-tokenizer (the message lists the known ones).
    """
    found = specs.get(name) if isinstance(name, str) else None
    if found is None:
        raise OptionError(f"unknown pre-tokenizer {quote(name)}; expected one of: {', '.join(specs)}")
    return found


def spec_for_pattern(pattern: str, specs: Mapping[str, PreTokenizerSpec] = PRETOKENIZER_SPECS) -> str | None:
    """The name of the pre-tokenizer whose tiktoken pattern is exactly ``pattern`` (a plain ``str``), or ``None``."""
    if type(pattern) is not str:
        return None
    return next((s.name for s in specs.values() if s.tiktoken_pattern == pattern), None)

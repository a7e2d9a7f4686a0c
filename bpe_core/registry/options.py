"""Every training and encoding option in one place: allowed values or range, default, help and source.

The sidebar, the Compare page, session files and the command line all read
their choices, limits and help text from :data:`OPTIONS`, and every way in
(``train()``, a shared link, a session file's "Use these settings", the CLI)
goes through :func:`check_training`, so one limit holds everywhere.

The limits bound what one request may cost: ``MAX_MERGES`` merges, a vocabulary of
at most ``MAX_VOCAB_SIZE`` ids, at most ``MAX_SPECIAL_TOKENS`` special tokens of at
most ``MAX_SPECIAL_LENGTH`` characters each.

This module imports nothing from the rest of ``bpe_core`` but its errors and
the registries (:mod:`bpe_core.registry.pretokenizers`, :mod:`bpe_core.registry.tie_rules`), so every other module may
read it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TypeVar

from ..errors import BudgetError, OptionError, SpecialTokenError, quote
from .pretokenizers import PRETOKENIZER_SPECS, PreTokenizerSpec
from .tie_rules import RULES, TIE_BREAKS, TieRule

MAX_MERGES = 200_000
"""Most merges one training may learn (GPT-2 learned 50,000; cl100k_base about 100,000)."""
MAX_VOCAB_SIZE = 200_000
"""Largest target vocabulary size (special tokens + alphabet + merges)."""
MAX_MIN_FREQUENCY = 1_000_000_000
"""Largest minimum pair count (a pair in a 5 MB corpus occurs at most a few million times)."""
MAX_SPECIAL_TOKENS = 100
"""Most special tokens one tokenizer may declare for training."""
MAX_SPECIAL_LENGTH = 100
"""Longest special token, in characters (tiktoken's longest, ``<|endofprompt|>``, has 15)."""


@dataclass(frozen=True)
class Option:
    """One option: what it means, where it comes from, and which values it accepts.

    Attributes:
        name: the keyword argument of :func:`bpe_core.train` (or of ``Tokenizer.encode``/``with_fallback``).
        label: a short label for forms.
        summary: one line saying what the option decides.
        source: where the option comes from (paper, tool and flag).
        default: the value used when none is given.
        choices: for a named option, every allowed value -> a one-line description with its source.
        minimum, maximum: for a whole-number option, the allowed range (inclusive).
        cli: the command-line flag (``""`` when the CLI has none).
    """

    name: str
    label: str
    summary: str
    source: str
    default: object
    choices: Mapping[str, str] = field(default_factory=dict)
    minimum: int | None = None
    maximum: int | None = None
    cli: str = ""

    def help(self) -> str:
        """Help text in markdown: the summary and source, then one bullet per allowed value."""
        text = f"{self.summary} ({self.source})"
        if self.choices:
            text += "\n\n" + "\n".join(f"- **{name}**: {what}" for name, what in self.choices.items())
        elif self.minimum is not None:
            text += f" From {self.minimum:,} to {self.maximum:,}."
        return text

    def check(self, value: object) -> object:
        """Return ``value`` if this option accepts it.

        Raises:
            OptionError: a named option given an unknown value or a non-string.
            BudgetError: a whole-number option given a non-integer or a value outside its range.
        """
        if self.choices:
            if not isinstance(value, str) or value not in self.choices:
                raise OptionError(f"unknown {self.name} {quote(value)}; expected one of: {', '.join(self.choices)}")
            return value
        if self.minimum is not None:
            return check_int(self.name, value, self.minimum, self.maximum)
        return value


def check_int(name: str, value: object, minimum: int, maximum: int | None = None) -> int:
    """Return ``value`` if it is a whole number (not a bool) in ``[minimum, maximum]``.

    Floats (even ``200.0``), strings and bools are refused: parse text first
    with :func:`parse_int`.

    Raises:
        BudgetError: naming the option, the value (shortened) and the range.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise BudgetError(f"{name} must be a whole number, got {quote(value)} ({type(value).__name__})")
    if value < minimum or (maximum is not None and value > maximum):
        upper = f" and at most {maximum:,}" if maximum is not None else ""
        raise BudgetError(f"{name} must be at least {minimum:,}{upper}, got {quote(value)}")
    return value


def parse_int(name: str, value: object, minimum: int, maximum: int) -> int:
    """Read a whole number from a link, a form or a JSON file, then check its range.

    Accepts an ``int``, a float with no fractional part (``200.0``, as JSON and
    number boxes give) or a string of at most 20 digits (``"200"``, ``" 200 "``,
    ``"2e5"`` is refused). Infinities, NaN, ``1e400`` and 5,000-digit strings are
    refused without converting them (no ``OverflowError``, no quadratic parse).

    Raises:
        BudgetError: naming the option, the value (shortened) and the range.
    """
    if isinstance(value, str):
        text = value.strip()
        digits = text.lstrip("+-")
        if not digits.isascii() or not digits.isdigit() or len(digits) > 20:
            raise BudgetError(f"{name} must be a whole number from {minimum:,} to {maximum:,}, got {quote(value)}")
        value = int(text)
    elif isinstance(value, float) and math.isfinite(value) and value.is_integer() and abs(value) < 2**63:
        value = int(value)
    return check_int(name, value, minimum, maximum)


def check_special_tokens(tokens: object) -> tuple[str, ...]:
    """Return the special tokens as a tuple without repeats (order kept).

    Raises:
        TypeError: one string instead of a list of strings.
        SpecialTokenError: more than :data:`MAX_SPECIAL_TOKENS`, an empty or
            non-string token, or one longer than :data:`MAX_SPECIAL_LENGTH` characters.
    """
    if isinstance(tokens, str):
        raise TypeError("special_tokens must be a list of strings, not one string")
    if not isinstance(tokens, Iterable):
        raise TypeError(f"special_tokens must be a list of strings, not {type(tokens).__name__}")
    specials: list[str] = []
    for tok in tokens:
        if not isinstance(tok, str) or not tok:
            raise SpecialTokenError(f"special tokens must be non-empty strings, got {quote(tok)}")
        if len(tok) > MAX_SPECIAL_LENGTH:
            raise SpecialTokenError(
                f"a special token may have at most {MAX_SPECIAL_LENGTH} characters; {quote(tok, 24)} is too long"
            )
        specials.append(tok)
        if len(specials) > MAX_SPECIAL_TOKENS * 2:  # stop reading an endless iterable early
            break
    unique = tuple(dict.fromkeys(specials))
    if len(unique) > MAX_SPECIAL_TOKENS:
        raise SpecialTokenError(f"at most {MAX_SPECIAL_TOKENS} special tokens are allowed, got more")
    return unique


def _choices(**described: str) -> Mapping[str, str]:
    return MappingProxyType(dict(described))


def pretokenizer_option(specs: Mapping[str, PreTokenizerSpec] = PRETOKENIZER_SPECS) -> Option:
    """The ``pretokenizer`` option of a pre-tokenizer registry: one choice per spec, with its description.

    Args:
        specs: the registry (:data:`bpe_core.registry.pretokenizers.PRETOKENIZER_SPECS` by default; a test passes its
        own).
    """
    return Option(
        "pretokenizer",
        "Pre-tokenizer",
        "How text is cut into pre-tokens before BPE counts pairs; a merge never crosses a pre-token.",
        "Sennrich et al. 2016, section 3.2; Hugging Face pre_tokenizers",
        "whitespace_eow",
        _choices(**{name: spec.description for name, spec in specs.items()}),
        cli="--pretokenizer",
    )


def tie_rule_option(rules: Mapping[str, TieRule] = RULES) -> Option:
    """The ``tie_break`` option of a tie-rule registry: one choice per rule, with its description.

    Args:
        rules: the registry (:data:`bpe_core.registry.tie_rules.RULES` by default; a test passes its own).
    """
    choices = TIE_BREAKS if rules is RULES else _choices(**{name: r.description for name, r in rules.items()})
    return Option(
        "tie_break",
        "Tie rule",
        "Which pair wins when several share the top count.",
        "each implementation's own rule; the paper leaves ties open",
        "first_seen",
        choices,
        cli="--tie-break",
    )


_OPTIONS = (
    pretokenizer_option(),
    Option(
        "unit",
        "Unit",
        "What the base symbols of the vocabulary are.",
        "Sennrich et al. 2016; Radford et al. 2019, section 2.2",
        "char",
        _choices(
            char="base symbols are the Unicode characters seen in the corpus (Sennrich et al. 2016, subword-nmt).",
            byte="base symbols are the 256 UTF-8 byte values, so no character is ever unknown "
            "(GPT-2's byte-level BPE).",
        ),
        cli="--unit",
    ),
    Option(
        "end_of_word",
        "End of word (</w>)",
        "How the end-of-word suffix is written (only for the whitespace_eow pre-tokenizer).",
        "subword-nmt learn_bpe.py",
        "separate",
        _choices(
            separate="</w> is a symbol of its own after each word (Sennrich et al. 2016; subword-nmt 0.1).",
            attached="</w> is glued to each word's last character, 'r</w>' (subword-nmt 0.2 and later; "
            "Hugging Face's end_of_word_suffix).",
        ),
        cli="--end-of-word",
    ),
    tie_rule_option(),
    Option(
        "num_merges",
        "Number of merges",
        "How many merge rules to learn. The number of merges is BPE's only hyper-parameter; GPT-2 used 50,000.",
        "Sennrich et al. 2016, section 3.2; subword-nmt's -s/--symbols",
        200,
        minimum=0,
        maximum=MAX_MERGES,
        cli="--merges",
    ),
    Option(
        "vocab_size",
        "Vocabulary size",
        "The vocabulary size to stop at: special tokens + base alphabet + one token per merge.",
        "Hugging Face's and SentencePiece's vocab_size",
        None,
        minimum=0,
        maximum=MAX_VOCAB_SIZE,
        cli="--vocab-size",
    ),
    Option(
        "min_frequency",
        "Min frequency",
        "Stop when the best pair occurs fewer times than this.",
        "subword-nmt's --min-frequency, Hugging Face's min_frequency",
        2,
        minimum=1,
        maximum=MAX_MIN_FREQUENCY,
        cli="--min-frequency",
    ),
    Option(
        "special_tokens",
        "Special tokens",
        "Tokens such as <|endoftext|>: they get the first ids and are cut out of the corpus before counting, "
        f"never merged. At most {MAX_SPECIAL_TOKENS} tokens of at most {MAX_SPECIAL_LENGTH} characters.",
        "as Hugging Face's special_tokens and tiktoken's special tokens",
        (),
        cli="--special",
    ),
    Option(
        "fallback",
        "Characters outside the alphabet",
        "What a char-level tokenizer does with a character training never saw.",
        "subword-nmt apply_bpe; SentencePiece byte_fallback",
        "keep",
        _choices(
            keep="an unseen character stays a symbol of its own, as subword-nmt apply_bpe does (it gets a temporary id "
            "past the vocabulary).",
            unk="an unseen character becomes the single token <unk>.",
            bytes="an unseen character is spelled as its UTF-8 bytes, <0xF0> <0x9F> ... (SentencePiece, Llama).",
        ),
    ),
    Option(
        "order",
        "Merge order",
        "In which order encoding applies the merge rules.",
        "OpenAI GPT-2 encoder.py; Sennrich et al. 2016, Algorithm 1",
        "rank",
        _choices(
            rank="repeatedly merge the lowest-rank adjacent pair (GPT-2 encoder.py, tiktoken, Hugging Face).",
            sequential="apply the merge table once, rule by rule in learned order (the textbook training loop).",
        ),
    ),
)

OPTIONS: Mapping[str, Option] = MappingProxyType({o.name: o for o in _OPTIONS})
"""Every option by its keyword name."""


def marker_style(pretokenizer: str, end_of_word: str | None) -> str | None:
    """The end-of-word style a pre-tokenizer really uses: ``end_of_word`` when its spec adds ``</w>``
    (:attr:`~bpe_core.registry.pretokenizers.PreTokenizerSpec.end_of_word`), else ``None``.

    Raises:
        KeyError: an unknown pre-tokenizer (checked by :func:`check_training` first).
    """
    return end_of_word if PRETOKENIZER_SPECS[pretokenizer].end_of_word else None


Mode = TypeVar("Mode")


def mode_object(option: str, value: object, objects: Mapping[str, Mode], kind: type[Mode]) -> Mode:
    """The object standing for an option's value (a merge order, a fallback policy): ``value`` itself if it
    already is one (a ``kind``), else ``objects[value]``.

    Raises:
        OptionError: an unknown name, naming the option and listing the known ones.
    """
    if isinstance(value, kind):
        return value
    found = objects.get(value) if isinstance(value, str) else None
    if found is None:
        raise OptionError(f"unknown {option} {quote(value)}; expected one of: {', '.join(objects)}")
    return found


def choices(name: str) -> dict[str, str]:
    """The allowed values of option ``name`` with their one-line descriptions (a fresh dict)."""
    return dict(OPTIONS[name].choices)


def check_training(
    *,
    num_merges: object = None,
    vocab_size: object = None,
    pretokenizer: object = "whitespace_eow",
    unit: object = "char",
    end_of_word: object = "separate",
    tie_break: object = "first_seen",
    min_frequency: object = 2,
    special_tokens: object = (),
) -> dict[str, object]:
    """Validate a set of :func:`bpe_core.train` options, the one check every way in goes through.

    Returns:
        The same options, normalised: integers as ``int`` (``200.0`` -> ``200``),
        special tokens as a tuple without repeats.

    Raises:
        OptionError: an unknown pre-tokenizer, unit, end-of-word style or tie rule.
        BudgetError: both or neither of ``num_merges``/``vocab_size``, or a budget or
            ``min_frequency`` that is not a whole number in its range.
        SpecialTokenError: too many special tokens, or one too long or empty.
        TypeError: special tokens given as one string.
    """
    out: dict[str, object] = {
        name: OPTIONS[name].check(value)
        for name, value in (
            ("pretokenizer", pretokenizer),
            ("unit", unit),
            ("end_of_word", end_of_word),
            ("tie_break", tie_break),
            ("min_frequency", min_frequency),
        )
    }
    if (num_merges is None) == (vocab_size is None):
        raise BudgetError("give exactly one of num_merges and vocab_size")
    out["num_merges"] = None if num_merges is None else OPTIONS["num_merges"].check(num_merges)
    out["vocab_size"] = None if vocab_size is None else OPTIONS["vocab_size"].check(vocab_size)
    out["special_tokens"] = check_special_tokens(special_tokens)
    return out

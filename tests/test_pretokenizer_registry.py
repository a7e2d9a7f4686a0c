"""Issue 20: a pre-tokenizer is one registry object (``bpe_core.registry.pretokenizers``).

Proved by Llama 3's split pattern, added as one definition: its pieces equal Hugging Face's ``Split`` with the
same pattern on the shared corpora, a tokenizer trained with it round-trips through ``tokenizer.json`` and a
tiktoken sidecar under its own name; and by a spec built here, which the option list, the ``tokenizer.json``
writer and the recognisers pick up from a registry passed to them, with no global changed.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from collections import Counter

import pytest

from bpe_core import PRETOKENIZER_SPECS, PRETOKENIZERS, Tokenizer, pretokenize, train
from bpe_core.formats import load_hf_json, parse_ranks, to_hf_json, to_sidecar, to_tiktoken, tokenizer_from_ranks
from bpe_core.formats._common import pretokenizer_for_pattern
from bpe_core.formats.hf_json import hf_pre_tokenizer, read_pre_tokenizer
from bpe_core.formats.tiktoken_ranks import parse_sidecar
from bpe_core.registry.options import OPTIONS, pretokenizer_option
from bpe_core.registry.pretokenizers import (
    GPT4_PATTERN,
    LLAMA3_PATTERN,
    REGEX_CUT,
    HFStep,
    PreTokenizerSpec,
    pretokenizer_spec,
    registry,
    trusted_patterns,
)
from bpe_core.text.pretokenize import TRUSTED_PATTERNS, compiled_pattern, count_pretokens

CORPUS_NAMES = ("tinyshakespeare", "wikitext2-test", "taylorswift", "udhr-multiscript", "code")

TEXT = "Hello, I'm learning BPE!\n\n  It's 2024: 12345 naïve cafés\t\u3000done \r\n"


# ----------------------------------------------------------------- llama3: one definition


def test_llama3_is_one_registry_entry_read_everywhere():
    spec = PRETOKENIZER_SPECS["llama3"]
    assert spec.pattern == LLAMA3_PATTERN and spec.pattern != GPT4_PATTERN  # recognised as itself, not gpt4
    assert "llama3" in PRETOKENIZERS and PRETOKENIZERS["llama3"] == spec.description
    assert PRETOKENIZERS is OPTIONS["pretokenizer"].choices
    assert compiled_pattern(LLAMA3_PATTERN).trusted and LLAMA3_PATTERN in TRUSTED_PATTERNS
    assert pretokenizer_for_pattern(LLAMA3_PATTERN) == ("llama3", None)
    assert pretokenizer_for_pattern(GPT4_PATTERN) == ("gpt4", None)


def test_llama3_pieces_golden():
    assert pretokenize("I'LL pay $1234 for 'em\n\n", "llama3") == [
        "I",
        "'LL",
        " pay",
        " $",
        "123",
        "4",
        " for",
        " '",
        "em",
        "\n\n",
    ]
    # The one place it differs from cl100k as tiktoken now spells it: whitespace after a line break at the end.
    assert pretokenize("a\n\t", "llama3") == ["a", "\n", "\t"]
    assert pretokenize("a\n\t", "gpt4") == ["a", "\n\t"]
    assert pretokenize("a\n\tb", "llama3") == pretokenize("a\n\tb", "gpt4") == ["a", "\n", "\tb"]


@pytest.mark.reference
@pytest.mark.parametrize("name", CORPUS_NAMES)
def test_llama3_pieces_equal_hugging_face_split(corpora, name):
    """Our pieces equal ``pre_tokenizers.Split(Regex(pattern), behavior="isolated")``, and gpt4's, on a corpus."""
    tokenizers = pytest.importorskip("tokenizers")
    text = corpora[name]
    split = tokenizers.pre_tokenizers.Split(tokenizers.Regex(LLAMA3_PATTERN), behavior="isolated")
    ours = pretokenize(text, "llama3")
    assert ours == [piece for piece, _offsets in split.pre_tokenize_str(text)]
    assert ours == pretokenize(text, "gpt4")


def test_llama3_counts_slice_by_slice_as_whole(monkeypatch):
    """The regex cut (one field of the spec) holds for Llama 3's pattern: slice-wise counts equal whole counts."""
    pt = importlib.import_module("bpe_core.text.pretokenize")  # the package's `pretokenize` name is the function
    assert PRETOKENIZER_SPECS["llama3"].cut is REGEX_CUT
    text = (TEXT * 40) + "tail\n\t"
    monkeypatch.setattr(pt, "CHUNK_CHARS", 7)
    counts: Counter[str] = Counter()
    count_pretokens(text, "llama3", counts)
    whole = Counter(pretokenize(text, "llama3"))
    assert counts == whole and list(counts) == list(whole)


@pytest.fixture(scope="module")
def llama3_tokenizer() -> Tokenizer:
    text = TEXT * 20 + "The quick brown fox's 123 jumps over the lazy dog. " * 20
    return train(text, num_merges=60, pretokenizer="llama3", unit="byte").tokenizer


def test_llama3_round_trips_through_tokenizer_json(llama3_tokenizer):
    tok = llama3_tokenizer
    written = to_hf_json(tok)
    step = json.loads(written)["pre_tokenizer"]["pretokenizers"][0]
    assert step == {"type": "Split", "pattern": {"Regex": LLAMA3_PATTERN}, "behavior": "Isolated", "invert": False}
    back = load_hf_json(written)
    assert back.pre_tokenizer.name == "llama3" and back.pre_tokenizer.pattern == LLAMA3_PATTERN
    probe = TEXT + "unseen words: zebra quux 987654"
    assert back.encode(probe) == tok.encode(probe)


def test_llama3_round_trips_through_hugging_face(llama3_tokenizer):
    tokenizers = pytest.importorskip("tokenizers")
    hf = tokenizers.Tokenizer.from_str(to_hf_json(llama3_tokenizer))
    probe = TEXT + "unseen words: zebra quux 987654"
    assert hf.encode(probe).ids == llama3_tokenizer.encode(probe)


def test_llama3_round_trips_through_a_tiktoken_sidecar(llama3_tokenizer):
    tok = llama3_tokenizer
    sidecar = parse_sidecar(to_sidecar(tok))
    assert sidecar["pat_str"] == LLAMA3_PATTERN
    back = tokenizer_from_ranks(parse_ranks(to_tiktoken(tok)), sidecar["pat_str"], sidecar["special_tokens"])
    assert back.pre_tokenizer.name == "llama3" and back.encode(TEXT) == tok.encode(TEXT)


# ----------------------------------------------------------------- a new pre-tokenizer in one definition

DIGITS = PreTokenizerSpec(
    "digits_apart",
    "letters, single digits and everything else apart (a test spec).",
    "tests/test_pretokenizer_registry.py",
    pattern=r"\p{L}+|\p{N}|[^\p{L}\p{N}]+",
    cut=REGEX_CUT,
    covers_text=True,
    hf=HFStep(),
    tiktoken_pattern=r"\p{L}+|\p{N}|[^\p{L}\p{N}]+",
)


def test_a_new_spec_reaches_option_list_writer_and_recognisers():
    """Adding a pre-tokenizer is one definition: the option list, the tokenizer.json writer and reader and the
    tiktoken pattern recogniser read a registry holding it (passed in; the global one is not touched)."""
    specs = registry([*PRETOKENIZER_SPECS.values(), DIGITS])
    option = pretokenizer_option(specs)
    assert "digits_apart" in option.choices and option.choices["digits_apart"] == DIGITS.description
    assert option.check("digits_apart") == "digits_apart"
    assert "digits_apart" in option.help()

    normalizer, pre = hf_pre_tokenizer(DIGITS, DIGITS.pattern, byte=True, specs=specs)
    assert normalizer is None and pre["pretokenizers"][0]["behavior"] == "Isolated"
    assert read_pre_tokenizer(pre, None, "t.json", specs) == ("byte", "digits_apart", None)
    assert pretokenizer_for_pattern(DIGITS.tiktoken_pattern, specs) == ("digits_apart", None)
    assert pretokenizer_spec("digits_apart", specs) is DIGITS
    assert DIGITS.pattern in trusted_patterns(specs) or not DIGITS.trusted

    # the global registry is unchanged: the same file read with it keeps the pattern as an override
    assert "digits_apart" not in PRETOKENIZER_SPECS and "digits_apart" not in OPTIONS["pretokenizer"].choices
    unit, name, pattern = read_pre_tokenizer(pre, None, "t.json")
    assert (unit, name, str(pattern)) == ("byte", "gpt2", DIGITS.pattern)


def test_a_whitespace_spec_reaches_the_writer_and_reader():
    """A spec with a fixed Split step (not a regex pre-tokenizer) is written and recognised from its ``hf`` field."""
    commas = PreTokenizerSpec(
        "commas",
        "pieces between commas (a test spec).",
        "tests",
        split=lambda text: [p for p in text.split(",") if p],
        hf=HFStep(",", "Removed", literal=True),
    )
    specs = registry([*PRETOKENIZER_SPECS.values(), commas])
    normalizer, pre = hf_pre_tokenizer(commas, None, byte=False, specs=specs)
    assert pre == {"type": "Split", "pattern": {"String": ","}, "behavior": "Removed", "invert": False}
    assert read_pre_tokenizer(pre, normalizer, "t.json", specs) == ("char", "commas", None)


def test_registry_is_immutable_and_refuses_two_specs_of_one_name():
    with pytest.raises(TypeError):
        PRETOKENIZER_SPECS["x"] = DIGITS  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        DIGITS.trusted = True  # type: ignore[misc]
    with pytest.raises(ValueError, match="two pre-tokenizers"):
        registry([DIGITS, DIGITS])
    with pytest.raises(ValueError, match="exactly one of pattern and split"):
        PreTokenizerSpec("both", "", "", pattern="a", split=str.split)
    assert isinstance(TRUSTED_PATTERNS, frozenset)


def test_each_spec_field_matches_the_old_name_sets():
    """The fields that replaced ``WHITESPACE_PRETOKENIZERS``, ``WORD_SPLITTERS`` and ``MARKING_PRETOKENIZERS``."""
    names = lambda field: {n for n, s in PRETOKENIZER_SPECS.items() if getattr(s, field)}  # noqa: E731
    assert names("drops_whitespace") == {"whitespace_eow", "whitespace", "trailing_space"}
    assert names("end_of_word") == {"whitespace_eow"}
    assert names("trailing_space") == {"trailing_space"}
    assert names("whole_text") == {"none"}
    assert {n for n, s in PRETOKENIZER_SPECS.items() if s.is_regex} == {"gpt2", "gpt4", "llama3"}

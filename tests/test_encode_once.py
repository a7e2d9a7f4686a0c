"""The Encode page's encoding pre-tokenizes its text once: the round trip and the order differences read
the trace (``trace=`` of ``bpe_core.encoding.explain.round_trip`` and ``order_differences``, as ``ui.cache.encoded``
calls them), with results equal to the calls that split and encode the text again."""

from __future__ import annotations

import pytest

import bpe_core
from bpe_core.encoding.explain import order_differences, round_trip
from bpe_core.encoding.pipeline import PreTokenizer
from ui import cache

CORPUS = "low lower lowest newest widest <s> hug pug hugs bugs " * 4

TEXTS = [
    "low lower",
    "low  lower\tnewest",  # whitespace_eow turns the run of spaces into one: the round trip fails
    "naïve café zq 🙂",  # unseen characters: fallbacks
    "naïve  café\tzq 🙂 zq",  # temporary ids (keep) in a text that does not round-trip
    "low<s>lower <s>",  # a special token, cut out only when allowed
    "",
    "x</w> a</w>",
]


@pytest.fixture(scope="module")
def tokenizers() -> list[bpe_core.Tokenizer]:
    char = bpe_core.train(CORPUS, num_merges=12, special_tokens=("<s>",)).tokenizer
    attached = bpe_core.train(CORPUS, num_merges=12, end_of_word="attached").tokenizer
    byte = bpe_core.train(CORPUS, num_merges=12, pretokenizer="gpt2", unit="byte", special_tokens=("<s>",)).tokenizer
    return [char, char.with_fallback("unk"), char.with_fallback("bytes"), attached, byte]


@pytest.mark.parametrize("order", ["rank", "sequential"])
@pytest.mark.parametrize("allowed", [(), "all"])
def test_reading_the_trace_gives_what_encoding_again_gives(tokenizers, order, allowed):
    for tok in tokenizers:
        for text in TEXTS:
            trace = tok.encode_with_trace(text, order=order, allowed_special=allowed)
            again = tok.round_trip(text, order=order, allowed_special=allowed)
            assert round_trip(tok, text, order=order, allowed_special=allowed, trace=trace) == again
            assert order_differences(tok, text, trace=trace) == tok.order_differences(text)


def test_a_trace_of_another_text_or_order_is_not_read(tokenizers):
    tok = tokenizers[0]
    other = tok.encode_with_trace("zq zq", order="sequential")
    assert round_trip(tok, "low  lower", trace=other) == tok.round_trip("low  lower")
    assert round_trip(tok, "zq zq", trace=other) == tok.round_trip("zq zq")  # made in the other order
    assert order_differences(tok, "low lower", trace=other) == tok.order_differences("low lower")


def _count_splits(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text the pre-tokenizer is asked to split, from now on (the whole engine splits through it)."""
    calls: list[str] = []
    split = PreTokenizer.split

    def counted(self: PreTokenizer, text: str) -> list[str]:
        calls.append(text)
        return split(self, text)

    monkeypatch.setattr(PreTokenizer, "split", counted)
    return calls


@pytest.mark.parametrize(
    ("text", "allow_special", "splits", "round_trips"),
    [
        ("low lower newest", False, 1, True),  # was 3: the trace, the order differences, the round trip
        ("low  lower newest", False, 1, False),  # the round trip fails: was 4 (its cause is found in a fresh trace)
        ("low<s>lower", False, 1, True),  # the special token is text here, as for the order differences (was 3)
        ("low<s>lower", True, 3, False),  # two pieces, then the whole text with no token matched (was 7)
    ],
)
def test_encoded_pre_tokenizes_the_text_once(tokenizers, monkeypatch, text, allow_special, splits, round_trips):
    tok = tokenizers[0]
    cache.encoded.clear()
    calls = _count_splits(monkeypatch)
    got = cache.encoded(tok, ("test", "once"), text, "rank", allow_special, "keep", 100)
    assert len(calls) == splits
    assert got.round_trip.ok == round_trips
    monkeypatch.undo()
    allowed = "all" if allow_special else ()
    assert got.trace == tok.encode_with_trace(text, allowed_special=allowed)
    assert got.round_trip == tok.round_trip(text, allowed_special=allowed)
    assert got.differing == frozenset(d.text for d in tok.order_differences(text))

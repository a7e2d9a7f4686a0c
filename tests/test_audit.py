"""The glitch-token audit (issue 21 item 3): partial-UTF-8, unreachable, never-used and scaffold tokens.

For the bundled tables, every finding is recomputed with tiktoken's own encoder
(``decode_single_token_bytes``, ``encode``), the definition of Land & Bartolo
2024 (section 3.1) applied literally. Small trained tables are checked against
values worked by hand.
"""

from __future__ import annotations

import json
import random
import tracemalloc
from collections import Counter

import pytest

from bpe_core import TokenIdError, Tokenizer, VocabularyAudit, audit_vocabulary, train
from bpe_core.analysis.audit import KINDS, own_encoding
from bpe_core.formats import CL100K_SPECIAL_TOKENS, bundled
from bpe_core.formats._common import rendered_to_bytes
from bpe_core.formats.tiktoken_ranks import O200K_PATTERN, O200K_SPECIAL_TOKENS
from bpe_core.text.pretokenize import GPT2_PATTERN, GPT4_PATTERN

TEXTBOOK = " ".join(["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3)


# ---------------------------------------------------------------- golden values, worked by hand


def _by_string(tok: Tokenizer, ids) -> list[str]:  # noqa: ANN001
    return [tok.model.id_to_token(i) for i in ids]


def test_the_textbook_scaffolds():
    """Separate ``</w>``, 10 merges (first_seen): e s, es t, est </w>, l o, lo w, n e, ne w, new est</w>,
    low </w>, w i. The corpus's words become ``low</w>``, ``low e r </w>``, ``newest</w>`` and
    ``wi d est</w>``: ``es``, ``est``, ``lo``, ``ne`` and ``new`` are never emitted (each exists only to build
    a longer token), nor are the letters that always merged (i, l, n, o, s, t, w). Every one of them is a part
    of some rule, so all are scaffolds; ``e``, ``r`` and ``d`` survive in ``lower`` and ``widest``."""
    result = train(TEXTBOOK, num_merges=10)
    tok = result.tokenizer
    assert result.merges == [
        ("e", "s"),
        ("es", "t"),
        ("est", "</w>"),
        ("l", "o"),
        ("lo", "w"),
        ("n", "e"),
        ("ne", "w"),
        ("new", "est</w>"),
        ("low", "</w>"),
        ("w", "i"),
    ]
    audit = audit_vocabulary(tok, TEXTBOOK)
    assert audit.partial_utf8 == () and audit.unreachable == ()
    unused = ["i", "l", "n", "o", "s", "t", "w", "es", "est", "lo", "ne", "new"]
    assert _by_string(tok, audit.never_used) == unused
    assert _by_string(tok, audit.scaffolds) == unused
    counts = {tok.model.id_to_token(i): n for i, n in audit.usage.items()}
    assert counts == {
        "low</w>": 5,
        "low": 2,
        "e": 2,
        "r": 2,
        "</w>": 2,
        "newest</w>": 6,
        "wi": 3,
        "d": 3,
        "est</w>": 3,
    }
    assert audit.corpus_tokens == sum(counts.values()) == 28
    assert set(audit.kinds(tok.model.vocab["est"])) == {"never_used", "scaffold"}
    assert audit.kinds(tok.model.vocab["low</w>"]) == () and audit.uses(tok.model.vocab["low</w>"]) == 5
    # the separate </w> is no token of text: left out of the audit, but named, so a count can say so
    assert audit.marker == tok.model.vocab["</w>"] and audit.marker not in audit.audited
    assert audit.special == audit.fallback == () and len(audit.audited) + 1 == len(tok)


def test_a_token_blocked_by_an_earlier_rule_is_unreachable():
    """Rules (b, c), (a, b), (ab, c): on its own symbols 'abc' becomes 'a bc', so 'abc' never forms; 'ab'
    does (in 'abd'). A hand-made table, as Tokenizer.from_merges reads it (no marker)."""
    tok = Tokenizer.from_merges([("b", "c"), ("a", "b"), ("ab", "c")], pretokenizer="none")
    audit = audit_vocabulary(tok)
    assert _by_string(tok, audit.unreachable) == ["abc"]
    assert tok.encode("abc") == [tok.model.vocab["a"], tok.model.vocab["bc"]]


def test_with_the_marker_a_word_start_is_checked_on_its_own_symbols():
    """Attached ``</w>``. 'er' (no marker) is a word's start or middle, never a whole word: encoding the text
    'er' gives 'e r</w>' symbols, never the token 'er'. On its own symbols, without the marker, (e, r) forms
    it, and 'ert' (e r t</w>) does emit it: reachable. With (e, r</w>), (x, e), (xe, r</w>), the word 'xer'
    merges e with r</w> first and 'xer</w>' never forms: unreachable, though its rule is in the table."""
    tok = Tokenizer.from_merges([("r", "s</w>"), ("e", "r")], end_of_word="attached", alphabet="t")
    audit = audit_vocabulary(tok, "ert ers")
    assert audit.unreachable == ()
    assert tok.tokenize("ert") == ["er", "t</w>"]
    assert audit.uses(tok.model.vocab["er"]) == 1
    made = Tokenizer.from_merges([("e", "r</w>"), ("x", "e"), ("xe", "r</w>")], end_of_word="attached")
    assert _by_string(made, audit_vocabulary(made).unreachable) == ["xer</w>"]
    assert made.tokenize("xer") == ["x", "er</w>"]


def test_own_encoding_says_what_decided():
    made = Tokenizer.from_merges([("e", "r</w>"), ("x", "e"), ("xe", "r</w>")], end_of_word="attached")
    assert own_encoding(made, made.model.vocab["xer</w>"]) == (made.model.vocab["x"], made.model.vocab["er</w>"])
    assert own_encoding(made, made.model.vocab["xe"]) == (made.model.vocab["xe"],)
    gpt2 = bundled("gpt2")
    assert own_encoding(gpt2, 50256) is None  # <|endoftext|>: special, not audited
    assert own_encoding(gpt2, gpt2.model.table.byte_ids[0xFF]) is None  # partial UTF-8: no text of its own
    with pytest.raises(TokenIdError):
        own_encoding(gpt2, 10**6)


def test_trailing_space_tokens_end_in_a_space_and_are_reachable():
    result = train("the cat the hat the mat", pretokenizer="trailing_space", num_merges=6)
    audit = audit_vocabulary(result.tokenizer, "the cat the hat the mat")
    tokens = _by_string(result.tokenizer, range(len(result.tokenizer)))
    assert "the " in tokens and audit.unreachable == ()


def test_byte_level_partial_tokens_and_fallback_tokens():
    result = train("café café naïve 🙂🙂🙂", unit="byte", pretokenizer="gpt2", num_merges=20)
    tok = result.tokenizer
    audit = audit_vocabulary(tok, "café café naïve 🙂🙂🙂")
    for i in audit.partial_utf8:
        with pytest.raises(UnicodeDecodeError):
            tok.model.token_bytes(i).decode("utf-8")
    assert tok.model.table.byte_ids[0xF5] in audit.partial_utf8
    assert tok.model.table.byte_ids[0xF5] in audit.never_used  # no UTF-8 text holds the byte 0xF5
    char = train("café", num_merges=2).tokenizer.with_fallback("bytes")
    audit = audit_vocabulary(char, "café ï")
    assert not set(char.model.byte_fallback_ids) & set(audit.audited)  # fallback tokens are not learned: not audited
    assert audit.fallback == tuple(sorted(char.model.byte_fallback_ids)) and len(audit.fallback) == 256
    every = {*audit.audited, *audit.special, *audit.fallback, audit.marker}
    assert every == set(range(len(char)))  # each assigned id is audited or left out for a named reason
    assert audit.uses(char.model.byte_fallback_ids[0xC3]) == 1  # ï falls back to <0xC3> <0xAF>


def test_special_tokens_are_counted_not_audited():
    result = train("a b <s> a b <s>", special_tokens=["<s>"], num_merges=2)
    tok = result.tokenizer
    audit = audit_vocabulary(tok, "a b <s> a b <s>")
    sid = tok.specials.ids["<s>"]
    assert audit.special == (sid,) and sid not in audit.audited and audit.uses(sid) == 2
    assert audit_vocabulary(tok, "a b <s>", allowed_special=()).uses(sid) == 0


def test_word_counts_are_read_as_pre_tokens():
    result = train(TEXTBOOK, num_merges=10)
    by_text = audit_vocabulary(result.tokenizer, TEXTBOOK)
    by_counts = audit_vocabulary(result.tokenizer, dict(Counter(TEXTBOOK.split())))
    assert by_counts == by_text
    with pytest.raises(TypeError):
        audit_vocabulary(result.tokenizer, {"low": 2.5})


def test_without_a_corpus_usage_is_unknown():
    audit = audit_vocabulary(train(TEXTBOOK, num_merges=3).tokenizer)
    assert audit.usage is None and audit.never_used is None and audit.scaffolds is None
    assert audit.kinds(0) == () and audit.uses(0) is None
    assert set(KINDS) == {"partial_utf8", "unreachable", "never_used", "scaffold"}


def test_progress_is_reported_and_ends_complete():
    calls = []
    audit = audit_vocabulary(bundled("gpt2"), "hello world", progress=lambda done, total: calls.append((done, total)))
    assert calls and calls[-1][0] == calls[-1][1] and all(d <= t for d, t in calls)
    assert isinstance(audit, VocabularyAudit)


def test_the_audit_leaves_the_tokenizers_cache_alone():
    tok = bundled("gpt2")
    tok.model.clear_cache()
    audit_vocabulary(tok)
    assert not tok.model._caches["rank"]  # 50,000 token texts would crowd out real text's pre-tokens


@pytest.mark.parametrize("settings", [{}, {"unit": "byte", "pretokenizer": "gpt2"}])
def test_memory_grows_linearly_with_the_corpus(settings):
    rng = random.Random(5)
    words = ["".join(rng.choice("abcdefghij") for _ in range(rng.randrange(2, 9))) for _ in range(3000)]
    text = " ".join(rng.choice(words) for _ in range(160_000))
    tok = train(text[:20_000], num_merges=50, **settings).tokenizer

    def peak(corpus: str) -> int:
        tok.model.clear_cache()
        tracemalloc.start()
        try:
            audit_vocabulary(tok, corpus)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    n = len(text) // 4
    assert peak(text) <= 4.5 * peak(text[:n])


# ---------------------------------------------------------------- against tiktoken's own encoder


def _tiktoken_encoding(name: str, reference_dir):  # noqa: ANN001
    tiktoken = pytest.importorskip("tiktoken", reason="tiktoken is a test-only dependency")
    tiktoken_load = pytest.importorskip("tiktoken.load")
    if name == "gpt2":
        encoder = json.loads((reference_dir / "gpt2" / "encoder.json").read_text(encoding="utf-8"))
        ranks = {rendered_to_bytes(k): v for k, v in encoder.items() if k != "<|endoftext|>"}
        return tiktoken.Encoding(
            "gpt2", pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens={"<|endoftext|>": 50256}
        )
    ranks = tiktoken_load.load_tiktoken_bpe(str(reference_dir / f"{name}.tiktoken"))
    pattern, specials = (
        (GPT4_PATTERN, CL100K_SPECIAL_TOKENS) if name == "cl100k_base" else (O200K_PATTERN, O200K_SPECIAL_TOKENS)
    )
    return tiktoken.Encoding(name, pat_str=pattern, mergeable_ranks=ranks, special_tokens=specials)


def _recomputed(enc, corpus: str) -> dict[str, object]:  # noqa: ANN001
    """The audit by the definitions, with tiktoken alone: decode each rank's bytes, encode its text again."""
    partial, unreachable = [], []
    for rank in sorted(enc._mergeable_ranks.values()):
        raw = enc.decode_single_token_bytes(rank)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            partial.append(rank)
            continue
        if enc.encode(text, disallowed_special=()) != [rank]:
            unreachable.append(rank)
    usage = Counter(enc.encode(corpus, allowed_special="all"))
    never = [r for r in sorted(enc._mergeable_ranks.values()) if r not in usage]
    return {"partial": partial, "unreachable": unreachable, "usage": dict(usage), "never": never}


@pytest.mark.reference
@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_the_bundled_tables_audit_as_tiktoken_recomputes_them(name, reference_dir, corpora):
    enc = _tiktoken_encoding(name, reference_dir)
    corpus = corpora["taylorswift"] + "<|endoftext|>" + corpora["udhr-multiscript"][:200_000]
    theirs = _recomputed(enc, corpus)
    audit = audit_vocabulary(bundled(name), corpus)
    assert list(audit.partial_utf8) == theirs["partial"]
    assert list(audit.unreachable) == theirs["unreachable"]
    assert audit.usage == theirs["usage"]
    assert list(audit.never_used) == theirs["never"]
    assert list(audit.audited) == sorted(enc._mergeable_ranks.values())
    assert audit.corpus_tokens == len(enc.encode(corpus, allowed_special="all"))

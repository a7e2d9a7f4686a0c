"""Training: golden values worked by hand, the trace, options and bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import bpe_core
from bpe_core import BPEError, BudgetError, EmptyCorpusError, OptionError, train

from .conftest import REPO
from .engine_helpers import initial_segmentations
from .naive_bpe import naive_train

LOW = "low low low low low lowest lowest newer newer newer newer newer newer wider wider wider new new"


def pairs_and_counts(result):
    return [(s.pair, s.count) for s in result.steps]


# ----------------------------------------------------------------- golden values


def test_textbook_corpus_first_seen():
    """Worked by hand: counts of each pair in the 18-word corpus, ties to the pair seen first."""
    r = train(LOW, num_merges=10)
    assert pairs_and_counts(r) == [
        (("e", "r"), 9),
        (("er", "</w>"), 9),
        (("n", "e"), 8),
        (("ne", "w"), 8),
        (("l", "o"), 7),
        (("lo", "w"), 7),
        (("new", "er</w>"), 6),
        (("low", "</w>"), 5),
        (("w", "i"), 3),
        (("wi", "d"), 3),
    ]


def test_textbook_corpus_alphabetical_changes_merge_3():
    """(n,e), (e,w) both count 8 after two merges; 'e' < 'n' so alphabetical picks (e,w)."""
    r = train(LOW, num_merges=10, tie_break="alphabetical")
    assert r.merges[2] == ("e", "w")
    assert r.steps[2].count == 8
    assert r.steps[2].tied[:2] == (("e", "w"), ("n", "e"))


def test_word_frequency_mapping_without_marker():
    """{"low": 5, "lower": 2, "newer": 6, "wider": 3}: (e,r) 2+6+3, then (w,er) 2+6, then (l,o) 5+2."""
    r = train({"low": 5, "lower": 2, "newer": 6, "wider": 3}, num_merges=3, pretokenizer="whitespace")
    assert pairs_and_counts(r) == [(("e", "r"), 11), (("w", "er"), 8), (("l", "o"), 7)]


def test_abababc_gage():
    """No pre-tokenizer: (a,b) x3, then (ab,ab) x2 (overlapping), encoding gives abab ab c."""
    r = train("abababc", num_merges=2, pretokenizer="none", min_frequency=2)
    assert r.merges == [("a", "b"), ("ab", "ab")]
    assert r.tokenizer.tokenize("abababc") == ["abab", "ab", "c"]
    assert r.steps[1].count == 2 and r.steps[1].replacements == 1


@pytest.mark.parametrize(
    ("tie_break", "tokens"),
    [("first_seen", ["aa", "aaa", "aaab"]), ("alphabetical", ["aa", "ab", "aaab"])],
)
def test_aaabdaaabac_byte_level(tie_break, tokens):
    """The Wikipedia example: ids are bytes 0..255 then 256+i; both rules encode to the same ids."""
    r = train("aaabdaaabac", num_merges=3, pretokenizer="none", unit="byte", tie_break=tie_break)
    assert [s.token for s in r.steps] == tokens
    assert [s.token_id for s in r.steps] == [256, 257, 258]
    assert r.tokenizer.encode("aaabdaaabac") == [258, 100, 258, 97, 99]


def test_overlap_count_versus_replacements():
    """In 'aaaaa' the pair (a,a) occurs 4 times (overlapping) but only 2 can be replaced."""
    r = train("aaaaa", num_merges=1, pretokenizer="none")
    step = r.steps[0]
    assert (step.count, step.replacements) == (4, 2)
    assert step.words[0].before == ("a",) * 5
    assert step.words[0].after == ("aa", "aa", "a")
    assert step.words[0].merged_at == (0, 1)


def test_tie_rules_subword_nmt_and_hf():
    """Both (a,b) and (c,d) occur twice: subword-nmt takes the largest pair, HF the smallest ids."""
    corpus = {"cd": 2, "ab": 2}
    assert train(corpus, num_merges=1, pretokenizer="whitespace", tie_break="subword_nmt").merges == [("c", "d")]
    assert train(corpus, num_merges=1, pretokenizer="whitespace", tie_break="hf_tokenizers").merges == [("a", "b")]
    assert train(corpus, num_merges=1, pretokenizer="whitespace", tie_break="first_seen").merges == [("c", "d")]
    assert train(corpus, num_merges=1, pretokenizer="whitespace", tie_break="alphabetical").merges == [("a", "b")]


def test_hf_tie_rule_uses_rendered_byte_order():
    """Byte unit: HF sorts its alphabet by rendered character, so 'Ġ' (space, U+0120) sorts after 'z'."""
    corpus = {" z": 2, "ab": 2}
    r = train(corpus, num_merges=1, pretokenizer="whitespace", unit="byte", tie_break="hf_tokenizers")
    assert r.merges == [("a", "b")]
    # byte 0x01 renders as 'ā' (U+0101): first by byte value, last by rendered character
    r = train({"\x01z": 2, "ab": 2}, num_merges=2, pretokenizer="whitespace", unit="byte", tie_break="hf_tokenizers")
    assert r.merges == [("a", "b"), ("ā", "z")]


# ----------------------------------------------------------------- ids and vocabulary


def test_ids_specials_then_alphabet_then_merges():
    r = train("ab ab", num_merges=1, special_tokens=["<s>", "</s>"], pretokenizer="whitespace")
    assert r.vocab == {"<s>": 0, "</s>": 1, "a": 2, "b": 3, "ab": 4}
    assert r.alphabet == ("a", "b")


def test_byte_ids_follow_tiktoken_convention():
    r = train("hello hello", num_merges=2, pretokenizer="gpt2", unit="byte")
    assert r.vocab["h"] == ord("h") and r.vocab["Ġ"] == ord(" ")
    assert [s.token_id for s in r.steps] == [256, 257]
    assert len(r.vocab) == 258


def test_vocab_size_budget():
    r = train(LOW, vocab_size=13)  # d e i l n o r s t w + </w> = 11 base symbols, so 2 merges
    assert len(r.alphabet) == 11 and r.num_merges == 2 and len(r.vocab) == 13
    with pytest.raises(BudgetError, match="minimum of 11"):
        train(LOW, vocab_size=10)
    with pytest.raises(ValueError, match="minimum of 13"):
        train(LOW, vocab_size=5, special_tokens=["<a>", "<b>"])
    assert train(LOW, vocab_size=11).num_merges == 0


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"num_merges": 3, "vocab_size": 20}, {"num_merges": -1}, {"vocab_size": -5}, {"num_merges": 2.5}],
)
def test_bad_budgets(kwargs):
    with pytest.raises(BudgetError):
        train(LOW, **kwargs)


@pytest.mark.parametrize(
    "kwargs",
    [{"pretokenizer": "bogus"}, {"unit": "word"}, {"end_of_word": "both"}, {"tie_break": "random"}],
)
def test_unknown_options(kwargs):
    with pytest.raises(OptionError, match="expected one of"):
        train(LOW, num_merges=1, **kwargs)


# ----------------------------------------------------------------- pre-tokenizers and the marker


def test_pretokenize_gpt2_example():
    assert bpe_core.pretokenize("Hello, I've been learning BPE!", "gpt2") == [
        "Hello",
        ",",
        " I",
        "'ve",
        " been",
        " learning",
        " BPE",
        "!",
    ]


def test_pretokenize_modes():
    text = "the cat\u00a0sat\r\n  on\tmat"
    assert bpe_core.pretokenize(text, "whitespace") == ["the", "cat", "sat", "on", "mat"]
    assert bpe_core.pretokenize(text, "trailing_space") == ["the ", "cat ", "sat ", "on ", "mat"]
    assert bpe_core.pretokenize(text, "none") == [text]
    assert "".join(bpe_core.pretokenize(text, "gpt2")) == text
    assert "".join(bpe_core.pretokenize(text, "gpt4")) == text
    assert bpe_core.pretokenize("12345", "gpt4") == ["123", "45"]
    assert bpe_core.pretokenize("", "gpt2") == []


def test_trailing_space_learns_word_plus_space():
    r = train("the cat the dog the end", num_merges=3, pretokenizer="trailing_space")
    assert r.merges == [("t", "h"), ("th", "e"), ("the", " ")]


def test_attached_marker_matches_subword_nmt_form():
    r = train(LOW, num_merges=2, end_of_word="attached")
    assert r.merges[0] == ("e", "r</w>")
    assert "r</w>" in r.alphabet and "</w>" not in r.alphabet


def test_literal_end_of_word_text_is_not_the_marker():
    """A corpus that spells '</w>' gets four ordinary characters, then the real marker."""
    r = train("x</w> x</w> x</w>", num_merges=5, pretokenizer="whitespace_eow")
    assert initial_segmentations(r)[0] == ("x", "<", "/", "w", ">", "</w>")
    marker_id = r.tokenizer.model.table.marker_id
    literal = r.tokenizer.encode("</w>")
    assert marker_id in literal and literal.count(marker_id) == 1
    assert r.tokenizer.decode(r.tokenizer.encode("x</w> a</w>")) == "x</w> a</w>"


def test_literal_marker_text_stays_apart_in_the_trace_views():
    """Merging the typed characters '<' '/' 'w' '>' builds a token that renders like the marker: views keep ids."""
    r = train("a a a a a</w> a</w>", num_merges=5)
    assert r.merges == [("a", "</w>"), ("a", "<"), ("a<", "/"), ("a</", "w"), ("a</w", ">")]
    last = r.word_changes(4)
    assert [(w.word, w.before, w.after) for w in last] == [("a</w>", ("a</w", ">", "</w>"), ("a</w>", "</w>"))]
    assert last[0].merged_at == (0,)  # the new token, not the merge-0 token with the same string
    assert last == list(r.steps[4].words)
    assert r.segmentation(1, 5) == ("a</w>", "</w>")
    assert r.tokenizer.model.replay_ids("a</w>", 5) == (r.steps[4].token_id, r.tokenizer.model.table.marker_id)


def test_pair_counts_by_id_keep_pairs_that_render_alike():
    r = train({"a": 10, "a</w>": 10, "xa": 2, "xa</w>": 2}, num_merges=5)
    merged_eow, literal = r.steps[0].token_id, r.steps[4].token_id  # both render as 'a</w>'
    assert r.symbol_strings[merged_eow] == r.symbol_strings[literal] == "a</w>"
    x, marker = r.vocab["x"], r.tokenizer.model.table.marker_id
    by_id = r.pair_counts_at(5, by_id=True)
    assert by_id == {(literal, marker): 12, (x, merged_eow): 2, (x, literal): 2}
    assert r.pair_counts_at(5) == {("a</w>", "</w>"): 12, ("x", "a</w>"): 4}
    assert r.num_pairs_at(5) == 3


def test_tied_at_lists_every_tied_pair_beyond_the_recorded_cap():
    r = train(LOW, num_merges=10, max_tied=1)
    assert r.steps[0].tied == (("e", "r"),) and r.steps[0].num_tied == 2
    assert r.tied_at(0) == [("e", "r"), ("r", "</w>")]  # first seen: 'newer' has e r before r </w>
    a = train(LOW, num_merges=10, max_tied=1, tie_break="alphabetical")
    assert a.tied_at(2) == [("e", "w"), ("n", "e")]  # both count 8; the smaller string pair wins
    with pytest.raises(ValueError, match="out of range"):
        r.tied_at(10)


def test_num_pairs_at_counts_every_distinct_pair():
    r = train(LOW, num_merges=10)
    for k in range(r.num_merges + 1):
        assert r.num_pairs_at(k) == len(r.pair_counts_at(k, by_id=True))
    with pytest.raises(ValueError, match="out of range"):
        r.num_pairs_at(11)
    with pytest.raises(ValueError, match="trace=True"):
        train(LOW, num_merges=2, trace=False).num_pairs_at(0)


def test_crlf_and_unicode_whitespace():
    text = "ab\r\nab\u2003ab\u3000ab\tab"
    assert train(text, num_merges=1, pretokenizer="whitespace").steps[0].count == 5
    r = train(text, num_merges=2, pretokenizer="gpt2", unit="byte")
    assert r.tokenizer.decode(r.tokenizer.encode(text)) == text


def test_special_tokens_are_cut_out_of_the_corpus():
    r = train("ab<|end|>ab<|end|>ab", num_merges=5, pretokenizer="none", special_tokens=["<|end|>"])
    assert r.vocab["<|end|>"] == 0
    assert all("|" not in a + b for a, b in r.merges)
    assert r.words == (("ab", 3),)


# ----------------------------------------------------------------- bad input


@pytest.mark.parametrize("corpus", ["", "   \n\t  ", "<|x|><|x|>", {}])
def test_empty_corpus(corpus):
    with pytest.raises(EmptyCorpusError, match="no words"):
        train(corpus, num_merges=5, special_tokens=["<|x|>"])


def test_no_repeated_pair_stops_with_a_reason():
    r = train("abc def", num_merges=5)
    assert r.merges == []
    assert "below min_frequency=2" in r.stop_reason


def test_more_merges_than_exist_stops_early():
    r = train("aaaa", num_merges=100, pretokenizer="none", min_frequency=1)
    assert r.merges == [("a", "a"), ("aa", "aa")]
    assert "no pair is left" in r.stop_reason


def test_binary_junk():
    with pytest.raises(TypeError, match="decode it"):
        train(b"\x00\xff\xfe", num_merges=2)
    junk = bytes(range(256)).decode("latin-1") * 3
    r = train(junk, num_merges=20, pretokenizer="none", unit="byte")
    assert r.tokenizer.decode(r.tokenizer.encode(junk)) == junk


def test_lone_surrogate_in_byte_mode():
    with pytest.raises(BPEError, match="surrogate"):
        train("ab\ud800ab", num_merges=2, unit="byte")
    with pytest.raises(BPEError, match="lone surrogate U\\+D800 at position 2"):  # one policy for every unit
        train("ab\ud800 ab\ud800", num_merges=2, unit="char")


def test_mapping_validation():
    with pytest.raises(TypeError):
        train({"a": "3"}, num_merges=1)
    with pytest.raises(ValueError):
        train({"ab": 0}, num_merges=1)
    with pytest.raises(TypeError):
        train(["ab", "ab"], num_merges=1)


# ----------------------------------------------------------------- the trace


def test_trace_records_ties_top_pairs_and_lengths():
    r = train(LOW, num_merges=10)
    s0 = r.steps[0]
    assert s0.num_tied == 2 and s0.tied == (("e", "r"), ("r", "</w>"))
    assert s0.tie_keys[0].startswith("first seen in word 3 'newer'")
    assert s0.top_pairs[0] == (("e", "r"), 9)
    assert r.initial_tokens == sum(len(w) + 1 for w in LOW.split())
    assert s0.tokens_after == r.initial_tokens - 9
    assert s0.vocab_size_after == len(r.alphabet) + 1
    assert {w.word for w in s0.words} == {"newer", "wider"} and s0.num_words == 2


def test_pair_counts_at_matches_a_recount():
    text = "the cat sat on the mat with the hat " * 3 + "that thin thing"
    r = train(text, num_merges=12)
    for k in (0, 5, 12):
        segs = [r.segmentation(i, k) for i in range(len(r.words))]
        expect: dict[tuple[str, str], int] = {}
        for seg, (_w, f) in zip(segs, r.words):
            for pair in zip(seg, seg[1:]):
                expect[pair] = expect.get(pair, 0) + f
        assert r.pair_counts_at(k) == expect
        assert r.tokens_at(k) == sum(len(seg) * f for seg, (_w, f) in zip(segs, r.words))
        if k < r.num_merges:
            top = r.steps[k].top_pairs
            assert all(expect[p] == c for p, c in top)
            assert top[0][1] == max(expect.values())


def test_word_changes_agree_with_recorded_words():
    r = train(LOW, num_merges=10)
    for k, step in enumerate(r.steps):
        full = r.word_changes(k)
        assert len(full) == step.num_words
        by_word = {w.word: w for w in full}
        for w in step.words:
            assert by_word[w.word] == w


def test_trace_off_learns_the_same_merges():
    a = train(LOW, num_merges=10, trace=False)
    b = train(LOW, num_merges=10)
    assert a.merges == b.merges and a.steps[3].count == b.steps[3].count
    with pytest.raises(ValueError, match="trace=True"):
        a.pair_counts_at(1)


def test_progress_callback():
    calls = []
    train(LOW, num_merges=10, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(k, 10) for k in range(1, 11)]  # every merge of a short run, in order
    calls.clear()
    excerpt = (REPO / "sample_corpora" / "shakespeare_excerpt.txt").read_text(encoding="utf-8")
    result = train(excerpt, num_merges=800, progress=lambda done, total: calls.append((done, total)))
    done = [d for d, _t in calls]
    assert result.num_merges == 800 and done[-1] == 800 and done == sorted(done)
    assert 100 <= len(calls) <= 250 and {t for _d, t in calls} == {800}  # about 200 updates, not one per merge


def test_long_word_is_recorded_as_excerpt():
    text = "ab" * 200
    r = train(text, num_merges=1, pretokenizer="none")
    w = r.steps[0].words[0]
    assert w.excerpt and w.occurrences == 200 and len(w.after) <= 32


def test_deterministic_across_hash_seeds():
    """No result may depend on PYTHONHASHSEED: train in subprocesses with different seeds."""
    code = (
        "import json, bpe_core; text = open('sample_corpora/README.md', encoding='utf-8').read();"
        "r = bpe_core.train(text, num_merges=60, tie_break='{rule}', pretokenizer='gpt2', unit='byte');"
        "print(json.dumps([r.merges, [s.tied for s in r.steps]]))"
    )
    for rule in ("first_seen", "hf_tokenizers"):
        outs = set()
        for seed in ("0", "1", "12345"):
            env = {**os.environ, "PYTHONHASHSEED": seed}
            out = subprocess.run(
                [sys.executable, "-c", code.format(rule=rule)],
                cwd=REPO,
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            outs.add(out)
        assert len(outs) == 1
        assert len(json.loads(outs.pop())[0]) == 60


def test_naive_trainer_agrees_on_textbook_examples():
    for rule in ("first_seen", "alphabetical", "subword_nmt", "hf_tokenizers"):
        fast = train(LOW, num_merges=12, tie_break=rule)
        assert pairs_and_counts(fast) == naive_train(LOW, 12, tie_break=rule)

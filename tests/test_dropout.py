"""BPE-dropout (Provilkov et al. 2020; issue 21 item 4): ``encode(text, dropout=p, seed=s)`` and its trace.

p=0 is plain encoding, p=1 the base symbols, a seed gives the same samples, a hand-worked example with scripted
random draws, and the distribution of samples against subword-nmt's ``apply_bpe.encode(..., dropout=p)``.
"""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from bpe_core import OptionError, Temporaries, Tokenizer, train
from bpe_core.encoding.merging import RANK
from bpe_core.formats import bundled

SENNRICH = " ".join(["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3)
TEXT = "the lowest newest widest lower newer, 2024 naïve 🙂 tokens"


@pytest.fixture(scope="module")
def textbook() -> Tokenizer:
    return train(SENNRICH, num_merges=10).tokenizer


@pytest.fixture(scope="module")
def tables(textbook) -> dict[str, Tokenizer]:
    return {
        "textbook": textbook,
        "byte": train(SENNRICH + " " + TEXT, num_merges=40, pretokenizer="gpt2", unit="byte").tokenizer,
        "gpt2": bundled("gpt2"),
        "cl100k_base": bundled("cl100k_base"),
    }


class Scripted(random.Random):
    """A generator whose ``random()`` returns the given values in order (and fails past their end)."""

    def __init__(self, values: list[float]) -> None:
        super().__init__(0)
        self.values = list(values)

    def random(self) -> float:
        return self.values.pop(0)


@pytest.mark.parametrize("name", ["textbook", "byte", "gpt2", "cl100k_base"])
@pytest.mark.parametrize("order", ["rank", "sequential"])
def test_p_zero_is_plain_encoding(tables, name, order):
    tok = tables[name]
    assert tok.encode(TEXT, order=order, dropout=0, seed=5) == tok.encode(TEXT, order=order)
    assert tok.encode_with_trace(TEXT, order=order, dropout=0.0, seed=5) == tok.encode_with_trace(TEXT, order=order)


@pytest.mark.parametrize("name", ["textbook", "byte", "gpt2", "cl100k_base"])
@pytest.mark.parametrize("order", ["rank", "sequential"])
def test_p_one_gives_the_base_symbols(tables, name, order):
    tok = tables[name]
    temporaries = Temporaries(len(tok.model))  # characters outside the alphabet: numbered as encode numbers them
    spelled = [i for chunk, _special in tok.pre_tokens(TEXT) for i in tok.model.spell(chunk, temporaries)]
    assert tok.encode(TEXT, order=order, dropout=1, seed=3) == spelled
    trace = tok.encode_with_trace(TEXT, order=order, dropout=1.0, seed=3)
    assert trace.ids == spelled and all(not p.steps for p in trace.pieces)
    # every merge that could have fired is listed as skipped, and the rules it would have used as blocked by it
    newest = next(p for p in trace.pieces if p.text.strip() == "newest")
    assert newest.dropped_at_end and all(b.kind in ("dropped", "apart") for b in newest.blocked)


def test_a_seed_gives_the_same_samples_and_seeds_differ(tables):
    for tok in tables.values():
        samples = [tok.encode(TEXT, dropout=0.3, seed=s) for s in range(8)]
        assert samples == [tok.encode(TEXT, dropout=0.3, seed=s) for s in range(8)]
        assert len({tuple(s) for s in samples}) > 1
        assert [tok.encode_with_trace(TEXT, dropout=0.3, seed=s).ids for s in range(8)] == samples
        assert all(tok.decode(s) == tok.decode(tok.encode(TEXT)) for s in samples)  # the same text, other pieces


def test_dropout_never_reads_or_fills_the_cache(textbook):
    textbook.model.clear_cache()
    cache = textbook.model.cache(RANK)
    cache["lowest"] = (0,)  # a wrong entry: plain encoding would return it, dropout must not
    assert textbook.encode("lowest") == [0]
    assert textbook.encode("lowest", dropout=0.01, seed=1) != [0]
    assert set(cache) == {"lowest"}
    textbook.model.clear_cache()


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), float("inf"), "0.1", True, None, [0.2]])
def test_dropout_outside_zero_one_is_an_option_error(textbook, bad):
    with pytest.raises(OptionError, match="dropout must be a probability"):
        textbook.encode("low", dropout=bad)
    with pytest.raises(OptionError, match="dropout must be a probability"):
        textbook.encode_with_trace("low", dropout=bad)


def test_a_seed_that_is_not_an_int_is_an_option_error(textbook):
    for bad in ("7", 1.5, True):
        with pytest.raises(OptionError, match="seed must be an int"):
            textbook.encode("low", dropout=0.5, seed=bad)


def test_hand_worked_newest(textbook):
    """'newest' with Sennrich's toy table (e s, es t, est </w>, l o, lo w, n e, ne w, ...), p = 0.5.

    Step 1: candidates lowest rank first: e s (rank 0, at 3), n e (rank 5, at 0); draws 0.05 < 0.5 skips e s,
    0.9 keeps n e: n e fires. Step 2: e s (at 2) drawn 0.7, kept: it fires. Step 3: es t (rank 1) drawn 0.2 and
    ne w (rank 6) drawn 0.3: both skipped, nothing is left, the run ends at ne w es t </w>.
    """
    draws = [0.05, 0.9, 0.7, 0.2, 0.3]
    ids = textbook.encode("newest", dropout=0.5, seed=Scripted(draws))
    assert [textbook.model.id_to_token(i) for i in ids] == ["ne", "w", "es", "t", "</w>"]
    trace = textbook.encode_with_trace("newest", dropout=0.5, seed=Scripted(draws))
    piece = trace.pieces[0]
    assert [(s.rank, s.pair, s.positions) for s in piece.steps] == [(5, ("n", "e"), (0,)), (0, ("e", "s"), (2,))]
    assert [(d.rank, d.pair, d.positions) for d in piece.steps[0].dropped] == [(0, ("e", "s"), (3,))]
    assert piece.steps[1].dropped == ()
    assert [(d.rank, d.pair, d.token, d.positions) for d in piece.dropped_at_end] == [
        (1, ("es", "t"), "est", (2,)),
        (6, ("ne", "w"), "new", (0,)),
    ]
    assert {(b.rank, b.kind) for b in piece.blocked} == {(1, "dropped"), (6, "dropped")}
    # three draws said skip: e s at step 1, and es t and ne w at the last attempt (which a count over the
    # steps alone would leave out)
    assert piece.skipped_merges == trace.skipped_merges == 3


def test_skipped_merges_of_a_text_add_up_its_pre_tokens(textbook):
    """The whole text's count is its pre-tokens' sum; p = 0 skips none, p = 1 skips every candidate at the end."""
    assert textbook.encode_with_trace(TEXT).skipped_merges == 0
    trace = textbook.encode_with_trace(TEXT, dropout=1.0, seed=0)
    assert trace.skipped_merges == sum(p.skipped_merges for p in trace.pieces) > 0
    # newest </w>: the candidates are e s (rank 0) and n e (rank 5), nothing merges, both are skipped at the end
    newest = next(p for p in trace.pieces if p.text.strip() == "newest")
    assert (newest.steps, newest.skipped_merges) == ((), 2)


def test_pair_semantics_merge_every_kept_site_of_a_rule_at_once():
    """a a a a with rule (a, a): draws keep sites 1 and 2 and skip 0: site 1 merges, 2 overlaps it, 3 is drawn."""
    tok = Tokenizer.from_merges([("a", "a")], pretokenizer="none")
    piece = tok.encode_with_trace("aaaa", dropout=0.5, seed=Scripted([0.1, 0.8, 0.8, 0.2, 0.9])).pieces[0]
    # step 1: sites 0 (0.1, skipped), 1 (0.8, kept), 2 (0.8, kept but overlapping 1); then a aa a: no (a, a) left
    assert [(s.rank, s.positions) for s in piece.steps] == [(0, (1,))]
    assert piece.tokens == ("a", "aa", "a")


def as_subword_nmt(tokens: list[str]) -> tuple[str, ...]:
    """Our tokens as subword-nmt prints a word: the end-of-word marker dropped from the last token."""
    word = list(tokens)
    if word[-1] == "</w>":
        word = word[:-1]
    elif word[-1].endswith("</w>"):
        word[-1] = word[-1][:-4]
    return tuple(word)


@pytest.mark.reference
@pytest.mark.parametrize("p", [0.1, 0.3, 0.6])
def test_samples_follow_subword_nmt_distribution(textbook, p):
    """Both samplers draw from the same distribution: total variation distance small on 3,000 samples each."""
    from subword_nmt import apply_bpe

    codes = {pair: rank for rank, pair in enumerate(textbook.model.merges)}
    reverse = {a + b: (a, b) for a, b in codes}
    n = 3_000
    for word in ("newest", "lowest", "widest"):
        ours = Counter(
            as_subword_nmt([textbook.model.id_to_token(i) for i in textbook.encode(word, dropout=p, seed=s)])
            for s in range(n)
        )
        random.seed(1234)
        theirs = Counter(apply_bpe.encode(word, codes, reverse, None, "@@", (0, 1), {}, dropout=p) for _ in range(n))
        support = set(ours) | set(theirs)
        distance = sum(abs(ours[k] - theirs[k]) for k in support) / (2 * n)
        assert distance < 0.06, (word, p, distance, ours.most_common(4), theirs.most_common(4))
        # and the tokens per word grow with p, as the paper's Figure 2 shows for the segmentations' length
    lengths = [
        sum(len(textbook.encode("newest lowest widest", dropout=q, seed=s)) for s in range(300)) for q in (0, p, 1)
    ]
    assert lengths[0] < lengths[1] < lengths[2]


def test_skipped_merges_per_step_follow_p():
    """Over many samples the share of candidates skipped is near p (the rule is one draw per candidate)."""
    tok = Tokenizer.from_merges([("a", "b")], pretokenizer="none")
    skipped = kept = 0
    for s in range(400):
        piece = tok.encode_with_trace("ab" * 10, dropout=0.25, seed=s).pieces[0]
        kept += sum(len(step.positions) for step in piece.steps)
        skipped += piece.skipped_merges
    share = skipped / (skipped + kept)
    assert math.isclose(share, 0.25, abs_tol=0.03), share

"""Parallel sections and the token premium (Petrov et al. 2023): the UDHR sample read into its 84
languages, malformed headers refused with the line named, premiums pinned against tiktoken's counts on
the same sections, and premium curves over a merge table checked against truncated tables.

tiktoken is a test-only dependency; no network is used: the encodings are built from the reference
files (the same bytes as bpe_core/formats/data/), as in tests/test_formats_reference.py.
"""

from __future__ import annotations

import json

import pytest
import tiktoken
import tiktoken.load

import bpe_core
from bpe_core import ParallelSection, SectionError, Tokenizer, parallel_sections, premium_curves, token_premiums
from bpe_core.analysis.languages import curve_points, letter_scripts, premiums_of, token_counts, unseen_characters
from bpe_core.formats import bundled
from bpe_core.formats._common import rendered_to_bytes
from bpe_core.formats.tiktoken_ranks import O200K_PATTERN
from bpe_core.text.pretokenize import GPT2_PATTERN, GPT4_PATTERN

from .conftest import SHIPPED_CORPORA

UDHR = (SHIPPED_CORPORA / "udhr-multiscript.txt").read_text(encoding="utf-8")

GOLDEN = {
    "gpt2": {"eng": 2035, "fra": 4013, "hin": 16896, "cmn_hans": 5579, "mya": 41801, "amh": 16223},
    "cl100k_base": {"eng": 2016, "fra": 3123, "hin": 10607, "cmn_hans": 3291, "mya": 29320, "amh": 16063},
    "o200k_base": {"eng": 2017, "fra": 2635, "hin": 3178, "cmn_hans": 2252, "mya": 7928, "amh": 10843},
}
"""Tokens of six UDHR sections, as tiktoken's ``encode_ordinary`` counts them (computed once with tiktoken)."""


@pytest.fixture(scope="module")
def sections() -> dict[str, ParallelSection]:
    return parallel_sections(UDHR)


@pytest.fixture(scope="module")
def tiktoken_encodings(reference_dir) -> dict[str, tiktoken.Encoding]:
    encoder = json.loads((reference_dir / "gpt2" / "encoder.json").read_text(encoding="utf-8"))
    gpt2_ranks = {rendered_to_bytes(k): v for k, v in encoder.items() if k != "<|endoftext|>"}

    def ranks(name: str) -> dict[bytes, int]:
        return tiktoken.load.load_tiktoken_bpe(str(reference_dir / f"{name}.tiktoken"))

    return {
        "gpt2": tiktoken.Encoding("gpt2", pat_str=GPT2_PATTERN, mergeable_ranks=gpt2_ranks, special_tokens={}),
        "cl100k_base": tiktoken.Encoding("cl100k", pat_str=GPT4_PATTERN, mergeable_ranks=ranks("cl100k_base"),
                                         special_tokens={}),
        "o200k_base": tiktoken.Encoding("o200k", pat_str=O200K_PATTERN, mergeable_ranks=ranks("o200k_base"),
                                        special_tokens={}),
    }  # fmt: skip


# ----------------------------------------------------------------- reading parallel sections


def test_the_udhr_sample_holds_84_languages(sections):
    assert len(sections) == 84
    assert list(sections)[:3] == ["eng", "fra", "spa"] and list(sections)[-1] == "ccp"
    eng = sections["eng"]
    assert (eng.name, eng.collection, eng.line) == ("English", "UDHR", 1)
    assert eng.text.startswith("Universal Declaration of Human Rights\nPreamble\nWhereas recognition")
    assert eng.text.endswith("set forth herein.")
    assert sections["deu_1996"].name == "German, Standard (1996)" and sections["fra"].line == 95
    # the emoji list after the last UDHR header is another kind of section: skipped, not part of Chakma
    assert "emoji" not in sections["ccp"].text and "===" not in "".join(s.text for s in sections.values())


def test_each_section_names_the_scripts_of_its_letters(sections):
    expected = {
        "eng": "Latin",
        "rus": "Cyrillic",
        "hin": "Devanagari",
        "cmn_hans": "Han",
        "jpn": "Hiragana + Han",
        "kor": "Hangul",
        "arb": "Arabic",
        "ike": "Canadian Aboriginal",
        "mya": "Myanmar",
        "div": "Thaana",
        "fuf_adlm": "Adlam",
    }
    assert {code: sections[code].script for code in expected} == expected
    assert sections["bel"].scripts == (("Cyrillic", 9425),)  # U+02BC, a Common-script letter, is not counted
    assert letter_scripts("ab αβγ 12, !") == (("Greek", 3), ("Latin", 2))
    assert letter_scripts("123 !?") == () and ParallelSection("x", "X", "C", "123", 1).script == "none"


def test_any_text_with_the_header_convention_and_crlf_line_ends():
    text = "A title line\r\n=== Tale: English [en] ===\r\nThe cat sat.\r\n\r\n"
    text += "=== Tale: French [fr-FR] ===\r\nLe chat.\r\n"
    got = parallel_sections(text)
    assert list(got) == ["en", "fr-FR"]
    assert got["en"].text == "The cat sat." and got["fr-FR"].text == "Le chat." and got["fr-FR"].line == 5
    two = "=== A: English [en] ===\nx\n=== B: English [en] ===\ny\n"
    assert parallel_sections(two, collection="B")["en"].text == "y"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("=== UDHR: English ===\nhello\n", "line 1: '=== UDHR: English ===' is not a section header; expected ==="),
        ("=== UDHR: English [eng]\nhello\n", "line 1:"),
        ("=== U: En [eng] ===\nhi\n=== U: Other [eng] ===\nho\n", "line 3: code [eng] is used twice (first on line 1)"),
        ("=== U: English [eng] ===\n\n  \n=== U: Fr [fra] ===\nhi\n", "line 1: section [eng] (English) holds no text"),
        ("just text, no header\n", "no section found"),
        ("", "no section found"),
        ("=== A: English [en] ===\nx\n=== B: French [fr] ===\ny\n", "line 3 starts a section of collection 'B'"),
    ],
)  # fmt: skip
def test_malformed_parallel_text_is_refused_with_the_line(text, message):
    with pytest.raises(SectionError) as exc:
        parallel_sections(text)
    assert message in str(exc.value)


def test_bad_types_and_unknown_collection():
    with pytest.raises(TypeError, match="must be a str"):
        parallel_sections(b"=== A: English [en] ===\nx")  # type: ignore[arg-type]
    with pytest.raises(SectionError, match="no section of collection 'Z' found"):
        parallel_sections("=== A: English [en] ===\nx\n", collection="Z")


# ----------------------------------------------------------------- premiums against tiktoken


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_premiums_equal_tiktokens_counts_on_every_section(sections, tiktoken_encodings, name):
    enc = tiktoken_encodings[name]
    theirs = {code: len(enc.encode_ordinary(s.text)) for code, s in sections.items()}
    assert {code: theirs[code] for code in GOLDEN[name]} == GOLDEN[name]
    assert token_counts(bundled(name), sections) == theirs
    premiums = token_premiums(bundled(name), sections)
    assert premiums == {code: n / theirs["eng"] for code, n in theirs.items()}
    assert premiums["eng"] == 1.0 and list(premiums) == list(sections)


def test_the_token_tax_shrinks_from_gpt2_to_o200k(sections):
    """Petrov et al.'s finding on this sample: Burmese costs 20x English's tokens under GPT-2, 4x under o200k_base."""
    burmese = {name: round(token_premiums(bundled(name), {k: sections[k] for k in ("eng", "mya")})["mya"], 2)
               for name in GOLDEN}  # fmt: skip
    assert burmese == {"gpt2": 20.54, "cl100k_base": 14.54, "o200k_base": 3.93}


def test_premiums_of_plain_texts_and_errors():
    tok = Tokenizer.from_merges([("l", "o"), ("lo", "w")], pretokenizer="whitespace")
    assert token_premiums(tok, {"eng": "low low", "x": "l o w"}) == {"eng": 1.0, "x": 1.5}
    with pytest.raises(SectionError, match=r"no section \[eng\] to measure premiums against; codes: a, b"):
        token_premiums(tok, {"a": "low", "b": "low"})
    with pytest.raises(SectionError, match=r"section \[eng\] gives no tokens"):
        token_premiums(tok, {"eng": "", "x": "low"})
    with pytest.raises(TypeError, match="expected a Tokenizer or TrainResult"):
        token_premiums("gpt2", {"eng": "low"})  # type: ignore[arg-type]
    assert premiums_of({"fr": 3, "en": 2}, "en") == {"fr": 1.5, "en": 1.0}


# ----------------------------------------------------------------- characters outside a char-level alphabet


def test_unseen_characters_worked_by_hand():
    # alphabet {l, o, w}: "lower" has e and r outside it; the whitespace pre-tokenizer drops the space
    tok = Tokenizer.from_merges([("l", "o"), ("lo", "w")], pretokenizer="whitespace")
    assert unseen_characters(tok, {"eng": "low lower", "rus": "мир мир", "x": "low"}) == {"eng": 2, "rus": 6, "x": 0}
    # no pre-tokenizer: the space is a symbol too, and outside this alphabet
    assert unseen_characters(Tokenizer.from_merges([("l", "o")], pretokenizer="none"), {"a": "lo lo"}) == {"a": 1}
    # byte unit: every byte is in the alphabet
    byte_tok = Tokenizer.from_merges([("l", "o")], pretokenizer="gpt2", unit="byte")
    assert unseen_characters(byte_tok, {"rus": "мир"}) == {"rus": 0}
    with pytest.raises(TypeError, match="expected a Tokenizer or TrainResult"):
        unseen_characters("gpt2", {"eng": "low"})  # type: ignore[arg-type]


@pytest.mark.parametrize("fallback", ["keep", "unk", "bytes"])
def test_unseen_characters_are_the_traces_fallbacks_and_each_stays_a_token(sections, fallback):
    """A char-level table trained on English: every character of another script is a fallback record of the
    trace, and under keep or unk one token each, so Chinese costs one token per character it holds."""
    english = bpe_core.train(sections["eng"].text, num_merges=300, pretokenizer="whitespace_eow", unit="char")
    tok = english.tokenizer.with_fallback(fallback)
    texts = {code: sections[code].text[:800] for code in ("eng", "fra", "rus", "cmn_hans")}
    unseen = unseen_characters(tok, texts)
    fell = {code: sum(len(p.fallbacks) for p in tok.encode_with_trace(t).pieces) for code, t in texts.items()}
    assert unseen == fell
    assert unseen["eng"] == 0 and unseen["rus"] > 0
    han = sum(not ch.isspace() for ch in texts["cmn_hans"] if ch not in english.tokenizer.model.vocab)
    assert unseen["cmn_hans"] == han  # every Han character: none is in an English table's alphabet
    # "All human beings are born free" in Chinese, one word: its six characters and the word's </w>
    word = "人人生而自由"
    per_char = {"keep": 1, "unk": 1, "bytes": 3}[fallback]  # bytes: each Han character's three UTF-8 bytes
    assert unseen_characters(tok, {"w": word}) == {"w": 6}
    assert len(tok.encode(word)) == 6 * per_char + 1


# ----------------------------------------------------------------- premium curves over a merge table


def test_curves_worked_by_hand():
    # eng "low lower": 8 symbols; (l,o) -> 6; (lo,w) -> 4; (e,r) -> 3.  fra "er er er": 6, 6, 6, 3.
    tok = Tokenizer.from_merges([("l", "o"), ("lo", "w"), ("e", "r")], pretokenizer="whitespace")
    curves = premium_curves(tok, {"eng": "low lower", "fra": "er er er"}, share=0.5)
    assert curves.ks == (0, 1, 2, 3) and curves.merges == 3 and list(curves.counts) == ["eng", "fra"]
    assert curves.counts == {"eng": (8, 6, 4, 3), "fra": (6, 6, 6, 3)}
    assert curves.premium_curve("fra") == (0.75, 1.0, 1.5, 1.0) and curves.premiums(2) == {"eng": 1.0, "fra": 1.5}
    assert curves.helped == {"eng": ((0, 2), (1, 2), (2, 1)), "fra": ((2, 3),)}
    assert curves.last_gain == {"eng": 2, "fra": 2}
    assert curves.mostly_done == {"eng": 2, "fra": 3}  # half of eng's 5 saved by merge 2; fra's 3 only at 3
    assert curves.most_helped == ("eng", "eng", "fra") and curves.saved == (2, 2, 4)
    assert premium_curves(tok, {"eng": "low", "x": "zzz"}).mostly_done["x"] == 0  # nothing to save: done at 0
    assert premium_curves(tok, {"eng": "low", "x": "zzz"}).last_gain["x"] is None


def test_curve_points():
    assert curve_points(3) == (0, 1, 2, 3) and curve_points(0) == (0,)
    points = curve_points(2000, 60)
    assert len(points) == 60 and points[0] == 0 and points[-1] == 2000 and list(points) == sorted(set(points))


@pytest.mark.parametrize(
    "settings",
    [
        {"pretokenizer": "gpt2", "unit": "byte"},
        {"pretokenizer": "whitespace_eow", "unit": "char"},  # other scripts' letters kept as unseen symbols
    ],
)
def test_curves_equal_tables_cut_to_k_merges_and_never_rise(sections, settings):
    mix = {code: sections[code] for code in ("eng", "fra", "rus", "hin", "cmn_hans")}
    corpus = "\n".join(s.text[:3000] for s in mix.values())
    result = bpe_core.train(corpus, num_merges=300, **settings)
    texts = {code: s.text[:1500] for code, s in mix.items()}
    curves = premium_curves(result, texts, points=7)
    assert set(curves.ks) == {0, 50, 100, 150, 200, 250, 300, curves.mostly_done["eng"]}  # English's point kept
    eow = {"end_of_word": "separate"} if settings["pretokenizer"] == "whitespace_eow" else {}
    for i, k in enumerate(curves.ks):
        cut = Tokenizer.from_merges(result.merges[:k], **settings, **eow)
        assert {code: curves.counts[code][i] for code in texts} == {c: len(cut.encode(t)) for c, t in texts.items()}
    for code, counts in curves.counts.items():
        assert all(a >= b for a, b in zip(counts, counts[1:])), code  # more merges never lengthen a text
        assert sum(saved for _rank, saved in curves.helped[code]) <= counts[0] - counts[-1]
    assert {c: n[-1] for c, n in curves.counts.items()} == token_counts(result, texts)
    assert sum(curves.saved) == sum(n[0] - n[-1] for n in curves.counts.values())
    winners = {code for code in curves.most_helped if code is not None}
    assert winners <= set(texts) and "eng" in winners


def test_curve_arguments_are_checked():
    tok = Tokenizer.from_merges([("l", "o")], pretokenizer="whitespace")
    with pytest.raises(SectionError, match=r"no section \[eng\]"):
        premium_curves(tok, {"fra": "lo"})
    with pytest.raises(ValueError, match="points must be at least 2"):
        premium_curves(tok, {"eng": "lo"}, points=1)
    with pytest.raises(ValueError, match=r"share in \(0, 1\]"):
        premium_curves(tok, {"eng": "lo"}, share=0)


def test_the_benchmark_runs(capsys):
    """``python3 -m bench.languages`` runs end to end (no time is asserted: the numbers come from running it)."""
    from bench import languages

    languages.main(repeats=1)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "UDHR: 84 languages, 858,155 characters"
    assert lines[1].startswith("premium curves, 2,000 merges:") and "ratio" in lines[1]
    assert [line.split(":")[0] for line in lines[3:]] == [f"token_premiums {n}" for n in GOLDEN]

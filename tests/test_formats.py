"""Tokenizer files in and out (bpe_core.formats): bundled GPT-2 / cl100k_base, every format's round trip,
what each format refuses, and malformed files. Cross-checks against tiktoken, tokenizers and subword-nmt
are in test_formats_reference.py."""

from __future__ import annotations

import base64
import io
import json
import zipfile

import pytest

from bpe_core import MergeTableError, OptionError, TokenIdError, Tokenizer, train
from bpe_core.formats import (
    CL100K_SPECIAL_TOKENS,
    FORMATS,
    REFERENCE_DIR,
    ExportError,
    FormatError,
    bundled,
    corpus_sha256,
    download,
    export,
    exportable,
    load,
    load_bytes,
    load_files,
    load_gpt2,
    load_session,
    load_tiktoken,
    prove,
    recover_merges,
    to_hf_json,
    to_session,
    to_tiktoken,
)
from bpe_core.formats._common import rendered_to_bytes
from bpe_core.text.pretokenize import GPT4_PATTERN
from bpe_core.text.symbols import SymbolTable

from .engine_helpers import retrain

TEXT = (
    "The quick brown fox jumps over the lazy dog. The dog sleeps; the fox runs on and on.\n"
    "Über naïve café owners -- 東京 and 서울 -- sell 1234567 crêpes!\n"
    "def f(x):\n    return x ** 2  # squares\n"
) * 12
PROBE = "The lazy fox sells 765 crêpes in 東京. def g(y): return y"

# Every setting each format claims to hold (the trained tokenizer must round-trip through it).
SUPPORTED = {
    "hf_json": [
        dict(unit="byte", pretokenizer="gpt2"),
        dict(unit="byte", pretokenizer="gpt4"),
        dict(unit="byte", pretokenizer="none"),
        dict(unit="byte", pretokenizer="whitespace"),
        dict(unit="byte", pretokenizer="trailing_space"),
        dict(unit="byte", pretokenizer="whitespace_eow", end_of_word="attached"),
        dict(unit="char", pretokenizer="whitespace_eow", end_of_word="attached"),
        dict(unit="char", pretokenizer="whitespace"),
        dict(unit="char", pretokenizer="trailing_space"),
        dict(unit="char", pretokenizer="gpt2"),
        dict(unit="char", pretokenizer="gpt4"),
        dict(unit="char", pretokenizer="none"),
    ],
    "gpt2": [
        dict(unit="byte", pretokenizer="gpt2"),
        dict(unit="char", pretokenizer="whitespace_eow", end_of_word="attached"),
        dict(unit="char", pretokenizer="whitespace_eow", end_of_word="separate"),
        dict(unit="char", pretokenizer="whitespace"),
    ],
    "tiktoken": [
        dict(unit="byte", pretokenizer="gpt2"),
        dict(unit="byte", pretokenizer="gpt4"),
        dict(unit="byte", pretokenizer="none"),
        dict(unit="byte", pretokenizer="whitespace"),
    ],
    "subword_nmt": [
        dict(unit="char", pretokenizer="whitespace_eow", end_of_word="attached"),
        dict(unit="char", pretokenizer="whitespace_eow", end_of_word="separate"),
    ],
    "session": [
        dict(unit="byte", pretokenizer="gpt2"),
        dict(unit="byte", pretokenizer="whitespace_eow", end_of_word="separate"),
        dict(unit="byte", pretokenizer="whitespace_eow", end_of_word="attached"),
        dict(unit="char", pretokenizer="whitespace_eow", end_of_word="separate"),
        dict(unit="char", pretokenizer="whitespace_eow", end_of_word="attached"),
        dict(unit="char", pretokenizer="trailing_space"),
        dict(unit="char", pretokenizer="none"),
    ],
}
CASES = [(fmt, kw) for fmt, settings in SUPPORTED.items() for kw in settings]


def _id(case: tuple[str, dict]) -> str:
    fmt, kw = case
    return f"{fmt}-{kw['unit']}-{kw['pretokenizer']}" + (f"-{kw['end_of_word']}" if "end_of_word" in kw else "")


def trained(**kw: object) -> Tokenizer:
    return train(TEXT, num_merges=120, special_tokens=["<|endoftext|>"], trace=False, **kw).tokenizer


# ----------------------------------------------------------------- bundled tokenizers


def test_gpt2_worked_examples():
    gpt2 = bundled("gpt2")
    assert gpt2.encode("hello") == [31373]
    assert gpt2.encode("a a") == [64, 257]
    assert gpt2.encode("<|endoftext|>", allowed_special="all") == [50256]
    assert gpt2.decode(gpt2.encode("Hello world!\n")) == "Hello world!\n"


def test_gpt2_ids_are_the_files_ids():
    gpt2 = bundled("gpt2")
    assert len(gpt2) == 50257 and gpt2.specials.ids == {"<|endoftext|>": 50256}
    # encoder.json orders the bytes printable-first: "!" is 0 and a space ("Ġ") is 220, not 32
    assert gpt2.model.table.byte_ids[ord("!")] == 0 and gpt2.model.table.byte_ids[ord(" ")] == 220
    assert gpt2.model.id_to_token(256) == "Ġt" and gpt2.model.merges[0] == ("Ġ", "t")
    assert len(gpt2.model.merges) == 50000 and gpt2.model.merge_by == "pair"


def test_bundled_is_cached_and_named():
    assert bundled("GPT-2") is bundled("gpt2")
    assert bundled("cl100k") is bundled("cl100k_base")
    assert bundled("o200k") is bundled("o200k_base")
    with pytest.raises(OptionError, match="cl100k_base, o200k_base"):
        bundled("p50k_base")


def test_cl100k_ids_gaps_and_specials():
    cl = bundled("cl100k_base")
    assert cl.model.merge_by == "bytes" and cl.pre_tokenizer.pattern == GPT4_PATTERN
    assert cl.encode("hello world") == [15339, 1917]
    assert cl.specials.ids == CL100K_SPECIAL_TOKENS
    assert cl.encode("<|endofprompt|>", allowed_special="all") == [100276]
    assert len(cl) == 100277
    assert cl.model.table.gaps == frozenset([100256, *range(100261, 100276)])
    for gap in (100256, 100270):
        with pytest.raises(TokenIdError, match=str(gap)):
            cl.decode([15339, gap])
        with pytest.raises(TokenIdError, match="not assigned"):
            cl.model.id_to_token(gap)
    assert "" not in cl.model.vocab and cl.model.vocab["<|endofprompt|>"] == 100276
    assert cl.decode([15339, 1917, 100257]) == "hello world<|endoftext|>"


def test_file_loaders_load_the_shipped_files():
    gpt2 = load_gpt2(REFERENCE_DIR / "encoder.json", REFERENCE_DIR / "vocab.bpe")
    assert gpt2.encode("hello a a") == bundled("gpt2").encode("hello a a") == [31373, 257, 257]
    cl = load_tiktoken(REFERENCE_DIR / "cl100k_base.tiktoken", GPT4_PATTERN, CL100K_SPECIAL_TOKENS)
    assert cl.encode(PROBE) == bundled("cl100k_base").encode(PROBE)


def test_load_recognises_the_shipped_files():
    loaded = load(REFERENCE_DIR / "encoder.json", REFERENCE_DIR / "vocab.bpe")
    assert loaded.format == "gpt2" and loaded.tokenizer.encode("hello") == [31373]
    cl = load(REFERENCE_DIR / "cl100k_base.tiktoken")  # OpenAI's published file: pattern and specials known
    assert cl.format == "tiktoken" and cl.tokenizer.name == "cl100k_base"
    assert cl.tokenizer.specials.ids == CL100K_SPECIAL_TOKENS


def test_gpt2_trace_shows_each_merged_pair():
    trace = bundled("gpt2").encode_with_trace("Hello world")
    world = trace.pieces[1]
    assert world.text == " world" and world.ids == (995,)
    assert world.initial == ("Ġ", "w", "o", "r", "l", "d")
    assert [s.pair for s in world.steps] == [("Ġ", "w"), ("o", "r"), ("l", "d"), ("Ġw", "or"), ("Ġwor", "ld")]
    for step in world.steps:
        assert step.token == step.pair[0] + step.pair[1]


def test_cl100k_trace_pairs_are_the_pieces_that_merged():
    trace = bundled("cl100k_base").encode_with_trace(" tokenization")
    piece = trace.pieces[0]
    assert piece.tokens == ("Ġtoken", "ization")
    for n, step in enumerate(piece.steps):
        assert step.token == step.pair[0] + step.pair[1]
        k = step.positions[0]
        assert piece.state(n)[k : k + 2] == step.pair


def test_recovered_pairs_equal_gpt2_merges():
    """vocab.bpe holds GPT-2's true pairs: recovering them from the ranks alone must give the same table."""
    gpt2 = bundled("gpt2")
    ranks = {gpt2.model.table.data[i]: i for i in range(50256)}
    recovered = recover_merges(ranks)
    assert [(a, b, new) for a, b, new in recovered] == list(gpt2.model.merge_ids)


def test_cl100k_recovered_pairs_rebuild_every_token():
    cl = bundled("cl100k_base")
    data = cl.model.table.data
    assert len(cl.model.merge_ids) == 100256 - 256
    previous = -1
    for a, b, new in cl.model.merge_ids:
        assert data[a] + data[b] == data[new] and a < new and b < new and new > previous
        previous = new


def test_whole_piece_lookup_of_an_unreachable_token():
    """tiktoken takes a piece that is itself a token whole, even when merging cannot reach it."""
    ranks = {bytes([b]): b for b in range(256)}
    ranks.update({b"bc": 256, b"ab": 257, b"cd": 258, b"abcd": 259})
    from bpe_core.formats import tokenizer_from_ranks

    tok = tokenizer_from_ranks(ranks, r"\S+|\s+")
    assert tok.encode("abcd") == [259]  # merging alone stops at a, bc, d
    assert tok.encode("abcde") == [97, 256, 100, 101]
    trace = tok.encode_with_trace("abcd").pieces[0]
    assert trace.ids == (259,) and trace.steps[-1].token == "abcd"


# ----------------------------------------------------------------- round trips


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_round_trip(case):
    fmt, kw = case
    tok = trained(**kw)
    files = export(tok, fmt)
    loaded = load_files(files)
    assert loaded.format == fmt
    back = loaded.tokenizer
    assert back.model.merges == tok.model.merges
    probe = PROBE if kw["unit"] == "byte" else TEXT[:400]
    if fmt == "subword_nmt":  # codes hold no ids: the segmentation must survive
        assert back.tokenize(probe) == tok.tokenize(probe)
    else:
        assert back.encode(probe) == tok.encode(probe)
        assert back.decode(back.encode(probe)) == tok.decode(tok.encode(probe))
    assert prove(tok, fmt, probe).ok
    again = load_files(export(back, fmt)).tokenizer  # a second round changes nothing
    assert again.model.merges == back.model.merges and again.encode(probe) == back.encode(probe)


@pytest.mark.parametrize("fmt", ["hf_json", "gpt2", "tiktoken", "subword_nmt", "session"])
def test_download_is_loadable_as_one_upload(fmt):
    kw = SUPPORTED[fmt][0]
    tok = trained(**kw)
    dl = download(tok, fmt, name="my model")
    if len(export(tok, fmt)) > 1:
        assert dl.filename == f"my_model-{fmt}.zip" and dl.mime == "application/zip"
    back = load_bytes(dl.data, dl.filename).tokenizer
    probe = PROBE if kw["unit"] == "byte" else TEXT[:300]
    assert back.tokenize(probe) == tok.tokenize(probe)


def test_bundled_tokenizers_round_trip_through_their_formats():
    gpt2, cl = bundled("gpt2"), bundled("cl100k_base")
    for fmt in ("gpt2", "hf_json", "tiktoken"):
        assert prove(gpt2, fmt, PROBE).ok, fmt
    for fmt in ("hf_json", "tiktoken"):
        assert prove(cl, fmt, PROBE).ok, fmt


def test_merges_with_spaces_survive_tokenizer_json():
    tok = trained(unit="char", pretokenizer="trailing_space")
    spaced = [m for m in tok.model.merges if " " in m[0] + m[1]]
    assert spaced, "trailing_space should learn tokens such as 'the '"
    doc = json.loads(to_hf_json(tok))
    assert [list(m) for m in tok.model.merges] == doc["model"]["merges"]
    assert load_files({"tokenizer.json": to_hf_json(tok).encode()}).tokenizer.model.merges == tok.model.merges


def test_session_keeps_settings_and_corpus_hash():
    result = train(TEXT, num_merges=80, unit="char", pretokenizer="whitespace_eow", end_of_word="attached")
    text = to_session(result, corpus=TEXT, corpus_name="toy")
    session = load_session(text)
    assert session.config == result.config
    assert session.corpus_sha256 == corpus_sha256(TEXT) and session.corpus_name == "toy"
    assert session.matches(TEXT) and not session.matches(TEXT + "x")
    assert session.tokenizer.model.vocab == result.tokenizer.model.vocab  # char-unit ids depend on the alphabet
    assert retrain(session, TEXT, trace=False).merges == result.merges
    with pytest.raises(ValueError, match="sha256"):
        retrain(session, TEXT + "x")
    doc = json.loads(text)
    assert doc["format"] == "bpe-explorer-session" and doc["version"] == 1 and doc["settings"]["tie_break"]


def test_session_of_fallback_tokenizers():
    for fallback in ("unk", "bytes"):
        tok = Tokenizer.from_merges(
            [("l", "o"), ("lo", "w")], pretokenizer="whitespace_eow", end_of_word="attached", fallback=fallback
        )
        for fmt in ("session", "hf_json", "gpt2"):
            if fallback == "bytes" and fmt != "session":  # Hugging Face would byte-fall back on '</w>' too
                with pytest.raises(ExportError, match="adds the 4 bytes of '</w>'"):
                    export(tok, fmt)
                continue
            back = load_files(export(tok, fmt)).tokenizer
            assert back.model.fallback == fallback and back.encode("low lox ü") == tok.encode("low lox ü"), (
                fmt,
                fallback,
            )


def test_exportable_names_a_reason_per_format():
    reasons = exportable(trained(unit="char", pretokenizer="whitespace_eow", end_of_word="separate"))
    assert set(reasons) == set(FORMATS)
    assert reasons["session"] is None and reasons["gpt2"] is None and reasons["subword_nmt"] is None
    assert "separate" in reasons["hf_json"] and "byte-level" in reasons["tiktoken"]


# ----------------------------------------------------------------- what a format cannot hold


@pytest.mark.parametrize(
    ("fmt", "kw", "match"),
    [
        ("hf_json", dict(unit="char", pretokenizer="whitespace_eow", end_of_word="separate"), "separate"),
        ("tiktoken", dict(unit="char", pretokenizer="gpt2"), "byte-level"),
        ("tiktoken", dict(unit="byte", pretokenizer="trailing_space"), "regex"),
        ("tiktoken", dict(unit="byte", pretokenizer="whitespace_eow", end_of_word="attached"), "end-of-word"),
        ("subword_nmt", dict(unit="byte", pretokenizer="gpt2"), "characters"),
        ("subword_nmt", dict(unit="char", pretokenizer="whitespace"), "whitespace_eow"),
        ("gpt2", dict(unit="byte", pretokenizer="gpt4"), "pre-tokenizer"),
        ("gpt2", dict(unit="char", pretokenizer="trailing_space"), "pre-tokenizer"),
    ],
)
def test_unrepresentable_settings_are_refused(fmt, kw, match):
    with pytest.raises(ExportError, match=match):
        export(trained(**kw), fmt)


def test_two_ids_with_one_string_are_refused():
    table = SymbolTable("byte", None, [])
    a, b, c = (table.byte_ids[ord(x)] for x in "abc")
    ab, bc = table.add_merge(a, b), table.add_merge(b, c)
    abc1, abc2 = table.add_merge(ab, c), table.add_merge(a, bc)
    tok = Tokenizer(table, [(a, b, ab), (b, c, bc), (ab, c, abc1), (a, bc, abc2)], pretokenizer="gpt2")
    for fmt in ("hf_json", "gpt2"):
        with pytest.raises(ExportError, match="two ids"):
            export(tok, fmt)
    with pytest.raises(ExportError, match="rank"):
        to_tiktoken(tok)
    assert prove(tok, "session", "abc abcabc").ok  # the session keeps both ids


def test_proof_catches_pair_versus_byte_semantics():
    """Rules (a,b), (b,c), (a,bc): by pair 'abc' stops at ab|c; tiktoken joins ab+c because 'abc' is a token."""
    tok = Tokenizer.from_merges([("a", "b"), ("b", "c"), ("a", "bc")], pretokenizer="none", unit="byte")
    assert tok.tokenize("abc") == ["ab", "c"]
    proof = prove(tok, "tiktoken", "abc")
    assert not proof.ok and proof.first_difference == 0 and "differs" in proof.message


def test_session_refuses_loaded_layouts():
    with pytest.raises(ExportError, match="own format"):
        to_session(bundled("gpt2"))


# ----------------------------------------------------------------- malformed files


def _tiktoken_file(lines: list[str]) -> bytes:
    return ("\n".join(lines) + "\n").encode()


def _ranks_lines() -> list[str]:
    lines = [f"{base64.b64encode(bytes([b])).decode()} {b}" for b in range(256)]
    lines.append(f"{base64.b64encode(b'ab').decode()} 256")
    return lines


def test_truncated_json_names_line_and_column():
    text = to_hf_json(trained(unit="byte", pretokenizer="gpt2"))
    cut = text[: len(text) // 2].encode()
    with pytest.raises(FormatError, match=r"tokenizer\.json: not valid JSON at line \d+ column \d+.*truncated"):
        load_bytes(cut, "tokenizer.json")


def test_bad_base64_names_the_line():
    lines = _ranks_lines()
    lines[10] = "QQ=A 10"
    with pytest.raises(FormatError, match="line 11"):
        load_bytes(_tiktoken_file(lines), "x.tiktoken", pattern=GPT4_PATTERN)
    lines[10] = "Q$Q= 10"
    with pytest.raises(FormatError, match="line 11"):
        load_bytes(_tiktoken_file(lines), "x.tiktoken", pattern=GPT4_PATTERN)


def test_rank_line_with_one_field_names_the_line():
    lines = _ranks_lines()
    lines[3] = "Iw=="
    with pytest.raises(FormatError, match="line 4: 1 fields"):
        load_bytes(_tiktoken_file(lines), "x.tiktoken", pattern=GPT4_PATTERN)


def test_repeated_rank_names_both_lines():
    lines = _ranks_lines()
    lines[256] = f"{base64.b64encode(b'ab').decode()} 5"
    with pytest.raises(FormatError, match="line 257: rank 5 was already given on line 6"):
        load_bytes(_tiktoken_file(lines), "x.tiktoken", pattern=GPT4_PATTERN)


def test_rank_file_missing_a_byte_is_rejected_with_the_bytes():
    lines = [line for line in _ranks_lines() if not line.endswith((" 10", " 32"))]
    with pytest.raises(MergeTableError, match=r"lacks 2 of the 256 single bytes: 0x0A \(Ċ\), 0x20 \(Ġ\)"):
        load_bytes(_tiktoken_file(lines), "x.tiktoken", pattern=GPT4_PATTERN)


def test_rank_file_missing_a_byte_names_the_byte_not_a_token():
    """cl100k_base without its 'A': the reason is the missing byte, found before merges are recovered."""
    cl100k = (REFERENCE_DIR / "cl100k_base.tiktoken").read_bytes()
    a_line = base64.b64encode(b"A").decode() + " "
    lines = [line for line in cl100k.decode().splitlines() if not line.startswith(a_line)]
    with pytest.raises(MergeTableError, match=r"lacks 1 of the 256 single bytes: 0x41 \(A\)"):
        load_bytes(_tiktoken_file(lines), "x.tiktoken", pattern=GPT4_PATTERN)


def test_split_patterns_that_do_not_compile_fail_at_load_time():
    with pytest.raises(FormatError, match=r"x\.tiktoken: the split pattern in pat_str does not compile"):
        load_bytes(_tiktoken_file(_ranks_lines()), "x.tiktoken", pattern="(unclosed")
    doc = json.loads(to_hf_json(trained(unit="byte", pretokenizer="gpt4")))
    splits = [p for p in doc["pre_tokenizer"]["pretokenizers"] if p["type"] == "Split"]
    splits[0]["pattern"]["Regex"] = "[a-"
    with pytest.raises(FormatError, match=r"pre_tokenizer\.pattern\.Regex does not compile"):
        load_bytes(json.dumps(doc).encode(), "tokenizer.json")


def test_truncated_merges_txt_is_refused_not_read_as_special_tokens():
    vocab = (REFERENCE_DIR / "encoder.json").read_bytes()
    lines = (REFERENCE_DIR / "vocab.bpe").read_text(encoding="utf-8").splitlines()
    cut = ("\n".join(lines[:40001]) + "\n").encode()  # the header and 40,000 of the 50,000 merges
    with pytest.raises(FormatError, match=r"10000 token\(s\) .* the merges look truncated"):
        load_files({"encoder.json": vocab, "vocab.bpe": cut})
    assert load_files({"encoder.json": vocab, "vocab.bpe": "\n".join(lines).encode()}).tokenizer.specials.ids == {
        "<|endoftext|>": 50256
    }


def test_rank_file_without_pattern_says_what_it_needs():
    with pytest.raises(FormatError, match="sidecar"):
        load_bytes(_tiktoken_file(_ranks_lines()), "x.tiktoken")


def test_merges_line_with_three_fields_names_the_line():
    files = export(trained(unit="byte", pretokenizer="gpt2"), "gpt2")
    lines = files["merges.txt"].decode().split("\n")
    lines[4] = "Ġ t h"
    files["merges.txt"] = "\n".join(lines).encode()
    with pytest.raises(FormatError, match="merges.txt: line 5 holds 3 space-separated fields"):
        load_files(files)


def test_merge_naming_an_unknown_token_names_the_line():
    files = export(trained(unit="byte", pretokenizer="gpt2"), "gpt2")
    files["merges.txt"] += "Ġzzz Ġqqq\n".encode()
    with pytest.raises(FormatError, match=r"merges.txt: line \d+: the merge \('Ġzzz', 'Ġqqq'\) needs 'Ġzzz'"):
        load_files(files)


def test_byte_level_vocab_missing_a_byte_is_rejected():
    files = export(trained(unit="byte", pretokenizer="gpt2"), "gpt2")
    vocab = json.loads(files["vocab.json"])
    unused = next(ch for ch in "ĀāĂ" if all(ch not in a + b for a, b in json_merges(files)))
    del vocab[unused]
    files["vocab.json"] = json.dumps(vocab).encode()
    with pytest.raises(MergeTableError, match="lacks 1 of the 256 single bytes"):
        load_files(files)


def json_merges(files: dict[str, bytes]) -> list[tuple[str, str]]:
    return [tuple(line.split(" ")) for line in files["merges.txt"].decode().splitlines()[1:]]


def test_tokenizer_json_missing_byte_and_bad_fields():
    doc = json.loads(to_hf_json(trained(unit="byte", pretokenizer="gpt2")))
    del doc["model"]["vocab"]["Ā"]
    with pytest.raises(MergeTableError, match="0x00"):
        load_bytes(json.dumps(doc).encode(), "tokenizer.json")
    doc = json.loads(to_hf_json(trained(unit="byte", pretokenizer="gpt2")))
    doc["model"]["merges"][2] = ["a", "b", "c"]
    with pytest.raises(FormatError, match=r"model\.merges\[2\]"):
        load_bytes(json.dumps(doc).encode(), "tokenizer.json")
    doc["model"]["type"] = "WordPiece"
    with pytest.raises(FormatError, match="only BPE"):
        load_bytes(json.dumps(doc).encode(), "tokenizer.json")
    del doc["model"]["vocab"]
    doc["model"]["type"] = "BPE"
    with pytest.raises(FormatError, match="'model.vocab' is missing"):
        load_bytes(json.dumps(doc).encode(), "tokenizer.json")


def test_unsupported_pre_tokenizer_is_named():
    doc = json.loads(to_hf_json(trained(unit="char", pretokenizer="whitespace")))
    doc["pre_tokenizer"] = {"type": "Metaspace", "replacement": "▁"}
    with pytest.raises(FormatError, match="'Metaspace' is not supported"):
        load_bytes(json.dumps(doc).encode(), "tokenizer.json")


def test_unknown_formats_say_what_was_expected():
    with pytest.raises(FormatError, match="unknown format; expected a Hugging Face tokenizer.json"):
        load_bytes(b"\x89PNG\r\n\x1a\n....", "picture.png")
    with pytest.raises(FormatError, match="not a tokenizer file"):
        load_bytes(b'{"hello": "world"}', "thing.json")
    with pytest.raises(FormatError, match="needs its merges.txt"):
        load_bytes(b'{"a": 0, "b": 1}', "vocab.json")
    with pytest.raises(FormatError, match='needs its merges.txt .*a tokenizer.json\'s "model" is an object'):
        load_bytes(b'{"model": 5}', "tokenizer.json")
    with pytest.raises(FormatError, match="without its vocab.json"):
        load_bytes(b"#version: 0.2\na b\n", "merges.txt")
    with pytest.raises(FormatError, match="not UTF-8"):
        load_bytes(b"#version: 0.2\n\xff\xfe b\n", "merges.txt")


def test_session_errors_name_the_field():
    text = to_session(trained(unit="char", pretokenizer="whitespace_eow", end_of_word="attached"))
    doc = json.loads(text)
    bad = dict(doc, version=7)
    with pytest.raises(FormatError, match="version 7"):
        load_bytes(json.dumps(bad).encode(), "s.json")
    bad = json.loads(text)
    bad["merge_ids"][3] = [0, 1, 99999]
    with pytest.raises(FormatError, match=r"merge_ids\[3\]"):
        load_bytes(json.dumps(bad).encode(), "s.json")
    bad = json.loads(text)
    bad["settings"]["unit"] = "word"
    with pytest.raises(FormatError, match="settings.unit"):
        load_bytes(json.dumps(bad).encode(), "s.json")
    bad = json.loads(text)
    bad["merges"][0] = ["x", "y"]
    with pytest.raises(FormatError, match=r"merges\[0\]"):
        load_bytes(json.dumps(bad).encode(), "s.json")


def test_subword_nmt_codes_errors_name_the_line():
    with pytest.raises(FormatError, match="codes: line 3 holds 1 field"):
        load_bytes(b"#version: 0.2\nl o\nlow\n", "codes")
    with pytest.raises(FormatError, match="codes: line 2: merge rule 0"):
        load_bytes(b"#version: 0.2\nlo w</w>\n", "codes")


def test_zip_with_unrelated_files_is_refused():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("notes.bin", b"\x00\x01binary")
    with pytest.raises(FormatError, match="notes.bin: unknown format"):
        load_bytes(buffer.getvalue(), "upload.zip")
    with pytest.raises(FormatError, match="not a readable zip"):
        load_bytes(b"PK\x03\x04broken", "upload.zip")


def test_rendered_to_bytes_rejects_characters_outside_the_alphabet():
    assert rendered_to_bytes("Ġhi") == b" hi"
    assert rendered_to_bytes("Ń") == b"\xad"  # U+0143 is the last shifted character
    for bad in (" ", "\x00", "ń", "€"):
        with pytest.raises(KeyError):
            rendered_to_bytes("a" + bad)


def test_bundled_parse_is_fast_and_preload_warms_the_cache():
    import time

    from bpe_core.formats import preload, shipped

    from .conftest import waited
    from .speed import slowness

    start = time.thread_time()  # CPU time of this thread: neither other processes nor the app's threads count
    fresh = shipped._load.__wrapped__("cl100k_base")  # the uncached parse
    cpu = time.thread_time() - start
    assert fresh.encode(PROBE) == bundled("cl100k_base").encode(PROBE)
    assert cpu < 6.0 * slowness(), f"parsing cl100k_base took {cpu:.2f} s of CPU (about 1 s expected)"
    thread = preload(("gpt2",))
    thread.join(timeout=waited(120))
    assert not thread.is_alive()

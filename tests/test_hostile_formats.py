"""Hostile tokenizer files and split patterns (issue 12): a specific error or the right ids, in bounded time and memory.

Inputs that used to take seconds or gigabytes run in a child process under
``resource.setrlimit`` (address space and CPU time), so a regression fails the
test instead of taking the machine down; the child reports its own CPU time
and peak resident memory (``VmHWM``), and the test bounds both. Split behaviours are compared with
Hugging Face ``tokenizers`` on the same files.
"""

from __future__ import annotations

import base64
import io
import json
import resource
import struct
import subprocess
import sys
import textwrap
import zipfile

import pytest

from bpe_core.formats import FormatError, load_bytes, load_files, to_hf_json
from bpe_core.text.pretokenize import GPT2_PATTERN, HFSplit, compiled_pattern

from .conftest import REPO, waited
from .speed import SLOWNESS_SOURCE

tokenizers = pytest.importorskip("tokenizers", reason="Hugging Face tokenizers is a test-only dependency")

MiB = 1024 * 1024

_PRELUDE = """
import json, resource, sys, time
from bpe_core.errors import BPEError

def peak_mib():
    # VmHWM belongs to this program's memory; ru_maxrss would keep the forking parent's peak across exec
    with open("/proc/self/status") as status:
        line = next(x for x in status if x.startswith("VmHWM:"))
    return int(line.split()[1]) / 1024

def report(**extra):
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu, rss_mib = usage.ru_utime + usage.ru_stime, peak_mib()
    print(json.dumps({"cpu": cpu, "rss_mib": rss_mib, "slowness": slowness(), **extra}))

def expect_error(call):
    try:
        call()
    except BPEError as exc:
        report(error=type(exc).__name__, message=str(exc))
    else:
        report(error=None, message="")
"""


def bounded(code: str, *, cpu_seconds: int = 60, memory_mib: int = 1024) -> dict:
    """Run ``code`` in a child Python under CPU and address-space limits; return the JSON its ``report`` printed:
    its CPU seconds, peak resident MiB, :func:`tests.speed.slowness` and what the code added."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds))
        resource.setrlimit(resource.RLIMIT_AS, (memory_mib * MiB, memory_mib * MiB))

    done = subprocess.run(
        [sys.executable, "-c", SLOWNESS_SOURCE + _PRELUDE + textwrap.dedent(code)],
        cwd=REPO,
        capture_output=True,
        text=True,
        preexec_fn=limit,
        timeout=waited(cpu_seconds * 4),
    )
    assert done.returncode == 0, f"the child failed (exit {done.returncode}): {done.stderr[-2000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def _rank_file(extra: list[bytes], first_rank: int = 256) -> bytes:
    lines = [base64.b64encode(bytes([b])) + b" %d" % b for b in range(256)]
    lines += [base64.b64encode(t) + b" %d" % (first_rank + k) for k, t in enumerate(extra)]
    return b"\n".join(lines) + b"\n"


def _char_json(chars: str, merges: list[tuple[str, str]], pre_tokenizer: dict | None) -> dict:
    vocab = {c: i for i, c in enumerate(chars)}
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    return {
        "version": "1.0",
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": None,
        "decoder": None,
        "model": {"type": "BPE", "vocab": vocab, "merges": [[a, b] for a, b in merges]},
    }


def _split(pattern: str, behavior: str, invert: bool = False, *, kind: str = "Regex") -> dict:
    return {"type": "Split", "pattern": {kind: pattern}, "behavior": behavior, "invert": invert}


# ---------------------------------------------------------------- item 2: sparse ids


def test_a_74_byte_tokenizer_json_with_id_10_8_is_refused_in_small_memory():
    out = bounded(
        """
        from bpe_core.formats import load_bytes
        data = b'{"model":{"type":"BPE","vocab":{"a":0,"b":100000000},"merges":[]}}'
        expect_error(lambda: load_bytes(data, "tokenizer.json"))
        """,
        memory_mib=1024,
    )
    assert out["error"] == "FormatError"
    assert "token 'b' has id 100,000,000, but the file holds only 2 tokens" in out["message"]
    assert out["rss_mib"] < 200 and out["cpu"] < 10 * out["slowness"]


def test_sparse_ids_are_refused_in_every_loader():
    ranks = _rank_file([])
    sparse_rank = ranks.replace(b" 255\n", b" 100000000\n")
    with pytest.raises(FormatError, match=r"x\.tiktoken: token .* has id 100,000,000, but the file holds only 256"):
        load_bytes(sparse_rank, "x.tiktoken", pattern=GPT2_PATTERN)
    sidecar = {"format": "tiktoken-encoding", "pat_str": GPT2_PATTERN, "special_tokens": {"<|end|>": 10**12}}
    with pytest.raises(FormatError, match=r"token '<\|end\|>' has id 1,000,000,000,000"):
        load_files({"x.tiktoken": ranks, "x.tiktoken.json": json.dumps(sidecar).encode()})
    doc = _char_json("ab", [], None)
    doc["added_tokens"] = [{"id": 10**400, "content": "<s>", "special": True}]
    with pytest.raises(
        FormatError, match=r"token '<s>' has id a number of 401 digits, but the file holds only 3 tokens"
    ):
        load_bytes(json.dumps(doc).encode(), "tokenizer.json")
    vocab = {"a": 0, "b": 5 * 10**7}
    with pytest.raises(FormatError, match=r"vocab\.json|merges\.txt"):
        load_files({"vocab.json": json.dumps(vocab).encode(), "merges.txt": b"#version: 0.2\n"})
    # gaps a file really has still load: cl100k_base leaves 100256 and 100261..100275 free
    gappy = ranks.replace(b" 255\n", b" 700\n")
    assert load_bytes(gappy, "x.tiktoken", pattern=GPT2_PATTERN).tokenizer.decode_bytes([700]) == b"\xff"


def test_json_too_deep_or_with_huge_numbers_is_a_format_error():
    with pytest.raises(FormatError, match="nested too deeply"):
        load_bytes(b"[" * 100_000 + b"]" * 100_000, "tokenizer.json")
    data = b'{"model":{"type":"BPE","vocab":{"a":0,"b":' + b"9" * 5000 + b'},"merges":[]}}'
    with pytest.raises(FormatError, match="more than 4,300 digits"):
        load_bytes(data, "tokenizer.json")
    with pytest.raises(FormatError, match=r"line 257: the rank '9{60}'… \(5,000 characters\) is too large"):
        load_bytes(_rank_file([]) + b"YWI= " + b"9" * 5000 + b"\n", "x.tiktoken", pattern=GPT2_PATTERN)


# ---------------------------------------------------------------- item 4: loaders linear in the file


def test_a_tiktoken_file_with_one_320_kb_token_loads_in_linear_time():
    out = bounded(
        """
        import base64, random
        from bpe_core.formats import load_bytes
        from bpe_core.text.pretokenize import GPT2_PATTERN
        random.seed(4)
        lines = [base64.b64encode(bytes([b])) + b" %d" % b for b in range(256)]
        big = bytes(random.randrange(256) for _ in range(320_000))
        data = b"\\n".join([*lines, base64.b64encode(big) + b" 256"]) + b"\\n"
        expect_error(lambda: load_bytes(data, "x.tiktoken", pattern=GPT2_PATTERN))
        """,
        cpu_seconds=30,
    )
    assert out["error"] == "FormatError" and "… (320,000 bytes) (rank 256) is not the concatenation" in out["message"]
    assert out["cpu"] < 5 * out["slowness"]


def test_nested_long_tokens_load_in_linear_time_and_encode_like_tiktoken():
    """Tokens a, aa, ..., a*2000 (2.7 MB): every token splits in many ways, which used to cost O(n^3)."""
    out = bounded(
        """
        import base64
        from bpe_core.formats import load_bytes
        from bpe_core.text.pretokenize import GPT2_PATTERN
        lines = [base64.b64encode(bytes([b])) + b" %d" % b for b in range(256)]
        lines += [base64.b64encode(b"a" * k) + b" %d" % (254 + k) for k in range(2, 2001)]
        data = b"\\n".join(lines) + b"\\n"
        tok = load_bytes(data, "x.tiktoken", pattern=GPT2_PATTERN).tokenizer
        ids = tok.encode("a" * 2000 + " aaa")
        report(ids=ids, size=len(data), merges=len(tok.model.merge_ids))
        """,
        cpu_seconds=60,
    )
    assert out["size"] > 2_500_000 and out["cpu"] < 15 * out["slowness"]
    assert out["merges"] == 1999 and out["ids"] == [254 + 2000, 32, 254 + 3]


def test_nested_tokens_encode_as_tiktoken_does():
    tiktoken = pytest.importorskip("tiktoken", reason="tiktoken is a test-only dependency")
    extra = [b"a" * k for k in range(2, 300)] + [b"ab", b"aab", b"ba", b"bab", b"babbab"]
    extra += [b"ab" * 2**j for j in range(1, 9)]  # up to 512 bytes: past the replayed length
    ranks = {bytes([b]): b for b in range(256)} | {t: 256 + k for k, t in enumerate(extra)}
    enc = tiktoken.Encoding("nested", pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens={})
    tok = load_bytes(_rank_file(extra), "x.tiktoken", pattern=GPT2_PATTERN).tokenizer
    for text in ["a" * 700, "aab" * 40, "ba" * 77 + "b", "bab" * 100 + "ab", "x aaab aab", "ab" * 300 + "a" * 301]:
        assert tok.encode(text) == enc.encode_ordinary(text), text


def test_a_vocab_json_with_one_320k_character_unformed_token_loads_in_linear_time():
    out = bounded(
        """
        import json
        from bpe_core.formats import load_files
        vocab = {c: i for i, c in enumerate("abcdefgh")}
        vocab["x" * 320_000] = len(vocab)
        vocab["ab"] = len(vocab)
        files = {"vocab.json": json.dumps(vocab).encode(), "merges.txt": b"#version: 0.2\\na b\\n"}
        tok = load_files(files).tokenizer
        report(ids=tok.encode("ab ba"), specials=len(tok.specials.ids))
        """,
        cpu_seconds=30,
    )
    assert out["ids"] == [9, 1, 0] and out["specials"] == 1
    assert out["cpu"] < 5 * out["slowness"]


# ---------------------------------------------------------------- item 5: zip expansion


def _bomb(declared: int | None = None) -> bytes:
    buffer = io.BytesIO()
    payload = b'{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [' + b'["a", "a"], ' * 5_000_000 + b"[]]}}"
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("tokenizer.json", payload)
    data = bytearray(buffer.getvalue())
    if declared is not None:  # lie about the size in the local header and the central directory
        struct.pack_into("<I", data, 22, declared)
        struct.pack_into("<I", data, data.rfind(b"PK\x01\x02") + 24, declared)
    return bytes(data)


def test_a_zip_bomb_is_refused_before_it_is_inflated(tmp_path):
    bomb = tmp_path / "bomb.zip"
    bomb.write_bytes(_bomb())
    assert bomb.stat().st_size < 200_000
    out = bounded(
        f"""
        from pathlib import Path
        from bpe_core.formats import load_bytes
        data = Path({str(bomb)!r}).read_bytes()
        expect_error(lambda: load_bytes(data, "bomb.zip"))
        """,
        memory_mib=1024,
    )
    assert out["error"] == "FormatError" and "bomb.zip: the zip expands to more than" in out["message"]
    assert out["cpu"] < 3 * out["slowness"] and out["rss_mib"] < 150


def test_a_zip_that_lies_about_its_size_stops_at_the_limit():
    with pytest.raises(FormatError, match=r"bomb\.zip: member 'tokenizer\.json' cannot be read|expands to more than"):
        load_bytes(_bomb(declared=1000), "bomb.zip")
    with pytest.raises(FormatError, match="expands to more than"):
        load_bytes(_bomb(declared=10_000_000), "bomb.zip")


def test_the_apps_own_zip_downloads_still_load():
    from bpe_core import train
    from bpe_core.formats import download

    result = train("low lower lowest newer wider " * 40, num_merges=20, pretokenizer="gpt2", unit="byte")
    for fmt in ("gpt2", "tiktoken"):
        dl = download(result, fmt)
        assert dl.filename.endswith(".zip")
        assert load_bytes(dl.data, dl.filename).tokenizer.encode("lowest") == result.tokenizer.encode("lowest")


# ---------------------------------------------------------------- item 7: ReDoS


def test_a_catastrophic_pattern_in_a_tokenizer_json_fails_in_bounded_time_naming_it():
    out = bounded(
        """
        import json
        from bpe_core.formats import load_bytes
        doc = {"model": {"type": "BPE", "vocab": {"a": 0, "!": 1}, "merges": []},
               "pre_tokenizer": {"type": "Split", "pattern": {"Regex": "(a|a)+$"}, "behavior": "Isolated",
                                 "invert": False}}
        tok = load_bytes(json.dumps(doc).encode(), "tokenizer.json").tokenizer
        start = time.time()
        expect_error(lambda: tok.encode("a" * 40 + "!"))
        """,
        cpu_seconds=60,
    )
    assert out["error"] == "PatternError"
    assert "the split pattern '(a|a)+$' ran for more than 0.5 s on 41 characters and was stopped" in out["message"]
    assert out["cpu"] < 5 * out["slowness"]


@pytest.mark.parametrize("where", ["sidecar", "session", "argument"])
def test_catastrophic_patterns_from_sidecars_sessions_and_callers_are_stopped(where):
    out = bounded(
        f"""
        import json
        from bpe_core import train
        from bpe_core.formats import load_bytes, load_files, to_session, to_tiktoken, to_sidecar
        bad = "(a|a)+$"
        result = train("a! aa! " * 10, num_merges=2, pretokenizer="gpt2", unit="byte")
        where = {where!r}
        if where == "sidecar":
            side = json.loads(to_sidecar(result.tokenizer, name="x", rank_file="x.tiktoken"))
            side["pat_str"] = bad
            tok = load_files({{"x.tiktoken": to_tiktoken(result.tokenizer),
                               "x.tiktoken.json": json.dumps(side).encode()}}).tokenizer
        elif where == "session":
            doc = json.loads(to_session(result))
            doc["settings"]["pattern"] = bad
            tok = load_bytes(json.dumps(doc).encode(), "s.session.json").tokenizer
        else:
            tok = load_bytes(to_tiktoken(result.tokenizer), "x.tiktoken", pattern=bad).tokenizer
        expect_error(lambda: tok.encode("a" * 40 + "!"))
        """,
        cpu_seconds=60,
    )
    assert out["error"] == "PatternError" and "'(a|a)+$'" in out["message"]
    assert out["cpu"] < 8 * out["slowness"]


_PIECES_DOC = {
    "added_tokens": [{"id": 2, "content": "<s>", "special": True}],
    "model": {"type": "BPE", "vocab": {"a": 0, "!": 1, "<s>": 2}, "merges": []},
    "pre_tokenizer": {"type": "Split", "pattern": {"Regex": "(a|a)+$"}, "behavior": "Isolated", "invert": False},
}


@pytest.mark.parametrize("call", ["encode", "encode_with_trace", "round_trip"])
def test_a_text_cut_into_many_pieces_shares_one_time_budget(call):
    """Special tokens cut the text into 200 pieces, each far under the per-run limit alone. The budget's clock
    charges every split-pattern run 0.3 s (the real runs take about a millisecond), so the 2.0 s budget is
    spent after 7 pieces on any machine, with any ``regex`` release: without one budget per text, every
    piece would get its own limit and the encode would go through."""
    out = bounded(
        f"""
        import importlib, itertools, json
        from bpe_core.formats import load_bytes
        readings = itertools.count()
        clock = lambda: next(readings) * 0.3  # read before and after each run: 0.3 s a run
        importlib.import_module("bpe_core.text.pretokenize").clock = clock  # the module, not bpe_core.pretokenize()
        tok = load_bytes(json.dumps({_PIECES_DOC!r}).encode(), "tokenizer.json").tokenizer
        text = ("a" * 10 + "!<s>") * 200
        expect_error(lambda: getattr(tok, {call!r})(text, allowed_special="all"))
        """,
        cpu_seconds=30,
    )
    assert out["error"] == "PatternError"
    assert (
        "the split pattern '(a|a)+$' used up the 2.0 s of matching allowed for a text of 2,800 characters"
        in (out["message"])
    )
    assert out["cpu"] < 8 * out["slowness"]


def test_ordinary_patterns_on_many_pieces_stay_within_the_budget():
    split = {"type": "Split", "pattern": {"Regex": "a+|!"}, "behavior": "Isolated", "invert": False}
    tok = load_bytes(json.dumps({**_PIECES_DOC, "pre_tokenizer": split}).encode(), "tokenizer.json").tokenizer
    text = "a!a<s>" * 5_000  # 5,000 pieces, each split on its own
    assert tok.encode(text, allowed_special="all") == [0, 1, 0, 2] * 5_000
    assert tok.round_trip(text, allowed_special="all").ok


def test_long_text_gets_a_longer_time_limit_and_ordinary_patterns_never_hit_it():
    text = ("The quick brown fox, 12345 jumps!\n  " * 30_000)[:1_000_000]
    assert "".join(compiled_pattern(GPT2_PATTERN).findall(text)) == text
    with pytest.raises(FormatError, match="at most 10,000 are accepted"):
        load_bytes(_rank_file([]), "x.tiktoken", pattern="a" * 20_000)


# ---------------------------------------------------------------- item 8: Split behaviours, as tokenizers applies them

BEHAVIORS = ["Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"]
TEXTS = ["abc 123 cab", "a1b22c333 ,, x", "hello, world!! 12 34", "  ab  ba  ", "x", "", "1 2 3..", "a,b;c  d"]
CHARS = "abcdehlorwx01234 ,.;!"


def _hf(doc: dict) -> tokenizers.Tokenizer:
    return tokenizers.Tokenizer.from_str(json.dumps(doc))


def test_the_issue_example_gives_hugging_faces_ids():
    doc = _char_json("abc123 ", [], _split(r"\d", "Isolated"))
    tok = load_bytes(json.dumps(doc).encode(), "tokenizer.json").tokenizer
    assert tok.encode("abc 123 cab") == [0, 1, 2, 6, 3, 4, 5, 6, 2, 0, 1] == _hf(doc).encode("abc 123 cab").ids
    doc["pre_tokenizer"] = _split(r"\p{P}", "Isolated")
    tok = load_bytes(json.dumps(doc).encode(), "tokenizer.json").tokenizer
    assert tok.encode("abc 123 cab") == _hf(doc).encode("abc 123 cab").ids == [0, 1, 2, 6, 3, 4, 5, 6, 2, 0, 1]


@pytest.mark.parametrize("behavior", BEHAVIORS)
@pytest.mark.parametrize("invert", [False, True])
@pytest.mark.parametrize("pattern", [r"\d", r"\p{P}+", r"\s+", r"[a-c]", r"x*", r"\d+|,"])
def test_split_behaviours_match_tokenizers(behavior, invert, pattern):
    merges = [("a", "b"), ("1", "2"), (" ", " "), ("ab", "c"), ("c", " "), (",", ","), ("b", "a")]
    doc = _char_json(CHARS, merges, _split(pattern, behavior, invert))
    tok = load_bytes(json.dumps(doc).encode(), "tokenizer.json").tokenizer
    hf = _hf(doc)
    for text in TEXTS:
        assert tok.encode(text) == hf.encode(text).ids, (pattern, behavior, invert, text)
    again = _hf(json.loads(to_hf_json(tok)))  # and our own export of it means the same to Hugging Face
    for text in TEXTS:
        assert again.encode(text).ids == hf.encode(text).ids, (pattern, behavior, invert, text)


@pytest.mark.parametrize("behavior", BEHAVIORS)
def test_split_with_a_string_pattern_and_byte_level_matches_tokenizers(behavior):
    from bpe_core.text.byte_level import bytes_to_unicode

    alphabet = "".join(bytes_to_unicode().values())
    doc = _char_json(alphabet, [("Ġ", "t"), ("h", "e"), ("Ġt", "he")], None)
    doc["pre_tokenizer"] = {
        "type": "Sequence",
        "pretokenizers": [
            _split(" ", behavior, kind="String"),
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
        ],
    }
    tok = load_bytes(json.dumps(doc).encode(), "tokenizer.json").tokenizer
    assert tok.model.unit == "byte"
    for text in ["the the  then", " héllo wörld ", "a  b"]:
        assert tok.encode(text) == _hf(doc).encode(text).ids, (behavior, text)


def test_a_custom_tiktoken_pattern_keeps_only_its_matches_in_an_exported_tokenizer_json():
    """tiktoken drops the text between matches; the export writes Split(Removed, invert) so HF does too."""
    from bpe_core import train
    from bpe_core.formats import to_tiktoken

    tok = train("ab12 ab,34 cd" * 5, num_merges=3, pretokenizer="gpt2", unit="byte").tokenizer
    plain = load_bytes(to_tiktoken(tok), "x.tiktoken", pattern=r"\p{L}+").tokenizer
    doc = json.loads(to_hf_json(plain))
    assert doc["pre_tokenizer"]["pretokenizers"][0]["behavior"] == "Removed"
    for text in ["ab12 ab,34 cd", "x y", "12"]:
        assert _hf(doc).encode(text).ids == plain.encode(text)


def test_unsupported_pre_tokenizers_are_refused_with_the_reason():
    doc = _char_json("ab", [], {"type": "Sequence", "pretokenizers": [_split("a", "Isolated"), _split("b", "Removed")]})
    with pytest.raises(FormatError, match="pre_tokenizer has 2 steps"):
        load_bytes(json.dumps(doc).encode(), "tokenizer.json")
    doc["pre_tokenizer"] = _split("a", "Sideways")
    with pytest.raises(FormatError, match="Split has behavior 'Sideways'; expected one of: Removed, Isolated"):
        load_bytes(json.dumps(doc).encode(), "tokenizer.json")
    doc["pre_tokenizer"] = {"type": "Metaspace", "replacement": "▁"}
    with pytest.raises(FormatError, match="pre_tokenizer 'Metaspace' is not supported"):
        load_bytes(json.dumps(doc).encode(), "tokenizer.json")


def test_hf_split_patterns_are_distinct_from_plain_ones():
    assert HFSplit(r"\d", "Removed") != r"\d" and r"\d" != HFSplit(r"\d", "Removed")
    assert HFSplit(r"\d", "Removed") != HFSplit(r"\d", "Isolated")
    assert compiled_pattern(HFSplit(r"\d", "Isolated")).findall("a1b") == ["a", "1", "b"]
    assert compiled_pattern(r"\d").findall("a1b") == ["1"]
    import pickle

    again = pickle.loads(pickle.dumps(HFSplit(r"\d", "Contiguous", True)))
    assert again == HFSplit(r"\d", "Contiguous", True) and again.invert


# ---------------------------------------------------------------- the app: a message, never a traceback


def test_hostile_uploads_show_a_message_on_the_encode_page():
    from ui import state

    from .test_app import encode_page, fresh, seen, upload_tokenizer

    at = encode_page(fresh())
    upload_tokenizer(at, {"tokenizer.json": b'{"model":{"type":"BPE","vocab":{"a":0,"b":100000000},"merges":[]}}'})
    assert not at.exception
    assert "has id 100,000,000, but the file holds only 2 tokens" in seen(at.error[0].value)
    doc = _char_json("a!", [], _split("(a|a)+$", "Isolated"))
    upload_tokenizer(at, {"tokenizer.json": json.dumps(doc).encode()})
    at.text_area(key=state.ENCODE_TEXT).set_value("a" * 40 + "!").run()
    assert not at.exception
    message = seen(at.error[0].value)
    assert message.startswith("Cannot encode this text: the split pattern '(a|a)+$' ran for more than")


# ---------------------------------------------------------------- item 12: lone surrogates, one policy


@pytest.mark.parametrize("unit", ["char", "byte"])
def test_lone_surrogates_are_refused_with_their_position_in_every_unit(unit):
    from bpe_core import train
    from bpe_core.errors import SurrogateError

    with pytest.raises(SurrogateError, match=r"lone surrogate U\+DC4D at position 3 "):
        train("ab \udc4d ab", num_merges=2, unit=unit)
    with pytest.raises(SurrogateError, match=r"lone surrogate U\+D83D at position 1 "):
        train({"x": 2, "y\ud83d": 1}, num_merges=2, unit=unit)
    tok = train("ab ab a😀", num_merges=2, unit=unit).tokenizer
    with pytest.raises(SurrogateError, match=r"lone surrogate U\+D83D at position 4 "):
        tok.encode("ab a\ud83d")
    with pytest.raises(SurrogateError, match=r"at position 1,000 "):
        tok.encode("a" * 1000 + "\ud800")


@pytest.mark.parametrize("unit", ["char", "byte"])
def test_a_surrogate_pair_written_as_two_code_points_is_its_character(unit):
    from bpe_core import train

    tok = train("ab ab a😀 😀", num_merges=3, unit=unit).tokenizer
    assert tok.encode("a\ud83d\ude00") == tok.encode("a😀")
    assert (
        train("x\ud83d\ude00 x😀", num_merges=1, unit=unit).merges == train("x😀 x😀", num_merges=1, unit=unit).merges
    )

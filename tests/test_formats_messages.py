"""Messages that quote a file's input stay short, and loading a hostile file stays near-linear in memory.

Issue 18 item 7: a 10 MB symbol in merges.txt, tokenizer.json or vocab.json, or a
30 MB line in a subword-nmt codes file, gave a ``FormatError`` of 10-63 MB and a
load peaking near 1 GB. Every message now quotes input through
:func:`bpe_core.errors.quote`, which cuts it and says how long it was. Item 8: a
repeated key in a JSON file is reported as such, naming the key.

Memory is measured with ``tracemalloc`` (deterministic) at n and 4n, and the
issue's own sizes run in a child process under ``setrlimit``.
"""

from __future__ import annotations

import json
import tracemalloc

import pytest

from bpe_core.errors import QUOTE_LIMIT, BPEError, quote
from bpe_core.formats import DuplicateKeyError, FormatError, load_bytes, load_files
from bpe_core.text.pretokenize import GPT2_PATTERN

from .test_hostile_formats import bounded

MESSAGE_LIMIT = 600
"""The longest message a loader may give, whatever the input's size (the longest fixed texts are ~300)."""


# ---------------------------------------------------------------- the helper


def test_quote_keeps_short_values_whole_and_cuts_long_ones_saying_their_length():
    assert quote("abc") == "'abc'"
    assert quote("a" * QUOTE_LIMIT) == repr("a" * QUOTE_LIMIT)
    assert quote("a" * 10_000_000) == repr("a" * QUOTE_LIMIT) + "… (10,000,000 characters)"
    assert quote(b"\x00" * 5) == repr(b"\x00" * 5)
    cut = quote(b"\x00" * 100)
    assert cut.startswith("b'\\x00") and cut.endswith("'… (100 bytes)") and len(cut) <= QUOTE_LIMIT + 30
    assert quote("") == "''" and quote(None) == "None" and quote(2.5) == "2.5"


@pytest.mark.parametrize("char", ["a", "\u0378", "\x00", "\U000e0000", "😀", "'"])
def test_quote_is_bounded_even_when_each_character_escapes_to_many(char):
    value = char * 1_000_000
    shown = quote(value)
    assert len(shown) <= QUOTE_LIMIT + 30
    assert shown.endswith("… (1,000,000 characters)")
    assert eval(shown.split("…")[0]) == value[: len(eval(shown.split("…")[0]))]  # a real prefix, quotes closed


def test_quote_describes_huge_integers_without_converting_them():
    assert quote(12345) == "12345"
    assert quote(10**100) == "an integer of 101 digits"
    assert quote(-(10**100)) == "an integer of 101 digits"
    assert quote(10**5000) == "an integer of about 5,001 digits"  # str() would raise past 4,300 digits


def test_quote_cuts_containers_and_the_strings_inside_them():
    shown = quote(["x" * 1000] * 10)
    assert len(shown) < 200 and "(1,000 characters)" in shown and shown.endswith("...]")
    assert quote(("a", "b")) == "('a', 'b')"
    assert "(100 characters)" in quote({"k" * 100: 1})


def test_quote_reads_a_str_subclass_as_its_text():
    from bpe_core.text.pretokenize import HFSplit

    assert quote(HFSplit("x" * 100, "Isolated", False)) == repr("x" * QUOTE_LIMIT) + "… (100 characters)"


# ---------------------------------------------------------------- hostile files: short messages, bounded memory


def _hostile(kind: str, symbol: str) -> dict[str, bytes]:
    """The issue's files, with one huge symbol (or one huge line for codes)."""
    if kind == "merges.txt":
        return {"vocab.json": b'{"a": 0}', "merges.txt": f"#version: 0.2\na {symbol}\n".encode()}
    if kind == "tokenizer.json":
        doc = {"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [["a", symbol]]}}
        return {"tokenizer.json": json.dumps(doc, ensure_ascii=False).encode()}
    if kind == "vocab.json":
        vocab = json.dumps({"a": 0, symbol: -1}, ensure_ascii=False).encode()
        return {"vocab.json": vocab, "merges.txt": b"#version: 0.2\n"}
    if kind == "vocab.json id":
        vocab = json.dumps({"a": 0, symbol: 10**9}, ensure_ascii=False).encode()
        return {"vocab.json": vocab, "merges.txt": b"#version: 0.2\n"}
    if kind == "codes":
        return {"bpe.codes": f"#version: 0.2\na b\n{symbol} x</w>\n".encode()}
    if kind == "codes fields":
        return {"bpe.codes": f"#version: 0.2\na b\n{symbol} x y\n".encode()}
    if kind == "session":
        doc = {"format": "bpe-explorer-session", "version": symbol}
        return {"s.json": json.dumps(doc, ensure_ascii=False).encode()}
    raise AssertionError(kind)


KINDS = ["merges.txt", "tokenizer.json", "vocab.json", "vocab.json id", "codes", "codes fields", "session"]


def _load_error(files: dict[str, bytes]) -> str:
    with pytest.raises(BPEError) as info:
        load_files(files)
    return str(info.value)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("char", ["a", "\u0378"])
def test_a_huge_symbol_gives_a_short_message_naming_its_length(kind, char):
    message = _load_error(_hostile(kind, char * 200_000))
    assert len(message) < MESSAGE_LIMIT
    said = "(200,004 characters)" if kind == "codes fields" else "(200,000 characters)"  # the whole line is quoted
    assert said in message


def _peak(kind: str, size: int) -> int:
    """tracemalloc's peak (bytes) while loading the hostile file of ``size`` characters, the file already built."""
    files = _hostile(kind, "\u0378" * size)
    tracemalloc.start()
    try:
        with pytest.raises(BPEError):
            load_files(files)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("kind", ["merges.txt", "tokenizer.json", "vocab.json", "codes"])
def test_loading_a_hostile_file_takes_memory_linear_in_its_size(kind):
    n = 250_000  # characters of U+0378: two bytes each in the file, two bytes each in memory
    small, large = _peak(kind, n), _peak(kind, 4 * n)
    file_size = 2 * 4 * n
    assert large <= 5 * file_size  # the whole load, decoding and parsing included, within 5x the file
    assert large <= 4.5 * small  # 4x the input, at most 4.5x the memory: linear, not the message's 3-6x per copy


def test_the_issues_sizes_load_in_small_memory_with_short_messages():
    """10 MB symbols in merges.txt, tokenizer.json and vocab.json and a 30 MB codes line, as issue 18 gave them."""
    out = bounded(
        """
        import json
        from bpe_core.formats import load_files
        big = "\\u0378" * 5_000_000  # 10 MB of UTF-8; its repr is 30 MB
        cases = {
            "merges": {"vocab.json": b'{"a": 0}', "merges.txt": ("#version: 0.2\\na " + big + "\\n").encode()},
            "hf": {"tokenizer.json": json.dumps(
                {"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [["a", big]]}}, ensure_ascii=False).encode()},
            "vocab": {"vocab.json": json.dumps({"a": 0, big: -1}, ensure_ascii=False).encode(),
                      "merges.txt": b"#version: 0.2\\n"},
        }
        lengths = {}
        for name, files in cases.items():
            try:
                load_files(files)
            except BPEError as exc:
                lengths[name] = len(str(exc))
        del cases, files
        codes = {"bpe.codes": ("#version: 0.2\\na b\\n" + big * 3 + " x</w>\\n").encode()}  # a 30 MB line
        del big
        try:
            load_files(codes)
        except BPEError as exc:
            lengths["codes"] = len(str(exc))
        report(error=None, message=json.dumps(lengths))
        """,
        memory_mib=1024,
        cpu_seconds=120,
    )
    lengths = json.loads(out["message"])
    assert set(lengths) == {"merges", "hf", "vocab", "codes"}
    assert max(lengths.values()) < MESSAGE_LIMIT
    assert out["rss_mib"] < 400  # the 30 MB codes file and its text, not the 180 MB message of before (925 MB peak)


def test_a_long_line_in_a_rank_file_is_quoted_short():
    with pytest.raises(FormatError) as info:
        load_bytes(b"QUFB 1 2 " + b"9" * 1_000_000 + b"\n", "x.tiktoken", pattern=GPT2_PATTERN)
    message = str(info.value)
    assert len(message) < MESSAGE_LIMIT and "… (1,000,009 characters)); expected 'base64-token rank'" in message


# ---------------------------------------------------------------- item 8: a repeated JSON key


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("vocab.json", b'{"a": 0, "a": 1}'),
        ("tokenizer.json", b'{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "a": 2}, "merges": []}}'),
        ("s.json", b'{"format": "bpe-explorer-session", "version": 1, "version": 2}'),
    ],
)
def test_a_repeated_json_key_is_reported_as_such_naming_the_key(name, data):
    files = {name: data} if name != "vocab.json" else {name: data, "merges.txt": b"#version: 0.2\n"}
    with pytest.raises(DuplicateKeyError) as info:
        load_files(files)
    message = str(info.value)
    assert "repeats the key" in message and "4,300 digits" not in message
    assert message.startswith(f"{name}: ")
    assert "'a'" in message or "'version'" in message


def test_a_long_repeated_key_is_cut_in_the_message():
    key = "k" * 1_000_000
    data = json.dumps({"a": 0}).replace("{", "{" + json.dumps(key) + ": 1, " + json.dumps(key) + ": 2, ").encode()
    with pytest.raises(DuplicateKeyError, match=r"repeats the key 'k+'… \(1,000,000 characters\)") as info:
        load_bytes(data, "vocab.json")
    assert len(str(info.value)) < MESSAGE_LIMIT


def test_a_huge_number_is_still_reported_as_a_number():
    with pytest.raises(FormatError, match="more than 4,300 digits") as info:
        load_bytes(b'{"a": 0, "b": ' + b"9" * 5000 + b"}", "vocab.json")
    assert not isinstance(info.value, DuplicateKeyError)

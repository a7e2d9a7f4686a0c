"""Corpora counted elsewhere: word-count files (bpe_core.text.word_count_file), streamed counting of large text
(bpe_core.text.text_stream), the CLI's --word-counts, and the README's DuckDB one-liner."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import sys
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core import (
    PRETOKENIZERS,
    EmptyCorpusError,
    TextDecodeError,
    WordCountError,
    count_utf8,
    parse_word_counts,
    train,
)
from bpe_core.__main__ import main
from bpe_core.text.corpus import word_counts

from .conftest import REPO, waited

TEXTBOOK = {"low": 5, "lower": 2, "newest": 6, "widest": 3}

# ----------------------------------------------------------------- word-count files: layouts


@pytest.mark.parametrize(
    "data",
    [
        b"low\t5\nlower\t2\nnewest\t6\nwidest\t3\n",  # DuckDB / Spark COPY ... (DELIMITER '\t')
        b"low 5\nlower 2\nnewest 6\nwidest 3",  # subword-nmt --dict-input
        b"      5 low\n      2 lower\n      6 newest\n      3 widest\n",  # sort | uniq -c
        b"word\tcount\nlow\t5\nlower\t2\nnewest\t6\nwidest\t3\n",  # a header line
        b"\xef\xbb\xbfword count\r\nlow 5\r\n\r\nlower  2\r\nnewest 6\r\n   \r\nwidest 3\r\n",  # BOM, CRLF, blank lines
        b"5 low\n2 lower\n6 newest\n3 widest\n",  # count first, without uniq's padding
    ],
)
def test_every_layout_gives_the_same_counts(data):
    counts = parse_word_counts(data, "counts.txt")
    assert counts == TEXTBOOK and list(counts) == list(TEXTBOOK)  # file order is kept


def test_tab_layout_keeps_the_word_exactly():
    data = b" the\t10\n\tx\t2\nnew line\t3\n1984\t4\n"
    assert parse_word_counts(data) == {" the": 10, "\tx": 2, "new line": 3, "1984": 4}


def test_numeric_words_follow_the_files_layout():
    assert parse_word_counts("low 5\n1984 3\n") == {"low": 5, "1984": 3}  # word first, set by line 1
    assert parse_word_counts("5 low\n1984 3\n") == {"low": 5, "3": 1984}  # count first, set by line 1
    assert parse_word_counts("1984 3\n") == {"1984": 3}  # undecided: word first
    assert parse_word_counts("   1984 3\n") == {"3": 1984}  # undecided, padded as uniq -c pads: count first


def test_real_uniq_c_output(tmp_path):
    if shutil.which("sort") is None or shutil.which("uniq") is None:
        pytest.skip("sort and uniq are not installed")
    text = "low " * 5 + "lower " * 2 + "newest " * 6 + "widest " * 3
    words = "\n".join(text.split()) + "\n"
    run = subprocess.run("sort | uniq -c", shell=True, input=words.encode(), capture_output=True, check=True)
    assert run.stdout.startswith(b"      5 low\n")
    assert parse_word_counts(run.stdout) == TEXTBOOK


def test_the_textbook_counts_train_as_the_issue_says():
    """Issue 14's example: with </w> as its own symbol, (est, </w>) is merge 3 with 9 occurrences."""
    counts = parse_word_counts("low 5\nlower 2\nnewest 6\nwidest 3\n")
    result = train(counts, num_merges=5, pretokenizer="whitespace_eow", end_of_word="separate")
    assert result.merges == [("e", "s"), ("es", "t"), ("est", "</w>"), ("l", "o"), ("lo", "w")]
    assert [s.count for s in result.steps] == [9, 9, 9, 7, 7]
    plain = train(counts, num_merges=5, pretokenizer="whitespace", tie_break="first_seen")
    assert plain.merges == [("e", "s"), ("es", "t"), ("l", "o"), ("lo", "w"), ("n", "e")]


# ----------------------------------------------------------------- word-count files: errors name the line


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            "low 5\nlower\nnewest 6",
            "line 2: 1 field ('lower'); expected 'word<TAB>count', 'word count' or 'count word'",
        ),
        ("low 5\n\nlow er 2", "line 3: 3 fields ('low er 2')"),
        ("low 5\nlower 2.5", "line 2: the count '2.5' is a number but not an integer"),
        ("low 5\nlower two", "line 2: the count 'two' is not a number"),
        ("low 5\nlower 1e3", "line 2: the count '1e3' is a number but not an integer"),
        ("low\t5\nlower\t", "line 2: the count is missing"),
        ("low 5\nlower 0", "line 2: the count 0 is not positive; every count must be at least 1"),
        ("word count\nlow 5\nlower -2", "line 3: the count -2 is not positive"),
        ("low 5\nlower 2\nlow 7", "line 3: the word 'low' was already counted on line 1"),
        ("x\t1\n\n the\t2\n the\t3", "line 4: the word ' the' was already counted on line 3"),
        ("low 5\n2 lower", "line 2: '2 lower' reads as 'count word', but line 1 set 'word count'"),
        ("\t5", "line 1: the word before the TAB is empty"),
        (
            "low 99999999999999999999",
            "line 1: the count '99999999999999999999' is larger than 9,223,372,036,854,775,807",
        ),
        ("", "no rows; expected one"),
        ("word\tcount\n\n", "no rows besides the header line 'word\\tcount'"),
        (b"low 5\nlow\xe9r 2", "line 2: byte 0xE9 (offset 9) is not UTF-8"),
    ],
)
def test_bad_rows_say_which_line_and_why(data, message):
    with pytest.raises(WordCountError, match=re.escape(message)) as info:
        parse_word_counts(data.encode() if isinstance(data, str) else data, "counts.txt")
    assert str(info.value).startswith("counts.txt: ")


def test_word_count_errors_are_engine_errors():
    from bpe_core import BPEError

    assert issubclass(WordCountError, BPEError) and issubclass(TextDecodeError, BPEError)
    with pytest.raises(TypeError):
        parse_word_counts(12)  # type: ignore[arg-type]


def test_a_dict_file_learns_what_subword_nmt_learns_from_it(corpora):
    """The 'word count' layout is subword-nmt's --dict-input: the same file gives the same merges and counts."""
    from .test_reference_training import SUBWORD_NMT_SETTINGS, subword_nmt_learn

    counts = Counter(corpora["taylorswift"].split())
    file = "".join(f"{word} {count}\n" for word, count in counts.items())
    ref_merges, ref_counts = subword_nmt_learn(file, 300, is_dict=True)
    result = train(parse_word_counts(file.encode()), **{**SUBWORD_NMT_SETTINGS, "num_merges": 300})
    assert result.merges == ref_merges and [s.count for s in result.steps] == ref_counts


# ----------------------------------------------------------------- streamed counting of text


def _same(a: dict[str, int], b: dict[str, int]) -> bool:
    """Equal items in the same (first-appearance) order."""
    return list(a.items()) == list(b.items())


@pytest.mark.parametrize("corpus", ["taylorswift", "udhr-multiscript", "code"])
@pytest.mark.parametrize("pretokenizer", list(PRETOKENIZERS))
def test_streamed_counts_equal_whole_text_counts(corpora, corpus, pretokenizer):
    text = corpora[corpus][:150_000]
    data = text.encode()
    for specials, chunk in [((), 4096), (("the", "<unk>"), 7919), (("\n\n",), 65536)]:
        streamed = count_utf8(data, pretokenizer, specials, chunk_bytes=chunk)
        assert _same(streamed, word_counts(text, pretokenizer, specials)), (specials, chunk)


ALPHABET = "ab AB\n\r\t'sll.,!1234 \u00a0\u2003é\u0301中文😀<>|"


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(alphabet=ALPHABET, max_size=120),
    pretokenizer=st.sampled_from(list(PRETOKENIZERS)),
    chunk=st.integers(1, 17),
    specials=st.sampled_from([(), ("<|>",), ("ab",), ("a b",)]),
)
def test_streamed_counts_equal_on_any_cut(text, pretokenizer, chunk, specials):
    """Chunks of a few bytes cut characters, words, contractions, CRLF pairs and special tokens anywhere."""
    data = text.encode()
    try:
        expected = word_counts(text, pretokenizer, specials)
    except EmptyCorpusError:
        with pytest.raises(EmptyCorpusError):
            count_utf8(data, pretokenizer, specials, chunk_bytes=chunk)
        return
    assert _same(count_utf8(data, pretokenizer, specials, chunk_bytes=chunk), expected)


def test_streaming_reads_files_reports_progress_and_drops_the_bom():
    data = b"\xef\xbb\xbf" + ("low lower newest widest\n" * 1000).encode()
    seen: list[tuple[int, int]] = []
    counts = count_utf8(io.BytesIO(data), "whitespace", total=len(data), progress=lambda d, t: seen.append((d, t)))
    assert counts == {"low": 1000, "lower": 1000, "newest": 1000, "widest": 1000}
    seen.clear()
    assert count_utf8(data, "whitespace", chunk_bytes=10_000, progress=lambda d, t: seen.append((d, t))) == counts
    assert seen == [(10_000, 24_003), (20_000, 24_003), (24_003, 24_003)]  # bytes of the file, the BOM included


def test_streaming_names_the_bad_byte_and_its_line():
    data = ("ab\n" * 5000).encode() + b"caf\xe9\n"
    with pytest.raises(TextDecodeError, match=r"not UTF-8 text: byte 0xE9 at offset 15003 \(line 5001\)"):
        count_utf8(data, "gpt2", source="notes.txt", chunk_bytes=4096)
    cut = b"ab\n" + "é".encode()[:1]  # a character cut off by the end of the file
    with pytest.raises(TextDecodeError, match=r"byte 0xC3 at offset 3 \(line 2\)"):
        count_utf8(cut, "gpt2", chunk_bytes=2)
    with pytest.raises(EmptyCorpusError, match="empty.txt has no words"):
        count_utf8(b" \n\t ", "whitespace_eow", source="empty.txt")


def test_training_on_streamed_counts_equals_training_on_text(corpora):
    text = corpora["tinyshakespeare"][:200_000]
    kwargs = dict(num_merges=300, pretokenizer="gpt2", unit="byte", special_tokens=("First Citizen",))
    from_text = train(text, **kwargs)
    from_stream = train(count_utf8(text.encode(), "gpt2", ("First Citizen",), chunk_bytes=50_000), **kwargs)
    assert from_text.merges == from_stream.merges
    assert [s.count for s in from_text.steps] == [s.count for s in from_stream.steps]


# ----------------------------------------------------------------- the command line


@pytest.fixture()
def counts_file(tmp_path):
    path = tmp_path / "counts.tsv"
    path.write_text("word\tcount\nlow\t5\nlower\t2\nnewest\t6\nwidest\t3\n", encoding="utf-8")
    return path


def test_cli_trains_on_a_word_count_file(counts_file, capsys):
    assert main(["train", "--word-counts", str(counts_file), "--merges", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "# 3 merges, tie rule first_seen, vocabulary 14"  # 10 letters + </w> + 3 merges
    assert [line.split()[1:5] for line in lines[2:]] == [
        ["e", "s", "es", "9"],
        ["es", "t", "est", "9"],
        ["est", "</w>", "est</w>", "9"],
    ]


def test_cli_word_count_errors_name_the_line(tmp_path, capsys):
    path = tmp_path / "bad.txt"
    path.write_text("low 5\nlower 2\nlow 1\n", encoding="utf-8")
    assert main(["train", "--word-counts", str(path), "--merges", "3"]) == 2
    err = capsys.readouterr().err
    assert (
        err == f"python -m bpe_core: error: {path}: line 3: the word 'low' was already counted on line 1; "
        "each word must appear once (add the counts up first)\n"
    )


def test_cli_needs_exactly_one_corpus(counts_file, capsys):
    for argv in (
        ["train", "--merges", "3"],
        ["train", str(counts_file), "--word-counts", str(counts_file), "--merges", "3"],
    ):
        with pytest.raises(SystemExit) as info:
            main(argv)
        assert info.value.code == 2
        assert "give a text FILE or --word-counts FILE" in capsys.readouterr().err


def test_cli_word_counts_from_standard_input_in_a_real_process():
    run = subprocess.run(
        [sys.executable, "-m", "bpe_core", "train", "--word-counts", "-", "--merges", "1", "--json"],
        input=b"      5 low\n      2 lower\n",
        capture_output=True,
        cwd=REPO,
        timeout=waited(60),
    )
    assert run.returncode == 0, run.stderr
    assert b'"pair": [\n    "l",\n    "o"\n   ]' in run.stdout


# ----------------------------------------------------------------- README: a corpus counted by DuckDB


def test_readme_duckdb_one_liner_counts_what_whitespace_splitting_counts(tmp_path, corpora):
    """The README's DuckDB command, run as written (through DuckDB's Python package), on two corpus files."""
    duckdb = pytest.importorskip("duckdb")
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    command = re.search(r'^duckdb -c "(COPY .+)"$', readme, re.MULTILINE)
    assert command, "the README shows no 'duckdb -c \"COPY ...\"' line"
    folder = tmp_path / "corpus"
    folder.mkdir()
    texts = [corpora["taylorswift"], corpora["udhr-multiscript"][:300_000] + " x\u00a0y\u2003z \x85w\r\n"]
    for k, text in enumerate(texts):
        (folder / f"part-{k}.txt").write_bytes(text.encode())
    con = duckdb.connect()
    con.execute(f"SET file_search_path = '{tmp_path}'")
    con.execute(command.group(1).replace("'corpus/", f"'{folder}/").replace("'counts.tsv'", f"'{tmp_path}/counts.tsv'"))
    counts = parse_word_counts((tmp_path / "counts.tsv").read_bytes(), "counts.tsv")
    assert counts == Counter("\n".join(texts).split())
    assert list(counts.values()) == sorted(counts.values(), reverse=True)  # most frequent first


# ----------------------------------------------------------------- the 50 MB upload path, memory bound


def test_a_50_mb_upload_trains_2000_merges_within_the_memory_budget(corpora):
    """The app's path for a 50 MB text upload (streamed counting, then 2,000 byte-level merges with the trace) in a
    child process under an address-space limit: what it adds to the upload's bytes stays under 600 MB."""
    corpora["code"]  # skips (with the reason) where the shared corpora are absent
    code = (
        "import json, resource; "
        "resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30)); "
        "from bench.upload import child; "
        "print(json.dumps(child(50.0, 'diverse', 2000, 'gpt2')))"
    )
    run = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=waited(900))
    assert run.returncode == 0, run.stderr[-2000:]
    import json

    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["merges"] == 2000 and report["mb"] > 49.9 and report["distinct_words"] > 150_000
    assert report["added_mb"] < 600, report

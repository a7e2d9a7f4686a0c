"""The command line ``python -m bpe_core train``: the handout table, JSON, and one-line errors with exit 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bpe_core.__main__ import main

from .conftest import REPO

LOW = "low low low low low lowest lowest newer newer newer newer newer newer wider wider wider new new"


@pytest.fixture()
def low_file(tmp_path):
    path = tmp_path / "low.txt"
    path.write_text(LOW, encoding="utf-8")
    return path


def test_table_lists_the_merges_with_counts_and_ties(low_file, capsys):
    assert main(["train", str(low_file), "--merges", "10"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "# 10 merges, tie rule first_seen, vocabulary 21"  # 10 letters + </w> + 10 merges
    rows = [line.split() for line in lines[2:]]
    assert [(r[1], r[2], r[4]) for r in rows[:3]] == [("e", "r", "9"), ("er", "</w>", "9"), ("n", "e", "8")]
    assert rows[0][6:] == ["2", "tied:", "r+</w>"]  # (e,r) and (r,</w>) both count 9
    assert len(rows) == 10


def test_json_output(low_file, capsys):
    assert main(["train", str(low_file), "--merges", "3", "--tie-break", "alphabetical", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"merges", "vocab_size", "stop_reason"}
    assert [(m["pair"], m["count"]) for m in data["merges"]] == [(["e", "r"], 9), (["er", "</w>"], 9), (["e", "w"], 8)]
    assert data["merges"][0]["tied"] == [["e", "r"], ["r", "</w>"]] and data["stop_reason"] is None


def test_vocab_size_byte_unit_and_early_stop(low_file, capsys):
    assert main(["train", str(low_file), "--vocab-size", "258", "--pretokenizer", "gpt2", "--unit", "byte"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# 2 merges") and "vocabulary 258" in out
    assert main(["train", str(low_file), "--merges", "500", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["merges"]) < 500 and data["stop_reason"].startswith("stopped after")


def test_standard_input_through_a_real_process():
    run = subprocess.run(
        [sys.executable, "-m", "bpe_core", "train", "-", "--merges", "2", "--pretokenizer", "none"],
        input=b"abababc",
        capture_output=True,
        cwd=REPO,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    rows = [line.split() for line in run.stdout.decode().splitlines()[2:]]
    assert [(r[1], r[2], r[3], r[4]) for r in rows] == [("a", "b", "ab", "3"), ("ab", "ab", "abab", "2")]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["train", "MISSING"], "one of the arguments --merges --vocab-size is required"),
        (["train", "{missing}", "--merges", "3"], "No such file"),
        (["train", "{dir}", "--merges", "3"], "Is a directory"),
        (["train", "{low}", "--merges", "abc"], "invalid int value"),
        (["train", "{low}", "--merges", "3", "--vocab-size", "40"], "not allowed with argument"),
        (["train", "{low}", "--merges", "-1"], "num_merges"),
        (["train", "{low}", "--vocab-size", "5"], "minimum of 11"),
        (["train", "{low}", "--merges", "3", "--min-frequency", "0"], "min_frequency"),
        (["train", "{low}", "--merges", "3", "--unit", "word"], "invalid choice"),
        (["train", "{binary}", "--merges", "3"], "is not UTF-8 text"),
        (["train", "{empty}", "--merges", "3"], "no words"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message, tmp_path, low_file, capsys):
    binary = tmp_path / "junk.bin"
    binary.write_bytes(b"\xff\xfe\x00\x81" * 10)
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n\t ", encoding="utf-8")
    paths = {"missing": tmp_path / "nope.txt", "dir": tmp_path, "low": low_file, "binary": binary, "empty": empty}
    argv = [a.format(**paths) for a in args]
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse's own errors
        status = exc.code
    err = capsys.readouterr().err.strip()
    assert status == 2
    assert len(err.splitlines()) == 1 and message in err, err

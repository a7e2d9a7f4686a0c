"""The command line ``python -m bpe_core train``: the handout table, JSON, and one-line errors with exit 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bpe_core.__main__ import main

from .conftest import REPO, waited

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
        timeout=waited(60),
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


def _listed_from_steps(result) -> tuple[dict, list[str]]:
    """The JSON and the table rows as the CLI printed them when it walked every full step."""
    merges = [
        {
            "rank": s.rank,
            "pair": list(s.pair),
            "token": s.token,
            "id": s.token_id,
            "count": s.count,
            "replacements": s.replacements,
            "num_tied": s.num_tied,
            "tied": [list(p) for p in s.tied],
        }
        for s in result.steps
    ]
    rows = []
    for s in result.steps:
        ties = "" if s.num_tied == 1 else f"{s.num_tied} tied: " + ", ".join(f"{a}+{b}" for a, b in s.tied[1:4])
        if s.num_tied > 4:
            ties += ", ..."
        rows.append(
            f"{s.rank:>5}  {s.pair[0]:<14} {s.pair[1]:<14} {s.token:<18} {s.count:>8} {s.replacements:>9}  {ties}"
        )
    doc = {"merges": merges, "vocab_size": len(result.tokenizer), "stop_reason": result.stop_reason}
    return doc, rows


@pytest.mark.parametrize("tie_break", ["first_seen", "alphabetical", "subword_nmt", "hf_tokenizers"])
@pytest.mark.parametrize(
    ("corpus", "options"),
    [
        ("textbook_low_lower_newest_widest.txt", ["--merges", "40"]),
        ("shakespeare_excerpt.txt", ["--merges", "120", "--min-frequency", "1"]),  # long runs of 1-count ties
        ("udhr-multiscript.txt", ["--merges", "60", "--pretokenizer", "gpt2", "--unit", "byte"]),
    ],
)
def test_listing_from_summaries_equals_the_full_steps(corpus, options, tie_break, tmp_path, capsys):
    """The CLI lists a run from ``summaries`` and ``tied_at`` (cheap) instead of every lazy step: the
    JSON and the table are what walking ``result.steps`` printed."""
    from bpe_core import train
    from bpe_core.__main__ import MAX_TIED

    from .conftest import SHIPPED_CORPORA

    text = (SHIPPED_CORPORA / corpus).read_text(encoding="utf-8")[:6000]
    path = tmp_path / "corpus.txt"
    path.write_text(text, encoding="utf-8")
    args = ["train", str(path), *options, "--tie-break", tie_break]
    assert main([*args, "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert main(args) == 0
    table = capsys.readouterr().out.splitlines()[2:]

    value = dict(zip(options[::2], options[1::2]))
    result = train(
        text,
        num_merges=int(value["--merges"]),
        pretokenizer=value.get("--pretokenizer", "whitespace_eow"),
        unit=value.get("--unit", "char"),
        tie_break=tie_break,
        min_frequency=int(value.get("--min-frequency", 2)),
        max_tied=MAX_TIED,
    )
    expected, rows = _listed_from_steps(result)
    assert result.tied_lists() == [result.tied_at(k) for k in range(result.num_merges)]
    assert printed == expected
    assert [line.rstrip() for line in table if not line.startswith("#")] == [row.rstrip() for row in rows]
    assert any(m["num_tied"] > MAX_TIED for m in printed["merges"]) or corpus != "shakespeare_excerpt.txt"


def test_tied_lists_of_a_run_without_trace_name_the_winner_alone():
    from bpe_core import train

    result = train(LOW, num_merges=5, trace=False)
    assert result.tied_lists() == [[pair] for pair in result.merges]


# ------------------------------------------------------------------ issue 18: a budget, bounded reading, no traceback


def _cli(args: list[str], *, memory_mb: int = 2048, cpu_seconds: int = 120, **kwargs) -> subprocess.CompletedProcess:
    """``python -m bpe_core ARGS`` in a child under an address-space and CPU-time limit."""
    limit = (
        "import resource, runpy, sys; "
        f"resource.setrlimit(resource.RLIMIT_AS, ({memory_mb} << 20, {memory_mb} << 20)); "
        f"resource.setrlimit(resource.RLIMIT_CPU, ({cpu_seconds}, {cpu_seconds})); "
        "sys.argv = ['bpe_core', *sys.argv[1:]]; runpy.run_module('bpe_core', run_name='__main__')"
    )
    return subprocess.run(
        [sys.executable, "-c", limit, *args], capture_output=True, cwd=REPO, timeout=cpu_seconds * 3, **kwargs
    )


def _one_line_error(run: subprocess.CompletedProcess) -> str:
    err = run.stderr.decode()
    assert run.returncode == 2, err[-2000:]
    assert len(err.splitlines()) == 1 and err.startswith("python -m bpe_core: error: "), err[-2000:]
    assert "Traceback" not in err
    return err


def test_the_default_budget_is_in_the_help():
    from bpe_core.__main__ import DEFAULT_MAX_MEMORY, _build_parser

    text = _build_parser()._subparsers._group_actions[0].choices["train"].format_help()  # type: ignore[union-attr]
    assert "--max-memory MB" in text and f"(default: {DEFAULT_MAX_MEMORY})" in " ".join(text.split())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["train", "/dev/zero", "--merges", "10"], "training on a single pre-token of at least"),
        (["train", "/dev/zero", "--merges", "10", "--pretokenizer", "none"], "training on a single pre-token"),
        (["train", "--word-counts", "/dev/zero", "--merges", "10"], "/dev/zero: line 1 is longer than"),
    ],
)
def test_dev_zero_is_refused_in_one_line(args, message):
    run = _cli(args)
    err = _one_line_error(run)
    assert message in err
    assert "the memory budget (--max-memory) is 1,024 MB" in err or "budget (--max-memory) of 1,024 MB" in err


def test_a_100_mb_one_line_file(tmp_path):
    """One 100 MB line: a single word is refused after a few MB are read; words on one line train as usual."""
    word = tmp_path / "word.txt"
    with open(word, "wb") as fh:
        for _ in range(100):
            fh.write(b"ab" * (1 << 19))
    err = _one_line_error(_cli(["train", str(word), "--merges", "10", "--max-memory", "600"]))
    assert "needs about" in err and "(--max-memory) is 600 MB" in err
    words = tmp_path / "words.txt"
    with open(words, "wb") as fh:
        for _ in range(100):
            fh.write(b"low lower newest widest " * 43691)
    run = _cli(["train", str(words), "--merges", "5", "--max-memory", "600"], cpu_seconds=300)
    assert run.returncode == 0, run.stderr.decode()[-2000:]
    assert run.stdout.decode().startswith("# 5 merges")


def test_running_out_of_memory_is_one_line(tmp_path):
    """A budget larger than the process's real limit: the MemoryError is reported, not raised."""
    text = tmp_path / "big.txt"
    text.write_bytes(b"".join(b"w%d " % i for i in range(3_000_000)))
    err = _one_line_error(_cli(["train", str(text), "--merges", "10", "--max-memory", "100000"], memory_mb=400))
    assert "out of memory" in err and "--max-memory" in err


def test_a_word_count_file_over_the_budget_is_refused(tmp_path):
    counts = tmp_path / "counts.tsv"
    counts.write_bytes(b"".join(b"w%d\t2\n" % i for i in range(400_000)))
    err = _one_line_error(_cli(["train", "--word-counts", str(counts), "--merges", "10", "--max-memory", "20"]))
    assert "needs about" in err and "(--max-memory) is 20 MB" in err


def test_an_interrupt_is_one_line():
    """Ctrl-C while the command waits for standard input."""
    import signal
    import time

    proc = subprocess.Popen(
        [sys.executable, "-m", "bpe_core", "train", "-", "--merges", "3"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
        # Ctrl-C as a terminal delivers it: a suite started in the background by a non-interactive shell
        # (`cmd &`) inherits SIGINT ignored, and Python then never turns it into KeyboardInterrupt
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # a condition, not a fixed sleep: blocked in read(0, ...)
            with open(f"/proc/{proc.pid}/syscall") as fh:
                if fh.read().startswith("0 0x0 "):
                    break
            time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 2 and err.decode() == "python -m bpe_core: error: interrupted\n"


def test_a_closed_output_pipe_is_one_line(tmp_path):
    text = tmp_path / "corpus.txt"
    text.write_text((REPO / "sample_corpora" / "tinyshakespeare.txt").read_text(encoding="utf-8"), encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "bpe_core", "train", str(text), "--merges", "3000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
    )
    proc.stdout.readline()  # type: ignore[union-attr]
    proc.stdout.close()  # type: ignore[union-attr]
    err = proc.stderr.read().decode()  # type: ignore[union-attr]
    proc.wait(timeout=300)
    assert (
        proc.returncode == 2 and err == "python -m bpe_core: error: the output was closed before it was all written\n"
    )

"""Smoke test of the scaling harness: ``python3 -m bench.scaling --quick`` works end to end.

Not a timed test: it runs a few paths at tiny sizes and checks what the harness
reports (every size in order, figures present, the table well formed, the Scaling
section written into a copy of the report and nothing else changed), and it checks
the harness on its own hidden self-test paths, whose memory is deterministic
(``tracemalloc`` counts bytes, not seconds): n bytes fit an exponent of 1, n*n/8
bytes one of 2, an endless loop spends its CPU budget and a memory hog meets its
address-space limit, each reported as FAIL with where it stopped, not a crash.
No assertion depends on the machine's speed.
"""

from __future__ import annotations

import json
import math
import signal
import subprocess
import sys

import pytest

from bench.scaling import Run, _read_child, markdown_table
from bench.scaling_inputs import make_text
from bench.sections import CLASS, SCALING, keep_sections, read_section, replace_section, write_lines

from .conftest import CORPORA, REPO

ONLY = "^(selftest .*|train none|encode_with_trace gpt2|load gpt2|cli)$"
KINDS = "text,a"
EXPECTED = {
    ("selftest linear", "text"),
    ("selftest quadratic", "text"),
    ("selftest spin", "text"),
    ("selftest hog", "text"),
    ("train none", "text"),
    ("train none", "a"),
    ("encode_with_trace gpt2", "text"),
    ("encode_with_trace gpt2", "a"),
    ("load gpt2", "text"),
    ("load gpt2", "a"),
    ("cli", "text"),
    ("cli", "a"),
}
OTHER_SECTIONS = "# Benchmark results\n\nIntro.\n\n## Targets\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n"


def _tables(text: str) -> list[list[list[str]]]:
    tables, current = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            current.append([c.strip() for c in line[1:-1].split(" | ")])
        elif current:
            tables.append(current)
            current = []
    return tables


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    """One quick run of a few paths with ``--write`` into a copy of a report: (stdout, runs, report text)."""
    if not (CORPORA / "taylorswift.txt").exists():
        pytest.skip(f"{CORPORA} is absent: the shared corpora folder is not next to this checkout")
    out = tmp_path_factory.mktemp("scaling")
    report = out / "RESULTS.md"
    report.write_text(OTHER_SECTIONS, encoding="utf-8")
    committed = (REPO / "bench" / "RESULTS.md").read_bytes()
    args = ["--quick", "--only", ONLY, "--kinds", KINDS, "--json", str(out / "r.json"), "--write"]
    proc = subprocess.run(
        [sys.executable, "-m", "bench.scaling", *args, "--results", str(report)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert (REPO / "bench" / "RESULTS.md").read_bytes() == committed, "--results must be the only file written"
    runs = {(r["path"], r["kind"]): r for r in json.loads((out / "r.json").read_text(encoding="utf-8"))}
    return proc.stdout, runs, report.read_text(encoding="utf-8")


def test_every_selected_run_is_reported(quick):
    _, runs, _ = quick
    assert set(runs) == EXPECTED


def test_real_paths_finish_every_size_with_figures(quick):
    _, runs, _ = quick
    for key, run in runs.items():
        if key[0].startswith("selftest"):
            continue
        assert run["error"] is None and run["stopped"] is None, (key, run["error"], run["stopped"])
        assert [r["n"] for r in run["rows"]] == run["sizes"] and len(run["sizes"]) == 3
        assert all(b == 2 * a for a, b in zip(run["sizes"], run["sizes"][1:])), "sizes double"
        assert all(r["size"] > 0 and r["cpu"] is not None and r["peak_bytes"] is not None for r in run["rows"])
        assert all(r["outcome"] for r in run["rows"])
    assert all(r["rss_bytes"] is not None for r in runs[("cli", "text")]["rows"])  # the CLI's peak RSS growth
    assert runs[("load gpt2", "a")]["unit"] == "bytes"


def test_selftests_judge_growth_from_memory(quick):
    _, runs, _ = quick
    linear = Run(**{k: v for k, v in runs[("selftest linear", "text")].items() if k != "verdict"})
    quadratic = Run(**{k: v for k, v in runs[("selftest quadratic", "text")].items() if k != "verdict"})
    assert 0.9 <= linear.mem_exp <= 1.1
    assert quadratic.mem_exp >= 1.8
    assert runs[("selftest quadratic", "text")]["verdict"].startswith("FAIL (") and "memory" in quadratic.verdict


def test_a_blown_budget_is_a_fail_not_a_crash(quick):
    _, runs, _ = quick
    spin, hog = runs[("selftest spin", "text")], runs[("selftest hog", "text")]
    assert spin["rows"] == [] and "CPU budget" in spin["stopped"] and spin["verdict"].startswith("FAIL (stopped at n=1")
    assert hog["rows"] == [] and "MemoryError" in hog["stopped"] and hog["verdict"].startswith("FAIL (stopped at n=1")


def test_printed_table_and_written_section(quick):
    stdout, runs, report = quick
    for text in (stdout, read_section(report, SCALING)):
        (table,) = _tables(text)
        assert table[0][:5] == ["path", "input", "sizes", "time exp.", "memory exp."] and table[0][-1] == "verdict"
        assert all(len(row) == len(table[0]) for row in table)
        assert len(table) == 2 + len(runs)
    assert report.startswith(OTHER_SECTIONS), "the other sections are kept byte for byte"
    section = read_section(report, SCALING)
    assert "CPU:" in section and "load average" in section and "commit" in section
    assert replace_section(report, SCALING, section) == report  # writing again replaces, never duplicates


# ---------------------------------------------------------------- pure helpers (no child process)


def _run(pairs: list[tuple[int, float, float]], **kw) -> Run:
    rows = [{"size": n, "cpu": t, "peak_bytes": m, "outcome": ""} for n, t, m in pairs]
    return Run("p", "text", "chars", [n for n, _, _ in pairs], 10.0, 100, rows=rows, **kw)


def test_exponents_are_log_log_slopes():
    run = _run([(n, 1e-6 * n * math.log2(n), 3.0 * n * n) for n in (1000, 2000, 4000, 8000)])
    assert run.time_exp == pytest.approx(1.13, abs=0.01)  # n log n over 1,000..8,000: under the 1.2 target
    assert run.mem_exp == pytest.approx(2.0)
    assert run.last_doubling("peak_bytes") == pytest.approx(2.0)
    assert run.verdict == "FAIL (memory 2.00)"
    assert _run([(n, n / 1e6, n) for n in (10, 20, 40)]).verdict == "PASS"
    assert _run([(10, 1.0, 1.0), (20, 2.0, 2.0)]).time_exp is None  # three sizes at least


def test_an_n_log_n_path_is_fitted_against_n_log_n():
    """A path that sorts by design (the step views) is judged on log(n ln n): n log n fits 1, n^1.3 does not pass."""
    sizes = [125 << i for i in range(6)]
    sort = _run([(n, 1e-6 * n * math.log(n), n) for n in sizes], growth="n log n")
    assert sort.time_exp == pytest.approx(1.0)
    assert sort.exponent("cpu", "n") == pytest.approx(1.15, abs=0.01)  # the plain fit of n log n here
    assert sort.verdict == "PASS" and "on n log n" in markdown_table([sort])[2]
    steeper = _run([(n, 1e-6 * n**1.4, n) for n in sizes], growth="n log n")
    assert steeper.time_exp > 1.2 and steeper.verdict.startswith("FAIL (time")
    assert _run([(n, 1e-6 * n**1.4, n) for n in sizes]).time_exp == pytest.approx(1.4)  # growth "n": plain fit


def test_step_views_are_the_n_log_n_paths_and_learn_every_merge():
    """Only the step views are fitted against n log n; their smallest ``words`` size holds a word per merge."""
    from bench.scaling import sizes_for
    from bench.scaling_paths import MERGES, PATHS

    sorted_paths = {name for name, path in PATHS.items() if path.growth != "n"}
    assert sorted_paths == {name for name in PATHS if name.startswith("step views ")}
    for name in sorted_paths:
        first = sizes_for(PATHS[name], "words", 5, False)[0]
        assert len(make_text("words", first).split()) >= MERGES, name


def test_distinct_characters_are_one_width_and_one_class():
    """Every distinct character lies above U+FFFF and is unassigned: 4 bytes a character in a str and in UTF-8,
    one pre-token class, at every size."""
    import unicodedata

    from bench.scaling_inputs import DISTINCT_LIMIT

    text = make_text("distinct", DISTINCT_LIMIT)
    assert len(set(text)) == len(text) and min(map(ord, text)) > 0xFFFF
    assert len(text.encode("utf-8")) == 4 * len(text)
    assert {unicodedata.category(c) for c in text[:: len(text) // 1000]} == {"Cn"}
    assert " " not in text and len(make_text("words", 1001).split()) == 501


def test_check_encoding_on_distinct_uses_characters_the_table_never_saw():
    """The char-level table saw the first TABLE_DISTINCT distinct characters; the word holds none of them."""
    from bench.scaling_inputs import distinct_chars
    from bench.scaling_paths import TABLE_DISTINCT, check_encoding_word

    seen = set(distinct_chars(TABLE_DISTINCT))
    for n in (500, 4000):
        word = check_encoding_word("distinct", n)
        assert len(word) == len(set(word)) == n and not seen & set(word)
    assert check_encoding_word("a", 100) == "a" * 100 and len(check_encoding_word("text", 300)) == 300


def test_a_killed_child_is_reported_where_it_stopped():
    run = _run([])
    lines = (
        '{"event": "begin", "n": 10}\n{"event": "size", "n": 10, "size": 10, "cpu": 1}\n{"event": "begin", "n": 20}\n'
    )
    _read_child(run, lines, "", -signal.SIGKILL)
    assert len(run.rows) == 1 and run.stopped == "killed at n=20 by SIGKILL (the hard CPU limit)"
    assert run.verdict.startswith("FAIL (killed at n=20")
    other = _run([])
    _read_child(other, '{"event": "begin", "n": 5}\n', "Traceback...\nImportError: x\n", 1)
    assert other.error == "child exited 1 at n=5: ImportError: x" and other.verdict.startswith("ERROR")
    assert len(markdown_table([run, other])) == 4


def test_bench_run_keeps_the_scaling_section(tmp_path):
    old = tmp_path / "RESULTS.md"
    old.write_text(OTHER_SECTIONS + "\n## Scaling\n\nthe table\n", encoding="utf-8")
    new = "# Benchmark results\n\nNew.\n\n## Notes\n\n- n\n"
    kept = keep_sections(old, new)
    assert kept.startswith(new) and read_section(kept, SCALING) == "## Scaling\n\nthe table\n"
    assert keep_sections(tmp_path / "absent.md", new) == new


def test_every_size_can_be_made():
    """The largest size of every path fits the inputs there are (distinct characters run out near a million)."""
    from bench.scaling import sizes_for
    from bench.scaling_inputs import DISTINCT_LIMIT
    from bench.scaling_paths import PATHS

    for path in PATHS.values():
        for kind in set(path.kinds) & {"distinct", "words"}:
            largest = sizes_for(path, kind, 5, False)[-1]
            assert largest <= (DISTINCT_LIMIT if kind == "distinct" else 2 * DISTINCT_LIMIT), (path.name, kind)


def test_browser_figures_are_written_as_subsections_side_by_side(tmp_path):
    """bench.class_load / bench.browser_step --write: one subsection per setting, rewritten in place, the
    report's other sections untouched, and bench.run carries the section over."""
    report = tmp_path / "RESULTS.md"
    report.write_text("# Results\n\n## Training\n\nkept\n", encoding="utf-8")
    write_lines(report, CLASS, "N sessions, 200 merges", "python3 -m bench.class_load", ["N = 1: lost 0"])
    write_lines(report, CLASS, "N sessions, 2,000 merges", "python3 -m bench.class_load --merges 2000", ["x"])
    write_lines(report, CLASS, "N sessions, 200 merges", "python3 -m bench.class_load", ["N = 1: lost 1"])
    text = report.read_text(encoding="utf-8")
    assert text.startswith("# Results\n\n## Training\n\nkept\n")
    section = read_section(text, CLASS)
    assert section.count("### ") == 2 and "lost 1" in section and "lost 0" not in section
    assert section.index("200 merges") < section.index("2,000 merges"), "first written stays first"
    assert "load average" in section and "commit " in section
    assert read_section(keep_sections(report, "# New\n"), CLASS) == section

"""Smoke test of the benchmark script: ``python3 -m bench.run --quick`` works end to end.

Not a timed test: it proves that every part of the script runs (training against
tokenizers and subword-nmt, the naive trainer, peak memory in a child process,
encoding against tiktoken and tokenizers, the page through AppTest, profiles of
misses) and writes a well-formed report, and it checks the correctness facts the
report states (identical ids, identical merge tables where they must be). It never
asserts a time or a PASS: the real numbers come from running the script.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from .conftest import CORPORA, REPO, waited

pytest.importorskip("tiktoken")
pytest.importorskip("tokenizers")
pytest.importorskip("subword_nmt")
pytest.importorskip("pyinstrument")


def markdown_tables(text: str) -> list[list[list[str]]]:
    """Every table of a markdown text as rows of cells (header and alignment rows included)."""
    tables, current = [], []
    for line in text.splitlines():
        if line.startswith("|"):
            assert line.endswith("|"), line
            current.append([cell.strip() for cell in line[1:-1].split(" | ")])
        elif current:
            tables.append(current)
            current = []
    if current:
        tables.append(current)
    return tables


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    """Run the quick benchmark once into a temporary folder; return (markdown, json data)."""
    if not (CORPORA / "taylorswift.txt").exists():
        pytest.skip(f"{CORPORA} is absent: the shared corpora folder is not next to this checkout")
    out = tmp_path_factory.mktemp("bench")
    committed = REPO / "bench" / "RESULTS.md"
    before = committed.read_bytes() if committed.exists() else None
    proc = subprocess.run(
        [sys.executable, "-m", "bench.run", "--quick", "--out", str(out / "RESULTS.md"), "--json", str(out / "r.json")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=waited(600),
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    after = committed.read_bytes() if committed.exists() else None
    assert after == before, "the quick run must not overwrite bench/RESULTS.md"
    return (out / "RESULTS.md").read_text(encoding="utf-8"), json.loads((out / "r.json").read_text(encoding="utf-8"))


def test_no_part_failed(quick_run):
    _, data = quick_run
    assert data["errors"] == []


def test_report_sections_and_tables(quick_run):
    md, _ = quick_run
    for heading in (
        "# Benchmark results",
        "## Machine",
        "## Targets",
        "## Training",
        "### 50 merges",
        "### 200 merges",
        "## Naive recount-every-merge trainer",
        "## Encoding",
        "## Page latency (Train page)",
        "## Viewing a step",
        "## Notes",
    ):
        assert heading in md.splitlines(), heading
    tables = markdown_tables(md)
    assert len(tables) >= 8
    for table in tables:
        width = len(table[0])
        assert all(len(row) == width for row in table), table[0]
        assert all(set(cell) <= set(":-") for cell in table[1]), "second row must be the alignment row"
    headers = [t[0] for t in tables]
    assert ["target", "measured", "verdict"] in headers
    assert any(h[:3] == ["corpus", "contender", "seconds"] and "peak RSS MB" in h for h in headers)
    assert any(h[:2] == ["table", "corpus"] and h[-1] == "ids identical" for h in headers)
    assert any(h[0] == "action" for h in headers)


def test_every_target_is_judged(quick_run):
    _, data = quick_run
    labels = [v["label"] for v in data["verdicts"]]
    assert len(labels) >= 10
    assert all(label == "PASS" or label.startswith("MISS") or label == "not measured" for label in labels)
    requests = {tuple(v["profile"]) for v in data["verdicts"] if v["label"].startswith("MISS") and v["profile"]}
    assert len(data["profiles"]) == len(requests)  # one profile per distinct measurement behind a miss


def test_encoders_give_identical_ids(quick_run):
    _, data = quick_run
    tables = {row["table"] for row in data["encode"]}
    assert tables == {"trained", "gpt2", "cl100k_base"}
    for row in data["encode"]:
        assert row["ids_identical"] == {"warm": True, "tiktoken": True, "hf": True}, (row["table"], row["corpus"])
        assert row["tokens"] > 0


def test_training_tables_agree_where_they_must(quick_run):
    _, data = quick_run
    assert [c["merges"] for c in data["train"]] == [50, 200]
    for cell in data["train"]:
        agree = cell["agreement"]
        assert agree["bpe_byte_trace~hf_byte"] is None  # identical byte-level tables (tie rule hf_tokenizers)
        assert agree["bpe_ws_trace~bpe_ws_notrace"] is None and agree["bpe_byte_trace~bpe_byte_notrace"] is None
        assert set(cell["learned"].values()) == {cell["merges"]}
        assert all(len(t["seconds"]) == 1 for t in cell["timings"].values())
    memory = data["train"][-1]["memory"]
    assert set(memory) == set(data["train"][-1]["keys"])
    assert all(m["peak_mb"] >= m["baseline_mb"] > 0 for m in memory.values())
    naive = data["naive"][0]
    assert naive["agreement"]["bpe_snmt~naive"] is None


def test_step_views_were_timed(quick_run):
    _, data = quick_run
    (views,) = data["step_views"]
    assert views["merges"] == 200 and len(views["seconds"]) >= 20 and views["first"] in map(int, views["seconds"])


def test_page_was_driven(quick_run):
    _, data = quick_run
    page = data["page"]
    assert page["checks"] == {"no exception": True, "first step shown": True, "steps advance": True}
    assert all(t["seconds"] for t in page["timings"].values())


def test_an_earlier_report_is_shown_beside_each_target():
    from bench.report import _before_of, read_before

    earlier = (
        "# Benchmark results\n\nGenerated by `python3 -m bench.run` on 2026-12-01 09:11 UTC in 20 minutes.\n\n"
        "## Targets\n\n| target | measured | verdict |\n| --- | --- | --- |\n"
        "| Memory: 5,000 merges on udhr-multiscript with the full trace under 400 MB peak RSS | 195 MB | PASS |\n"
        "| Encoding (gpt2 table): ids identical | identical on every corpus | PASS |\n\n## Training\n\n"
        "| corpus | seconds | x |\n| --- | --- | --- |\n| a | 1 | 2 |\n"
    )
    label, rows = read_before(earlier, "86278f7")
    assert label == "86278f7, 2026-12-01"
    assert rows == {
        "Memory: 5,000 merges on udhr-multiscript with the full trace under 400 MB peak RSS": "195 MB",
        "Encoding (gpt2 table): ids identical": "identical on every corpus",
    }
    # The same target with a new threshold keeps its earlier figure; a new target has none.
    assert _before_of("Memory: 5,000 merges on udhr-multiscript with the full trace under 120 MB peak RSS", rows) == (
        "195 MB"
    )
    assert _before_of("Encoding (gpt2 table): ids identical", rows) == "identical on every corpus"
    assert _before_of("Training 5,000 merges: trace on at most 1.15x trace off", rows) == "—"

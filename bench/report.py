"""The results of a run, the verdict on each target, and the markdown report (``bench/RESULTS.md``)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from .encoding import EncodeRow
from .measure import geomean
from .page import PageResult
from .profiles import Profile
from .steps import LONG_RUN, StepViews
from .trainers import CONTENDERS, NAIVE_PAIRING, PAIRINGS
from .training import TrainCell

TARGET_MERGES = 5000
"""The merge budget the training and memory targets are stated for."""
TRAIN_VS_HF = 2.0
FASTER_THAN_SNMT = 5.0
ENCODE_GEOMEAN = 3.0
ENCODE_WORST = 6.0
MEMORY_MB = 120.0
MEMORY_CORPUS = "udhr-multiscript"
TRACE_OVERHEAD = 1.15
STEP_VIEW_S = 0.050
LONG_RUN_MB = 1536.0
PAGE_COLD_S = 3.0
PAGE_WARM_S = 0.5
PAGE_STEP_S = 0.150


@dataclass
class Results:
    """Everything one run measured."""

    command: str
    machine: dict[str, str]
    options: dict[str, Any]
    train: list[TrainCell] = field(default_factory=list)
    naive: list[TrainCell] = field(default_factory=list)
    encode: list[EncodeRow] = field(default_factory=list)
    page: PageResult | None = None
    step_views: list[StepViews] = field(default_factory=list)
    long_run: dict[str, Any] | None = None
    profiles: list[Profile] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    load_after: str = ""
    before: tuple[str, dict[str, str]] | None = None
    """From ``--before``: the earlier report's label and its measured figure per target (:func:`read_before`)."""


@dataclass(frozen=True)
class Verdict:
    """One target: what it asks, what was measured, whether it holds, and what to profile if not.

    ``ok`` is ``None`` when the run did not measure it. ``profile`` names what
    to profile on a miss: ``("train", contender, corpus, merges)``,
    ``("encode", table, corpus)`` or ``("page", action)``.
    """

    target: str
    measured: str
    ok: bool | None
    by: str = ""
    profile: tuple | None = None

    @property
    def label(self) -> str:
        """``PASS``, ``MISS (by ...)`` or ``not measured``."""
        if self.ok is None:
            return "not measured"
        return "PASS" if self.ok else f"MISS ({self.by})" if self.by else "MISS"


def _x(v: float) -> str:
    return "n/a" if v is None or math.isnan(v) else f"{v:.2f}x"


def pairing_ratio(cell: TrainCell, ours: str, ref: str, speedup: bool, cpu: bool = False) -> float:
    """``ref/ours`` (speedup) or ``ours/ref`` from the cell's medians; ``nan`` if either is missing.

    With ``cpu``, from the medians of process CPU time instead of wall time.
    """
    if ours not in cell.timings or ref not in cell.timings:
        return float("nan")
    if cpu:
        a, b = cell.timings[ours].cpu_median, cell.timings[ref].cpu_median
    else:
        a, b = cell.seconds(ours), cell.seconds(ref)
    return b / a if speedup else a / b


def _budget(results: Results) -> int | None:
    budgets = sorted({c.merges for c in results.train})
    if not budgets:
        return None
    return TARGET_MERGES if TARGET_MERGES in budgets else budgets[-1]


def verdicts(results: Results) -> list[Verdict]:
    """Judge every target of the issue on ``results`` (ratios from the same run)."""
    out: list[Verdict] = []
    budget = _budget(results)
    at = "" if budget in (None, TARGET_MERGES) else f" (measured at {budget:,} merges; the target is for 5,000)"
    cells = [c for c in results.train if c.merges == budget]
    for ours, ref, what in (
        ("bpe_ws_trace", "hf_ws", "whitespace_eow vs HF WhitespaceSplit + </w>"),
        ("bpe_byte_trace", "hf_byte", "gpt2/byte vs HF ByteLevel"),
    ):
        ratios = {c.corpus: pairing_ratio(c, ours, ref, False) for c in cells}
        ratios = {k: v for k, v in ratios.items() if not math.isnan(v)}
        target = f"Training 5,000 merges, trace on, {what}: at most {TRAIN_VS_HF:g}x HF's time on every corpus{at}"
        if not ratios:
            out.append(Verdict(target, "", None))
            continue
        worst = max(ratios, key=ratios.get)
        measured = ", ".join(f"{k} {_x(v)}" for k, v in ratios.items())
        ok = ratios[worst] <= TRAIN_VS_HF
        by = f"worst {worst} {_x(ratios[worst])}, {ratios[worst] / TRAIN_VS_HF:.2f}x the allowed time"
        misses = [k for k, v in ratios.items() if v > TRAIN_VS_HF]
        if misses:
            by += f"; {len(misses)} of {len(ratios)} corpora over"
        off = {c.corpus: pairing_ratio(c, ours.replace("_trace", "_notrace"), ref, False) for c in cells}
        off = {k: v for k, v in off.items() if not math.isnan(v)}
        if off:
            by += f"; with the trace off the worst is {max(off, key=off.get)} {_x(max(off.values()))}"
        out.append(Verdict(target, measured, ok, by, None if ok else ("train", ours, worst, budget)))
    speed = {c.corpus: pairing_ratio(c, "bpe_snmt", "subword_nmt", True) for c in cells}
    speed = {k: v for k, v in speed.items() if not math.isnan(v)}
    target = f"Training 5,000 merges, trace on: at least {FASTER_THAN_SNMT:g}x faster than subword-nmt{at}"
    if speed:
        worst = min(speed, key=speed.get)
        ok = speed[worst] >= FASTER_THAN_SNMT
        by = f"worst {worst} {_x(speed[worst])} faster, {FASTER_THAN_SNMT / speed[worst]:.2f}x short"
        measured = ", ".join(f"{k} {_x(v)}" for k, v in speed.items())
        out.append(Verdict(target, measured, ok, by, None if ok else ("train", "bpe_snmt", worst, budget)))
    else:
        out.append(Verdict(target, "", None))

    for ours, what in (("bpe_ws_trace", "whitespace_eow"), ("bpe_byte_trace", "gpt2/byte")):
        off = ours.replace("_trace", "_notrace")
        ratios = {c.corpus: pairing_ratio(c, ours, off, False) for c in cells}
        ratios = {k: v for k, v in ratios.items() if not math.isnan(v)}
        target = f"Training 5,000 merges, {what}: trace on at most {TRACE_OVERHEAD:g}x trace off on every corpus{at}"
        if not ratios:
            out.append(Verdict(target, "", None))
            continue
        worst = max(ratios, key=ratios.get)
        ok = ratios[worst] <= TRACE_OVERHEAD
        by = f"worst {worst} {_x(ratios[worst])}"
        measured = ", ".join(f"{k} {_x(v)}" for k, v in ratios.items())
        out.append(Verdict(target, measured, ok, by, None if ok else ("train", ours, worst, budget)))
    out += _trace_verdicts(results)

    # memory
    target = f"Memory: 5,000 merges on {MEMORY_CORPUS} with the full trace under {MEMORY_MB:g} MB peak RSS{at}"
    mem_cells = [c for c in cells if c.corpus == MEMORY_CORPUS and c.memory]
    peaks = {k: c.memory[k]["peak_mb"] for c in mem_cells for k in c.memory if CONTENDERS[k].trace}
    if peaks:
        worst = max(peaks, key=peaks.get)
        ok = peaks[worst] < MEMORY_MB
        measured = ", ".join(f"{CONTENDERS[k].label}: {v:.0f} MB" for k, v in peaks.items())
        out.append(Verdict(target, measured, ok, f"{peaks[worst]:.0f} MB, {peaks[worst] - MEMORY_MB:.0f} MB over"))
    else:
        out.append(Verdict(target, "", None))

    # encoding, per table
    for table in dict.fromkeys(r.table for r in results.encode):
        rows = [r for r in results.encode if r.table == table]
        ratios = {r.corpus: r.ratio("ours_cold", "tiktoken") for r in rows}
        gm = geomean(list(ratios.values()))
        worst = max(ratios, key=ratios.get)
        ok = gm <= ENCODE_GEOMEAN and ratios[worst] <= ENCODE_WORST
        by = []
        if gm > ENCODE_GEOMEAN:
            by.append(f"geomean {_x(gm)}, {gm / ENCODE_GEOMEAN:.2f}x the allowed")
        if ratios[worst] > ENCODE_WORST:
            by.append(f"{worst} {_x(ratios[worst])}, {ratios[worst] / ENCODE_WORST:.2f}x the allowed")
        out.append(
            Verdict(
                f"Encoding ({table} table), cold cache: at most {ENCODE_GEOMEAN:g}x tiktoken's time "
                f"(geometric mean), none worse than {ENCODE_WORST:g}x",
                f"geomean {_x(gm)}; worst {worst} {_x(ratios[worst])}",
                ok,
                "; ".join(by),
                None if ok else ("encode", table, worst),
            )
        )
        same = all(all(r.ids_identical.values()) for r in rows)
        bad = [r.corpus for r in rows if not all(r.ids_identical.values())]
        out.append(
            Verdict(
                f"Encoding ({table} table): ids identical to tiktoken and tokenizers",
                "identical on every corpus" if same else "differ on " + ", ".join(bad),
                same,
                "" if same else "ids differ",
            )
        )
        hf = {r.corpus: r.ratio("ours_cold", "hf_encode") for r in rows}
        slow = [k for k, v in hf.items() if v >= 1]
        out.append(
            Verdict(
                f"Encoding ({table} table), cold cache: faster than tokenizers' single-call encode",
                "ours/HF time " + ", ".join(f"{k} {_x(v)}" for k, v in hf.items()),
                not slow,
                "slower on " + ", ".join(slow) if slow else "",
                None if not slow else ("encode", table, max(hf, key=hf.get)),
            )
        )

    # page
    page = results.page
    label = f"{page.sample}, {page.merges:,} merges" if page else ""
    for action, limit, text in (
        ("train_cold", PAGE_COLD_S, "Page: first Train step on screen after pressing Train, cold cache"),
        ("train_warm", PAGE_WARM_S, "Page: the same, warm cache"),
        ("step_next", PAGE_STEP_S, "Page: a step change (Next), step player's server time"),
    ):
        target = f"{text}: under {limit * 1000:.0f} ms" if limit < 1 else f"{text}: within {limit:g} s"
        if page is None or not page.timings[action].seconds:
            out.append(Verdict(target, "", None))
            continue
        t = page.fragment[action].median if action == "step_next" else page.timings[action].median
        measured = f"{t * 1000:.0f} ms ({label})"
        if action == "step_next":
            measured += f"; full AppTest rerun {page.timings[action].median * 1000:.0f} ms"
        ok = t < limit
        out.append(
            Verdict(target, measured, ok, f"{t / limit:.2f}x the allowed time", None if ok else ("page", action))
        )
    return out


def _trace_verdicts(results: Results) -> list[Verdict]:
    """The step-view and long-run targets."""
    out = []
    target = (
        "Viewing a step (top pairs, every tie with its key, every rewritten word): "
        f"median under {STEP_VIEW_S * 1000:.0f} ms, first view included"
    )
    if results.step_views:
        worst = max(results.step_views, key=lambda v: v.median)
        measured = "; ".join(
            f"{v.corpus}, {v.merges:,} merges: median {v.median * 1000:.1f} ms, "
            f"first {v.seconds[v.first] * 1000:.1f} ms, slowest {v.worst * 1000:.1f} ms"
            for v in results.step_views
        )
        ok = worst.median < STEP_VIEW_S
        out.append(Verdict(target, measured, ok, f"{worst.median / STEP_VIEW_S:.2f}x the allowed time"))
    else:
        out.append(Verdict(target, "", None))
    target = (
        f"`train(..., num_merges={LONG_RUN['num_merges']:,}, pretokenizer='none', unit='byte', min_frequency=1)` on "
        f"Tiny Shakespeare: finishes or stops with a clear message, peak RSS under {LONG_RUN_MB:,.0f} MB"
    )
    run = results.long_run
    if run:
        ok = not run["error"] and run["peak_mb"] < LONG_RUN_MB
        said = run["error"] or run["stop_reason"] or "finished"
        measured = f"{run['num_merges']:,} merges in {run['seconds']:.0f} s, peak {run['peak_mb']:.0f} MB: {said}"
        out.append(Verdict(target, measured, ok, f"peak {run['peak_mb']:.0f} MB" if not run["error"] else "failed"))
    else:
        out.append(Verdict(target, "", None))
    return out


# ----------------------------------------------------------------- markdown


def _table(header: list[str], rows: list[list[str]], align: str | None = None) -> list[str]:
    align = align or "l" + "r" * (len(header) - 1)
    marks = {"l": "---", "r": "---:", "c": ":---:"}
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join(marks[a] for a in align) + " |"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def _agreement_text(cell: TrainCell, key: str) -> str:
    """What row ``key`` says about merge tables: ours against the reference (and trace on against off)."""
    names = {
        "hf_ws": "HF",
        "hf_byte": "HF",
        "subword_nmt": "subword-nmt",
        "naive": "naive",
        "bpe_ws_notrace": "trace off",
        "bpe_byte_notrace": "trace off",
        "bpe_snmt": "ours",
    }
    texts = []
    for name, diff in cell.agreement.items():
        ours, ref = name.split("~")
        if key == ours:
            other = ref
        elif key == ref == "naive":
            other = ours
        else:
            continue
        label = names.get(other, other)
        texts.append(f"{label}: identical" if diff is None else f"{label}: differs from merge {diff + 1}")
    return "; ".join(texts) or "—"


def _seconds(t: float) -> str:
    return f"{t:.3f}" if t < 10 else f"{t:.1f}"


def _train_rows(cells: list[TrainCell]) -> list[list[str]]:
    rows = []
    for cell in cells:
        for key in cell.keys:
            timing = cell.timings[key]
            mem = cell.memory.get(key)
            learned = cell.learned.get(key, 0)
            rows.append(
                [
                    cell.corpus,
                    CONTENDERS[key].label,
                    _seconds(timing.median),
                    f"{timing.spread * 100:.0f}%",
                    f"{learned / timing.median:,.0f}" if timing.median else "n/a",
                    f"{timing.cpu_share:.2f}",
                    f"{mem['peak_mb']:.0f} ({mem['baseline_mb']:.0f})" if mem else "—",
                    _agreement_text(cell, key),
                ]
            )
    return rows


def _ratio_table(cells: list[TrainCell], cpu: bool) -> list[str]:
    header = ["corpus", "MB"] + [p.label for p in PAIRINGS]
    rows = [
        [c.corpus, f"{c.megabytes:.2f}"] + [_x(pairing_ratio(c, *p.args, cpu=cpu)) for p in PAIRINGS] for c in cells
    ]
    if len(cells) > 1:
        means = []
        for p in PAIRINGS:
            values = [pairing_ratio(c, *p.args, cpu=cpu) for c in cells]
            means.append(_x(geomean([v for v in values if not math.isnan(v)])))
        rows.append(["**geometric mean**", ""] + means)
    return _table(header, rows)


def read_before(text: str, label: str) -> tuple[str, dict[str, str]]:
    """The *Targets* table of an earlier ``RESULTS.md``: ``(label, {target: measured})``.

    ``label`` names the earlier run (e.g. its commit); the run's date is added from the report's first line.
    """
    date = re.search(r" on (\d{4}-\d\d-\d\d)", text)
    rows: dict[str, str] = {}
    table = text.split("## Targets", 1)[-1].split("\n## ", 1)[0]
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if len(cells) == 3 and cells[0] not in ("target", "---"):
            rows[cells[0]] = cells[1]
    return (f"{label}, {date.group(1)}" if date else label), rows


def _before_of(target: str, before: dict[str, str]) -> str:
    """The earlier figure for ``target``: the same target, or one that differs only past its first 40 characters
    and after the same heading (a changed threshold); "—" for a target the earlier run did not have."""
    if target in before:
        return before[target]
    head = target.split(":", 1)[0]
    for old, measured in before.items():
        if old.split(":", 1)[0] == head and old[:40] == target[:40]:
            return measured
    return "—"


def _targets(results: Results, vs: list[Verdict]) -> list[str]:
    """The targets table, with the earlier run's figures beside this run's when ``--before`` gave them."""
    if results.before is None:
        return _table(["target", "measured", "verdict"], [[v.target, v.measured or "—", v.label] for v in vs], "lll")
    label, before = results.before
    rows = [[v.target, _before_of(v.target, before), v.measured or "—", v.label] for v in vs]
    return _table(["target", f"before ({label})", "measured now", "verdict"], rows, "llll")


def render(results: Results) -> str:
    """The whole report as markdown."""
    r = results
    opts = r.options
    lines = [
        "# Benchmark results",
        "",
        f"Generated by `{r.command}` on {r.machine['date']} in {r.seconds / 60:.1f} minutes. "
        "Regenerated in full by every run: do not edit by hand. "
        "Times are medians of interleaved repeats in one process; ratios compare contenders of the same run.",
        "",
        "## Machine",
        "",
    ]
    machine = dict(r.machine)
    machine["load average (1/5/15 min)"] = f"{machine.pop('load_before', '?')} at the start, {r.load_after} at the end"
    lines += _table(["", ""], [[k, v] for k, v in machine.items()], "ll")
    lines += ["", "## Targets", ""]
    vs = verdicts(r)
    lines += _targets(r, vs)
    misses = [v for v in vs if v.ok is False]
    if misses:
        lines += [
            "",
            f"{len(misses)} of {sum(v.ok is not None for v in vs)} measured targets missed; "
            "see *Profiles of the misses* below for what is in the way.",
        ]

    if r.train:
        lines += [
            "",
            "## Training",
            "",
            f"Whole corpora, {opts['repeats']} repeat(s) each, contenders interleaved; `min_frequency=2` everywhere. "
            "*spread* is (max - min) / median of the repeats. *peak RSS* is the peak resident set size (MB) of a "
            "fresh process that loads the corpus and runs that one training (in brackets: its size just before "
            "training). *CPU/wall*: process CPU time over wall time (above 1: more than one core busy). "
            "*same merges* compares the merge tables (ids aside).",
            "",
            "Pairings: **whitespace** = `train(pretokenizer='whitespace_eow', end_of_word='attached', unit='char', "
            "tie_break='hf_tokenizers')` vs `BpeTrainer` with `WhitespaceSplit` and `end_of_word_suffix='</w>'`; "
            "**byte-level** = `train(pretokenizer='gpt2', unit='byte', tie_break='hf_tokenizers')` vs `BpeTrainer` "
            "with `ByteLevel(add_prefix_space=False)` and `initial_alphabet=ByteLevel.alphabet()`; **subword-nmt** = "
            "`learn_bpe` on the raw text vs `train(pretokenizer='whitespace_eow', end_of_word='attached', "
            "tie_break='subword_nmt')`.",
        ]
        for budget in sorted({c.merges for c in r.train}):
            cells = [c for c in r.train if c.merges == budget]
            lines += ["", f"### {budget:,} merges", ""]
            lines += _table(
                ["corpus", "contender", "seconds", "spread", "merges/s", "CPU/wall", "peak RSS MB", "same merges"],
                _train_rows(cells),
                "llrrrrrl",
            )
            lines += [
                "",
                f"Ratios at {budget:,} merges (time ratios; *x* > 1 in the last column means we are faster):",
                "",
            ]
            lines += _ratio_table(cells, cpu=False)
            lines += [
                "",
                "The same ratios from process CPU time (less sensitive to other jobs on the machine; "
                "a multi-threaded reference would look slower here, see its CPU/wall):",
                "",
            ]
            lines += _ratio_table(cells, cpu=True)

    if r.naive:
        n = r.naive[0]
        lines += [
            "",
            "## Naive recount-every-merge trainer",
            "",
            f"{n.merges:,} merges, {opts['naive_repeats']} repeat(s), whitespace_eow/attached/subword_nmt settings on "
            + (
                f"a {opts['naive_size']:,}-character sample (8 runs of whole lines spread over the file; corpora "
                "no longer than that whole), "
                if opts["naive_size"]
                else "the whole corpora, "
            )
            + "because each naive merge is a full pass over every word. Ours runs on the same text.",
            "",
        ]
        lines += _table(
            ["corpus", "MB used", "contender", "seconds", "merges/s", "peak RSS MB", "same merges"],
            [
                [c.corpus, f"{c.megabytes:.2f}"] + row[1:3] + row[4:5] + row[6:]
                for c in r.naive
                for row in _train_rows([c])
            ],
            "lrlrrrl",
        )
        lines += [""]
        lines += _table(
            ["corpus", NAIVE_PAIRING.label],
            [[c.corpus, _x(pairing_ratio(c, NAIVE_PAIRING.ours, NAIVE_PAIRING.ref, True))] for c in r.naive],
        )

    if r.encode:
        lines += [
            "",
            "## Encoding",
            "",
            f"Whole corpus in one call, {opts['repeats']} repeat(s), interleaved; MB = 10^6 bytes of UTF-8. "
            "*ours cold*: `Tokenizer.encode` with its per-pre-token cache emptied before each run (the honest "
            "figure: tiktoken has no such cache); *warm*: the same call again right after. tiktoken: "
            "`Encoding.encode_ordinary` on the same ranks and pattern; HF: `Tokenizer.encode(text)` (one call); "
            "HF batch: `encode_batch` over the lines (its thread pool; ids not compared, informative only). "
            "*distinct pre-tokens*: distinct pieces of the split pattern as a share of all pieces, the cold "
            "run's cache misses (each one is merged from bytes in Python). *same, CPU time*: the cold ratio from "
            "process CPU time (a cross-check that is less sensitive to other jobs on the machine). "
            f"Tables: *trained* = byte-level, GPT-2 pattern, {opts['encode_merges']:,} merges trained on that corpus; "
            "*gpt2* and *cl100k_base* = the real tables (tiktoken from OpenAI's published files).",
            "",
        ]
        rows = []
        for table in dict.fromkeys(e.table for e in r.encode):
            erows = [e for e in r.encode if e.table == table]
            for e in erows:
                rows.append(
                    [
                        table,
                        e.corpus,
                        f"{e.megabytes:.2f}",
                        f"{e.tokens:,}",
                        f"{e.distinct_pieces / e.pieces * 100:.1f}%" if e.pieces else "?",
                        f"{e.mb_per_s('ours_cold'):.2f}",
                        f"{e.mb_per_s('ours_warm'):.2f}",
                        f"{e.mb_per_s('tiktoken'):.2f}",
                        f"{e.mb_per_s('hf_encode'):.2f}",
                        f"{e.mb_per_s('hf_batch'):.2f}",
                        _x(e.ratio("ours_cold", "tiktoken")),
                        _x(e.ratio("ours_cold", "tiktoken", cpu=True)),
                        _x(e.ratio("ours_warm", "tiktoken")),
                        _x(e.ratio("ours_cold", "hf_encode")),
                        "yes" if all(e.ids_identical.values()) else "NO " + str(e.ids_identical),
                    ]
                )
            if len(erows) > 1:
                rows.append(
                    [f"**{table}**", "**geometric mean**", "", "", "", "", "", "", "", ""]
                    + [
                        _x(geomean([e.ratio(a, b, cpu) for e in erows]))
                        for a, b, cpu in (
                            ("ours_cold", "tiktoken", False),
                            ("ours_cold", "tiktoken", True),
                            ("ours_warm", "tiktoken", False),
                            ("ours_cold", "hf_encode", False),
                        )
                    ]
                    + [""]
                )
        lines += _table(
            [
                "table",
                "corpus",
                "MB",
                "tokens",
                "distinct pre-tokens",
                "ours cold MB/s",
                "ours warm MB/s",
                "tiktoken MB/s",
                "HF encode MB/s",
                "HF batch MB/s",
                "ours cold / tiktoken",
                "same, CPU time",
                "ours warm / tiktoken",
                "ours cold / HF encode",
                "ids identical",
            ],
            rows,
            "llrrrrrrrrrrrrl",
        )

    if r.page:
        p = r.page
        lines += [
            "",
            "## Page latency (Train page)",
            "",
            f"Server time measured with Streamlit's AppTest (no browser; includes AppTest's own overhead), sample "
            f"*{p.sample}*, {p.merges:,} merges, {len(p.timings['app_load'].seconds)} fresh session(s) with "
            "`st.cache_data` cleared; step changes 5 per session. AppTest reruns the whole script on a click inside "
            "a fragment, so the *step player* column gives the time of `ui.player.step_player` alone: the "
            "`st.fragment` body a real server reruns on Next.",
            "",
        ]
        names = {
            "app_load": "app load (default sample, 200 merges)",
            "train_cold": "press Train, cold cache → first step",
            "train_warm": "press Train again, warm cache",
            "step_next": "step change (Next)",
            "slider_jump": f"slider to step {max(1, p.merges // 2):,}",
        }
        rows = []
        for action, label in names.items():
            t = p.timings[action]
            frag = p.fragment.get(action)
            rows.append(
                [
                    label,
                    f"{t.median * 1000:,.0f}",
                    f"{frag.median * 1000:,.0f}" if frag and frag.seconds else "—",
                    f"{t.spread * 100:.0f}%",
                ]
            )
        lines += _table(["action", "AppTest run, ms (median)", "step player, ms", "spread"], rows)
        lines += ["", "Checks: " + ", ".join(f"{k}: {'yes' if v else 'NO'}" for k, v in p.checks.items()) + "."]

    if r.step_views:
        lines += [
            "",
            "## Viewing a step",
            "",
            "One training with the app's default settings, then views of merges spread over the run in shuffled "
            "order; a view is `steps[k]` + `ties_at(k)` + `word_changes(k)`: everything the Train page shows "
            "for a step. The first view pays for the lazily built helpers.",
            "",
        ]
        rows = [
            [
                v.corpus,
                f"{v.merges:,}",
                str(len(v.seconds)),
                f"{v.median * 1000:.1f}",
                f"{v.seconds[v.first] * 1000:.1f}",
            ]
            + [f"{v.worst * 1000:.1f}"]
            for v in r.step_views
        ]
        lines += _table(["corpus", "merges", "views", "median ms", "first view ms", "slowest ms"], rows, "lrrrrr")
    if r.long_run:
        run = r.long_run
        lines += [
            "",
            "## A very long run",
            "",
            f"`train(text, {', '.join(f'{k}={v!r}' for k, v in LONG_RUN.items())})` on Tiny Shakespeare in a fresh "
            f"process: {run['num_merges']:,} merges in {run['seconds']:.0f} s, peak RSS {run['peak_mb']:.0f} MB; "
            + (run["error"] or run["stop_reason"] or "finished")
            + ".",
        ]
    if r.profiles:
        lines += [
            "",
            "## Profiles of the misses",
            "",
            "One profiled run per missed target, on the worst corpus. *self*: time in the function's own code; "
            "*inclusive*: with everything it calls; both as a share of the profiled run. Built-ins appear under "
            "their own names (`dict.get`, `set.add`...). Profilers slow the run down, so shares, not seconds, "
            "are the point.",
        ]
        for prof in r.profiles:
            lines += ["", f"### {prof.title}", "", f"{prof.profiler}, {prof.seconds:.2f} s profiled."]
            if prof.notes:
                lines += [""] + [f"- {note}" for note in prof.notes]
            lines += [""]
            rows = []
            for a, b in zip(prof.top_self, prof.top_inclusive):
                rows.append(
                    [
                        f"`{a.function}`",
                        f"{a.self_share * 100:.1f}%",
                        f"{a.inclusive_share * 100:.1f}%",
                        f"`{b.function}`",
                        f"{b.inclusive_share * 100:.1f}%",
                    ]
                )
            lines += _table(["top by self time", "self", "incl.", "top by inclusive time", "incl."], rows, "lrrlr")

    if r.errors:
        lines += ["", "## Errors", "", "These parts failed; their targets show as not measured:", ""]
        lines += [f"- {e}" for e in r.errors]
    if r.notes:
        lines += ["", "## Notes", ""] + [f"- {n}" for n in r.notes]
    return "\n".join(lines) + "\n"

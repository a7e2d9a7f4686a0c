"""Run the benchmarks and write ``bench/RESULTS.md``.

Usage::

    python3 -m bench.run                      # full run: all corpora, 1,000 and 5,000 merges, 3 repeats
    python3 -m bench.run --quick --out /tmp/r.md   # smoke run: one small corpus, few merges, 1 repeat
    python3 -m bench.run --corpora tinyshakespeare,code --repeats 5 --skip page,naive

Everything is measured in this one process (peak memory in a short-lived
child per training), contenders interleaved repeat by repeat, medians
reported. Targets are judged on ratios from the same run; for every missed
target one extra run is profiled and its top functions go into the report.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shlex
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import corpora as corpora_mod
from .corpora import CORPUS_NAMES, REPO, read_corpus, sample
from .encoding import bundled_contenders, clear_caches, measure_encoding, trained_contenders
from .measure import load_average, machine_facts
from .profiles import gc_share, profile_call
from .report import Results, read_before, render, verdicts
from .sections import keep_sections
from .steps import measure_long_run, measure_step_views
from .trainers import CONTENDERS, MAIN_KEYS
from .training import measure_training

DEFAULT_OUT = Path(__file__).resolve().parent / "RESULTS.md"
SKIPPABLE = ("train", "snmt", "naive", "encode", "page", "memory", "steps", "long", "profile")
STEP_CORPUS = "tinyshakespeare"
QUICK_CORPUS = "taylorswift"
PAGE_SAMPLE = "Tiny Shakespeare (1.1 MB)"
QUICK_PAGE_SAMPLE = "Shakespeare excerpt (12 KB)"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (see the module docstring); ``--quick`` changes the defaults, explicit flags win."""
    ap = argparse.ArgumentParser(prog="python3 -m bench.run", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="smoke run: one small corpus, few merges, 1 repeat")
    ap.add_argument("--repeats", type=int, help="repeats per measurement (default 3; quick 1)")
    ap.add_argument("--corpora", help=f"comma-separated subset of: {','.join(CORPUS_NAMES)}")
    ap.add_argument("--merges", help="comma-separated merge budgets for training (default 1000,5000; quick 50,200)")
    ap.add_argument("--skip", default="", help=f"comma-separated parts to leave out: {','.join(SKIPPABLE)}")
    ap.add_argument("--naive-merges", type=int, help="merges for the naive trainer (default 1000; quick 50)")
    ap.add_argument(
        "--naive-size", type=int, help="characters of each corpus for the naive trainer, 0 = whole (default 300000)"
    )
    ap.add_argument("--naive-repeats", type=int, default=1, help="repeats of the naive comparison (default 1)")
    ap.add_argument("--encode-merges", type=int, help="merges of the tables trained for encoding (default 5000)")
    ap.add_argument("--no-bundled", action="store_true", help="encode with the trained tables only (no gpt2/cl100k)")
    ap.add_argument("--page-sample", help=f"sidebar sample label for the page (default {PAGE_SAMPLE!r})")
    ap.add_argument("--page-merges", type=int, help="merge budget for the page (default 2000; quick 50)")
    ap.add_argument("--corpora-dir", type=Path, help="where the corpora are (default ../shared/corpora)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="markdown report (default bench/RESULTS.md)")
    ap.add_argument("--json", type=Path, help="also write the raw measurements as JSON")
    ap.add_argument(
        "--before",
        metavar="REV:PATH",
        help="an earlier report to show beside this run's figures, as git revision:path (86278f7:bench/RESULTS.md)",
    )
    args = ap.parse_args(argv)
    quick = args.quick
    args.repeats = args.repeats or (1 if quick else 3)
    args.corpora = args.corpora.split(",") if args.corpora else ([QUICK_CORPUS] if quick else list(CORPUS_NAMES))
    unknown = [c for c in args.corpora if c not in CORPUS_NAMES]
    if unknown:
        ap.error(f"unknown corpora {unknown}; choose from {', '.join(CORPUS_NAMES)}")
    args.merges = [int(m) for m in args.merges.split(",")] if args.merges else ([50, 200] if quick else [1000, 5000])
    args.skip = {s for s in args.skip.split(",") if s}
    if args.skip - set(SKIPPABLE):
        ap.error(f"--skip takes {', '.join(SKIPPABLE)}")
    args.naive_merges = args.naive_merges or (50 if quick else 1000)
    args.naive_size = args.naive_size if args.naive_size is not None else (50_000 if quick else 300_000)
    args.encode_merges = args.encode_merges or (200 if quick else 5000)
    args.page_sample = args.page_sample or (QUICK_PAGE_SAMPLE if quick else PAGE_SAMPLE)
    args.page_merges = args.page_merges or (50 if quick else 2000)
    if args.repeats < 1 or args.naive_repeats < 1:
        ap.error("repeats must be at least 1")
    return args


def log(message: str) -> None:
    """A progress line on stderr, with the time."""
    print(time.strftime("%H:%M:%S"), message, file=sys.stderr, flush=True)


def run(args: argparse.Namespace, command: str) -> Results:
    """Measure everything ``args`` asks for; return the results (nothing written yet)."""
    started = time.perf_counter()
    machine = machine_facts()
    machine["load_before"] = load_average()
    options = {
        k: (sorted(v) if isinstance(v, set) else str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()
    }
    results = Results(command=command, machine=machine, options=options)
    if args.before:
        earlier = subprocess.run(["git", "show", args.before], cwd=REPO, capture_output=True, text=True, check=True)
        results.before = read_before(earlier.stdout, args.before.split(":", 1)[0])
    directory = args.corpora_dir
    if directory is not None:
        corpora_mod.CORPORA_DIR = directory
    texts = {}
    for name in args.corpora:
        texts[name] = read_corpus(name, directory)
    log(f"corpora: {', '.join(f'{k} {len(v.encode()) / 1e6:.2f} MB' for k, v in texts.items())}")

    keys = tuple(k for k in MAIN_KEYS if not ("snmt" in args.skip and k == "subword_nmt"))

    def guarded(part: str, fn: Callable[[], None]) -> None:
        """Run one part; on an exception, record it in the report and go on with the next part."""
        try:
            fn()
        except Exception as exc:  # noqa: BLE001 - a broken part must not lose the others' results
            detail = traceback.format_exc(limit=-3).strip().splitlines()
            results.errors.append(f"{part}: {type(exc).__name__}: {exc} ({' / '.join(d.strip() for d in detail[-4:])})")
            log(f"ERROR in {part}:\n{traceback.format_exc()}")

    def train_part(name: str, text: str, budget: int) -> None:
        memory = "memory" not in args.skip and (not args.quick or budget == args.merges[-1])
        cell = measure_training(name, text, budget, keys, args.repeats, memory=memory, corpora_dir=directory, log=log)
        results.train.append(cell)

    def naive_part(name: str, text: str) -> None:
        size = args.naive_size if len(text) > args.naive_size > 0 else 0
        cell = measure_training(
            name,
            sample(text, args.naive_size),
            args.naive_merges,
            ("naive", "bpe_snmt"),
            args.naive_repeats,
            memory="memory" not in args.skip,
            sample=size,
            corpora_dir=directory,
            log=log,
        )
        results.naive.append(cell)

    def encode_trained(name: str, text: str) -> None:
        contenders = trained_contenders(text, args.encode_merges)
        results.encode.append(measure_encoding("trained", name, text, contenders, args.repeats, log=log))

    def encode_bundled(table: str) -> None:
        contenders = bundled_contenders(table)
        try:
            for name, text in texts.items():
                results.encode.append(measure_encoding(table, name, text, contenders, args.repeats, log=log))
        finally:
            clear_caches(contenders[0])

    def page_part() -> None:
        from .page import measure_page

        results.page = measure_page(args.page_sample, args.page_merges, args.repeats, log=log)

    if "train" not in args.skip:
        log(f"training: {', '.join(keys)} at {args.merges} merges, {args.repeats} repeat(s)")
        for name, text in texts.items():
            for budget in args.merges:
                guarded(f"training {name} at {budget} merges", lambda n=name, t=text, b=budget: train_part(n, t, b))
    if "naive" not in args.skip:
        log(f"naive trainer: {args.naive_merges} merges on {args.naive_size or 'whole'}-character samples")
        for name, text in texts.items():
            guarded(f"naive trainer on {name}", lambda n=name, t=text: naive_part(n, t))
    if "encode" not in args.skip:
        log(f"encoding: trained tables ({args.encode_merges} merges)" + ("" if args.no_bundled else ", gpt2, cl100k"))
        for name, text in texts.items():
            guarded(f"encoding {name} (trained table)", lambda n=name, t=text: encode_trained(n, t))
        if not args.no_bundled:
            for table in ("gpt2", "cl100k_base"):
                guarded(f"encoding ({table} table)", lambda tb=table: encode_bundled(tb))
    if "page" not in args.skip:
        log(f"page: {args.page_sample} at {args.page_merges} merges, {args.repeats} session(s)")
        guarded("page latency", page_part)
    if "steps" not in args.skip and texts:
        budget = 5000 if not args.quick else args.merges[-1]
        step_corpus = STEP_CORPUS if STEP_CORPUS in texts else next(iter(texts))

        def steps_part() -> None:
            results.step_views.append(measure_step_views(step_corpus, texts[step_corpus], budget, log=log))

        log(f"step views: {step_corpus} at {budget} merges")
        guarded("step views", steps_part)
    if "long" not in args.skip and not args.quick and STEP_CORPUS in texts:

        def long_part() -> None:
            results.long_run = measure_long_run(STEP_CORPUS, directory, log=log)

        log(f"long run: {STEP_CORPUS}, 200,000 merges, none/byte, min_frequency=1")
        guarded("long run", long_part)
    if "profile" not in args.skip:
        requests = dict.fromkeys(v.profile for v in verdicts(results) if v.ok is False and v.profile is not None)
        for request in requests:  # one profile per distinct measurement, however many targets it misses

            def profile_part(what: tuple = request) -> None:
                prof = profile_miss(what, texts, args, results)
                if prof is not None:
                    results.profiles.append(prof)

            guarded(f"profile of {request}", profile_part)
    results.notes = notes(args)
    commit = machine_facts()["commit"]
    if commit != machine["commit"]:
        results.notes.append(
            f"The checkout moved during the run: {machine['commit']} at the start, {commit} at the end."
        )
    results.load_after = load_average()
    results.seconds = time.perf_counter() - started
    return results


def profile_miss(what: tuple, texts: dict[str, str], args: argparse.Namespace, results: Results) -> Any:
    """Profile the measurement behind one missed target (see :class:`bench.report.Verdict`)."""
    kind = what[0]
    if kind == "train":
        _, key, corpus, budget = what
        contender = CONTENDERS[key]
        text = texts[corpus]
        prepared = contender.prepare(text, budget)
        log(f"profiling {key} on {corpus} at {budget} merges")
        prof = profile_call(
            f"training: {contender.label}, {corpus}, {budget:,} merges",
            lambda: contender.run(text, budget, prepared),
        )
        gc_run = gc_share(lambda: contender.run(text, budget, prepared))
        extra = [
            f"Cyclic garbage collection (measured with `gc.callbacks` in a separate unprofiled run): "
            f"{gc_run['gc_seconds']:.2f} s of {gc_run['seconds']:.2f} s "
            f"({gc_run['gc_seconds'] / gc_run['seconds'] * 100:.0f}%), {gc_run['full_collections']} full collections; "
            "pyinstrument charges that time to whichever line allocated when a collection started."
        ]
        off = key.replace("_trace", "_notrace")
        cell = next((c for c in results.train if c.corpus == corpus and c.merges == budget), None)
        if cell is not None and off != key and off in cell.timings:
            on_s, off_s = cell.seconds(key), cell.seconds(off)
            extra.append(
                f"The trace: {on_s:.2f} s with it, {off_s:.2f} s without (medians of the timed runs): "
                f"{(on_s - off_s) / on_s * 100:.0f}% of the traced run records the trace."
            )
        return dataclasses.replace(prof, notes=prof.notes + tuple(extra))
    if kind == "encode":
        _, table, corpus = what
        text = texts[corpus]
        if table == "trained":
            tok = trained_contenders(text, args.encode_merges)[0]
        else:
            tok = bundled_contenders(table)[0]
        clear_caches(tok)
        log(f"profiling encode ({table}) on {corpus}, cold cache")
        prof = profile_call(f"encoding: {table} table, {corpus}, cold cache", lambda: tok.encode(text))
        clear_caches(tok)
        return prof
    if kind == "page":
        from .page import profile_step

        log(f"profiling page action {what[1]}")
        return profile_step(args.page_sample, args.page_merges, what[1])
    return None


def notes(args: argparse.Namespace) -> list[str]:
    """Method notes printed at the end of the report."""
    out = [
        "The reference libraries (tiktoken, tokenizers, subword-nmt, pyinstrument) are benchmark and test "
        "dependencies only (requirements-dev.txt); bpe_core and the app never import them.",
        "Hugging Face's whitespace trainer is told `vocab_size` = its starting alphabet (every character, plus each "
        "word-final character + `</w>`) + the merge budget, so it learns exactly that many merges; the "
        "*merges/s* column counts the merges each contender actually learned.",
        "subword-nmt reads words with `split(' ')`, our `whitespace_eow` with `str.split()`: on text holding tabs or "
        "no-break spaces (taylorswift, udhr-multiscript, code) the word sets differ slightly, hence different tables "
        "there; the work is the same kind and size.",
        "HF's whitespace tables can differ from ours at a tie: it orders suffixed symbols (`x</w>`) in its own way, "
        "and not the same way from one run to the next (the first differing merge moves between runs). "
        "The byte-level tables are identical (tests/test_reference_training.py).",
        "The memory target is judged on the peak RSS of a fresh process that holds the corpus and trains once "
        "(`VmHWM` from /proc/self/status).",
    ]
    if args.naive_size:
        out.append(
            f"The naive trainer runs on {args.naive_size:,}-character samples of the larger corpora and with "
            f"{args.naive_repeats} repeat(s): at {args.naive_merges:,} merges it would take minutes per corpus whole."
        )
    if args.quick:
        out.append("This is a --quick smoke run: the numbers prove the script works, not the performance.")
    return out


def to_json(results: Results) -> str:
    """The raw measurements as JSON."""

    def default(obj: Any) -> Any:
        if dataclasses.is_dataclass(obj):
            return dataclasses.asdict(obj)
        if isinstance(obj, (set, tuple)):
            return list(obj)
        return str(obj)

    data = dataclasses.asdict(results)
    data["verdicts"] = [dataclasses.asdict(v) | {"label": v.label} for v in verdicts(results)]
    return json.dumps(data, indent=1, default=default)


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python3 -m bench.run``."""
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    command = "python3 -m bench.run" + ("".join(" " + shlex.quote(a) for a in argv) if argv else "")
    results = run(args, command)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(keep_sections(args.out, render(results)), encoding="utf-8")  # e.g. bench.scaling's section
    if args.json:
        args.json.write_text(to_json(results), encoding="utf-8")
    log(f"wrote {args.out}" + (f" and {args.json}" if args.json else "") + f" in {results.seconds / 60:.1f} min")
    for v in verdicts(results):
        log(f"{v.label:>12}  {v.target}: {v.measured}")
    for error in results.errors:
        log(f"FAILED PART: {error}")
    return 1 if results.errors else 0


if __name__ == "__main__":
    sys.exit(main())

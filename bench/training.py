"""The training benchmark: every contender on one corpus at one merge budget, interleaved, several repeats."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .measure import Timing, measure_peak_rss, timed_cpu
from .trainers import CONTENDERS, NAIVE_PAIRING, PAIRINGS, Merges, first_difference


@dataclass
class TrainCell:
    """The measurements of one (corpus, merge budget): times, peak memory, merges learned and agreement.

    ``sample`` is the number of characters used (0: the whole corpus);
    ``agreement`` maps ``"ours~ref"`` to ``None`` (identical tables) or the
    first merge index where they differ.
    """

    corpus: str
    merges: int
    sample: int
    megabytes: float
    keys: tuple[str, ...]
    timings: dict[str, Timing] = field(default_factory=dict)
    memory: dict[str, dict[str, float]] = field(default_factory=dict)
    learned: dict[str, int] = field(default_factory=dict)
    agreement: dict[str, int | None] = field(default_factory=dict)

    def seconds(self, key: str) -> float:
        """Median seconds of contender ``key``."""
        return self.timings[key].median


def measure_training(
    corpus: str,
    text: str,
    merges: int,
    keys: tuple[str, ...],
    repeats: int,
    *,
    memory: bool = True,
    sample: int = 0,
    corpora_dir: Path | None = None,
    log=print,
) -> TrainCell:
    """Time ``keys`` on ``text`` at ``merges`` merges, ``repeats`` times each, interleaved.

    The order of the contenders rotates from one repeat to the next, so no one
    always runs right after the same other. With ``memory``, each contender also
    runs once in a fresh child process for its peak RSS.
    """
    cell = CellBuilder(corpus, text, merges, keys, sample)
    for r in range(repeats):
        shift = r % len(keys)
        for key in keys[shift:] + keys[:shift]:
            cell.run_once(key, first=(r == 0))
    result = cell.finish()
    if memory:
        for key in keys:
            result.memory[key] = measure_peak_rss(key, corpus, merges, sample=sample, corpora_dir=corpora_dir)
    parts = []
    for key in keys:
        mem = f", {result.memory[key]['peak_mb']:.0f} MB" if key in result.memory else ""
        parts.append(f"{key} {result.seconds(key):.2f} s{mem}")
    log(
        f"  train {corpus:17} {merges:>5} merges" + (f" ({sample:,} chars)" if sample else "") + ": " + "; ".join(parts)
    )
    disagreements = {k: v for k, v in result.agreement.items() if v is not None}
    if disagreements:
        log(f"    merge tables differ (first index): {disagreements}")
    return result


class CellBuilder:
    """Runs contenders on one text and keeps only what the report needs (not the large results)."""

    def __init__(self, corpus: str, text: str, merges: int, keys: tuple[str, ...], sample: int) -> None:
        self.text = text
        self.merges = merges
        self.cell = TrainCell(corpus, merges, sample, len(text.encode("utf-8")) / 1e6, keys)
        self.cell.timings = {k: Timing() for k in keys}
        self.prepared = {k: CONTENDERS[k].prepare(text, merges) for k in keys}
        self.tables: dict[str, Merges] = {}

    def run_once(self, key: str, first: bool) -> None:
        """Time one run of contender ``key``; on the first repeat keep its merge table."""
        contender = CONTENDERS[key]
        seconds, cpu, raw = timed_cpu(lambda: contender.run(self.text, self.merges, self.prepared[key]))
        self.cell.timings[key].add(seconds, cpu)
        if first:
            self.tables[key] = [tuple(m) for m in contender.merges(raw)]
            self.cell.learned[key] = len(self.tables[key])
        del raw

    def finish(self) -> TrainCell:
        """Compare the merge tables of every pairing present; return the cell."""
        pairs = [(p.ours, p.ref) for p in (*PAIRINGS, NAIVE_PAIRING)]
        pairs += [("bpe_ws_trace", "bpe_ws_notrace"), ("bpe_byte_trace", "bpe_byte_notrace")]
        for ours, ref in pairs:
            if ours in self.tables and ref in self.tables:
                self.cell.agreement[f"{ours}~{ref}"] = first_difference(self.tables[ours], self.tables[ref])
        self.tables.clear()
        return self.cell

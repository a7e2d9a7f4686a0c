"""Worked-example verdicts -> tables: claimed vs true merges, true top pairs, matching settings, encodings."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
from pandas.io.formats.style import Styler

from bpe_core import MARKER, PRETOKENIZER_SPECS, CheckSettings, ClaimStep, EncodingCheck, MergeCheck
from bpe_core.analysis.checking import APPLY_ORDERS
from viz.markdown import code, plain

WRONG_STYLE = "background-color: #fee2e2; font-weight: 600"
"""How the first wrong row is highlighted."""
OK_MARK, WRONG_MARK = "✓", "✗"

Show = Callable[[str], str]


def _same(token: str) -> str:
    return token


def _pair(pair: tuple[str, str] | None, show: Show) -> str:
    return "—" if pair is None else f"{show(pair[0])} + {show(pair[1])}"


def _count(n: int | None) -> str:
    """A count as a table cell: ``1,234``, or blank when there is none."""
    return "" if n is None else f"{n:,}"


COUNT_TEXT_COLUMNS = ("claimed count", "true count")
"""The verdict table's count columns that may be empty, as text (see :func:`verdict_frame`)."""


def verdict_frame(report: MergeCheck, show: Show = _same) -> pd.DataFrame:
    """One row per claimed merge: ``merge`` (1-based), ``claimed``, ``claimed count``, ``true merge``,
    ``true count``, ``count of the claimed pair`` (an int) and ``holds`` (✓/✗).

    The columns of :data:`COUNT_TEXT_COLUMNS` are text (``1,234``), blank where the claim gives no count or
    training had stopped: ``st.dataframe`` draws a missing number as a grey ``None`` whatever the styling says,
    so a missing count must not be a number (the page right-aligns these columns)."""
    return pd.DataFrame(
        [
            {
                "merge": s.index + 1,
                "claimed": _pair(s.claimed, show),
                "claimed count": _count(s.claimed_count),
                "true merge": _pair(s.actual, show),
                "true count": _count(s.actual_count),
                "count of the claimed pair": s.claimed_pair_count,
                "holds": OK_MARK if s.ok else WRONG_MARK,
            }
            for s in report.steps
        ],
        columns=["merge", "claimed", "claimed count", "true merge", "true count", "count of the claimed pair", "holds"],
    )


def highlight_row(frame: pd.DataFrame, row: int | None) -> Styler:
    """``frame`` styled with row number ``row`` (0-based position) highlighted, or plain when ``row`` is None;
    numbers with thousands separators (``1,234``), as the text count columns write them."""

    def paint(r: pd.Series) -> list[str]:
        return [WRONG_STYLE if row is not None and r.name == row else "" for _ in r]

    return frame.style.apply(paint, axis=1).format(thousands=",")


def top_pairs_frame(step: ClaimStep, show: Show = _same) -> pd.DataFrame:
    """The true highest pair counts before a step: ``pair``, ``count``, ``note`` (the true merge, the claimed pair)."""
    rows = []
    for pair, count in step.top_pairs:
        notes = []
        if pair == step.actual:
            notes.append("merged here")
        if pair == step.claimed:
            notes.append("claimed")
        rows.append({"pair": _pair(pair, show), "count": count, "note": ", ".join(notes)})
    return pd.DataFrame(rows, columns=["pair", "count", "note"])


def verdict_sentence(report: MergeCheck, quote: Show = _same) -> str:
    """One plain sentence: the whole claim holds (under which tie rule, with which word boundaries), or where it
    first fails and why. ``quote`` wraps the marker and the spelled example (see :func:`verdict_markdown`)."""
    if report.first_wrong is None:
        which = f"All {len(report.steps)} claimed merges hold" if len(report.steps) > 1 else "The claimed merge holds"
        return f"{which} under {report.conditions(quote)}."
    step = report.steps[report.first_wrong]
    reason = step.reason()
    return f"The claim is wrong from merge {step.index + 1}: {reason}."


def verdict_markdown(report: MergeCheck) -> str:
    """:func:`verdict_sentence` as safe markdown: the marker and the spelled example in code spans, everything
    taken from the user escaped."""
    if report.first_wrong is None:
        return verdict_sentence(report, lambda text: code(text))
    return plain(verdict_sentence(report))


def settings_frame(found: list[CheckSettings]) -> pd.DataFrame:
    """Matching settings: ``pre-tokenizer``, ``marker`` (as the example writes it: ``_ separate``, ``</w> attached``,
    ``▁ at the start``, or ``none``), ``tie rule``, ``min frequency``."""
    return pd.DataFrame(
        [
            {
                "pre-tokenizer": s.pretokenizer + (" (bytes)" if s.unit == "byte" else ""),
                "marker": _marker(s),
                "tie rule": s.tie_break,
                "min frequency": s.min_frequency,
            }
            for s in found
        ],
        columns=["pre-tokenizer", "marker", "tie rule", "min frequency"],
    )


def _marker(settings: CheckSettings) -> str:
    notation = settings.notation
    if notation is not None:
        return notation.label()
    return f"{MARKER} {settings.end_of_word}" if PRETOKENIZER_SPECS[settings.pretokenizer].end_of_word else "none"


def encoding_frame(report: EncodingCheck, show: Show = _same) -> pd.DataFrame:
    """The claimed states beside each way's true states: ``state`` (0 = initial symbols), ``claimed``, then one
    column per way of applying the table, each cell the true state with ✗ where it differs from the claim."""
    n = max(len(report.claimed), *(len(s) for s in report.states_by_order.values()))
    rows = []
    for i in range(n):
        claimed = report.claimed[i] if i < len(report.claimed) else None
        row = {"state": i, "claimed": " ".join(map(show, claimed)) if claimed else "—"}
        for order in APPLY_ORDERS:
            states = report.states_by_order[order]
            true = states[i] if i < len(states) else None
            text = " ".join(map(show, true)) if true is not None else "—"
            row[order] = text if true == claimed else f"{WRONG_MARK} {text}"
        rows.append(row)
    return pd.DataFrame(rows, columns=["state", "claimed", *APPLY_ORDERS])


def encoding_sentence(report: EncodingCheck) -> str:
    """Which ways of applying the table the claimed encoding follows, and where it breaks for the others."""
    parts = []
    for order, wrong in report.first_wrong_by_order.items():
        if wrong is None:
            parts.append(f"{order}: holds")
        elif wrong == len(report.claimed):
            parts.append(f"{order}: the claim stops after state {wrong - 1} but a merge still applies")
        else:
            parts.append(f"{order}: wrong from state {wrong}")
    cut = [
        f"{order} {report.num_states(order):,}"
        for order, kept in report.states_by_order.items()
        if report.num_states(order) > len(kept)
    ]
    more = f" The table shows the first states only; states in all: {', '.join(cut)}." if cut else ""
    return "; ".join(parts) + "." + more

"""The token tax in tables and charts: each language's tokens and premium over English, per tokenizer,
and how a table trained here shares its merges out between languages as it grows.

Reads :class:`bpe_core.ParallelSection` and :class:`bpe_core.PremiumCurves` (plain data); text for
captions is plain (escape it with :func:`viz.markdown.plain` before markdown).
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Collection, Mapping, Sequence

import pandas as pd
import plotly.graph_objects as go
from colorcet import palette

from bpe_core import ParallelSection, PremiumCurves, TrainResult
from viz.compare import token_text
from viz.contrast import relative_luminance


def _usable(color: str) -> bool:
    """Whether a palette colour suits a bar on a white page beside the near-black reference: not grey (its
    channels spread by 48 of 255 or more), not near-black, not too light (relative luminance 0.05 to 0.7)."""
    channels = [int(color[i : i + 2], 16) for i in (1, 3, 5)]
    return max(channels) - min(channels) >= 48 and 0.05 <= relative_luminance(color) <= 0.7


PALETTE = tuple(c for c in palette["glasbey_category10"] if _usable(c))
"""Script colours: the ten of Tableau's ``category10`` (Latin blue, Cyrillic orange, ...), then Glasbey et al.'s
extension (2007, "Colour displays for categorical images": each next colour as far from all before it as
possible), as colorcet ships it, without greys, near-blacks and pale colours (:func:`_usable`). 177 colours:
far more than the 35 scripts of the UDHR sample."""
REFERENCE_COLOR = "#0f172a"
"""The reference language's bar and line."""
NO_SCRIPT_COLOR = "#e2e8f0"
"""Merges that saved no language a token (the merges-per-script chart)."""
FADED = "#cbd5e1"
"""Lines of languages not picked out on the curves chart."""
HIGHLIGHT = ("#2563eb", "#dc2626", "#16a34a", "#9333ea", "#d97706", "#0891b2", "#db2777", "#4d7c0f")
"""Lines of the languages picked out on the curves chart, in order."""
MEASURES = {
    "premium": "premium over English (tokens / English tokens)",
    "tokens left": "tokens left (share of the tokens before any merge)",
}
"""What the curves chart can plot, with its axis title."""
BAR_HEIGHT = 16
"""Pixels per language of the premium chart (its names are written beside the bars, horizontally)."""
UNSEEN_PATTERN = "/"
"""The fill pattern of a bar most of whose tokens are characters outside a char-level table's alphabet."""


def script_colors(scripts: Sequence[str]) -> dict[str, str]:
    """A colour per script, from :data:`PALETTE`: the script of the most languages first (ties by name).

    Args:
        scripts: each language's script (``ParallelSection.script``), one entry per language, in any order:
            the same sections give the same colours on every chart.

    Returns:
        ``{script: "#rrggbb"}``; past :data:`PALETTE`'s length the colours repeat.
    """
    counts = Counter(scripts)
    order = sorted(counts, key=lambda s: (-counts[s], s))
    return {script: PALETTE[i % len(PALETTE)] for i, script in enumerate(order)}


def tokens_column(label: str) -> str:
    """The frame column holding tokenizer ``label``'s token counts."""
    return f"{label} tokens"


def premium_column(label: str) -> str:
    """The frame column holding tokenizer ``label``'s premiums."""
    return f"{label} premium"


def premium_frame(
    sections: Mapping[str, ParallelSection], counts: Mapping[str, Mapping[str, int]], reference: str = "eng"
) -> pd.DataFrame:
    """One row per section: language, code, script, characters, and per tokenizer its tokens and premium.

    Args:
        sections: ``{code: section}`` (:func:`bpe_core.parallel_sections`).
        counts: ``{tokenizer label: {code: tokens}}`` (:func:`bpe_core.analysis.languages.token_counts`).
        reference: the code premiums are over (its premium is 1.0).

    Returns:
        A DataFrame in the sections' order; ``"<label> premium"`` is tokens over the reference's tokens.
    """
    frame = pd.DataFrame(
        {
            "language": [s.name for s in sections.values()],
            "code": list(sections),
            "script": [s.script for s in sections.values()],
            "characters": [len(s.text) for s in sections.values()],
        }
    )
    for label, by_code in counts.items():
        tokens = [by_code[code] for code in sections]
        frame[tokens_column(label)] = tokens
        frame[premium_column(label)] = [n / by_code[reference] for n in tokens]
    return frame


def premium_figure(
    frame: pd.DataFrame,
    label: str,
    *,
    reference: str = "eng",
    selected: str | None = None,
    hatched: Collection[str] = (),
    bar_height: int = BAR_HEIGHT,
    font_size: int = 12,
) -> go.Figure:
    """Horizontal bars of tokenizer ``label``'s premium per language, the dearest on top, coloured by script.

    Every language's name is written beside its bar (horizontally, at ``font_size`` px) and its premium at
    the bar's end, so the chart is ``bar_height`` px per language tall. One trace per script (so the legend
    names the scripts) and one for the reference language, drawn near-black; each bar's ``customdata``
    starts with its code, so a click on it can pick the language. A dotted line marks premium 1 (its label
    is under the bars, not over them); ``selected`` is outlined and its name bold; the bars of ``hatched``
    codes are filled with :data:`UNSEEN_PATTERN`.

    Args:
        frame: :func:`premium_frame`'s table (its scripts give the colours: :func:`script_colors`).
        label: the tokenizer whose premiums are drawn.
        reference: the code premiums are over.
        selected: the code to outline, or ``None``.
        hatched: codes whose bars are hatched.
        bar_height: pixels per language.
        font_size: the names' and values' size in pixels.
    """
    rows = frame.sort_values([premium_column(label), "code"], kind="stable")  # drawn bottom up: dearest on top
    colors = script_colors(list(frame["script"]))
    groups = rows.assign(group=[f"{n} (reference)" if c == reference else s for c, n, s in
                                zip(rows["code"], rows["language"], rows["script"])])  # fmt: skip
    fig = go.Figure()
    for group, part in groups.groupby("group", sort=False):
        premiums = part[premium_column(label)]
        fig.add_bar(
            y=part["code"],
            x=premiums,
            orientation="h",
            name=html.escape(str(group)),
            text=[f"{p:.2f}×" for p in premiums],
            textposition="outside",
            textfont={"size": font_size - 1},
            cliponaxis=False,
            marker={
                "color": colors.get(str(group), REFERENCE_COLOR),
                "line": {"width": [3 if c == selected else 0 for c in part["code"]], "color": "#f59e0b"},
                "pattern": {  # white stripes over the script's colour, which stays recognisable
                    "shape": [UNSEEN_PATTERN if c in hatched else "" for c in part["code"]],
                    "fillmode": "overlay",
                    "fgcolor": "#ffffff",
                    "size": 7,
                },
            },
            customdata=list(zip(part["code"], part["language"], part[tokens_column(label)], part["characters"])),
            hovertemplate=(
                "%{customdata[1]} [%{customdata[0]}], " + f"{html.escape(part['script'].iloc[0])}<br>"
                "%{customdata[2]:,} tokens for %{customdata[3]:,} characters<br>premium %{x:.2f}×<extra></extra>"
            ),
        )
    fig.add_vline(x=1, line={"dash": "dot", "color": REFERENCE_COLOR})
    fig.add_annotation(
        x=1, y=0, xref="x", yref="paper", yanchor="top", xanchor="left", showarrow=False,
        text="↑ 1× = English", font={"size": font_size - 1, "color": REFERENCE_COLOR},
    )  # fmt: skip
    top = float(rows[premium_column(label)].max()) if len(rows) else 1.0
    names = [html.escape(_short(n)) for n in rows["language"]]
    fig.update_layout(
        height=len(rows) * bar_height + 90,
        margin={"l": 10, "r": 10, "t": 60, "b": 30},
        barmode="overlay",
        bargap=0.2,
        legend={"title": {"text": "script"}, "font": {"size": font_size - 1}, "y": 1, "yanchor": "top"},
        yaxis={
            "categoryorder": "array",
            "categoryarray": list(rows["code"]),
            "tickvals": list(rows["code"]),
            "ticktext": [f"<b>{n}</b>" if c == selected else n for c, n in zip(rows["code"], names)],
            "tickfont": {"size": font_size, "color": "#1e293b"},
            "automargin": True,
        },
        xaxis={
            "title": {"text": "premium over English (×)"},
            "side": "top",
            "range": [0, max(top, 1.0) * 1.15],  # room for the values written past the bars' ends
            "tickfont": {"size": font_size},
        },
        clickmode="event+select",
    )
    return fig


def _short(name: str, limit: int = 26) -> str:
    """A language name cut for a tick label (``Chinese, Mandarin (Traditional)`` -> ``Chinese, Mandarin (Trad…``)."""
    return name if len(name) <= limit else name[: limit - 1].rstrip(" ,(") + "…"


def premium_summary(frame: pd.DataFrame, label: str, reference: str = "eng") -> str:
    """One plain-text sentence on tokenizer ``label``'s premiums: the dearest language, the median, and
    how many languages are within 1.5× of the reference.

    The median and the count are over the other languages only: the reference's own premium (1.0 by
    definition) would pull the median down.
    """
    premiums = frame.set_index("code")[premium_column(label)]
    names = frame.set_index("code")["language"]
    others = premiums.drop(reference, errors="ignore")
    top = others.idxmax()
    near = int((others <= 1.5).sum())
    english = int(frame.set_index("code").loc[reference, tokens_column(label)])
    return (
        f"{label}: English takes {english:,} tokens. The dearest language is {names[top]} at "
        f"{premiums[top]:.2f}× ({frame.set_index('code').loc[top, 'script']}); the median premium of the "
        f"{len(others)} other languages is {others.median():.2f}×; {near} of them "
        f"{'is' if near == 1 else 'are'} within 1.5×."
    )


FALLBACK_WORDS = {
    "keep": ("is kept as a token of its own (the keep fallback)", "one token per character"),
    "unk": ("becomes an <unk> token (the unk fallback)", "one token per character"),
    "bytes": ("is spelled in <0xNN> tokens, one per UTF-8 byte (the bytes fallback),",
              "two to four tokens per character"),
}  # fmt: skip
"""What a char-level table's fallback does with a character outside its alphabet, and what that costs."""


def mostly_unseen(frame: pd.DataFrame, label: str, unseen: Mapping[str, int], reference: str = "eng") -> list[str]:
    """The codes (not ``reference``) at least half of whose tokens under ``label`` stand for characters outside
    a char-level table's alphabet (``unseen``: :func:`bpe_core.analysis.languages.unseen_characters`), in ``frame``'s
    order. Each such character is at least one token, whatever the fallback, so these codes are sure to qualify."""
    tokens = frame.set_index("code")[tokens_column(label)]
    return [c for c in frame["code"] if c != reference and 2 * unseen.get(c, 0) >= tokens[c] > 0]


def alphabet_characters(result: TrainResult) -> int:
    """How many characters a char-level training result's alphabet holds: its base symbols less the end-of-word
    marker ``</w>`` and the ``c</w>`` twins (each plain base symbol is one character)."""
    return sum(len(symbol) == 1 for symbol in result.alphabet)


def unseen_note(
    frame: pd.DataFrame,
    label: str,
    unseen: Mapping[str, int],
    *,
    corpus: str,
    alphabet: int,
    fallback: str,
    reference: str = "eng",
) -> str:
    """Plain text saying why a char-level table's premiums behave as they do, or "" when no language has a
    character outside its alphabet (a byte-level table, or one trained on every language).

    Args:
        frame: :func:`premium_frame`'s table.
        label: the trained table's label in ``frame``.
        unseen: ``{code: characters outside the alphabet}`` (:func:`bpe_core.analysis.languages.unseen_characters`).
        corpus: the name of the text the table was trained on.
        alphabet: how many characters its alphabet holds.
        fallback: the table's fallback (a key of :data:`FALLBACK_WORDS`).
        reference: the code premiums are over.

    Raises:
        KeyError: an unknown ``fallback``.
    """
    if not any(unseen.get(c, 0) for c in frame["code"] if c != reference):
        return ""
    does, costs = FALLBACK_WORDS[fallback]
    mostly = mostly_unseen(frame, label, unseen, reference)
    rows = frame.set_index("code")
    text = (
        f"What this table is: merges learned at character level from {corpus}; its alphabet is that text's "
        f"{alphabet:,} characters. A character outside it {does} that no merge can join, so a script the table "
        f"never saw pays {costs}. For {len(mostly)} of the {len(rows) - 1} other languages, most tokens are such "
        "characters (hatched bars)"
    )
    cheap = [c for c in mostly if rows.loc[c, premium_column(label)] < 1]
    if cheap:
        c = min(cheap, key=lambda code: rows.loc[code, premium_column(label)])
        text += (
            f"; where a character is a whole syllable or word that is cheap, so {rows.loc[c, 'language']} comes "
            f"out at {rows.loc[c, premium_column(label)]:.2f}× English"
        )
    return text + (
        ". These premiums measure each language's distance from the training text's alphabet, not what a "
        "tokenizer trained on it would charge: train on the UDHR sample to compare languages."
    )


def curve_values(curves: PremiumCurves, code: str, measure: str) -> list[float]:
    """Section ``code``'s curve: its premium at each of ``curves.ks``, or (``"tokens left"``) its tokens
    as a share of its tokens before any merge.

    Raises:
        KeyError: an unknown ``code`` or ``measure``.
    """
    if measure == "premium":
        return list(curves.premium_curve(code))
    if measure == "tokens left":
        counts = curves.counts[code]
        return [n / counts[0] for n in counts]
    raise KeyError(f"unknown measure {measure!r}; expected one of: {', '.join(MEASURES)}")


def curves_figure(
    curves: PremiumCurves,
    sections: Mapping[str, ParallelSection],
    highlight: Sequence[str],
    *,
    measure: str = "premium",
    height: int = 500,
) -> go.Figure:
    """Each language's premium (or tokens left) after ``k`` merges: every language faint, ``highlight``
    in colour and the reference dark and thick, with the merge by which the reference had made
    ``curves.share`` of its saving marked. The legend (the highlighted languages and the reference) is a
    row under the plot, so the plot keeps the figure's whole width."""
    fig = go.Figure()
    ref = curves.reference
    picked = [c for c in dict.fromkeys(highlight) if c in curves.counts and c != ref]
    for code in [c for c in curves.counts if c not in picked and c != ref] + picked + [ref]:
        section = sections[code]
        color = (
            REFERENCE_COLOR
            if code == ref
            else HIGHLIGHT[picked.index(code) % len(HIGHLIGHT)]
            if (code in picked)
            else FADED
        )
        fig.add_scatter(
            x=list(curves.ks),
            y=curve_values(curves, code, measure),
            mode="lines",
            name=f"{section.name} [{code}]",
            line={"color": color, "width": 3 if code == ref else 2 if code in picked else 1},
            showlegend=code in picked or code == ref,
            hovertemplate=f"{section.name} ({section.script})<br>after %{{x:,}} merges: %{{y:.3f}}<extra></extra>",
        )
    done = curves.mostly_done.get(ref)
    if done is not None and curves.merges:
        fig.add_vline(
            x=done,
            line={"dash": "dash", "color": REFERENCE_COLOR},
            annotation_text=f"{sections[ref].name}: {curves.share:.0%} of its saving",
            annotation_position="top",
        )
    fig.update_layout(
        height=height,
        margin={"l": 50, "r": 10, "t": 30, "b": 40},
        xaxis={"title": "merges used (k)"},
        yaxis={"title": MEASURES[measure], "rangemode": "tozero"},
        legend={"orientation": "h", "yanchor": "top", "y": -0.14, "xanchor": "left", "x": 0, "font": {"size": 12}},
        hovermode="closest",
    )
    return fig


def gains_frame(curves: PremiumCurves, sections: Mapping[str, ParallelSection]) -> pd.DataFrame:
    """Per language: tokens before any merge and after all, the share saved, the premium before and
    after, the merge by which it had made ``curves.share`` of its saving and the last merge that saved
    it a token (1-based, blank if none); dearest language (after all merges) first."""
    before, after = curves.premiums(0), curves.premiums(len(curves.ks) - 1)
    rows = []
    for code, counts in curves.counts.items():
        last = curves.last_gain[code]
        rows.append(
            {
                "language": sections[code].name,
                "code": code,
                "script": sections[code].script,
                "tokens before merges": counts[0],
                f"after {curves.merges:,} merges": counts[-1],
                "saved %": round(100 * (counts[0] - counts[-1]) / counts[0], 1) if counts[0] else 0.0,
                "premium before": round(before[code], 2),
                "premium after": round(after[code], 2),
                f"{curves.share:.0%} of its saving by merge": curves.mostly_done[code],
                "last merge that helped": None if last is None else last + 1,
                "merges it gained most from": sum(1 for c in curves.most_helped if c == code),
            }
        )
    frame = pd.DataFrame(rows)
    frame["last merge that helped"] = frame["last merge that helped"].astype("Int64")
    return frame.sort_values("premium after", ascending=False, kind="stable").reset_index(drop=True)


def rule_texts(result: TrainResult, ranks: Sequence[int]) -> dict[int, str]:
    """The merge rules of ``ranks`` as comparable text: ``{rank: "left + right"}`` (bytes decoded, ``Ġ`` as ``·``)."""
    return {r: " + ".join(token_text(t, result) for t in result.merges[r]) for r in ranks if r < result.num_merges}


def helped_frame(
    curves: PremiumCurves, code: str, rules: Mapping[int, str], sections: Mapping[str, ParallelSection]
) -> pd.DataFrame:
    """The merges that saved section ``code`` the most tokens: merge (1-based), rule (``rules[rank]``, see
    :func:`rule_texts`), tokens saved, share of its whole saving, and which language that merge saved the most.

    Raises:
        KeyError: ``code`` is not a section of ``curves``.
    """
    counts = curves.counts[code]
    whole = counts[0] - counts[-1]
    rows = []
    for rank, saved in curves.helped[code]:
        winner = curves.most_helped[rank]
        rows.append(
            {
                "merge": rank + 1,
                "rule": rules.get(rank, ""),
                "tokens saved": saved,
                "share of its saving %": round(100 * saved / whole, 1) if whole else 0.0,
                "saved most": "this language" if winner == code else sections[winner].name if winner else "",
            }
        )
    return pd.DataFrame(rows, columns=["merge", "rule", "tokens saved", "share of its saving %", "saved most"])


def reference_story(curves: PremiumCurves, sections: Mapping[str, ParallelSection]) -> str:
    """Plain text: when the reference language stopped gaining, and what the others gained after that.

    Uses the merge by which the reference had made ``curves.share`` of its saving: what the reference
    saved after it, against what the other languages saved (as shares of their tokens at that point).
    """
    ref, n = curves.reference, curves.merges
    name = sections[ref].name
    if n == 0:
        return "The table has no merges yet: every language is at its character or byte count."
    done = curves.mostly_done[ref]
    last = curves.last_gain[ref]
    if last is None:
        return f"No merge of this table saved {name} a single token: it was trained on other text."
    at = next(i for i, k in enumerate(curves.ks) if k >= done)  # premium_curves keeps ``done`` among the ks
    ref_left = _share_saved(curves.counts[ref], at)
    others = [_share_saved(c, at) for code, c in curves.counts.items() if code != ref]
    others_mean = sum(others) / len(others) if others else 0.0
    return (
        f"{name} had made {curves.share:.0%} of its whole saving by merge {done:,} of {n:,}; the last merge "
        f"that saved it a token is merge {last + 1:,}. From merge {curves.ks[at]:,} on, {name} shrank by "
        f"{ref_left:.1%} more, the other languages by {others_mean:.1%} on average."
    )


def _share_saved(counts: Sequence[int], index: int) -> float:
    """How much of its tokens at ``index`` a curve still saves by its end."""
    return (counts[index] - counts[-1]) / counts[index] if counts[index] else 0.0


def merge_share_frame(curves: PremiumCurves, sections: Mapping[str, ParallelSection], bins: int = 20) -> pd.DataFrame:
    """How many merges of each stretch of the table saved each script's languages the most.

    Returns:
        Columns ``first merge``, ``last merge`` (1-based), ``script`` and ``merges``, one row per
        stretch and script that had any (``"none"``: merges that saved no section a token).
    """
    n = curves.merges
    width = max(1, -(-n // bins))
    rows = []
    for start in range(0, n, width):
        stretch = curves.most_helped[start : start + width]
        scripts = pd.Series([sections[c].script if c else "none" for c in stretch]).value_counts(sort=False)
        for script, count in scripts.items():
            rows.append({"first merge": start + 1, "last merge": start + len(stretch), "script": script,
                         "merges": int(count)})  # fmt: skip
    return pd.DataFrame(rows, columns=["first merge", "last merge", "script", "merges"])


def merge_share_figure(frame: pd.DataFrame, *, colors: Mapping[str, str] | None = None, height: int = 320) -> go.Figure:
    """Stacked bars: per stretch of the table, how many merges went mostly to each script's languages; the
    script with the most merges at the bottom of each stack and first in the legend.

    Args:
        frame: :func:`merge_share_frame`'s table.
        colors: ``{script: colour}``; pass :func:`script_colors` of every section's script so that a script
            has the colour it has on the premium chart (by default, from the scripts in ``frame``).
        height: pixels.
    """
    colors = colors if colors is not None else script_colors(list(frame["script"]))
    fig = go.Figure()
    totals = frame.groupby("script", sort=False)["merges"].sum()
    order = sorted(totals.index, key=lambda s: (-totals[s], str(s)))  # most merges first: bottom of each stack
    for script in order:
        part = frame[frame["script"] == script]
        fig.add_bar(
            x=[f"{a:,}–{b:,}" for a, b in zip(part["first merge"], part["last merge"])],
            y=part["merges"],
            name=html.escape(str(script)),
            marker_color=NO_SCRIPT_COLOR if script == "none" else colors.get(str(script), FADED),
            hovertemplate=f"{script}: %{{y}} merges in %{{x}}<extra></extra>",
        )
    stretches = list(dict.fromkeys(f"{a:,}–{b:,}" for a, b in zip(frame["first merge"], frame["last merge"])))
    fig.update_layout(
        height=height,
        barmode="stack",
        margin={"l": 50, "r": 10, "t": 30, "b": 60},
        xaxis={"title": "merges", "categoryorder": "array", "categoryarray": stretches},
        yaxis={"title": "merges that saved it most"},
        legend={"title": "script", "font": {"size": 11}},
    )
    return fig


def excerpt(text: str, chars: int = 200) -> str:
    """The start of ``text``, about ``chars`` characters: whole lines when the first ones fit, else cut
    after the last space before ``chars`` (at ``chars`` when there is none)."""
    if len(text) <= chars:
        return text
    cut = text.rfind("\n", 0, chars)
    if cut > 0:
        return text[: cut + 1]
    space = text.rfind(" ", 0, chars)
    return text[: space + 1] if space > 0 else text[:chars]

"""The Lessons page's bodies as data: every table, token row and sentence a lesson shows, built from its input.

Each builder is a pure function of trained results, tokenizers and the lesson's
text; it returns DataFrames, escaped HTML (token rows) or Markdown-safe
sentences. :mod:`ui.lessons` only reads a lesson's widgets, trains through the
cache and draws what these return, so a lesson's logic is tested here without
a running app.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go

from bpe_core import TIE_RULE_SPECS, BlockedRule, BPEError, Tokenizer, TrainResult
from viz.compare import compression_figure
from viz.encode_story import StoryRow, story_rows
from viz.encode_views import blocked_frame, blocked_rules, fallbacks_frame, rule_steps_frame, token_views
from viz.markdown import code, left_out, plain
from viz.tokens import (
    STYLE,
    TokenView,
    change_html,
    display_of,
    end_of_word_mode,
    shown_key,
    strings_row,
    tokens_row,
    view_of_string,
    visible,
)
from viz.train_tables import merges_frame

TEXTBOOK = " ".join(["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3)
"""Lesson 1's corpus: the textbook ``low lower newest widest`` (Sennrich et al. 2016, Figure 1's words)."""
ORDER_RULES = "b c\na b\nab c\nabc d\na bc"
REORDERED_RULES = "a b\nb c\nab c\nabc d\na bc"
ENGLISH = (
    "the cat sat on the mat. the café opened early and the cat came in. "
    "we ate cake at the café, then the naive cat sat on the hat."
)
UNSEEN = "the naïve cat 🙂"
"""Lesson 4's text: of its characters only 'ï' and the emoji are not in :data:`ENGLISH` (which spells
'naive' without the diaeresis), so a char-level tokenizer must fall back on exactly those two."""
BLOCKED_CORPUS = "hug pug bug sun"
"""Lesson 3's corpus: ``ug`` and ``ug</w>`` are learned first, and ``sun`` puts ``s`` in the alphabet, so in
``hugs`` the ``s`` is an ordinary symbol that stands between ``ug`` and ``</w>``."""
HELD_OUT_CHARS = 20_000
"""Lesson 8 encodes this many characters of the held-out sample."""
FALLBACK_NOTE = (
    "Dashed red: a character the corpus never had, so it is not in the alphabet; it is kept as a symbol of "
    "its own, with a temporary id (marked *) past the vocabulary."
)
WORD_END_RULES = 8
"""How many merge rules lesson 6 lists per pre-tokenizer."""
WORD_END_CONFIGS: dict[str, dict[str, str]] = {
    "</w> separate": {"pretokenizer": "whitespace_eow", "end_of_word": "separate"},
    "</w> attached": {"pretokenizer": "whitespace_eow", "end_of_word": "attached"},
    "trailing space": {"pretokenizer": "trailing_space"},
    "GPT-2 leading space": {"pretokenizer": "gpt2", "unit": "byte"},
}
"""Lesson 6's four ways of marking where a word ends: a column title and the training settings it changes."""
TRADEOFF_SAMPLES = ("Wikipedia: Taylor Swift (186 KB)", "Shakespeare excerpt (12 KB)", "Tiny Shakespeare (1.1 MB)")
"""Lesson 8's choices of training and held-out text (sample labels)."""


_NUMBERS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _number(n: int) -> str:
    """``n`` as a word up to ten (``4`` -> ``"four"``), else in digits: counts in lesson text come from the
    registries, so they cannot go stale."""
    return _NUMBERS[n] if 0 <= n < len(_NUMBERS) else f"{n:,}"


def _in_turn(items: Iterable[str]) -> str:
    """``"a, b, c, or d"``: the items as one phrase."""
    items = list(items)
    return items[0] if len(items) < 2 else ", ".join(items[:-1]) + ", or " + items[-1]


@dataclass(frozen=True)
class LessonText:
    """A lesson's title (its pill on the page) and the paragraph that explains it."""

    title: str
    explanation: str


LESSON_TEXTS: tuple[LessonText, ...] = (
    LessonText(
        "1. Merges form",
        "BPE starts from single characters and, at every step, glues together the pair of neighbours "
        "seen most often. In the textbook corpus `es`, `est` and `est</w>` come first (newest and widest "
        "share them), then `lo` and `low`: each new token is a merge of two older ones.",
    ),
    LessonText(
        "2. Ties",
        "When two pairs share the top count, something must pick one. Each tool picks differently: "
        f"{_in_turn(rule.short for rule in TIE_RULE_SPECS.values())}. "
        f"The table shows where the {_number(len(TIE_RULE_SPECS))} rules part ways and what each compared.",
    ),
    LessonText(
        "3. Blocked merge",
        "A rule can only fire on two symbols that sit side by side. After training on `hug pug bug sun`, the rule "
        "(ug, </w>) exists, but in `hugs` the `s` stands between `ug` and the end of the word, so it never fires.",
    ),
    LessonText(
        "4. Byte fallback",
        "A character that training never saw has no symbol of its own. The training text below has `café` "
        "and `naive` but no `ï` and no emoji, so those two are new. Byte-level BPE never has that problem: it spells "
        "everything in bytes (`ï` is two, an emoji four). A character-level tokenizer must either give up "
        "(`<unk>`) or spell the character in byte tokens `<0xNN>`, as SentencePiece and Llama do. All three "
        "tokenizers here learn their merges (at most 40) from the training text; the byte-level one splits it "
        "with GPT-2's pre-tokenizer but is not GPT-2. In the table, offset is the character's position in the "
        "text to encode.",
    ),
    LessonText(
        "5. Overlaps",
        "In `aaaaa` the pair (a, a) occurs four times, but occurrences overlap: once the first two a's merge, "
        "the second a is gone. Counting says 4, replacing left to right manages 2.",
    ),
    LessonText(
        "6. Where words end",
        "Whether a token knows it ends a word depends on the pre-tokenizer: a `</w>` symbol of its own, the "
        "marker glued to the last letter, a trailing space, or GPT-2's space at the start of the next word. "
        "Same corpus, four sets of tokens.",
    ),
    LessonText(
        "7. Merge order matters",
        "Encoding replays the merge table. Rank order repeatedly takes the lowest-ranked pair present (GPT-2, "
        "tiktoken); sequential order runs through the table once. When a token can be built two ways they can "
        "disagree, and reordering the same rules changes the result again.",
    ),
    LessonText(
        "8. Vocabulary size trade-off",
        "More merges mean a bigger vocabulary and fewer, longer tokens: tokens per character falls as the "
        "vocabulary grows. The gain is steep at first and then flattens; on text the tokenizer never saw it "
        "flattens sooner, because the later merges are words and names of the training text.",
    ),
    LessonText(
        "9. Tokens never seen",
        "A tokenizer is trained before the model, often on other text, and BPE keeps every merge's token even "
        "when later merges take all its occurrences. So a vocabulary can hold tokens the model's training text "
        "never produces: scaffolds such as `solidg`, which only ever build a longer token (Lian et al. 2024), "
        "and words frequent only in the tokenizer's text, as the Reddit name behind GPT-2's ` SolidGoldMagikarp` "
        "was. The model never learns what such a token means, and prompting with it gives strange output "
        "(Land & Bartolo 2024). The Token trees page audits GPT-2, cl100k_base and o200k_base the same way.",
    ),
)
"""Every lesson's text, in teaching order (:data:`ui.lessons.LESSONS` pairs each with its drawing)."""


def nothing_learned(result: TrainResult) -> str | None:
    """The warning a lesson shows when training learned no merge (the engine's reason), else ``None``."""
    if result.num_merges:
        return None
    return f"Nothing to show: {plain(result.stop_reason or 'no merge was learned')}."


# ----------------------------------------------------------------- lesson 2: ties


@dataclass(frozen=True)
class TiePick:
    """One tie rule's column at the merge where the rules part ways.

    Attributes:
        heading: Markdown: the rule and the pair it picks, or why it stopped before that merge.
        tied: the tied pairs, best first (``pair``, ``key``: what the rule compared), or ``None`` when it stopped.
    """

    heading: str
    tied: pd.DataFrame | None


def ties_message(split: int | None) -> str:
    """What lesson 2 says about where the tie rules part ways (``split``: the first differing rank, or None)."""
    if split is None:
        return "Every rule picks the same merges here: no tie had to be broken. Try 'aaabdaaabac' or 'abab'."
    return f"The rules part ways at merge {split + 1} (rank {split}). The tied pairs, best first, and what decided:"


def tie_picks(runs: Mapping[str, TrainResult], split: int) -> list[TiePick]:
    """For each tie rule's run (name -> result), what it picks at rank ``split`` and the tied pairs it weighed."""
    picks = []
    for rule, result in runs.items():
        if split >= result.num_merges:
            reason = plain(result.stop_reason or "no pair left")
            picks.append(TiePick(f"**{rule}** stops before merge {split + 1}: {reason}", None))
            continue
        step = result.views.steps[split]
        show = display_of(result)
        tied = pd.DataFrame(
            {"pair": [" + ".join(map(show, p)) for p in step.tied], "key": [shown_key(k) for k in step.tie_keys]}
        )
        picks.append(TiePick(f"**{rule}** picks {code(show(step.pair[0]))} + {code(show(step.pair[1]))}", tied))
    return picks


# ----------------------------------------------------------------- lesson 3: blocked merge


@dataclass(frozen=True)
class PieceStory:
    """One pre-token of an encoded word: a caption, its first symbols (HTML), the rules that fired
    (a frame) and the blocked rules (a frame, or ``None`` when none was blocked)."""

    caption: str
    symbols_html: str
    steps: pd.DataFrame
    blocked: pd.DataFrame | None


@dataclass(frozen=True)
class BlockedLesson:
    """Lesson 3's body: the learned rules, the word's tokens (HTML), each pre-token's story, and whether a
    character fell back (then :data:`FALLBACK_NOTE` explains the dashed box)."""

    rules: pd.DataFrame
    tokens_html: str
    pieces: tuple[PieceStory, ...]
    fallback: bool


def blocked_lesson(result: TrainResult, word: str) -> BlockedLesson:
    """Encode ``word`` with ``result``'s tokenizer and tell, per pre-token, which rules fired and which were blocked."""
    show = display_of(result)
    tok = result.tokenizer
    trace = tok.encode_with_trace(word)
    views = token_views(tok, trace)
    pieces = tuple(
        PieceStory(
            f"Pre-token {visible(piece.text)!r}: its symbols, then each rule that fired",
            strings_row(piece.initial, tok.model.unit, end_of_word_mode(tok)),
            rule_steps_frame(piece, show),
            blocked_frame(piece, show) if blocked_rules(piece) else None,
        )
        for piece in trace.pieces
    )
    rules = merges_frame(result, show=show)[["rank", "left", "right", "token", "count"]]
    return BlockedLesson(rules, tokens_row(views), pieces, any(v.fallback for v in views))


# ----------------------------------------------------------------- lesson 4: byte fallback


@dataclass(frozen=True)
class FallbackColumn:
    """One tokenizer's column in lesson 4.

    Attributes:
        heading: Markdown: its name and how many tokens the text became.
        tokens_html: the text's token boxes (no ids).
        rows: one record per character that fell back: ``tokenizer`` (the name without a note in
            brackets), then the columns of :func:`viz.encode_views.fallbacks_frame`.
        broken: where and why the round trip breaks, or ``None`` when decoding gives the text back.
    """

    heading: str
    tokens_html: str
    rows: list[dict]
    broken: str | None


def fallback_tokenizers(byte: TrainResult, char: TrainResult) -> dict[str, Tokenizer]:
    """Lesson 4's three tokenizers by name: byte-level BPE, and the char-level one with ``<unk>`` and with bytes."""
    return {
        f"byte-level BPE ({byte.num_merges} merges on this text)": byte.tokenizer,
        "char + <unk>": char.tokenizer.with_fallback("unk"),
        "char + <0xNN> bytes": char.tokenizer.with_fallback("bytes"),
    }


def fallback_column(name: str, tok: Tokenizer, text: str) -> FallbackColumn:
    """Encode ``text`` with ``tok`` (called ``name``): its tokens, the characters that fell back, the round trip."""
    trace = tok.encode_with_trace(text)
    short = name.split(" (", 1)[0]  # the table's narrow column: the name without the heading's note in brackets
    show = display_of(tok)
    rows = [{"tokenizer": short, **f} for p in trace.pieces for f in fallbacks_frame(p, show).to_dict("records")]
    rt = tok.round_trip(text)
    broken = None if rt.ok else f"round trip breaks at character {rt.position}: {plain(rt.reason)}"
    return FallbackColumn(
        f"**{name}**: {len(trace.ids)} tokens", tokens_row(token_views(tok, trace), show_ids=False), rows, broken
    )


def fallback_table(columns: Sequence[FallbackColumn]) -> pd.DataFrame | None:
    """Every column's fallback rows as one table (three narrow ones would cut the byte columns off), or None."""
    rows = [row for column in columns for row in column.rows]
    return pd.DataFrame(rows) if rows else None


# ----------------------------------------------------------------- lesson 5: overlaps


def overlaps_frame(result: TrainResult) -> pd.DataFrame:
    """Per merge: its number, the pair, how often it was counted and how many times it was replaced."""
    show = display_of(result)
    return pd.DataFrame(
        [
            {
                "merge": s.rank + 1,
                "pair": f"{show(s.pair[0])} + {show(s.pair[1])}",
                "count": s.count,
                "replaced": s.replacements,
            }
            for s in result.summaries
        ]
    )


def first_change_html(result: TrainResult) -> str:
    """Escaped HTML: the first word merge 1 rewrote, before and after (the new tokens outlined)."""
    return change_at(result, 0)


# ----------------------------------------------------------------- lesson 6: where words end


@dataclass(frozen=True)
class WordEndColumn:
    """One pre-tokenizer's column in lesson 6: the sentence's tokens (HTML), a caption and the first rules."""

    tokens_html: str
    caption: str
    rules: pd.DataFrame


def word_end_column(result: TrainResult, sentence: str) -> WordEndColumn:
    """``sentence`` encoded by ``result``'s tokenizer and its first :data:`WORD_END_RULES` merge rules."""
    tok = result.tokenizer
    rules = merges_frame(result, WORD_END_RULES - 1, display_of(result))
    caption = f"Merge rules: {left_out(len(rules), result.num_merges, 'rules') or 'all of them'}."
    html = tokens_row(token_views(tok, tok.encode_with_trace(sentence)), show_ids=False)
    return WordEndColumn(html, caption, rules[["left", "right", "token", "count"]])


# ----------------------------------------------------------------- lesson 7: merge order


def lines_height(text: str) -> int:
    """A text area height in pixels that shows every line of ``text`` without scrolling (and one spare)."""
    return 26 * (text.count("\n") + 2) + 16


def parse_rules(text: str) -> list[tuple[str, str]]:
    """Merge rules written one per line as two symbols (``a b``); blank lines are skipped.

    Raises:
        BPEError: a line that is not two symbols (the message names the line).
    """
    rules = []
    for n, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 2:
            raise BPEError(f"line {n}: write one rule per line as two symbols, e.g. 'a b' (got {line!r})")
        rules.append((parts[0], parts[1]))
    return rules


@dataclass(frozen=True)
class OrderResult:
    """``word`` encoded in one merge order: a Markdown line with its tokens, and each pre-token's rule steps."""

    order: str
    line: str
    steps: tuple[pd.DataFrame, ...]


def order_results(tok: Tokenizer, word: str) -> list[OrderResult]:
    """``word`` encoded by ``tok`` in rank order and in sequential order."""
    out = []
    for order in ("rank", "sequential"):
        pieces = tok.encode_with_trace(word, order=order).pieces
        line = f"{order} order → " + " ".join(code(t) for p in pieces for t in p.tokens)
        out.append(OrderResult(order, line, tuple(rule_steps_frame(p, display_of(tok)) for p in pieces)))
    return out


# ----------------------------------------------------------------- lesson 8: vocabulary size


@dataclass(frozen=True)
class Tradeoff:
    """Lesson 8's body: the two compression figures against vocabulary size, and the closing sentence."""

    figures: tuple[go.Figure, go.Figure]
    caption: str


def tradeoff(
    curves: Mapping[str, Sequence[int]], chars: Mapping[str, int], nbytes: Mapping[str, int], base: int
) -> Tradeoff:
    """Tokens per character and characters per token against vocabulary size for each text.

    Args:
        curves: text name -> its token count after ``0..n`` merges.
        chars, nbytes: text name -> its length in characters and in UTF-8 bytes.
        base: the vocabulary size before any merge (256 for byte-level BPE).
    """
    figures = tuple(
        compression_figure(
            curves,
            chars=chars,
            nbytes=nbytes,
            metric=metric,
            title=f"{metric.capitalize()} against vocabulary size",
            x_offset=base,
            x_title="vocabulary size (256 bytes + merges)",
        )
        for metric in ("tokens per character", "chars per token")
    )
    merges = len(next(iter(curves.values()))) - 1
    final = "; ".join(f"{name}, {counts[-1] / chars[name]:.3f} tokens per character" for name, counts in curves.items())
    return Tradeoff(figures, f"With a vocabulary of {base + merges:,}: {final}.")


# ----------------------------------------------------------------- walk-throughs: what each lesson's step player shows


@dataclass(frozen=True)
class Story:
    """One pre-token encoded rule by rule, as a step player shows it (:mod:`viz.encode_story`).

    Attributes:
        title: Markdown naming the pre-token.
        rows: its states (:func:`viz.encode_story.story_rows`): the base symbols, then one per rule that fired.
        blocked: the blocked rules worth explaining (:func:`viz.encode_views.blocked_rules`).
    """

    title: str
    rows: tuple[StoryRow, ...]
    blocked: tuple[BlockedRule, ...]


def word_stories(tok: Tokenizer, word: str, order: str = "rank") -> list[Story]:
    """Each pre-token of ``word`` encoded by ``tok`` in ``order``, as :class:`Story` objects (pre-tokens too
    long for their states to be recorded, and special tokens, are left out)."""
    show = display_of(tok)
    stories = []
    for piece in tok.encode_with_trace(word, order=order).pieces:
        rows = None if piece.special else story_rows(piece, show)
        if rows is not None:
            title = f"Pre-token {code(visible(piece.text))}"
            stories.append(Story(title, tuple(rows), tuple(blocked_rules(piece))))
    return stories


def story_steps(stories: Sequence[Story]) -> list[tuple[int, int]]:
    """The player's steps over ``stories``: ``(story index, rows shown)``, every story's rows one by one."""
    return [(i, upto) for i, story in enumerate(stories) for upto in range(1, len(story.rows) + 1)]


def story_at(stories: Sequence[Story], step: int) -> tuple[Story, int] | None:
    """The story and how many of its rows step ``step`` (1-based, past the end: the last) shows, or None."""
    steps = story_steps(stories)
    if not steps:
        return None
    i, upto = steps[max(1, min(len(steps), step)) - 1]
    return stories[i], upto


def tie_step_line(runs: Mapping[str, TrainResult], k: int, split: int | None) -> str:
    """Lesson 2's line over merge rank ``k``: which merge it is and where it stands against the split."""
    n = max(r.num_merges for r in runs.values())
    if split is None or k < split:
        where = "so far every rule has chosen the same pairs"
    elif k == split:
        where = "the rules part ways here"
    else:
        where = "after the split each rule goes on from its own merges"
    return f"**Merge {k + 1} of {n}** (rank {k}): {where}."


def overlap_line(result: TrainResult, k: int) -> str:
    """Lesson 5's line over merge rank ``k``: the pair, how often it was counted and how often replaced."""
    s = result.summaries[k]
    show = display_of(result)
    pair = f"{code(show(s.pair[0]))} + {code(show(s.pair[1]))}"
    note = " (overlapping occurrences cannot all be replaced)" if s.replacements < s.count else ""
    return f"**Merge {k + 1}**: {pair} counted {s.count:,} times, replaced {s.replacements:,} times{note}."


def change_at(result: TrainResult, k: int) -> str:
    """Escaped HTML: the first word merge rank ``k`` rewrote, before and after (the new tokens outlined)."""
    return STYLE + change_html(result.views.steps[k].words[0], result.tokenizer)  # from ids: a typed '</w>' is text


def sentence_after(result: TrainResult, sentence: str, merges: int) -> str:
    """Escaped HTML: ``sentence`` cut by the first ``merges`` rules of ``result`` (rank order), the tokens the
    last of them formed outlined. In a learned table every rule's parts are older rules, so encoding applies
    them in rank order and the state after the rules below ``merges`` is the sentence after that many merges."""
    tok = result.tokenizer
    unit, eow = tok.model.unit, end_of_word_mode(tok)
    views: list[TokenView] = []
    for piece in tok.encode_with_trace(sentence).pieces:
        if piece.special:
            views.append(TokenView(text=piece.text, raw=piece.text, special=True))
            continue
        done, new = 0, ()
        for step in piece.steps:
            if step.rank >= merges:
                break
            done += 1
            sites = sorted(step.positions)
            new = tuple(p - n for n, p in enumerate(sites)) if step.rank == merges - 1 else ()
        tokens = piece.state(done)
        views += [TokenView(**{**view_of_string(t, unit, eow).__dict__, "new": i in new}) for i, t in enumerate(tokens)]
    return tokens_row(views, show_ids=False)


TRADEOFF_STEPS = 100
"""Lesson 8's player steps through at most this many vocabulary sizes, evenly spaced up to the largest."""


def tradeoff_merges(n: int, step: int) -> int:
    """Lesson 8: the merges at player step ``step`` (1-based) of :func:`tradeoff_steps` ``(n)``."""
    steps = tradeoff_steps(n)
    return round(max(1, min(steps, step)) * n / steps)


def tradeoff_steps(n: int) -> int:
    """Lesson 8: how many steps the player has for ``n`` merges (one per merge up to :data:`TRADEOFF_STEPS`)."""
    return max(1, min(n, TRADEOFF_STEPS))


def tradeoff_line(curves: Mapping[str, Sequence[int]], chars: Mapping[str, int], base: int, merges: int) -> str:
    """Lesson 8's line at ``merges`` merges: the vocabulary size and each text's tokens per character there."""
    values = "; ".join(
        f"{plain(name)}: {counts[merges] / chars[name]:.3f} tokens per character" for name, counts in curves.items()
    )
    return f"**Vocabulary {base + merges:,}** ({merges:,} merges). {values}."


def fallback_steps(columns: Sequence[FallbackColumn]) -> list[tuple[int, str]]:
    """Lesson 4's player steps: every character that fell back in some column, ``(offset, char)`` in text order."""
    return sorted({(row["offset"], row["char"]) for column in columns for row in column.rows})


def fallback_line(columns: Sequence[FallbackColumn], offset: int) -> str:
    """Lesson 4's line for the character at ``offset``: what each tokenizer made of it."""
    char = next(row["char"] for column in columns for row in column.rows if row["offset"] == offset)
    parts = []
    for column in columns:
        name = column.heading.split("**")[1].split(" (", 1)[0]
        row = next((r for r in column.rows if r["offset"] == offset), None)
        made = f"{code(row['tokens'])} ({row['kind']})" if row is not None else "one symbol of its own"
        parts.append(f"{plain(name)} → {made}")
    return f"Character {code(visible(char))} at offset {offset:,}: " + "; ".join(parts) + "."

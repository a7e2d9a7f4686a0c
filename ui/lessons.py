"""The Lessons page's drawing: each lesson reads its widgets, trains through the cache and draws what the
builders in :mod:`viz.lessons` return (every table, token row and sentence is built and tested there)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from bpe_core import TIE_BREAKS, BPEError, Tokenizer, TrainResult
from ui import state
from ui.cache import held_out_counts, sample_text, trained
from ui.corpus import shares_text
from ui.player import step_player
from ui.provenance import unseen_tokens_lesson
from ui.settings import TrainSettings
from ui.step_view import render_step
from viz import lessons as build
from viz.compare import first_divergence, merge_timeline
from viz.corpus_strip import excerpt_pieces
from viz.encode_story import story_caption, story_html
from viz.markdown import plain
from viz.tokens import display_of, end_of_word_mode
from viz.train_charts import mark_step
from viz.train_tables import token_counts

KEY_COLUMN = st.column_config.TextColumn(width="large", help="What the tie rule compared")
FALLBACK_COLUMNS = {
    "tokens": st.column_config.TextColumn(width="medium"),
    "outcome": st.column_config.TextColumn(width="medium"),
}
"""Lesson 4's table widths: every column, "outcome" too, fits the page (a presentation at 1280 px included)."""
_HIGHLIGHT = "background-color: #fef3c7; font-weight: 600"
"""The rows of the character lesson 4's player is on (the colour of the Train page's current rule)."""
ORDERS = ("rank", "sequential")
"""Lesson 7's two merge orders, in the order :func:`viz.lessons.order_results` gives them."""


@dataclass(frozen=True)
class Lesson:
    """A demonstration: a title, a short explanation, and a function that draws it live."""

    title: str
    explanation: str
    render: Callable[[int], None]


def _text(lesson: int, label: str, default: str, *, area: bool = False, height: int = 90) -> str:
    key = state.lesson_key(lesson, label.split()[0].lower())
    if area:
        return st.text_area(label, default, key=key, height=height, bind="query-params")
    return st.text_input(label, default, key=key, bind="query-params")


def _train(text: str, settings: TrainSettings | None = None, **changes) -> TrainResult | None:
    """Train with ``settings`` (the defaults) changed by ``changes``; show the reason and return None on bad input."""
    try:
        return trained(text, (settings or TrainSettings()).with_(**changes))
    except (BPEError, TypeError) as exc:
        st.error(f"Cannot train on this input: {plain(exc)}")
        return None


def _learned(result: TrainResult | None) -> bool:
    """Whether ``result`` learned a merge; says why not when it did not (a bad input already said so)."""
    if result is None:
        return False
    if warning := build.nothing_learned(result):
        st.warning(warning)
        return False
    return True


def _story(story: build.Story, upto: int, tok: Tokenizer) -> None:
    """Draw ``upto`` rows of a pre-token's story (as the Encode page's player does) and its caption."""
    show = display_of(tok)
    st.markdown(story.title)
    st.html(story_html(story.rows, upto, tok.model.unit, end_of_word_mode(tok), story.blocked))
    st.caption(plain(story_caption(story.rows, upto, story.blocked, show)))


def merges_form(i: int) -> None:
    text = _text(i, "Corpus", build.TEXTBOOK, area=True)
    n = st.number_input("Merges", 1, 100, 10, key=state.lesson_key(i, "merges"), bind="query-params")
    result = _train(text, budget=int(n))
    if not _learned(result):
        return
    excerpt = excerpt_pieces(text, result.config.pretokenizer, result.config.special_tokens)
    step_player(
        result.num_merges,
        lambda step: render_step(result, step, charts=False, excerpt=excerpt, where=f"lesson{i}", train_link=False),
        keys=state.lesson_player(i),
        source=(text, int(n)),
    )


def ties(i: int) -> None:
    text = _text(i, "Corpus", "aaabdaaabac")
    runs = {rule: _train(text, pretokenizer="none", tie_break=rule, budget=4) for rule in TIE_BREAKS}
    if any(r is None for r in runs.values()) or not _learned(runs["first_seen"]):
        return
    table, _status = merge_timeline(runs)
    st.dataframe(table, width="stretch")
    split = first_divergence(runs)
    (st.success if split is None else st.info)(build.ties_message(split))

    def render(step: int) -> None:  # merge `step`: each rule's pick and the tied pairs it weighed
        st.markdown(build.tie_step_line(runs, step - 1, split))
        grid = [col for _ in range(0, len(runs), 2) for col in st.columns(2)]  # two per row: the keys are long
        for col, pick in zip(grid, build.tie_picks(runs, step - 1)):
            col.markdown(pick.heading)
            if pick.tied is not None:
                config = {"pair": st.column_config.TextColumn(width="small"), "key": KEY_COLUMN}
                col.dataframe(pick.tied, hide_index=True, width="stretch", column_config=config)

    n = max(r.num_merges for r in runs.values())
    start = 1 if split is None else split + 1  # opens where the rules part ways
    step_player(n, render, keys=state.lesson_player(i), source=(text,), initial=start)


def blocked(i: int) -> None:
    left, right = st.columns(2)  # side by side: the blocked rules, the point of the lesson, stay on the first screen
    with left:
        corpus = _text(i, "Corpus", build.BLOCKED_CORPUS)
    with right:
        word = _text(i, "Word to encode", "hugs")
    result = _train(corpus, budget=2)
    if not _learned(result):
        return
    body = build.blocked_lesson(result, word)
    left, right = st.columns(2)
    left.markdown("**Learned rules**")
    left.dataframe(body.rules, hide_index=True, width="stretch")
    right.markdown("**The word's tokens**")
    right.html(body.tokens_html)
    if body.fallback:
        right.caption(build.FALLBACK_NOTE)
    st.markdown("**Blocked rules** (both symbols present; something stood between or took a symbol)")
    blocked = [piece.blocked for piece in body.pieces if piece.blocked is not None]
    for frame in blocked:
        st.dataframe(frame, hide_index=True, width="stretch")
    if not blocked:
        st.caption("No rule was blocked in this word.")
    stories = build.word_stories(result.tokenizer, word)
    steps = len(build.story_steps(stories))
    if steps:  # below the point of the lesson: the word encoded rule by rule, opening at the end

        def render(step: int) -> None:
            _story(*build.story_at(stories, step), result.tokenizer)

        step_player(steps, render, keys=state.lesson_player(i), label="Step", source=(corpus, word), initial=steps)


def byte_fallback(i: int) -> None:
    left, right = st.columns([2, 1])  # side by side: the three token rows and their verdicts stay on the first screen
    with left:
        corpus = _text(i, "Training text", build.ENGLISH, area=True, height=68)
    with right:
        text = _text(i, "Text to encode", build.UNSEEN)
    byte = _train(corpus, pretokenizer="gpt2", unit="byte", budget=40)
    char = _train(corpus, budget=40)
    if byte is None or char is None:
        return
    columns = [build.fallback_column(name, tok, text) for name, tok in build.fallback_tokenizers(byte, char).items()]
    for col, column in zip(st.columns(3), columns):
        with col:
            st.markdown(column.heading)
            st.html(column.tokens_html)
            if not column.rows:
                st.caption("Every character is in the alphabet: nothing fell back.")
            if column.broken:
                st.warning(column.broken)
            else:
                st.success("round trip holds")
    table = build.fallback_table(columns)
    if table is None:
        return
    st.caption("What each tokenizer did with the characters it could not hold as one symbol:")
    chars = build.fallback_steps(columns)

    def render(step: int) -> None:  # one character at a time, its rows highlighted in the table
        offset = chars[step - 1][0]
        st.markdown(build.fallback_line(columns, offset))
        styled = table.style.apply(lambda row: [_HIGHLIGHT if row["offset"] == offset else ""] * len(row), axis=1)
        st.dataframe(styled, hide_index=True, width="stretch", column_config=FALLBACK_COLUMNS)

    step_player(len(chars), render, keys=state.lesson_player(i), label="Character", source=(corpus, text))


def overlaps(i: int) -> None:
    text = _text(i, "Corpus", "aaaaa")
    result = _train(text, pretokenizer="none", budget=3, min_frequency=1)
    if not _learned(result):
        return
    st.dataframe(build.overlaps_frame(result), hide_index=True, width="stretch")

    def render(step: int) -> None:  # merge `step`: its counts, and the first word it rewrote
        st.markdown(build.overlap_line(result, step - 1))
        st.caption(f"Merge {step}, before → after (the new tokens outlined):")
        st.html(build.change_at(result, step - 1))

    step_player(result.num_merges, render, keys=state.lesson_player(i), source=(text,))


def word_ends(i: int) -> None:
    corpus = _text(i, "Corpus", build.ENGLISH, area=True)
    sentence = _text(i, "Sentence", "the cat ate the cake")
    results = {}
    for name, changes in build.WORD_END_CONFIGS.items():
        result = _train(corpus, budget=30, **changes)
        if result is None:
            return
        results[name] = result
    columns = {name: build.word_end_column(result, sentence) for name, result in results.items()}

    def render(step: int) -> None:  # the sentence after `step` merges under each pre-tokenizer
        for col, (name, result) in zip(st.columns(len(results)), results.items()):
            column, merges = columns[name], min(step, result.num_merges)
            with col:
                st.markdown(f"**{name}**")
                done = merges == result.num_merges
                st.html(column.tokens_html if done else build.sentence_after(result, sentence, merges))
                st.caption(f"After {merges:,} of {result.num_merges:,} merges. {column.caption}")
                st.dataframe(column.rules, hide_index=True)

    n = max(r.num_merges for r in results.values())
    step_player(n, render, keys=state.lesson_player(i), source=(corpus, sentence), initial=n)


def merge_order(i: int) -> None:
    c = st.columns(3)
    height = build.lines_height(build.ORDER_RULES)
    with c[0]:
        table = _text(i, "Rules (one per line, in rank order)", build.ORDER_RULES, area=True, height=height)
    with c[1]:
        reordered = _text(i, "Same rules, another order", build.REORDERED_RULES, area=True, height=height)
    with c[2]:
        word = _text(i, "Word", "abcd")
    try:
        first = Tokenizer.from_merges(build.parse_rules(table), pretokenizer="none")
        second = Tokenizer.from_merges(build.parse_rules(reordered), pretokenizer="none")
    except BPEError as exc:
        st.error(plain(exc))
        return
    tables = ((first, "Rules as learned"), (second, "Rules reordered"))
    stories = {(title, order): build.word_stories(tok, word, order) for tok, title in tables for order in ORDERS}
    lines = {title: build.order_results(tok, word) for tok, title in tables}

    def render(step: int) -> None:  # each table and order, rule by rule (one that is done stays at its end)
        for tok, title in tables:
            st.markdown(f"**{title}**")
            for col, order, result in zip(st.columns(2), ORDERS, lines[title]):
                with col:
                    st.markdown(result.line)
                    at = build.story_at(stories[title, order], step)
                    if at is not None:
                        _story(*at, tok)

    n = max(len(build.story_steps(s)) for s in stories.values())
    keys = state.lesson_player(i)
    step_player(max(n, 1), render, keys=keys, label="Step", source=(table, reordered, word), initial=n)


def vocab_tradeoff(i: int) -> None:
    labels = list(build.TRADEOFF_SAMPLES)
    c = st.columns(3)
    label = c[0].selectbox("Train on", labels, key=state.lesson_key(i, "corpus"), bind="query-params")
    held_label = c[1].selectbox("Held out", labels[::-1], key=state.lesson_key(i, "held"), bind="query-params")
    n = c[2].number_input(
        "Largest number of merges", 50, 5000, 1000, 50, key=state.lesson_key(i, "merges"), bind="query-params"
    )
    if shares_text(held_label, label):
        st.warning("Held-out text should be text the tokenizer never saw: pick another sample.")
        return
    text = sample_text(label)
    settings = TrainSettings().with_(pretokenizer="gpt2", unit="byte", budget=int(n))
    result = _train(text, settings)
    if result is None:
        return
    held = sample_text(held_label)[: build.HELD_OUT_CHARS]
    seen, unseen = f"training corpus: {label}", f"held out: {held_label}"
    body = build.tradeoff(
        {seen: token_counts(result), unseen: held_out_counts(text, settings, held, "rank")},
        chars={seen: result.text_chars, unseen: len(held)},
        nbytes={seen: result.text_bytes, unseen: len(held.encode())},
        base=len(result.vocab) - result.num_merges,
    )
    curves = {seen: token_counts(result), unseen: held_out_counts(text, settings, held, "rank")}
    base = len(result.vocab) - result.num_merges

    def render(step: int) -> None:  # the vocabulary grown step by step, marked on both curves
        merges = build.tradeoff_merges(result.num_merges, step)
        st.markdown(build.tradeoff_line(curves, {seen: result.text_chars, unseen: len(held)}, base, merges))
        for col, fig in zip(st.columns(2), body.figures):
            col.plotly_chart(mark_step(fig, base + merges, f"vocabulary {base + merges:,}"), width="stretch")
        st.caption(body.caption)

    steps = build.tradeoff_steps(result.num_merges)
    keys = state.lesson_player(i)
    step_player(
        steps,
        render,
        keys=keys,
        label=f"Point on the curves (1 to {steps}, merges growing)",
        source=(label, held_label, n),
        initial=steps,
    )


_RENDERS = (
    merges_form,
    ties,
    blocked,
    byte_fallback,
    overlaps,
    word_ends,
    merge_order,
    vocab_tradeoff,
    unseen_tokens_lesson,
)
LESSONS: list[Lesson] = [Lesson(t.title, t.explanation, r) for t, r in zip(build.LESSON_TEXTS, _RENDERS, strict=True)]
"""Every lesson, in teaching order."""


def lesson_asked(asked: str | None, titles: list[str]) -> int | None:
    """The index of the lesson a link's ``?lesson=`` asks for, or ``None`` when it names none.

    Args:
        asked: the query parameter as typed: a whole title (``"2. Ties"``, what the page's own links carry) or
            a lesson's number (``"2"``); ``None`` when the link has none.
        titles: every lesson's title, in order.

    Returns:
        A 0-based index into ``titles``, or ``None`` for an absent, empty, unknown or out-of-range value.
    """
    if not asked:
        return None
    if asked in titles:
        return titles.index(asked)
    number = asked.strip()
    if number.isascii() and number.isdigit() and 1 <= int(number) <= len(titles):
        return int(number) - 1
    return None

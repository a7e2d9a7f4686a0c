"""Ready-made demonstrations for teachers: each lesson explains itself and runs live on editable input."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from bpe_core import TIE_BREAKS, BPEError, Tokenizer, TrainResult
from ui import state
from ui.cache import held_out_counts, sample_text, trained
from ui.corpus import shares_text
from ui.player import step_player
from ui.settings import TrainSettings
from ui.step_view import render_step
from viz.compare import compression_figure, first_divergence, merge_timeline
from viz.corpus_strip import excerpt_pieces
from viz.encode_views import blocked_frame, blocked_rules, fallbacks_frame, rule_steps_frame, token_views
from viz.markdown import code, left_out, plain
from viz.tokens import (
    STYLE,
    change_html,
    display_of,
    end_of_word_mode,
    isolate_words,
    strings_row,
    tokens_row,
    visible,
)
from viz.train_tables import merges_frame, token_counts

TEXTBOOK = " ".join(["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3)
ORDER_RULES = "b c\na b\nab c\nabc d\na bc"
REORDERED_RULES = "a b\nb c\nab c\nabc d\na bc"
ENGLISH = (
    "the cat sat on the mat. the café opened early and the cat came in. "
    "we ate cake at the café, then the naive cat sat on the hat."
)
UNSEEN = "the naïve cat 🙂"
"""Lesson 4's text: of its characters only 'ï' and the emoji are not in :data:`ENGLISH` (which spells
'naive' without the diaeresis), so a char-level tokenizer must fall back on exactly those two."""
HELD_OUT_CHARS = 20_000
KEY_COLUMN = st.column_config.TextColumn(width="large", help="What the tie rule compared")
FALLBACK_NOTE = (
    "Dashed red: a character the corpus never had, so it is not in the alphabet; it is kept as a symbol of "
    "its own, with a temporary id (marked *) past the vocabulary."
)
WORD_END_RULES = 8
"""How many merge rules lesson 6 lists per pre-tokenizer."""


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


def _train(text: str, **changes) -> TrainResult | None:
    """Train with the default settings changed by ``changes``; show the reason and return None on bad input."""
    try:
        return trained(text, TrainSettings().with_(**changes))
    except (BPEError, TypeError) as exc:
        st.error(f"Cannot train on this input: {plain(exc)}")
        return None


def _nothing_learned(result: TrainResult) -> bool:
    """Say so and return True when training learned no merge (the reason comes from the engine)."""
    if result.num_merges:
        return False
    st.warning(f"Nothing to show: {plain(result.stop_reason or 'no merge was learned')}.")
    return True


def merges_form(i: int) -> None:
    text = _text(i, "Corpus", TEXTBOOK, area=True)
    n = st.number_input("Merges", 1, 100, 10, key=state.lesson_key(i, "merges"), bind="query-params")
    result = _train(text, budget=int(n))
    if result is None or _nothing_learned(result):
        return
    excerpt = excerpt_pieces(text, result.config.pretokenizer, result.config.special_tokens)
    step_player(
        result.num_merges,
        lambda step: render_step(result, step, charts=False, excerpt=excerpt),
        keys=state.lesson_player(i),
        source=(text, int(n)),
    )


def ties(i: int) -> None:
    text = _text(i, "Corpus", "aaabdaaabac")
    runs = {rule: _train(text, pretokenizer="none", tie_break=rule, budget=4) for rule in TIE_BREAKS}
    if any(r is None for r in runs.values()) or _nothing_learned(runs["first_seen"]):
        return
    table, _status = merge_timeline(runs)
    st.dataframe(table, width="stretch")
    split = first_divergence(runs)
    if split is None:
        st.success("Every rule picks the same merges here: no tie had to be broken. Try 'aaabdaaabac' or 'abab'.")
        return
    st.info(f"The rules part ways at merge {split + 1} (rank {split}). The tied pairs, best first, and what decided:")
    grid = [col for _ in range(0, len(runs), 2) for col in st.columns(2)]  # two per row: the keys are long
    for col, (rule, r) in zip(grid, runs.items()):
        if split >= r.num_merges:
            col.markdown(f"**{rule}** stops before merge {split + 1}: {plain(r.stop_reason or 'no pair left')}")
            continue
        step = r.steps[split]
        show = display_of(r)
        col.markdown(f"**{rule}** picks {code(show(step.pair[0]))} + {code(show(step.pair[1]))}")
        col.dataframe(
            pd.DataFrame(
                {
                    "pair": [" + ".join(map(show, p)) for p in step.tied],
                    "key": [isolate_words(k) for k in step.tie_keys],
                }
            ),
            hide_index=True,
            width="stretch",
            column_config={"pair": st.column_config.TextColumn(width="small"), "key": KEY_COLUMN},
        )


BLOCKED_CORPUS = "hug pug bug sun"
"""Lesson 3's corpus: ``ug`` and ``ug</w>`` are learned first, and ``sun`` puts ``s`` in the alphabet, so in
``hugs`` the ``s`` is an ordinary symbol that stands between ``ug`` and ``</w>``."""


def blocked(i: int) -> None:
    corpus = _text(i, "Corpus", BLOCKED_CORPUS)
    word = _text(i, "Word to encode", "hugs")
    result = _train(corpus, budget=2)
    if result is None or _nothing_learned(result):
        return
    show = display_of(result)
    st.markdown("**Learned rules**")
    st.dataframe(merges_frame(result, show=show)[["rank", "left", "right", "token", "count"]], hide_index=True)
    tok = result.tokenizer
    trace = tok.encode_with_trace(word)
    views = token_views(tok, trace)
    st.html(tokens_row(views))
    for piece in trace.pieces:
        st.text(f"Pre-token {visible(piece.text)!r}: its symbols, then each rule that fired")
        st.html(strings_row(piece.initial, tok.unit, end_of_word_mode(tok)))
        st.dataframe(rule_steps_frame(piece, show), hide_index=True, width="stretch")
        st.markdown("**Blocked rules** (both symbols present; something stood between or took a symbol)")
        if blocked_rules(piece):
            st.dataframe(blocked_frame(piece, show), hide_index=True, width="stretch")
        else:
            st.caption("No rule was blocked in this word.")
    if any(v.fallback for v in views):
        st.caption(FALLBACK_NOTE)


def byte_fallback(i: int) -> None:
    corpus = _text(i, "Training text", ENGLISH, area=True)
    text = _text(i, "Text to encode", UNSEEN)
    byte = _train(corpus, pretokenizer="gpt2", unit="byte", budget=40)
    char = _train(corpus, budget=40)
    if byte is None or char is None:
        return
    variants = {
        f"byte-level BPE ({byte.num_merges} merges on this text)": byte.tokenizer,
        "char + <unk>": char.tokenizer.with_fallback("unk"),
        "char + <0xNN> bytes": char.tokenizer.with_fallback("bytes"),
    }
    rows = []
    for col, (name, tok) in zip(st.columns(3), variants.items()):
        trace = tok.encode_with_trace(text)
        with col:
            st.markdown(f"**{name}**: {len(trace.ids)} tokens")
            st.html(tokens_row(token_views(tok, trace), show_ids=False))
            fell = [f for p in trace.pieces for f in fallbacks_frame(p, display_of(tok)).to_dict("records")]
            rows += [{"tokenizer": name, **f} for f in fell]
            if not fell:
                st.caption("Every character is in the alphabet: nothing fell back.")
            rt = tok.round_trip(text)
            if rt.ok:
                st.success("round trip holds")
            else:
                st.warning(f"round trip breaks at character {rt.position}: {plain(rt.reason)}")
    if rows:  # one table across the page: three narrow ones would cut the byte columns off
        st.caption("What each tokenizer did with the characters it could not hold as one symbol:")
        st.dataframe(
            pd.DataFrame(rows),
            hide_index=True,
            width="stretch",
            column_config={"tokens": st.column_config.TextColumn(width="large")},
        )


def overlaps(i: int) -> None:
    text = _text(i, "Corpus", "aaaaa")
    result = _train(text, pretokenizer="none", budget=3, min_frequency=1)
    if result is None or _nothing_learned(result):
        return
    show = display_of(result)
    rows = [
        {
            "merge": s.rank + 1,
            "pair": f"{show(s.pair[0])} + {show(s.pair[1])}",
            "count": s.count,
            "replaced": s.replacements,
        }
        for s in result.summaries
    ]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    w = result.steps[0].words[0]
    st.caption("Merge 1, before → after (the new tokens outlined):")
    st.html(STYLE + change_html(w, result.tokenizer))


def word_ends(i: int) -> None:
    corpus = _text(i, "Corpus", ENGLISH, area=True)
    sentence = _text(i, "Sentence", "the cat ate the cake")
    configs = {
        "</w> separate": {"pretokenizer": "whitespace_eow", "end_of_word": "separate"},
        "</w> attached": {"pretokenizer": "whitespace_eow", "end_of_word": "attached"},
        "trailing space": {"pretokenizer": "trailing_space"},
        "GPT-2 leading space": {"pretokenizer": "gpt2", "unit": "byte"},
    }
    for col, (name, changes) in zip(st.columns(4), configs.items()):
        result = _train(corpus, budget=30, **changes)
        if result is None:
            return
        tok = result.tokenizer
        with col:
            st.markdown(f"**{name}**")
            st.html(tokens_row(token_views(tok, tok.encode_with_trace(sentence)), show_ids=False))
            rules = merges_frame(result, WORD_END_RULES - 1, display_of(result))
            st.caption(f"Merge rules: {left_out(len(rules), result.num_merges, 'rules') or 'all of them'}.")
            st.dataframe(rules[["left", "right", "token", "count"]], hide_index=True)


def _lines_height(text: str) -> int:
    """A text area height in pixels that shows every line of ``text`` without scrolling (and one spare)."""
    return 26 * (text.count("\n") + 2) + 16


def _rules(text: str) -> list[tuple[str, str]]:
    rules = []
    for n, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 2:
            raise BPEError(f"line {n}: write one rule per line as two symbols, e.g. 'a b' (got {line!r})")
        rules.append((parts[0], parts[1]))
    return rules


def merge_order(i: int) -> None:
    c = st.columns(3)
    height = _lines_height(ORDER_RULES)
    with c[0]:
        table = _text(i, "Rules (one per line, in rank order)", ORDER_RULES, area=True, height=height)
    with c[1]:
        reordered = _text(i, "Same rules, another order", REORDERED_RULES, area=True, height=height)
    with c[2]:
        word = _text(i, "Word", "abcd")
    try:
        first = Tokenizer.from_merges(_rules(table), pretokenizer="none")
        second = Tokenizer.from_merges(_rules(reordered), pretokenizer="none")
    except BPEError as exc:
        st.error(plain(exc))
        return
    for tok, title in ((first, "Rules as learned"), (second, "Rules reordered")):
        st.markdown(f"**{title}**")
        cols = st.columns(2)
        for col, order in zip(cols, ("rank", "sequential")):
            piece = tok.encode_with_trace(word, order=order).pieces
            with col:
                st.markdown(f"{order} order → " + " ".join(code(t) for p in piece for t in p.tokens))
                for p in piece:
                    st.dataframe(rule_steps_frame(p, display_of(tok)), hide_index=True, width="stretch")


def vocab_tradeoff(i: int) -> None:
    labels = ["Wikipedia: Taylor Swift (186 KB)", "Shakespeare excerpt (12 KB)", "Tiny Shakespeare (1.1 MB)"]
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
    try:
        result = trained(text, settings)
    except (BPEError, TypeError) as exc:
        st.error(f"Cannot train on this input: {plain(exc)}")
        return
    held = sample_text(held_label)[:HELD_OUT_CHARS]
    base = len(result.vocab) - result.num_merges
    seen, unseen = f"training corpus: {label}", f"held out: {held_label}"
    curves = {seen: token_counts(result), unseen: held_out_counts(text, settings, held, "rank")}
    chars = {seen: result.text_chars, unseen: len(held)}
    nbytes = {seen: result.text_bytes, unseen: len(held.encode())}
    for col, metric in zip(st.columns(2), ("tokens per character", "chars per token")):
        fig = compression_figure(
            curves,
            chars=chars,
            nbytes=nbytes,
            metric=metric,
            title=f"{metric.capitalize()} against vocabulary size",
            x_offset=base,
            x_title="vocabulary size (256 bytes + merges)",
        )
        col.plotly_chart(fig, width="stretch")
    final = {name: counts[-1] / chars[name] for name, counts in curves.items()}
    st.caption(
        f"With a vocabulary of {base + result.num_merges:,}: "
        + "; ".join(f"{name}, {value:.3f} tokens per character" for name, value in final.items())
        + "."
    )


LESSONS: list[Lesson] = [
    Lesson(
        "1. Merges form",
        "BPE starts from single characters and, at every step, glues together the pair of neighbours "
        "seen most often. In the textbook corpus `es`, `est` and `est</w>` come first (newest and widest "
        "share them), then `lo` and `low`: each new token is a merge of two older ones.",
        merges_form,
    ),
    Lesson(
        "2. Ties",
        "When two pairs share the top count, something must pick one. Each tool picks differently: the pair "
        "seen first, the alphabetically smallest, subword-nmt's largest, or Hugging Face's smallest ids. "
        "The table shows where the four rules part ways and what each compared.",
        ties,
    ),
    Lesson(
        "3. Blocked merge",
        "A rule can only fire on two symbols that sit side by side. After training on `hug pug bug sun`, the rule "
        "(ug, </w>) exists, but in `hugs` the `s` stands between `ug` and the end of the word, so it never fires.",
        blocked,
    ),
    Lesson(
        "4. Byte fallback",
        "A character that training never saw has no symbol of its own. The training text below has `café` "
        "and `naive` but no `ï` and no emoji, so those two are new. Byte-level BPE never has that problem: it spells "
        "everything in bytes (`ï` is two, an emoji four). A character-level tokenizer must either give up "
        "(`<unk>`) or spell the character in byte tokens `<0xNN>`, as SentencePiece and Llama do. All three "
        "tokenizers here learn their merges (at most 40) from the training text; the byte-level one splits it "
        "with GPT-2's pre-tokenizer but is not GPT-2. In the table, offset is the character's position in the "
        "text to encode.",
        byte_fallback,
    ),
    Lesson(
        "5. Overlaps",
        "In `aaaaa` the pair (a, a) occurs four times, but occurrences overlap: once the first two a's merge, "
        "the second a is gone. Counting says 4, replacing left to right manages 2.",
        overlaps,
    ),
    Lesson(
        "6. Where words end",
        "Whether a token knows it ends a word depends on the pre-tokenizer: a `</w>` symbol of its own, the "
        "marker glued to the last letter, a trailing space, or GPT-2's space at the start of the next word. "
        "Same corpus, four sets of tokens.",
        word_ends,
    ),
    Lesson(
        "7. Merge order matters",
        "Encoding replays the merge table. Rank order repeatedly takes the lowest-ranked pair present (GPT-2, "
        "tiktoken); sequential order runs through the table once. When a token can be built two ways they can "
        "disagree, and reordering the same rules changes the result again.",
        merge_order,
    ),
    Lesson(
        "8. Vocabulary size trade-off",
        "More merges mean a bigger vocabulary and fewer, longer tokens: tokens per character falls as the "
        "vocabulary grows. The gain is steep at first and then flattens; on text the tokenizer never saw it "
        "flattens sooner, because the later merges are words and names of the training text.",
        vocab_tradeoff,
    ),
]
"""Every lesson, in teaching order."""

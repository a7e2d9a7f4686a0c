"""AppTest for the Train and Encode visuals: pair bars, corpus strip, End-of-word control, encoding
player, merge-order switch, and lessons 3 and 4 (AppTest cannot see inside plotly: the chart's spec is read)."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

import bpe_core
from bpe_core.formats import export
from ui import state
from viz.corpus_strip import corpus_strip, excerpt_pieces
from viz.markdown import plain

from .test_app import (
    DEFAULT_CORPUS,
    captions,
    default_result,
    encode_page,
    fresh,
    lesson,
    metrics,
    seen,
    submit,
    unfold,
    upload_tokenizer,
)

STORY = state.STORY_PLAYER


@pytest.fixture()
def at() -> AppTest:
    app = fresh()
    assert not app.exception
    return app


def pair_bars(at: AppTest) -> dict:
    """The spec of the top-pair bar chart (the one whose title names the pair counts)."""
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    return next(s for s in specs if s["layout"]["title"]["text"].startswith("Top "))


def html_bodies(at: AppTest) -> list[str]:
    return [h.proto.body for h in at.get("html")]


def test_pair_bars_follow_the_player(at):
    result = default_result()
    spec = pair_bars(at)
    assert spec["layout"]["title"]["text"] == "Top 10 pair counts before merge 1"
    assert spec["data"][0]["x"] == [count for _pair, count in result.steps[0].top_pairs]
    assert spec["layout"]["yaxis"]["ticktext"][0] == "e + &lt;/w&gt;"
    assert spec["layout"]["transition"]["duration"] > 0
    at.button(key=state.TRAIN_PLAYER.next).click().run()
    spec = pair_bars(at)
    assert spec["layout"]["title"]["text"] == "Top 10 pair counts before merge 2"
    assert spec["data"][0]["x"][0] == result.steps[1].count
    assert not any("tie key" in d.value.columns for d in at.dataframe)  # its expander is lazy: closed, unbuilt
    unfold(at, state.PAIR_TABLE_OPEN)
    assert at.dataframe[0].value.iloc[0]["count"] == result.steps[1].count  # the table, under its expander


def test_all_rewritten_words_table_says_its_order(at):
    """The full table is in corpus order while the list above it is most frequent first: the caption says so."""
    result = default_result()
    k = next(k for k, s in enumerate(result.steps) if s.num_words > len(s.words))
    at.slider(key=state.TRAIN_PLAYER.step).set_value(k + 1).run()
    unfold(at, state.WORD_TABLE_OPEN)  # "All N rewritten words"
    table = next(d.value for d in at.dataframe if len(d.value) == result.steps[k].num_words)
    assert list(table["word"]) == [w.word for w in result.word_changes(k)]  # corpus order
    assert list(table["freq"]) != sorted(table["freq"], reverse=True)  # which is not most frequent first here
    assert any(c.startswith("In corpus order (the list above puts the most frequent first)") for c in captions(at))


def test_corpus_strip_shrinks_as_merges_are_learned(at):
    result = default_result()
    excerpt = excerpt_pieces(DEFAULT_CORPUS, "whitespace_eow", ())
    expected = corpus_strip(result, excerpt, 0)
    assert seen(plain(expected.caption())) in captions(at)
    strip = next(b for b in html_bodies(at) if 'class="bpe-word"' in b)
    assert strip.count('class="bpe-word"') == len(expected.starts)
    at.slider(key=state.TRAIN_PLAYER.step).set_value(100).run()
    later = corpus_strip(result, excerpt, 99)
    assert later.tokens_after < expected.tokens_after
    assert seen(plain(later.caption())) in captions(at)


def test_end_of_word_control_and_pre_token_label(at):
    assert at.radio(key=state.END_OF_WORD).disabled is False
    assert "distinct words" in metrics(at)
    at.selectbox(key=state.PRETOKENIZER).set_value("gpt2")
    at.radio(key=state.UNIT).set_value("byte")
    submit(at)
    assert not at.exception
    eow = at.radio(key=state.END_OF_WORD)
    assert eow.disabled is True and eow.help.startswith("Disabled: the gpt2 pre-tokenizer writes no end-of-word")
    assert "Ignored by gpt2: only whitespace_eow writes </w>." in captions(at, sidebar=True)
    m = metrics(at)
    assert "distinct words" not in m and "distinct pre-tokens" in m
    assert any(md.value.startswith("**Pre-tokens rewritten**") for md in at.markdown)
    at.selectbox(key=state.PRETOKENIZER).set_value("whitespace_eow")
    at.radio(key=state.UNIT).set_value("char")
    submit(at)
    assert at.radio(key=state.END_OF_WORD).disabled is False


def test_encoding_player_plays_a_pre_token(at):
    encode_page(at)
    at.text_area(key=state.ENCODE_TEXT).set_value("the lowest").run()
    pieces = at.selectbox(key=state.ENCODE_PIECE)
    pieces.set_value(pieces.options[1]).run()
    tok = default_result().tokenizer
    steps = tok.encode_with_trace("lowest").pieces[0].steps
    first = steps[0]
    assert f"Next: rank {first.rank} joins {first.pair[0]} + {first.pair[1]} into {first.token}." in captions(at)
    story = next(b for b in html_bodies(at) if "bpe-story" in b)
    assert story.count('class="bpe-story-label') == 1
    at.button(key=STORY.next).click().run()
    story = next(b for b in html_bodies(at) if "bpe-story" in b)
    assert story.count('class="bpe-story-label') == 2
    at.button(key=STORY.last).click().run()
    n = len(tok.tokenize("lowest"))
    assert any(c.startswith(f"Done: {n} tokens after {len(steps)} rules") for c in captions(at))
    # another pre-token restarts the player at its first step
    pieces = at.selectbox(key=state.ENCODE_PIECE)
    pieces.set_value(pieces.options[0]).run()
    assert at.session_state[STORY.pos] == 1


def test_merge_order_switch_shows_where_it_can_matter(at):
    encode_page(at)
    folded = [e.label for e in at.expander if e.label.startswith("Merge order")]
    assert folded == ["Merge order: the same cut either way here"]  # a table learned by BPE
    rules = [("b", "c"), ("a", "b"), ("ab", "c"), ("abc", "d"), ("a", "bc")]
    tok = bpe_core.Tokenizer.from_merges(rules, pretokenizer="whitespace")
    upload_tokenizer(at, export(tok, "hf_json"))
    assert not [e for e in at.expander if e.label.startswith("Merge order")]
    assert any("This table forms 1 token(s) by more than one rule." in c for c in captions(at))


def test_lesson_blocked_merge_has_no_out_of_alphabet_box(at):
    lesson(at, "3. Blocked merge")
    assert "**Blocked rules** (both symbols present; something stood between or took a symbol)" in [
        m.value for m in at.markdown
    ]
    row = html_bodies(at)[0].rsplit("</style>", 1)[-1]
    assert "bpe-fallback" not in row and "*</small>" not in row
    assert at.text_input(key=state.lesson_key(3, "corpus")).value == "hug pug bug sun"  # it has an s


def test_lesson_byte_fallback_offsets_mean_one_thing(at):
    lesson(at, "4. Byte fallback")
    (table,) = (df.value for df in at.dataframe)
    assert "merged" not in table.columns and "outcome" in table.columns
    for char, offset in (("ï", 6), ("🙂", 14)):
        assert set(table[table["char"] == char]["offset"]) == {offset}  # the same offset in all three tokenizers


def test_pair_bars_animate_from_the_step_drawn_before(at):
    """Streamlit draws a new chart per step, so the bars' animation is a CSS one built from the step shown before."""
    from viz.train_charts import pair_bars_css

    result = default_result()
    scope = f"st-key-{state.PAIR_BARS}"
    assert not [b for b in html_bodies(at) if "@keyframes" in b]  # the first chart has nothing to move from
    at.button(key=state.TRAIN_PLAYER.next).click().run()
    (css,) = [b for b in html_bodies(at) if "@keyframes" in b]
    assert css == pair_bars_css(result.steps[0], result.steps[1], scope)
    at.slider(key=state.TRAIN_PLAYER.step).set_value(40).run()  # a jump: from step 2's bars to step 40's
    (css,) = [b for b in html_bodies(at) if "@keyframes" in b]
    assert css == pair_bars_css(result.steps[1], result.steps[39], scope)

"""Unit tests for the Train and Encode visuals: pair bars, corpus strip, encoding story, RTL isolates,
one colour per token, blocked-rule filter and fallback offsets (viz/ builders, no Streamlit)."""

from __future__ import annotations

import re
from html import unescape

import pytest

from bpe_core import BlockedRule, PieceTrace, Tokenizer, train
from viz.corpus_strip import corpus_strip, corpus_strip_html, excerpt_pieces
from viz.encode_story import between_positions, story_caption, story_html, story_rows
from viz.encode_views import (
    blocked_frame,
    blocked_rules,
    fallbacks_frame,
    multi_rule_tokens,
    token_views,
    with_pieces,
)
from viz.tokens import (
    FSI,
    LONG_ROW,
    LRI,
    PALETTE,
    PDI,
    change_html,
    display_for,
    isolate,
    row_colors,
    tokens_row,
    word_change_html,
)
from viz.train_charts import OTHER, TIED, TRANSITION, WINNER, bar_starts, pair_bars_css, pair_bars_figure
from viz.train_tables import corpus_summary, pretoken_noun

LOW = "low low low low low lowest lowest newer newer newer newer newer newer wider wider wider new new"
TEXTBOOK = " ".join(["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3)
HEBREW = "של של של שלום שלום"


def body(html: str) -> str:
    """HTML without its leading <style> blocks (class names in CSS are not boxes)."""
    return html.rsplit("</style>", 1)[-1]


BOX_COLOR = re.compile(r'class="bpe-tok[^"]*" style="background:(#[0-9a-f]{6})"')


@pytest.fixture(scope="module")
def low():
    return train(LOW, num_merges=10)


# ----------------------------------------------------------------- right-to-left tokens


def test_isolate_wraps_only_right_to_left_text():
    assert isolate("של") == FSI + "של" + PDI
    assert isolate("مرحبا") == FSI + "مرحبا" + PDI
    assert isolate("٣") == FSI + "٣" + PDI  # Arabic-Indic digit (bidi class AN)
    for text in ("the", "é</w>", "·the", "⟨F0 9F⟩", "", "123", "🙂"):
        assert isolate(text) == text


def test_hebrew_tokens_are_isolated_in_display_strings():
    result = train(HEBREW, num_merges=2)
    show = display_for("char", True)
    step = result.steps[0]
    assert step.pair == ("ש", "ל") and step.token == "של"
    assert [show(t) for t in (*step.pair, step.token)] == [FSI + "ש" + PDI, FSI + "ל" + PDI, FSI + "של" + PDI]
    # the marker gets its own left-to-right isolate: inside the token's right-to-left isolate it was drawn
    # reversed and mirrored ("<w/>ש"), as a user trial in Chromium showed
    assert show("ש</w>") == FSI + "ש" + PDI + LRI + "</w>" + PDI
    assert show("er</w>") == "er</w>"  # left-to-right tokens are untouched


def test_tie_keys_and_reasons_isolate_right_to_left_words():
    from viz.tokens import isolate_words
    from viz.train_tables import pair_counts_frame, tie_explanation

    assert isolate_words("first seen in word 1 'שלום' at offset 3") == (
        f"first seen in word 1 '{FSI}שלום{PDI}' at offset 3"
    )
    assert isolate_words("('a' 'b') (smallest wins)") == "('a' 'b') (smallest wins)"
    result = train("ab ab של של", num_merges=1, pretokenizer="whitespace", tie_break="first_seen", min_frequency=1)
    step = result.steps[0]
    assert step.num_tied == 2
    keys = pair_counts_frame(step)["tie key"].tolist()
    assert FSI not in keys[0] and f"'{FSI}של{PDI}'" in keys[1]
    assert f"'{FSI}של{PDI}'" in tie_explanation(step)


# ----------------------------------------------------------------- one colour per token


def test_row_colors_give_each_token_its_own_slot_whatever_its_neighbours():
    assert row_colors([3, 3, 3, 13]) == [3, 3, 3, 3]
    assert row_colors([1, 2, 12, 5]) == [1, 2, 2, 5]
    assert row_colors([]) == []


def test_a_token_has_one_colour_in_every_word_and_step():
    """Issue 19: ``e</w>`` was drawn in different colours in different words (a neighbour's colour was avoided)."""
    result = train(TEXTBOOK * 3, num_merges=12, pretokenizer="whitespace_eow", tie_break="first_seen")
    tok = result.tokenizer
    colours: dict[str, set[str]] = {}
    for step in result.steps:
        for change in step.words:
            drawn = change_html(change, tok)
            for box in re.finditer(r'style="background:(#[0-9a-f]{6})"[^>]*title="([^"]*)"', drawn):
                colours.setdefault(unescape(box.group(2)).split(" id ")[0], set()).add(box.group(1))
    assert len(colours) > 10 and {"'est</w>'", "'</w>'", "'e'"} <= colours.keys()
    assert all(len(c) == 1 for c in colours.values()), {t: c for t, c in colours.items() if len(c) > 1}
    sentence = "newest widest lower lowest low newer wider lowest newest " * 4  # no character outside the alphabet
    row = tokens_row(token_views(tok, tok.encode_with_trace(sentence)))
    by_id = {}
    for colour, token_id in re.findall(r'style="background:(#[0-9a-f]{6})".*?<small>(\d+)</small>', row):
        assert by_id.setdefault(token_id, colour) == colour
    assert len(by_id) >= 8 and set(by_id.values()) <= set(PALETTE)


def test_a_long_row_of_tokens_scrolls_in_a_box_of_its_own():
    """Trial B: 20,000 characters on the Encode page drew every box in the page's flow, 29,000 px tall."""
    tok = train(TEXTBOOK, num_merges=5).tokenizer
    views = token_views(tok, tok.encode_with_trace("low " * LONG_ROW))
    assert len(views) > LONG_ROW
    assert tokens_row(views).count('<div class="bpe-row bpe-long">') == 1
    assert '<div class="bpe-row">' in tokens_row(views[:LONG_ROW]) and "bpe-row bpe-long" not in tokens_row(
        views[:LONG_ROW]
    )


def test_rewritten_word_halves_wrap_separately():
    html = word_change_html(["l", "o", "w"] * 30, ["lo", "w"] * 30, list(range(0, 60, 2)), "char", False)
    before, after = html.split('<span class="bpe-arrow">→</span>')
    assert before.startswith('<div class="bpe-change"><div class="bpe-row bpe-side">')
    assert before.count('class="bpe-tok') == 90 and after.count('class="bpe-tok') == 60
    assert "bpe-new" not in before and after.count("bpe-new") == 30
    assert after.startswith('<div class="bpe-row bpe-side">')


# ----------------------------------------------------------------- top-pair bars


def test_pair_bars_figure_marks_winner_and_ties(low):
    fig = pair_bars_figure(low.steps[0])
    (bars,) = fig.data
    assert bars.orientation == "h"
    assert list(bars.x) == [count for _pair, count in low.steps[0].top_pairs]
    assert list(bars.x[:3]) == [9, 9, 8]
    assert list(fig.layout.yaxis.ticktext[:2]) == ["e + r", "r + &lt;/w&gt;"]  # escaped: plotly reads tags
    assert list(bars.marker.color[:3]) == [WINNER, TIED, OTHER]
    assert list(bars.marker.pattern.shape[:3]) == ["", "/", ""]
    assert list(bars.text[:3]) == ["9 (won tie)", "9 (tie)", "8"]
    assert fig.layout.yaxis.autorange == "reversed"  # best at the top
    assert fig.layout.transition.duration > 0  # plotly animates from one step's bars to the next
    assert fig.layout.title.text == "Top 10 pair counts before merge 1"
    single = pair_bars_figure(low.steps[1])
    assert single.data[0].text[0].endswith("(winner)") and single.data[0].marker.color[1] == OTHER


def test_pair_bars_escape_hostile_tokens_and_isolate_rtl():
    hostile = train("<b>x</b> " * 3 + "<b>y", num_merges=1, pretokenizer="none")
    labels = " ".join(pair_bars_figure(hostile.steps[0]).layout.yaxis.ticktext)
    assert "<b>" not in labels and "&lt;" in labels
    hebrew = train(HEBREW, num_merges=1)
    label = pair_bars_figure(hebrew.steps[0], display_for("char", True)).layout.yaxis.ticktext[0]
    assert label == f"{FSI}ש{PDI} + {FSI}ל{PDI}"


# ----------------------------------------------------------------- corpus strip


def test_excerpt_pieces():
    e = excerpt_pieces(LOW, "whitespace_eow", (), limit=30)
    assert [p for p, _s in e.pieces] == ["low"] * 5 + ["lowest"]  # 'lowest' ends at 26; the next word is cut
    assert e.chars == 26 and e.total_chars == len(LOW)
    e = excerpt_pieces("ab<|e|>cd ef", "gpt2", ("<|e|>",), limit=9)
    assert e.pieces == (("ab", False), ("<|e|>", True), ("cd", False))
    one = excerpt_pieces("abc " * 200, "none", (), limit=50)
    assert one.pieces == ((("abc " * 13)[:50], False),) and one.chars == 50  # a single pre-token, cut


def test_corpus_strip_by_hand(low):
    strip = corpus_strip(low, excerpt_pieces(LOW, "whitespace_eow", ()), 0)
    # 5 x 'low</w>' (4) + 2 x 'lowest</w>' (7) + 6 x 'newer</w>' (6) + 3 x 'wider</w>' (6) + 2 x 'new</w>' (4)
    assert (strip.tokens_before, strip.tokens_after, strip.rewritten) == (96, 87, 9)
    assert [v.raw for v in strip.views if v.new] == ["er"] * 9
    assert strip.caption() == (
        "The whole corpus: 96 tokens before this merge, 87 after (it fired 9 times here; the new tokens are outlined)."
    )
    assert len(strip.starts) == 18 and strip.starts[:3] == (0, 4, 8)


@pytest.mark.parametrize(
    "settings",
    [
        {"pretokenizer": "whitespace_eow"},
        {"pretokenizer": "whitespace_eow", "end_of_word": "attached"},
        {"pretokenizer": "gpt2", "unit": "byte"},
        {"pretokenizer": "none", "min_frequency": 1},
        {"pretokenizer": "gpt4", "special_tokens": ["<|e|>"]},
    ],
)
def test_whole_corpus_strip_matches_training_counts(settings):
    text = (TEXTBOOK + " café naïve <|e|> ") * 3
    result = train(text, num_merges=25, **settings)
    excerpt = excerpt_pieces(text, result.config.pretokenizer, result.config.special_tokens, limit=len(text))
    specials = sum(special for _chunk, special in excerpt.pieces)
    for k in range(result.num_merges):
        strip = corpus_strip(result, excerpt, k)
        # what the trainer counted (specials are cut out before counting, the strip shows them as one box each)
        assert strip.tokens_before - specials == result.tokens_at(k)
        assert strip.tokens_after - specials == result.tokens_at(k + 1)
        assert sum(v.new for v in strip.views) == strip.rewritten == result.steps[k].replacements


def test_corpus_strip_html_groups_pre_tokens_and_escapes():
    text = "<script>x</script> <script>y"
    result = train(text, num_merges=3, min_frequency=1)
    strip = corpus_strip(result, excerpt_pieces(text, "whitespace_eow", ()), 0)
    html = corpus_strip_html(strip)
    assert "<script" not in html and "&lt;" in html
    assert html.count('<span class="bpe-word">') == 2 and "<small>" not in html
    assert body(html).count("bpe-new") == strip.rewritten
    with pytest.raises(ValueError):
        corpus_strip(result, excerpt_pieces(text, "whitespace_eow", ()), result.num_merges)


# ----------------------------------------------------------------- encoding story


def test_story_rows_textbook():
    tok = train(TEXTBOOK, num_merges=10).tokenizer
    piece = tok.encode_with_trace("lowest").pieces[0]
    rows = story_rows(piece)
    assert [" ".join(r.tokens) for r in rows] == [
        "l o w e s t </w>",
        "l o w es t </w>",
        "l o w est </w>",
        "l o w est</w>",
        "lo w est</w>",
        "low est</w>",
    ]
    assert [r.label for r in rows] == [
        "start",
        "rank 0: e + s → es",
        "rank 1: es + t → est",
        "rank 2: est + </w> → est</w>",
        "rank 3: l + o → lo",
        "rank 4: lo + w → low",
    ]
    assert [r.new for r in rows] == [(), (3,), (3,), (3,), (0,), (0,)]
    assert [r.fires for r in rows] == [(3, 4), (3, 4), (3, 4), (0, 1), (0, 1), ()]
    assert story_caption(rows, 1) == "Next: rank 0 joins e + s into es."
    assert story_caption(rows, 6) == "Done: 2 tokens after 5 rules."


def test_story_rows_mark_every_site_of_a_rule():
    tok = Tokenizer.from_merges([("a", "b")], pretokenizer="none")
    rows = story_rows(tok.encode_with_trace("ababx").pieces[0])
    assert rows[0].fires == (0, 1, 2, 3) and rows[1].tokens == ("ab", "ab", "x") and rows[1].new == (0, 1)


def test_story_html_outlines_and_escapes():
    tok = train("<b> <b> <b>", num_merges=2, pretokenizer="whitespace").tokenizer
    rows = story_rows(tok.encode_with_trace("<b>").pieces[0])
    assert [r.tokens for r in rows] == [("<", "b", ">"), ("<b", ">"), ("<b>",)]
    first = body(story_html(rows, 1, "char", False))
    assert first.count("bpe-fire") == 2 and "bpe-new" not in first and first.count("bpe-story-label") == 1
    last = body(story_html(rows, 3, "char", False))
    assert "<b" not in last and "&lt;b&gt;" in last and "rank 1: &lt;b + &gt; → &lt;b&gt;" in last
    assert last.count("bpe-story-now") == 2 and last.count('class="bpe-tok bpe-new') == 2
    assert story_html(rows, 99, "char", False) == story_html(rows, 3, "char", False)  # clamped


def test_blocked_rules_keep_only_what_stood_between_or_took_a_symbol():
    tok = train("hug pug bug sun", num_merges=2).tokenizer
    piece = tok.encode_with_trace("hugs").pieces[0]
    assert [(b.pair, b.between, b.kind) for b in blocked_rules(piece)] == [(("ug", "</w>"), ("s",), "apart")]
    rows = story_rows(piece)
    assert between_positions(rows[-1].tokens, blocked_rules(piece)[0]) == (2,)
    html = body(story_html(rows, len(rows), "char", True, blocked_rules(piece)))
    assert html.count("bpe-between") == 2  # in the last row, and in the blocked rule's own row
    assert story_caption(rows, len(rows), blocked_rules(piece)) == (
        "Done: 4 tokens after 1 rule; 1 blocked rule (ug + </w>: s stood between)."
    )
    # 'l' only ever comes before 'o': nothing blocked rule (o, l), so it is left out
    trivial = Tokenizer.from_merges([("x", "y"), ("o", "l")], pretokenizer="none").encode_with_trace("lxo").pieces[0]
    assert [b.kind for b in trivial.blocked] == ["apart"] and trivial.blocked[0].between == ()
    assert blocked_rules(trivial) == [] and blocked_frame(trivial).empty
    # (b, c) stood side by side until rule 0 took the b
    taken = Tokenizer.from_merges([("a", "b"), ("b", "c")], pretokenizer="none").encode_with_trace("abcb").pieces[0]
    assert [(b.pair, b.kind, b.by_rank) for b in blocked_rules(taken)] == [(("b", "c"), "taken", 0)]
    assert "rank 0 took a symbol first" in story_caption(story_rows(taken), 2, blocked_rules(taken))


def test_story_rows_are_rebuilt_from_positions():
    piece = PieceTrace("x" * 3, 0, False, ("x",) * 3, (), (), (), ("x",) * 3, (1, 1, 1))
    assert [r.tokens for r in story_rows(piece)] == [("x", "x", "x")]
    from bpe_core import RuleApplication

    step = RuleApplication(0, ("a", "b"), "ab", (0, 2))
    two = PieceTrace("abab", 0, False, ("a", "b", "a", "b"), (step,), (), (), ("ab", "ab"), (2, 2))
    rows = story_rows(two)
    assert [r.tokens for r in rows] == [("a", "b", "a", "b"), ("ab", "ab")] and rows[1].new == (0, 1)
    assert rows[-1] == rows[1] and rows[0:1] == [rows[0]]
    assert BlockedRule(0, ("a", "b"), (), "r").kind == "apart"


def test_story_of_a_long_word_draws_a_window_of_the_last_rows():
    tok = Tokenizer.from_merges([("a", "a"), ("aa", "aa")], pretokenizer="none")
    piece = tok.encode_with_trace("a" * 1000).pieces[0]
    rows = story_rows(piece, width=40)
    assert len(rows) == 3 and rows[-1].size == 250 and rows[0].size == 1000
    assert rows[0].tokens == ("a",) * 40 and rows[0].fires == tuple(range(40))  # 40 symbols, 40 characters
    assert rows[1].tokens == ("aa",) * 20 and rows[1].new == tuple(range(20))  # 40 characters
    assert rows[-1].tokens == ("aaaa",) * 10 and rows[-1].offset == 0
    html = body(story_html(rows, 3, "char", False))
    assert "240 after …" in html and " before</span>" not in html
    from bpe_core.formats import bundled
    from viz.encode_story import ROWS_SHOWN

    one_by_one = bundled("cl100k_base").encode_with_trace("-" * 300).pieces[0]  # tiktoken: one site per step
    rows = story_rows(one_by_one)
    assert len(rows) > 100
    html = story_html(rows, len(rows) - 1, "byte", False)
    assert html.count('class="bpe-story-label') == ROWS_SHOWN + 1
    assert f"… {len(rows) - 1 - ROWS_SHOWN:,} earlier" in html
    for k in range(len(rows) - 3, len(rows)):  # rows built going forward equal the state rebuilt from scratch
        r = rows[k]
        assert r.tokens == one_by_one.state(k)[r.offset : r.offset + len(r.tokens)]
    chain = Tokenizer.from_merges([("a", "b")], pretokenizer="none").encode_with_trace("ab" * 5).pieces[0]
    assert len(story_rows(chain)) == 2  # one rule, all sites at once
    steps = Tokenizer.from_merges([("a", "b"), ("ab", "c"), ("abc", "d")], pretokenizer="none")
    many = steps.encode_with_trace("abcd").pieces[0]
    assert "earlier step" not in story_html(story_rows(many), 4, "char", False)


# ----------------------------------------------------------------- encode page helpers


def test_fallback_offsets_are_character_offsets_in_the_text():
    text = "the naïve cat 🙂"
    english = "the cat sat on the mat. the café opened early and the cat came in. the naive cat"
    byte = train(english, num_merges=40, pretokenizer="gpt2", unit="byte").tokenizer
    char = train(english, num_merges=40).tokenizer.with_fallback("bytes")
    for tok in (byte, char):
        rows = [r for p in tok.encode_with_trace(text).pieces for r in fallbacks_frame(p).to_dict("records")]
        assert [(r["char"], r["offset"]) for r in rows] == [("ï", 6), ("🙂", 14)]
        assert text[6] == "ï" and text[14] == "🙂"
    rows = [r for p in byte.encode_with_trace(text).pieces for r in fallbacks_frame(p).to_dict("records")]
    assert [r["outcome"] for r in rows] == ["its bytes stay in 2 tokens", "its bytes stay in 4 tokens"]
    rows = [r for p in char.encode_with_trace(text).pieces for r in fallbacks_frame(p).to_dict("records")]
    assert [r["outcome"] for r in rows] == ["spelled as 2 byte tokens", "spelled as 4 byte tokens"]
    assert "merged" not in fallbacks_frame(char.encode_with_trace(text).pieces[0]).columns


def test_multi_rule_tokens():
    assert multi_rule_tokens([("b", "c"), ("a", "b"), ("ab", "c"), ("abc", "d"), ("a", "bc")]) == 1
    assert multi_rule_tokens(train(TEXTBOOK, num_merges=10).merges) == 0
    assert multi_rule_tokens([]) == 0


def test_with_pieces_numbers_ordinary_pre_tokens():
    tok = train("hello world hello", num_merges=5, pretokenizer="gpt2", unit="byte", special_tokens=["<|e|>"]).tokenizer
    trace = tok.encode_with_trace("hi<|e|> you", allowed_special="all")
    views = with_pieces(token_views(tok, trace), trace)
    owners = [v.piece for v in views]
    assert owners[-1] == 1 and None in owners and owners[0] == 0
    html = body(tokens_row(views))
    assert 'data-piece="0"' in html and 'data-piece="1"' in html and html.count("data-piece") == len(views) - 1
    # the attribute keeps the 0-based index, the hover text numbers pre-tokens from 1 (trial A item 16)
    assert "click: pre-token #1 rule by rule" in html and "click: pre-token #2 rule by rule" in html
    assert "pre-token #0" not in html


def test_pre_token_noun_in_the_summary(low):
    assert pretoken_noun("whitespace_eow") == "words" and pretoken_noun("gpt2") == "pre-tokens"
    gpt2 = train(LOW, num_merges=3, pretokenizer="gpt2", unit="byte")
    summary = corpus_summary(gpt2)
    assert "distinct words" not in summary and summary["distinct pre-tokens"] == len(gpt2.words)


# ----------------------------------------------------------------- pair bars animate from the chart drawn before


def test_bar_starts_are_the_widths_before_over_the_widths_now():
    result = train(TEXTBOOK, num_merges=3)
    first, second = result.steps[0], result.steps[1]
    assert bar_starts(None, second) == [1.0] * len(second.top_pairs)  # nothing drawn before: no movement
    assert bar_starts(second, second) == [1.0] * len(second.top_pairs)
    then = dict(first.top_pairs)
    top_then, top_now = max(then.values()), max(count for _pair, count in second.top_pairs)
    starts = bar_starts(first, second)
    for (pair, count), start in zip(second.top_pairs, starts):
        expected = (then.get(pair, 0) / top_then) / (count / top_now)
        assert start == pytest.approx(min(10.0, expected))
    assert 0.0 in starts  # a pair the first chart did not show grows in from nothing
    assert first.pair not in dict(second.top_pairs)  # merged at step 1, so stepping back it grows in again
    assert bar_starts(second, first)[0] == 0.0


def test_pair_bars_css_animates_each_bar_in_its_scope():
    result = train(TEXTBOOK, num_merges=3)
    first, second = result.steps[0], result.steps[1]
    assert pair_bars_css(None, second, "st-key-bars") == ""
    css = pair_bars_css(first, second, "st-key-bars")
    assert css.startswith("<style>") and css.endswith("</style>") and css.count("<") == 2  # numbers only
    starts = bar_starts(first, second)
    for slot, start in enumerate(starts):
        assert f".st-key-bars .bars .point:nth-child({slot + 1}) path{{animation-name:bpe-bar-1-{slot}}}" in css
        assert f"@keyframes bpe-bar-1-{slot}{{from{{transform:scaleX({start:.4f})}}" in css
    assert f"animation:{TRANSITION['duration']}ms" in css

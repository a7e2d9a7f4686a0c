"""Unit tests for the Lessons page's builders (viz/lessons.py): each lesson's tables, token rows and
sentences built from its default input, without Streamlit; and, through AppTest, each lesson's walk-through
with the Train page's step player and keys."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from bpe_core import TIE_BREAKS, BPEError, Tokenizer, train
from ui import state
from ui.settings import TrainSettings
from viz import lessons as build
from viz.compare import first_divergence
from viz.train_tables import token_counts

from .conftest import APP_TIMEOUT, REPO


def trained(text: str, **changes) -> object:
    """What the Lessons page trains: the sidebar's defaults changed by ``changes``."""
    return train(text, **TrainSettings().with_(**changes).kwargs())


def boxes(html: str) -> str:
    """A token row's boxes, without the style sheet before them."""
    return html.rsplit("</style>", 1)[-1]


def test_every_lesson_has_a_numbered_title_and_an_explanation():
    titles = [lesson.title for lesson in build.LESSON_TEXTS]
    assert [t.split(". ")[0] for t in titles] == [str(n) for n in range(1, len(titles) + 1)] and len(titles) >= 9
    assert all(len(lesson.explanation) > 80 for lesson in build.LESSON_TEXTS)


def test_nothing_learned_gives_the_engine_reason():
    assert build.nothing_learned(trained(build.TEXTBOOK, budget=3)) is None
    warning = build.nothing_learned(trained("a", budget=3))
    assert warning.startswith("Nothing to show: ") and warning.endswith(".")


def test_ties_lesson_names_each_rule_pick_and_the_tied_pairs():
    runs = {rule: trained("aaabdaaabac", pretokenizer="none", tie_break=rule, budget=4) for rule in TIE_BREAKS}
    split = first_divergence(runs)
    assert build.ties_message(split).startswith("The rules part ways at merge 2 (rank 1)")
    picks = build.tie_picks(runs, split)
    assert [p.heading for p in picks] == [
        "**first_seen** picks `aa` + `a`",
        "**alphabetical** picks `a` + `b`",
        "**subword_nmt** picks `aa` + `a`",
        "**hf_tokenizers** picks `a` + `b`",
    ]
    first = picks[0].tied
    assert list(first.columns) == ["pair", "key"] and set(first["pair"]) == {"aa + a", "a + b"}
    assert "same merges" in build.ties_message(None)


def test_ties_lesson_says_when_a_rule_stopped_before_the_split():
    run = trained("abab", pretokenizer="none", budget=1)
    (pick,) = build.tie_picks({"first_seen": run}, 5)
    assert pick.heading.startswith("**first_seen** stops before merge 6: ") and pick.tied is None


def test_blocked_lesson_finds_s_between_ug_and_the_word_end():
    body = build.blocked_lesson(trained(build.BLOCKED_CORPUS, budget=2), "hugs")
    assert body.rules[["left", "right", "token"]].values.tolist() == [["u", "g", "ug"], ["ug", "</w>", "ug</w>"]]
    (piece,) = body.pieces
    assert piece.caption == "Pre-token 'hugs': its symbols, then each rule that fired"
    assert piece.blocked[["rank", "left", "right", "between"]].values.tolist() == [[1, "ug", "</w>", "s"]]
    assert not body.fallback and "bpe-fallback" not in boxes(body.tokens_html)  # the corpus has an s
    assert build.blocked_lesson(trained(build.BLOCKED_CORPUS, budget=2), "hug").pieces[0].blocked is None


def test_blocked_lesson_flags_a_character_outside_the_alphabet():
    body = build.blocked_lesson(trained(build.BLOCKED_CORPUS, budget=2), "hugz")
    assert body.fallback and "bpe-fallback" in boxes(body.tokens_html)


def test_byte_fallback_columns_and_one_table():
    byte = trained(build.ENGLISH, pretokenizer="gpt2", unit="byte", budget=40)
    char = trained(build.ENGLISH, budget=40)
    tokenizers = build.fallback_tokenizers(byte, char)
    assert list(tokenizers) == ["byte-level BPE (15 merges on this text)", "char + <unk>", "char + <0xNN> bytes"]
    columns = [build.fallback_column(name, tok, build.UNSEEN) for name, tok in tokenizers.items()]
    assert [c.heading.split("**")[1] for c in columns] == list(tokenizers)
    assert [c.broken is None for c in columns] == [True, False, True]
    assert "encoded as <unk>" in columns[1].broken.replace("\\", "")
    table = build.fallback_table(columns)
    assert table[table["tokenizer"] == "char + <unk>"][["char", "tokens"]].values.tolist() == [
        ["ï", "<unk>"],
        ["🙂", "<unk>"],
    ]
    assert set(table[table["char"] == "ï"]["offset"]) == {6}
    assert build.fallback_table([build.fallback_column("x", char.tokenizer, "the cat")]) is None


def test_overlaps_lesson_counts_four_and_replaces_two():
    result = trained("aaaaa", pretokenizer="none", budget=3, min_frequency=1)
    first = build.overlaps_frame(result).iloc[0]
    assert (first["merge"], first["pair"], first["count"], first["replaced"]) == (1, "a + a", 4, 2)
    html = build.first_change_html(result)
    assert html.startswith("<style>") and "aa" in html


def test_word_end_columns_follow_each_pre_tokenizer():
    columns = {
        name: build.word_end_column(trained(build.ENGLISH, budget=30, **changes), "the cat ate the cake")
        for name, changes in build.WORD_END_CONFIGS.items()
    }
    assert [c.rules["token"].iloc[0] for c in columns.values()] == ["e</w>", "th", "e·", "at"]
    assert all(len(c.rules) == build.WORD_END_RULES for c in columns.values())
    assert [c.tokens_html.count('class="bpe-eow"') for c in columns.values()] == [5, 5, 0, 0]
    assert columns["</w> separate"].caption.startswith("Merge rules: ")


def test_merge_order_lesson_parses_rules_and_encodes_both_orders():
    assert build.parse_rules("a b\n\nab c") == [("a", "b"), ("ab", "c")]
    with pytest.raises(BPEError, match="line 2"):
        build.parse_rules("a b\nab c d")
    tok = Tokenizer.from_merges(build.parse_rules(build.ORDER_RULES), pretokenizer="none")
    rank, sequential = build.order_results(tok, "abcd")
    assert (rank.line, sequential.line) == ("rank order → `abcd`", "sequential order → `abc` `d`")
    assert len(rank.steps) == 1 and len(rank.steps[0]) == 3  # a+b, ab+c, abc+d
    assert build.lines_height("a\nb") == 26 * 3 + 16


def test_vocab_tradeoff_figures_and_caption():
    result = trained(build.TEXTBOOK, pretokenizer="gpt2", unit="byte", budget=5)
    counts = token_counts(result)
    held = [10, 9, 9, 8, 8, 8]
    body = build.tradeoff(
        {"seen": counts, "held": held},
        chars={"seen": result.text_chars, "held": 20},
        nbytes={"seen": 1, "held": 1},
        base=256,
    )
    per_char, chars_per = body.figures
    assert per_char.data[0].x[0] == 256 and per_char.data[0].x[-1] == 256 + len(counts) - 1
    assert list(per_char.data[1].y) == pytest.approx([c / 20 for c in held])
    assert list(chars_per.data[1].y) == pytest.approx([20 / c for c in held])
    assert body.caption == (
        f"With a vocabulary of {256 + len(counts) - 1}: seen, {counts[-1] / result.text_chars:.3f} tokens per "
        "character; held, 0.400 tokens per character."
    )


# ----------------------------------------------------------------- walk-throughs: the step players' views


def tokens_in(html: str) -> list[str]:
    """The token texts of a row of boxes (the end-of-word marker as ``</w>``)."""
    import re

    found = re.findall(r'<span class="bpe-tok[^"]*"[^>]*>(.*?)</span>(?=<span class="bpe-tok|</div>)', boxes(html))
    return [re.sub(r"<[^>]+>", "", t).replace("&lt;", "<").replace("&gt;", ">") for t in found]


def test_blocked_word_is_told_rule_by_rule():
    tok = trained(build.BLOCKED_CORPUS, budget=2).tokenizer
    (story,) = build.word_stories(tok, "hugs")
    assert story.title == "Pre-token `hugs`"
    assert [row.label for row in story.rows] == ["start", "rank 0: u + g → ug"]
    assert [(b.pair, b.between) for b in story.blocked] == [(("ug", "</w>"), ("s",))]
    assert build.story_steps([story]) == [(0, 1), (0, 2)]
    assert build.story_at([story], 1) == (story, 1) and build.story_at([story], 99) == (story, 2)
    assert build.story_at([], 1) is None


def test_stories_run_one_pre_token_after_another():
    tok = trained(build.BLOCKED_CORPUS, budget=2).tokenizer
    stories = build.word_stories(tok, "hug sun")
    assert [s.title for s in stories] == ["Pre-token `hug`", "Pre-token `sun`"]
    steps = build.story_steps(stories)
    assert steps == [(0, 1), (0, 2), (0, 3), (1, 1)]  # hug: start, ug, ug</w>; sun: no rule fires
    assert build.story_at(stories, 4) == (stories[1], 1)


def test_tie_step_line_says_where_the_rules_stand():
    runs = {rule: trained("aaabdaaabac", pretokenizer="none", tie_break=rule, budget=4) for rule in TIE_BREAKS}
    split = first_divergence(runs)
    assert [r.num_merges for r in runs.values()] == [3, 3, 3, 3]  # 4 asked for: min_frequency 2 stops at 3
    line = build.tie_step_line(runs, 0, split)
    assert line == "**Merge 1 of 3** (rank 0): so far every rule has chosen the same pairs."
    assert build.tie_step_line(runs, split, split).endswith("the rules part ways here.")
    assert "its own merges" in build.tie_step_line(runs, split + 1, split)


def test_overlap_line_and_each_merges_change():
    result = trained("aaaaa", pretokenizer="none", budget=3, min_frequency=1)
    assert build.overlap_line(result, 0) == (
        "**Merge 1**: `a` + `a` counted 4 times, replaced 2 times (overlapping occurrences cannot all be replaced)."
    )
    assert build.change_at(result, 0) == build.first_change_html(result)
    assert "aaaa" in build.change_at(result, 1)


@pytest.mark.parametrize("name", list(build.WORD_END_CONFIGS))
def test_the_sentence_after_k_merges_ends_as_encoding_does(name):
    """Step 0 is the base symbols, the last step the encoding; each step in between applies one more rule."""
    result = trained(build.ENGLISH, budget=30, **build.WORD_END_CONFIGS[name])
    sentence = "the cat ate the naïve cake"
    tok = result.tokenizer
    final = [t for p in tok.encode_with_trace(sentence).pieces for t in p.tokens]
    after = [tokens_in(build.sentence_after(result, sentence, k)) for k in range(result.num_merges + 1)]
    base = [t for p in tok.encode_with_trace(sentence).pieces for t in p.initial]
    assert len(after[0]) == len(base) and len(after[-1]) == len(final)
    assert all(len(b) <= len(a) for a, b in zip(after, after[1:]))  # merges only ever join tokens


def test_the_sentence_outlines_what_the_last_merge_formed():
    result = trained(build.ENGLISH, budget=30)
    html = build.sentence_after(result, "the cat", 1)  # merge 1 forms e</w>
    assert boxes(html).count("bpe-new") == 1


def test_the_tradeoff_player_steps_through_at_most_a_hundred_sizes():
    assert build.tradeoff_steps(50) == 50 and build.tradeoff_steps(1000) == build.TRADEOFF_STEPS
    assert [build.tradeoff_merges(1000, s) for s in (1, 50, 100, 500)] == [10, 500, 1000, 1000]
    assert [build.tradeoff_merges(50, s) for s in (1, 50)] == [1, 50]
    line = build.tradeoff_line({"seen": [10, 8, 5]}, {"seen": 20}, 256, 2)
    assert line == "**Vocabulary 258** (2 merges). seen: 0.250 tokens per character."


def test_the_fallback_player_goes_character_by_character():
    byte = trained(build.ENGLISH, pretokenizer="gpt2", unit="byte", budget=40)
    char = trained(build.ENGLISH, budget=40)
    columns = [build.fallback_column(n, t, build.UNSEEN) for n, t in build.fallback_tokenizers(byte, char).items()]
    assert build.fallback_steps(columns) == [(6, "ï"), (14, "🙂")]
    assert build.fallback_line(columns, 6) == (
        "Character `ï` at offset 6: byte\\-level BPE → `⟨C3⟩ ⟨AF⟩` (raw_bytes); char \\+ \\<unk\\> → `<unk>` (unk); "
        "char \\+ \\<0xNN\\> bytes → `<0xC3> <0xAF>` (bytes)."
    )


# ----------------------------------------------------------------- the walk-throughs on the page (AppTest)


def lesson_page(number: int) -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=APP_TIMEOUT)
    at.switch_page("pages/lessons.py")
    at.query_params[state.LESSON] = build.LESSON_TEXTS[number - 1].title
    at.run()
    assert not at.exception
    return at


FIRST_STEP = {
    2: ("**Merge 1 of 3** (rank 0): so far every rule has chosen the same pairs.", "markdown"),
    3: ("Next: rank 0 joins u + g into ug.", "caption"),
    4: ("Character `ï` at offset 6: ", "markdown"),
    5: ("**Merge 1**: `a` + `a` counted 4 times", "markdown"),
    6: ("After 1 of ", "caption"),
    7: ("Next: rank 0 joins b + c into bc.", "caption"),
    8: ("**Vocabulary 266** (10 merges).", "markdown"),
}
"""What each walk-through shows at its first step (the start of a line of that kind)."""


@pytest.mark.parametrize("number", sorted(FIRST_STEP))
def test_every_walk_through_has_the_train_pages_step_player_and_keys(number):
    at = lesson_page(number)
    keys = state.lesson_player(number)
    assert at.button(key=keys.next).proto.shortcut == "right"
    assert any(e.proto.id.endswith(keys.keys) for e in at.get("bidi_component"))  # presses counted in the browser
    n = at.slider(key=keys.step).max
    at.button(key=keys.last).click().run()
    assert at.slider(key=keys.step).value == n
    at.button(key=keys.first).click().run()
    assert not at.exception and at.slider(key=keys.step).value == 1
    text, kind = FIRST_STEP[number]
    assert any(seen(e.value).startswith(text) for e in getattr(at, kind)), [e.value for e in getattr(at, kind)]
    at.button(key=keys.next).click().run()
    assert not at.exception and at.slider(key=keys.step).value == 2


def seen(markdown: str) -> str:
    """Markdown as read: backslash escapes undone."""
    import re

    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown)

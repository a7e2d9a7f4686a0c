"""Unit tests for the Lessons page's builders (viz/lessons.py): each lesson's tables, token rows and
sentences built from its default input, without Streamlit."""

from __future__ import annotations

import pytest

from bpe_core import TIE_BREAKS, BPEError, Tokenizer, train
from ui.settings import TrainSettings
from viz import lessons as build
from viz.compare import first_divergence
from viz.train_tables import token_counts


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

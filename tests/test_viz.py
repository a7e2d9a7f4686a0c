"""Unit tests for every trace -> table / figure / HTML builder in viz/."""

from __future__ import annotations

import pytest

from bpe_core import Tokenizer, train
from viz.encode_views import (
    blocked_frame,
    encode_stats,
    fallbacks_frame,
    piece_label,
    rule_steps_frame,
    token_views,
)
from viz.tokens import TokenView, describe_bytes, tokens_row, view_of_string, visible, word_change_html
from viz.train_charts import compression_figure, merge_count_figure, vocab_growth_figure
from viz.train_tables import corpus_summary, merges_frame, pair_counts_frame, word_changes_frame

LOW = "low low low low low lowest lowest newer newer newer newer newer newer wider wider wider new new"


@pytest.fixture(scope="module")
def low():
    return train(LOW, num_merges=10)


# ----------------------------------------------------------------- training tables


def test_pair_counts_frame_marks_winner_and_ties(low):
    frame = pair_counts_frame(low.steps[0])
    assert list(frame.columns) == ["left", "right", "count", "status", "tie key"]
    assert frame.iloc[0][["left", "right", "count"]].tolist() == ["e", "r", 9]
    assert frame.iloc[0]["status"] == "won the tie"
    assert frame.iloc[1][["left", "right", "count"]].tolist() == ["r", "</w>", 9]
    assert frame.iloc[1]["status"] == "tied, lost"
    assert frame.iloc[1]["tie key"].startswith("first seen in word #2")
    assert frame.iloc[2]["status"] == "" and frame.iloc[2]["count"] == 8
    assert pair_counts_frame(low.steps[1]).iloc[0]["status"] == "winner"


def test_merges_frame(low):
    assert len(merges_frame(low)) == 10
    frame = merges_frame(low, 2)
    assert frame["token"].tolist() == ["er", "er</w>", "ne"]
    assert frame["tied"].tolist() == [2, 1, 2]
    assert frame["id"].tolist() == [11, 12, 13]


def test_word_changes_frame(low):
    frame = word_changes_frame(low.steps[0].words)
    assert set(frame["word"]) == {"newer", "wider"}
    row = frame[frame["word"] == "newer"].iloc[0]
    assert (row["freq"], row["before"], row["after"]) == (6, "n e w e r </w>", "n e w er </w>")


def test_corpus_summary(low):
    summary = corpus_summary(low)
    assert summary["characters"] == len(LOW)
    assert summary["distinct words"] == 5 and summary["alphabet"] == 11 and summary["merges"] == 10
    assert summary["tokens before"] == len(LOW.replace(" ", "")) + 18
    assert summary["tokens after"] == low.steps[-1].tokens_after


# ----------------------------------------------------------------- training charts


def test_merge_count_figure(low):
    fig = merge_count_figure(low, 3)
    assert list(fig.data[0].x) == list(range(1, 11))
    assert list(fig.data[0].y) == [s.count for s in low.steps]
    assert list(fig.data[1].y) == [s.replacements for s in low.steps]
    assert fig.layout.shapes[0].x0 == 3


def test_compression_figure(low):
    fig = compression_figure(low, 4)
    assert list(fig.data[0].x) == list(range(11))
    assert fig.data[0].y[0] == low.initial_tokens and fig.data[0].y[4] == low.steps[3].tokens_after
    assert fig.data[1].y[0] == pytest.approx(len(LOW) / low.initial_tokens)
    assert fig.layout.shapes[0].x0 == 4


def test_vocab_growth_figure(low):
    fig = vocab_growth_figure(low, 10)
    assert fig.data[0].y[0] == 11 and fig.data[0].y[-1] == 21
    assert any(s.x0 == 10 for s in fig.layout.shapes)


def test_figures_without_marker(low):
    assert len(merge_count_figure(low).layout.shapes) == 0


# ----------------------------------------------------------------- token HTML


def test_user_text_is_escaped():
    hostile = "<script>alert(1)</script><img src=x onerror=alert(2)>"
    html = tokens_row([TokenView(text=hostile, raw=hostile, token_id=5)])
    assert "<script>" not in html and "<img" not in html
    assert "&lt;script&gt;" in html and "&lt;img src=x onerror=alert(2)&gt;" in html
    html = word_change_html([hostile, "x"], [hostile + "x"], [0], "char", False)
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert '"' not in html.split('title="')[1].split('"')[0]


def test_visible_whitespace():
    assert visible("a b\tc\nd\r") == "a·b→c↵d␍"
    assert visible("a b", show_whitespace=False) == "a b"


def test_display_for():
    from viz.tokens import display_for

    byte = display_for("byte", False)
    assert byte("Ġthe") == "·the" and byte("Ċ") == "↵" and byte("ð") == "⟨F0⟩"
    char = display_for("char", True)
    assert char("er</w>") == "er</w>" and char("the ") == "the·"


def test_view_of_string_byte_level():
    view = view_of_string("Ġthe", "byte", False)
    assert view.text == " the" and not view.partial
    cut = view_of_string("ð", "byte", False)  # the byte F0 alone
    assert cut.partial and cut.text == "⟨F0⟩"
    marked = view_of_string("er</w>", "char", True)
    assert marked.text == "er" and marked.end_of_word
    assert view_of_string("er</w>", "char", False).text == "er</w>"


def test_describe_bytes():
    assert describe_bytes("é".encode()) == "é"
    assert describe_bytes(b"\xf0\x9f") == "⟨F0\u202f9F⟩"


def test_new_tokens_are_outlined():
    html = word_change_html(["a", "b", "a", "b"], ["ab", "ab"], [0, 1], "char", False)
    assert html.count("bpe-new") == 2


# ----------------------------------------------------------------- encoding views


def test_token_views_flags():
    result = train("hello world hello", num_merges=5, pretokenizer="gpt2", unit="byte", special_tokens=["<|e|>"])
    tok = result.tokenizer
    trace = tok.encode_with_trace("hi🙂<|e|>", allowed_special="all")
    views = token_views(tok, trace)
    assert views[-1].special and views[-1].text == "<|e|>"
    assert any(v.partial for v in views)  # the emoji's bytes are not merged
    assert token_views(tok, trace, limit=2) == views[:2]

    char = train("hug pug bug", num_merges=2)
    unk = Tokenizer(char.tokenizer.table, char.tokenizer.merge_ids, pretokenizer="whitespace_eow", fallback="unk")
    views = token_views(unk, unk.encode_with_trace("hugs"))
    assert [v.fallback for v in views] == [False, False, True, False]
    kept = token_views(char.tokenizer, char.tokenizer.encode_with_trace("hugs"))
    assert [v.fallback for v in kept] == [False, False, True, False] and kept[2].text == "s"


def test_encode_stats():
    assert encode_stats("héllo", [1, 2]) == {
        "characters": 5,
        "bytes": 6,
        "tokens": 2,
        "chars per token": 2.5,
        "bytes per token": 3.0,
    }
    assert encode_stats("", [])["chars per token"] == 0.0


def test_rule_blocked_and_fallback_frames():
    tok = train("hug pug bug", num_merges=2).tokenizer
    piece = tok.encode_with_trace("hugs").pieces[0]
    steps = rule_steps_frame(piece)
    assert steps[["rank", "left", "right", "token", "positions"]].values.tolist() == [[0, "u", "g", "ug", "1"]]
    assert steps.iloc[0]["after"] == "h ug s </w>"
    blocked = blocked_frame(piece)
    assert blocked[["rank", "left", "right", "between"]].values.tolist() == [[1, "ug", "</w>", "s"]]
    fb = fallbacks_frame(piece)
    assert fb[["char", "kind", "bytes", "tokens"]].values.tolist() == [["s", "kept", "73", "s"]]
    assert piece_label(0, piece) == "#0 'hugs' → 4 tokens"

"""Unit tests for every trace -> table / figure / HTML builder in viz/."""

from __future__ import annotations

import pytest

from bpe_core import Tokenizer, train
from viz.compare import (
    compression_figure,
    compression_values,
    first_divergence,
    merge_diff,
    merge_texts,
    merge_timeline,
    texts_row,
    timeline_css,
    timeline_style,
    token_text,
    unique_tokens,
    vocab_overlap,
    vocab_texts,
)
from viz.encode_views import (
    blocked_frame,
    encode_stats,
    fallbacks_frame,
    order_differences_frame,
    piece_label,
    rule_steps_frame,
    token_views,
)
from viz.markdown import code, left_out, plain
from viz.tokens import (
    TokenView,
    describe_bytes,
    display_of,
    end_of_word_mode,
    strings_row,
    tokens_row,
    view_of_string,
    visible,
    word_change_html,
)
from viz.train_charts import corpus_length_figure, mark_step, merge_count_figure, vocab_growth_figure
from viz.train_tables import compact, corpus_summary, merges_frame, pair_counts_frame, token_counts, word_changes_frame

LOW = "low low low low low lowest lowest newer newer newer newer newer newer wider wider wider new new"


@pytest.fixture(scope="module")
def low():
    return train(LOW, num_merges=10)


# ----------------------------------------------------------------- training tables


def test_pair_counts_frame_marks_winner_and_ties(low):
    frame = pair_counts_frame(low.steps[0])
    assert list(frame.columns) == ["left", "right", "count", "status", "tie key"]
    assert frame.iloc[0][["left", "right", "count"]].tolist() == ["e", "r", 9]
    assert frame.iloc[0]["status"] == "won tie"
    assert frame.iloc[1][["left", "right", "count"]].tolist() == ["r", "</w>", 9]
    assert frame.iloc[1]["status"] == "lost tie"
    assert frame.iloc[1]["tie key"].startswith("first seen in word 3")
    assert frame.iloc[2]["status"] == "" and frame.iloc[2]["count"] == 8
    assert pair_counts_frame(low.steps[1]).iloc[0]["status"] == "winner"


def test_tie_explanation(low):
    from viz.train_tables import tie_explanation

    step = low.steps[0]
    assert step.num_tied == 2
    assert tie_explanation(step) == f"first_seen picked e + r ({step.tie_keys[0]}) over r + </w> ({step.tie_keys[1]})"
    assert step.tie_keys[1].startswith("first seen in word 3")
    assert tie_explanation(low.steps[1]) == ""  # no tie
    many = train("ab cd ef gh " * 2, num_merges=1, pretokenizer="whitespace", tie_break="alphabetical").steps[0]
    assert many.num_tied == 4
    assert tie_explanation(many) == (
        "alphabetical picked a + b ('a' 'b' (smallest wins)) over c + d ('c' 'd' (smallest wins)) and 2 more"
    )


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


def test_corpus_length_figure(low):
    fig = corpus_length_figure(low, 4)
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


def test_visible_invisible_and_combining_characters():
    # A combining acute alone sits on a dotted circle; after its letter it is left alone.
    assert visible("\u0301") == "\u25cc\u0301" and visible("e\u0301") == "e\u0301"
    assert visible("e\u0301\u0302") == "e\u0301\u0302"  # stacked marks share one base
    assert visible(" \u0301") == "·\u25cc\u0301"  # the space symbol is no base for it
    assert visible("\u20dd") == "\u25cc\u20dd"  # enclosing mark (Me)
    # Format characters (Cf) and controls (Cc) become labels, whitespace toggle or not.
    assert visible("👩\u200d👧") == "👩⟨U+200D ZWJ⟩👧"
    assert visible("a\u200cb", show_whitespace=False) == "a⟨U+200C ZWNJ⟩b"
    assert visible("\u200f\u200e\u202e") == "⟨U+200F RLM⟩⟨U+200E LRM⟩⟨U+202E RLO⟩"
    assert visible("\ufeff\u00ad\x00\x07") == "⟨U+FEFF BOM⟩⟨U+00AD SHY⟩⟨U+0000 NUL⟩⟨U+0007 BEL⟩"
    assert visible("\U000e0061") == "⟨U+E0061 TAG LATIN SMALL LETTER A⟩"  # no alias: the Unicode name
    assert visible("\ue000") == "⟨U+E000⟩"  # private use: no name at all
    # A variation selector draws nothing even on a circle: labelled when it starts a token, kept after a base.
    assert visible("\ufe0f") == "⟨U+FE0F VS16⟩" and visible("❤\ufe0f") == "❤\ufe0f"
    assert visible("\t\n", show_whitespace=False) == "\t\n"  # whitespace stays whitespace when hidden


def test_invisible_characters_in_headings_and_boxes():
    from viz.tokens import display_for

    assert display_for("char", True)("\u0301</w>") == "\u25cc\u0301</w>"
    assert display_for("byte", False)("âĢį") == "⟨U+200D ZWJ⟩"  # U+200D's three UTF-8 bytes, byte-level
    html = tokens_row([TokenView(text="\u200d", raw="\u200d", token_id=7)])
    assert "⟨U+200D ZWJ⟩<small>7</small>" in html


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
    unk = char.tokenizer.with_fallback("unk")
    views = token_views(unk, unk.encode_with_trace("hugs"))
    assert [v.fallback for v in views] == [False, False, True, False]
    assert [v.text for v in views] == ["h", "ug", "<unk>", ""]
    kept = token_views(char.tokenizer, char.tokenizer.encode_with_trace("hugs"))
    assert [v.fallback for v in kept] == [False, False, True, False] and kept[2].text == "s"
    byte_fb = char.tokenizer.with_fallback("bytes")
    views = token_views(byte_fb, byte_fb.encode_with_trace("hé"))
    assert [v.text for v in views] == ["h", "<0xC3>", "<0xA9>", ""]  # the rule tables' notation
    assert [v.fallback for v in views] == [False, True, True, False] and not any(v.partial for v in views)


def test_keep_fallback_ids_are_marked_temporary():
    from viz.encode_views import temporary_ids

    tok = train("hug pug bug", num_merges=2).tokenizer  # 8 ids: h u g p b </w>, ug, ug</w>
    assert len(tok.model.table) == 8 and temporary_ids(tok.encode_with_trace("hug bug")) == range(0)
    kept = tok.with_fallback("keep")
    views = token_views(kept, kept.encode_with_trace("hugs 🙂"))
    assert [(v.text, v.token_id, v.temporary) for v in views if v.fallback] == [("s", 8, True), ("🙂", 9, True)]
    assert temporary_ids(kept.encode_with_trace("hugs 🙂")) == range(8, 10)
    assert not any(v.temporary for v in views if not v.fallback)
    from viz.encode_views import temporary_note

    assert temporary_note(kept, kept.encode_with_trace("hugs 🙂")).startswith(
        "2 characters outside the alphabet got temporary ids (8–9, marked *)"
    )
    html = tokens_row(views)
    assert html.count("bpe-tok bpe-fallback bpe-temp") == 2 and "<small>9*</small>" in html and "temporary id" in html
    unk = tok.with_fallback("unk")
    assert not any(v.temporary for v in token_views(unk, unk.encode_with_trace("hugs 🙂")))
    assert temporary_note(unk, unk.encode_with_trace("hugs 🙂")) == ""
    # Attached end-of-word twins are saved ids, not temporary and not fallback.
    attached = train("ab ab", num_merges=1, end_of_word="attached").tokenizer.with_fallback("keep")
    views = token_views(attached, attached.encode_with_trace("ba"))
    assert [(v.raw, v.fallback, v.temporary) for v in views] == [("b", False, False), ("a</w>", False, False)]


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
    assert piece_label(0, piece) == "#1 'hugs' → 4 tokens"  # index 0, numbered from 1 on screen


def test_order_differences_frame():
    tok = Tokenizer.from_merges([("b", "c"), ("a", "b"), ("ab", "c"), ("abc", "d"), ("a", "bc")], pretokenizer="none")
    frame = order_differences_frame(tok.order_differences("abcd abcd"))
    assert frame.values.tolist() == [["abcd·abcd", "abcd   abcd", "abc d   abc d"]]
    assert list(order_differences_frame([]).columns) == ["word", "rank order", "sequential"]


def test_display_of_follows_the_tokenizer_or_result(low):
    assert end_of_word_mode(low) and end_of_word_mode(low.tokenizer)
    assert display_of(low)("er</w>") == "er</w>"
    gpt2 = train("the cat the hat", num_merges=3, pretokenizer="gpt2", unit="byte")
    assert not end_of_word_mode(gpt2) and not end_of_word_mode(gpt2.tokenizer)
    assert display_of(gpt2)("Ġthe") == "·the" and display_of(gpt2.tokenizer)("Ġthe") == "·the"


def test_strings_row_and_mark_step(low):
    html = strings_row(["er</w>", "a<b"], "char", True)
    assert html.count('class="bpe-tok') == 2 and "a&lt;b" in html and '<span class="bpe-eow">&lt;/w&gt;</span>' in html
    assert "<small>" not in html  # no ids in a training-trace row
    fig = merge_count_figure(low, 2)
    mark_step(fig, 7)
    assert [s.x0 for s in fig.layout.shapes] == [7] and [a.text for a in fig.layout.annotations] == ["merge 7"]
    assert fig.layout.annotations[0].xanchor == "right"  # right half of merges 1..10: the label sits left of the line
    mark_step(fig, None)
    assert len(fig.layout.shapes) == 0 and len(fig.layout.annotations) == 0


def test_compact():
    assert compact(9732) == "9,732"
    assert compact(1_120_000) == "1.12 M"
    assert compact(2.47) == "2.47"
    assert compact(3.0) == "3"


def test_token_counts(low):
    counts = token_counts(low)
    assert len(counts) == 11
    assert counts[0] == low.initial_tokens and counts[1:] == [s.tokens_after for s in low.steps]


# ----------------------------------------------------------------- comparing runs

TIE = "aaabdaaabac"


@pytest.fixture(scope="module")
def tie_runs():
    """The tie example under three rules, char unit, no pre-tokenizer, 3 merges."""
    return {
        rule: train(TIE, num_merges=3, pretokenizer="none", unit="char", tie_break=rule)
        for rule in ("first_seen", "alphabetical", "subword_nmt")
    }


def test_merge_texts_and_token_text():
    gpt2 = train("the cat the hat", num_merges=4, pretokenizer="gpt2", unit="byte")
    assert token_text("Ġthe", gpt2) == "·the"
    assert merge_texts(gpt2) == ["t + h", "th + e", "a + t"]  # stopped after 3: no pair occurs twice
    eow = train("the cat the hat", num_merges=4)
    assert merge_texts(eow) == ["t + h", "th + e", "the + </w>", "a + t"]


def test_first_divergence(tie_runs):
    fs, al, sn = tie_runs["first_seen"], tie_runs["alphabetical"], tie_runs["subword_nmt"]
    assert first_divergence({"fs": fs, "al": al}) == 1  # merge 2: (aa, a) against (a, b)
    assert first_divergence({"fs": fs, "sn": sn}) is None
    assert first_divergence({}) is None
    byte = {
        rule: train(TIE, num_merges=3, pretokenizer="none", unit="byte", tie_break=rule)
        for rule in ("first_seen", "alphabetical")
    }
    assert first_divergence(byte) == 1
    # a run that stops early diverges where it stops
    short = train("the cat the hat", num_merges=4, pretokenizer="gpt2", unit="byte")
    long = train("the cat the hat", num_merges=4)
    assert first_divergence({"gpt2": short, "eow": long}) == 2


def test_merge_timeline_statuses(tie_runs):
    merges, status = merge_timeline(tie_runs)
    assert merges.index.name == "rank" and list(merges.columns) == ["first_seen", "alphabetical", "subword_nmt"]
    assert merges["first_seen"].tolist() == ["a + a", "aa + a", "aaa + b"]
    assert merges["alphabetical"].tolist() == ["a + a", "a + b", "aa + ab"]
    assert status["first_seen"].tolist() == ["shared by all", "shared by some", "shared by some"]
    assert status["alphabetical"].tolist() == ["shared by all", "unique", "unique"]
    css = timeline_css(status)
    assert css.loc[0, "alphabetical"] == "background-color: #bbf7d0"
    assert css.loc[1, "alphabetical"] == "background-color: #fecaca"
    assert css.loc[1, "subword_nmt"] == "background-color: #fef08a"
    assert timeline_style(merges, status).data is merges


def test_merge_timeline_pads_a_short_run():
    short = train("the cat the hat", num_merges=4, pretokenizer="gpt2", unit="byte")
    long = train("the cat the hat", num_merges=4)
    merges, status = merge_timeline({"gpt2": short, "eow": long})
    assert merges["gpt2"].tolist() == ["t + h", "th + e", "a + t", ""]
    assert status["gpt2"].tolist() == ["shared by all"] * 3 + [""]
    assert status["eow"].tolist() == ["shared by all", "shared by all", "unique", "shared by all"]
    assert timeline_css(status).loc[3, "gpt2"] == ""


def test_vocab_overlap_by_hand(tie_runs):
    # alphabet {a, b, c, d} in each; first_seen adds aa, aaa, aaab; alphabetical aa, ab, aaab:
    # shared {a, b, c, d, aa, aaab} = 6, union adds aaa and ab = 8, jaccard 6/8.
    assert vocab_texts(tie_runs["first_seen"]) == {"a", "b", "c", "d", "aa", "aaa", "aaab"}
    frame = vocab_overlap(tie_runs)
    assert frame.values.tolist() == [
        ["first_seen", "alphabetical", 6, 0.75],
        ["first_seen", "subword_nmt", 7, 1.0],
        ["alphabetical", "subword_nmt", 6, 0.75],
    ]
    byte = {
        rule: train(TIE, num_merges=3, pretokenizer="none", unit="byte", tie_break=rule)
        for rule in ("first_seen", "alphabetical")
    }
    # 256 bytes in each: shared 256 + aa + aaab = 258 of 260
    assert vocab_overlap(byte).values.tolist() == [["first_seen", "alphabetical", 258, round(258 / 260, 3)]]
    assert vocab_overlap({"only": tie_runs["first_seen"]}).empty


def test_unique_tokens(tie_runs):
    assert unique_tokens({"fs": tie_runs["first_seen"], "al": tie_runs["alphabetical"]}) == {
        "fs": ["aaa"],
        "al": ["ab"],
    }
    assert unique_tokens(tie_runs) == {"first_seen": [], "alphabetical": ["ab"], "subword_nmt": []}


def test_merge_diff(tie_runs):
    diff = merge_diff(tie_runs["first_seen"], tie_runs["alphabetical"], ("first_seen", "alphabetical"))
    assert diff.first == 1
    assert list(diff.frame.columns) == ["rank", "first_seen", "alphabetical", "same"]
    assert diff.frame["same"].tolist() == [True, False, False]
    assert diff.differing.values.tolist() == [[1, "aa + a", "a + b", False], [2, "aaa + b", "aa + ab", False]]
    same = merge_diff(tie_runs["first_seen"], tie_runs["subword_nmt"])
    assert same.first is None and same.differing.empty and list(same.frame.columns) == ["rank", "a", "b", "same"]
    with pytest.raises(ValueError, match="two different names"):
        merge_diff(tie_runs["first_seen"], tie_runs["subword_nmt"], ("x", "x"))


def test_merge_diff_when_one_table_is_shorter():
    short = train("the cat the hat", num_merges=4, pretokenizer="gpt2", unit="byte")
    long = train("the cat the hat", num_merges=4)
    diff = merge_diff(short, long)
    assert diff.first == 2
    assert diff.differing[["rank", "a", "b"]].values.tolist() == [[2, "a + t", "the + </w>"], [3, "", "a + t"]]


def test_compression_values_and_figure():
    counts = [10, 8, 5]
    assert compression_values(counts, chars=20, nbytes=30, metric="tokens") == [10, 8, 5]
    assert compression_values(counts, chars=20, nbytes=30, metric="chars per token") == [2.0, 2.5, 4.0]
    assert compression_values(counts, chars=20, nbytes=30, metric="bytes per token") == [3.0, 3.75, 6.0]
    assert compression_values(counts, chars=20, nbytes=30, metric="tokens per character") == [0.5, 0.4, 0.25]
    assert compression_values([0], chars=20, nbytes=30, metric="chars per token") == [0.0]
    with pytest.raises(ValueError, match="unknown metric"):
        compression_values(counts, chars=1, nbytes=1, metric="speed")

    fig = compression_figure({"A": counts, "B<i>": [4, 2]}, chars=20, nbytes=30, metric="chars per token", title="t&c")
    assert [t.name for t in fig.data] == ["A", "B&lt;i&gt;"]  # plotly reads HTML in names and titles: escaped
    assert list(fig.data[0].x) == [0, 1, 2] and list(fig.data[0].y) == [2.0, 2.5, 4.0]
    assert list(fig.data[1].y) == [5.0, 10.0]
    assert fig.layout.title.text == "t&amp;c" and fig.layout.yaxis.title.text == "chars per token"
    assert fig.layout.legend.orientation == "h" and fig.layout.legend.y < 0  # below the plot, not beside it
    per_text = compression_figure(
        {"seen": [10, 5], "unseen": [10, 8]},
        chars={"seen": 20, "unseen": 10},
        nbytes={"seen": 20, "unseen": 10},
        metric="tokens per character",
        title="",
        x_offset=256,
        x_title="vocabulary size",
    )
    assert list(per_text.data[0].x) == [256, 257] and list(per_text.data[0].y) == [0.5, 0.25]
    assert list(per_text.data[1].y) == [1.0, 0.8]
    assert per_text.layout.xaxis.title.text == "vocabulary size"
    with pytest.raises(ValueError, match="unknown metric"):
        compression_figure({}, chars=1, nbytes=1, metric="speed", title="")


def test_texts_row():
    html = texts_row(["·the", "a<b"])
    assert html.count('class="bpe-tok"') == 2
    assert ">·the</span>" in html and ">a&lt;b</span>" in html and "<b" not in html.split("</style>")[1]
    assert "<small>" not in html


# ----------------------------------------------------------------- markdown


def test_plain_escapes_markdown():
    hostile = "![t](http://example.invalid/x.png)"
    assert plain(hostile) == "\\!\\[t\\]\\(http\\:\u2060\\/\\/example\\.invalid\\/x\\.png\\)"
    # bare links stay text: a word joiner after "http:", "www" and "@"
    assert plain("www.x.org a@b.c 12:30") == "www\u2060\\.x\\.org a\\@\u2060b\\.c 12\\:30"
    assert plain("$5 and $6 **bold** <b>\n# title") == r"\$5 and \$6 \*\*bold\*\* \<b\> \# title"
    assert plain(ValueError("a_b")) == r"a\_b"
    assert plain("café 🙂") == "café 🙂"


def test_code_spans_hold_any_backticks():
    assert code("ab") == "`ab`"
    assert code("a`b") == "``a`b``"
    assert code("``x") == "``` ``x ```"
    assert code(" ab") == "`  ab `"  # the renderer strips one padding space from each end
    assert code("") == "` `"
    assert code("a\nb") == "`a b`"


def test_left_out():
    assert left_out(10, 10, "pairs") == ""
    assert left_out(10, 3, "pairs") == ""
    assert left_out(10, 1234, "distinct pairs", first="top") == "the top 10 of 1,234 distinct pairs (1,224 left out)"


def test_rule_token_ids_follow_the_merge_table_position_not_the_id():
    from bpe_core.formats import bundled
    from viz.encode_views import rule_token_ids

    result = train(" ".join(["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3), num_merges=10)
    tok = result.tokenizer
    (piece,) = tok.encode_with_trace("newest").pieces
    assert [tok.model.id_to_token(i) for i in rule_token_ids(tok, piece)] == [a.token for a in piece.steps]
    gpt2 = bundled("gpt2")
    (hello,) = gpt2.encode_with_trace("Hello").pieces
    assert hello.steps[-1].token == "Hello" and hello.steps[-1].rank != 15496  # a rank file: position, not id
    assert rule_token_ids(gpt2, hello)[-1] == 15496


def test_small_train_charts_keep_legends_off_the_plot_and_ticks_level(low):
    """Issue 19: at 1280 px the three charts (about 260 px each) had rotated ticks and legends over the plot."""
    for fig in (merge_count_figure(low, 3), corpus_length_figure(low, 3), vocab_growth_figure(low, 3)):
        legend = fig.layout.legend
        assert legend.orientation == "h" and legend.y == 1 and legend.yanchor == "bottom"  # a row above the plot
        assert fig.layout.xaxis.tickangle == 0 and fig.layout.xaxis.nticks == 5
        assert fig.layout.xaxis.automargin and fig.layout.yaxis.automargin
        assert fig.layout.margin.t >= 60  # room for the title and the legend row under it
        assert len(fig.layout.title.text) <= 28  # one line at 260 px

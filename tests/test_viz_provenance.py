"""viz.provenance and viz.checking: figures and tables from merge trees and checker verdicts."""

from __future__ import annotations

import pytest

import bpe_core
import bpe_core.formats
from bpe_core import Tokenizer, train
from bpe_core.analysis.checking import check_encoding, check_merges, find_settings
from viz.checking import (
    WRONG_STYLE,
    encoding_frame,
    encoding_sentence,
    highlight_row,
    settings_frame,
    top_pairs_frame,
    verdict_frame,
    verdict_markdown,
    verdict_sentence,
)
from viz.contrast import MIN_CONTRAST, contrast, text_color
from viz.provenance import (
    AUDIT_VIEWS,
    LEAF_COLOR,
    MERGE_COLORS,
    OWN_TEXT,
    UNSEEN_MERGES,
    UNSEEN_MODEL_TEXT,
    UNSEEN_TOKENIZER_TEXT,
    audit_frame,
    audit_headline,
    audit_ids,
    audit_summary,
    mark_pair,
    places_frame,
    text_width,
    tokens_frame,
    tree_figure,
    tree_merges_frame,
    tree_summary,
    unseen_lesson,
)
from viz.tokens import display_of

LOW = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
CLAIM = [("e", "s"), ("es", "t"), ("l", "o"), ("lo", "w"), ("n", "e")]
JM = {"low": 5, "lowest": 2, "newer": 6, "wider": 3, "new": 2}
JM_CLAIM = [("e", "r"), ("er", "_"), ("n", "e"), ("ne", "w"), ("l", "o"), ("lo", "w"), ("new", "er_"), ("low", "_")]


def textbook_tree():
    result = train(LOW, num_merges=10)
    return result, bpe_core.merge_tree(result, result.vocab["newest</w>"])


def test_icicle_paths_values_and_labels():
    result, tree = textbook_tree()
    trace = tree_figure(tree, display_of(result)).data[0]
    assert trace.type == "icicle" and trace.branchvalues == "total"
    assert trace.ids[:4] == ("0", "0.0", "0.0.0", "0.0.0.0")
    assert trace.parents[:4] == ("", "0", "0.0", "0.0.0")
    assert trace.labels[0] == "newest&lt;/w&gt;<br>rank 7" and trace.labels[3] == "n"
    values = dict(zip(trace.ids, trace.values))
    for node_id in trace.ids:  # every parent is as wide as its two children
        children = [values[i] for i, p in zip(trace.ids, trace.parents) if p == node_id]
        assert not children or sum(children) == values[node_id]
    assert values["0"] == len(b"newest ")
    assert "merge 8 of the training, pair count 6" in trace.hovertext[0]


def test_every_icicle_box_has_text_of_wcag_aa_contrast():
    """WCAG 2.1 AA (success criterion 1.4.3): text at least 4.5:1 against its box, for every fill the icicle uses."""
    assert contrast("#ffffff", "#000000") == pytest.approx(21.0)
    assert contrast("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)  # the lightest grey that passes on white
    assert contrast("#ffffff", "#fde68a") < 1.3  # the root box's old white-on-yellow
    for fill in (*MERGE_COLORS, LEAF_COLOR):
        assert contrast(text_color(fill), fill) >= MIN_CONTRAST, fill
    assert text_color("#1e3a8a") == "#ffffff" and text_color("#fde68a") == "#0f172a"
    with pytest.raises(ValueError, match="no text colour reaches 4.5:1"):
        text_color("#777777")  # mid-grey: neither black nor white text passes
    letters = "abcdefghijk"
    chain = Tokenizer.from_merges([(letters[:i], letters[i]) for i in range(1, 11)], pretokenizer="none")
    deep = bpe_core.merge_tree(chain, chain.model.vocab[letters])  # ten levels of merges: every fill of the icicle
    trace = tree_figure(deep).data[0]
    assert trace.leaf.opacity == 1  # plotly's default 0.7 would draw the leaves lighter than the fill checked
    fills, texts = trace.marker.colors, trace.textfont.color
    assert set(fills) == {*MERGE_COLORS, LEAF_COLOR} and len(texts) == len(fills)
    for fill, text in zip(fills, texts):
        assert contrast(text, fill) >= MIN_CONTRAST


def test_icicle_escapes_markup_in_tokens():
    tok = Tokenizer.from_merges([("<", "b"), ("<b", ">")], pretokenizer="none")
    tree = bpe_core.merge_tree(tok, tok.model.vocab["<b>"])
    trace = tree_figure(tree).data[0]
    assert trace.labels == ("&lt;b&gt;<br>rank 1", "&lt;b<br>rank 0", "&lt;", "b", "&gt;")
    assert all("<b>" not in text and "&lt;b&gt;" in text for text in trace.hovertext[:1])
    assert trace.hovertext[0] == "&lt;b&gt; (id 4)<br>rank 1: &lt;b + &gt;"


def test_tree_tables():
    result, tree = textbook_tree()
    frame = tree_merges_frame(tree, display_of(result))
    assert frame["rank"].tolist() == [0, 1, 2, 5, 6, 7]
    assert frame.iloc[-1].tolist() == [7, "new", "est</w>", "newest</w>", 18, 8, 6]
    es = tree.right.left.left
    assert places_frame(es.places).values.tolist() == [
        ["newest", 6, 3, "n e w [e s] t </w>"],
        ["widest", 3, 3, "w i d [e s] t </w>"],
    ]
    assert mark_pair(("a", "b", "c"), 1) == "a [b c]"
    plain = tree_merges_frame(bpe_core.merge_tree(result.tokenizer, 18))
    assert list(plain.columns) == ["rank", "left", "right", "token", "id"]
    rows = tokens_frame(result.tokenizer, [18, 1])
    assert rows.iloc[0].tolist() == [18, "newest</w>", 7, "new", "est</w>"]
    assert rows.iloc[1][["id", "token", "left", "right"]].tolist() == [1, "e", "", ""]
    assert rows["rank"].isna().tolist() == [False, True]


def test_tree_summaries():
    result, tree = textbook_tree()
    assert tree_summary(tree) == (
        "“newest</w>” (id 18) is built from 7 base symbols by 6 merges (ranks 0 to 7), 4 levels deep."
    )
    leaf = bpe_core.merge_tree(result, 1)
    assert tree_summary(leaf) == "“e” (id 1) is a base symbol: no merge formed it."
    gpt2 = bpe_core.formats.bundled("gpt2")
    assert tree_summary(bpe_core.merge_tree(gpt2, 50256)) == (
        "“<|endoftext|>” (id 50,256) is a special token: it is cut out of the text before pre-tokenization and "
        "BPE, so no merge forms it and it has no merge tree."
    )
    assert tree_figure(bpe_core.merge_tree(gpt2, 50256)).data[0].hovertext == (
        "&lt;|endoftext|&gt; (id 50,256)<br>special token",
    )
    char = train("café", num_merges=2).tokenizer.with_fallback("bytes")
    byte = bpe_core.merge_tree(char, char.model.byte_fallback_ids[0xC3])
    assert tree_summary(byte) == (
        f"“<0xC3>” (id {byte.token_id:,}) is a fallback token: it stands for a byte or character outside the base "
        "alphabet, so no merge forms it and it has no merge tree."
    )


def test_verdict_tables():
    report = check_merges(LOW, CLAIM)
    frame = verdict_frame(report)
    assert frame["holds"].tolist() == ["✓", "✓", "✗", "✗", "✗"]
    assert frame.iloc[2]["true merge"] == "est + </w>"
    styled = highlight_row(frame, report.first_wrong).to_html()
    assert styled.count(WRONG_STYLE.split(";")[0]) >= 1
    assert (
        verdict_sentence(report)
        == "The claim is wrong from merge 3: (l, o) has 7, but the merge here is (est, </w>) with 9."
    )
    top = top_pairs_frame(report.steps[2])
    assert top.iloc[:2].values.tolist() == [["est + </w>", 9, "merged here"], ["l + o", 7, "claimed"]]
    assert settings_frame(find_settings(LOW, CLAIM)).iloc[0].tolist() == ["whitespace", "none", "first_seen", 1]
    holding = check_merges(LOW, CLAIM, pretokenizer="whitespace")
    assert verdict_sentence(holding) == "All 5 claimed merges hold under first_seen, with no end-of-word marker."
    assert verdict_markdown(holding) == verdict_sentence(holding)
    jm = check_merges(JM, JM_CLAIM, marker="_")
    assert verdict_markdown(jm) == (
        "All 8 claimed merges hold under first_seen, with `_` as a separate end-of-word marker, a symbol of its "
        "own after each word (`l o w _`)."
    )
    escaped = verdict_markdown(check_merges(LOW, [("**a**", "b")]))
    assert escaped.startswith(r"The claim is wrong from merge 1\: \(\*\*a\*\*")


def test_encoding_tables():
    report = check_encoding([("a", "a"), ("aa", "aa")], "aaaa", ["a a a a", "aa aa", "aaaa"], pretokenizer="none")
    frame = encoding_frame(report)
    assert frame.columns.tolist() == ["state", "claimed", "rank", "sequential", "leftmost"]
    assert frame["leftmost"].tolist() == ["a a a a", "✗ aa a a", "✗ aa aa", "✗ aaaa"]
    assert frame["claimed"].tolist() == ["a a a a", "aa aa", "aaaa", "—"]
    assert encoding_sentence(report) == "rank: holds; sequential: holds; leftmost: wrong from state 1."
    short = check_encoding([("a", "a")], "aa", ["a a"], pretokenizer="none")
    assert encoding_sentence(short).startswith("rank: the claim stops after state 0 but a merge still applies")


# ----------------------------------------------------------------- the glitch-token audit


TEXTBOOK = " ".join(["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3)


def test_the_merge_list_marks_audited_tokens():
    result = train(TEXTBOOK, num_merges=10)
    tok = result.tokenizer
    audit = bpe_core.audit_vocabulary(tok, TEXTBOOK)
    ids = [tok.model.vocab[s] for s in ("est", "newest</w>", "s")]
    frame = tokens_frame(tok, ids, display_of(result), audit)
    assert list(frame.columns) == ["id", "token", "rank", "left", "right", "uses", "audit"]
    assert frame["uses"].tolist() == [0, 6, 0]
    assert frame["audit"].tolist() == ["scaffold", "", "scaffold"]  # the main finding: a scaffold is never used
    without_corpus = tokens_frame(tok, ids, display_of(result), bpe_core.audit_vocabulary(tok))
    assert list(without_corpus.columns) == ["id", "token", "rank", "left", "right", "audit"]


def test_audit_lists_and_summary():
    made = Tokenizer.from_merges([("e", "r</w>"), ("x", "e"), ("xe", "r</w>")], end_of_word="attached")
    audit = bpe_core.audit_vocabulary(made, "xer xe")
    frame = audit_frame(made, audit, "unreachable")
    assert frame.to_dict("records") == [
        {
            "id": made.model.vocab["xer</w>"],
            "token": "xer</w>",
            "bytes": "xer ",
            "uses": 0,
            "audit": "unreachable · never used",
            OWN_TEXT: "x | er</w>",
        }
    ]
    assert audit_ids(audit, "partial_utf8") == ()
    summary = audit_summary(audit, "two words")
    assert summary.startswith("Of 9 tokens: ")  # attached </w>: no symbol of its own is left out
    separate = train(TEXTBOOK, num_merges=10).tokenizer
    assert len(separate) == 21 and audit_summary(bpe_core.audit_vocabulary(separate)).startswith(
        "Of 20 tokens (the end-of-word symbol </w> aside): "
    )
    gpt2 = bpe_core.formats.bundled("gpt2")
    assert audit_summary(bpe_core.audit_vocabulary(gpt2)).startswith("Of 50,256 tokens (1 special token aside): ")
    assert "0 partial UTF-8 (bytes that are no text on their own), 1 unreachable (their own text" in summary
    assert "Encoding two words gives 4 tokens" in summary
    assert "Give a corpus" in audit_summary(bpe_core.audit_vocabulary(made))
    assert audit_headline(audit) == (
        "of 9 audited: 0 partial UTF-8, 1 unreachable, 6 never used in the corpus (3 of them scaffolds)."
    )
    assert audit_headline(bpe_core.audit_vocabulary(made)).endswith(": 0 partial UTF-8, 1 unreachable.")
    assert set(AUDIT_VIEWS.values()) == {"unreachable", "partial_utf8", "never_used", "scaffold"}


def test_byte_tokens_that_are_no_text_show_as_hex():
    gpt2 = bpe_core.formats.bundled("gpt2")
    audit = bpe_core.audit_vocabulary(gpt2, "hello")
    frame = audit_frame(gpt2, audit, "partial_utf8", display_of(gpt2), limit=3)
    assert len(frame) == 3 and all(b.startswith("⟨") and b.endswith("⟩") for b in frame["bytes"])
    assert frame["uses"].tolist() == [0, 0, 0]


def test_the_unseen_tokens_lesson():
    result = train(UNSEEN_TOKENIZER_TEXT, num_merges=UNSEEN_MERGES)
    body = unseen_lesson(result.tokenizer, UNSEEN_TOKENIZER_TEXT, UNSEEN_MODEL_TEXT, display_of(result))
    first = body.table.iloc[0]
    assert first[["token", "in tokenizer text", "in model text", "why"]].tolist() == [
        "solidgoldmagikarp</w>",
        4,
        0,
        "only in the tokenizer's text",
    ]
    scaffolds = body.table[body.table["in tokenizer text"] == 0]
    assert "solidg" in scaffolds["token"].tolist() and "est" in scaffolds["token"].tolist()
    assert set(scaffolds["why"]) == {"scaffold: every occurrence went into a longer token"}
    assert len(result.tokenizer) == 41  # 15 letters, the separate </w>, 25 merges' tokens
    assert body.summary == (
        "Encoding the model's text uses 11 of the vocabulary's 41 tokens (ids 0 to 40, </w> included). The model "
        "never sees the other 30: 1 token of the tokenizer's text that the model's text lacks, and 29 tokens that "
        "even the tokenizer's own text never gives (a longer token took every occurrence)."
    )
    assert body.token_width >= 8 * len("solidgoldmagikarp</w>")  # the longest token is seen whole
    # a model text of one word never ends a word in </w> alone: </w> is listed, and the counts still add up
    word = unseen_lesson(result.tokenizer, UNSEEN_TOKENIZER_TEXT, "solidgoldmagikarp", display_of(result))
    assert word.summary.startswith("Encoding the model's text uses 1 of the vocabulary's 41 tokens (ids 0 to 40, ")
    assert "The model never sees the other 40: " in word.summary and len(word.table) == 40
    marker = word.table[word.table["token"] == "</w>"].iloc[0]
    assert marker[["in tokenizer text", "why"]].tolist() == [2, "only in the tokenizer's text"]  # after 'lower'
    assert text_width(["ab"], "token") == 8 * 5 + 24 and text_width(["x" * 1000]) == 400

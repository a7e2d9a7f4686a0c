"""How tokens are shown in headings, captions and tables: long tokens cut with their length, and the
end-of-word marker kept readable after right-to-left text."""

from __future__ import annotations

import bpe_core
from viz.tokens import FSI, LRI, PDI, display_for, display_of, shown_key, shown_token
from viz.train_tables import merges_frame, pair_counts_frame, tie_explanation


def test_the_marker_after_hebrew_is_isolated_left_to_right():
    show = display_for("char", True)
    assert show("ם</w>") == FSI + "ם" + PDI + LRI + "</w>" + PDI
    assert show("של") == FSI + "של" + PDI
    assert show("e</w>") == "e</w>" and show("low") == "low"  # left-to-right text is left as it was


def test_long_tokens_are_cut_with_their_length():
    show = display_for("char", True)
    assert show("a" * 21_445 + "</w>") == "a" * 40 + "…</w> (21,445 characters)"
    assert show("a" * 40) == "a" * 40
    assert shown_token("ש" * 50, True) == FSI + "ש" * 40 + "…" + PDI + LRI + "</w>" + PDI + " (50 characters)"
    assert shown_token("a b" * 20) == ("a·b" * 20)[:40] + "… (60 characters)"
    key = "'" + "x" * 300 + "' 'y' (smallest wins)"
    assert shown_key(key) == key[:120] + f"… ({len(key):,} characters)"


def test_training_tables_cut_long_tokens():
    result = bpe_core.train("a" * 4096, num_merges=12, pretokenizer="none", min_frequency=1, tie_break="alphabetical")
    show = display_of(result)
    assert result.steps[-1].token == "a" * 4096
    rules = merges_frame(result, show=show)
    assert rules["token"].iloc[-1] == "a" * 40 + "… (4,096 characters)"
    assert max(len(t) for t in rules["token"]) < 70
    assert all(len(v) < 70 for v in pair_counts_frame(result.steps[-1], show)[["left", "right"]].values.ravel())
    assert len(tie_explanation(result.steps[-1], show)) < 400

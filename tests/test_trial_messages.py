"""Messages and table cells a user trial found hard to read: thousands separators, closed quotes, blank cells."""

from __future__ import annotations

import re

import pytest

import bpe_core
from bpe_core.analysis.checking import check_merges
from viz.checking import highlight_row, verdict_frame


def test_stop_reasons_group_thousands():
    r = bpe_core.train("ab ab cd", num_merges=2000, pretokenizer="whitespace", min_frequency=1)
    assert r.stop_reason == "stopped after 2 of 2,000 merges: no pair is left (every word is a single token)"
    r = bpe_core.train("ab ab cd", num_merges=1500, pretokenizer="whitespace", min_frequency=1200)
    assert r.stop_reason == (
        "stopped after 0 of 1,500 merges: the most frequent pair occurs 2 times, below min_frequency=1,200"
    )


def test_a_long_special_token_is_quoted_and_closed():
    with pytest.raises(bpe_core.BPEError) as info:
        bpe_core.train("ab ab", num_merges=1, special_tokens=["x" * 3000])
    assert re.search(r"; 'x{24}'… \(3,000 characters\) is too long$", str(info.value)), str(info.value)


def test_a_claim_without_counts_leaves_the_count_cells_blank():
    report = check_merges({"low": 5, "lower": 2}, [(("l", "o"), None), (("lo", "w"), 7)])
    html = highlight_row(verdict_frame(report), report.first_wrong).to_html()
    assert "None" not in html and "&lt;NA&gt;" not in html and "nan" not in html
    assert ">7<" in html


def test_missing_counts_are_blank_text_not_numbers_and_counts_group_thousands():
    """st.dataframe draws a missing number as a grey "None" whatever the Styler says (trial A, item 7): the
    count columns that may be empty are text, blank where there is no count."""
    report = check_merges({"low": 1234, "lower": 2}, [(("l", "o"), None), (("lo", "w"), 1236), (("x", "y"), 5)])
    frame = verdict_frame(report)
    assert frame["claimed count"].tolist() == ["", "1,236", "5"]
    assert frame["true count"].tolist() == ["1,236", "1,236", "1,234"]
    assert frame["count of the claimed pair"].tolist() == [1236, 1236, 0]
    stopped = verdict_frame(
        check_merges({"ab": 1}, [("a", "b"), ("x", "y")], pretokenizer="whitespace", min_frequency=1)
    )
    assert stopped["true count"].tolist() == ["1", ""] and stopped["true merge"].tolist() == ["a + b", "—"]
    assert ">1,236<" in highlight_row(frame, None).to_html()


def test_check_corpus_opens_in_train_only_when_it_fits_the_paste_box():
    from bpe_core import CheckSettings
    from ui.checking import read_corpus
    from ui.corpus import MAX_PASTE_CHARS

    plain = CheckSettings("whitespace_eow", "separate", "first_seen", 2)
    fits = read_corpus("low 5\nlower 2", "Detect")
    assert fits.train_text(plain) == ("low low low low low lower lower", "")
    sentencepiece = CheckSettings("whitespace", "separate", "first_seen", 2, "char", "▁")
    assert fits.train_text(sentencepiece) == ("▁low ▁low ▁low ▁low ▁low ▁lower ▁lower", "")  # the marker's words
    text = "ab " * (MAX_PASTE_CHARS // 3 + 1)
    long_text = read_corpus(text, "Text")
    assert long_text.corpus == text
    cut, why = long_text.train_text(plain)
    assert cut == "" and "this text has 20,001 characters" in why and "(Source: Upload)" in why
    counts = read_corpus("low 10000000", "Detect")  # 40 MB of text if built: only its length is worked out
    cut, why = counts.train_text(plain)
    assert counts.counted and cut == "" and "39,999,999 characters" in why

"""Hostile text that spells the engine's own markers (issue 12, items 10, 14 and the ``<0xNN>`` twin of 11).

A corpus may type ``</w>``, ``<0x41>`` or nothing but special tokens. The Train page must draw typed
text as text and only the end-of-word marker as the marker (drawn from ids, not strings); encoding
must keep the word boundaries that ``whitespace_eow`` keeps; and an export whose format cannot hold
two ids with one string must refuse with the true reason.
"""

from __future__ import annotations

import html
import re

import pytest

from bpe_core import MARKER, train
from bpe_core.formats import ExportError, export
from bpe_core.formats.export import prove
from viz.corpus_strip import corpus_strip, corpus_strip_html, excerpt_pieces
from viz.encode_views import piece_views
from viz.tokens import change_html

TYPED = "x</w>y ab</w> " * 3
"""Words that type the marker's four characters: in the middle of a word and at its end."""


def _boxes(markup: str) -> list[tuple[str, str, str]]:
    """``(classes, title, label)`` per token box of escaped HTML (label: the text drawn, marker span apart)."""
    out = []
    for chunk in markup.split('<span class="bpe-tok')[1:]:
        classes = "bpe-tok" + chunk[: chunk.index('"')]
        title = html.unescape(re.search(r'title="([^"]*)"', chunk).group(1))
        label = chunk[chunk.index(">") + 1 :]
        label = re.split(r"<span class=\"bpe-eow\"|<small>|</span>", label)[0]
        marker = '<span class="bpe-eow">' in chunk.split('<span class="bpe-tok')[0]
        out.append((classes + (" +marker" if marker else ""), title, html.unescape(label).replace("\xa0", "")))
    return out


@pytest.fixture(scope="module")
def typed():
    result = train(TYPED, num_merges=12, pretokenizer="whitespace_eow", end_of_word="separate")
    literal = next(s.token_id for s in result.summaries if s.token == MARKER)  # '<' '/' 'w' '>' merged
    marker = result.tokenizer.model.table.marker_id
    assert literal != marker  # the typed text and the marker are two symbols that spell one string
    return result, literal, marker


def test_rewritten_words_draw_a_typed_marker_as_text_and_the_marker_as_the_marker(typed):
    result, literal, marker = typed
    k = next(k for k, s in enumerate(result.summaries) if s.token_id == literal)
    change = next(w for w in result.steps[k].words if w.word == "x</w>y")
    assert change.after_ids == (result.vocab["x"], literal, result.vocab["y"], marker)
    boxes = _boxes(change_html(change, result.tokenizer))
    after = boxes[len(change.before) :]
    assert [(label, "+marker" in classes) for classes, _t, label in after] == [
        ("x", False),
        ("</w>", False),  # typed: its four characters, no marker
        ("y", False),
        ("", True),  # the marker: drawn as the marker
    ]
    assert "bpe-new" in after[1][0] and f"id {literal}" in after[1][1] and f"id {marker}" in after[3][1]
    assert result.steps[k].words == tuple(w for w in result.word_changes(k) if w in result.steps[k].words)


def test_a_typed_marker_that_ends_a_token_is_not_taken_for_the_marker(typed):
    result, _literal, marker = typed
    # 'a' 'b' '<' '/' 'w' '>' merged: no marker, though its string ends in '</w>'
    typed_ab = next(s.token_id for s in result.summaries if s.token == "ab</w>")
    assert not result.tokenizer.model.token_ends_word(typed_ab) and result.tokenizer.model.token_ends_word(marker)
    k = next(k for k, s in enumerate(result.summaries) if s.token_id == typed_ab)
    (change,) = result.word_changes(k)
    boxes = _boxes(change_html(change, result.tokenizer))
    assert [(label, "+marker" in c) for c, _t, label in boxes[-2:]] == [("ab</w>", False), ("", True)]


def test_the_corpus_strip_draws_from_ids(typed):
    result, literal, marker = typed
    k = next(k for k, s in enumerate(result.summaries) if s.token_id == literal)
    strip = corpus_strip(result, excerpt_pieces(TYPED, "whitespace_eow", ()), k)
    by_id = {v.token_id: v for v in strip.views}
    assert (by_id[literal].text, by_id[literal].end_of_word, by_id[literal].new) == ("</w>", False, True)
    assert (by_id[marker].text, by_id[marker].end_of_word) == ("", True)
    labels = [(label, "+marker" in c) for c, _t, label in _boxes(corpus_strip_html(strip))]
    assert labels[:4] == [("x", False), ("</w>", False), ("y", False), ("", True)]
    assert MARKER not in "".join(v.text for v in strip.views if v.end_of_word)


# ---------------------------------------------------------------- item 14: text made of special tokens

SPECIALS = ("<a>", "<b>")


@pytest.fixture(scope="module", params=["separate", "attached"])
def eow_tokenizer(request):
    return train("ab ab <a> x <b> ab", num_merges=3, end_of_word=request.param, special_tokens=SPECIALS).tokenizer


@pytest.mark.parametrize("text", ["<a> <b>", "<a> <b> <a>", "ab <a> <b> ab", "<a> ab", "ab <a>", "x <b> <b> x"])
def test_special_tokens_are_words_of_their_own_under_whitespace_eow(eow_tokenizer, text):
    """Words and special tokens apart by one space: the text whitespace_eow keeps whole, so it round-trips."""
    tok = eow_tokenizer
    ids = tok.encode(text, allowed_special="all")
    assert tok.decode(ids) == text and tok.round_trip(text, allowed_special="all").ok
    assert ids == tok.encode_with_trace(text, allowed_special="all").ids  # the ids did not change to get there
    specials = [p for p in tok.encode_with_trace(text, allowed_special="all").pieces if p.special]
    assert specials and all(p.ends_word == (True,) for p in specials)


def test_only_special_tokens_keep_the_space_between_them(eow_tokenizer):
    tok = eow_tokenizer
    a, b = (tok.specials.ids[s] for s in SPECIALS)
    assert tok.encode("<a> <b>", allowed_special="all") == [a, b]
    assert tok.decode([a, b]) == "<a> <b>" and tok.decode([a]) == "<a>" and tok.decode([b, a, b]) == "<b> <a> <b>"


def test_what_whitespace_eow_cannot_keep_is_named(eow_tokenizer):
    tok = eow_tokenizer
    glued = tok.round_trip("<a><b>", allowed_special="all")
    assert not glued.ok and glued.decoded == "<a> <b>" and glued.position == 3
    assert "a special token is a word of its own: decoding puts one space after the one that ends at" in glued.reason
    before = tok.round_trip("ab<a> ab", allowed_special="all")
    assert before.decoded == "ab <a> ab" and "one space before the one that starts at position 2" in before.reason


def test_other_pre_tokenizers_decode_special_tokens_as_they_are():
    for pre in ("gpt2", "whitespace"):
        tok = train("ab ab <a> x <b> ab", num_merges=3, pretokenizer=pre, special_tokens=SPECIALS).tokenizer
        assert tok.decode(tok.encode("ab<a><b>", allowed_special="all")) == "ab<a><b>"


def test_the_encode_page_keeps_and_shows_the_space_between_special_tokens():
    from streamlit.testing.v1 import AppTest

    from ui import state

    from .conftest import APP_TIMEOUT
    from .test_app import APP, encode_page, submit

    at = AppTest.from_file(APP, default_timeout=APP_TIMEOUT).run()
    at.text_input(key=state.SPECIALS).set_value("<s>, </s>")
    submit(at)
    encode_page(at)
    at.toggle(key=state.ALLOW_SPECIAL).set_value(True)
    at.text_area(key=state.ENCODE_TEXT).set_value("<s> </s> <s>").run()
    assert not at.exception and not at.warning
    assert at.code[0].value == "<s> </s> <s>" and at.code[1].value == "0, 1, 0"
    assert at.success[0].value.startswith("Round trip holds")
    row = at.get("html")[0].proto.body
    assert row.count('class="bpe-tok bpe-special bpe-end"') == 3 and row.count('class="bpe-eow"') == 3
    assert any("the text is 3 special token(s), each encoded as its own id" in c.value for c in at.caption)


# ---------------------------------------------------------------- a typed '<0xNN>' and the bytes fallback

TYPED_BYTES = "ab <0x41> ab <0x41> x<0x41>y " * 3


@pytest.mark.parametrize("pre, eow", [("whitespace", None), ("whitespace_eow", "separate"), ("gpt2", None)])
def test_a_typed_byte_token_name_and_the_bytes_fallback_refuse_with_the_true_reason_or_stay_exact(pre, eow):
    """Like WikiText's '<unk>' (item 11), but the typed '<0x41>' stands for six characters and the
    fallback's for one byte: they cannot share an id, so a format that maps strings to ids must refuse."""
    kw = {"end_of_word": eow} if eow else {}
    tok = train(TYPED_BYTES, num_merges=40, pretokenizer=pre, **kw).tokenizer.with_fallback("bytes")
    text = "<0x41> Ω ab x<0x41>y"
    ids = tok.encode(text)
    assert tok.decode(ids) == tok.decode(tok.encode(tok.decode(ids)))
    typed = [i for i, s in enumerate(tok.model.table.strings) if s == "<0x41>" and i not in tok.model.byte_fallback_ids]
    clashes = 0
    for fmt in ("hf_json", "gpt2", "tiktoken", "subword_nmt", "session"):
        try:
            files = export(tok, fmt)
        except ExportError as exc:
            assert "two different merges" not in str(exc)
            if "two ids" in str(exc):
                assert typed and f"id {typed[0]} was learned by merge rank" in str(exc)
                assert "is the bytes fallback's token for the byte 0x41" in str(exc)
                clashes += 1
            continue
        assert prove(tok, fmt, text).ok, fmt
        if fmt == "hf_json":
            tokenizers = pytest.importorskip("tokenizers", reason="Hugging Face tokenizers is a test-only dependency")
            hf = tokenizers.Tokenizer.from_str(files["tokenizer.json"].decode())
            assert hf.encode(text, add_special_tokens=False).ids == ids
    if pre != "gpt2":  # the regex pre-tokenizer cuts '<0x41>' apart: nothing learned spells it
        assert typed and tok.decode([typed[0]]) == "<0x41>" and tok.decode([tok.model.byte_fallback_ids[0x41]]) == "A"
        assert clashes >= 1


def test_the_encode_pages_final_tokens_are_drawn_from_ids(typed):
    """The Encode page's "Final tokens" row (viz.encode_views.piece_views) reads the trace's ids, not strings."""
    result, literal, marker = typed
    tok = result.tokenizer
    (piece,) = tok.encode_with_trace("</w>x").pieces
    assert piece.ids == (literal, result.vocab["x"], marker)
    assert [(v.text, v.end_of_word) for v in piece_views(piece)] == [("</w>", False), ("x", False), ("", True)]
    byte_tok = train(TYPED_BYTES, num_merges=40, pretokenizer="whitespace").tokenizer.with_fallback("bytes")
    (piece,) = byte_tok.encode_with_trace("<0x41>Ω").pieces
    views = piece_views(piece)
    assert [(v.raw, v.fallback) for v in views] == [("<0x41>", False), ("<0xCE>", True), ("<0xA9>", True)]
    assert views[0].token_id != byte_tok.model.byte_fallback_ids[0x41]

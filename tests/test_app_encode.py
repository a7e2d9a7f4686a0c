"""The Encode page on long repeated runs (issue 18) and with BPE-dropout (issue 21 item 4), as a user drives it.

A long run of ``-``, ``=`` or spaces pasted from Markdown or code used to end the page in a MemoryError inside the
merge loop (20,000 x 'a' on cl100k_base). Each bundled table must now answer with its tokens, the rule table and the
player for that one long pre-token.
"""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from bpe_core.formats import bundled
from ui import state
from ui.corpus import MAX_ENCODE_CHARS

from .test_app import captions, encode_page, fresh, metrics, submit

STORY = state.STORY_PLAYER


@pytest.fixture()
def at() -> AppTest:
    app = fresh()
    assert not app.exception
    return app


@pytest.mark.parametrize("label", ["GPT-2", "cl100k_base", "o200k_base"])
@pytest.mark.parametrize("char", ["a", "-", " "])
def test_encode_page_answers_a_20000_character_run(at, label, char):
    encode_page(at)
    at.radio(key=state.ENCODE_TOKENIZER).set_value(label).run()
    text = char * MAX_ENCODE_CHARS
    at.text_area(key=state.ENCODE_TEXT).set_value(text).run()
    assert not at.exception, at.exception
    name = {"GPT-2": "gpt2"}.get(label, label)
    ids = bundled(name).encode(text)
    assert metrics(at)["tokens"] == f"{len(ids):,}"
    assert not any("too long for the player" in c for c in captions(at))
    # the player steps through the longest pre-token without storing its states
    pieces = at.selectbox(key=state.ENCODE_PIECE)
    longest = max(pieces.options, key=lambda o: int(o.rsplit("→ ", 1)[1].split()[0].replace(",", "")))
    pieces.set_value(longest).run()
    if any(b.key == STORY.last for b in at.button):  # no player when no rule applies (GPT-2 has no '  ' token)
        at.button(key=STORY.last).click().run()
    assert not at.exception, at.exception
    assert any(c.startswith("Done:") for c in captions(at))


SENNRICH = " ".join(["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3)


def test_encode_page_lists_n_e_blocked_by_e_s_in_nest(at):
    at.segmented_control(key=state.SOURCE).set_value("Paste").run()
    at.text_area(key=state.PASTE).set_value(SENNRICH)
    submit(at)
    encode_page(at)
    at.text_area(key=state.ENCODE_TEXT).set_value("nest").run()
    assert not at.exception
    blocked = next(df.value for df in at.dataframe if "what" in df.value.columns)
    row = blocked[(blocked["left"] == "n") & (blocked["right"] == "e")].iloc[0]
    assert (row["what"], row["step"]) == ("a symbol taken", "1")
    assert "rule 0 ('e', 's') has a lower rank and merged 'e' into 'es' first, at step 1" in row["why"]
    at.button(key=STORY.last).click().run()
    assert any("n + e: rank 0 took a symbol first, at step 1" in c for c in captions(at))


def test_encode_page_draws_dropout_samples_and_plays_one(at):
    encode_page(at)
    at.radio(key=state.ENCODE_TOKENIZER).set_value("cl100k_base").run()
    at.text_area(key=state.ENCODE_TEXT).set_value("unbelievable tokenization").run()
    at.toggle(key=state.ENCODE_DROPOUT).set_value(True).run()
    at.slider(key=state.ENCODE_DROPOUT_PERCENT).set_value(40).run()
    at.number_input(key=state.ENCODE_DROPOUT_SAMPLES).set_value(3).run()
    at.number_input(key=state.ENCODE_DROPOUT_SEED).set_value(7).run()
    assert not at.exception, at.exception
    tok = bundled("cl100k_base")
    for k, seed in enumerate((7, 8, 9), start=1):
        n = len(tok.encode("unbelievable tokenization", dropout=0.4, seed=seed))
        assert any(m.value.startswith(f"**Sample {k}** (seed {seed}): {n} tokens") for m in at.markdown)
    # the pre-token side by side in every sample, and the player on sample 2 lists the merges dropout skipped
    at.radio(key=state.ENCODE_DROPOUT_PLAY).set_value("sample 2").run()
    assert not at.exception, at.exception
    piece = tok.encode_with_trace("unbelievable tokenization", dropout=0.4, seed=8).pieces[0]
    assert any(c.startswith(f"sample 2: {len(piece.ids)} tokens") for c in captions(at))
    if piece.steps and piece.steps[0].dropped:
        assert any("BPE-dropout skipped" in c for c in captions(at))
    steps = next(df.value for df in at.dataframe if "positions" in df.value.columns)
    assert "dropped" in steps.columns or not any(s.dropped for s in piece.steps)
    # p = 100 %: every pre-token stays in its bytes
    at.slider(key=state.ENCODE_DROPOUT_PERCENT).set_value(100).run()
    n = len(b"unbelievable tokenization")
    assert any(m.value.startswith(f"**Sample 1** (seed 7): {n} tokens") for m in at.markdown)


def test_a_dropout_link_opens_with_its_samples_and_bad_values_are_ignored():
    from .test_app import opened_link

    params = {
        state.ENCODE_TEXT: "lowest",
        state.ENCODE_DROPOUT: "true",
        state.ENCODE_DROPOUT_PERCENT: "30",
        state.ENCODE_DROPOUT_SEED: "inf",
        state.ENCODE_DROPOUT_SAMPLES: "99",
    }
    at = opened_link(params, "pages/encode.py")
    assert not at.exception
    assert any("ignored" in w.value for w in at.warning)
    assert at.toggle(key=state.ENCODE_DROPOUT).value is True


def skipped_in(text: str) -> int:
    """The count in "... 3 merges skipped ..." (a sample row or a pre-token's caption)."""
    return int(re.search(r"([\d,]+) merges? skipped", text).group(1).replace(",", ""))


def sample_counts(at: AppTest) -> list[int]:
    """Each sample row's count of skipped merges, sample 1 first."""
    return [skipped_in(m.value) for m in at.markdown if m.value.startswith("**Sample ")]


def piece_counts(at: AppTest) -> list[int]:
    """The shown pre-token's count of skipped merges in each sample (the side-by-side captions, no dropout left out)."""
    return [skipped_in(c) for c in captions(at) if re.match(r"sample \d+: ", c)]


def test_a_sample_row_counts_the_skipped_merges_its_pre_tokens_show():
    """Trial A item 2: p = 30 %, seed 7, 'lowering unbelievable': sample 2's row said 3 merges skipped, the
    pre-token 'lowering' alone 4 (the row left out the merges skipped at each pre-token's last attempt)."""
    from .test_app import opened_link

    params = {
        state.ENCODE_TEXT: "lowering unbelievable",
        state.ENCODE_DROPOUT: "true",
        state.ENCODE_DROPOUT_PERCENT: "30",
        state.ENCODE_DROPOUT_SAMPLES: "3",
        state.ENCODE_DROPOUT_SEED: "7",
    }
    at = opened_link(params, "pages/encode.py")
    rows = sample_counts(at)
    per_piece = []
    for label in at.selectbox(key=state.ENCODE_PIECE).options:
        at.selectbox(key=state.ENCODE_PIECE).set_value(label).run()
        assert not at.exception, at.exception
        per_piece.append(piece_counts(at))
    assert len(rows) == 3 and len(per_piece) == 2
    assert rows == [sum(counts) for counts in zip(*per_piece)]
    assert per_piece[0][1] == 4  # 'lowering' in sample 2, as the trial read it


def test_at_p_one_every_sample_row_counts_the_merges_skipped_at_the_end():
    """Trial A item 2: at p = 100 % nothing merges, every skip is at the last attempt; the rows said 0."""
    from .test_app import default_result, opened_link

    params = {state.ENCODE_DROPOUT: "true", state.ENCODE_DROPOUT_PERCENT: "100", state.ENCODE_DROPOUT_SAMPLES: "2"}
    at = opened_link(params, "pages/encode.py")
    text = at.text_area(key=state.ENCODE_TEXT).value
    trace = default_result().tokenizer.encode_with_trace(text, dropout=1.0, seed=0)
    assert trace.skipped_merges > 0
    assert sample_counts(at) == [trace.skipped_merges] * 2
    first = next(p for p in trace.pieces if not p.special)
    assert piece_counts(at) == [first.skipped_merges] * 2


DROPOUT_LINK = {state.ENCODE_DROPOUT: "true", state.ENCODE_DROPOUT_PERCENT: "30", state.ENCODE_DROPOUT_SAMPLES: "3"}


def drawn(at: AppTest) -> list[tuple[str, str]]:
    """The page's elements in the order they are drawn: ``(type, label or value)``, containers' children in place."""
    out: list[tuple[str, str]] = []

    def walk(node) -> None:
        for child in getattr(node, "children", {}).values():
            out.append((child.type, str(getattr(child, "label", None) or getattr(child, "value", ""))))
            walk(child)

    walk(at.main)
    return out


def first(items: list[tuple[str, str]], kind: str, start: str) -> int:
    return next(i for i, (t, v) in enumerate(items) if t == kind and v.startswith(start))


def test_presentation_mode_with_dropout_puts_the_samples_first():
    """Trial A item 4: a dropout link in presentation mode drew its samples 1,277 px down, off the first screen.
    The inputs fold away and the samples follow the dropout controls, the plain tokens first, before the plain
    encoding's details."""
    from .test_app import opened_link

    at = opened_link({**DROPOUT_LINK, state.PRESENT: "true"}, "pages/encode.py")
    fold = next(e for e in at.expander if e.label == "Tokenizer, text and settings")
    assert fold.proto.expanded is False  # folded: the samples get the screen
    assert fold.text_area(key=state.ENCODE_TEXT).value.startswith("Hello")
    assert fold.radio(key=state.ENCODE_TOKENIZER).value == "Trained here"
    order = drawn(at)
    heading = first(order, "subheader", "BPE-dropout")
    plain_row = first(order, "markdown", "**No dropout** (Trained here): 44 tokens")
    samples = [first(order, "markdown", f"**Sample {k}**") for k in (1, 2, 3)]
    assert heading < plain_row < samples[0] < samples[1] < samples[2] < first(order, "metric", "characters")
    assert order[plain_row + 1][0] == "html" and "bpe-row" in order[plain_row + 1][1]  # the plain tokens' row
    assert first(order, "subheader", "Rule by rule") > samples[2]
    # the fold keeps what is typed, and the samples follow the text
    fold.text_area(key=state.ENCODE_TEXT).set_value("lowering unbelievable").run()
    assert not at.exception, at.exception
    assert any(m.value.startswith("**No dropout** (Trained here): 12 tokens") for m in at.markdown)
    # what the inputs ask for is said outside the fold
    at.radio(key=state.ENCODE_TOKENIZER).set_value("Uploaded file").run()
    assert not at.exception, at.exception
    assert any("under “Tokenizer, text and settings”" in i.value for i in at.info)


@pytest.mark.parametrize("params", [DROPOUT_LINK, {state.PRESENT: "true"}], ids=["dropout", "presentation"])
def test_the_page_keeps_its_layout_without_presentation_mode_or_without_dropout(params):
    """Only presentation mode with dropout folds the inputs: otherwise the plain tokens come first, then their
    details, then the dropout section."""
    from .test_app import opened_link

    at = opened_link(params, "pages/encode.py")
    assert "Tokenizer, text and settings" not in [e.label for e in at.expander]
    order = drawn(at)
    assert first(order, "text_area", "Text to encode") < first(order, "metric", "characters")
    assert first(order, "metric", "characters") < first(order, "subheader", "BPE-dropout")
    assert not any(v.startswith("**No dropout**") for _t, v in order)
    if at.toggle(key=state.ENCODE_DROPOUT).value:
        assert first(order, "subheader", "BPE-dropout") < first(order, "markdown", "**Sample 1**")

"""The Compare page (issue 13): defaults that differ, coinciding lines drawn visibly, what diverged,
controls without effect disabled with the reason, a tie-switch link that reproduces the screen, tabs."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

import bpe_core
from bpe_core.formats import bundled
from ui import state
from ui.cache import READY
from ui.corpus import MAX_ENCODE_CHARS
from ui.links import CMP_MAX_TEXT_CHARS
from ui.settings import TrainSettings
from viz.compare import coinciding, divergence, divergence_text, run_heading, text_under_runs, tokens_formed_twice

from .conftest import APP_TIMEOUT, REPO
from .test_app import seen

APP = str(REPO / "app.py")
PAGE = "pages/compare.py"


def compare(params: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=APP_TIMEOUT)
    at.switch_page(PAGE)
    at.query_params.update(params or {})
    at.run()
    assert not at.exception
    return at


def traces(at: AppTest, index: int) -> list[dict]:
    return json.loads(at.get("plotly_chart")[index].proto.spec)["data"]


def run(text: str, **changes) -> bpe_core.TrainResult:
    return bpe_core.train(text, **TrainSettings().with_(**changes).kwargs())


def test_divergence_names_what_each_run_learned_and_what_another_never_does():
    text = "low lower lowest newer newest wider widest " * 3
    results = {"A": run(text, budget=6), "B": run(text, budget=6, pretokenizer="gpt2", unit="byte")}
    d = divergence(results)
    assert d is not None and d.rank == 2  # both first learn the same two merges
    assert d.at_rank == (("A", "r + </w>"), ("B", "s + t"))
    assert d.unshared == (2, "A", "r + </w>", ("B",))  # byte-level B has no </w>
    assert divergence_text(d) == (
        "At merge 3: A learned “r + </w>”, B learned “s + t”. The first merge one run learned and another "
        "never does: merge 3 of A, “r + </w>” (B never learns it)."
    )
    assert divergence({"A": results["A"], "B": results["A"]}) is None


def test_divergence_under_another_tie_rule():
    # Ties broken differently: the tables part at the first tie.
    a = run("aaabdaaabac", pretokenizer="none", unit="byte", budget=3)
    b = run("aaabdaaabac", pretokenizer="none", unit="byte", budget=3, tie_break="alphabetical")
    d = divergence({"a": a, "b": b})
    assert d is not None and d.rank == 1
    assert d.at_rank == (("a", "aa + a"), ("b", "a + b"))
    assert d.unshared == (1, "a", "aa + a", ("b",))  # 'aa + a' is never learned under alphabetical


def test_coinciding_curves():
    curves = {"A": [100.0, 80.0, 70.0], "B": [100.0, 80.5, 70.0], "C": [100.0, 60.0, 50.0], "D": [1.0, 2.0]}
    assert coinciding(curves) == {"B": "A"}
    assert coinciding(curves, tolerance=0.0) == {}
    assert coinciding({"A": [1.0], "B": [1.0], "C": [1.0]}) == {"B": "A", "C": "A"}


def test_tokens_formed_twice():
    text = "low lower lowest newer newest wider widest " * 3
    assert tokens_formed_twice(run(text, budget=20)) == 0


def test_default_runs_draw_distinct_lines_and_page_is_grouped_in_tabs():
    at = compare({state.CMP_COUNT: "4"})
    assert [t.label for t in at.tabs] == ["Merge timelines", "Compression", "Vocabulary overlap", "Switch the tie rule"]
    for index in (0, 1):
        lines = traces(at, index)
        assert len(lines) == 4 and all(t["line"].get("dash") is None for t in lines)
        ys = [tuple(t["y"]) for t in lines]
        assert len(set(ys)) == 4
    assert not any(c.value.startswith("Dashed") for c in at.caption)
    assert at.info[0].value == "The tables first diverge at merge 1 (rank 0)."
    said = next(c.value for c in at.caption if c.value.startswith("At merge 1"))
    assert "never learns it" in said.replace("\\", "")


def test_coinciding_lines_are_dashed_and_named():
    at = compare({state.CMP_COUNT: "3", state.cmp_key(2, "pretokenizer"): "trailing_space"})
    lines = traces(at, 0)
    assert [t["name"] for t in lines][2] == "C: trailing_space/char (on top of A: whitespace_eow/char/separate)"
    assert lines[2]["line"]["dash"] == "dash"
    assert any(c.value.startswith("Dashed") for c in at.caption)


def test_controls_without_effect_are_disabled_with_the_reason():
    at = compare()
    eow_a, eow_b = at.selectbox(key=state.cmp_key(0, "end_of_word")), at.selectbox(key=state.cmp_key(1, "end_of_word"))
    assert not eow_a.disabled
    assert eow_b.disabled and "gpt2 ignores this setting" in eow_b.help
    order = at.selectbox(key=state.cmp_key(0, "order"))
    assert order.disabled and "Both orders give the same tokens here" in order.help


def test_tie_switch_link_reproduces_what_was_on_screen():
    at = compare()
    at.selectbox(key=state.cmp_key(0, "tie_break")).set_value("subword_nmt").run()
    shown_rule = at.selectbox(key=state.CMP_SWITCH_RULE).value
    shown = at.info[-1].value
    link = {state.cmp_key(0, "tie_break"): "subword_nmt"}
    if shown_rule != at.selectbox(key=state.CMP_SWITCH_RULE).options[0]:
        link[state.CMP_SWITCH_RULE] = shown_rule
    fresh = compare(link)
    assert fresh.selectbox(key=state.CMP_SWITCH_RULE).value == shown_rule
    assert fresh.info[-1].value == shown
    # a rule chosen on purpose stays, and goes into the link
    at.selectbox(key=state.CMP_SWITCH_RULE).set_value("hf_tokenizers").run()
    assert at.selectbox(key=state.CMP_SWITCH_RULE).value == "hf_tokenizers"
    chosen = compare(link | {state.CMP_SWITCH_RULE: "hf_tokenizers"})
    assert chosen.info[-1].value == at.info[-1].value


def test_switch_run_is_chosen_by_letter():
    at = compare()
    at.selectbox(key=state.CMP_SWITCH_RUN).set_value("B").run()
    assert at.selectbox(key=state.CMP_SWITCH_RULE).label == "Instead of first_seen"
    fresh = compare({state.CMP_SWITCH_RUN: "B", state.cmp_key(1, "tie_break"): "alphabetical"})
    assert fresh.selectbox(key=state.CMP_SWITCH_RULE).label == "Instead of alphabetical"


# ----------------------------------------------------------------- real tokenizers as runs (issue 21, item 5)


def test_text_under_runs_counts_characters_and_bytes_per_token():
    frame = text_under_runs("héllo wörld", {"A": ("trained", 300, [1, 2, 3, 4]), "B": ("GPT-2", 50257, [])})
    assert frame.to_dict("list") == {
        "run": ["A", "B"],
        "tokenizer": ["trained", "GPT-2"],
        "vocabulary": [300, 50257],
        "tokens": [4, 0],
        "chars per token": [2.75, 0.0],
        "bytes per token": [3.25, 0.0],
    }
    assert run_heading("GPT-2", 4, 11) == "**GPT-2**: 4 tokens, 2.75 chars per token"
    assert (
        run_heading("A: gpt2/byte", 0, 0, "rank order") == "**A: gpt2/byte**: 0 tokens, 0 chars per token (rank order)"
    )


def test_real_tokenizers_are_runs_beside_the_trained_ones():
    at = compare({state.CMP_TEXT: "Tokenizers see the same text differently: 東京, naïve, 🙂"})
    assert at.multiselect(key=state.CMP_REAL).value == ["GPT-2", "cl100k_base", "o200k_base"]
    shown = at.dataframe[0]
    table = shown.value
    assert list(table["run"]) == [
        "A: whitespace_eow/char/separate",
        "B: gpt2/byte",
        "GPT-2",
        "cl100k_base",
        "o200k_base",
    ]
    text = "Tokenizers see the same text differently: 東京, naïve, 🙂"
    for label, name in (("GPT-2", "gpt2"), ("cl100k_base", "cl100k_base"), ("o200k_base", "o200k_base")):
        row = table.set_index("run").loc[label]
        ids = bundled(name).encode(text)
        assert (row["tokens"], row["vocabulary"]) == (len(ids), len(bundled(name)))
        assert row["chars per token"] == round(len(text) / len(ids), 3)
    assert table.set_index("run").loc["GPT-2", "tokenizer"] == "GPT-2, 50,000 merges"
    formats = {name: c.get("type_config", {}).get("format") for name, c in json.loads(shown.proto.columns).items()}
    assert [formats[c] for c in ("vocabulary", "tokens", "chars per token", "bytes per token")] == [
        *["localized"] * 2,
        *["%.2f"] * 2,
    ], formats
    headings = [m.value for m in at.markdown if " chars per token" in m.value]
    assert headings[0].startswith("**A: whitespace_eow/char/separate**: 36 tokens, 1.50 chars per token")
    assert headings[2:] == [
        run_heading(label, int(table.set_index("run").loc[label, "tokens"]), len(text)) for label in READY
    ]
    assert all("bpe-tok" in h.proto.body for h in at.get("html")[:5])  # coloured tokens for every run


def test_the_train_page_table_joins_and_a_link_keeps_the_choice():
    at = compare({state.CMP_REAL: ["Train page's table", "o200k_base"]})
    table = at.dataframe[0].value
    assert list(table["run"])[2:] == ["Train page's table", "o200k_base"]
    kind = table.set_index("run").loc["Train page's table", "tokenizer"]
    assert kind == "the Train page's table: whitespace_eow/char, 200 merges"
    none = compare({state.CMP_REAL: ""})  # an empty parameter clears the choice: only the runs trained here
    assert list(none.dataframe[0].value["run"]) == ["A: whitespace_eow/char/separate", "B: gpt2/byte"]


# ----------------------------------------------------------------- the test text: bounded, encoded once (trial A)


def test_the_test_text_box_holds_as_much_as_the_encode_box_and_says_so():
    at = compare()
    box = at.text_input(key=state.CMP_TEXT)
    assert box.max_chars == CMP_MAX_TEXT_CHARS == MAX_ENCODE_CHARS
    assert any(seen(c.value).startswith("Up to 20,000 characters (every run encodes it)") for c in at.caption)
    box.set_value(("low lower newest widest " * 1000)[:CMP_MAX_TEXT_CHARS]).run()
    assert not at.exception
    assert any(seen(w.value).startswith("The box is full (20,000 characters).") for w in at.warning)
    assert at.dataframe[0].value.set_index("run").loc["GPT-2", "tokens"] > 0


def test_a_rerun_encodes_only_what_changed(monkeypatch):
    """Clicking Runs=3 trains run C and encodes the test text with it alone: the other runs' encodings come
    from the cache (counted: the trial measured 12 s of re-encoding for 100,000 characters)."""
    text = "A rerun encodes only what changed: Überprüfung 東京 🙂 run-count test"
    calls: list[str] = []
    encode_with_trace = bpe_core.Tokenizer.encode_with_trace

    def counted(self, text_: str, **kwargs):
        if text_ == text:
            calls.append(self.pre_tokenizer.name)
        return encode_with_trace(self, text_, **kwargs)

    monkeypatch.setattr(bpe_core.Tokenizer, "encode_with_trace", counted)
    at = compare({state.CMP_TEXT: text})
    assert len(calls) == 5  # runs A and B, GPT-2, cl100k_base, o200k_base
    calls.clear()
    at.segmented_control(key=state.CMP_COUNT).set_value(3).run()
    assert not at.exception
    assert calls == ["none"]  # run C (none/char) only
    assert list(at.dataframe[0].value["run"])[:3] == ["A: whitespace_eow/char/separate", "B: gpt2/byte", "C: none/char"]
    calls.clear()
    at.tabs[2].run()  # any rerun: nothing to encode
    at.run()
    assert calls == []


@pytest.mark.parametrize(
    ("params", "said"),
    [
        ({"cmp_budget": "99999999999999999999"}, "cmp_budget is not a setting of the Compare page (its numbers are "
         "cmp_merges, merges from 1 to 20,000, and cmp_n, runs from 2 to 4)"),
        ({state.CMP_BUDGET: "99999999999999999999"}, "cmp_merges must be at least 1 and at most 20,000"),
        ({state.CMP_COUNT: "9"}, "cmp_n must be at least 2 and at most 4, got 9"),
        ({state.cmp_key(0, "unit"): "word"}, "cmp_0_unit must be one of: char, byte; got 'word'"),
        ({state.cmp_key(3, "order"): "<b>x</b>"}, "cmp_3_order must be one of: rank, sequential; got '<b>x</b>'"),
        ({state.CMP_TEXT: "x" * 20_001}, "cmp_text holds 20,001 characters; the Compare page's test-text box "
         "holds 20,000"),
    ],
)  # fmt: skip
def test_bad_values_in_a_compare_link_are_ignored_with_the_notice(params, said):
    at = compare(params)
    notices = [seen(w.value) for w in at.warning]
    assert any(n.startswith("This link holds a value that cannot be used") and said in n for n in notices), notices
    assert at.number_input(key=state.CMP_BUDGET).value == 200 and at.segmented_control(key=state.CMP_COUNT).value == 2
    assert at.text_input(key=state.CMP_TEXT).value == "The quick brown fox doesn't jump; unbelievable!"
    assert at.selectbox(key=state.cmp_key(0, "unit")).value == "char"
    assert all(key not in at.query_params for key in params)

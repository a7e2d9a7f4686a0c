"""AppTest: the Token trees page, Encode's token picker and the Check an example page."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from bpe_core.analysis.audit import KINDS
from ui import state
from ui.provenance import AUDIT_ANCHOR

from .conftest import APP_TIMEOUT
from .test_app import APP, captions, opened_link, seen, subheaders, unfold

TREES = "pages/provenance.py"
CHECK = "pages/check.py"
ENCODE = "pages/encode.py"


def page(path: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=APP_TIMEOUT)
    at.switch_page(path)
    at.run()
    assert not at.exception
    return at


def icicle_labels(at: AppTest) -> list[str]:
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    return spec["data"][0]["labels"]


def errors(at: AppTest) -> list[str]:
    return [seen(e.value) for e in at.error]


# ----------------------------------------------------------------- Token trees


def test_trees_page_opens_on_the_first_merge_of_the_trained_table():
    at = page(TREES)
    table = at.dataframe[0].value
    assert list(table.columns) == ["id", "token", "rank", "left", "right", "uses", "audit"]
    assert table.iloc[0][["token", "rank", "left", "right"]].tolist() == ["e</w>", 0, "e", "</w>"]
    assert "“e</w>” (id 57) is built from 2 base symbols by 1 merge (rank 0), 1 level deep." in captions(at)
    assert icicle_labels(at) == ["e&lt;/w&gt;<br>rank 0", "e", "&lt;/w&gt;"]
    assert "Merge list: all 200 rules." in captions(at)
    # the trained table adds the training record and the link to the Train page
    assert any(c.startswith("Merge 1 of the training: the pair had a count of 350.") for c in captions(at))
    assert [b.label for b in at.button if b.key == "tree_train"] == ["Open the Train page at merge 1"]


def test_trees_page_searches_gpt2():
    at = page(TREES)
    at.radio(key=state.TREE_TOKENIZER).set_value("GPT-2").run()
    at.text_input(key=state.TREE_SEARCH).set_value(" the").run()
    assert not at.exception
    table = at.dataframe[0].value
    assert table.iloc[0][["id", "token", "rank", "left", "right"]].tolist() == [262, "·the", 6, "·t", "he"]
    assert "50 token(s) match, the exact one first." in captions(at)
    assert "“·the” (id 262) is built from 4 base symbols by 3 merges (ranks 0 to 6), 2 levels deep." in captions(at)
    assert icicle_labels(at) == ["·the<br>rank 6", "·t<br>rank 0", "·", "t", "he<br>rank 2", "h", "e"]
    assert not [b for b in at.button if b.key == "tree_train"]  # no training behind GPT-2


def test_trees_page_link_opens_a_cl100k_token_and_says_recovered():
    at = opened_link({state.TREE_TOKENIZER: "cl100k_base", "token": "15339"}, TREES)
    summary = next(c for c in captions(at) if c.startswith("“"))
    assert summary.startswith("“hello” (id 15,339) is built from 5 base symbols")
    assert "recovered" in summary


def test_trees_page_unknown_id_is_a_message():
    at = opened_link({"token": "999999"}, TREES)
    assert errors(at) == ["token id 999999 is outside the vocabulary of 257 tokens (ids 0 to 256)"]
    at = opened_link({"token": "99999999999999999999999", state.TREE_TOKENIZER: "GPT-2"}, TREES)
    assert errors(at) == [
        "token id 99999999999999999999999 is outside the vocabulary of 50,257 tokens (ids 0 to 50,256)"
    ]
    for bad in ("9" * 5000, "²", "abc"):  # int() refuses the first two: no traceback either way
        at = opened_link({"token": bad}, TREES)
        assert not at.exception and len(errors(at)) == 1 and len(errors(at)[0]) < 120


def test_trees_page_says_a_special_token_has_no_tree():
    at = opened_link({"token": "50256", state.TREE_TOKENIZER: "GPT-2"}, TREES)
    assert tree_captions(at) == [
        "“<|endoftext|>” (id 50,256) is a special token: it is cut out of the text before pre-tokenization and "
        "BPE, so no merge forms it and it has no merge tree."
    ]
    assert not at.get("plotly_chart")


def test_trees_page_shows_user_tokens_escaped():
    at = page(TREES)
    hostile = "<b>x</b> <b>x</b> <b>x</b>"
    at.sidebar.segmented_control(key=state.SOURCE).set_value("Paste").run()
    at.sidebar.text_area(key=state.PASTE).set_value(hostile)
    at.sidebar.number_input(key=state.MIN_FREQUENCY).set_value(1)
    next(b for b in at.sidebar.button if b.label == "Train").click().run()
    assert not at.exception
    labels = icicle_labels(at)
    assert all("<b>" not in label for label in labels) and any("&gt;" in label for label in labels)


# ----------------------------------------------------------------- Token trees: the glitch-token audit


def audit_table(at: AppTest, kind: str):
    return next(df for df in at.dataframe if df.key == f"{state.TREE_AUDIT_TABLE}_{kind}")


def test_trees_page_marks_and_lists_the_trained_tables_glitch_tokens():
    at = page(TREES)
    merges = at.dataframe[0].value
    assert merges.iloc[0][["token", "uses", "audit"]].tolist() == ["e</w>", 80, ""]
    assert "Glitch tokens" in subheaders(at)
    # the findings' counts near the top (on the first screen), linking down to the lists
    headline = [seen(m.value) for m in at.markdown if m.value.startswith("**Glitch tokens**")]
    assert headline == [
        "**Glitch tokens** of 256 audited: 0 partial UTF-8, 0 unreachable, 14 never used in the corpus (14 of them "
        f"scaffolds). [Lists ↓](#{AUDIT_ANCHOR})"
    ]
    assert next(s for s in at.subheader if s.value == "Glitch tokens").proto.anchor == AUDIT_ANCHOR
    # numbers in narrow columns, the audit column wide enough for its longest label (one finding per token)
    columns = json.loads(at.dataframe[0].proto.columns)
    assert [columns[c]["width"] for c in ("id", "rank", "uses", "audit")] == [64, 64, 56, 112]
    assert columns["audit"]["width"] >= 8 * max(map(len, KINDS.values()))  # about 8 px a character at 1.2 zoom
    summary = next(c for c in captions(at) if c.startswith("Of 256 tokens"))
    assert summary.endswith(
        "Encoding Shakespeare excerpt (12 KB) gives 5,498 tokens and never uses 14 of the 256; 14 of those are "
        "scaffolds: parts of a merge rule that only built longer tokens."
    )
    # the lists open on the first that has tokens (none is unreachable, none partial UTF-8), each with its size
    kind = at.selectbox(key=state.TREE_AUDIT_KIND)
    assert kind.value == "Never used in the corpus" and not at.info
    assert kind.options == ["Unreachable (0)", "Partial UTF-8 (0)", "Never used in the corpus (14)", *kind.options[3:]]
    kind.set_value("Unreachable").run()
    assert [seen(i.value) for i in at.info] == ["No token of this vocabulary is in this list."]
    at.selectbox(key=state.TREE_AUDIT_KIND).set_value("Scaffolds (never used, part of a merge)").run()
    assert [seen(m.value) for m in at.markdown if m.value.startswith("**Glitch tokens**")] == headline  # once
    table = audit_table(at, "scaffold")
    assert len(table.value) == 14 and table.value.iloc[0][["token", "uses", "audit"]].tolist() == [
        "!",
        0,
        "never used · scaffold",
    ]
    assert "14 tokens. Click a row to see where the token comes from." in captions(at)
    choose_row(at, table.key, 0)
    assert not at.exception
    assert "“!” (id 0) is a base symbol: no merge formed it." in tree_captions(at)


def test_trees_page_audit_can_be_switched_off():
    at = page(TREES)
    at.toggle(key=state.TREE_AUDIT).set_value(False).run()
    assert not at.exception
    assert list(at.dataframe[0].value.columns) == ["id", "token", "rank", "left", "right"]
    assert "Glitch tokens" not in subheaders(at)
    assert not [m for m in at.markdown if m.value.startswith("**Glitch tokens**")]


def test_trees_page_lists_gpt2s_partial_utf8_tokens():
    at = page(TREES)
    at.radio(key=state.TREE_TOKENIZER).set_value("GPT-2").run()
    at.selectbox(key=state.TREE_AUDIT_KIND).set_value("Partial UTF-8").run()
    assert not at.exception
    table = audit_table(at, "partial_utf8").value
    assert len(table) == 200 and all(b.startswith("⟨") for b in table["bytes"])
    assert "The first 200 of 344 tokens (144 left out). Click a row to see where the token comes from." in captions(at)


def test_trees_page_lists_o200ks_unreachable_tokens_with_what_their_text_gives():
    at = page(TREES)
    at.radio(key=state.TREE_TOKENIZER).set_value("o200k_base").run()
    assert not at.exception
    table = audit_table(at, "unreachable").value
    assert len(table) == 12
    assert table.iloc[0][["id", "token", "own text encodes as"]].tolist() == [3413, "·I'", "·I | '"]
    choose_row(at, audit_table(at, "unreachable").key, 0)
    assert any(c.startswith("“·I'” (id 3,413) is built from") for c in tree_captions(at))


def test_lesson_on_tokens_never_seen():
    at = page("pages/lessons.py")
    at.pills(key=state.LESSON).set_value("9. Tokens never seen").run()
    assert not at.exception
    table = at.dataframe[0].value
    assert table.iloc[0][["token", "in tokenizer text", "in model text", "why"]].tolist() == [
        "solidgoldmagikarp</w>",
        4,
        0,
        "only in the tokenizer's text",
    ]
    assert any(
        seen(m.value).startswith("Encoding the model's text uses 11 of the vocabulary's 41 tokens (ids 0 to 40,")
        and "The model never sees the other 30" in seen(m.value)
        for m in at.markdown
    )
    token_width = json.loads(at.dataframe[0].proto.columns)["token"]["width"]
    assert token_width >= 8 * len("solidgoldmagikarp</w>")  # seen whole, not cut
    at.text_area(key=state.lesson_key(9, "model")).set_value("solidgoldmagikarp lowest newest").run()
    assert "solidgoldmagikarp</w>" not in at.dataframe[0].value["token"].tolist()
    at.text_area(key=state.lesson_key(9, "tokenizer")).set_value("").run()
    assert errors(at) and not at.exception


# ----------------------------------------------------------------- Encode's picker


def test_encode_picker_draws_a_tree_and_opens_the_train_step():
    at = page(ENCODE)
    picker = at.pills(key=state.ENCODE_TREE)
    assert picker.options[:3] == ["H (15)", "ell (136)", "o (44)"]
    picker.set_value(136).run()
    assert "“ell” (id 136) is built from 3 base symbols by 2 merges (ranks 15 to 79), 2 levels deep." in captions(at)
    node = at.selectbox(key=f"{state.ENCODE_TREE}_view_{state.TREE_NODE}")
    assert node.options == ["rank 15: l + l → ll", "rank 79: e + ll → ell"] and node.value == node.options[-1]
    at.button(key=f"{state.ENCODE_TREE}_view_train").click().run()
    assert not at.exception
    assert subheaders(at)[0] == "Merge 80 of 200 (rank 79): “e” + “ll” → “ell”"


def test_encode_picker_on_gpt2_has_no_train_link():
    at = page(ENCODE)
    at.radio(key=state.ENCODE_TOKENIZER).set_value("GPT-2").run()
    at.pills(key=state.ENCODE_TREE).set_value(15496).run()  # 'Hello'
    assert any(c.startswith("“Hello” (id 15,496) is built from 5 base symbols") for c in captions(at))
    assert not [b for b in at.button if b.key and b.key.endswith("_train")]


# ----------------------------------------------------------------- Check an example


def test_check_page_golden_example():
    at = page(CHECK)
    assert errors(at) == ["The claim is wrong from merge 3: (l, o) has 7, but the merge here is (est, </w>) with 9."]
    verdict = at.dataframe[0].value
    assert verdict["holds"].tolist() == ["✓", "✓", "✗", "✗", "✗"]
    assert verdict.iloc[2][["claimed", "true merge", "true count", "count of the claimed pair"]].tolist() == [
        "l + o",
        "est + </w>",
        "9",
        7,
    ]
    top = at.dataframe[1].value
    assert top.iloc[0].tolist() == ["est + </w>", 9, "merged here"]
    assert top.iloc[1].tolist() == ["l + o", 7, "claimed"]
    found = at.dataframe[2].value
    assert found[["pre-tokenizer", "tie rule", "min frequency"]].values.tolist() == [
        ["whitespace", "first_seen", 1],
        ["whitespace", "first_seen", 2],
    ]
    assert "Read as 4 words with counts (16 in all)." in captions(at)
    assert seen(at.markdown[-1].value) == "rank: holds; sequential: holds; leftmost: holds."


def test_check_page_settings_link_opens_train_with_them():
    at = page(CHECK)
    at.button(key="check_open_0").click().run()
    assert not at.exception
    assert subheaders(at)[0] == "Merge 1 of 5 (rank 0): “e” + “s” → “es”"
    applied = at.session_state[state.APPLIED_SETTINGS]
    assert (applied.pretokenizer, applied.tie_break, applied.min_frequency, applied.budget) == (
        "whitespace",
        "first_seen",
        1,
        5,
    )
    assert at.session_state[state.APPLIED_CORPUS].text.startswith("low low low low low lower lower newest")


def test_check_page_holds_without_the_marker():
    at = page(CHECK)
    at.selectbox(key=state.CHECK_PRETOKENIZER).set_value("whitespace (no </w>)").run()
    assert [seen(s.value) for s in at.success] == [
        "All 5 claimed merges hold under first_seen, with no end-of-word marker."
    ]
    assert not errors(at)


def test_check_page_counts_and_bad_lines():
    at = page(CHECK)
    at.text_area(key=state.CHECK_CLAIM).set_value("e s 9\nes t 8").run()
    assert errors(at)[0] == "The claim is wrong from merge 2: the pair is right but its count is 9, not 8."
    at.text_area(key=state.CHECK_CLAIM).set_value("e s\ne s t u").run()
    assert errors(at) == ["line 2: 'e s t u' is not 'left right' or 'left right count'"]
    at.text_area(key=state.CHECK_CLAIM).set_value("e s").run()
    at.radio(key=state.CHECK_KIND).set_value("Word counts").run()
    at.text_area(key=state.CHECK_CORPUS).set_value("low 5\nlower two").run()
    assert errors(at) == ["line 2: 'lower two' is not 'word count' with a positive count"]


def test_check_page_text_corpus_and_encoding():
    at = page(CHECK)
    at.text_area(key=state.CHECK_CORPUS).set_value("ab ab ab cd").run()
    at.radio(key=state.CHECK_KIND).set_value("Text").run()
    at.text_area(key=state.CHECK_CLAIM).set_value("a b 2").run()
    assert "Read as running text (11 characters)." in captions(at)
    assert errors(at)[0].startswith("The claim is wrong from merge 1: the pair is right but its count is")
    at.text_input(key=state.CHECK_WORD).set_value("aaaa")
    at.text_area(key=state.CHECK_CLAIM).set_value("a a\naa aa")
    at.text_area(key=state.CHECK_STEPS).set_value("a a a a </w>\naa aa </w>\naaaa </w>").run()
    assert seen(at.markdown[-1].value) == "rank: holds; sequential: holds; leftmost: wrong from state 1."
    frame = at.dataframe[-1].value
    assert frame["leftmost"].tolist()[1] == "✗ aa a a </w>"


@pytest.mark.parametrize("hostile", ["![t](http://example.invalid/x.png) 5", "<script>alert(1)</script> 3"])
def test_check_page_shows_user_text_as_text(hostile):
    at = page(CHECK)
    at.radio(key=state.CHECK_KIND).set_value("Word counts").run()
    at.text_area(key=state.CHECK_CORPUS).set_value(hostile + "\nab 2").run()
    assert not at.exception
    assert all("<script>" not in e.value and "](http" not in e.value for e in at.error)


# ----------------------------------------------------------------- rule tables open a token's tree


def rule_tables(at: AppTest, prefix: str) -> list:
    """The selectable rule tables whose key starts with ``prefix`` (``rules_train_``), in page order."""
    return [df for df in at.dataframe if (df.key or "").startswith(prefix)]


def choose_row(at: AppTest, key: str, row: int) -> AppTest:
    """What a click on row ``row`` of the table ``key`` sends (a single-row selection)."""
    at.session_state[key] = {"selection": {"rows": [row], "columns": []}}
    return at.run()


def tree_captions(at: AppTest) -> list[str]:
    return [c for c in captions(at) if c.startswith("“")]


def test_train_rule_table_row_opens_its_token_tree():
    at = page("app.py")
    (table,) = rule_tables(at, "rules_train_")
    assert table.key == state.rule_table("train", 1) and table.value.iloc[0]["token"] == "e</w>"
    assert not tree_captions(at)  # nothing chosen yet
    choose_row(at, table.key, 0)
    assert not at.exception
    assert tree_captions(at) == ["“e</w>” (id 57) is built from 2 base symbols by 1 merge (rank 0), 1 level deep."]
    assert [b.label for b in at.button if b.key == f"{table.key}_tree_train"] == ["Open the Train page at merge 1"]
    at.button(key=state.TRAIN_PLAYER.next).click().run()  # another step: another table, nothing chosen in it
    assert not tree_captions(at)
    (table,) = rule_tables(at, "rules_train_")
    choose_row(at, table.key, 1)  # newest first: row 1 is the older rule, e + </w>
    assert tree_captions(at)[0].startswith("“e</w>” (id 57)")
    assert subheaders(at)[0].startswith("Merge 2 of 200")  # the player stayed where it was


def test_encode_rule_table_row_opens_its_token_tree():
    at = page(ENCODE)
    table = rule_tables(at, "rules_encode_")[0]
    assert table.value["token"].tolist() == [",</w>", "ll", "ell"]  # the pre-token 'Hello,'
    choose_row(at, table.key, 2)
    assert not at.exception
    assert "“ell” (id 136) is built from 3 base symbols by 2 merges (ranks 15 to 79), 2 levels deep." in captions(at)
    at.button(key=f"{table.key}_tree_train").click().run()  # the trained table: its tree links to the Train step
    assert not at.exception
    assert subheaders(at)[0] == "Merge 80 of 200 (rank 79): “e” + “ll” → “ell”"


def test_encode_rule_table_on_gpt2_gives_gpt2_trees():
    at = page(ENCODE)
    at.radio(key=state.ENCODE_TOKENIZER).set_value("GPT-2").run()
    table = rule_tables(at, "rules_encode_")[0]
    last = len(table.value) - 1  # the rule that made the pre-token's last token: 'Hello'
    assert table.value.iloc[last]["token"] == "Hello"
    choose_row(at, table.key, last)
    assert any(c.startswith("“Hello” (id 15,496) is built from 5 base symbols") for c in captions(at))
    assert not [b for b in at.button if b.key and b.key.endswith("_train")]


def test_lesson_rule_table_opens_a_tree_without_a_train_link():
    at = page("pages/lessons.py")
    (table,) = rule_tables(at, "rules_lesson1_")
    choose_row(at, table.key, 0)
    assert not at.exception
    assert tree_captions(at)[0].startswith("“es” (id ")
    assert any(c.startswith("Merge 1 of the training: the pair had a count of 9.") for c in captions(at))
    assert not [b for b in at.button if b.key and b.key.endswith("_train")]  # the lesson's training is not Train's


def test_encode_rule_table_on_o200k_gives_the_formed_tokens_tree():
    """A rank file's rule position is not the token's id: the row still opens the token its rule formed."""
    at = page(ENCODE)
    at.radio(key=state.ENCODE_TOKENIZER).set_value("o200k_base").run()
    at.text_area(key=state.ENCODE_TEXT).set_value("HTTPServer").run()
    table = rule_tables(at, "rules_encode_")[0]
    last = len(table.value) - 1
    assert table.value.iloc[last]["token"] == "HTTP"
    choose_row(at, table.key, last)
    assert not at.exception
    assert any(c.startswith("“HTTP” (id ") for c in captions(at))


def test_all_rules_table_opens_a_tree_once_unfolded():
    at = page("app.py")
    at.slider(key=state.TRAIN_PLAYER.step).set_value(20).run()
    assert not rule_tables(at, "rules_train_all_")  # folded: not built
    unfold(at, state.RULE_TABLE_OPEN)
    (table,) = rule_tables(at, "rules_train_all_")
    assert len(table.value) == 20 and table.value.iloc[0]["token"] == "e</w>"
    choose_row(at, table.key, 0)
    assert not at.exception
    assert "“e</w>” (id 57) is built from 2 base symbols by 1 merge (rank 0), 1 level deep." in captions(at)

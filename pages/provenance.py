"""Token trees page: pick a token from the merge list or by search and see the merges that built it; the
vocabulary's glitch tokens (partial UTF-8, unreachable, never used, scaffolds) are marked and listed."""

from __future__ import annotations

import streamlit as st

from bpe_core import BPEError, TokenIdError
from bpe_core.analysis.provenance import find_tokens, merge_rules, token_id_of
from ui import sidebar, state
from ui.cache import READY, ready_tokenizer, session_trained
from ui.layout import setup_page
from ui.provenance import MERGE_LIST_COLUMNS, audit_list, audit_toggle, follow_train_link, glitch_headline, tree_view
from viz.markdown import left_out, plain
from viz.provenance import tokens_frame
from viz.tokens import display_of

TRAINED = "Trained here"
PAGE_ROWS = 200
BIND = "query-params"
TOKEN_PARAM = "token"  # URL parameter holding the picked token id, so a link opens its tree


def forget_token() -> None:
    """A new tokenizer: the old token id means another token (or none)."""
    st.session_state[state.TREE_TOKEN] = None
    st.query_params.pop(TOKEN_PARAM, None)


def pick_row() -> None:
    """A click on a table row picks that row's token."""
    rows = st.session_state[state.TREE_TABLE].selection.rows
    ids = st.session_state.get(state.TREE_ROWS, [])
    if rows and rows[0] < len(ids):
        st.session_state[state.TREE_TOKEN] = ids[rows[0]]
        st.query_params[TOKEN_PARAM] = str(ids[rows[0]])


setup_page("Token trees")
st.title("Token trees: where does a token come from?")
st.caption(
    "Every token that is not a base symbol was made by one merge joining two older tokens. Pick a token "
    "from the merge list or search for it, and see the whole tree of merges down to characters or bytes."
)
if state.TREE_TOKEN not in st.session_state:  # a shared link: ?token=262 (its text: token_id_of reads it)
    st.session_state[state.TREE_TOKEN] = st.query_params.get(TOKEN_PARAM) or None
corpus, settings = sidebar.applied()
choice = st.radio(
    "Tokenizer", [TRAINED, *READY], key=state.TREE_TOKENIZER, horizontal=True, on_change=forget_token, bind=BIND
)
try:
    source = session_trained(corpus, settings) if choice == TRAINED else ready_tokenizer(choice)
except (BPEError, TypeError) as exc:
    st.error(f"Cannot train on {plain(corpus.name)}: {plain(exc)}")
    st.stop()
tokenizer = source.tokenizer if choice == TRAINED else source
show = display_of(source)
audit = audit_toggle(tokenizer, None if choice == TRAINED else choice, corpus, settings)
if audit is not None:
    glitch_headline(audit)

left, right = st.columns([1.3, 1])
with left:
    query = st.text_input("Search a token by text or id", key=state.TREE_SEARCH, placeholder="the", bind=BIND)
    if query:
        ids = find_tokens(tokenizer, query, limit=PAGE_ROWS)
        st.caption(f"{len(ids):,} token(s) match, the exact one first." if ids else "No token matches.")
    else:
        rules = merge_rules(tokenizer)
        start = st.number_input("Merge list from rule", 0, max(0, len(rules) - 1), 0, PAGE_ROWS, key=state.TREE_FROM)
        ids = [rule[3] for rule in rules[start : start + PAGE_ROWS]]
        shown = left_out(len(ids), len(rules), "rules", first="next") or f"all {len(rules):,} rules"
        st.caption(f"Merge list: {shown}.")
    st.session_state[state.TREE_ROWS] = ids
    st.dataframe(
        tokens_frame(tokenizer, ids, show, audit),
        hide_index=True,
        width="stretch",
        column_config=MERGE_LIST_COLUMNS,
        key=state.TREE_TABLE,
        on_select=pick_row,
        selection_mode="single-row",
    )
    st.caption("Click a row to see its tree.")
with right:
    token = st.session_state.get(state.TREE_TOKEN)
    token = token if token is not None else (ids[0] if ids else None)
    if token is None:
        st.info("Search for a token, or clear the search to see the merge list.")
    else:
        try:
            tree_view(source, token_id_of(tokenizer, token), key="tree")
        except TokenIdError as exc:
            st.error(plain(exc))
if audit is not None:
    audit_list(source, audit, corpus.name)
follow_train_link()

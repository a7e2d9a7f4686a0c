"""Token trees in the app: draw where a token comes from, and jump to the Train page at a merge.

Shared by the Token trees page and the Encode page's token picker.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from bpe_core import MergeTree, Tokenizer, TrainResult, merge_tree
from bpe_core.provenance import MAX_PLACES
from ui import sidebar, state
from viz.markdown import plain
from viz.provenance import places_frame, tree_figure, tree_merges_frame, tree_summary
from viz.tokens import display_of

TRAIN_PAGE = "app.py"
"""The Train page's script, for ``st.switch_page``."""
MAX_PICKS = 60
"""How many distinct tokens the Encode page's picker offers."""


def open_train_at(step: int) -> None:
    """Button callback: put the Train page's player at merge ``step`` and ask the page to switch there."""
    st.session_state[state.TRAIN_PLAYER.pos] = step
    st.session_state[state.TRAIN_PLAYER.playing] = False
    st.session_state[state.GO_TRAIN] = True


def follow_train_link() -> None:
    """Switch to the Train page if a button asked for it in this run (call once per page, after its buttons).

    The link keeps the corpus's text parameter and gives the step; the sidebar's
    widgets put their own parameters back (they are bound to the URL).
    """
    if st.session_state.pop(state.GO_TRAIN, False):
        params = {state.TRAIN_PLAYER.step: str(st.session_state[state.TRAIN_PLAYER.pos])}
        if sidebar.TEXT_PARAM in st.query_params:
            params[sidebar.TEXT_PARAM] = st.query_params[sidebar.TEXT_PARAM]
        st.switch_page(TRAIN_PAGE, query_params=params)


def node_label(node: MergeTree, show) -> str:  # noqa: ANN001 - show: token string -> text
    """``rank 7: new + est</w> → newest</w>`` for a merge node."""
    assert node.left is not None and node.right is not None
    return f"rank {node.rank:,}: {show(node.left.token)} + {show(node.right.token)} → {show(node.token)}"


def tree_view(source: Tokenizer | TrainResult, token_id: int, *, key: str, train_link: bool = True) -> MergeTree:
    """Draw the merge tree of ``token_id``: a sentence, the icicle and the table of its merges.

    For a training result it also lists, for a chosen merge of the tree, where the
    pair was counted, with a button that opens the Train page at that merge.

    Args:
        source: the tokenizer, or the training result behind it.
        token_id: the token to explain.
        key: a prefix for this view's widget keys.
        train_link: draw the button to the Train page (False where ``source`` is not the
            Train page's training, as in a lesson).

    Returns:
        The tree drawn.
    """
    tree = merge_tree(source, token_id)
    show = display_of(source)
    st.markdown(f"**Where “{plain(show(tree.token))}” comes from**")
    st.caption(plain(tree_summary(tree, show)))
    if tree.is_leaf:
        return tree
    st.plotly_chart(tree_figure(tree, show), width="stretch", key=f"{key}_chart")
    st.dataframe(tree_merges_frame(tree, show), hide_index=True, width="stretch")
    if tree.step is not None:
        _training_record(tree, show, key, train_link)
    return tree


def _training_record(tree: MergeTree, show, key: str, train_link: bool) -> None:  # noqa: ANN001
    """The chosen merge's corpus places and the link to the Train page at its step."""
    nodes = sorted({n.token_id: n for n in tree.nodes() if n.step is not None}.values(), key=lambda n: n.step)
    labels = [node_label(n, show) for n in nodes]
    choice_key, made_for = f"{key}_{state.TREE_NODE}", f"{key}_{state.TREE_NODE}_token"
    if st.session_state.get(made_for) != tree.token_id:  # another token's tree starts at its own last merge,
        st.session_state.pop(choice_key, None)  # not at a merge both trees share that was chosen (or shown) before
        st.session_state[made_for] = tree.token_id
    label = st.selectbox("Merge of this tree", labels, index=len(labels) - 1, key=choice_key)
    node = nodes[labels.index(label)] if label in labels else nodes[-1]
    n = len(node.places)
    places = f"first {n:,} places" if n >= MAX_PLACES else ("1 place" if n == 1 else f"{n:,} places")
    st.caption(
        f"Merge {node.step:,} of the training: the pair had a count of {node.count:,}. "
        f"Where it was counted ({places}, corpus order; offset in characters):"
    )
    st.dataframe(places_frame(node.places, show), hide_index=True, width="stretch")
    if not train_link:
        return
    st.button(
        f"Open the Train page at merge {node.step:,}",
        key=f"{key}_train",
        icon=":material/model_training:",
        on_click=open_train_at,
        args=(node.step,),
    )


def token_picker(source: Tokenizer | TrainResult, ids: Sequence[int], *, key: str) -> None:
    """Pills for the distinct tokens of ``ids`` (first :data:`MAX_PICKS`); clicking one draws its tree below."""
    tokenizer = source.tokenizer if isinstance(source, TrainResult) else source
    show = display_of(source)
    distinct = [i for i in dict.fromkeys(ids) if 0 <= i < tokenizer.vocab_size][:MAX_PICKS]
    if not distinct:
        return
    picked = st.pills(
        "Click a token to see the merges that built it",
        distinct,
        format_func=lambda i: f"{show(tokenizer.id_to_token(i))} ({i})",
        key=key,
    )
    if picked is not None:
        tree_view(source, picked, key=f"{key}_view")
        follow_train_link()


RULE_TABLE_HINT = "Click a row to see the merge tree of the token its rule forms."


def rule_table(
    data: object,
    ids: Sequence[int],
    source: Tokenizer | TrainResult,
    *,
    key: str,
    train_link: bool = True,
    **dataframe_args: object,
) -> int | None:
    """A merge-rule table whose rows can be chosen: choosing one draws that rule's token's tree below it.

    The same mechanism as the Token trees page's merge list (``st.dataframe`` with a
    single-row selection), drawn in place so the page stays where it is.

    Args:
        data: the table (a DataFrame or its Styler), one row per rule.
        ids: per row, the id of the token the rule forms.
        source: the tokenizer, or the training result behind it (then the tree gives steps and
            corpus places, and a button opens the Train page at a merge when ``train_link``).
        key: the table's widget key; a key that names what the table shows (the step, the
            pre-token) forgets the chosen row when that changes.
        train_link: passed to :func:`tree_view`.
        dataframe_args: more ``st.dataframe`` arguments (``column_config``, ``width``, ...).

    Returns:
        The chosen token's id, or ``None`` when no row is chosen.
    """
    event = st.dataframe(
        data, hide_index=True, key=key, on_select="rerun", selection_mode="single-row", **dataframe_args
    )
    rows = event.selection.rows
    if not rows or rows[0] >= len(ids):
        return None
    token = ids[rows[0]]
    tree_view(source, token, key=f"{key}_tree", train_link=train_link)
    follow_train_link()
    return token

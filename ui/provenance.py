"""Token trees in the app: draw where a token comes from, and jump to the Train page at a merge.

Shared by the Token trees page and the Encode page's token picker.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

import streamlit as st

from bpe_core import BPEError, MergeTree, Tokenizer, TrainResult, VocabularyAudit, audit_vocabulary, merge_tree
from bpe_core.analysis.provenance import MAX_PLACES
from ui import sidebar, state
from ui.cache import trained, training_corpus
from ui.corpus import CorpusChoice
from ui.settings import TrainSettings
from viz.markdown import left_out, plain
from viz.provenance import (
    AUDIT_VIEWS,
    MERGE_LIST_AUDIT_HELP,
    UNSEEN_MERGES,
    UNSEEN_MODEL_TEXT,
    UNSEEN_TOKENIZER_TEXT,
    audit_frame,
    audit_headline,
    audit_ids,
    audit_summary,
    places_frame,
    tree_figure,
    tree_merges_frame,
    tree_summary,
    unseen_lesson,
)
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
    distinct = [i for i in dict.fromkeys(ids) if 0 <= i < len(tokenizer)][:MAX_PICKS]
    if not distinct:
        return
    picked = st.pills(
        "Click a token to see the merges that built it",
        distinct,
        format_func=lambda i: f"{show(tokenizer.model.id_to_token(i))} ({i})",
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


# ----------------------------------------------------------------- the glitch-token audit

AUDIT_ROWS = 200
"""How many tokens of one finding the list shows."""


@st.cache_data(max_entries=8, show_spinner=False)
def audited(
    _tokenizer: Tokenizer, source: Hashable, _corpus: str | Mapping[str, int], corpus_key: Hashable
) -> VocabularyAudit:
    """:func:`bpe_core.audit_vocabulary` of ``_tokenizer`` on ``_corpus``, with a progress bar while it runs.

    Neither argument with a leading underscore is hashed: ``source`` names the tokenizer (as for
    :func:`ui.cache.encoded`) and ``corpus_key`` the corpus. The bar is made inside the cached function, so a
    cache hit draws nothing, and emptied before returning.

    Raises:
        bpe_core.BPEError: the corpus cannot be encoded (not cached).
    """
    bar = st.progress(0.0, text="Checking every token, then encoding the corpus…")

    def progress(done: int, total: int) -> None:
        bar.progress(done / max(total, 1), text=f"Auditing the vocabulary: {done:,} of {total:,}")

    try:
        return audit_vocabulary(_tokenizer, _corpus, progress=progress)
    finally:
        bar.empty()


def audit_toggle(
    tokenizer: Tokenizer, ready: str | None, corpus: CorpusChoice, settings: TrainSettings
) -> VocabularyAudit | None:
    """The toggle that audits the vocabulary, and (on) the audit of ``tokenizer`` on the sidebar's corpus.

    The corpus is read as training reads it (its text, or its word or pre-token counts). The audit is cached
    per tokenizer (``ready``: the shipped table's label, ``None``: the table trained on ``corpus`` with
    ``settings``) and corpus.

    Returns:
        The audit, or ``None`` when the toggle is off or the corpus cannot be encoded (the reason is shown).
    """
    on = st.toggle(
        "Audit the vocabulary: mark glitch tokens",
        value=True,
        key=state.TREE_AUDIT,
        help="Tokens a model may never see in training: partial UTF-8 bytes, tokens their own text does not "
        "give back (unreachable), and tokens that encoding the sidebar's corpus never uses (Land & Bartolo "
        "2024, Fishing for Magikarp; Lian et al. 2024, Scaffold-BPE).",
    )
    if not on:
        return None
    named = ("ready", ready) if ready is not None else ("trained", corpus.source, corpus.sha256, settings)
    key = (corpus.source, corpus.sha256, settings.pretokenizer, settings.special_tokens)
    try:
        return audited(tokenizer, named, training_corpus(corpus, settings), key)
    except (BPEError, TypeError) as exc:
        st.error(f"Cannot audit with {plain(corpus.name)}: {plain(exc)}")
        return None


MERGE_LIST_COLUMNS = {
    "id": st.column_config.NumberColumn(width=64),
    "rank": st.column_config.NumberColumn(width=64),
    "uses": st.column_config.NumberColumn(width=56, help="Times encoding the sidebar's corpus gave the token"),
    "audit": st.column_config.TextColumn(width=112, help=MERGE_LIST_AUDIT_HELP),
}
"""The Token trees page's merge list (:func:`viz.provenance.tokens_frame`): numbers in narrow columns and the
audit column wide enough for its longest value, so every column fits the page's left half at 1280x720 in
presentation mode (with the sidebar open the table is narrower and scrolls sideways)."""
AUDIT_ANCHOR = "glitch-tokens"
"""The HTML id of the glitch-token lists' heading: the page's headline links to it."""


def glitch_headline(audit: VocabularyAudit) -> None:
    """One line near the top of the page: each finding's count, and a link down to the lists
    (:func:`audit_list`), so the audit's point is on the first screen, presentation mode included."""
    st.markdown(f"**Glitch tokens** {plain(audit_headline(audit))} [Lists ↓](#{AUDIT_ANCHOR})")


def audit_list(source: Tokenizer | TrainResult, audit: VocabularyAudit, corpus_name: str) -> None:
    """The glitch-token lists: a summary, a choice of finding, and its tokens; a row opens the token's tree."""
    tokenizer = source.tokenizer if isinstance(source, TrainResult) else source
    st.subheader("Glitch tokens", anchor=AUDIT_ANCHOR)
    st.caption(plain(audit_summary(audit, corpus_name)))
    sizes = {label: len(audit_ids(audit, kind)) for label, kind in AUDIT_VIEWS.items()}
    opened = (corpus_name, *sizes.values())
    if st.session_state.get(state.TREE_AUDIT_OPENED) != opened:  # another vocabulary: open a list that has tokens
        st.session_state[state.TREE_AUDIT_OPENED] = opened
        st.session_state[state.TREE_AUDIT_KIND] = next(
            (v for v, size in sizes.items() if size), next(iter(AUDIT_VIEWS))
        )
    label = st.selectbox(
        "List", list(AUDIT_VIEWS), key=state.TREE_AUDIT_KIND, format_func=lambda v: f"{v} ({sizes[v]:,})"
    )
    kind = AUDIT_VIEWS.get(label or "", "unreachable")
    ids = audit_ids(audit, kind)
    if not ids:
        st.info("No token of this vocabulary is in this list.")
        return
    shown = ids[:AUDIT_ROWS]
    many = left_out(len(shown), len(ids), "tokens") or ("1 token" if len(ids) == 1 else f"{len(ids):,} tokens")
    st.caption(f"{many[0].upper()}{many[1:]}. Click a row to see where the token comes from.")
    frame = audit_frame(tokenizer, audit, kind, display_of(source), AUDIT_ROWS)
    rule_table(frame, shown, source, key=f"{state.TREE_AUDIT_TABLE}_{kind}", width="stretch")


# ----------------------------------------------------------------- the lesson: tokens a model never sees


def unseen_tokens_lesson(i: int) -> None:
    """Lesson: train a tokenizer on one text, encode another (the model's), and list the tokens it never uses."""
    left, right = st.columns(2)
    with left:
        tokenizer_text = st.text_area(
            "Tokenizer's training text",
            UNSEEN_TOKENIZER_TEXT,
            key=state.lesson_key(i, "tokenizer"),
            height=90,
            bind="query-params",
        )
    with right:
        model_text = st.text_area(
            "Model's training text", UNSEEN_MODEL_TEXT, key=state.lesson_key(i, "model"), height=90, bind="query-params"
        )
    n = st.number_input("Merges", 1, 200, UNSEEN_MERGES, key=state.lesson_key(i, "merges"), bind="query-params")
    try:
        result = trained(tokenizer_text, TrainSettings().with_(budget=int(n)))
        body = unseen_lesson(result.tokenizer, tokenizer_text, model_text, display_of(result))
    except (BPEError, TypeError) as exc:
        st.error(f"Cannot train or encode this input: {plain(exc)}")
        return
    st.markdown(plain(body.summary))
    if not body.table.empty:
        token_column = st.column_config.TextColumn(width=body.token_width)
        st.dataframe(body.table, hide_index=True, width="stretch", column_config={"token": token_column})

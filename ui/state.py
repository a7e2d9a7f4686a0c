"""Every session-state key the app uses, in one place.

Pages and helpers import these names instead of writing string literals, so
a key cannot be misspelt in one page and not another.
"""

from __future__ import annotations

from dataclasses import dataclass

# Navigation row: presentation mode (also the link's ?present=true)
PRESENT = "present"
PAGE_TOP = "page_top"
"""The component that opens each page at its top (:mod:`ui.page_top`)."""

# Sidebar: corpus source
SOURCE = "corpus_source"
SAMPLE = "corpus_sample"
PASTE = "corpus_paste"
UPLOAD = "corpus_upload"
COUNTS_UPLOAD = "corpus_counts_upload"

# Sidebar: training settings
TRAIN_FORM = "train_form"
PRETOKENIZER = "set_pretokenizer"
UNIT = "set_unit"
END_OF_WORD = "set_end_of_word"
TIE_BREAK = "set_tie_break"
BUDGET_KIND = "set_budget_kind"
BUDGET = "set_budget"
MIN_FREQUENCY = "set_min_frequency"
SPECIALS = "set_specials"

# What the last press of "Train" applied (a CorpusChoice and a TrainSettings)
APPLIED_CORPUS = "applied_corpus"
APPLIED_SETTINGS = "applied_settings"
UPLOADED_TEXT = "uploaded_text"
"""The last text file trained on (a CorpusChoice): the uploader is empty again on another page, so Train reuses it."""
UPLOADED_COUNTS = "uploaded_counts"
"""The same for the last word-count file trained on."""
LINK_PROBLEMS = "link_problems"
"""Values a shared link gave that could not be used, with why (shown once, by ``ui.layout.setup_page``)."""
TRAIN_PROBLEM = "train_problem"
"""Why the last press of Train could not train (the previous training stays applied); shown once."""
LINK_STAND_IN = "link_stand_in"
"""``(the default sample's CorpusChoice, the link's source)`` while that sample stands in for the pasted or
uploaded text a link named and this session lacks (the link then keeps naming that text)."""


@dataclass(frozen=True)
class PlayerKeys:
    """The session-state keys of one step player (see :func:`ui.player.step_player`).

    Attributes:
        pos: the current step (the player's own value, not the slider's).
        step: the slider; also its URL parameter, so a link opens at that step.
        playing, speed, tick: whether it plays, the chosen speed, when it last advanced.
        first, prev, play, pause, next, last: its buttons.
        source: what the steps were computed from (a new source sends the player back to step 1).
        slider_live: whether the last frame drew the slider (False while the progress bar stood in for it).
        keys: the browser-side counter of key presses and step-button clicks (a component whose state is
            the step the browser asks for, with a sequence number).
        asked: the sequence number of the last step asked for by ``keys`` that the player applied.
    """

    pos: str
    step: str
    playing: str
    speed: str
    tick: str
    first: str
    prev: str
    play: str
    pause: str
    next: str
    last: str
    source: str
    slider_live: str
    keys: str
    asked: str


def player_keys(prefix: str) -> PlayerKeys:
    """The keys of the player named ``prefix`` (``train`` -> ``train_step``, ``train_playing``, ...)."""
    return PlayerKeys(**{name: f"{prefix}_{name}" for name in PlayerKeys.__dataclass_fields__})


# Train page
TRAIN_PLAYER = player_keys("train")
RESULT = "train_result"
RESULT_MEMO = "train_result_memo"
CHARTS = "train_charts"
CHART_KEYS = ("chart_counts", "chart_compression", "chart_vocab")
"""The Train page's three charts: winning count, corpus length, vocabulary size."""
PAIR_BARS = "chart_pair_bars"
"""The top-pair bar chart (its element's CSS class ``st-key-chart_pair_bars`` scopes the bars' animation)."""
PAIR_BARS_SHOWN = "chart_pair_bars_shown"
"""The training result and step whose pair bars were drawn last (the next step's bars animate from them)."""
PAIR_TABLE_OPEN = "train_pair_table_open"
WORD_TABLE_OPEN = "train_word_table_open"
RULE_TABLE_OPEN = "train_rule_table_open"
"""Whether the Train step's lazy expanders (pair-count table, all rewritten words, all rules) are open."""

# Encode page
ENCODE_TEXT = "encode_text"
ENCODE_TOKENIZER = "encode_tokenizer"
ENCODE_ORDER = "encode_order"
SHOW_WHITESPACE = "encode_show_ws"
SHOW_IDS = "encode_show_ids"
ALLOW_SPECIAL = "encode_allow_special"
ENCODE_PIECE = "encode_piece"
ENCODE_FALLBACK = "encode_fallback"
ENCODE_MEMO = "encode_memo"
STORY_PLAYER = player_keys("story")
"""The encoding player (one pre-token, rule by rule)."""
ENCODE_DROPOUT = "encode_dropout"
"""BPE-dropout on the Encode page: on or off; then its probability (in percent), sample count and seed."""
ENCODE_DROPOUT_PERCENT = "encode_dropout_p"
ENCODE_DROPOUT_SAMPLES = "encode_dropout_k"
ENCODE_DROPOUT_SEED = "encode_dropout_seed"
ENCODE_DROPOUT_PLAY = "encode_dropout_play"
"""Which dropout sample the encoding player plays."""
ENCODE_INPUTS = "encode_inputs"
"""The fold that holds the Encode page's inputs in presentation mode while dropout is on (a CSS hook, no state)."""
TOKEN_PICKER = "encode_token_picker"
"""The click catcher on the coloured text (a click chooses the token's pre-token)."""
TOKENIZER_UPLOAD = "encode_tokenizer_upload"
APPLY_SESSION = "encode_apply_session"
APPLY_PENDING = "apply_pending"
"""Set when settings were put into the sidebar from elsewhere (a session file): the sidebar applies them."""


def download_key(fmt: str) -> str:
    """The key of the download button (or the disabled button saying why not) for format ``fmt``."""
    return f"dl_{fmt}"


# Compare page
CMP_COUNT = "cmp_n"
CMP_BUDGET = "cmp_merges"
CMP_TEXT = "cmp_text"
CMP_HELD_OUT = "cmp_held_out"
CMP_METRIC = "cmp_metric"
CMP_SWITCH_RUN = "cmp_switch_run"
CMP_SWITCH_RULE = "cmp_switch_rule"
CMP_SWITCH_FROM = "cmp_switch_from"
"""The tie rule the switch's choices were made for (a change resets the choice; see pages/compare.py)."""
CMP_SWITCH_CORPUS = "cmp_switch_corpus"
CMP_REAL = "cmp_real"


def cmp_key(index: int, field: str) -> str:
    """The key of configuration ``index``'s ``field`` widget on the Compare page (``cmp_0_unit``)."""
    return f"cmp_{index}_{field}"


# Languages page (the token tax)
LANG_CODE = "lang"
"""The language whose text is shown tokenized (a section code; also picked by a click on a bar)."""
LANG_HIGHLIGHT = "lang_curves"
LANG_MEASURE = "lang_measure"
LANG_TRAIN = "lang_train_udhr"
LANG_TRAIN_TAB = "lang_train_udhr_tab"
"""The same button on the "Trained here" tab, where the trained table's premiums are explained."""


def lang_chart(index: int) -> str:
    """The key of the Languages page's premium chart of tokenizer ``index`` (its click selection)."""
    return f"lang_chart_{index}"


# Lessons page
LESSON = "lesson"
LAST_LESSON = "lesson_last"


def lesson_key(lesson: int, field: str) -> str:
    """The key of a widget of lesson ``lesson`` (``lesson3_text``)."""
    return f"lesson{lesson}_{field}"


def lesson_player(lesson: int) -> PlayerKeys:
    """The keys of lesson ``lesson``'s step player (``lesson1_step``, ``lesson1_next``, ...)."""
    return player_keys(f"lesson{lesson}")


# Provenance: token trees (the Token trees page and the Encode page's token picker)
TREE_TOKENIZER = "tree_tokenizer"
TREE_SEARCH = "tree_search"
TREE_TABLE = "tree_table"
TREE_ROWS = "tree_rows"
# the token whose tree is drawn: an id, or a link's text (bpe_core.analysis.provenance.token_id_of)
TREE_TOKEN = "tree_token"
TREE_FROM = "tree_from"
TREE_NODE = "tree_node"
TREE_AUDIT = "tree_audit"  # the toggle that audits the vocabulary and marks glitch tokens
TREE_AUDIT_KIND = "tree_audit_kind"  # which finding the glitch-token list shows
TREE_AUDIT_OPENED = (
    "tree_audit_opened"  # the list sizes TREE_AUDIT_KIND was last opened for (a new vocabulary's: reopen)
)
TREE_AUDIT_TABLE = "tree_audit_table"
ENCODE_TREE = "encode_tree"


def rule_table(where: str, *shown: object) -> str:
    """The key of a rule table whose rows open a token's tree (``rules_train_12``): ``where`` names the table,
    ``shown`` what it shows (a step, a pre-token), so the chosen row is forgotten when that changes."""
    return "_".join(["rules", where, *map(str, shown)])


GO_TRAIN = "go_train"
"""Set by a "open the Train page" button's callback; the page then switches to Train."""

# Check an example
CHECK_CORPUS = "check_corpus"
CHECK_KIND = "check_kind"
CHECK_CLAIM = "check_claim"
CHECK_PRETOKENIZER = "check_pretokenizer"
CHECK_TIE_BREAK = "check_tie_break"
CHECK_MIN_FREQUENCY = "check_min_frequency"
CHECK_WORD = "check_word"
CHECK_STEPS = "check_steps"
CHECK_MARKER = "check_marker"
CHECK_TOP_STEP = "check_top_step"
CHECK_TOP_FOR = "check_top_for"
"""The input the "true top pairs" box was last set for: when the input changes, the box goes to its first wrong
merge."""

"""Shared links: check the values a URL puts into widgets before any widget reads them.

Widgets bound to query parameters take their first value from the link. A value
no widget could hold (``?set_budget=inf`` makes ``st.number_input`` raise
``OverflowError``; ``1e9`` merges is past every limit; a special token of 10,000
characters) is taken out of the link here, with a message saying what was
ignored and what the limit is, so the page opens with the default instead of a
traceback or an hour of training.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping

import streamlit as st
from streamlit.errors import StreamlitAPIException

from bpe_core import BPEError
from bpe_core.options import MAX_MERGES, MAX_MIN_FREQUENCY, MAX_VOCAB_SIZE, OPTIONS, check_special_tokens, parse_int
from ui import state
from ui.corpus import MAX_ENCODE_CHARS, SAMPLES
from ui.settings import BUDGET_KINDS, parse_special_tokens

MAX_BUDGET = max(MAX_MERGES, MAX_VOCAB_SIZE)
"""The sidebar's budget box holds merges or a vocabulary size (checked against its own limit on Train)."""
CMP_MAX_MERGES = 20_000
"""The Compare page trains up to four runs at once: each gets at most this many merges."""

CHECK_MAX_MIN_FREQUENCY = 1_000_000
"""The Check page's minimum-frequency box (its corpora are a few lines long)."""
CHECK_MAX_CORPUS_CHARS = 100_000
"""The Check page's corpus box (finding settings trains 24 times and more): also the longest a link may carry."""
CHECK_MAX_CLAIM_CHARS = 20_000
"""The Check page's claimed-merges box."""
CHECK_MAX_WORD_CHARS = 2_000
"""The Check page's word box (one word, encoded three ways)."""
CHECK_MAX_STEPS_CHARS = 20_000
"""The Check page's claimed-states box."""

NUMBERS: dict[str, tuple[int, int]] = {
    state.BUDGET: (0, MAX_BUDGET),
    state.MIN_FREQUENCY: (1, MAX_MIN_FREQUENCY),
    state.CMP_BUDGET: (1, CMP_MAX_MERGES),
    state.CHECK_MIN_FREQUENCY: (1, CHECK_MAX_MIN_FREQUENCY),
}
"""Number boxes bound to the URL: their allowed range."""
_OTHER_NUMBERS = re.compile(r"lesson\d+_merges$|\w+_step$")
"""Other number widgets bound to the URL: lesson merge boxes and the players' step sliders (``train_step``)
(their range is checked by the widget; here only that the value is a number)."""

CHOICES: dict[str, Mapping[str, object]] = {
    state.PRETOKENIZER: OPTIONS["pretokenizer"].choices,
    state.UNIT: OPTIONS["unit"].choices,
    state.END_OF_WORD: OPTIONS["end_of_word"].choices,
    state.TIE_BREAK: OPTIONS["tie_break"].choices,
    state.BUDGET_KIND: BUDGET_KINDS,
    state.SAMPLE: SAMPLES,
}
"""Choice widgets of the sidebar bound to the URL: their allowed values."""


def _check_specials(value: str) -> None:
    check_special_tokens(parse_special_tokens(value))


def _check_encode_text(value: str) -> None:
    if len(value) > MAX_ENCODE_CHARS:
        raise BPEError(
            f"{state.ENCODE_TEXT} holds {len(value):,} characters; the Encode box holds {MAX_ENCODE_CHARS:,}"
        )


def _at_most(key: str, limit: int, box: str) -> Callable[[str], None]:
    """A check that ``key``'s value holds at most ``limit`` characters (the limit of the page's ``box``)."""

    def check(value: str) -> None:
        if len(value) > limit:
            raise BPEError(f"{key} holds {len(value):,} characters; the {box} holds {limit:,}")

    return check


TEXTS: dict[str, Callable[[str], None]] = {
    state.SPECIALS: _check_specials,
    state.ENCODE_TEXT: _check_encode_text,
    state.CHECK_CORPUS: _at_most(state.CHECK_CORPUS, CHECK_MAX_CORPUS_CHARS, "Check page's corpus box"),
    state.CHECK_CLAIM: _at_most(state.CHECK_CLAIM, CHECK_MAX_CLAIM_CHARS, "claimed-merges box"),
    state.CHECK_WORD: _at_most(state.CHECK_WORD, CHECK_MAX_WORD_CHARS, "word box"),
    state.CHECK_STEPS: _at_most(state.CHECK_STEPS, CHECK_MAX_STEPS_CHARS, "claimed-states box"),
}
"""Text boxes bound to the URL whose value has limits: a check raising ``BPEError``."""


def problem(key: str, value: str) -> str | None:
    """Why the link's ``key=value`` cannot be used (a sentence), or ``None`` when it can.

    Args:
        key: a query parameter (a widget key such as ``set_budget``).
        value: its value as the URL gives it.
    """
    try:
        if key in NUMBERS:
            low, high = NUMBERS[key]
            parse_int(key, value, low, high)
        elif _OTHER_NUMBERS.match(key):
            number = float(value)
            if not math.isfinite(number) or abs(number) > 2**53:
                return f"{key} must be a whole number, got {value[:40]!r}"
        elif key in CHOICES and value not in CHOICES[key]:
            return f"{key} must be one of: {', '.join(CHOICES[key])}; got {value[:40]!r}"
        elif key in TEXTS:
            TEXTS[key](value)
    except (BPEError, TypeError) as exc:
        return str(exc)
    except ValueError:
        return f"{key} must be a number, got {value[:40]!r}"
    return None


def check_link() -> list[str]:
    """Take every unusable value out of the URL before a widget reads it; return what was ignored and why.

    Call before drawing any widget bound to the query parameters. Widgets are
    seeded from the URL the run started with, so when a value is taken out the
    script is run again at once (``st.rerun``) from the corrected URL. The
    messages wait in the session (``state.LINK_PROBLEMS``) for that run to show them.
    """
    found = []
    for key in list(st.query_params):
        values = st.query_params.get_all(key)
        reasons = [r for v in values if (r := problem(key, v))]
        if not reasons:
            continue
        try:
            del st.query_params[key]
        except StreamlitAPIException:  # bound to a widget this run already drew: the widget holds a good value
            continue
        found.append(f"{reasons[0]}. The link's value was ignored; the default is used instead.")
    if found:
        st.session_state[state.LINK_PROBLEMS] = found
        st.rerun()
    return found

"""Presentation mode: the app as a teacher projects it (1280x720, keyboard, no mouse hunting).

A toggle in the navigation row, bound to the link (``?present=true``), turns it
on. It collapses the sidebar, enlarges token boxes and tables, keeps each step
player's controls on screen while the page scrolls, and tightens the page so a
Train step (winner, pair counts, rewritten words) fits one 1280x720 screen.
The players' keyboard keys (:data:`ui.player.SHORTCUTS`) work in both modes.

The compact page top (less empty space above the title, titles that do not
wrap at 1280 px) applies in both modes: :data:`BASE_CSS`.
"""

from __future__ import annotations

import streamlit as st

from ui import state

TOGGLE_HELP = (
    "For a projector: the sidebar folds away, tokens and tables get bigger, the player stays on screen. "
    "Keys: ← → step, Space plays or pauses, Home/End jump to the first or last step. "
    "The link keeps this mode (?present=true)."
)

BASE_CSS = """
[data-testid="stElementContainer"]:has(style.bpe-page-css){display:none}
header[data-testid="stHeader"]{background:transparent}
header[data-testid="stHeader"],header[data-testid="stHeader"] *{pointer-events:none}
header[data-testid="stHeader"] button,header[data-testid="stHeader"] button *{pointer-events:auto}
[data-testid="stMainBlockContainer"]{padding-top:0.9rem}
[data-testid="stMainBlockContainer"] h1{font-size:2.1rem;padding-top:0.25rem;padding-bottom:0.25rem}
.st-key-wrap-columns [data-testid="stHorizontalBlock"]{flex-wrap:wrap}
.st-key-wrap-columns [data-testid="stColumn"]{min-width:16.5rem}
[data-testid="stMain"]:focus::before,[data-testid="stMain"]:focus-visible::before{box-shadow:none}
[class*="st-key-player-controls"] [data-testid="stElementContainer"]:has(.stBidiComponent){display:none}
.st-key-page_top{display:none}
"""
"""Both modes: the navigation row sits in the band of Streamlit's header (made see-through; its
buttons still take clicks) instead of below it, and page titles fit one line at 1280 px. Columns
inside a container keyed :data:`WRAP_COLUMNS` move to a new row rather than become narrower than a
run label such as ``D: whitespace_eow/byte/attached`` (which has no space to wrap at). The main area, focused by a
click on a blank spot (so that the players' keys reach it), draws no grey frame round itself; controls keep
their own keyboard focus rings. A step player's key counter (:mod:`ui.player`, a component with nothing to show)
takes no room in its controls, nor does the component that opens each page at its top (:mod:`ui.page_top`)."""
WRAP_COLUMNS = "wrap-columns"
"""The key of a container whose columns wrap to a new row instead of narrowing below 16.5rem."""

PRESENT_CSS = """
[data-testid="stMainBlockContainer"]{padding-left:4rem;padding-right:4rem;max-width:none}
[data-testid="stMainBlockContainer"] h1{font-size:1.5rem;padding:0}
[data-testid="stMainBlockContainer"] [data-testid="stVerticalBlock"]{gap:0.5rem}
[data-testid="stMainBlockContainer"] h3{font-size:1.45rem;padding:0.1rem 0}
[data-testid="stMetric"]>div{display:flex;flex-wrap:wrap;align-items:baseline;column-gap:0.5rem}
[data-testid="stMetricValue"]{font-size:1.6rem}
[data-testid="stMetricLabel"] p{font-size:1rem}
.bpe-row{font-size:1.3rem}
.bpe-tok small{font-size:0.7em}
[data-testid="stMarkdownContainer"] p,[data-testid="stMarkdownContainer"] li{font-size:1.1rem}
[data-testid="stElementContainer"]:has([data-testid="stDataFrame"]){zoom:1.2;width:calc(100% / 1.2)}
[data-testid="stLayoutWrapper"]:has(>[class*="st-key-player-controls"]){position:sticky;top:0;z-index:50;
background:#fff;padding-top:0.4rem;box-shadow:0 6px 6px -6px rgba(15,23,42,.25)}
[data-testid="stMainBlockContainer"] h2{font-size:1.6rem;padding:0.15rem 0}
.st-key-lesson,.st-key-encode_inputs{margin-top:1rem}
.st-key-lesson button{min-height:2rem;padding:0.1rem 0.6rem}
.st-key-lesson [data-testid="stMarkdownContainer"] p{font-size:1rem}
[class*="st-key-lesson"] [data-testid="stWidgetLabel"]{min-height:0;margin-bottom:0.1rem}
[class*="st-key-lesson"] [data-testid="stWidgetLabel"] p{font-size:1rem}
[class*="st-key-lesson"] input{padding-top:0.3rem;padding-bottom:0.3rem}
[class*="st-key-lesson"] [data-baseweb="input"]{min-height:0}
"""
"""Presentation mode only: room for the sidebar's expand button, bigger tokens, tables and text,
metrics on one line each, tighter gaps, and sticky player controls (each player's button row is a
container whose key starts with ``player-controls``; the wrapper Streamlit puts around it sticks to the
top of the scrolling page with an opaque background, so no text shows above or through it). On the
Lessons page (widget keys start with ``lesson``) the lesson's header, pills and input boxes are compact,
so each lesson's point is on the first 1280x720 screen; the pills keep 1rem from the page title (its
Markdown block's -1rem bottom margin, meant for a paragraph, would pull them over it); so does the fold that holds
the Encode page's inputs while dropout is on (:data:`ui.state.ENCODE_INPUTS`)."""


def presenting() -> bool:
    """True when presentation mode is on (the toggle, or ``?present=true`` in the link)."""
    return bool(st.session_state.get(state.PRESENT, False))


def toggle() -> bool:
    """Draw the presentation-mode toggle (bound to the link) and return whether it is on."""
    return st.toggle(
        "Presentation mode",
        key=state.PRESENT,
        help=TOGGLE_HELP,
        bind="query-params",
    )


def css(on: bool) -> str:
    """The page's extra CSS as one ``<style>`` element: :data:`BASE_CSS`, plus :data:`PRESENT_CSS` when ``on``
    (its first rule hides the empty block Streamlit draws around it)."""
    return '<style class="bpe-page-css">' + BASE_CSS + (PRESENT_CSS if on else "") + "</style>"

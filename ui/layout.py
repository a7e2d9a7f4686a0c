"""The set-up every page script runs first: page config, preload, sidebar and navigation.

The app is Streamlit's classic multipage layout: ``app.py`` is the first page
(Train) and each file in ``pages/`` is another page. Streamlit's own sidebar
list of pages is switched off (``client.showSidebarNavigation = false`` in
``.streamlit/config.toml``); :func:`setup_page` draws the navigation itself
with ``st.page_link``, so labels, icons and order are ours. Because every page
script calls it first, a deep link such as ``/lessons`` on a freshly started
server gets the same sidebar and navigation as a click from another page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from ui import presentation, sidebar, state
from ui.cache import start_preload
from ui.links import check_link, unknown_page_notice
from ui.page_top import open_at_top
from viz.markdown import plain

ICON = Path(__file__).parent / "icon.png"
"""The page icon, served by the app itself (a material icon would be fetched from Google's fonts)."""


@dataclass(frozen=True)
class PageLink:
    """One entry of the navigation.

    Attributes:
        path: the page script, relative to ``app.py`` (``pages/encode.py``); its file name is its URL.
        title: the link label and the browser tab's title.
        icon: a material icon (``:material/school:``), bundled with Streamlit.
    """

    path: str
    title: str
    icon: str


ENCODE_PAGE = "pages/encode.py"
TEXT_LINK = "text"
"""``?text=...`` on any page opens the Encode page with that text (the Hugging Face tokenizer playground's
convention)."""
_OLD_CORPUS_HASH = re.compile(r"[0-9a-f]{8,64}")

PAGES: tuple[PageLink, ...] = (
    PageLink("app.py", "Train", ":material/model_training:"),
    PageLink(ENCODE_PAGE, "Encode", ":material/text_fields:"),
    PageLink("pages/compare.py", "Compare", ":material/compare_arrows:"),
    PageLink("pages/lessons.py", "Lessons", ":material/school:"),
    PageLink("pages/provenance.py", "Token trees", ":material/account_tree:"),
    PageLink("pages/check.py", "Check an example", ":material/fact_check:"),
    PageLink("pages/languages.py", "Languages", ":material/translate:"),
)
"""The navigation, in order. A new page: add its script to ``pages/`` and a row here."""


def setup_page(title: str, *, training_sidebar: bool = True) -> None:
    """Set up the page ``title`` (one of :data:`PAGES`): config, link check, preload, navigation,
    presentation mode (:mod:`ui.presentation`: the sidebar collapsed and the page's CSS), sidebar.

    Every page script calls this before drawing anything else.

    Args:
        title: the page's title in :data:`PAGES`.
        training_sidebar: draw the corpus and training sidebar (pages that do not use the
            applied training, such as Lessons, pass False).

    Raises:
        KeyError: ``title`` is not in :data:`PAGES`.
    """
    if title not in {p.title for p in PAGES}:
        raise KeyError(f"no page titled {title!r} in ui.layout.PAGES")
    st.set_page_config(page_title=f"{title} · BPE Explorer", page_icon=str(ICON), layout="wide")
    _follow_text_link()  # first: an old link's `text` corpus hash becomes `corpus_hash` before the check
    check_link()  # before any widget reads a value from the URL
    start_preload()
    present = _navigation()
    open_at_top(title)  # Streamlit keeps the scroll position across pages: a page switch starts at the top
    st.set_page_config(initial_sidebar_state="collapsed" if present else "auto")
    # st.markdown, not st.html: the page's own HTML elements (token rows) stay the only st.html ones
    st.markdown(presentation.css(present), unsafe_allow_html=True)
    unknown_page_notice([(page.title, page.path) for page in PAGES])  # /token_trees runs the first page
    if training_sidebar:
        sidebar.render()
    for problem in st.session_state.pop(state.LINK_PROBLEMS, ()):  # said once, on the run after the check
        st.warning(f"This link holds a value that cannot be used: {plain(problem)}")


def _navigation() -> bool:
    """The row of page links at the top of the main area (the current page is highlighted), with the
    presentation-mode toggle after them; returns whether presentation mode is on."""
    with st.container(horizontal=True, gap="small", vertical_alignment="center", key="navigation"):
        for page in PAGES:
            st.page_link(page.path, label=page.title, icon=page.icon)
        st.space("small")
        return presentation.toggle()


def _follow_text_link() -> None:
    """Turn ``?text=...`` into the Encode page with that text (``?encode_text=...``), keeping the other
    parameters. A link from before the corpus hash was renamed (``text`` = a hex hash next to
    ``corpus_source=Paste`` or ``Upload``) gets its parameter renamed instead."""
    params = st.query_params.to_dict()
    text = params.pop(TEXT_LINK, None)
    if text is None:
        return
    if params.get(state.SOURCE) in ("Paste", "Upload") and _OLD_CORPUS_HASH.fullmatch(text):
        params[sidebar.TEXT_PARAM] = text
        st.query_params.from_dict(params)
        return
    params[state.ENCODE_TEXT] = text
    st.switch_page(ENCODE_PAGE, query_params=params)

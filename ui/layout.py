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

from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from ui import sidebar
from ui.cache import start_preload

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


PAGES: tuple[PageLink, ...] = (
    PageLink("app.py", "Train", ":material/model_training:"),
    PageLink("pages/encode.py", "Encode", ":material/text_fields:"),
    PageLink("pages/compare.py", "Compare", ":material/compare_arrows:"),
    PageLink("pages/lessons.py", "Lessons", ":material/school:"),
    PageLink("pages/provenance.py", "Token trees", ":material/account_tree:"),
    PageLink("pages/check.py", "Check an example", ":material/fact_check:"),
)
"""The navigation, in order. A new page: add its script to ``pages/`` and a row here."""


def setup_page(title: str, *, training_sidebar: bool = True) -> None:
    """Set up the page ``title`` (one of :data:`PAGES`): config, preload, sidebar, navigation.

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
    start_preload()
    if training_sidebar:
        sidebar.render()
    _navigation()


def _navigation() -> None:
    """The row of page links at the top of the main area (the current page is highlighted)."""
    with st.container(horizontal=True, gap="small"):
        for page in PAGES:
            st.page_link(page.path, label=page.title, icon=page.icon)

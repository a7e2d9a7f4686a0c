"""Open every page at its top.

Streamlit keeps the main area's scroll position when the app moves to another page (``st.switch_page``, an
``st.page_link``): the main area (``[data-testid="stMain"]``) is one scrolling element shared by all pages, and
its elements are replaced in place. The new page then opens as far down as the old one was scrolled, as far as
its own length allows; the browser's scroll anchoring keeps it there while the page grows. "Open in Train"
from the bottom of the Check page opened Train 1,240 px down, its title and step heading off screen. It only
opened at the top when the new page happened to be shorter than the window when first drawn.

:func:`open_at_top` mounts a JavaScript-only component that remembers, in the browser tab, which page it last
showed, and scrolls the main area to the top when that changes. Reruns of the same page (a step, a widget)
keep their scroll position, and so does the first page a tab opens (a link with a ``#heading`` anchor still
lands on it). The component draws nothing and reads nothing but the page's title, which the app sets.
"""

from __future__ import annotations

import streamlit as st

from ui import state

_JS = """
export default function (component) {
  const page = component.data;
  const shown = window.bpeShownPage;
  window.bpeShownPage = page;
  if (shown === undefined || shown === page) return;  // the tab's first page, or a rerun of the same one
  const main = document.querySelector('[data-testid="stMain"]');
  if (main) main.scrollTop = 0;
  window.scrollTo(0, 0);
}
"""

_component = st.components.v2.component("bpe_explorer.page_top", js=_JS)


def open_at_top(title: str) -> None:
    """Scroll the main area to the top when the browser tab last showed another page than ``title``.

    Args:
        title: the page's title (one of :data:`ui.layout.PAGES`); trusted, set by the app.
    """
    _component(key=state.PAGE_TOP, data=title, height=0)  # hidden by ui.presentation.BASE_CSS

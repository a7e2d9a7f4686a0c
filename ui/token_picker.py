"""Click a token of the coloured text to choose its pre-token.

The coloured text is plain escaped HTML (``st.html``); its token boxes carry
``data-piece="<index>"`` (see :func:`viz.encode_views.with_pieces`). This
JavaScript-only component listens for clicks on such boxes anywhere on the page
and sends the index back to Python as a trigger value. It renders nothing, and
it reads nothing but the attribute, so no user text passes through it.
"""

from __future__ import annotations

import streamlit as st

_JS = """
export default function (component) {
  const { setTriggerValue } = component;
  const onClick = (event) => {
    const box = event.target instanceof Element ? event.target.closest("[data-piece]") : null;
    if (box) setTriggerValue("piece", Number(box.getAttribute("data-piece")));
  };
  document.addEventListener("click", onClick);
  document.body.dataset.bpeTokenPicker = "on";  // lets a browser test wait until clicks are heard
  return () => {
    document.removeEventListener("click", onClick);
    delete document.body.dataset.bpeTokenPicker;
  };
}
"""

_picker = st.components.v2.component("bpe_explorer.token_picker", js=_JS)


def clicked_piece(key: str) -> int | None:
    """Mount the click catcher; the index of the pre-token whose token was clicked in this run, else ``None``.

    Args:
        key: the component's key (one per page).
    """
    result = _picker(key=key, on_piece_change=lambda: None)
    piece = getattr(result, "piece", None)
    return piece if isinstance(piece, int) and piece >= 0 else None

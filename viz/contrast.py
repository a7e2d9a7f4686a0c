"""Readable text on coloured boxes: the WCAG 2.1 contrast ratio, and the text colour each fill needs.

WCAG 2.1, success criterion 1.4.3 (Contrast, level AA): text must have a contrast ratio of at least 4.5:1
with its background. The ratio, ``(L1 + 0.05) / (L2 + 0.05)`` of the two colours' relative luminances, is
computed by ColorAide (``Color.contrast(..., method="wcag21")``).
"""

from __future__ import annotations

from functools import lru_cache

from coloraide import Color

MIN_CONTRAST = 4.5
"""WCAG 2.1 level AA's least contrast ratio for ordinary text (success criterion 1.4.3)."""
DARK_TEXT = "#0f172a"
"""Text on light fills: the app's near-black (the token boxes' text colour)."""
LIGHT_TEXT = "#ffffff"
"""Text on dark fills."""


def relative_luminance(color: str) -> float:
    """The relative luminance (0 black to 1 white) of a ``"#rrggbb"`` colour, as WCAG 2.1 defines it (section
    "relative luminance"), computed by ColorAide (``Color.luminance()``).

    Raises:
        ValueError: not a ``#rrggbb`` colour.
    """
    if len(color) != 7 or color[0] != "#":
        raise ValueError(f"expected a colour as #rrggbb, got {color!r}")
    return Color(color).luminance()


def contrast(text: str, fill: str) -> float:
    """The WCAG 2.1 contrast ratio of two CSS colours (``"#fde68a"``, ``"white"``): 1.0 to 21.0, symmetric.

    Raises:
        ValueError: a string that is no CSS colour.
    """
    return Color(text).contrast(Color(fill), method="wcag21")


@lru_cache(maxsize=256)
def text_color(fill: str) -> str:
    """The text colour for a box filled with ``fill``: :data:`DARK_TEXT` or :data:`LIGHT_TEXT`, whichever
    has the higher contrast with it.

    Raises:
        ValueError: ``fill`` is no CSS colour, or neither text colour reaches :data:`MIN_CONTRAST` on it (a
            mid-grey fill: change the palette).
    """
    best = max((DARK_TEXT, LIGHT_TEXT), key=lambda text: contrast(text, fill))
    if contrast(best, fill) < MIN_CONTRAST:
        raise ValueError(f"no text colour reaches {MIN_CONTRAST}:1 on {fill}: choose a lighter or darker fill")
    return best

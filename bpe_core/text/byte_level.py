"""The byte-level alphabet: GPT-2's reversible byte-to-unicode table.

Byte-level BPE works on the 256 byte values of UTF-8 text. To write merge rules
and vocabularies as text (``merges.txt``, ``vocab.json``), GPT-2 maps every byte
to a printable Unicode character: printable Latin-1 bytes map to themselves and
the rest (controls, space, ...) are shifted to code points from U+0100 up, so a
space is rendered ``Ġ`` (U+0120) and a newline ``Ċ`` (U+010A).

Source: OpenAI GPT-2, ``src/encoder.py``, function ``bytes_to_unicode``.
"""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def bytes_to_unicode() -> dict[int, str]:
    """Return GPT-2's byte -> character table.

    Returns:
        A dict with exactly 256 entries, byte value (0..255) -> a one-character
        string; the mapping is one-to-one.

    Source: GPT-2 ``encoder.py`` ``bytes_to_unicode``: the bytes ``!``..``~``,
    ``¡``..``¬`` and ``®``..``ÿ`` keep their Latin-1 character; the other 68
    bytes, in increasing order, take U+0100, U+0101, ...
    """
    printable = [
        *range(ord("!"), ord("~") + 1),
        *range(ord("¡"), ord("¬") + 1),
        *range(ord("®"), ord("ÿ") + 1),
    ]
    table: dict[int, str] = {b: chr(b) for b in printable}
    shift = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + shift)
            shift += 1
    return dict(sorted(table.items()))


@lru_cache(maxsize=1)
def unicode_to_bytes() -> dict[str, int]:
    """Return the inverse of :func:`bytes_to_unicode`: character -> byte value (0..255)."""
    return {ch: b for b, ch in bytes_to_unicode().items()}


def render_bytes(data: bytes) -> str:
    """Render bytes in the byte-level alphabet, e.g. ``b" hi"`` -> ``"Ġhi"``.

    Args:
        data: any bytes.

    Returns:
        A string with one character per byte.
    """
    table = bytes_to_unicode()
    return "".join(table[b] for b in data)

"""One policy for text that is not valid Unicode: lone surrogates.

A Python ``str`` may hold code points U+D800..U+DFFF on their own (from a
``surrogateescape``-decoded command-line argument, or ``"\\ud83d"`` typed in
code). They are not characters and have no UTF-8 bytes, so every unit
refuses them, with the position of the first one. A *pair* written as two
code points (``"\\ud83d\\udc4d"``, as UTF-16 stores 👍) is not lone: it is read
as the one character it encodes (Unicode 15, section 3.9, D91 "UTF-16").
"""

from __future__ import annotations

import re

from ..errors import SurrogateError

_SURROGATE = re.compile("[\ud800-\udfff]")
_PAIR_OR_LONE = re.compile("[\ud800-\udbff][\udc00-\udfff]|([\ud800-\udfff])")


def _join(pair: re.Match[str]) -> str:
    high, low = pair.group()
    return chr(0x10000 + ((ord(high) - 0xD800) << 10) + (ord(low) - 0xDC00))


def check_text(text: str) -> str:
    """Return ``text`` as Unicode text the engine can spell, or refuse it.

    Args:
        text: any ``str``.

    Returns:
        ``text`` itself when it holds no surrogate code point (the usual case,
        one scan in C); otherwise a copy in which each high+low surrogate pair
        is replaced by the character it encodes.

    Raises:
        SurrogateError: a surrogate without its partner; the message gives its
            code point and its position (0-based, in code points of ``text``).
        TypeError: ``text`` is not a ``str``.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    if text.isascii() or _SURROGATE.search(text) is None:  # isascii reads a flag: no scan for ASCII text
        return text
    for m in _PAIR_OR_LONE.finditer(text):
        if m.group(1) is not None:
            pos = m.start()
            raise SurrogateError(
                f"the text holds a lone surrogate U+{ord(text[pos]):04X} at position {pos:,} (counting characters "
                "from 0): it is half of a UTF-16 pair, not a character, and has no UTF-8 bytes; remove it or "
                "give the whole character"
            )
    return _PAIR_OR_LONE.sub(_join, text)

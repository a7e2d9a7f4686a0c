"""Put user text into Streamlit markdown (captions, headings, messages) as plain text.

File names, session names and token strings come from users. Pasted into
markdown as they are, ``![t](http://example.invalid/x.png)`` would fetch an
image from outside, ``**`` would turn bold and two ``$`` signs would start
LaTeX. :func:`plain` backslash-escapes every ASCII punctuation character
(CommonMark shows an escaped punctuation character as itself, whatever it is),
and :func:`code` wraps text in a code span whose fence no backtick inside can close.
"""

from __future__ import annotations

import re
import string

_PUNCTUATION = re.compile("([" + re.escape(string.punctuation) + "])")
_LINE_BREAKS = re.compile(r"[\r\n\u2028\u2029]+")
_AUTOLINK = re.compile(r"(?i)(?<=[a-z]):(?=//)|\bwww(?=\.)|@")
JOINER = "\u2060"
"""U+2060 WORD JOINER: invisible, and it stops markdown from seeing a bare URL."""


def plain(text: object) -> str:
    """``text`` (anything, via ``str``) escaped so that markdown shows it literally, on one line.

    Every ASCII punctuation character gets a backslash, and line breaks become spaces
    (a blank line would start a new block). GitHub-style markdown also turns bare
    ``http://…``, ``www.…`` and ``a@b.c`` into links after escapes are read, so an
    invisible word joiner (U+2060) goes after ``:``, ``www`` and ``@`` where such a
    link would start.
    """
    text = _AUTOLINK.sub("\\g<0>" + JOINER, _LINE_BREAKS.sub(" ", str(text)))
    return _PUNCTUATION.sub(r"\\\1", text)


def code(text: object) -> str:
    """``text`` as an inline code span, however many backticks it holds.

    CommonMark closes a code span only with a backtick run as long as the one
    that opened it, so the fence is one backtick longer than the longest run
    inside; a space pads text that starts or ends with a backtick (or a space,
    which the renderer would otherwise strip from both ends).
    """
    text = _LINE_BREAKS.sub(" ", str(text))
    if not text:
        return "` `"
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * (longest + 1)
    if text.startswith(("`", " ")) or text.endswith(("`", " ")):
        text = f" {text} "
    return f"{fence}{text}{fence}"


def left_out(shown: int, total: int, noun: str, *, first: str = "first") -> str:
    """How much of a truncated list is shown: ``"the first 30 of 45 tokens (15 left out)"``, or ``""``
    when nothing is left out (``first`` may be ``"top"`` or ``"last"``)."""
    if total <= shown:
        return ""
    return f"the {first} {shown:,} of {total:,} {noun} ({total - shown:,} left out)"

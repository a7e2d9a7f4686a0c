"""Token boxes: escaped HTML for token-coloured text and for word segmentations.

All user-supplied text is passed through :func:`html.escape` before it is put
into markup, so text such as ``<script>`` is shown, never run.
"""

from __future__ import annotations

import html
import unicodedata
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import regex

from bpe_core import MARKER, PRETOKENIZER_SPECS, Tokenizer, TrainResult, WordChange, unicode_to_bytes

PALETTE = (
    "#fde68a",
    "#bfdbfe",
    "#bbf7d0",
    "#fecaca",
    "#ddd6fe",
    "#fed7aa",
    "#a5f3fc",
    "#f5d0fe",
    "#d9f99d",
    "#e2e8f0",
)
"""Pastel backgrounds for tokens, picked by token id so a token keeps its colour."""

FSI, PDI = "\u2068", "\u2069"
"""Unicode's FIRST STRONG ISOLATE and POP DIRECTIONAL ISOLATE (UAX #9, section 2.7): text between them
takes its own direction and, seen from outside, counts as one neutral character."""
LRI = "\u2066"
"""Unicode's LEFT-TO-RIGHT ISOLATE: text up to the next PDI reads left to right whatever surrounds it."""
SHOWN_TOKEN_CHARS = 40
"""Headings, captions and tables show a longer token as its first this many characters, ``…`` and its length
(a 21,445-character token drawn whole made a merge heading take seconds to draw)."""
SHOWN_KEY_CHARS = 120
"""A tie key (which may quote long tokens) longer than this many characters is cut the same way."""

_RTL_CLASSES = frozenset({"R", "AL", "AN"})
"""Bidi classes that reorder the text around them (Hebrew, Arabic letters, Arabic-Indic digits)."""

WHITESPACE_SYMBOLS = {" ": "·", "\t": "→", "\n": "↵", "\r": "␍", "\u00a0": "⍽"}
"""How whitespace is made visible: space ·, tab →, newline ↵, carriage return ␍, no-break space ⍽."""

LONG_ROW = 400
"""A row of more token boxes than this scrolls inside a box of its own (:data:`STYLE`'s ``bpe-long``): a 20,000
character text drawn whole made the Encode page 29,000 px tall, with everything below it out of reach."""

STYLE = """<style>
.bpe-row{display:flex;flex-wrap:wrap;gap:2px;align-items:flex-start;font-family:ui-monospace,monospace;line-height:1.3}
.bpe-long{max-height:24rem;overflow-y:auto;border-bottom:1px solid #e2e8f0;padding-bottom:4px}
.bpe-tok{display:inline-flex;flex-direction:column;align-items:center;border:1px solid #94a3b8;border-radius:4px;
padding:1px 4px;white-space:pre;color:#0f172a}
.bpe-tok small{font-size:0.65em;color:#475569}
.bpe-new{border:2px solid #f59e0b;box-shadow:0 0 0 1px #f59e0b}
.bpe-fallback{border:2px dashed #dc2626}
.bpe-partial{border:2px dotted #7c3aed}
.bpe-eow{color:#64748b;font-size:0.8em}
.bpe-end{margin-right:8px}
.bpe-special{border:2px solid #0f766e;font-weight:600}
.bpe-temp small{color:#b91c1c;font-style:italic}
.bpe-break{flex-basis:100%;height:0}
.bpe-change{display:flex;flex-wrap:wrap;align-items:center;gap:2px 6px}
.bpe-side{max-width:100%}
.bpe-tok[data-piece]{cursor:pointer}
.bpe-tok[data-piece]:hover{outline:2px solid #2563eb}
.bpe-word{display:inline-flex;flex-wrap:wrap;gap:2px;max-width:100%}
.bpe-arrow{padding:0 2px}
</style>"""
"""CSS for the token boxes (put once in any HTML built here)."""


@dataclass(frozen=True)
class TokenView:
    """One token as it should be drawn.

    Attributes:
        text: what the token stands for, as text (may be a hex sketch for
            bytes that are not valid UTF-8 on their own).
        raw: the token's vocabulary string (``Ġthe``, ``er</w>``, ``<0xF0>``).
        token_id: its id, or ``None`` when unknown (training traces).
        end_of_word: True when the token carries the ``</w>`` marker.
        partial: True for bytes that cut a UTF-8 character.
        fallback: True for ``<unk>``/``<0xNN>`` fallback tokens and characters kept outside the alphabet.
        special: True for a special token.
        new: True when the current merge formed it (highlighted).
        temporary: True when the id is past the vocabulary: a character the ``keep`` fallback
            numbered in the order this text met it (drawn with a ``*`` after the id).
        piece: the index of the pre-token it belongs to, when a click on it should choose that
            pre-token (drawn as a ``data-piece`` attribute; ``None``: not clickable).
    """

    text: str
    raw: str
    token_id: int | None = None
    end_of_word: bool = False
    partial: bool = False
    fallback: bool = False
    special: bool = False
    new: bool = False
    temporary: bool = False
    piece: int | None = None


DOTTED_CIRCLE = "\u25cc"
"""U+25CC, the base Unicode charts draw a combining mark on when it has no letter to sit on."""

_C0_NAMES = (
    "NUL SOH STX ETX EOT ENQ ACK BEL BS HT LF VT FF CR SO SI DLE DC1 DC2 DC3 DC4 NAK SYN ETB CAN EM SUB ESC FS GS RS US"
).split()
SHORT_NAMES: dict[str, str] = {
    **{chr(i): name for i, name in enumerate(_C0_NAMES)},
    "\x7f": "DEL",
    "\x85": "NEL",
    "\u00ad": "SHY",
    "\u061c": "ALM",
    "\u180e": "MVS",
    "\u200b": "ZWSP",
    "\u200c": "ZWNJ",
    "\u200d": "ZWJ",
    "\u200e": "LRM",
    "\u200f": "RLM",
    "\u2028": "LSEP",
    "\u2029": "PSEP",
    "\u202a": "LRE",
    "\u202b": "RLE",
    "\u202c": "PDF",
    "\u202d": "LRO",
    "\u202e": "RLO",
    "\u2060": "WJ",
    "\u2066": "LRI",
    "\u2067": "RLI",
    "\u2068": "FSI",
    "\u2069": "PDI",
    "\ufeff": "BOM",
}
"""Unicode's abbreviations (NameAliases.txt) of the invisible characters text meets most often."""

_LABELLED = {"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"}
"""Categories drawn as a label: controls, format characters (ZWJ, RTL marks), line and paragraph
separators, surrogates, private-use and unassigned code points (none has a glyph of its own)."""
_MARKS = {"Mn", "Me"}
"""Combining marks: drawn on :data:`DOTTED_CIRCLE` when nothing visible precedes them."""


def char_label(ch: str) -> str:
    """A visible label for an invisible character: ``⟨U+200D ZWJ⟩``, ``⟨U+E000⟩`` when it has no name.

    Short names come from :data:`SHORT_NAMES`, else :func:`unicodedata.name` (``⟨U+E0061 TAG LATIN
    SMALL LETTER A⟩``); variation selectors read ``VS1`` to ``VS256``.
    """
    code = ord(ch)
    if 0xFE00 <= code <= 0xFE0F:
        name = f"VS{code - 0xFE00 + 1}"
    elif 0xE0100 <= code <= 0xE01EF:
        name = f"VS{code - 0xE0100 + 17}"
    else:
        name = SHORT_NAMES.get(ch) or unicodedata.name(ch, "")
    return f"⟨U+{code:04X}{' ' + name if name else ''}⟩"


def isolate(text: str) -> str:
    """``text`` between bidi isolates (FSI ... PDI) when it holds right-to-left characters, else unchanged.

    In a left-to-right line, ``“ש” + “ל” → “של”`` is one right-to-left run: the browser draws
    it reversed, result left of the arrow. Isolating each token keeps the line's order (the
    Unicode Bidirectional Algorithm, UAX #9, rules X5a-X5c) while each token still reads right to
    left inside. Text without R, AL or AN characters needs no isolate, so it stays as it was.
    """
    if text.isascii() or not any(unicodedata.bidirectional(ch) in _RTL_CLASSES for ch in text):
        return text
    return FSI + text + PDI


_RTL_WORD = regex.compile(r"""[^\s'"“”‘’()]*[\p{bc=R}\p{bc=AL}][^\s'"“”‘’()]*""")
"""A run of text holding a right-to-left letter, up to whitespace, quotes or parentheses."""


def isolate_words(text: str) -> str:
    """``text`` (a sentence, e.g. a tie key or a blocked rule's reason) with every run holding
    right-to-left letters between bidi isolates (see :func:`isolate`): in ``first seen in word 1 'שלום'
    at offset 3`` the word no longer pulls ``1 '`` into its right-to-left run."""
    if text.isascii():
        return text
    return _RTL_WORD.sub(lambda m: FSI + m.group(0) + PDI, text)


@lru_cache(maxsize=65536)
def visible(text: str, show_whitespace: bool = True) -> str:
    """``text`` made visible; not escaped.

    Whitespace becomes a symbol (see :data:`WHITESPACE_SYMBOLS`) when
    ``show_whitespace`` is on. Whatever the toggle, characters that draw nothing
    become a label (see :func:`char_label`: ``⟨U+200D ZWJ⟩``, ``⟨U+200F RLM⟩``), and a
    combining mark (category Mn/Me) with no character to sit on, at the start or after a
    symbol or label, is drawn on a dotted circle (``◌́``). Variation selectors that
    start a token are labelled too: on a dotted circle they would still draw nothing.
    """
    out = []
    base = False  # does the previous character drawn carry a glyph a mark can sit on?
    for ch in text:
        if show_whitespace and ch in WHITESPACE_SYMBOLS:
            out.append(WHITESPACE_SYMBOLS[ch])
            base = False
            continue
        category = unicodedata.category(ch)
        if category in _LABELLED and ch not in WHITESPACE_SYMBOLS:
            out.append(char_label(ch))
            base = False
        elif category in _MARKS and not base:
            selector = 0xFE00 <= ord(ch) <= 0xFE0F or 0xE0100 <= ord(ch) <= 0xE01EF
            out.append(char_label(ch) if selector else DOTTED_CIRCLE + ch)
            base = not selector
        else:
            out.append(ch)
            base = not ch.isspace()
    return "".join(out)


def describe_bytes(data: bytes) -> str:
    """Bytes as text when they are valid UTF-8, else as hex: ``b'\\xf0\\x9f'`` -> ``⟨F0 9F⟩``.

    The hex digits are separated by a narrow no-break space (U+202F), which
    :func:`visible` leaves alone, so they never read as space bytes.
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return "⟨" + "\u202f".join(f"{b:02X}" for b in data) + "⟩"


def view_of_string(token: str, unit: str, end_of_word_mode: bool) -> TokenView:
    """Build a :class:`TokenView` from a training-trace token string.

    Args:
        token: a display string from a trace (``Ġthe``, ``er</w>``).
        unit: ``"char"`` or ``"byte"``; byte tokens are decoded through
            GPT-2's byte-to-unicode table.
        end_of_word_mode: True for ``whitespace_eow`` training, where a
            trailing ``</w>`` is the marker.
    """
    core = token
    eow = False
    if end_of_word_mode and token.endswith(MARKER):
        core, eow = token[: -len(MARKER)], True
    if unit == "byte":
        table = unicode_to_bytes()
        try:
            data = bytes(table[ch] for ch in core)
        except KeyError:
            return TokenView(text=core, raw=token, end_of_word=eow)
        text = describe_bytes(data)
        return TokenView(text=text, raw=token, end_of_word=eow, partial=text.startswith("⟨") and bool(data))
    return TokenView(text=core, raw=token, end_of_word=eow)


def view_of_id(tokenizer: Tokenizer, token_id: int) -> TokenView:
    """Build a :class:`TokenView` from a vocabulary id, as the Encode page draws its tokens.

    The text comes from the token's bytes and the end-of-word marker from its id's flag
    (:meth:`bpe_core.MergeModel.token_ends_word`), never from its string: a literal ``</w>``
    typed in the corpus is drawn as the text ``</w>``, and only the marker as the marker.

    Args:
        tokenizer: the tokenizer (e.g. ``TrainResult.tokenizer``) whose vocabulary holds ``token_id``.
        token_id: a vocabulary id (special tokens included).

    Raises:
        bpe_core.TokenIdError: the id is outside the vocabulary.
    """
    data = tokenizer.model.token_bytes(token_id)
    eow = tokenizer.model.token_ends_word(token_id)
    if eow:
        data = data[:-1]  # the marker decodes to one space
    text = describe_bytes(data)
    return TokenView(
        text=text,
        raw=tokenizer.model.id_to_token(token_id),
        token_id=token_id,
        end_of_word=eow,
        partial=text.startswith("⟨") and bool(data),
    )


@lru_cache(maxsize=8)
def display_for(unit: str, end_of_word_mode: bool) -> Callable[[str], str]:
    """A function that shows a token string in tables and headings the way the token boxes show it.

    Byte-level strings are decoded (``Ġthe`` -> ``·the``; bytes that cut a
    character as ``⟨F0 9F⟩``), whitespace is made visible, and the end-of-word
    marker is kept as ``</w>``. A token holding right-to-left characters comes
    between bidi isolates (see :func:`isolate`), so headings and tables that
    put several tokens on one line keep their left-to-right order.

    Args:
        unit: ``"char"`` or ``"byte"``.
        end_of_word_mode: True for ``whitespace_eow`` tokenizers (a trailing ``</w>`` is the marker).
    """

    @lru_cache(maxsize=65536)
    def show(token: str) -> str:
        view = view_of_string(token, unit, end_of_word_mode)
        return shown_token(view.text, view.end_of_word)

    return show


def shown_token(text: str, end_of_word: bool = False) -> str:
    """A token's text as headings and tables show it: whitespace made visible (:func:`visible`), cut after
    :data:`SHOWN_TOKEN_CHARS` characters with ``… (21,445 characters)``, and ``</w>`` after it when
    ``end_of_word``.

    Text holding right-to-left characters comes between bidi isolates (:func:`isolate`) and the marker
    in its own left-to-right isolate, so ``ם`` + ``</w>`` reads ``ם</w>``, not ``<w/>ם`` (inside one
    isolate the marker would join the Hebrew run and be drawn reversed, its brackets mirrored).
    """
    cut = len(text) > SHOWN_TOKEN_CHARS
    body = isolate(visible(text[:SHOWN_TOKEN_CHARS] if cut else text) + ("…" if cut else ""))
    marker = "" if not end_of_word else (LRI + MARKER + PDI if body.startswith(FSI) else MARKER)
    return body + marker + (f" ({len(text):,} characters)" if cut else "")


def shown_key(text: str) -> str:
    """A tie key (or other sentence quoting tokens) for display: cut after :data:`SHOWN_KEY_CHARS`
    characters with its length said, right-to-left words isolated (:func:`isolate_words`)."""
    if len(text) > SHOWN_KEY_CHARS:
        text = f"{text[:SHOWN_KEY_CHARS]}… ({len(text):,} characters)"
    return isolate_words(text)


def end_of_word_mode(source: Tokenizer | TrainResult) -> bool:
    """True when ``source`` (a tokenizer or a training result) ends words with the ``</w>`` marker."""
    if isinstance(source, TrainResult):
        return PRETOKENIZER_SPECS[source.config.pretokenizer].end_of_word
    return source.model.end_of_word is not None


def unit_of(source: Tokenizer | TrainResult) -> str:
    """``"char"`` or ``"byte"``: the base symbols of a tokenizer or a training result."""
    return source.config.unit if isinstance(source, TrainResult) else source.model.unit


def display_of(source: Tokenizer | TrainResult) -> Callable[[str], str]:
    """:func:`display_for` with the unit and end-of-word mode of a tokenizer or a training result."""
    return display_for(unit_of(source), end_of_word_mode(source))


def strings_row(tokens: Iterable[str], unit: str, end_of_word_mode: bool) -> str:
    """Escaped HTML: a row of token boxes (no ids) for token strings from a trace."""
    return tokens_row([view_of_string(t, unit, end_of_word_mode) for t in tokens], show_ids=False)


def color_for(index: int) -> str:
    """The palette colour for a token id."""
    return PALETTE[index % len(PALETTE)]


def row_colors(indices: Iterable[int]) -> list[int]:
    """Palette slots for a row of tokens: each token's own (:func:`color_for`), whatever its neighbours.

    A token has one colour everywhere: ``e</w>`` is the same colour in every word, every step and every
    row. Two neighbours that share a colour stay two boxes (each has its border, with a gap between).

    Args:
        indices: each token's colour index (:func:`color_index`), left to right.

    Returns:
        One palette slot (``0 <= slot < len(PALETTE)``) per token.
    """
    return [index % len(PALETTE) for index in indices]


def color_index(view: TokenView) -> int:
    """The token's id, or a stable checksum of its string when the id is unknown (training traces)."""
    return view.token_id if view.token_id is not None else zlib.crc32(view.raw.encode("utf-8", "surrogatepass"))


def piece_number(index: int) -> str:
    """How a pre-token is numbered on screen, from 1 as people count: ``#1`` for the 0-based ``index`` 0.

    The engine's traces, the page and a token box's ``data-piece`` attribute keep 0-based indices; only the
    text people read says ``#1``.
    """
    return f"#{index + 1}"


def token_box(view: TokenView, color_index: int, show_whitespace: bool = True, show_id: bool = True) -> str:
    """Escaped HTML for one token box (text on top, id underneath)."""
    classes = ["bpe-tok"]
    if view.new:
        classes.append("bpe-new")
    if view.fallback:
        classes.append("bpe-fallback")
    if view.partial:
        classes.append("bpe-partial")
    if view.special:
        classes.append("bpe-special")
    if view.end_of_word:
        classes.append("bpe-end")
    if view.temporary:
        classes.append("bpe-temp")
    label = html.escape(visible(view.text, show_whitespace)) or "&nbsp;"
    if view.end_of_word:
        label += f'<span class="bpe-eow">{html.escape(MARKER)}</span>'
    title = f"{view.raw!r}" + (f" id {view.token_id}" if view.token_id is not None else "")
    if view.partial:
        title += " (part of a UTF-8 character)"
    if view.fallback:
        title += " (fallback)"
    if view.temporary:
        title += ": a temporary id past the vocabulary, numbered in the order this text met new characters"
    if view.piece is not None:
        title += f" (click: pre-token {piece_number(view.piece)} rule by rule)"
    star = "*" if view.temporary else ""
    under = f"<small>{view.token_id}{star}</small>" if show_id and view.token_id is not None else ""
    piece = f' data-piece="{int(view.piece)}"' if view.piece is not None else ""
    return (
        f'<span class="{" ".join(classes)}" style="background:{color_for(color_index)}"{piece} '
        f'title="{html.escape(title, quote=True)}">{label}{under}</span>'
    )


def tokens_row(
    views: Sequence[TokenView],
    *,
    show_whitespace: bool = True,
    show_ids: bool = True,
    break_on_newline: bool = True,
) -> str:
    """Escaped HTML for a row of token boxes, coloured by id, wrapping lines at newlines; a row of more than
    :data:`LONG_ROW` boxes scrolls in a box 24rem tall."""
    parts = [STYLE, '<div class="bpe-row bpe-long">' if len(views) > LONG_ROW else '<div class="bpe-row">']
    for view, slot in zip(views, row_colors(map(color_index, views))):
        parts.append(token_box(view, slot, show_whitespace, show_ids))
        if break_on_newline and view.text.endswith("\n"):
            parts.append('<span class="bpe-break"></span>')
    parts.append("</div>")
    return "".join(parts)


def word_change_html(
    before: Iterable[str],
    after: Iterable[str],
    merged_at: Iterable[int],
    unit: str,
    end_of_word_mode: bool,
    excerpt: bool = False,
) -> str:
    """Escaped HTML: a word's tokens before a merge, an arrow, and after it with the new tokens outlined.

    ``excerpt`` marks a window of a long word: ``…`` is drawn on both sides of each half.
    "Before" and "after" are two blocks that each wrap on their own, so a word too long for
    one line never has tokens of one half on the other half's line.
    """
    b = [view_of_string(t, unit, end_of_word_mode) for t in before]
    a = [view_of_string(t, unit, end_of_word_mode) for t in after]
    return _change_html(b, a, merged_at, excerpt)


def change_html(change: WordChange, tokenizer: Tokenizer) -> str:
    """Escaped HTML for one rewritten word (:func:`word_change_html`), drawn from the change's token ids.

    Each box is built by :func:`view_of_id`, so a literal ``</w>`` typed in the corpus
    shows as text and only the end-of-word marker as the marker. A record without ids
    (``before_ids`` empty) is drawn from its strings.

    Args:
        change: a :class:`~bpe_core.trace.WordChange` (``MergeStep.words`` or ``TrainResult.word_changes``).
        tokenizer: the tokenizer of the training that recorded it (``TrainResult.tokenizer``).
    """
    if not change.after_ids:
        eow = end_of_word_mode(tokenizer)
        return word_change_html(
            change.before, change.after, change.merged_at, tokenizer.model.unit, eow, change.excerpt
        )
    b = [view_of_id(tokenizer, i) for i in change.before_ids]
    a = [view_of_id(tokenizer, i) for i in change.after_ids]
    return _change_html(b, a, change.merged_at, change.excerpt)


def _change_html(b: list[TokenView], a: list[TokenView], merged_at: Iterable[int], excerpt: bool) -> str:
    """The before → after blocks of :func:`word_change_html`, from token views (``merged_at`` outlined)."""
    new = set(merged_at)
    a = [TokenView(**{**v.__dict__, "new": True}) if k in new else v for k, v in enumerate(a)]
    left = "".join(token_box(v, slot, True, False) for v, slot in zip(b, row_colors(map(color_index, b))))
    right = "".join(token_box(v, slot, True, False) for v, slot in zip(a, row_colors(map(color_index, a))))
    if excerpt:
        left, right = f"<span>…</span>{left}<span>…</span>", f"<span>…</span>{right}<span>…</span>"
    return (
        f'<div class="bpe-change"><div class="bpe-row bpe-side">{left}</div>'
        f'<span class="bpe-arrow">→</span><div class="bpe-row bpe-side">{right}</div></div>'
    )

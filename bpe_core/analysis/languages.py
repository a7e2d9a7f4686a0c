"""Parallel text in many languages, and what a tokenizer charges each: the token premium.

Petrov et al. 2023 ("Language Model Tokenizers Introduce Unfairness Between
Languages", NeurIPS) measure a tokenizer on parallel text, the same content
translated into each language: the *tokenization premium* of a language is the
number of tokens its version needs over the number the English version needs
(their definition of tokenization parity and premium; they use FLORES-200 and
average over sentences, here one whole section each, so a premium is a ratio of
totals). A premium of 2 means the same declaration costs twice the tokens, so
twice the price and half the context.

Parallel text comes as sections with a header line each, as in the UDHR
sample (``sample_corpora/udhr-multiscript.txt``)::

    === UDHR: English [eng] ===
    Universal Declaration of Human Rights
    ...
    === UDHR: French [fra] ===
    ...

:func:`parallel_sections` reads them; :func:`token_counts` and
:func:`token_premiums` measure a tokenizer on them; :func:`unseen_characters` counts the
characters a char-level table never saw (each stays a token, whatever its merges);
:func:`premium_curves`
follows the premiums over a merge table, merge by merge, from one traced
encoding per section (:func:`bpe_core.analysis.compression.token_counts_by_merges`).
Each section also carries the scripts its letters are written in (Unicode's
Script property, UAX #24), so a chart can mark them.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache

import regex

from ..encoding.encoder import Tokenizer
from ..errors import BPEError
from ..training.result import TrainResult
from .compression import token_counts_by_merges

REFERENCE = "eng"
"""The section code premiums are measured against by default (English, as in Petrov et al. 2023)."""

HEADER = regex.compile(r"=== (?P<collection>[^:\[\]=\n]+?): (?P<name>[^\[\]\n]+?) \[(?P<code>[A-Za-z0-9_-]+)\] ===")
"""A parallel section's header line: ``=== <collection>: <name> [<code>] ===``."""
OTHER_HEADER = regex.compile(r"===[^:\[\]\n]*===")
"""Another kind of section (``=== emojilib 4.0.3 emoji-en-US ===``): it ends the section before and is skipped."""
EXPECTED = "=== <collection>: <name> [<code>] ===, e.g. === UDHR: English [eng] ==="

SCRIPTS = (
    "Adlam Ahom Anatolian_Hieroglyphs Arabic Armenian Avestan Balinese Bamum Bassa_Vah Batak Bengali Bhaiksuki "
    "Bopomofo Brahmi Braille Buginese Buhid Canadian_Aboriginal Carian Caucasian_Albanian Chakma Cham Cherokee "
    "Chorasmian Coptic Cuneiform Cypriot Cypro_Minoan Cyrillic Deseret Devanagari Dives_Akuru Dogra Duployan "
    "Egyptian_Hieroglyphs Elbasan Elymaic Ethiopic Garay Georgian Glagolitic Gothic Grantha Greek Gujarati "
    "Gunjala_Gondi Gurmukhi Gurung_Khema Han Hangul Hanifi_Rohingya Hanunoo Hatran Hebrew Hiragana Imperial_Aramaic "
    "Inscriptional_Pahlavi Inscriptional_Parthian Javanese Kaithi Kannada Katakana Kawi Kayah_Li Kharoshthi "
    "Khitan_Small_Script Khmer Khojki Khudawadi Kirat_Rai Lao Latin Lepcha Limbu Linear_A Linear_B Lisu Lycian "
    "Lydian Mahajani Makasar Malayalam Mandaic Manichaean Marchen Masaram_Gondi Medefaidrin Meetei_Mayek "
    "Mende_Kikakui Meroitic_Cursive Meroitic_Hieroglyphs Miao Modi Mongolian Mro Multani Myanmar Nabataean "
    "Nag_Mundari Nandinagari New_Tai_Lue Newa Nko Nushu Nyiakeng_Puachue_Hmong Ogham Ol_Chiki Ol_Onal "
    "Old_Hungarian Old_Italic Old_North_Arabian Old_Permic Old_Persian Old_Sogdian Old_South_Arabian Old_Turkic "
    "Old_Uyghur Oriya Osage Osmanya Pahawh_Hmong Palmyrene Pau_Cin_Hau Phags_Pa Phoenician Psalter_Pahlavi Rejang "
    "Runic Samaritan Saurashtra Sharada Shavian Siddham SignWriting Sinhala Sogdian Sora_Sompeng Soyombo Sundanese "
    "Sunuwar Syloti_Nagri Syriac Tagalog Tagbanwa Tai_Le Tai_Tham Tai_Viet Takri Tamil Tangsa Tangut Telugu Thaana "
    "Thai Tibetan Tifinagh Tirhuta Todhri Toto Tulu_Tigalari Ugaritic Vai Vithkuqi Wancho Warang_Citi Yezidi Yi "
    "Zanabazar_Square"
).split()
"""Unicode's scripts (Script property values, Unicode 16) a letter can belong to, without Common and Inherited."""
OTHER_SCRIPT = "Other"
"""The script of a letter in none of :data:`SCRIPTS` (one from a newer Unicode version)."""
MIXED_SHARE = 0.25
"""A section names every script that writes at least this share of its letters (Japanese: Hiragana + Han)."""


class SectionError(BPEError):
    """Parallel text that cannot be read or measured: a malformed or repeated header, an empty section,
    no section at all, or a reference code that is missing. The message names the line or code."""


@dataclass(frozen=True)
class ParallelSection:
    """One language's version of a parallel text.

    Attributes:
        code: the code in the header's brackets (``eng``, ``deu_1996``, ``cmn_hans``); unique in its text.
        name: the language's name as the header gives it (``German, Standard (1996)``).
        collection: what the header names before the colon (``UDHR``).
        text: the lines between this header and the next, blank lines at both ends left out.
        line: the header's line number (1-based) in the text read.
        scripts: ``((script, letters), ...)``: the Unicode scripts of the text's letters, most letters
            first (``"Canadian_Aboriginal"`` is written ``"Canadian Aboriginal"``).
    """

    code: str
    name: str
    collection: str
    text: str
    line: int
    scripts: tuple[tuple[str, int], ...] = field(default=(), compare=False)

    @property
    def script(self) -> str:
        """The scripts that write at least :data:`MIXED_SHARE` of the letters, joined by `` + ``
        (``Latin``, ``Hiragana + Han``); ``"none"`` for a text without letters."""
        total = sum(n for _, n in self.scripts)
        main = [s for s, n in self.scripts if n >= MIXED_SHARE * total]
        return " + ".join(main) if main else "none"


@cache
def _script_pattern() -> regex.Pattern[str]:
    """One alternative per script of :data:`SCRIPTS` (the match's ``lastindex`` names it), then Common and
    Inherited (letters shared by scripts, such as U+02BC MODIFIER LETTER APOSTROPHE), which are not counted."""
    return regex.compile(
        "|".join(rf"(\p{{Script={name}}})" for name in SCRIPTS) + r"|\p{Script=Common}|\p{Script=Inherited}"
    )


def letter_scripts(text: str) -> tuple[tuple[str, int], ...]:
    """The Unicode scripts (UAX #24 Script property) of ``text``'s letters (``\\p{L}``), with counts.

    Args:
        text: any text; marks, digits, punctuation, spaces and letters of the Common and Inherited
            scripts are not counted.

    Returns:
        ``((script, letters), ...)``, most letters first (ties by script name); a script name's
        underscores are written as spaces; letters outside :data:`SCRIPTS` count as :data:`OTHER_SCRIPT`.
    """
    pattern = _script_pattern()
    found: Counter[str] = Counter()
    for ch, n in Counter(text).items():
        if not ch.isalpha():
            continue
        m = pattern.fullmatch(ch)
        if m is None:
            found[OTHER_SCRIPT] += n
        elif m.lastindex:
            found[SCRIPTS[m.lastindex - 1].replace("_", " ")] += n
    return tuple(sorted(found.items(), key=lambda item: (-item[1], item[0])))


def parallel_sections(text: str, collection: str | None = None) -> dict[str, ParallelSection]:
    """Read parallel text: sections under ``=== <collection>: <name> [<code>] ===`` header lines.

    A section runs to the next line that starts with ``===``. A heading of another kind, without a
    colon or brackets (``=== emojilib 4.0.3 emoji-en-US ===``), ends the section before it and its
    lines are skipped; so are lines before the first header. Line ends may be ``\\n`` or ``\\r\\n``.

    Args:
        text: the whole text (the UDHR sample, or any text with this header convention).
        collection: keep only the sections of this collection (``"UDHR"``); needed when the text
            holds more than one.

    Returns:
        ``{code: ParallelSection}`` in the text's order.

    Raises:
        SectionError: a line starting with ``===`` that is neither form (naming its line and the
            expected form), a code used twice (naming both lines), a section with no text, more
            than one collection and no ``collection`` given, or no section at all.
        TypeError: ``text`` is not a ``str``.
    """
    if not isinstance(text, str):
        raise TypeError(f"parallel text must be a str, not {type(text).__name__}")
    sections: dict[str, ParallelSection] = {}
    head: tuple[int, regex.Match[str]] | None = None
    body: list[str] = []
    for number, raw in enumerate([*text.split("\n"), "=== end ==="], start=1):
        line = raw.rstrip("\r")
        if not line.startswith("==="):
            body.append(raw)
            continue
        match = HEADER.fullmatch(line.rstrip())
        if match is None and not OTHER_HEADER.fullmatch(line.rstrip()):
            raise SectionError(f"line {number:,}: {line[:80]!r} is not a section header; expected {EXPECTED}")
        if head is not None:
            _add_section(sections, head, body, collection)
        head, body = ((number, match) if match else None), []
    if not sections:
        raise SectionError(
            f"no section{f' of collection {collection!r}' if collection else ''} found; "
            f"each language's text starts with a header line {EXPECTED}"
        )
    return sections


def _add_section(
    sections: dict[str, ParallelSection], head: tuple[int, regex.Match[str]], body: list[str], wanted: str | None
) -> None:
    """Check one section read by :func:`parallel_sections` and add it (or skip it: another collection)."""
    number, match = head
    code, collection = match["code"], match["collection"].strip()
    if wanted is not None and collection != wanted:
        return
    if sections and wanted is None and (first := next(iter(sections.values()))).collection != collection:
        raise SectionError(
            f"line {number:,} starts a section of collection {collection!r}, but line {first.line:,} one of "
            f"{first.collection!r}: parallel text is one collection; pass collection= to choose one"
        )
    if code in sections:
        raise SectionError(f"line {number:,}: code [{code}] is used twice (first on line {sections[code].line:,})")
    body_text = "\n".join(body).strip("\r\n")
    if not body_text.strip():
        raise SectionError(f"line {number:,}: section [{code}] ({match['name']}) holds no text")
    sections[code] = ParallelSection(
        code, match["name"].strip(), collection, body_text, number, letter_scripts(body_text)
    )


Sections = Mapping[str, "ParallelSection | str"]
"""Sections to measure: ``{code: ParallelSection}`` as :func:`parallel_sections` gives, or ``{code: text}``."""


def _tokenizer_of(tokenizer: Tokenizer | TrainResult) -> Tokenizer:
    if isinstance(tokenizer, TrainResult):
        return tokenizer.tokenizer
    if not isinstance(tokenizer, Tokenizer):
        raise TypeError(f"expected a Tokenizer or TrainResult, not {type(tokenizer).__name__}")
    return tokenizer


def _text_of(section: ParallelSection | str) -> str:
    return section.text if isinstance(section, ParallelSection) else section


def token_counts(
    tokenizer: Tokenizer | TrainResult,
    sections: Sections,
    *,
    order: str = "rank",
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, int]:
    """How many tokens ``tokenizer`` gives each section (special tokens in the text encoded as text).

    Args:
        tokenizer: a tokenizer, or a training result (its tokenizer).
        sections: see :data:`Sections`.
        order: ``"rank"`` or ``"sequential"`` (see :class:`~bpe_core.Tokenizer`).
        progress: called as ``progress(done, total)`` after each section.

    Returns:
        ``{code: tokens}`` in ``sections``' order.

    Raises:
        OptionError: unknown ``order``. TypeError: a tokenizer or section of another type.
    """
    tok = _tokenizer_of(tokenizer)
    counts: dict[str, int] = {}
    for done, (code, section) in enumerate(sections.items(), start=1):
        counts[code] = len(tok.encode(_text_of(section), order=order))
        if progress is not None:
            progress(done, len(sections))
    return counts


def premiums_of(counts: Mapping[str, int], reference: str = REFERENCE) -> dict[str, float]:
    """Token premiums from token counts: ``counts[code] / counts[reference]`` for every code.

    Raises:
        SectionError: ``reference`` is not a code of ``counts``, or its count is 0.
    """
    if reference not in counts:
        raise SectionError(f"no section [{reference}] to measure premiums against; codes: {', '.join(counts)}")
    if counts[reference] <= 0:
        raise SectionError(f"section [{reference}] gives no tokens: premiums against it are undefined")
    return {code: n / counts[reference] for code, n in counts.items()}


def token_premiums(
    tokenizer: Tokenizer | TrainResult, sections: Sections, reference: str = REFERENCE, *, order: str = "rank"
) -> dict[str, float]:
    """Each section's token premium over ``reference`` (Petrov et al. 2023): its tokens / the reference's.

    Args:
        tokenizer: a tokenizer, or a training result (its tokenizer).
        sections: see :data:`Sections`; the reference is one of them.
        reference: the code measured against (``"eng"``); its own premium is 1.0.
        order: as for :func:`token_counts`.

    Returns:
        ``{code: premium}`` in ``sections``' order (a float; 2.0 = twice the reference's tokens).

    Raises:
        SectionError: ``reference`` is not among the sections (checked before encoding anything), or
            gives no tokens. OptionError, TypeError: as :func:`token_counts`.
    """
    if reference not in sections:
        raise SectionError(f"no section [{reference}] to measure premiums against; codes: {', '.join(sections)}")
    return premiums_of(token_counts(tokenizer, sections, order=order), reference)


def unseen_characters(tokenizer: Tokenizer | TrainResult, sections: Sections) -> dict[str, int]:
    """How many characters of each section lie outside a char-level tokenizer's alphabet.

    A char-unit table has a base symbol only for the characters of the text it was trained on. No merge
    rule names any other character, so each one stays a token however many merges the table has: under the
    ``keep`` fallback (subword-nmt ``apply_bpe``) a symbol of its own, under ``unk`` one ``<unk>``, under
    ``bytes`` one ``<0xNN>`` token per UTF-8 byte (see :data:`bpe_core.FALLBACKS`). A table trained on
    English alone thus writes Chinese at one token per character, which can be fewer tokens than English's
    letters and short merges: its premiums then measure the training text's alphabet, not the merges.

    Characters are counted in the pre-tokens, as encoding meets them (whitespace that the pre-tokenizer
    drops, such as ``whitespace_eow``'s, is not counted): the count equals the number of fallback records
    in :meth:`~bpe_core.Tokenizer.encode_with_trace`'s pieces. Time: one pre-tokenization per section and
    one look-up per character of each distinct pre-token.

    Args:
        tokenizer: a tokenizer, or a training result (its tokenizer).
        sections: see :data:`Sections`.

    Returns:
        ``{code: characters outside the alphabet}`` in ``sections``' order; all 0 for a byte-unit
        tokenizer (its alphabet is the 256 byte values).

    Raises:
        TypeError: a tokenizer or section of another type.
    """
    tok = _tokenizer_of(tokenizer)
    alphabet = tok.model.speller.alphabet
    if alphabet.byte_unit:
        return {code: 0 for code in sections}
    known = alphabet.char_ids
    counts: dict[str, int] = {}
    for code, section in sections.items():
        chunks = Counter(chunk for chunk, _special in tok.pre_tokens(_text_of(section)))
        counts[code] = sum(freq * sum(ch not in known for ch in chunk) for chunk, freq in chunks.items())
    return counts


CURVE_POINTS = 60
"""How many merge counts :func:`premium_curves` keeps the token counts at (evenly spaced, 0 and the end included)."""
TOP_MERGES = 10
"""How many merges :func:`premium_curves` lists per section as the ones that shortened it most."""
MOSTLY_DONE = 0.9
"""The share of its whole saving by which a section counts as having mostly stopped gaining."""


@dataclass(frozen=True)
class PremiumCurves:
    """Token counts and premiums of parallel sections under the first ``k`` merges, for ``k`` along a table.

    "Merge ``r``" is the rule of rank ``r`` (the ``r + 1``-th); what it saves a section is
    ``count(r) - count(r + 1)``: the section's tokens with the rules below rank ``r``, less those with
    the rules up to rank ``r`` (adding a rule never lengthens an encoding, so this is never negative).

    Attributes:
        reference: the code premiums are measured against.
        merges: the number of merge rules of the table (``k`` runs from 0 to this).
        ks: the merge counts kept, increasing, from 0 to ``merges``: evenly spaced, and the reference's
            :attr:`mostly_done`.
        counts: ``{code: (tokens after ks[0] merges, tokens after ks[1] merges, ...)}``.
        helped: ``{code: ((rank, tokens saved), ...)}``: the merges that saved the section the most
            (at most :data:`TOP_MERGES`, most first, ties by rank; none that saved nothing).
        last_gain: ``{code: rank}`` of the last merge that saved the section a token (``None``: none did).
        mostly_done: ``{code: k}``: the fewest merges after which the section had made at least
            :attr:`share` of its whole saving (0 when it saves nothing).
        most_helped: per rank, the code of the section that merge saved the most tokens (on a tie the
            reference, else the first in the sections' order; ``None`` when it saved none, e.g. a rule
            learned from text outside the sections).
        saved: per rank, the tokens that merge saved all sections together.
        share: the share :attr:`mostly_done` is measured at.
    """

    reference: str
    merges: int
    ks: tuple[int, ...]
    counts: dict[str, tuple[int, ...]]
    helped: dict[str, tuple[tuple[int, int], ...]]
    last_gain: dict[str, int | None]
    mostly_done: dict[str, int]
    most_helped: tuple[str | None, ...]
    saved: tuple[int, ...]
    share: float = MOSTLY_DONE

    def premiums(self, index: int) -> dict[str, float]:
        """The premiums after ``ks[index]`` merges: ``{code: tokens / reference tokens}``."""
        return premiums_of({code: c[index] for code, c in self.counts.items()}, self.reference)

    def premium_curve(self, code: str) -> tuple[float, ...]:
        """Section ``code``'s premium at each of :attr:`ks`.

        Raises:
            KeyError: ``code`` is not a section.
        """
        ref = self.counts[self.reference]
        return tuple(n / r for n, r in zip(self.counts[code], ref))


def curve_points(merges: int, points: int = CURVE_POINTS) -> tuple[int, ...]:
    """``points`` merge counts from 0 to ``merges``, evenly spaced (all of them when there are fewer)."""
    if merges + 1 <= points:
        return tuple(range(merges + 1))
    return tuple(sorted({round(i * merges / (points - 1)) for i in range(points)}))


class _Tally:
    """What :func:`premium_curves` gathers, one section's full count list at a time."""

    def __init__(self, merges: int, ks: tuple[int, ...], share: float) -> None:
        self.ks, self.share = ks, share
        self.counts: dict[str, tuple[int, ...]] = {}
        self.helped: dict[str, tuple[tuple[int, int], ...]] = {}
        self.last_gain: dict[str, int | None] = {}
        self.mostly_done: dict[str, int] = {}
        self.best = [0] * merges
        self.winner: list[str | None] = [None] * merges
        self.total = [0] * merges

    def add(self, code: str, full: list[int]) -> None:
        """Take in section ``code``'s token counts for ``k = 0 .. merges``."""
        self.counts[code] = tuple(full[k] for k in self.ks)
        saved = [a - b for a, b in zip(full, full[1:])]
        top = heapq.nlargest(TOP_MERGES, range(len(saved)), key=lambda r: (saved[r], -r))
        self.helped[code] = tuple((r, saved[r]) for r in top if saved[r] > 0)
        self.last_gain[code] = None
        best, winner, total = self.best, self.winner, self.total
        for r, n in enumerate(saved):  # one pass over the table per section: its per-merge tallies
            if n:
                self.last_gain[code] = r
                total[r] += n
                if n > best[r]:
                    best[r], winner[r] = n, code
        self.mostly_done[code] = _mostly_done(full, self.share)


def _mostly_done(full: list[int], share: float) -> int:
    """The fewest merges after which a count list has made ``share`` of its whole saving."""
    goal = full[0] - share * (full[0] - full[-1])
    return next(k for k, n in enumerate(full) if n <= goal)


def premium_curves(
    tokenizer: Tokenizer | TrainResult,
    sections: Sections,
    reference: str = REFERENCE,
    *,
    order: str = "rank",
    points: int = CURVE_POINTS,
    share: float = MOSTLY_DONE,
    progress: Callable[[int, int], None] | None = None,
) -> PremiumCurves:
    """How each section's tokens and premium change as the merge table is used up to its ``k``-th rule.

    One traced encoding per section gives its token count for every ``k`` at once
    (:func:`bpe_core.analysis.compression.token_counts_by_merges`: encoding with the first ``k`` rules makes
    the same choices as the whole table up to the first rule of rank ``k`` or more). From those:
    the merges that saved each section the most tokens, the last one that saved it any, when it had
    made ``share`` of its whole saving, and which section each merge saved the most. Memory: one
    section's counts at a time plus three values per merge (about ``8 * merges`` bytes each), and
    ``points`` counts per section kept. Time: one traced encoding of each section, and one pass
    over the table per section.

    Args:
        tokenizer: a tokenizer or training result (meant for a table trained here; a real
            tokenizer's 100,000 rules work too, at that many values per section while measuring).
        sections: see :data:`Sections`; must include ``reference``.
        reference: the code premiums are measured against.
        order: ``"rank"`` or ``"sequential"``.
        points: how many evenly spaced values of ``k`` to keep (at least 2: 0 and the whole table);
            the reference's :attr:`PremiumCurves.mostly_done` is kept as well.
        share: the share of a section's saving that :attr:`PremiumCurves.mostly_done` marks.
        progress: called as ``progress(done, total)`` after each section (the reference first).

    Returns:
        A :class:`PremiumCurves` (its dicts in ``sections``' order); its counts at the last ``k`` equal
        :func:`token_counts`.

    Raises:
        SectionError: ``reference`` is missing. OptionError: unknown ``order``. ValueError:
            ``points`` below 2 or ``share`` outside (0, 1]. TypeError: as :func:`token_counts`.
    """
    if reference not in sections:
        raise SectionError(f"no section [{reference}] to measure premiums against; codes: {', '.join(sections)}")
    if points < 2 or not 0 < share <= 1:
        raise ValueError(f"points must be at least 2 and share in (0, 1]; got {points} and {share}")
    tok = _tokenizer_of(tokenizer)
    merges = len(tok.model.merge_ids)
    first = token_counts_by_merges(tok, _text_of(sections[reference]), order)  # the reference's point joins ks
    tally = _Tally(merges, tuple(sorted({*curve_points(merges, points), _mostly_done(first, share)})), share)
    tally.add(reference, first)
    others = [code for code in sections if code != reference]
    for done, code in enumerate(others, start=2):
        if progress is not None:
            progress(done - 1, len(sections))
        tally.add(code, token_counts_by_merges(tok, _text_of(sections[code]), order))
    if progress is not None:
        progress(len(sections), len(sections))
    return PremiumCurves(
        reference,
        merges,
        tally.ks,
        {code: tally.counts[code] for code in sections},
        tally.helped,
        tally.last_gain,
        tally.mostly_done,
        tuple(tally.winner),
        tuple(tally.total),
        share,
    )

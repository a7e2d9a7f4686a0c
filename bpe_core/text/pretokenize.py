"""Pre-tokenizers: how raw text is cut into chunks before BPE sees it.

BPE never merges across a chunk boundary, so the pre-tokenizer decides which
tokens can exist at all (``the`` vs ``the `` vs `` the``). Each mode is one
:class:`~bpe_core.registry.pretokenizers.PreTokenizerSpec` in
:data:`bpe_core.registry.pretokenizers.PRETOKENIZER_SPECS`, named after where it comes
from; this module runs them. The built-in ones:

``whitespace_eow``
    Split on whitespace; each word then ends with the end-of-word marker ``</w>``
    (Sennrich, Haddow & Birch 2016, "Neural Machine Translation of Rare Words
    with Subword Units", section 3.2). The marker is added to the *symbols* of a
    word (see :mod:`bpe_core.text.symbols`), not to the chunk text.
``whitespace``
    The same split, with no marker: pairs never cross words.
``trailing_space``
    The same split, but every word keeps one following space, except the last
    word of the text, so tokens such as ``the `` can be learned.
``gpt2``
    The GPT-2 regular expression (OpenAI GPT-2 ``src/encoder.py``): contractions,
    letters, digits and punctuation runs, each with an optional leading space.
``gpt4``
    The cl100k_base regular expression as published in tiktoken
    (``tiktoken_ext/openai_public.py``): case-insensitive contractions, digit runs
    of at most three, and newlines kept with punctuation.
``llama3``
    Llama 3's regular expression (Meta's ``llama/tokenizer.py``): cl100k's
    older, non-possessive spelling, which cuts text as ``gpt4`` does but for
    whitespace after a line break at the very end of a text.
``none``
    No pre-tokenization: the whole text is one sequence, as in Gage's 1994 byte
    pair compressor, so merges may span spaces and lines.

The whitespace modes split with Python's :meth:`str.split` with no argument, so
every Unicode whitespace character (space, tab, CR, LF, NBSP, U+2003, ...)
separates words and runs of whitespace count as one separator.

subword-nmt cuts raw text differently (``learn_bpe.py``, ``get_vocabulary``:
``line.strip('\\r\\n ').split(' ')``): at the ASCII space only, so a tab or a
no-break space stays inside a word. ``whitespace_eow`` therefore learns
subword-nmt's merges from the same word counts always, but from raw text only
when its whitespace is spaces and line ends (``\\n``, ``\\r\\n``); the README's
"Matching subword-nmt" gives the details.
"""

from __future__ import annotations

import heapq
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache, wraps
from types import MappingProxyType
from typing import ParamSpec, TypeVar

import regex

from ..errors import OptionError, PatternError, quote
from ..registry.options import OPTIONS
from ..registry.pretokenizers import GPT2_PATTERN as GPT2_PATTERN  # re-exported: defined with its spec
from ..registry.pretokenizers import GPT4_PATTERN as GPT4_PATTERN
from ..registry.pretokenizers import (
    PRETOKENIZER_SPECS,
    PreTokenizerSpec,
    pretokenizer_spec,
    trusted_patterns,
    with_trailing_spaces,
)
from .surrogates import check_text

PRETOKENIZERS: Mapping[str, str] = OPTIONS["pretokenizer"].choices
"""Every pre-tokenizer name, with a one-line description for help texts (a view of ``OPTIONS``)."""

REGEX_PATTERNS: Mapping[str, str] = MappingProxyType(
    {name: spec.pattern for name, spec in PRETOKENIZER_SPECS.items() if spec.pattern is not None}
)
"""The split pattern of each regex pre-tokenizer (read only; from ``pretokenizers.PRETOKENIZER_SPECS``)."""

TRUSTED_PATTERNS: frozenset[str] = trusted_patterns()
"""Split patterns known to match in linear time: the trusted pre-tokenizers' own (GPT-2, cl100k, Llama 3) and
the published r50k and o200k patterns (:func:`bpe_core.registry.pretokenizers.trusted_patterns`). They run without the
``regex`` time limit, which slows matching by about 60%; every other pattern (uploaded files, sidecars,
sessions) keeps it."""


def check_pretokenizer(name: object) -> str:
    """Return ``name`` if it is a known pre-tokenizer.

    Raises:
        OptionError: ``name`` is not one of :data:`PRETOKENIZERS`.
    """
    return pretokenizer_spec(name).name


MAX_PATTERN_LENGTH = 10_000
"""The longest split pattern accepted, in characters (GPT-4's is 150)."""

PATTERN_TIMEOUT = 0.5
"""Seconds a split pattern may run on any text, before :data:`PATTERN_TIME_PER_CHAR` per character is added."""

PATTERN_TIME_PER_CHAR = 5e-6
"""Extra seconds allowed per character of text: GPT-4's pattern needs about 0.3 µs, so a whole book fits."""

PATTERN_BUDGET = 2.0
"""Seconds of split-pattern matching one whole text may use, across every piece it is cut into (special
tokens cut a text into many pieces, each split on its own), before :data:`PATTERN_TIME_PER_CHAR` per
character is added: without it, a text of many pieces could run ``pieces x`` :data:`PATTERN_TIMEOUT`."""

clock: Callable[[], float] = time.perf_counter
"""The clock (seconds) an open :func:`pattern_budget` is charged by: its reading after each split-pattern run
minus its reading before (each run's own limit, ``regex``'s ``timeout=``, stays real time). Tests replace this
module's ``clock`` to charge a known time per run, so that what they prove does not depend on the
machine's or the ``regex`` library's speed."""

P = ParamSpec("P")
R = TypeVar("R")

_BUDGET: ContextVar[list[float] | None] = ContextVar("split_pattern_budget", default=None)
"""While :func:`pattern_budget` is open: ``[seconds left, seconds granted, characters]`` for the text."""


@contextmanager
def pattern_budget(text: str) -> Iterator[None]:
    """Share one time budget among every split-pattern run made for ``text`` inside the ``with`` block.

    ``PATTERN_BUDGET + PATTERN_TIME_PER_CHAR * len(text)`` seconds of matching in all (only the time
    spent inside the pattern counts, not the merging between runs); each run keeps its own limit too.
    A block opened inside another one (e.g. an encode inside a round trip) shares the outer budget.
    :class:`SplitPattern` raises :class:`~bpe_core.errors.PatternError`, naming the pattern, once
    the budget is spent.
    """
    if _BUDGET.get() is not None:
        yield
        return
    granted = PATTERN_BUDGET + PATTERN_TIME_PER_CHAR * len(text)
    token = _BUDGET.set([granted, granted, float(len(text))])
    try:
        yield
    finally:
        _BUDGET.reset(token)


def budgeted(func: Callable[P, R]) -> Callable[P, R]:
    """Decorate a function whose second positional argument (or ``text=``) is a text: the whole call runs
    inside :func:`pattern_budget` for that text (an encode, a trace, a round trip)."""

    @wraps(func)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        text = kwargs.get("text", args[1] if len(args) > 1 else "")
        with pattern_budget(text if isinstance(text, str) else ""):
            return func(*args, **kwargs)

    return run


SPLIT_BEHAVIORS: dict[str, str] = {
    "Removed": "the matches are dropped; the text between them is kept, one piece per gap",
    "Isolated": "every match and every gap between matches is a piece of its own",
    "MergedWithPrevious": "each match is glued to the end of the piece before it",
    "MergedWithNext": "each match is glued to the start of the piece after it",
    "Contiguous": "runs of adjacent matches become one piece; gaps stay pieces",
}
"""Hugging Face ``Split`` behaviours (``SplitDelimiterBehavior``, ``tokenizers/src/tokenizer/normalizer.rs``)."""


class HFSplit(str):
    """A split pattern read from a Hugging Face ``Split`` pre-tokenizer: the regex plus its behaviour and ``invert``.

    It is the pattern's text (a ``str``), so it travels wherever a split
    pattern does (``Tokenizer.pattern``); :func:`compiled_pattern` gives it Hugging
    Face's pieces instead of a plain pattern's matches. Two patterns with the
    same text but other behaviours are not equal, and never equal a plain ``str``.

    Attributes:
        behavior: a key of :data:`SPLIT_BEHAVIORS`.
        invert: ``True`` swaps matches and gaps before the behaviour applies.
    """

    behavior: str
    invert: bool

    def __new__(cls, pattern: str, behavior: str = "Isolated", invert: bool = False) -> HFSplit:
        if behavior not in SPLIT_BEHAVIORS:
            raise OptionError(
                f"unknown Split behavior {quote(behavior)}; expected one of: {', '.join(SPLIT_BEHAVIORS)}"
            )
        self = super().__new__(cls, pattern)
        self.behavior = behavior
        self.invert = bool(invert)
        return self

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, HFSplit)
            and str.__eq__(self, other)
            and (self.behavior, self.invert) == (other.behavior, other.invert)
        )

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash((str(self), self.behavior, self.invert))

    def __reduce__(self) -> tuple[object, tuple[str, str, bool]]:
        return HFSplit, (str(self), self.behavior, self.invert)

    def __repr__(self) -> str:
        return f"HFSplit({str(self)!r}, {self.behavior!r}, invert={self.invert})"


class SplitPattern:
    """A compiled split pattern whose every run has a time limit (``regex``'s ``timeout=``).

    Plain patterns give their matches, as tiktoken's ``find_iter`` does;
    :class:`HFSplit` patterns give Hugging Face ``Split``'s pieces. Empty pieces
    are never returned.
    """

    def __init__(self, pattern: str) -> None:
        """Compile ``pattern``.

        Raises:
            PatternError: the pattern is longer than :data:`MAX_PATTERN_LENGTH`.
            regex.error: it does not compile.
        """
        if len(pattern) > MAX_PATTERN_LENGTH:
            raise PatternError(
                f"the split pattern is {len(pattern):,} characters long; at most {MAX_PATTERN_LENGTH:,} are accepted"
            )
        self.pattern = pattern
        self.regex = regex.compile(pattern)
        self.split = pattern if isinstance(pattern, HFSplit) else None
        self.trusted = type(pattern) is str and pattern in TRUSTED_PATTERNS

    def _timeout(self, text: str) -> float:
        return PATTERN_TIMEOUT + PATTERN_TIME_PER_CHAR * len(text)

    def _timed_out(self, text: str) -> PatternError:
        return PatternError(
            f"the split pattern {quote(self.pattern, 80)} ran for more than {self._timeout(text):.1f} s on "
            f"{len(text):,} characters and was stopped: it backtracks catastrophically on this text "
            "(nested or overlapping repeats such as (a|a)+); use a simpler pattern"
        )

    def _spent(self, budget: list[float]) -> PatternError:
        return PatternError(
            f"the split pattern {quote(self.pattern, 80)} used up the {budget[1]:.1f} s of matching allowed for "
            f"a text of {int(budget[2]):,} characters (cut into pieces, each split on its own) and was stopped: "
            "it backtracks catastrophically on this text (nested or overlapping repeats such as (a|a)+); "
            "use a simpler pattern"
        )

    def findall(self, text: str) -> list[str]:
        """The pieces of ``text``, in order, none empty.

        Raises:
            PatternError: matching ran past ``PATTERN_TIMEOUT + PATTERN_TIME_PER_CHAR * len(text)`` seconds,
                or past what is left of an open :func:`pattern_budget`.
        """
        if self.trusted:
            return self.regex.findall(text)  # linear time, and no empty match: no limit, no filter
        limit = own = self._timeout(text)
        budget = _BUDGET.get()
        if budget is not None:
            if budget[0] <= 0:
                raise self._spent(budget)
            limit = min(own, budget[0])
        start = clock()
        try:
            if self.split is not None:
                return hf_split(self.regex, text, self.split.behavior, self.split.invert, limit)
            if self.regex.groups:
                return [m for m in (x[0] for x in self.regex.finditer(text, timeout=limit)) if m]
            return [m for m in self.regex.findall(text, timeout=limit) if m]
        except TimeoutError:
            raise (self._spent(budget) if budget is not None and limit < own else self._timed_out(text)) from None
        finally:
            if budget is not None:
                budget[0] -= clock() - start


@lru_cache(maxsize=16)
def compiled_pattern(pattern: str) -> SplitPattern:
    """Compile a split pattern with the ``regex`` package (cached per pattern and behaviour).

    Raises:
        PatternError: the pattern is too long (:data:`MAX_PATTERN_LENGTH`).
        regex.error: it does not compile.
    """
    return SplitPattern(pattern)


def _find_matches(compiled: regex.Pattern[str], text: str, timeout: float) -> list[tuple[int, int, bool]]:
    """``(start, end, is_match)`` spans covering ``text``: Hugging Face ``Pattern::find_matches`` for a regex.

    As Oniguruma's ``find_iter`` (the ``onig`` crate), an empty match right
    where the previous match ended is skipped.
    """
    if not text:
        return [(0, 0, False)]
    out: list[tuple[int, int, bool]] = []
    prev = 0
    last_end = -1
    for m in compiled.finditer(text, timeout=timeout):
        start, end = m.span()
        if start == end and end == last_end:
            continue
        if start != prev:
            out.append((prev, start, False))
        out.append((start, end, True))
        prev = last_end = end
    if prev != len(text):
        out.append((prev, len(text), False))
    return out


def _fold(spans: list[tuple[int, int, bool]], behavior: str) -> list[tuple[int, int, bool]]:
    """Hugging Face ``NormalizedString::split``: ``(start, end, remove)`` per piece for one behaviour."""
    if behavior == "Isolated":
        return [(s, e, False) for s, e, _m in spans]
    if behavior == "Removed":
        return spans
    acc: list[list[int]] = []
    previous = False
    ordered = reversed(spans) if behavior == "MergedWithNext" else spans
    for s, e, is_match in ordered:
        if behavior == "Contiguous":
            glue = is_match == previous
        else:
            glue = is_match and not previous
        if glue and acc:
            if behavior == "MergedWithNext":
                acc[-1][0] = s
            else:
                acc[-1][1] = e
        else:
            acc.append([s, e])
        previous = is_match
    if behavior == "MergedWithNext":
        acc.reverse()
    return [(s, e, False) for s, e in acc]


def hf_split(compiled: regex.Pattern[str], text: str, behavior: str, invert: bool, timeout: float) -> list[str]:
    """Cut ``text`` as Hugging Face's ``Split(pattern, behavior, invert)`` pre-tokenizer does.

    Source: ``tokenizers/src/pre_tokenizers/split.rs`` (``Invert`` swaps the
    match flags), ``tokenizers/src/utils/pattern.rs`` (``find_matches``) and
    ``NormalizedString::split`` in ``tokenizers/src/tokenizer/normalizer.rs``;
    empty pieces are dropped as ``PreTokenizedString::split`` drops them.

    Args:
        compiled: the compiled pattern.
        text: the text to cut.
        behavior: a key of :data:`SPLIT_BEHAVIORS`.
        invert: swap matches and gaps first.
        timeout: seconds the matching may take.

    Returns:
        The non-empty pieces in text order.

    Raises:
        TimeoutError: matching took longer than ``timeout`` (:class:`SplitPattern` turns it into a PatternError).
    """
    spans = _find_matches(compiled, text, timeout)
    if invert:
        spans = [(s, e, not m) for s, e, m in spans]
    return [text[s:e] for s, e, remove in _fold(spans, behavior) if not remove and e > s]


def pretokenize(text: str, pretokenizer: str = "gpt2", *, pattern: str | None = None) -> list[str]:
    """Cut ``text`` into the chunks that BPE works on, one mode at a time.

    Args:
        text: the raw text.
        pretokenizer: one of :data:`PRETOKENIZERS` (see the module docstring for
            the source of each).
        pattern: for a regex pre-tokenizer only, a replacement split pattern (used by
            tokenizers loaded from tiktoken files that bring their own).

    Returns:
        The chunks in text order. For the regex pre-tokenizers and ``none`` they
        concatenate back to ``text``; the whitespace modes drop the whitespace
        (``trailing_space`` keeps one space after every word but the last).
        The end-of-word marker of ``whitespace_eow`` is not part of the chunks.

    Raises:
        OptionError: unknown ``pretokenizer``.
        TypeError: ``text`` is not a ``str``.

    Example:
        >>> pretokenize("Hello, I've been learning BPE!", "gpt2")
        ['Hello', ',', ' I', "'ve", ' been', ' learning', ' BPE', '!']
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    return split_with(pretokenizer_spec(pretokenizer), text, pattern)


def split_with(spec: PreTokenizerSpec, text: str, pattern: str | None = None) -> list[str]:
    """The pre-tokens of ``text`` under ``spec``: its split function, or the matches of its split pattern
    (``pattern`` replaces a regex spec's own; ignored by the others).

    Raises:
        PatternError: as :meth:`SplitPattern.findall`.
    """
    if spec.split is not None:
        return with_trailing_spaces(spec.split(text)) if spec.trailing_space else spec.split(text)
    return compiled_pattern(pattern or spec.pattern or "").findall(text)


def find_specials(text: str, special_tokens: Iterable[str]) -> list[tuple[int, str]]:
    """Where special tokens occur in ``text``: leftmost first, the longest token at a position.

    The rule is *leftmost-longest*, the rule of Hugging Face ``tokenizers``
    (``AddedVocabulary::refresh_added_tokens`` builds an Aho-Corasick automaton
    with ``MatchKind::LeftmostLongest``): the match that starts first wins; of
    the tokens starting there, the longest; scanning resumes after it, so
    matches never overlap. With special tokens ``X`` and ``XYZ``, ``"XYZ"`` is
    the one token ``XYZ``; with ``XY`` and ``YZ``, ``"XYZ"`` is ``XY`` then the text ``Z``.

    tiktoken differs when one special token starts another (``X`` and ``XYZ``):
    it joins the tokens into one regex alternation in the order of its hash map's
    keys (``CoreBPE::new`` in ``src/lib.rs``: ``special_tokens_encoder.keys()``
    joined by ``|``), and an alternation takes the first alternative that
    matches, so its choice follows that order, not the text (tiktoken 0.14 gives
    ``[300, 89, 90]`` for ``"XYZ"`` with ``{"X": 300, "XYZ": 301}``, and ``[301]``
    with the ids swapped). We follow Hugging Face because its rule depends on
    the tokens alone and is the one a reader expects (the longer token is the
    more specific). The published tables have no special token that starts
    another (GPT-2's one token, cl100k_base's five, o200k_base's two), so on
    them tiktoken, Hugging Face and this function agree.

    Runs in time linear in ``len(text)`` for each distinct token: every token
    keeps its next occurrence (found with ``str.find``) on a heap, and a token is
    searched again only from past the last match, so no stretch of text is
    scanned twice for the same token. A regex alternation of long escaped tokens
    does not have that bound.

    Args:
        text: the raw text.
        special_tokens: literal special-token strings (e.g. ``<|endoftext|>``).

    Returns:
        ``(start, token)`` pairs in text order.
    """
    heap = []
    for tok in set(special_tokens):
        if tok and (pos := text.find(tok)) >= 0:
            heap.append((pos, -len(tok), tok))
    heapq.heapify(heap)
    found: list[tuple[int, str]] = []
    cursor = 0
    while heap:
        pos, neg, tok = heap[0]
        if pos < cursor:  # overlapped by the last match: look again past it
            nxt = text.find(tok, cursor)
            if nxt < 0:
                heapq.heappop(heap)
            else:
                heapq.heapreplace(heap, (nxt, neg, tok))
            continue
        found.append((pos, tok))
        cursor = pos - neg
    return found


def split_special(text: str, special_tokens: Iterable[str]) -> list[tuple[str, bool]]:
    """Split ``text`` around occurrences of special tokens (:func:`find_specials`, linear time).

    Args:
        text: the raw text.
        special_tokens: the special tokens to cut out (only these; others stay text).

    Returns:
        ``(piece, is_special)`` pairs in text order; empty text pieces are dropped.
        Joining the pieces gives back ``text`` (a surrogate pair written as two
        code points joined into its character, see :func:`bpe_core.text.surrogates.check_text`).

    Raises:
        SurrogateError: ``text`` holds a lone surrogate (its position is named).
    """
    text = check_text(text)  # every way text enters the engine (train, encode) passes here
    out: list[tuple[str, bool]] = []
    cursor = 0
    for pos, tok in find_specials(text, special_tokens):
        if pos > cursor:
            out.append((text[cursor:pos], False))
        out.append((tok, True))
        cursor = pos + len(tok)
    if cursor < len(text):
        out.append((text[cursor:], False))
    return out


CHUNK_CHARS = 1 << 16
"""Characters per slice when pre-tokens are counted a slice at a time (:func:`count_pretokens`)."""


def _slices(text: str, spec: PreTokenizerSpec) -> Iterator[str]:
    """``text`` in slices of about :data:`CHUNK_CHARS`, cut only where ``spec.cut`` allows (see
    :class:`bpe_core.registry.pretokenizers.Cut`); a spec without a cut gives the whole text as one slice.

    Pre-tokenizing the slices one by one gives the pre-tokens of the whole text.
    Finding a cut is a search in C, so a text without one (a 100 MB word) is
    one slice, found in one scan.
    """
    n, start = len(text), 0
    while start < n:
        end = min(n, start + CHUNK_CHARS)
        at = spec.cut.next(text, end) if spec.cut is not None and end < n else None
        end = n if at is None else at
        yield text[start:end]
        start = end


class PretokenCounter:
    """Counts the pre-tokens of a piece of text (special tokens already cut out) given in slices.

    Each slice must end at a place ``spec.cut`` allows (or at the piece's end).
    A ``trailing_space`` spec keeps a space after every word but a piece's last,
    so the last word of a slice is counted with its space until the piece ends
    (:meth:`end_piece` takes it back). Counts and their order of first
    appearance are those of ``Counter(pretokenize(piece))`` per piece.

    Args:
        spec: the pre-tokenizer.
        counts: the counter to add to.
    """

    def __init__(self, spec: PreTokenizerSpec, counts: Counter[str]) -> None:
        self.spec = spec
        self.counts = counts
        self.last_word: str | None = None  # trailing_space: the open piece's last word, counted with its space

    def feed(self, text: str) -> None:
        """Count one slice of the open piece.

        Raises:
            PatternError: as :func:`pretokenize`.
        """
        if self.spec.trailing_space and self.spec.split is not None:
            words = self.spec.split(text)
            if words:  # with_trailing_spaces for a piece given in slices: each word has its space till the end
                self.counts.update(w + " " for w in words)
                self.last_word = words[-1]
            return
        self.counts.update(split_with(self.spec, text))

    def end_piece(self) -> None:
        """The piece ends: its last word keeps no space (``trailing_space``)."""
        word, self.last_word = self.last_word, None
        if word is None:
            return
        key = word + " "
        self.counts[key] -= 1
        if not self.counts[key]:
            del self.counts[key]  # a later occurrence then enters at its own place in first-appearance order
        self.counts[word] += 1


def count_pretokens(text: str, pretokenizer: str, counts: Counter[str], each: Callable[[], None] | None = None) -> None:
    """Add the pre-tokens of ``text`` to ``counts``: ``counts.update(pretokenize(text, pretokenizer))``, leaner.

    Every mode with a cut works a slice at a time (:func:`_slices`), so the
    list of every pre-token of a large text never exists (it would take several
    times the text's size); counts and their order of first appearance are the
    same (:class:`PretokenCounter`).

    Args:
        text: the raw text (special tokens already cut out).
        pretokenizer: a name from :data:`PRETOKENIZERS`.
        counts: the counter to add to.
        each: called after each slice is counted (a memory check, say); what it
            raises ends the counting.

    Raises:
        OptionError: unknown ``pretokenizer``.
        TypeError: ``text`` is not a ``str``.
        PatternError: as :func:`pretokenize`.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    counter = PretokenCounter(pretokenizer_spec(pretokenizer), counts)
    for piece in _slices(text, counter.spec):
        counter.feed(piece)
        if each is not None:
            each()
    counter.end_piece()

"""Glitch-token audit: the tokens of a vocabulary that a model may never see in training.

A tokenizer is trained before, and often on other text than, the model that uses
it, and BPE keeps every merge's token even when later merges absorb all its
occurrences. So a vocabulary can hold tokens that ordinary text never produces;
their embeddings stay untrained, and prompting a model with them gives the
"glitch token" behaviour (Rumbelow & Watkins 2023, "SolidGoldMagikarp"). This
module finds them, following Land & Bartolo 2024, "Fishing for Magikarp:
Automatically Detecting Under-trained Tokens in Large Language Models" (section
3.1: partial UTF-8 tokens, and tokens that are not given back when their decoded
text is encoded again), and Lian et al. 2024, "Scaffold-BPE: Enhancing Byte Pair
Encoding with Simple and Effective Scaffold Token Removal" (scaffold tokens: tokens
that exist to build longer ones and hardly occur on their own).

:func:`audit_vocabulary` takes any :class:`~bpe_core.Tokenizer` (GPT-2,
cl100k_base and o200k_base from :func:`bpe_core.formats.bundled`, a loaded file,
a table trained here) and optionally a corpus, and returns a
:class:`VocabularyAudit`. Its cost is linear in the vocabulary (one short
encoding per token, without filling the tokenizer's cache) plus one encoding of
the corpus (each distinct pre-token once, through the cache).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

from ..encoding.encoder import Tokenizer
from ..encoding.merging import merge_order
from ..encoding.pipeline import AllowedSpecial
from ..text.spelling import Temporaries

Progress = Callable[[int, int], None]
"""``progress(done, total)``: called as the audit goes (tokens checked, then corpus pre-tokens encoded)."""

PROGRESS_EVERY = 4096
"""Tokens (or distinct pre-tokens) between two progress calls."""

KINDS = {
    "partial_utf8": "partial UTF-8",
    "unreachable": "unreachable",
    "never_used": "never used",
    "scaffold": "scaffold",
}
"""Each finding's key (as :meth:`VocabularyAudit.kinds` gives it) and its label for tables."""


@dataclass(frozen=True)
class VocabularyAudit:
    """What :func:`audit_vocabulary` found. All id tuples are ascending.

    Attributes:
        vocab_size: the tokenizer's ids (``len(tokenizer)``).
        audited: the ids audited: every assigned id except special tokens, the
            ``<unk>``/``<0xNN>`` fallback tokens and a separate ``</w>`` symbol
            (which the encoder emits by structure, not by text).
        special: the special tokens' ids (not audited: only emitted when allowed).
        partial_utf8: audited ids whose bytes are not valid UTF-8 on their own
            (a character cut between tokens, or a byte such as 0xFF that no UTF-8 text holds).
        unreachable: audited ids, valid UTF-8, that encoding their own text does not
            give back as that one token (see :func:`audit_vocabulary` for the exact rule).
        usage: with a corpus, id -> how many times encoding it emitted the id
            (only ids emitted; special tokens included); ``None`` without a corpus.
        corpus_tokens: how many tokens encoding the corpus gave (0 without one).
        never_used: with a corpus, the audited ids it never emitted; else ``None``.
        scaffolds: with a corpus, the never-used ids that some merge rule uses as
            its left or right part: tokens that only built longer ones here; else ``None``.
        fallback: the fallback tokens' ids (``<unk>``, ``<0xNN>``; not audited: emitted for what the
            alphabet lacks).
        marker: the id of the separate end-of-word symbol ``</w>`` (not audited), or ``None`` when the
            table has none. ``audited``, ``special``, ``fallback`` and ``marker`` together hold every
            assigned id.
    """

    vocab_size: int
    audited: tuple[int, ...]
    special: tuple[int, ...]
    partial_utf8: tuple[int, ...]
    unreachable: tuple[int, ...]
    usage: dict[int, int] | None = field(default=None, hash=False)
    corpus_tokens: int = 0
    never_used: tuple[int, ...] | None = None
    scaffolds: tuple[int, ...] | None = None
    fallback: tuple[int, ...] = ()
    marker: int | None = None

    @cached_property
    def _sets(self) -> dict[str, frozenset[int]]:
        return {
            "partial_utf8": frozenset(self.partial_utf8),
            "unreachable": frozenset(self.unreachable),
            "never_used": frozenset(self.never_used or ()),
            "scaffold": frozenset(self.scaffolds or ()),
        }

    def kinds(self, token_id: int) -> tuple[str, ...]:
        """The findings about ``token_id``, as keys of :data:`KINDS` (empty for an ordinary token)."""
        return tuple(kind for kind, ids in self._sets.items() if token_id in ids)

    def uses(self, token_id: int) -> int | None:
        """How many times the corpus emitted ``token_id`` (``None`` without a corpus)."""
        return None if self.usage is None else self.usage.get(token_id, 0)


def audit_vocabulary(
    tokenizer: Tokenizer,
    corpus: str | Mapping[str, int] | None = None,
    *,
    allowed_special: AllowedSpecial = "all",
    progress: Progress | None = None,
) -> VocabularyAudit:
    """Find a vocabulary's partial-UTF-8, unreachable, never-used and scaffold tokens.

    **Unreachable** follows Land & Bartolo 2024 (section 3.1): a token is
    unreachable when its own text, encoded with the full pipeline (pre-tokenizer,
    then merges in rank order, no special token allowed), does not give back that
    one token. "Its own text" is where the pipeline lets the token stand alone:

    * no end-of-word marker: the token's decoded text (GPT-2's ``Ġthe`` is `` the``);
      with ``trailing_space``, whose pre-tokens are a word and the one space after
      it, a token ending in a space (``the ``, or the space alone) ends such a
      pre-token: its text is checked as one, whatever word comes next;
    * ``whitespace_eow``, a token holding the marker (``er</w>``) ends a word: its
      text without the marker is the word;
    * ``whitespace_eow``, a token without it (``er``) is a word's start or middle,
      never a whole word: it is reachable when its text is one pre-token and BPE on
      its own base symbols, without the marker, gives back the token. With merges in
      rank order, text around a token can only take symbols from it, never help
      form it, so this is exactly whether some word can hold it.

    Partial-UTF-8 tokens have no text of their own: they are reported in
    ``partial_utf8`` only (whether a corpus emits them, ``never_used`` tells).
    Special tokens are not audited: they are emitted exactly when allowed.

    Args:
        tokenizer: any tokenizer.
        corpus: text, or ``{pre-token: count}`` (word counts: each key one pre-token,
            as :func:`bpe_core.train` reads them); ``None`` for no usage counts.
        allowed_special: special tokens cut out of a text corpus (``"all"`` by
            default, as training cuts them out).
        progress: ``progress(done, total)``, called every :data:`PROGRESS_EVERY`
            tokens, then every as many distinct pre-tokens of the corpus.

    Returns:
        A :class:`VocabularyAudit`.

    Raises:
        OptionError, TypeError: a bad ``allowed_special``, or a corpus that is neither text nor counts.
        BPEError: the corpus cannot be encoded (a lone surrogate, a split pattern past its time limit).
    """
    table = tokenizer.model.table
    audited = _audited_ids(tokenizer)
    partial, texts = _token_texts(tokenizer, audited)
    unreachable = _unreachable(tokenizer, texts, progress)
    special = tuple(sorted(table.special_ids.values()))
    left_out = {"fallback": tuple(sorted(tokenizer.model.fallback_ids)), "marker": table.marker_id}
    if corpus is None:
        return VocabularyAudit(len(tokenizer), audited, special, partial, unreachable, **left_out)
    usage = _usage(tokenizer, corpus, allowed_special, progress)
    never = tuple(i for i in audited if i not in usage)
    parts = {x for a, b, _new in tokenizer.model.merge_ids for x in (a, b)}
    scaffolds = tuple(i for i in never if i in parts)
    return VocabularyAudit(
        len(tokenizer), audited, special, partial, unreachable, usage, sum(usage.values()), never, scaffolds, **left_out
    )


def _not_audited(tokenizer: Tokenizer) -> set[int]:
    """Special tokens, unassigned ids, fallback tokens and the separate marker symbol: the ids left out."""
    table = tokenizer.model.table
    skip = set(table.special_ids.values()) | set(table.gaps) | set(tokenizer.model.fallback_ids)
    if table.marker_id is not None:
        skip.add(table.marker_id)
    return skip


def _audited_ids(tokenizer: Tokenizer) -> tuple[int, ...]:
    """Every assigned id but special tokens, fallback tokens and the separate marker symbol."""
    skip = _not_audited(tokenizer)
    return tuple(i for i in range(len(tokenizer.model.table)) if i not in skip)


def _token_texts(tokenizer: Tokenizer, ids: tuple[int, ...]) -> tuple[tuple[int, ...], dict[int, str]]:
    """``(partial-UTF-8 ids, {id: own text})``: a marker token's text leaves its marker's space out."""
    table = tokenizer.model.table
    data, ends = table.data, table.ends_word
    marked = table.end_of_word is not None
    partial: list[int] = []
    texts: dict[int, str] = {}
    for i in ids:
        raw = data[i][:-1] if marked and ends[i] else data[i]
        try:
            texts[i] = raw.decode("utf-8")
        except UnicodeDecodeError:
            partial.append(i)
    return tuple(partial), texts


class _OwnText:
    """Encodes a token's own text as the audit does (the rules of :func:`audit_vocabulary`)."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        self.tokenizer = tokenizer
        self.split = tokenizer.pre_tokenizer.split
        self.encode = _chunk_encoder(tokenizer)
        self.marked = tokenizer.model.table.end_of_word is not None
        self.trailing = tokenizer.pre_tokenizer.spec.trailing_space

    def ids(self, token_id: int, text: str) -> tuple[int, ...]:
        """The ids ``text`` (the token's own text) encodes to where the token would stand alone."""
        if self.trailing and text.endswith(" "):
            core = text[:-1]  # a word's end and its space: one pre-token if the rest holds no whitespace
            whole = not core or core.split() == [core]
        else:
            whole = self.split(text) == [text]
        if not whole:  # the pre-tokenizer cuts the text: no pre-token is this token alone
            return tuple(self.tokenizer.encode(text))
        table = self.tokenizer.model.table
        if self.marked and not table.ends_word[token_id]:  # a word's start or middle: its own symbols, no marker
            try:
                return tuple(self.tokenizer.model.merge(table.base_units(text)))
            except (KeyError, UnicodeEncodeError):  # a character outside the alphabet: no word spells it
                return tuple(self.tokenizer.encode(text))
        return self.encode(text)


def own_encoding(tokenizer: Tokenizer, token_id: int) -> tuple[int, ...] | None:
    """What decides whether ``token_id`` is unreachable: its own text encoded as :func:`audit_vocabulary` does.

    Returns:
        The ids (``(token_id,)`` for a reachable token), or ``None`` for a token
        that is not audited or has no text of its own (partial UTF-8).

    Raises:
        TokenIdError: ``token_id`` is outside the vocabulary.
    """
    tokenizer.model.id_to_token(token_id)  # raises TokenIdError for a bad id
    if token_id in _not_audited(tokenizer):
        return None
    _partial, texts = _token_texts(tokenizer, (token_id,))
    if token_id not in texts:
        return None
    return _OwnText(tokenizer).ids(token_id, texts[token_id])


def _unreachable(tokenizer: Tokenizer, texts: Mapping[int, str], progress: Progress | None) -> tuple[int, ...]:
    """The ids whose own text does not encode back to them alone (rules in :func:`audit_vocabulary`)."""
    own = _OwnText(tokenizer)
    out: list[int] = []
    total = len(texts)
    for done, (i, text) in enumerate(texts.items(), start=1):
        if progress is not None and done % PROGRESS_EVERY == 0:
            progress(done, total)
        if own.ids(i, text) != (i,):
            out.append(i)
    if progress is not None:
        progress(total, total)
    return tuple(out)


def _chunk_encoder(tokenizer: Tokenizer) -> Callable[[str], tuple[int, ...]]:
    """One pre-token's ids in rank order, as :meth:`~bpe_core.Tokenizer.encode` gives them, without the cache
    (200,000 token texts would crowd out the pre-tokens of real text)."""
    model = tokenizer.model
    mode = merge_order("rank")
    encoder = model.chunk_encoder(mode)
    if model.fast_path(mode):
        return encoder  # type: ignore[return-value]
    return lambda chunk: encoder(chunk, Temporaries(len(model)))  # type: ignore[call-arg]


def _usage(
    tokenizer: Tokenizer, corpus: str | Mapping[str, int], allowed_special: AllowedSpecial, progress: Progress | None
) -> dict[int, int]:
    """Id -> times emitted when encoding ``corpus``: each distinct pre-token encoded once, times its count."""
    if isinstance(corpus, str):
        counts: Mapping[str, int] = Counter(tokenizer.pre_tokens(corpus, allowed_special))  # type: ignore[arg-type]
    elif isinstance(corpus, Mapping):
        if not all(isinstance(w, str) and isinstance(n, int) and not isinstance(n, bool) for w, n in corpus.items()):
            raise TypeError("word counts must map str pre-tokens to int counts")
        counts = {(word, False): n for word, n in corpus.items()}  # type: ignore[misc]
    else:
        raise TypeError(f"corpus must be text or {{pre-token: count}}, not {type(corpus).__name__}")
    model, specials = tokenizer.model, tokenizer.specials.ids
    size = len(tokenizer)
    usage: Counter[int] = Counter()
    total = len(counts)
    for done, ((piece, special), n) in enumerate(counts.items(), start=1):  # type: ignore[misc]
        if progress is not None and done % PROGRESS_EVERY == 0:
            progress(done, total)
        if special:
            usage[specials[piece]] += n
            continue
        for i in model.encode_chunk(piece):
            if i < size:  # a temporary id (keep fallback) names no token of the vocabulary
                usage[i] += n
    if progress is not None:
        progress(total, total)
    return dict(usage)


__all__ = ["KINDS", "PROGRESS_EVERY", "Progress", "VocabularyAudit", "audit_vocabulary", "own_encoding"]

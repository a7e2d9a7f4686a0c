"""A tokenizer's four parts and the pure functions that run them on a text.

Pipeline (the order Hugging Face ``tokenizers`` names): special tokens are cut
out (only the ones explicitly allowed, as tiktoken does), the pre-tokenizer cuts
the rest into chunks, the merge model turns each chunk into ids, and the decoder joins token
bytes back into text. The two merge orders:

``order="rank"``
    Repeatedly find the adjacent pair with the lowest merge rank and merge all
    its occurrences, left to right without overlap; stop when no adjacent pair
    has a rule. This is GPT-2's ``encoder.py`` ``bpe()``; Hugging Face's
    ``Word::merge_all`` gives the same result. tiktoken (``merge_by="bytes"``)
    merges any two pieces whose bytes spell a token, so it agrees on tables
    that BPE training learned (tested on real corpora) but not on every
    hand-made table: with (a,b), (b,c), (a,bc), ``abc`` is ``ab c`` by pair and
    ``abc`` for tiktoken.
``order="sequential"``
    One pass over the merge table in learned order, each rule applied to all
    its occurrences (the loop of Sennrich et al. 2016, Algorithm 1, replayed on
    new text). A rule is never revisited, so when a token can be built by two
    routes the two orders can disagree.

:class:`TokenizerParts` holds the four parts;
:func:`encode`, :func:`pre_tokens` and :func:`decode_bytes` run them and
read nothing else, so the explanations (:mod:`bpe_core.encoding.explain`) and the
:class:`~bpe_core.Tokenizer` call the same functions.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import TokenIdError
from ..text.pretokenize import budgeted
from ..text.spelling import IdsWithTemporaries, Temporaries
from .merge_run import dropout_rng
from .merging import MergeOrder, merge_order
from .model import CACHE_LIMIT, MergeModel
from .pipeline import AllowedSpecial, Decoder, PreTokenizer, SpecialTokens


@dataclass(frozen=True)
class TokenizerParts:
    """Special tokens -> pre-tokenizer -> merge model -> decoder: what encoding and decoding read.

    Attributes:
        model: the :class:`~bpe_core.encoding.model.MergeModel` (symbols, rules, spelling).
        pre_tokenizer: the :class:`~bpe_core.encoding.pipeline.PreTokenizer`.
        specials: the :class:`~bpe_core.encoding.pipeline.SpecialTokens` (the model table's special tokens).
        decoder: the :class:`~bpe_core.encoding.pipeline.Decoder` (the model's end-of-word marker).
    """

    model: MergeModel
    pre_tokenizer: PreTokenizer
    specials: SpecialTokens
    decoder: Decoder

    @staticmethod
    def of(model: MergeModel, pre_tokenizer: PreTokenizer) -> TokenizerParts:
        """The parts around ``model`` and ``pre_tokenizer``: special tokens and decoder read from the model's table."""
        eow = model.end_of_word is not None
        specials = SpecialTokens(dict(model.table.special_ids))
        spaced = frozenset(model.table.special_ids.values()) if eow else frozenset()
        return TokenizerParts(model, pre_tokenizer, specials, Decoder(eow, spaced))


@budgeted
def pre_tokens(parts: TokenizerParts, text: str, allowed_special: AllowedSpecial = ()) -> list[tuple[str, bool]]:
    """``(pre-token, is_special)`` in text order: special tokens cut out, the rest pre-tokenized.

    Raises:
        OptionError, TypeError: as for :meth:`bpe_core.Tokenizer.encode`.
    """
    split = parts.pre_tokenizer.split
    out: list[tuple[str, bool]] = []
    for piece, special in parts.specials.split(text, allowed_special):
        if special:
            out.append((piece, True))
        else:
            out.extend((chunk, False) for chunk in split(piece))
    return out


@budgeted
def encode(
    parts: TokenizerParts,
    text: str,
    *,
    order: str = "rank",
    allowed_special: AllowedSpecial = (),
    temporaries: Temporaries | None = None,
    dropout: float = 0.0,
    seed: int | random.Random | None = None,
) -> list[int]:
    """The token ids of ``text``; arguments, result and errors as for :meth:`bpe_core.Tokenizer.encode`."""
    mode = merge_order(order)
    rng = dropout_rng(dropout, seed)
    pieces = parts.specials.split(text, allowed_special)
    model = parts.model
    if rng is not None:
        temporaries = Temporaries(len(model)) if temporaries is None else temporaries
        out = _encode_dropout(parts, pieces, mode, temporaries, *rng)
        return IdsWithTemporaries(out, temporaries) if len(temporaries) else out
    if model.fast_path(mode):
        try:
            return _encode_pieces(parts, pieces, mode, None)
        except UnicodeEncodeError as exc:  # a lone surrogate
            model.spell(exc.object)  # raises the OptionError that names it
            raise
    if temporaries is None:
        temporaries = Temporaries(len(model))
    out = _encode_pieces(parts, pieces, mode, temporaries)
    return IdsWithTemporaries(out, temporaries) if len(temporaries) else out


def _encode_pieces(
    parts: TokenizerParts, pieces: list[tuple[str, bool]], mode: MergeOrder, temporaries: Temporaries | None
) -> list[int]:
    """The encode loop: a special token is its id; every other pre-token goes through the model's cache.

    ``temporaries`` is ``None`` on the model's fast path (byte unit, no
    marker, rank order: the chunk encoder takes the chunk alone and every
    result is cached); otherwise a pre-token's ids are cached only if
    spelling it handed out no temporary id.
    """
    out: list[int] = []
    special_ids = parts.specials.ids
    split = parts.pre_tokenizer.split
    cache = parts.model.cache(mode)
    new_ids = parts.model.chunk_encoder(mode)
    for piece, special in pieces:
        if special:
            out.append(special_ids[piece])
            continue
        for chunk in split(piece):
            ids = cache.get(chunk)
            if ids is None:
                if temporaries is None:
                    ids = new_ids(chunk)  # type: ignore[call-arg]
                else:
                    seen = temporaries.lookups
                    ids = new_ids(chunk, temporaries)  # type: ignore[call-arg]
                    if temporaries.lookups != seen:  # holds a temporary id: not cached
                        out.extend(ids)
                        continue
                if len(cache) >= CACHE_LIMIT:
                    cache.clear()
                cache[chunk] = ids
            out.extend(ids)
    return out


def _encode_dropout(
    parts: TokenizerParts,
    pieces: list[tuple[str, bool]],
    mode: MergeOrder,
    temporaries: Temporaries,
    dropout: float,
    rng: random.Random,
) -> list[int]:
    """The encode loop with BPE-dropout: each pre-token spelled and merged anew (no cache), drawing from ``rng``."""
    out: list[int] = []
    special_ids = parts.specials.ids
    split = parts.pre_tokenizer.split
    spell, run = parts.model.spell, parts.model.rules.run
    for piece, special in pieces:
        if special:
            out.append(special_ids[piece])
            continue
        for chunk in split(piece):
            out += run(spell(chunk, temporaries), mode, traced=False, dropout=dropout, rng=rng).final
    return out


def decode_bytes(parts: TokenizerParts, ids: Iterable[int], temporaries: Temporaries | None = None) -> bytes:
    """The text bytes of ``ids``; arguments and errors as for :meth:`bpe_core.Tokenizer.decode_bytes`."""
    if temporaries is None and isinstance(ids, IdsWithTemporaries):
        temporaries = ids.temporaries
    table = parts.model.table
    data, ends = table.data, table.ends_word
    ids = list(ids)
    n = len(data)
    extra = False
    for i in ids:
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < n:
            if temporaries is None or isinstance(i, bool) or not isinstance(i, int) or i not in temporaries.ids():
                parts.model.check_id(i)
            extra = True
    _check_gaps(parts.model, ids)
    if not ids:
        return b""
    spaced = parts.decoder.spaced
    if not extra and (not spaced or spaced.isdisjoint(ids)):
        return parts.decoder.join([data[i] for i in ids], ends[ids[-1]])
    tokens = [
        (data[i] + b" ", True) if i in spaced else (data[i], ends[i]) if i < n else temporaries.token(i)[1:]  # type: ignore[union-attr]
        for i in ids
    ]
    return parts.decoder.join([raw for raw, _eow in tokens], tokens[-1][1])


def decode(
    parts: TokenizerParts, ids: Iterable[int], errors: str = "replace", temporaries: Temporaries | None = None
) -> str:
    """The text of ``ids``; arguments, result and errors as for :meth:`bpe_core.Tokenizer.decode`."""
    return decode_bytes(parts, ids, temporaries).decode("utf-8", errors)


def _check_gaps(model: MergeModel, ids: list[int]) -> None:
    gaps = model.table.gaps
    if gaps and not gaps.isdisjoint(ids):
        bad = sorted(gaps.intersection(ids))
        raise TokenIdError(
            f"token id{'s' if len(bad) > 1 else ''} {', '.join(map(str, bad))} "
            f"{'are' if len(bad) > 1 else 'is'} not assigned: this vocabulary has no token with "
            f"{'those ids' if len(bad) > 1 else 'that id'}"
        )

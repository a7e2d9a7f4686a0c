"""The tokenizer: a thin façade over its four parts and the verbs users call.

The parts and the pure functions that run them live in
:mod:`bpe_core.encoding.tokenizer_parts` (special tokens -> pre-tokenizer -> model ->
decoder); the merge orders in :mod:`bpe_core.encoding.merging`; the vocabulary
(``vocab``, ``merges``, ``id_to_token``, ``token_bytes``, the table) on the
:class:`~bpe_core.encoding.model.MergeModel` (``tokenizer.model``); the explanations in
:mod:`bpe_core.encoding.explain`; file loaders in :mod:`bpe_core.formats`.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from ..registry.options import marker_style
from ..text.pretokenize import check_pretokenizer
from ..text.spelling import FALLBACKS, UNK, Temporaries, fallback_policy
from ..text.symbols import END_OF_WORD, UNITS, SymbolTable, check_option
from ..trace import EncodeTrace, OrderDifference, RoundTrip, TrainConfig
from . import explain, tokenizer_parts
from .merge_table import check_rules, table_from_rules
from .merging import ORDERS
from .model import MergeModel
from .pipeline import AllowedSpecial, PreTokenizer

__all__ = ["FALLBACKS", "ORDERS", "UNK", "AllowedSpecial", "Tokenizer"]


class Tokenizer(tokenizer_parts.TokenizerParts):
    """A BPE tokenizer: special tokens -> pre-tokenizer -> merge model -> decoder, with a name.

    Build one with :func:`bpe_core.train` (``result.tokenizer``),
    :meth:`from_merges`, the :mod:`bpe_core.formats` loaders (``load_gpt2``,
    ``load_tiktoken``, ``load``, ``bundled``), or :meth:`from_parts`. A
    tokenizer never changes: encoding a text gives the same ids whatever was
    encoded before, and one tokenizer can serve several threads at once. Ids
    follow the vocabulary: special tokens, base alphabet, merges, then fallback
    tokens (``<unk>`` or the 256 ``<0xNN>``); the vocabulary itself is read
    from :attr:`model` (``tok.model.vocab``, ``tok.model.merges``, ``tok.model.table``).

    Attributes:
        model, pre_tokenizer, specials, decoder: the parts (see
        :class:`~bpe_core.encoding.tokenizer_parts.TokenizerParts`).
        name: a label for the UI.
    """

    name: str

    def __init__(
        self,
        table: SymbolTable,
        merge_ids: Sequence[tuple[int, int, int]],
        *,
        pretokenizer: str,
        fallback: str = "keep",
        pattern: str | None = None,
        name: str = "",
        merge_by: str = "pair",
    ) -> None:
        """Build a tokenizer from a symbol table and its merge rules as ids (the loaders' constructor).

        Args:
            table: the symbol table (copied; fallback tokens are added to the copy).
            merge_ids: ``(left_id, right_id, new_id)`` per merge, in rank order.
            pretokenizer: a name from :data:`bpe_core.text.pretokenize.PRETOKENIZERS`.
            fallback: ``"keep"``, ``"unk"`` or ``"bytes"`` (see :data:`FALLBACKS`): what a char-unit
                tokenizer does with a character outside its alphabet.
            pattern: a split pattern replacing a regex pre-tokenizer's own (``gpt2``, ``gpt4``, ``llama3``).
            name: a label for the UI.
            merge_by: ``"pair"`` or ``"bytes"`` (see :class:`~bpe_core.encoding.model.MergeModel`).

        Raises:
            OptionError: unknown pre-tokenizer, fallback or merge_by, or ``merge_by="bytes"`` on a char-unit table.
            MergeTableError: a pair appears twice in the table.
        """
        pre_tokenizer = PreTokenizer(pretokenizer, pattern)
        self._assemble(MergeModel(table, merge_ids, fallback=fallback, merge_by=merge_by), pre_tokenizer, name)

    def _assemble(self, model: MergeModel, pre_tokenizer: PreTokenizer, name: str) -> None:
        parts = tokenizer_parts.TokenizerParts.of(model, pre_tokenizer)
        for key in ("model", "pre_tokenizer", "specials", "decoder"):
            object.__setattr__(self, key, getattr(parts, key))
        object.__setattr__(self, "name", name)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a Tokenizer is frozen: cannot set {name!r} (build another one, e.g. with from_parts)")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a Tokenizer is frozen: cannot delete {name!r}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tokenizer):
            return NotImplemented
        return (self.model, self.pre_tokenizer, self.name) == (other.model, other.pre_tokenizer, other.name)

    def __hash__(self) -> int:
        return hash((self.model, self.pre_tokenizer, self.name))

    def __repr__(self) -> str:
        return (
            f"Tokenizer(name={self.name!r}, unit={self.model.unit!r}, pretokenizer={self.pre_tokenizer.name!r}, "
            f"vocab_size={len(self)}, merges={len(self.model.merge_ids)})"
        )

    def __len__(self) -> int:
        """The vocabulary size: number of ids, fallback tokens included."""
        return len(self.model)

    # ------------------------------------------------------------------ construction

    @classmethod
    def from_parts(cls, model: MergeModel, pre_tokenizer: PreTokenizer, *, name: str = "") -> Tokenizer:
        """A tokenizer from its parts (Hugging Face style: swap the pre-tokenizer or the model)."""
        tok = object.__new__(cls)
        tok._assemble(model, pre_tokenizer, name)
        return tok

    @classmethod
    def _from_training(
        cls, table: SymbolTable, merge_ids: Sequence[tuple[int, int, int]], config: TrainConfig
    ) -> Tokenizer:
        """The tokenizer for a finished training run (used by :func:`bpe_core.train`)."""
        return cls(table, merge_ids, pretokenizer=config.pretokenizer, name="trained")

    @classmethod
    def from_merges(
        cls,
        merges: Iterable[tuple[str, str]],
        *,
        pretokenizer: str = "whitespace_eow",
        unit: str = "char",
        end_of_word: str = "separate",
        special_tokens: Iterable[str] = (),
        fallback: str = "keep",
        alphabet: Iterable[str] = (),
        pattern: str | None = None,
        name: str = "",
    ) -> Tokenizer:
        """Build a tokenizer from a hand-written or imported merge table.

        Args:
            merges: ``[(left, right), ...]`` in rank order, as display strings. With ``whitespace_eow`` the
                string ``</w>`` denotes the marker: a symbol of its own (``separate``) or the end of a base
                symbol ``r</w>`` (``attached``). Byte-unit symbols use GPT-2's byte-to-unicode characters (``Ġ``).
            pretokenizer, unit, end_of_word: as for :func:`bpe_core.train`.
            special_tokens: special tokens, given the first ids.
            fallback: ``"keep"`` (default), ``"unk"`` or ``"bytes"`` (see :data:`FALLBACKS`).
            alphabet: char unit: base characters beyond those the merges use.
            pattern: replacement split pattern for a regex pre-tokenizer (``gpt2``, ``gpt4``, ``llama3``).
            name: a label.

        Returns:
            A tokenizer whose ids are laid out as :func:`bpe_core.encoding.merge_table.table_from_rules` says.

        Raises:
            MergeTableError: a rule is not a pair of non-empty strings, names a symbol no earlier rule
                formed, appears twice, or holds a byte-unit symbol outside the byte-level alphabet.
            OptionError: unknown option values.
        """
        check_pretokenizer(pretokenizer)
        check_option("unit", unit, UNITS)
        check_option("end_of_word", end_of_word, END_OF_WORD)
        eow = marker_style(pretokenizer, end_of_word)
        table, merge_ids = table_from_rules(check_rules(merges), unit, eow, special_tokens, alphabet)
        return cls(table, merge_ids, pretokenizer=pretokenizer, fallback=fallback, pattern=pattern, name=name)

    def with_fallback(self, fallback: str) -> Tokenizer:
        """The same merge table with another fallback (``"keep"``, ``"unk"`` or ``"bytes"``) for characters
        outside a char-level alphabet; ``self`` when it already has it. Byte-level tokenizers never fall back.

        Raises:
            OptionError: an unknown fallback name.
        """
        fallback_policy(fallback)
        model = self.model.with_fallback(fallback)
        return self if model is self.model else Tokenizer.from_parts(model, self.pre_tokenizer, name=self.name)

    # ------------------------------------------------------------------ encoding and decoding

    def pre_tokens(self, text: str, allowed_special: AllowedSpecial = ()) -> list[tuple[str, bool]]:
        """:func:`bpe_core.encoding.tokenizer_parts.pre_tokens`: ``(pre-token, is_special)`` in text order."""
        return tokenizer_parts.pre_tokens(self, text, allowed_special)

    def encode(
        self,
        text: str,
        *,
        order: str = "rank",
        allowed_special: AllowedSpecial = (),
        temporaries: Temporaries | None = None,
        dropout: float = 0.0,
        seed: int | random.Random | None = None,
    ) -> list[int]:
        """Encode text to token ids (:func:`bpe_core.encoding.tokenizer_parts.encode`).

        Args:
            text: any ``str`` (empty gives ``[]``).
            order: ``"rank"`` (GPT-2 ``encoder.py`` ``bpe()``, the default) or ``"sequential"`` (the table
                once in learned order, Sennrich et al. 2016, Algorithm 1); see :mod:`bpe_core.encoding.merging`.
            allowed_special: special tokens to recognise in the text (``"all"`` for every one). Text that merely
                looks like a special token is otherwise encoded as ordinary text, as tiktoken's ``encode_ordinary``
                does (tiktoken's ``encode`` instead raises on such text by default, ``disallowed_special="all"``).
            temporaries: char unit, ``keep`` fallback: collects the temporary ids given to characters outside
                the alphabet (pass it to :meth:`decode`); a fresh one by default.
            dropout: BPE-dropout (Provilkov et al. 2020, section 3; subword-nmt ``apply_bpe.py --dropout``):
                each merge that could fire is skipped with this probability (see
                :meth:`bpe_core.encoding.merging.RuleApplier.run` for how this differs from Hugging Face); ``0`` is
                plain encoding, ``1`` leaves every pre-token in its base symbols; no cache is used.
            seed: the dropout's random seed (drawn in text order); ``None``: fresh randomness.

        Returns:
            The ids: a plain list, or an :class:`~bpe_core.text.spelling.IdsWithTemporaries` (a list that
            :meth:`decode` can decode on its own) when the ``keep`` fallback handed out temporary ids.

        Raises:
            OptionError: unknown order, an ``allowed_special`` that is not a special token, (byte unit) a lone
                surrogate, a ``dropout`` outside ``[0, 1]`` or a ``seed`` that is not an int.
            TypeError: ``text`` is not a ``str``.
        """
        return tokenizer_parts.encode(
            self,
            text,
            order=order,
            allowed_special=allowed_special,
            temporaries=temporaries,
            dropout=dropout,
            seed=seed,
        )

    def tokenize(self, text: str, *, order: str = "rank", allowed_special: AllowedSpecial = ()) -> list[str]:
        """Encode text and return one vocabulary string per token (``Ġthe``, ``er</w>``, ``<0xF0>``; a kept
        unseen character is its own string). Arguments and errors as for :meth:`encode`."""
        temporaries = Temporaries(len(self.model))
        ids = self.encode(text, order=order, allowed_special=allowed_special, temporaries=temporaries)
        strings = self.model.table.strings
        size = len(strings)
        return [strings[i] if i < size else temporaries.token(i)[0] for i in ids]

    def decode_bytes(self, ids: Iterable[int], *, temporaries: Temporaries | None = None) -> bytes:
        """The bytes of ``ids`` joined (:func:`bpe_core.encoding.tokenizer_parts.decode_bytes`; the marker decodes to a
        space).

        Args:
            ids: token ids (an :class:`~bpe_core.text.spelling.IdsWithTemporaries` brings its own temporaries).
            temporaries: the :class:`~bpe_core.text.spelling.Temporaries` of the encoding that gave ``ids``.

        Raises:
            TokenIdError: an id is outside the vocabulary (and not one of ``temporaries``).
        """
        return tokenizer_parts.decode_bytes(self, ids, temporaries)

    def decode(self, ids: Iterable[int], errors: str = "replace", *, temporaries: Temporaries | None = None) -> str:
        """Decode token ids back to text.

        Args:
            ids: token ids.
            errors: how to treat bytes that are not valid UTF-8 (ids that cut a character in two):
                ``"replace"`` (U+FFFD, the default), ``"strict"`` or any codec error handler.
            temporaries: as for :meth:`decode_bytes`.

        Returns:
            The text. Byte-level tokenizers invert :meth:`encode` exactly; the whitespace pre-tokenizers and
            ``<unk>`` cannot (see :meth:`round_trip`).

        Raises:
            TokenIdError: an id is outside the vocabulary.
            UnicodeDecodeError: ``errors="strict"`` and the bytes are not valid UTF-8.
        """
        return tokenizer_parts.decode(self, ids, errors, temporaries)

    # ------------------------------------------------------------------ explanations (bpe_core.encoding.explain)

    def encode_with_trace(
        self,
        text: str,
        *,
        order: str = "rank",
        allowed_special: AllowedSpecial = (),
        dropout: float = 0.0,
        seed: int | random.Random | None = None,
    ) -> EncodeTrace:
        """:func:`bpe_core.encoding.explain.encode_trace`: every rule application, blocked rule and fallback."""
        return explain.encode_trace(
            self, text, order=order, allowed_special=allowed_special, dropout=dropout, seed=seed
        )

    def round_trip(self, text: str, *, order: str = "rank", allowed_special: AllowedSpecial = ()) -> RoundTrip:
        """:func:`bpe_core.encoding.explain.round_trip`: whether ``decode(encode(text)) == text``, and why not."""
        return explain.round_trip(self, text, order=order, allowed_special=allowed_special)

    def order_differences(self, text: str) -> list[OrderDifference]:
        """:func:`bpe_core.encoding.explain.order_differences`: pre-tokens ``rank`` and ``sequential`` order cut
        apart."""
        return explain.order_differences(self, text)

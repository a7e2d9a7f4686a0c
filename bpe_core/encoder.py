"""Encoding and decoding with a learned merge table, with a rule-by-rule trace.

Pipeline (the order Hugging Face ``tokenizers`` names): special tokens are cut
out (only the ones explicitly allowed, as tiktoken does), the pre-tokenizer cuts
the rest into chunks, each chunk is spelled in base symbols (with the
end-of-word marker, and with ``<unk>`` or ``<0xNN>`` byte fallback for
characters the alphabet never saw), then merge rules are applied:

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
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from os import PathLike

from . import explain
from .byte_level import unicode_to_bytes
from .errors import MergeTableError, OptionError, TokenIdError, quote
from .merge_run import dropout_rng
from .merging import ORDERS, MergeOrder, merge_order
from .model import CACHE_LIMIT, MergeModel
from .options import marker_style
from .pipeline import AllowedSpecial, Decoder, PreTokenizer, SpecialTokens
from .pretokenize import budgeted, check_pretokenizer
from .spelling import FALLBACKS, UNK, IdsWithTemporaries, Temporaries, fallback_policy
from .symbols import END_OF_WORD, MARKER_LAYOUTS, UNIT_KINDS, UNITS, SymbolTable, check_option
from .trace import EncodeTrace, OrderDifference, RoundTrip, TrainConfig

__all__ = ["FALLBACKS", "ORDERS", "UNK", "AllowedSpecial", "Encoder", "Tokenizer", "register_file_loader"]

_FILE_LOADERS: dict[str, Callable[..., Tokenizer]] = {}


def register_file_loader(kind: str, load: Callable[..., Tokenizer]) -> None:
    """Make ``load`` the loader behind :meth:`Tokenizer.from_gpt2` (``kind="gpt2"``) or
    :meth:`Tokenizer.from_tiktoken` (``kind="tiktoken"``).

    :mod:`bpe_core.formats` registers its loaders when imported (``import
    bpe_core`` imports it), so that the formats depend on this module and
    never the reverse: no import cycle.
    """
    _FILE_LOADERS[kind] = load


def _file_loader(kind: str) -> Callable[..., Tokenizer]:
    try:
        return _FILE_LOADERS[kind]
    except KeyError:
        raise OptionError(f"no {kind} loader is registered; import bpe_core.formats first") from None


class Tokenizer:
    """A BPE tokenizer: special tokens -> pre-tokenizer -> merge model -> decoder.

    Build one with :func:`bpe_core.train` (``result.tokenizer``),
    :meth:`from_merges`, :meth:`from_gpt2`, :meth:`from_tiktoken`, the
    :mod:`bpe_core.formats` loaders, or :meth:`from_parts`. A tokenizer never
    changes: encoding a text gives the same ids whatever was encoded before,
    and one tokenizer can serve several threads at once. Ids follow the
    vocabulary: special tokens, base alphabet, merges, then fallback tokens
    (``<unk>`` or the 256 ``<0xNN>``). With the attached end-of-word marker
    and the byte unit or ``"keep"`` fallback, the base symbols that never ended
    a word in training get their ``c</w>`` twin after the merges, so every
    word can end with its marker.

    Attributes:
        model: the :class:`~bpe_core.model.MergeModel` (symbols, rules, spelling).
        pre_tokenizer: the :class:`~bpe_core.pipeline.PreTokenizer`.
        specials: the :class:`~bpe_core.pipeline.SpecialTokens`.
        decoder: the :class:`~bpe_core.pipeline.Decoder`.
        name: a label for the UI.
    """

    model: MergeModel
    pre_tokenizer: PreTokenizer
    specials: SpecialTokens
    decoder: Decoder
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
            pretokenizer: a name from :data:`bpe_core.pretokenize.PRETOKENIZERS`.
            fallback: ``"keep"``, ``"unk"`` or ``"bytes"``: what a char-unit
                tokenizer does with a character outside its alphabet (see
                :data:`FALLBACKS`). ``"keep"`` gives the character a temporary
                id past the vocabulary, numbered in the order one text meets
                such characters.
            pattern: a split pattern replacing a regex pre-tokenizer's own (``gpt2``, ``gpt4``, ``llama3``).
            name: a label for the UI.
            merge_by: ``"pair"`` or ``"bytes"`` (see :class:`~bpe_core.model.MergeModel`).

        Raises:
            OptionError: unknown pre-tokenizer, fallback or merge_by, or
                ``merge_by="bytes"`` on a char-unit table.
            MergeTableError: a pair appears twice in the table.
        """
        pre_tokenizer = PreTokenizer(pretokenizer, pattern)
        self._assemble(MergeModel(table, merge_ids, fallback=fallback, merge_by=merge_by), pre_tokenizer, name)

    def _assemble(self, model: MergeModel, pre_tokenizer: PreTokenizer, name: str) -> None:
        put = object.__setattr__
        put(self, "model", model)
        put(self, "pre_tokenizer", pre_tokenizer)
        put(self, "specials", SpecialTokens(dict(model.table.special_ids)))
        eow = model.end_of_word is not None
        put(self, "decoder", Decoder(eow, frozenset(model.table.special_ids.values()) if eow else frozenset()))
        put(self, "name", name)

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
            f"Tokenizer(name={self.name!r}, unit={self.unit!r}, pretokenizer={self.pretokenizer!r}, "
            f"vocab_size={len(self)}, merges={len(self.model.merge_ids)})"
        )

    # ------------------------------------------------------------------ construction

    @classmethod
    def from_parts(cls, model: MergeModel, pre_tokenizer: PreTokenizer, *, name: str = "") -> Tokenizer:
        """A tokenizer from its parts (Hugging Face style: swap the pre-tokenizer or the model).

        Args:
            model: the merge model.
            pre_tokenizer: the pre-tokenizer.
            name: a label.
        """
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
            merges: ``[(left, right), ...]`` in rank order, as display strings.
                With ``whitespace_eow`` the string ``</w>`` denotes the marker:
                a symbol of its own (``separate``) or the end of a base symbol
                ``r</w>`` (``attached``). Byte-unit symbols use GPT-2's
                byte-to-unicode characters (``Ġ``).
            pretokenizer, unit, end_of_word: as for :func:`bpe_core.train`.
            special_tokens: special tokens, given the first ids.
            fallback: ``"keep"`` (default), ``"unk"`` or ``"bytes"``, for
                characters outside a char-level alphabet (see :data:`FALLBACKS`).
            alphabet: char unit: base characters beyond those the merges use.
            pattern: replacement split pattern for a regex pre-tokenizer (``gpt2``, ``gpt4``, ``llama3``).
            name: a label.

        Returns:
            A tokenizer whose ids are: special tokens, alphabet (sorted by code
            point, or the 256 bytes in byte order), marker symbols, then one id
            per new token string in rule order (a rule whose result string
            already exists reuses that id, as Hugging Face does).

        Raises:
            MergeTableError: a rule is not a pair of non-empty strings, a rule
                names a symbol no earlier rule formed (naming the rule), a
                pair appears twice, or a byte-unit symbol is outside the
                byte-level alphabet.
            OptionError: unknown option values.
        """
        check_pretokenizer(pretokenizer)
        check_option("unit", unit, UNITS)
        check_option("end_of_word", end_of_word, END_OF_WORD)
        eow = marker_style(pretokenizer, end_of_word)
        rules = _check_rules(merges)
        table, merge_ids = _table_from_rules(rules, unit, eow, special_tokens, alphabet)
        return cls(table, merge_ids, pretokenizer=pretokenizer, fallback=fallback, pattern=pattern, name=name)

    @classmethod
    def from_gpt2(
        cls, encoder_json: str | PathLike[str], vocab_bpe: str | PathLike[str], *, name: str = ""
    ) -> Tokenizer:
        """Load OpenAI GPT-2's file pair (``encoder.json`` + ``vocab.bpe``), or any GPT-2 style
        ``vocab.json`` + ``merges.txt`` with byte-level tokens.

        Delegates to :func:`bpe_core.formats.gpt2.load_gpt2` (registered with
        :func:`register_file_loader`): ids are the file's ids (``<|endoftext|>``
        = 50256), GPT-2's regex pre-tokenizer, merges by pair
        (``merge_by="pair"``, GPT-2 ``encoder.py`` ``bpe()``).

        Args:
            encoder_json: path of ``encoder.json`` (token string -> id).
            vocab_bpe: path of ``vocab.bpe`` (``#version: 0.2`` then one merge per line).
            name: a label (default ``"GPT-2"``).

        Returns:
            The tokenizer, with the files' 50,257 ids.

        Raises:
            bpe_core.formats.FormatError: a malformed file (the message names the file and line or key).
            MergeTableError: a single byte missing from the vocabulary, or a merge naming unknown tokens.
            OSError: a file cannot be read.
        """
        return _file_loader("gpt2")(encoder_json, vocab_bpe, name=name or "GPT-2")

    @classmethod
    def from_tiktoken(
        cls,
        rank_file: str | PathLike[str],
        pat_str: str,
        special_tokens: Mapping[str, int] | None = None,
        *,
        name: str = "",
    ) -> Tokenizer:
        """Load a tiktoken rank file (``base64(token) rank`` per line) with its split pattern.

        Delegates to :func:`bpe_core.formats.tiktoken_ranks.load_tiktoken`
        (registered with :func:`register_file_loader`): ids are the ranks,
        merges are looked up by the merged bytes (``merge_by="bytes"``,
        tiktoken ``_byte_pair_merge``), and each token's merge pair is
        recovered (the two lower-ranked tokens tiktoken joins last) so the
        trace can show which two pieces merged.

        Args:
            rank_file: path of the ``.tiktoken`` file (tiktoken ``load_tiktoken_bpe`` format).
            pat_str: the split pattern (e.g. :data:`bpe_core.pretokenize.GPT4_PATTERN` for cl100k_base).
            special_tokens: special token -> id, e.g. ``{"<|endoftext|>": 100257}``.
            name: a label.

        Returns:
            The tokenizer; its ids are the file's ranks plus the given special ids.

        Raises:
            bpe_core.formats.FormatError: a malformed line (named by number), or
                a split pattern that does not compile.
            MergeTableError: a single byte missing from the ranks (listed), or a special id that is also a rank.
            OSError: the file cannot be read.
        """
        return _file_loader("tiktoken")(rank_file, pat_str, special_tokens, name=name)

    def with_fallback(self, fallback: str) -> Tokenizer:
        """The same merge table with another fallback for characters outside a char-level alphabet.

        Args:
            fallback: ``"keep"``, ``"unk"`` or ``"bytes"`` (see :data:`FALLBACKS`).

        Returns:
            A tokenizer over the learned vocabulary with that fallback (``self``
            when it already has it). Byte-level tokenizers never fall back, so
            for them the result behaves exactly like ``self``.

        Raises:
            OptionError: an unknown fallback name.
        """
        fallback_policy(fallback)
        model = self.model.with_fallback(fallback)
        return self if model is self.model else Tokenizer.from_parts(model, self.pre_tokenizer, name=self.name)

    # ------------------------------------------------------------------ what the parts hold

    @property
    def table(self) -> SymbolTable:
        """The frozen symbol table (id -> string, bytes; base-symbol lookups). Read only."""
        return self.model.table

    @property
    def merge_ids(self) -> list[tuple[int, int, int]]:
        """``(left_id, right_id, new_id)`` per merge, in rank order (a fresh list)."""
        return list(self.model.merge_ids)

    @property
    def pair_rank(self) -> dict[int, int]:
        """Pair key ``left * SHIFT + right`` -> rank (read only)."""
        return self.model.pair_rank

    @property
    def token_rank(self) -> dict[bytes, int]:
        """``merge_by="bytes"``: token bytes -> rank (read only)."""
        return self.model.token_rank

    @property
    def merge_by(self) -> str:
        """``"pair"`` or ``"bytes"`` (see :class:`~bpe_core.model.MergeModel`)."""
        return self.model.merge_by

    @property
    def fallback(self) -> str:
        """``"keep"``, ``"unk"`` or ``"bytes"``."""
        return self.model.fallback

    @property
    def unit(self) -> str:
        """``"char"`` or ``"byte"``."""
        return self.model.unit

    @property
    def end_of_word(self) -> str | None:
        """``None``, ``"separate"`` or ``"attached"``."""
        return self.model.end_of_word

    @property
    def pretokenizer(self) -> str:
        """The pre-tokenizer's name."""
        return self.pre_tokenizer.name

    @property
    def pattern(self) -> str | None:
        """The split pattern of a regex pre-tokenizer (``gpt2``, ``gpt4``, ``llama3``), else ``None``."""
        return self.pre_tokenizer.pattern

    @property
    def num_learned(self) -> int:
        """The size of the table the tokenizer was built on (trained or loaded), before any token appended here."""
        return self.model.num_learned

    @property
    def num_saved(self) -> int:
        """The ids a saved file holds besides fallback tokens: the learned table and its end-of-word twins."""
        return self.model.num_saved

    @property
    def unk_id(self) -> int | None:
        """The id of ``<unk>`` (``unk`` fallback), else ``None``."""
        return self.model.unk_id

    @property
    def byte_fallback_ids(self) -> list[int]:
        """The ids of ``<0x00>`` .. ``<0xFF>`` (``bytes`` fallback), else empty."""
        return list(self.model.byte_fallback_ids)

    def __len__(self) -> int:
        return len(self.model)

    @property
    def vocab_size(self) -> int:
        """Number of ids, fallback tokens included."""
        return len(self.model)

    @property
    def vocab(self) -> dict[str, int]:
        """Token string -> id (if two ids share a string, the first keeps it; unassigned ids are left out)."""
        return dict(self.model.lookup)

    @property
    def merges(self) -> list[tuple[str, str]]:
        """The merge table as display strings, in rank order."""
        s = self.model.table.strings
        return [(s[a], s[b]) for a, b, _ in self.model.merge_ids]

    @property
    def special_tokens(self) -> dict[str, int]:
        """Special token -> id."""
        return dict(self.specials.ids)

    def id_to_token(self, token_id: int) -> str:
        """The display string of ``token_id``.

        Raises:
            TokenIdError: the id is outside ``0 .. vocab_size - 1``.
        """
        self._check_id(token_id)
        return self.model.table.strings[token_id]

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes ``token_id`` decodes to (a per-token byte view for the UI).

        Raises:
            TokenIdError: the id is outside the vocabulary.
        """
        self._check_id(token_id)
        return self.model.table.data[token_id]

    def token_ends_word(self, token_id: int) -> bool:
        """True when ``token_id`` holds the end-of-word marker (its last byte in :meth:`token_bytes` is then
        the marker's space). Only the id tells: a literal ``</w>`` typed in a corpus spells the same string.

        Raises:
            TokenIdError: the id is outside the vocabulary.
        """
        self._check_id(token_id)
        return self.model.table.ends_word[token_id]

    def is_partial_utf8(self, token_id: int) -> bool:
        """True when the token's bytes are not valid UTF-8 on their own (a cut character)."""
        try:
            self.token_bytes(token_id).decode("utf-8")
        except UnicodeDecodeError:
            return True
        return False

    def _check_id(self, token_id: object) -> None:
        if isinstance(token_id, bool) or not isinstance(token_id, int):
            raise TokenIdError(f"token ids must be ints, got {token_id!r} ({type(token_id).__name__})")
        n = len(self.model)
        if not 0 <= token_id < n:
            temporary = " (ids past it are temporary: pass the encoding's Temporaries)" if token_id >= n else ""
            shown = f"{token_id}" if abs(token_id) < 10**30 else f"of {token_id.bit_length() * 0.30103:,.0f} digits"
            raise TokenIdError(f"token id {shown} is out of range: valid ids are 0..{n - 1}{temporary}")
        if token_id in self.model.table.gaps:
            raise TokenIdError(f"token id {token_id} is not assigned: this vocabulary has no token with that id")

    # ------------------------------------------------------------------ encoding

    @budgeted
    def pre_tokens(self, text: str, allowed_special: AllowedSpecial = ()) -> list[tuple[str, bool]]:
        """``(pre-token, is_special)`` in text order: special tokens cut out, the rest pre-tokenized.

        Raises:
            OptionError, TypeError: as for :meth:`encode`.
        """
        split = self.pre_tokenizer.split
        out: list[tuple[str, bool]] = []
        for piece, special in self.specials.split(text, allowed_special):
            if special:
                out.append((piece, True))
            else:
                out.extend((chunk, False) for chunk in split(piece))
        return out

    @budgeted
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
        """Encode text to token ids.

        Args:
            text: any ``str`` (empty gives ``[]``).
            order: ``"rank"`` (default) or ``"sequential"``; see the module docstring.
            allowed_special: special tokens to recognise in the text (``"all"``
                for every one). Text that merely looks like a special token is
                otherwise encoded as ordinary text, as tiktoken's ``encode_ordinary``
                does (tiktoken's ``encode`` instead raises on such text by default,
                ``disallowed_special="all"``).
            temporaries: char unit, ``keep`` fallback: collects the temporary
                ids given to characters outside the alphabet (pass it to
                :meth:`decode` to decode them); a fresh one by default.
            dropout: BPE-dropout (Provilkov et al. 2020, "BPE-Dropout: Simple
                and Effective Subword Regularization", section 3): at each
                merge step every merge that could fire is skipped with this
                probability, so one text gets many segmentations, all built
                from the same vocabulary. ``0`` (the default) is plain encoding;
                ``1`` leaves every pre-token in its base symbols. This is
                subword-nmt's rule (``apply_bpe.py --dropout``: each step, every
                adjacent pair is kept with probability ``1 - p`` and all kept
                occurrences of the lowest-ranked rule merge at once). Here only
                the candidates looked at before one is kept are drawn (lowest
                rank first), which gives the same segmentations in distribution
                (tested against subword-nmt) but not draw for draw for a seed;
                see :meth:`bpe_core.merging.RuleApplier.run`. Hugging Face
                ``tokenizers`` (``BPE(dropout=p)``, ``Word::merge_all``) differs:
                it draws once per entry it pops from its merge queue (stale
                entries included), merges one occurrence at a time, puts the
                skipped entries back only after the next merge, and its random
                generator cannot be seeded, so its samples cannot be reproduced.
                The per-pre-token cache is not used when ``dropout > 0``.
            seed: the dropout's random seed (``random.Random(seed)``, drawn in
                text order): the same text, table, ``dropout`` and seed give the
                same ids. ``None``: fresh randomness. Ignored when ``dropout`` is 0.

        Returns:
            The token ids: a plain list, or (when the ``keep`` fallback handed
            out temporary ids) an :class:`~bpe_core.spelling.IdsWithTemporaries`,
            a list that :meth:`decode` can decode on its own.

        Raises:
            OptionError: unknown order, an ``allowed_special`` that is not a
                special token, (byte unit) a lone surrogate in the text, a
                ``dropout`` outside ``[0, 1]`` or a ``seed`` that is not an int.
            TypeError: ``text`` is not a ``str``.
        """
        mode = merge_order(order)
        rng = dropout_rng(dropout, seed)
        pieces = self.specials.split(text, allowed_special)
        if rng is not None:
            temporaries = Temporaries(len(self.model)) if temporaries is None else temporaries
            out = self._encode_dropout(pieces, mode, temporaries, *rng)
            return IdsWithTemporaries(out, temporaries) if len(temporaries) else out
        if self.model.fast_path(mode):
            try:
                return self._encode_pieces(pieces, mode, None)
            except UnicodeEncodeError as exc:  # a lone surrogate
                self.model.spell(exc.object)  # raises the OptionError that names it
                raise
        if temporaries is None:
            temporaries = Temporaries(len(self.model))
        out = self._encode_pieces(pieces, mode, temporaries)
        return IdsWithTemporaries(out, temporaries) if len(temporaries) else out

    def _encode_pieces(
        self, pieces: list[tuple[str, bool]], mode: MergeOrder, temporaries: Temporaries | None
    ) -> list[int]:
        """The encode loop: a special token is its id; every other pre-token goes through the model's cache.

        ``temporaries`` is ``None`` on the model's fast path (byte unit, no
        marker, rank order: the chunk encoder takes the chunk alone and every
        result is cached); otherwise a pre-token's ids are cached only if
        spelling it handed out no temporary id.
        """
        out: list[int] = []
        special_ids = self.specials.ids
        split = self.pre_tokenizer.split
        cache = self.model.cache(mode)
        new_ids = self.model.chunk_encoder(mode)
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
        self,
        pieces: list[tuple[str, bool]],
        mode: MergeOrder,
        temporaries: Temporaries,
        dropout: float,
        rng: random.Random,
    ) -> list[int]:
        """The encode loop with BPE-dropout: each pre-token spelled and merged anew (no cache), drawing from ``rng``."""
        out: list[int] = []
        special_ids = self.specials.ids
        split = self.pre_tokenizer.split
        spell, run = self.model.spell, self.model.rules.run
        for piece, special in pieces:
            if special:
                out.append(special_ids[piece])
                continue
            for chunk in split(piece):
                out += run(spell(chunk, temporaries), mode, traced=False, dropout=dropout, rng=rng).final
        return out

    def tokenize(self, text: str, *, order: str = "rank", allowed_special: AllowedSpecial = ()) -> list[str]:
        """Encode text and return the token strings instead of ids.

        Args:
            text, order, allowed_special: as for :meth:`encode`.

        Returns:
            One vocabulary string per token (``Ġthe``, ``er</w>``, ``<0xF0>``;
            a kept unseen character is its own string).

        Raises:
            OptionError, TypeError: as for :meth:`encode`.
        """
        temporaries = Temporaries(len(self.model))
        ids = self.encode(text, order=order, allowed_special=allowed_special, temporaries=temporaries)
        strings = self.model.table.strings
        size = len(strings)
        return [strings[i] if i < size else temporaries.token(i)[0] for i in ids]

    def word_tokens(
        self, text: str, *, order: str = "rank", allowed_special: AllowedSpecial = ()
    ) -> list[tuple[str, bool]]:
        """Encode text and return ``(token string, ends a word)`` per token.

        The flag tells the end-of-word marker apart from typed text that spells
        ``</w>`` (the strings alone cannot). Temporary tokens are included.

        Raises:
            OptionError, TypeError: as for :meth:`encode`.
        """
        temporaries = Temporaries(len(self.model))
        ids = self.encode(text, order=order, allowed_special=allowed_special, temporaries=temporaries)
        table = self.model.table
        size = len(table)
        strings, ends = table.strings, table.ends_word
        return [(strings[i], ends[i]) if i < size else _pick(temporaries.token(i)) for i in ids]

    def replay_ids(self, symbols: Sequence[int] | str, stop: int, start: int = 0) -> tuple[int, ...]:
        """Apply merge rules ``start .. stop - 1`` in learned order to a word, as training did.

        Each rule is applied to all its occurrences, left to right without
        overlap, in rank order: the loop of Sennrich et al. 2016, Algorithm 1.

        Args:
            symbols: a pre-token's text (spelled in base symbols here, with the
                end-of-word marker), or a segmentation as symbol ids previously
                returned by this method.
            stop: one past the last rank to apply.
            start: the first rank to apply (the segmentation must already
                reflect ranks below it).

        Returns:
            The segmentation as symbol ids (ids, not strings, so a literal
            ``</w>`` in the text is never confused with the marker).
        """
        return self.model.replay_ids(symbols, stop, start)

    def replay(self, symbols: Sequence[str] | str, stop: int, start: int = 0) -> tuple[str, ...]:
        """:meth:`replay_ids` with token strings in and out.

        Args:
            symbols: a pre-token's text, or a segmentation as token strings
                (each string is looked up in :attr:`vocab`, the first id winning;
                use :meth:`replay_ids` when strings may be ambiguous).
            stop: one past the last rank to apply.
            start: the first rank to apply.

        Returns:
            The segmentation as token strings.

        Raises:
            KeyError: a string of ``symbols`` is not in the vocabulary.
        """
        if isinstance(symbols, str):
            ids: Sequence[int] | str = symbols
        else:
            lookup = self.model.lookup
            ids = [lookup[s] for s in symbols]
        strings = self.model.table.strings
        return tuple(strings[i] for i in self.replay_ids(ids, stop, start))

    # ------------------------------------------------------------------ explanations (bpe_core.explain)

    def encode_with_trace(
        self,
        text: str,
        *,
        order: str = "rank",
        allowed_special: AllowedSpecial = (),
        dropout: float = 0.0,
        seed: int | random.Random | None = None,
    ) -> EncodeTrace:
        """:func:`bpe_core.explain.encode_trace`: every rule application, blocked rule and fallback.

        ``dropout`` and ``seed`` as for :meth:`encode` (the trace's ids equal
        ``encode``'s for the same seed); each step then lists the merges dropout skipped.
        """
        return explain.encode_trace(
            self, text, order=order, allowed_special=allowed_special, dropout=dropout, seed=seed
        )

    def order_differences(self, text: str) -> list[OrderDifference]:
        """:func:`bpe_core.explain.order_differences`: pre-tokens ``rank`` and ``sequential`` order cut apart."""
        return explain.order_differences(self, text)

    def round_trip(self, text: str, *, order: str = "rank", allowed_special: AllowedSpecial = ()) -> RoundTrip:
        """:func:`bpe_core.explain.round_trip`: whether ``decode(encode(text)) == text``, and why not."""
        return explain.round_trip(self, text, order=order, allowed_special=allowed_special)

    # ------------------------------------------------------------------ decoding

    def decode_bytes(self, ids: Iterable[int], *, temporaries: Temporaries | None = None) -> bytes:
        """Concatenate the bytes of ``ids`` (the end-of-word marker decodes to a space).

        With the marker, a special token is a word of its own and is followed by one space unless
        it is last (see :class:`~bpe_core.pipeline.Decoder`), so ``<s> <s>`` round-trips as ``a b`` does.

        Args:
            ids: token ids.
            temporaries: the :class:`~bpe_core.spelling.Temporaries` of the
                encoding that gave ``ids``, to decode its temporary ids
                (taken from ``ids`` itself when :meth:`encode` returned an
                :class:`~bpe_core.spelling.IdsWithTemporaries`).

        Raises:
            TokenIdError: an id is outside the vocabulary (and not one of ``temporaries``).
        """
        if temporaries is None and isinstance(ids, IdsWithTemporaries):
            temporaries = ids.temporaries
        table = self.model.table
        data, ends = table.data, table.ends_word
        ids = list(ids)
        n = len(data)
        extra = False
        for i in ids:
            if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < n:
                if temporaries is None or isinstance(i, bool) or not isinstance(i, int) or i not in temporaries.ids():
                    self._check_id(i)
                extra = True
        self._check_gaps(ids)
        if not ids:
            return b""
        spaced = self.decoder.spaced
        if not extra and (not spaced or spaced.isdisjoint(ids)):
            return self.decoder.join([data[i] for i in ids], ends[ids[-1]])
        tokens = [
            (data[i] + b" ", True) if i in spaced else (data[i], ends[i]) if i < n else temporaries.token(i)[1:]  # type: ignore[union-attr]
            for i in ids
        ]
        return self.decoder.join([raw for raw, _eow in tokens], tokens[-1][1])

    def _check_gaps(self, ids: list[int]) -> None:
        gaps = self.model.table.gaps
        if gaps and not gaps.isdisjoint(ids):
            bad = sorted(gaps.intersection(ids))
            raise TokenIdError(
                f"token id{'s' if len(bad) > 1 else ''} {', '.join(map(str, bad))} "
                f"{'are' if len(bad) > 1 else 'is'} not assigned: this vocabulary has no token with "
                f"{'those ids' if len(bad) > 1 else 'that id'}"
            )

    def decode(self, ids: Iterable[int], errors: str = "replace", *, temporaries: Temporaries | None = None) -> str:
        """Decode token ids back to text.

        Args:
            ids: token ids.
            errors: how to treat bytes that are not valid UTF-8, e.g. ids that cut
                a character in two: ``"replace"`` (U+FFFD, the default) or
                ``"strict"``; any codec error handler is accepted.
            temporaries: as for :meth:`decode_bytes`.

        Returns:
            The text. Byte-level tokenizers invert :meth:`encode` exactly; the
            whitespace pre-tokenizers and ``<unk>`` cannot (see :meth:`round_trip`).

        Raises:
            TokenIdError: an id is outside the vocabulary.
            UnicodeDecodeError: ``errors="strict"`` and the bytes are not valid UTF-8.
        """
        return self.decode_bytes(ids, temporaries=temporaries).decode("utf-8", errors)


def _pick(token: tuple[str, bytes, bool]) -> tuple[str, bool]:
    return token[0], token[2]


def _check_rules(merges: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """Validate a merge table's shape: a sequence of pairs of non-empty strings."""
    if isinstance(merges, (str, bytes)):
        raise MergeTableError("merges must be a list of (left, right) pairs, not a string")
    rules = []
    for rank, rule in enumerate(merges):
        if not isinstance(rule, (tuple, list)) or len(rule) != 2:
            raise MergeTableError(f"merge rule {rank} must be a pair (left, right), got {quote(rule)}")
        left, right = rule
        if not isinstance(left, str) or not isinstance(right, str) or not left or not right:
            raise MergeTableError(f"merge rule {rank} must hold two non-empty strings, got {quote(rule)}")
        rules.append((left, right))
    return rules


def _alphabet_of_rules(rules: list[tuple[str, str]], unit: str, eow: str | None, chars: set[str]) -> None:
    """Check that every symbol of ``rules`` is a base symbol or formed earlier; collect char-unit bases in ``chars``."""
    byte_chars = unicode_to_bytes()
    layout, byte_level = MARKER_LAYOUTS[eow], UNIT_KINDS[unit].byte_level
    known: set[str] = set(layout.own_symbols)
    for rank, (left, right) in enumerate(rules):
        for part in (left, right):
            if part in known:
                continue
            ch = layout.base_char(part)
            if ch is None:
                raise MergeTableError(
                    f"merge rule {rank} ({quote(left)}, {quote(right)}): symbol {quote(part)} is neither a base "
                    "symbol nor formed by an earlier rule"
                )
            if byte_level and ch not in byte_chars:
                raise MergeTableError(
                    f"merge rule {rank} ({quote(left)}, {quote(right)}): {quote(ch)} is not in the byte-level "
                    "alphabet (GPT-2 byte-to-unicode characters)"
                )
            if not byte_level:
                chars.add(ch)
            known.add(part)
        known.add(left + right)


def _table_from_rules(
    rules: list[tuple[str, str]], unit: str, eow: str | None, special_tokens: Iterable[str], alphabet: Iterable[str]
) -> tuple[SymbolTable, list[tuple[int, int, int]]]:
    """The symbol table and merge ids of a merge table written as strings (see :meth:`Tokenizer.from_merges`)."""
    chars: set[str] = set(alphabet)
    _alphabet_of_rules(rules, unit, eow, chars)
    finals = UNIT_KINDS[unit].every_unit(chars) if MARKER_LAYOUTS[eow].twins else set()
    table = SymbolTable(unit, eow, special_tokens, chars=chars, final_units=finals)
    lookup: dict[str, int] = {}
    for i in range(table.num_special, len(table)):
        lookup.setdefault(table.strings[i], i)
    merge_ids = []
    for left, right in rules:
        a, b = lookup[left], lookup[right]
        new = lookup.get(left + right)
        if new is None:
            new = table.add_merge(a, b)
            lookup[left + right] = new
        merge_ids.append((a, b, new))
    return table, merge_ids


Encoder = Callable[[str], list[int]]

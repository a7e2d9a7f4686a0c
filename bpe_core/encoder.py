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

from collections.abc import Callable, Iterable, Mapping, Sequence
from os import PathLike
from typing import Literal

from .byte_level import unicode_to_bytes
from .errors import MergeTableError, OptionError, TokenIdError
from .merging import INF, RuleApplier
from .pretokenize import REGEX_PATTERNS, check_pretokenizer, compiled_pattern, pretokenize, split_special
from .symbols import END_OF_WORD, MARKER, SHIFT, UNITS, SymbolTable, check_option, utf8
from .trace import (
    BlockedRule,
    EncodeTrace,
    Fallback,
    OrderDifference,
    PieceTrace,
    RoundTrip,
    RuleApplication,
    TrainConfig,
)

ORDERS: dict[str, str] = {
    "rank": "Repeatedly merge the lowest-rank adjacent pair (GPT-2 encoder.py, tiktoken, Hugging Face).",
    "sequential": "Apply the merge table once, rule by rule in learned order (the textbook training loop).",
}
"""Every merge order with a one-line description."""

FALLBACKS: dict[str, str] = {
    "keep": "An unseen character stays a symbol of its own, as subword-nmt apply_bpe does (it gets a new id).",
    "unk": "An unseen character becomes the single token <unk>.",
    "bytes": "An unseen character is spelled as its UTF-8 bytes, <0xF0> <0x9F> ... (SentencePiece, Llama).",
}
"""Every fallback for characters outside a char-level alphabet."""

UNK = "<unk>"
_INF = INF
_TRACE_SYMBOLS = 512
"""Rule applications on longer pieces record positions but not the whole before/after spelling."""
_CACHE_LIMIT = 200_000

AllowedSpecial = Literal["all"] | Iterable[str]


class Tokenizer:
    """A BPE tokenizer: a merge table plus the settings needed to apply it.

    Build one with :func:`bpe_core.train` (``result.tokenizer``) or
    :meth:`from_merges`. Ids follow the vocabulary: special tokens, base
    alphabet, merges, then fallback tokens (``<unk>`` or the 256 ``<0xNN>``).
    With the attached end-of-word marker and the byte unit or ``"keep"``
    fallback, the base symbols that never ended a word in training get their
    ``c</w>`` twin after the merges, so every word can end with its marker.

    Attributes:
        num_learned: the size of the table the tokenizer was built on (trained
            or loaded), before any token this class appends.
        num_saved: the ids a saved file holds besides fallback tokens: the
            learned table plus those end-of-word twins.
    """

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
        """Low-level constructor; prefer :meth:`from_merges` or ``train(...).tokenizer``.

        Args:
            table: the symbol table (copied; fallback tokens are added to the copy).
            merge_ids: ``(left_id, right_id, new_id)`` per merge, in rank order.
            pretokenizer: a name from :data:`bpe_core.pretokenize.PRETOKENIZERS`.
            fallback: ``"keep"``, ``"unk"`` or ``"bytes"``: what a char-unit
                tokenizer does with a character outside its alphabet (see
                :data:`FALLBACKS`). ``"keep"`` appends the character to the
                vocabulary when it is first met, so its id depends on the order
                in which new characters were seen.
            pattern: a split pattern replacing the default of ``gpt2``/``gpt4``.
            name: a label for the UI.
            merge_by: ``"pair"`` (a rule fires on its own two symbols, GPT-2
                ``encoder.py``, Hugging Face) or ``"bytes"`` (byte unit only: any
                two adjacent tokens whose bytes concatenate to a token merge, at
                that token's rank, leftmost lowest rank first, one merge at a
                time: tiktoken's ``_byte_pair_merge`` in ``src/lib.rs``).

        Raises:
            OptionError: unknown pre-tokenizer, fallback or merge_by, or
                ``merge_by="bytes"`` on a char-unit table.
            MergeTableError: a pair appears twice in the table.
        """
        check_pretokenizer(pretokenizer)
        check_option("fallback", fallback, FALLBACKS)
        check_option("merge_by", merge_by, ("pair", "bytes"))
        if merge_by == "bytes" and table.unit != "byte":
            raise OptionError('merge_by="bytes" (tiktoken semantics) needs a byte-unit table')
        self.merge_by = merge_by
        self.pretokenizer = pretokenizer
        self.pattern = pattern if pattern is not None else REGEX_PATTERNS.get(pretokenizer)
        self.fallback = fallback
        self.name = name
        self.table = table.copy()
        self.unit = table.unit
        self.end_of_word = table.end_of_word
        self.merge_ids = list(merge_ids)
        self.pair_rank: dict[int, int] = {}
        for rank, (a, b, _new) in enumerate(self.merge_ids):
            key = a * SHIFT + b
            if key in self.pair_rank:
                first = self.pair_rank[key]
                raise MergeTableError(
                    f"merge rule {rank} {self._pair(a, b)} repeats rule {first}; each pair may appear once"
                )
            self.pair_rank[key] = rank
        self.token_rank: dict[bytes, int] = {}
        if merge_by == "bytes":
            data = self.table.data
            for rank, (_a, _b, new) in enumerate(self.merge_ids):
                self.token_rank.setdefault(data[new], rank)
        self._rules = RuleApplier(
            self.merge_ids, self.pair_rank, self.token_rank, self.table.data, merge_by, self.end_of_word is None
        )
        self.num_learned = len(self.table)
        self.unk_id: int | None = None
        self.byte_fallback_ids: list[int] = []
        if self.unit == "char":
            if fallback == "keep":
                pass
            elif fallback == "unk":
                self.unk_id = self.table.special_ids.get(UNK)
                if self.unk_id is None and UNK in self.table.strings:  # a learned "<unk>" (WikiText's literal)
                    self.unk_id = self.table.strings.index(UNK)
                if self.unk_id is None:
                    self.unk_id = self.table.add_token(UNK, "\ufffd".encode())
            else:
                self.byte_fallback_ids = [self.table.add_token(f"<0x{b:02X}>", bytes([b])) for b in range(256)]
        if self.end_of_word == "attached" and (self.unit == "byte" or fallback == "keep"):
            # Every base symbol gets its end-of-word twin now, after the learned ids, so a symbol that
            # never ended a word in training still ends one with its marker, under an id that does not
            # depend on what was encoded before (and that exported vocabularies hold too).
            base = self.table.byte_ids if self.unit == "byte" else sorted(self.table.char_ids.values())
            for i in base:
                if i not in self.table.final_ids:
                    self._add_twin(i)
        self.num_saved = len(self.table) if self.unit == "byte" or fallback == "keep" else self.num_learned
        """The ids a saved file holds, fallback tokens aside: the learned table and the twins above."""
        self._caches: dict[str, dict[str, tuple[int, ...]]] = {"rank": {}, "sequential": {}}
        self._by_left: dict[int, list[tuple[int, int]]] | None = None
        self._lookup: dict[str, int] | None = None

    # ------------------------------------------------------------------ construction

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
            pattern: replacement split pattern for ``gpt2``/``gpt4``.
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
        eow = end_of_word if pretokenizer == "whitespace_eow" else None
        rules = _check_rules(merges)
        chars: set[str] = set(alphabet)
        byte_chars = unicode_to_bytes()

        def base_char(part: str) -> str | None:
            """The single character a base-symbol string stands for, or None."""
            core = part[: -len(MARKER)] if eow == "attached" and part.endswith(MARKER) else part
            if len(core) == 1 and (eow != "separate" or part != MARKER):
                return core
            return None

        # First pass: find the alphabet and check that every symbol is formed before use.
        known: set[str] = set()
        if eow == "separate":
            known.add(MARKER)
        for rank, (left, right) in enumerate(rules):
            for part in (left, right):
                if part in known:
                    continue
                ch = base_char(part)
                if ch is None:
                    raise MergeTableError(
                        f"merge rule {rank} ({left!r}, {right!r}): symbol {part!r} is neither a base "
                        "symbol nor formed by an earlier rule"
                    )
                if unit == "byte" and ch not in byte_chars:
                    raise MergeTableError(
                        f"merge rule {rank} ({left!r}, {right!r}): {ch!r} is not in the byte-level "
                        "alphabet (GPT-2 byte-to-unicode characters)"
                    )
                if unit == "char":
                    chars.add(ch)
                known.add(part)
            known.add(left + right)
        finals: set[str | int] = set()
        if eow == "attached":
            finals = set(range(256)) if unit == "byte" else set(chars)
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
        return cls(table, merge_ids, pretokenizer=pretokenizer, fallback=fallback, pattern=pattern, name=name)

    @classmethod
    def from_gpt2(
        cls, encoder_json: str | PathLike[str], vocab_bpe: str | PathLike[str], *, name: str = ""
    ) -> Tokenizer:
        """Load OpenAI GPT-2's file pair (``encoder.json`` + ``vocab.bpe``), or any GPT-2 style
        ``vocab.json`` + ``merges.txt`` with byte-level tokens.

        Delegates to :func:`bpe_core.formats.gpt2.load_gpt2`: ids are the file's
        ids (``<|endoftext|>`` = 50256), GPT-2's regex pre-tokenizer, merges by
        pair (``merge_by="pair"``, GPT-2 ``encoder.py`` ``bpe()``).

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
        from .formats.gpt2 import load_gpt2  # late import: the formats package imports this module

        return load_gpt2(encoder_json, vocab_bpe, name=name or "GPT-2")

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

        Delegates to :func:`bpe_core.formats.tiktoken_ranks.load_tiktoken`: ids
        are the ranks, merges are looked up by the merged bytes
        (``merge_by="bytes"``, tiktoken ``_byte_pair_merge``), and each token's
        merge pair is recovered (the two lower-ranked tokens tiktoken joins last)
        so the trace can show which two pieces merged.

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
        from .formats.tiktoken_ranks import load_tiktoken

        return load_tiktoken(rank_file, pat_str, special_tokens, name=name)

    # ------------------------------------------------------------------ views

    def with_fallback(self, fallback: str) -> Tokenizer:
        """The same merge table with another fallback for characters outside a char-level alphabet.

        Args:
            fallback: ``"keep"``, ``"unk"`` or ``"bytes"`` (see :data:`FALLBACKS`).

        Returns:
            A new :class:`Tokenizer` over the learned vocabulary only (symbols
            that ``"keep"`` added while encoding, and fallback tokens, are not
            carried over); ``self`` is unchanged. Byte-level tokenizers never
            fall back, so for them the copy behaves exactly like ``self``.

        Raises:
            OptionError: an unknown fallback name.
        """
        check_option("fallback", fallback, FALLBACKS)
        return Tokenizer(
            self.table.truncated(self.num_learned),
            self.merge_ids,
            pretokenizer=self.pretokenizer,
            fallback=fallback,
            pattern=self.pattern,
            name=self.name,
            merge_by=self.merge_by,
        )

    def __getstate__(self) -> dict[str, object]:
        state = dict(self.__dict__)
        state["_caches"] = {"rank": {}, "sequential": {}}
        state["_by_left"] = None
        state["_lookup"] = None
        return state

    def __len__(self) -> int:
        return len(self.table)

    @property
    def vocab_size(self) -> int:
        """Number of ids, fallback tokens included."""
        return len(self.table)

    @property
    def vocab(self) -> dict[str, int]:
        """Token string -> id (if two ids share a string, the first keeps it; unassigned ids are left out)."""
        gaps = self.table.gaps
        return {s: i for i, s in reversed(list(enumerate(self.table.strings))) if i not in gaps}

    @property
    def merges(self) -> list[tuple[str, str]]:
        """The merge table as display strings, in rank order."""
        s = self.table.strings
        return [(s[a], s[b]) for a, b, _ in self.merge_ids]

    @property
    def special_tokens(self) -> dict[str, int]:
        """Special token -> id."""
        return dict(self.table.special_ids)

    def id_to_token(self, token_id: int) -> str:
        """The display string of ``token_id``.

        Raises:
            TokenIdError: the id is outside ``0 .. vocab_size - 1``.
        """
        self._check_id(token_id)
        return self.table.strings[token_id]

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes ``token_id`` decodes to (a per-token byte view for the UI).

        Raises:
            TokenIdError: the id is outside the vocabulary.
        """
        self._check_id(token_id)
        return self.table.data[token_id]

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
        if not 0 <= token_id < len(self.table):
            raise TokenIdError(f"token id {token_id!r} is out of range: valid ids are 0..{len(self.table) - 1}")
        if token_id in self.table.gaps:
            raise TokenIdError(f"token id {token_id} is not assigned: this vocabulary has no token with that id")

    def _pair(self, a: int, b: int) -> str:
        return f"({self.table.strings[a]!r}, {self.table.strings[b]!r})"

    # ------------------------------------------------------------------ encoding

    def _chunks(self, text: str) -> list[str]:
        if self.pattern is not None and self.pretokenizer in REGEX_PATTERNS:
            return compiled_pattern(self.pattern).findall(text)
        return pretokenize(text, self.pretokenizer)

    def _split(self, text: str, allowed_special: AllowedSpecial) -> list[tuple[str, bool]]:
        if not isinstance(text, str):
            raise TypeError(f"text must be str, not {type(text).__name__}")
        if allowed_special == "all":
            allowed: list[str] = list(self.table.special_ids)
        else:
            if isinstance(allowed_special, str):
                raise TypeError('allowed_special must be "all" or a collection of strings')
            allowed = list(allowed_special)
            unknown = [s for s in allowed if s not in self.table.special_ids]
            if unknown:
                raise OptionError(f"allowed_special names tokens that are not special tokens: {unknown!r}")
        return split_special(text, allowed)

    def _spell(self, chunk: str, fallbacks: list[tuple[int, str, str]] | None = None) -> list[int]:
        """Base symbols of a chunk, with fallback for unknown characters and the marker."""
        table = self.table
        try:
            syms = table.base_units(chunk)
        except KeyError:
            syms = []
            ids = table.char_ids
            for k, ch in enumerate(chunk):
                i = ids.get(ch)
                if i is not None:
                    syms.append(i)
                elif self.fallback == "keep":
                    syms.append(self._add_char(ch))
                    if fallbacks is not None:
                        fallbacks.append((k, ch, "kept"))
                elif self.unk_id is not None:
                    syms.append(self.unk_id)
                    if fallbacks is not None:
                        fallbacks.append((k, ch, "unk"))
                else:
                    syms.extend(self.byte_fallback_ids[b] for b in utf8(ch))
                    if fallbacks is not None:
                        fallbacks.append((k, ch, "bytes"))
        except UnicodeEncodeError as exc:
            raise OptionError(
                f"text holds a lone surrogate {exc.object[exc.start]!r}, which has no UTF-8 bytes"
            ) from None
        if self.end_of_word == "separate":
            syms.append(table.marker_id)  # type: ignore[arg-type]
        elif self.end_of_word == "attached" and syms:
            twin = table.final_ids.get(syms[-1])
            if twin is not None:
                syms[-1] = twin
            elif table.char_ids.get(table.strings[syms[-1]]) != syms[-1]:
                pass  # the last symbol is already a fallback token (<unk>, <0xNN>)
            elif self.fallback == "keep":
                syms[-1] = self._add_twin(syms[-1])
            else:
                # a known character that never ended a word in training has no marker twin
                ch = chunk[-1]
                if self.unk_id is not None:
                    syms[-1] = self.unk_id
                    kind = "unk"
                else:
                    syms[-1:] = [self.byte_fallback_ids[b] for b in utf8(ch)]
                    kind = "bytes"
                if fallbacks is not None:
                    fallbacks.append((len(chunk) - 1, ch, kind))
        return syms

    def _add_char(self, ch: str) -> int:
        """Give an unseen character a base symbol of its own (fallback ``"keep"``)."""
        i = self.table.add_token(ch, utf8(ch))
        self.table.char_ids[ch] = i
        self._lookup = None
        return i

    def _add_twin(self, base: int) -> int:
        """Give a base symbol its end-of-word twin ``c</w>`` (fallback ``"keep"``)."""
        t = self.table
        twin = t.add_token(t.strings[base] + MARKER, t.data[base] + b" ", ends_word=True)
        t.final_ids[base] = twin
        self._lookup = None
        return twin

    def _merge(
        self, syms: list[int], order: str, record: list | None = None, start: int = 0, stop: int = _INF
    ) -> list[int]:
        """Apply the merge rules to one chunk's symbols (:meth:`bpe_core.merging.RuleApplier.apply`).

        ``syms`` is consumed (changed in place). ``start``/``stop`` (sequential
        order only) restrict the pass to ranks ``start <= rank < stop``;
        ``record`` collects ``(rank, sites, before, after)`` per rule applied.
        """
        return self._rules.apply(syms, order, record, start, stop)

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
        ids = self._spell(symbols) if isinstance(symbols, str) else list(symbols)
        return tuple(self._merge(ids, "sequential", start=start, stop=stop))

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
            lookup = self._string_ids()
            ids = [lookup[s] for s in symbols]
        strings = self.table.strings
        return tuple(strings[i] for i in self.replay_ids(ids, stop, start))

    def _string_ids(self) -> dict[str, int]:
        """Token string -> id, the first id winning (as :attr:`vocab`), cached."""
        if self._lookup is None:
            self._lookup = self.vocab
        return self._lookup

    def _encode_chunk(self, chunk: str, order: str) -> tuple[int, ...]:
        cache = self._caches[order]
        ids = cache.get(chunk)
        if ids is None:
            ids = self._chunk_encoder(order)(chunk)
            if len(cache) >= _CACHE_LIMIT:
                cache.clear()
            cache[chunk] = ids
        return ids

    def _chunk_encoder(self, order: str) -> Callable[[str], tuple[int, ...]]:
        """``encode(chunk)``: one chunk's ids, merged from its base symbols (no cache).

        Byte-level tables without an end-of-word marker in ``rank`` order (GPT-2,
        cl100k_base, tables trained with the gpt2/gpt4 pattern) take the
        specialised loops of :meth:`~bpe_core.merging.RuleApplier.rank_encoder`;
        everything else spells the chunk and runs the general merge loop.
        """
        if order == "rank" and self.unit == "byte" and self.end_of_word is None:
            return self._rules.rank_encoder(self.table.byte_ids)
        return lambda chunk: tuple(self._merge(self._spell(chunk), order))

    def encode(self, text: str, *, order: str = "rank", allowed_special: AllowedSpecial = ()) -> list[int]:
        """Encode text to token ids.

        Args:
            text: any ``str`` (empty gives ``[]``).
            order: ``"rank"`` (default) or ``"sequential"``; see the module docstring.
            allowed_special: special tokens to recognise in the text (``"all"``
                for every one). Text that merely looks like a special token is
                otherwise encoded as ordinary text, as tiktoken does.

        Returns:
            The token ids.

        Raises:
            OptionError: unknown order, an ``allowed_special`` that is not a
                special token, or (byte unit) a lone surrogate in the text.
            TypeError: ``text`` is not a ``str``.
        """
        check_option("order", order, ORDERS)
        out: list[int] = []
        special_ids = self.table.special_ids
        cache = self._caches[order]
        new_ids = self._chunk_encoder(order)
        try:
            for piece, special in self._split(text, allowed_special):
                if special:
                    out.append(special_ids[piece])
                    continue
                for chunk in self._chunks(piece):
                    ids = cache.get(chunk)
                    if ids is None:  # a miss: merge it here, without _encode_chunk's second lookup
                        ids = new_ids(chunk)
                        if len(cache) >= _CACHE_LIMIT:
                            cache.clear()
                        cache[chunk] = ids
                    out.extend(ids)
        except UnicodeEncodeError as exc:  # the byte-level fast path met a lone surrogate
            self._spell(exc.object)  # raises the OptionError that names it
            raise
        return out

    def tokenize(self, text: str, *, order: str = "rank", allowed_special: AllowedSpecial = ()) -> list[str]:
        """Encode text and return the token strings instead of ids.

        Args:
            text, order, allowed_special: as for :meth:`encode`.

        Returns:
            One vocabulary string per token (``Ġthe``, ``er</w>``, ``<0xF0>``).

        Raises:
            OptionError, TypeError: as for :meth:`encode`.
        """
        strings = self.table.strings
        return [strings[i] for i in self.encode(text, order=order, allowed_special=allowed_special)]

    def encode_with_trace(self, text: str, *, order: str = "rank", allowed_special: AllowedSpecial = ()) -> EncodeTrace:
        """Encode text and record every rule application, blocked rule and fallback.

        The ids in the returned trace equal ``encode(text, ...)``. Pieces
        longer than 512 symbols record the positions of each rule application
        but not the whole spelling (and their blocked rules are judged on the
        final tokens alone).

        Args:
            text, order, allowed_special: as for :meth:`encode`.

        Returns:
            An :class:`~bpe_core.trace.EncodeTrace`: the order that ran and one
            :class:`~bpe_core.trace.PieceTrace` per pre-token (initial symbols,
            rule applications, blocked rules, fallbacks, final tokens and ids).

        Raises:
            OptionError, TypeError: as for :meth:`encode`.
        """
        check_option("order", order, ORDERS)
        strings = self.table.strings
        pieces: list[PieceTrace] = []
        offset = 0
        for piece, special in self._split(text, allowed_special):
            if special:
                sid = self.table.special_ids[piece]
                pieces.append(PieceTrace(piece, offset, True, (piece,), (), (), (), (piece,), (sid,)))
                offset += len(piece)
                continue
            cursor = 0
            for chunk in self._chunks(piece):
                at = piece.find(chunk, cursor)
                start = offset + (at if at >= 0 else cursor)
                if at >= 0:
                    cursor = at + len(chunk)
                pieces.append(self._trace_chunk(chunk, start, order, strings))
            offset += len(piece)
        return EncodeTrace(text=text, order=order, pieces=tuple(pieces))

    def _trace_chunk(self, chunk: str, start: int, order: str, strings: list[str]) -> PieceTrace:
        raw_fallbacks: list[tuple[int, str, str]] = []
        initial = self._spell(chunk, raw_fallbacks)
        record: list[tuple[int, tuple[int, ...], list[int], list[int]]] = []
        final = self._merge(list(initial), order, record)
        full = len(initial) <= _TRACE_SYMBOLS
        steps = []
        for rank, sites, before, after in record:
            a, b, new = self.merge_ids[rank]
            if self.merge_by == "bytes" and sites and len(before) == len(after) + len(sites):
                a, b = before[sites[0]], before[sites[0] + 1]  # tiktoken joins whichever two pieces spell the token
            steps.append(
                RuleApplication(
                    rank=rank,
                    pair=(strings[a], strings[b]),
                    token=strings[new],
                    positions=sites,
                    before=tuple(strings[s] for s in before) if full else (),
                    after=tuple(strings[s] for s in after) if full else (),
                )
            )
        return PieceTrace(
            text=chunk,
            start=start,
            special=False,
            initial=tuple(strings[s] for s in initial),
            steps=tuple(steps),
            blocked=self._blocked(initial, final, record, order, full),
            fallbacks=self._fallbacks(chunk, final, raw_fallbacks),
            tokens=tuple(strings[s] for s in final),
            ids=tuple(final),
        )

    def _blocked(
        self, initial: list[int], final: list[int], record: list, order: str, full: bool
    ) -> tuple[BlockedRule, ...]:
        """The rules that could have joined two symbols of this pre-token but did not (see :class:`BlockedRule`).

        A rule is a candidate when both its symbols are in the final tokens and
        it did not fire on them: either they are never adjacent at the end, or
        (sequential order) they are adjacent but the rule's turn had passed.
        The recorded states (``initial`` and each step's ``after``) tell whether
        the two were ever side by side and which rule separated them. Pieces
        too long to record whole (``full`` False) get the final-state reason only.
        """
        if self._by_left is None:
            by_left: dict[int, list[tuple[int, int]]] = {}
            for rank, (a, b, _new) in enumerate(self.merge_ids):
                by_left.setdefault(a, []).append((b, rank))
            self._by_left = by_left
        strings = self.table.strings
        present = set(final)
        adjacent = set(zip(final, final[1:]))
        states = [initial] + [after for _rank, _sites, _before, after in record] if full and record else [initial]
        neighbours: list[set[tuple[int, int]]] | None = None  # adjacent pairs of each state, built on first need
        out = []
        for left in dict.fromkeys(final):
            for right, rank in self._by_left.get(left, ()):
                if right not in present:
                    continue
                if left == right and final.count(left) < 2:
                    continue
                pair = (strings[left], strings[right])
                shown = f"{pair[0]!r} and {pair[1]!r}"
                if (left, right) in adjacent and (order != "sequential" or not full):
                    continue  # rank order would have merged them; nothing to explain
                if full and neighbours is None:
                    neighbours = [set(zip(st, st[1:])) for st in states]
                met = [i for i, seen in enumerate(neighbours or ()) if (left, right) in seen]
                between = () if (left, right) in adjacent else self._between(final, left, right)
                maker = record[met[0] - 1][0] if met and met[0] else None
                if order == "sequential" and maker is not None and maker > rank:
                    reason = (
                        f"{shown} only became neighbours when rule {maker} "
                        f"{self._pair(*self.merge_ids[maker][:2])} fired, after this rule's turn "
                        "in the single pass over the merge table"
                    )
                    out.append(BlockedRule(rank, pair, between, reason, "too_late", maker))
                    continue
                last = met[-1] if met else -1
                if 0 <= last < len(record):
                    taker = record[last][0]
                    took = self.merge_ids[taker]
                    lost = [strings[s] for s in (left, right) if s in took[:2]] or [pair[0]]
                    reason = (
                        f"{shown} stood side by side, but rule {taker} {self._pair(*took[:2])} "
                        f"{'comes earlier in the table' if order == 'sequential' else 'has a lower rank'} "
                        f"and merged {lost[0]!r} into {strings[took[2]]!r} first"
                    )
                    out.append(BlockedRule(rank, pair, between, reason, "taken", taker))
                elif between:
                    reason = f"{shown} never met: {' '.join(map(repr, between))} stood between them"
                    out.append(BlockedRule(rank, pair, between, reason))
                else:
                    reason = f"{pair[1]!r} only comes before {pair[0]!r}, never right after it"
                    out.append(BlockedRule(rank, pair, between, reason))
        out.sort(key=lambda r: r.rank)
        return tuple(out)

    def _between(self, final: list[int], left: int, right: int) -> tuple[str, ...]:
        """The tokens between the first ``left`` that has a ``right`` after it and that ``right``."""
        strings = self.table.strings
        for i, s in enumerate(final):
            if s != left:
                continue
            for j in range(i + 1, len(final)):
                if final[j] == right:
                    return tuple(strings[x] for x in final[i + 1 : j])
        return ()

    def _fallbacks(self, chunk: str, final: list[int], raw: list[tuple[int, str, str]]) -> tuple[Fallback, ...]:
        strings = self.table.strings
        if self.unit == "char":
            out = []
            for offset, ch, kind in raw:
                if kind == "unk":
                    tokens: tuple[str, ...] = (UNK,)
                elif kind == "bytes":
                    tokens = tuple(f"<0x{b:02X}>" for b in utf8(ch))
                else:
                    tokens = (ch,)
                out.append(Fallback(ch, offset, kind, utf8(ch), tokens, False))
            return tuple(out)
        # byte unit: where did each multi-byte character's bytes end up?
        ends = []
        pos = 0
        for s in final:
            size = len(self.table.data[s]) - (1 if self.table.ends_word[s] else 0)
            pos += size
            ends.append(pos)
        out = []
        byte_pos = 0
        t = 0
        for k, ch in enumerate(chunk):
            data = utf8(ch)
            first, last = byte_pos, byte_pos + len(data)
            byte_pos = last
            if len(data) == 1:
                continue
            while t < len(ends) and ends[t] <= first:
                t += 1
            holders = []
            u = t
            while u < len(ends):
                holders.append(u)
                if ends[u] >= last:
                    break
                u += 1
            tokens = tuple(strings[final[x]] for x in holders)
            out.append(Fallback(ch, k, "raw_bytes", data, tokens, len(holders) == 1))
        return tuple(out)

    def order_differences(self, text: str) -> list[OrderDifference]:
        """The pre-tokens of ``text`` that ``rank`` and ``sequential`` order cut differently.

        The two orders agree on tables that training learned from the same
        pre-tokens, and can disagree when a token can be built by two routes
        (see the module docstring).

        Args:
            text: the text to pre-tokenize and encode both ways (special
                tokens are not matched).

        Returns:
            One :class:`~bpe_core.trace.OrderDifference` per distinct pre-token
            that differs, in order of first appearance.

        Raises:
            OptionError: text holding a lone surrogate (byte unit).
        """
        strings = self.table.strings
        out = []
        seen: set[str] = set()
        for piece, _special in self._split(text, ()):
            for chunk in self._chunks(piece):
                if chunk in seen:
                    continue
                seen.add(chunk)
                r = self._encode_chunk(chunk, "rank")
                s = self._encode_chunk(chunk, "sequential")
                if r != s:
                    out.append(OrderDifference(chunk, tuple(strings[i] for i in r), tuple(strings[i] for i in s)))
        return out

    # ------------------------------------------------------------------ decoding

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """Concatenate the bytes of ``ids`` (the end-of-word marker decodes to a space).

        Raises:
            TokenIdError: an id is outside the vocabulary.
        """
        data = self.table.data
        ids = list(ids)
        n = len(data)
        for i in ids:
            if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < n:
                self._check_id(i)
        gaps = self.table.gaps
        if gaps and not gaps.isdisjoint(ids):
            bad = sorted(gaps.intersection(ids))
            raise TokenIdError(
                f"token id{'s' if len(bad) > 1 else ''} {', '.join(map(str, bad))} "
                f"{'are' if len(bad) > 1 else 'is'} not assigned: this vocabulary has no token with "
                f"{'those ids' if len(bad) > 1 else 'that id'}"
            )
        out = b"".join([data[i] for i in ids])
        if ids and self.end_of_word is not None and self.table.ends_word[ids[-1]]:
            out = out[:-1]  # the last word's marker is not a separator
        return out

    def decode(self, ids: Iterable[int], errors: str = "replace") -> str:
        """Decode token ids back to text.

        Args:
            ids: token ids.
            errors: how to treat bytes that are not valid UTF-8, e.g. ids that cut
                a character in two: ``"replace"`` (U+FFFD, the default) or
                ``"strict"``; any codec error handler is accepted.

        Returns:
            The text. Byte-level tokenizers invert :meth:`encode` exactly; the
            whitespace pre-tokenizers and ``<unk>`` cannot (see :meth:`round_trip`).

        Raises:
            TokenIdError: an id is outside the vocabulary.
            UnicodeDecodeError: ``errors="strict"`` and the bytes are not valid UTF-8.
        """
        return self.decode_bytes(ids).decode("utf-8", errors)

    def round_trip(self, text: str, *, order: str = "rank", allowed_special: AllowedSpecial = ()) -> RoundTrip:
        """Check ``decode(encode(text)) == text`` and explain the first difference.

        Byte-level tokenizers always round-trip. The ones that cannot: the
        whitespace pre-tokenizers (``whitespace`` drops spacing, ``whitespace_eow``
        turns every run of whitespace into one space), ``<unk>`` fallback, and
        with the attached marker a word-final character that fell back (its
        end-of-word marker is lost with it).

        Args:
            text: the text to check.
            order: the merge order, as for :meth:`encode`.
            allowed_special: special tokens to match, as for :meth:`encode`.

        Returns:
            A :class:`~bpe_core.trace.RoundTrip`: ``ok``, the decoded text, the
            first differing character index and a reason.

        Raises:
            OptionError: an unknown order, or text holding a lone surrogate.
        """
        decoded = self.decode(self.encode(text, order=order, allowed_special=allowed_special))
        if decoded == text:
            return RoundTrip(True, text, decoded, None, "")
        trace = self.encode_with_trace(text, order=order, allowed_special=allowed_special)  # to find the cause
        pos = next((k for k, (x, y) in enumerate(zip(text, decoded)) if x != y), min(len(text), len(decoded)))
        ch = text[pos] if pos < len(text) else ""
        got = decoded[pos] if pos < len(decoded) else ""
        # the first fallback at or before the difference, if any, is the cause
        fell = next(
            (
                (p.start + f.offset, f)
                for p in trace.pieces
                for f in p.fallbacks
                if f.kind in ("unk", "bytes") and p.start + f.offset <= pos
            ),
            None,
        )
        whitespace_mode = self.pretokenizer in ("whitespace_eow", "whitespace", "trailing_space")
        if fell is not None and fell[1].kind == "unk":
            reason = f"character {fell[1].char!r} at position {fell[0]} is not in the alphabet and was encoded as <unk>"
            pos = min(pos, fell[0])
        elif fell is not None and self.end_of_word == "attached":
            char = fell[1].char
            why = "is not in the alphabet" if char not in self.table.char_ids else "never ended a word in training"
            reason = (
                f"character {char!r} at position {fell[0]} {why}, so it has no end-of-word twin: it fell back to "
                "byte tokens, which carry no end-of-word marker, and the word boundary after it was lost"
            )
        elif whitespace_mode and (ch.isspace() or got.isspace() or not ch or not got):
            reason = (
                f"the {self.pretokenizer} pre-tokenizer drops whitespace: at position {pos} the text has "
                f"{ch!r} but decoding gives {got!r}"
            )
        else:
            reason = f"at position {pos} the text has {ch!r} but decoding gives {got!r}"
        return RoundTrip(False, text, decoded, pos, reason)


def _check_rules(merges: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """Validate a merge table's shape: a sequence of pairs of non-empty strings."""
    if isinstance(merges, (str, bytes)):
        raise MergeTableError("merges must be a list of (left, right) pairs, not a string")
    rules = []
    for rank, rule in enumerate(merges):
        if not isinstance(rule, (tuple, list)) or len(rule) != 2:
            raise MergeTableError(f"merge rule {rank} must be a pair (left, right), got {rule!r}")
        left, right = rule
        if not isinstance(left, str) or not isinstance(right, str) or not left or not right:
            raise MergeTableError(f"merge rule {rank} must hold two non-empty strings, got {rule!r}")
        rules.append((left, right))
    return rules


Encoder = Callable[[str], list[int]]

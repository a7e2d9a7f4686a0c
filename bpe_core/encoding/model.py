"""The merge model: a frozen merge table with its symbol table, spelling and merge loops.

A :class:`MergeModel` is the "model" part of a tokenizer in the Hugging Face
sense: it turns one pre-token into ids. It holds the symbol table (ids,
display strings, bytes), the merge rules with their ranks, how a pre-token is
spelled in base symbols (:mod:`bpe_core.text.spelling`) and how the rules are
applied (:mod:`bpe_core.encoding.merging`). Nothing in it changes after construction:
characters a ``keep`` fallback meets get temporary ids from the caller's
:class:`~bpe_core.text.spelling.Temporaries`, so one model can be shared between
threads and Streamlit sessions, hashed and pickled.

The only state that grows is a per-pre-token cache of ids (pre-tokens without
temporary symbols), a pure function of the model: it changes speed, never
results.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from functools import cached_property

from ..errors import MergeTableError, OptionError, TokenIdError
from ..text.spelling import END_OF_WORD_STYLES, FallbackLog, Speller, Temporaries, alphabet_of, fallback_policy
from ..text.symbols import MARKER, SHIFT, SymbolTable, check_option
from .merging import INF, MergeOrder, Record, RuleApplier, merge_order

CACHE_LIMIT = 200_000
"""Pre-tokens remembered per merge order before the cache is emptied."""

ChunkEncoder = Callable[[str], tuple[int, ...]]


class MergeModel:
    """A frozen merge table: symbols, rules and ranks, spelling, and the merge loops.

    Ids follow the vocabulary: special tokens, base alphabet, merges, then the
    fallback tokens (``<unk>`` or the 256 ``<0xNN>``). With the attached
    end-of-word marker and the byte unit or the ``keep`` fallback, the base
    symbols that never ended a word get their ``c</w>`` twin after the merges.

    Attributes:
        table: the symbol table (frozen: :meth:`~bpe_core.text.symbols.SymbolTable.frozen`).
        merge_ids: ``(left_id, right_id, new_id)`` per rule, in rank order.
        pair_rank: pair key ``left * SHIFT + right`` -> rank.
        token_rank: ``merge_by="bytes"``: token bytes -> the first rank making them.
        fallback: the fallback's name; ``policy`` is the policy object.
        merge_by: ``"pair"`` or ``"bytes"``.
        num_learned: the size of the table it was built on, before anything appended here.
        num_saved: the ids a saved file holds besides fallback tokens.
        unk_id: the ``<unk>`` id, or ``None``.
        byte_fallback_ids: the 256 ``<0xNN>`` ids, or ``()``.
        speller: spells a pre-token in base symbols.
    """

    def __init__(
        self,
        table: SymbolTable,
        merge_ids: Sequence[tuple[int, int, int]],
        *,
        fallback: str = "keep",
        merge_by: str = "pair",
    ) -> None:
        """Build a model over a copy of ``table``.

        Args:
            table: the symbol table (copied; fallback tokens and end-of-word twins are added to the copy).
            merge_ids: ``(left_id, right_id, new_id)`` per merge, in rank order.
            fallback: ``"keep"``, ``"unk"`` or ``"bytes"`` (see :data:`bpe_core.text.spelling.FALLBACKS`).
            merge_by: ``"pair"`` (a rule fires on its own two symbols, GPT-2
                ``encoder.py``, Hugging Face) or ``"bytes"`` (byte unit only: any
                two adjacent tokens whose bytes concatenate to a token merge, at
                that token's rank: tiktoken's ``_byte_pair_merge`` in ``src/lib.rs``).

        Raises:
            OptionError: unknown fallback or merge_by, or ``merge_by="bytes"`` on a char-unit table.
            MergeTableError: a pair appears twice in the table.
        """
        policy = fallback_policy(fallback)
        check_option("merge_by", merge_by, ("pair", "bytes"))
        if merge_by == "bytes" and not table.byte_level:
            raise OptionError('merge_by="bytes" (tiktoken semantics) needs a byte-unit table')
        work = table.copy()
        self.num_learned = len(work)
        byte_unit = work.byte_level
        self.unk_id, self.byte_fallback_ids = (None, ()) if byte_unit else policy.install(work)
        if work.marker_layout.twins and (byte_unit or policy.keeps_twins()):
            # Every base symbol gets its end-of-word twin now, after the learned ids, so a symbol that never
            # ended a word in training still ends one with its marker, under an id saved files hold too.
            for i in work.byte_ids if byte_unit else sorted(work.char_ids.values()):
                if i not in work.final_ids:
                    work.final_ids[i] = work.add_token(work.strings[i] + MARKER, work.data[i] + b" ", ends_word=True)
        self.num_saved = len(work) if byte_unit or policy.keeps_twins() else self.num_learned
        self.table = work.freeze()
        self.policy = policy
        self.fallback = policy.name
        self.merge_by = merge_by
        self.merge_ids: tuple[tuple[int, int, int], ...] = tuple((a, b, c) for a, b, c in merge_ids)
        self.pair_rank = self._pair_ranks()
        self.token_rank: dict[bytes, int] = {}
        if merge_by == "bytes":
            data = self.table.data
            for rank, (_a, _b, new) in enumerate(self.merge_ids):
                self.token_rank.setdefault(data[new], rank)
        self.rules = RuleApplier(
            self.merge_ids, self.pair_rank, self.token_rank, self.table.data, merge_by, work.end_of_word is None
        )
        alphabet = alphabet_of(work, self.unk_id, self.byte_fallback_ids)
        self.speller = Speller(alphabet, policy, END_OF_WORD_STYLES[work.end_of_word])
        self._caches: dict[str, dict[str, tuple[int, ...]]] = {"rank": {}, "sequential": {}}
        self._frozen = True

    def __setattr__(self, name: str, value: object) -> None:
        if self.__dict__.get("_frozen"):
            raise AttributeError(f"a MergeModel is frozen: cannot set {name!r}")
        object.__setattr__(self, name, value)

    def _pair_ranks(self) -> dict[int, int]:
        """Pair key -> rank, refusing a pair that appears twice."""
        pair_rank: dict[int, int] = {}
        for rank, (a, b, _new) in enumerate(self.merge_ids):
            key = a * SHIFT + b
            if key in pair_rank:
                raise MergeTableError(
                    f"merge rule {rank} {self.show_pair(a, b)} repeats rule {pair_rank[key]}; each pair may appear once"
                )
            pair_rank[key] = rank
        return pair_rank

    # ------------------------------------------------------------------ identity

    def with_fallback(self, fallback: str) -> MergeModel:
        """The same learned table with another fallback (tokens appended here are rebuilt, not copied)."""
        if fallback_policy(fallback) is self.policy:
            return self
        return MergeModel(
            self.table.truncated(self.num_learned), self.merge_ids, fallback=fallback, merge_by=self.merge_by
        )

    @cached_property
    def fingerprint(self) -> str:
        """A SHA-256 over everything that decides the ids (the equality and hash of models)."""
        t = self.table
        h = hashlib.sha256()
        for part in (t.unit, t.end_of_word, self.fallback, self.merge_by, t.strings, t.data, t.ends_word):
            h.update(repr(part).encode("utf-8", "surrogatepass"))
        h.update(repr((sorted(t.special_ids.items()), self.merge_ids, sorted(t.gaps))).encode())
        return h.hexdigest()

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, MergeModel) and self.fingerprint == other.fingerprint)

    def __hash__(self) -> int:
        return hash(self.fingerprint)

    def __getstate__(self) -> dict[str, object]:
        state = {k: v for k, v in self.__dict__.items() if k not in ("fingerprint", "rules_by_left", "lookup")}
        state["_caches"] = {"rank": {}, "sequential": {}}
        return state

    def __len__(self) -> int:
        return len(self.table)

    # ------------------------------------------------------------------ tokens

    @property
    def unit(self) -> str:
        """``"char"`` or ``"byte"``."""
        return self.table.unit

    @property
    def end_of_word(self) -> str | None:
        """``None``, ``"separate"`` or ``"attached"``."""
        return self.table.end_of_word

    @cached_property
    def fallback_ids(self) -> frozenset[int]:
        """The ids of the fallback tokens (``<unk>``, ``<0xNN>``)."""
        return frozenset(self.byte_fallback_ids) | ({self.unk_id} if self.unk_id is not None else set())

    @cached_property
    def lookup(self) -> dict[str, int]:
        """Token string -> id, the first id winning; unassigned ids left out (read only)."""
        gaps = self.table.gaps
        return {s: i for i, s in reversed(list(enumerate(self.table.strings))) if i not in gaps}

    @property
    def vocab(self) -> dict[str, int]:
        """Token string -> id (if two ids share a string, the first keeps it; unassigned ids left out); a fresh dict."""
        return dict(self.lookup)

    @property
    def merges(self) -> list[tuple[str, str]]:
        """The merge table as display strings, in rank order (a fresh list)."""
        s = self.table.strings
        return [(s[a], s[b]) for a, b, _ in self.merge_ids]

    def check_id(self, token_id: object) -> None:
        """Raise unless ``token_id`` is an assigned id of this vocabulary.

        Raises:
            TokenIdError: not an int, outside ``0 .. len(self) - 1`` (ids past it are temporary), or unassigned.
        """
        if isinstance(token_id, bool) or not isinstance(token_id, int):
            raise TokenIdError(f"token ids must be ints, got {token_id!r} ({type(token_id).__name__})")
        n = len(self.table)
        if not 0 <= token_id < n:
            temporary = " (ids past it are temporary: pass the encoding's Temporaries)" if token_id >= n else ""
            shown = f"{token_id}" if abs(token_id) < 10**30 else f"of {token_id.bit_length() * 0.30103:,.0f} digits"
            raise TokenIdError(f"token id {shown} is out of range: valid ids are 0..{n - 1}{temporary}")
        if token_id in self.table.gaps:
            raise TokenIdError(f"token id {token_id} is not assigned: this vocabulary has no token with that id")

    def id_to_token(self, token_id: int) -> str:
        """The display string of ``token_id`` (``Ġthe``, ``er</w>``, ``<0xF0>``).

        Raises:
            TokenIdError: as for :meth:`check_id`.
        """
        self.check_id(token_id)
        return self.table.strings[token_id]

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes ``token_id`` decodes to (the end-of-word marker as a final space).

        Raises:
            TokenIdError: as for :meth:`check_id`.
        """
        self.check_id(token_id)
        return self.table.data[token_id]

    def token_ends_word(self, token_id: int) -> bool:
        """True when ``token_id`` holds the end-of-word marker. Only the id tells: a literal ``</w>`` typed in a
        corpus spells the same string.

        Raises:
            TokenIdError: as for :meth:`check_id`.
        """
        self.check_id(token_id)
        return self.table.ends_word[token_id]

    @cached_property
    def rules_by_left(self) -> dict[int, tuple[tuple[int, int], ...]]:
        """Left id -> ``((right_id, rank), ...)`` of the rules it starts, in rank order (read only)."""
        by_left: dict[int, list[tuple[int, int]]] = {}
        for rank, (a, b, _new) in enumerate(self.merge_ids):
            by_left.setdefault(a, []).append((b, rank))
        return {a: tuple(rows) for a, rows in by_left.items()}

    def show_pair(self, a: int, b: int) -> str:
        """``('e', 'r')``: a pair of ids as their display strings, for messages."""
        return f"({self.table.strings[a]!r}, {self.table.strings[b]!r})"

    # ------------------------------------------------------------------ spelling and merging

    def spell(self, chunk: str, temporaries: Temporaries | None = None, log: FallbackLog | None = None) -> list[int]:
        """The base symbols of one pre-token (see :meth:`bpe_core.text.spelling.Speller.spell`).

        Raises:
            OptionError: the chunk holds a lone surrogate (byte unit).
        """
        return self.speller.spell(chunk, temporaries, log)

    def merge(
        self,
        symbols: Sequence[int],
        order: str | MergeOrder = "rank",
        record: Record | None = None,
        start: int = 0,
        stop: int = INF,
    ) -> list[int]:
        """Apply the merge rules to one pre-token's symbols (:meth:`bpe_core.encoding.merging.RuleApplier.apply`).

        Args:
            symbols: symbol ids (not changed).
            order: ``"rank"`` or ``"sequential"`` (or a :class:`~bpe_core.encoding.merging.MergeOrder`).
            record: if given, ``(rank, sites, left, right)`` is appended per rule applied
                (:data:`bpe_core.encoding.merging.Record`).
            start, stop: sequential order only: apply ranks ``start <= rank < stop``.

        Returns:
            The merged symbols.

        Raises:
            OptionError: unknown order.
        """
        return self.rules.apply(list(symbols), merge_order(order), record, start, stop)

    def replay_ids(self, symbols: Sequence[int] | str, stop: int, start: int = 0) -> tuple[int, ...]:
        """Apply rules ``start .. stop - 1`` in learned order to a word, as training did (Sennrich et al. 2016,
        Algorithm 1): ``symbols`` is a pre-token's text (spelled here) or symbol ids; returns symbol ids."""
        ids = self.spell(symbols) if isinstance(symbols, str) else symbols
        return tuple(self.merge(ids, "sequential", start=start, stop=stop))

    def chunk_encoder(self, order: MergeOrder) -> Callable[[str, Temporaries], tuple[int, ...]] | ChunkEncoder:
        """``encode(chunk, temporaries)``: one pre-token's ids, merged from its base symbols (no cache).

        Byte-level tables without an end-of-word marker in ``rank`` order (GPT-2,
        cl100k_base, tables trained with the gpt2/gpt4 pattern) take the
        specialised loops of :meth:`~bpe_core.encoding.merging.RuleApplier.rank_encoder`
        and need no temporaries (``fast_path`` tells); everything else spells
        the chunk and runs the general merge loop.
        """
        if self.fast_path(order):
            return self.rules.rank_encoder(self.table.byte_ids)
        spell, apply = self.speller.spell, self.rules.apply
        return lambda chunk, temporaries: tuple(apply(spell(chunk, temporaries), order))

    def fast_path(self, order: MergeOrder) -> bool:
        """True when :meth:`chunk_encoder` takes one argument (byte unit, no marker, rank order)."""
        return not order.sequential and self.table.byte_level and self.table.end_of_word is None

    def encode_chunk(
        self, chunk: str, order: str | MergeOrder = "rank", temporaries: Temporaries | None = None
    ) -> tuple[int, ...]:
        """One pre-token's ids, through the cache (what :meth:`bpe_core.Tokenizer.encode` does per pre-token).

        Raises:
            OptionError: unknown order, or a lone surrogate (byte unit).
        """
        mode = merge_order(order)
        cache = self._caches[mode.name]
        ids = cache.get(chunk)
        if ids is not None:
            return ids
        if self.fast_path(mode):
            try:
                ids = self.chunk_encoder(mode)(chunk)  # type: ignore[call-arg]
            except UnicodeEncodeError:
                self.spell(chunk)  # raises the OptionError that names the surrogate
                raise
        else:
            if temporaries is None:
                temporaries = Temporaries(len(self))
            seen = temporaries.lookups
            ids = self.chunk_encoder(mode)(chunk, temporaries)  # type: ignore[call-arg]
            if temporaries.lookups != seen:
                return ids  # holds temporary ids: never cached
        if len(cache) >= CACHE_LIMIT:
            cache.clear()
        cache[chunk] = ids
        return ids

    def cache(self, order: MergeOrder) -> dict[str, tuple[int, ...]]:
        """The pre-token -> ids cache of ``order`` (only pre-tokens without temporary symbols enter it)."""
        return self._caches[order.name]

    def clear_cache(self) -> None:
        """Empty the per-pre-token caches (the next encoding is cold; results never change)."""
        for cache in self._caches.values():
            cache.clear()

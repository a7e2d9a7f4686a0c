"""tiktoken rank files: one ``base64(token) rank`` per line, plus a split pattern and special tokens.

Source of the format: tiktoken ``tiktoken/load.py`` ``load_tiktoken_bpe`` (and
``dump_tiktoken_bpe``); the pattern and special tokens are the other arguments
of ``tiktoken.Encoding(name, pat_str=..., mergeable_ranks=..., special_tokens=...)``,
which tiktoken keeps in code (``tiktoken_ext/openai_public.py``), not in the
file. This package writes them beside the rank file as a small JSON
*sidecar* (``{"format": "tiktoken-encoding", "pat_str": ..., "special_tokens": ...}``).

Semantics: a rank is both the token's id and its merge priority. Encoding
looks ranks up by the merged *bytes* (tiktoken ``_byte_pair_merge`` in
``src/lib.rs``), one merge at a time, leftmost lowest rank first, and a piece
that is itself a token is taken whole; :class:`~bpe_core.Tokenizer` does this
with ``merge_by="bytes"``. To show which two pieces merged, each multi-byte
token gets the pair tiktoken joins last when it encodes the token's own bytes
with the lower ranks (:func:`recover_merges`).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import heapq
import json
import re
from collections.abc import Iterable, Mapping

from ..encoding.encoder import Tokenizer
from ..errors import MergeTableError, quote
from ..registry.pretokenizers import GPT2_PATTERN, GPT4_PATTERN
from ..registry.pretokenizers import O200K_PATTERN as O200K_PATTERN  # re-exported: the trusted patterns live together
from ..registry.pretokenizers import R50K_PATTERN as R50K_PATTERN
from ..text.pretokenize import HFSplit
from ..text.symbols import SymbolTable, missing_bytes_error
from ._common import (
    ExportError,
    FormatError,
    Source,
    check_dense_ids,
    check_pattern,
    decode_text,
    describe_settings,
    learned_ids,
    parse_json,
    pretokenizer_for_pattern,
    read_file,
    render_many,
    split_pattern,
)

SIDECAR_FORMAT = "tiktoken-encoding"
"""The ``format`` field of the JSON that carries a rank file's pattern and special tokens."""

CL100K_SPECIAL_TOKENS: dict[str, int] = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}
"""cl100k_base's special tokens (tiktoken ``tiktoken_ext/openai_public.py``)."""

O200K_SPECIAL_TOKENS: dict[str, int] = {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}
"""o200k_base's special tokens (tiktoken ``tiktoken_ext/openai_public.py``); ids 199998 and 200000..200017 are unset."""

KNOWN_RANK_FILES: dict[str, tuple[str, str, dict[str, int]]] = {
    "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7": (
        "cl100k_base",
        GPT4_PATTERN,
        CL100K_SPECIAL_TOKENS,
    ),
    "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d": (
        "o200k_base",
        O200K_PATTERN,
        O200K_SPECIAL_TOKENS,
    ),
    "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930": (
        "r50k_base",
        GPT2_PATTERN,
        {"<|endoftext|>": 50256},
    ),
}
"""sha256 of OpenAI's published rank files (tiktoken's ``expected_hash``) -> (name, pattern, special tokens),
so a bare upload of one of them needs no sidecar."""


def parse_ranks(data: bytes | str, source: str = "ranks.tiktoken") -> dict[bytes, int]:
    """Parse a rank file as tiktoken ``load_tiktoken_bpe`` does, checking every line.

    Args:
        data: the file's contents.
        source: the file name, for messages.

    Returns:
        ``{token bytes: rank}`` in file order.

    Raises:
        FormatError: a line that is not ``base64 rank`` (naming the line and the
            number of fields), bad base64, a rank that is not a non-negative
            integer, a token or rank given twice, or an empty file.
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    lines = data.split(b"\n")

    def line_error(n: int, what: str) -> FormatError:
        return FormatError(f"{source}: line {n}: {what}")

    bad = _NOT_BASE64_LINE.search(data)
    if bad is not None:
        n = data.count(b"\n", 0, bad.start()) + 1
        char = data[bad.start() : bad.start() + 1]
        raise line_error(n, f"the byte {quote(char)} cannot appear in 'base64-token rank'")
    ranks: dict[bytes, int] = {}
    a2b = binascii.a2b_base64
    count = 0
    for n, line in enumerate(lines, start=1):
        parts = line.split()
        if len(parts) != 2:
            if not parts:
                continue
            raise line_error(n, f"{len(parts)} fields ({quote(line.decode('ascii'))}); expected 'base64-token rank'")
        token, rank_text = parts
        try:
            raw = a2b(token)
        except binascii.Error as exc:
            raise line_error(n, f"{quote(token.decode('ascii'))} is not valid base64 ({exc})") from None
        if not rank_text.isdigit():
            raise line_error(n, f"the rank {quote(rank_text.decode('ascii'))} is not a non-negative integer")
        if len(rank_text) > 12:
            raise line_error(n, f"the rank {quote(rank_text.decode('ascii'))} is too large (more than 12 digits)")
        if not raw or b"=" in token.rstrip(b"="):
            raise line_error(n, f"{quote(token.decode('ascii'))} is not valid base64 for a non-empty token")
        ranks[raw] = int(rank_text)
        count += 1
    if not ranks:
        raise FormatError(f"{source}: the file holds no ranks; expected one 'base64-token rank' per line")
    if len(ranks) != count or len(set(ranks.values())) != count:
        seen_tokens: dict[bytes, int] = {}
        seen_ranks: dict[int, int] = {}
        for n, line in enumerate(lines, start=1):
            parts = line.split()
            if not parts:
                continue
            raw, rank = a2b(parts[0]), int(parts[1])
            if raw in seen_tokens:
                raise line_error(n, f"token {quote(raw)} was already ranked on line {seen_tokens[raw]}")
            if rank in seen_ranks:
                raise line_error(n, f"rank {rank} was already given on line {seen_ranks[rank]}")
            seen_tokens[raw] = seen_ranks[rank] = n
    return ranks


_NOT_BASE64_LINE = re.compile(rb"[^A-Za-z0-9+/=\s]")


MAX_REPLAYED_BYTES = 256
"""Longer tokens are not replayed through tiktoken's loop (O(n log n) per token): they get their first cut
(shortest left part) into two lower-ranked tokens, so a file of nested long tokens loads in linear time.
Ids never depend on the pair (``merge_by="bytes"`` looks tokens up by their bytes); OpenAI's longest
token has 128 bytes."""


def _cuts(n: int, lengths: list[int], length_set: set[int]) -> Iterable[int]:
    """Where a token of ``n`` units may be cut into two tokens: only lengths that some token has on both sides.

    Cost O(min(n, distinct lengths)), so one long token costs no more than its own bytes.
    """
    if n <= len(lengths):
        return range(1, n)
    return [i for i in lengths if i < n and n - i in length_set]


def recover_merges(ranks: Mapping[bytes, int], source: str = "ranks") -> list[tuple[int, int, int]]:
    """The merge pair of every multi-byte token: ``(left_rank, right_rank, rank)`` in rank order.

    The pair is the two lower-ranked tokens that tiktoken's own merge loop
    joins last when it encodes the token's bytes (ranks below the token's). The
    loop only runs when the token splits into two lower-ranked tokens in more
    than one way, and stops as soon as merges have crossed all splits but one.
    A token the loop cannot reach gets the split whose larger rank is smallest
    (a split into tokens of any rank if no lower-ranked one exists); tiktoken
    can then still form it from those two.

    Loading stays linear in the file size: only cuts whose two sides have
    lengths that some token has are tried (one 320 KB token costs a few
    lookups, not 320,000 slices), and a token longer than
    :data:`MAX_REPLAYED_BYTES` takes its first cut into two lower-ranked tokens.

    Args:
        ranks: ``{token bytes: rank}``, every single byte included.
        source: the file name, for messages.

    Returns:
        ``(left_rank, right_rank, rank)`` per multi-byte token, in rank order.

    Raises:
        FormatError: a multi-byte token is no concatenation of two tokens at
            all, so no merge can ever form it.
    """
    get = ranks.get
    items = list(ranks.items())
    if any(items[k][1] > items[k + 1][1] for k in range(len(items) - 1)):
        items.sort(key=lambda kv: kv[1])
    length_set = {len(t) for t in ranks}
    lengths = sorted(length_set)
    few = len(lengths)
    out: list[tuple[int, int, int]] = []
    append = out.append
    for token, r in items:
        n = len(token)
        if n < 2:
            continue
        candidates = range(1, n) if n <= few else _cuts(n, lengths, length_set)
        long = n > MAX_REPLAYED_BYTES
        cuts = []
        for i in candidates:
            a = get(token[:i])
            if a is not None and a < r:
                b = get(token[i:])
                if b is not None and b < r:
                    cuts.append(i)
                    if long:
                        break
        if len(cuts) > 1:
            if n <= 32:
                cuts = _surviving_cut_short(token, r, cuts, get)
            else:
                cuts = _surviving_cut(token, r, cuts, get, length_set)
        if len(cuts) == 1:
            i = cuts[0]
            append((ranks[token[:i]], ranks[token[i:]], r))
            continue
        splits = [(get(token[:i]), get(token[i:])) for i in candidates]
        splits = [(a, b) for a, b in splits if a is not None and b is not None]
        if not splits:
            raise FormatError(
                f"{source}: token {quote(token)} (rank {r}) is not the concatenation of two other tokens, "
                "so no merge can form it; every multi-byte token of a BPE rank file needs a merge pair"
            )
        lower = [s for s in splits if max(s) < r] or splits
        a, b = min(lower, key=max)
        append((a, b, r))
    return out


def _surviving_cut_short(token: bytes, limit: int, cuts: list[int], get) -> list[int]:  # noqa: ANN001
    """:func:`_surviving_cut` for a short token, with plain lists (faster than a heap below ~32 bytes)."""
    parts = [token[i : i + 1] for i in range(len(token))]
    starts = list(range(len(token)))
    live = set(cuts)
    pr = []
    for i in range(len(parts) - 1):
        x = get(parts[i] + parts[i + 1], limit)
        pr.append(x if x < limit else limit)
    while len(live) > 1:
        m = min(pr)
        if m >= limit:
            break
        i = pr.index(m)
        live.discard(starts[i + 1])
        parts[i] += parts[i + 1]
        del parts[i + 1], pr[i], starts[i + 1]
        if i > 0:
            x = get(parts[i - 1] + parts[i], limit)
            pr[i - 1] = x if x < limit else limit
        if i < len(parts) - 1:
            x = get(parts[i] + parts[i + 1], limit)
            pr[i] = x if x < limit else limit
    return sorted(live)


def _surviving_cut(token: bytes, limit: int, cuts: list[int], get, length_set: set[int]) -> list[int]:  # noqa: ANN001
    """Run tiktoken's merge loop on ``token`` (ranks below ``limit``) until one of ``cuts`` is left uncrossed.

    The loop (tiktoken ``_byte_pair_merge``: the leftmost lowest-ranked pair
    first) keeps its pairs in a heap, so a token of ``n`` bytes costs
    O(n log n) steps; a joined pair is looked up only if some token has its length.

    Returns the cuts still uncrossed: one when the loop decided, several when it got stuck.
    """
    n = len(token)
    end = list(range(1, n + 1))  # end[i]: where the part starting at byte i ends
    prev = list(range(-1, n - 1))  # prev[i]: where the part before it starts
    alive = [True] * n
    current = [limit] * n

    def pair_rank(i: int) -> int:
        j = end[i]
        if j >= n or end[j] - i not in length_set:
            return limit
        x = get(token[i : end[j]], limit)
        return x if x < limit else limit

    heap = []
    for i in range(n - 1):
        current[i] = pair_rank(i)
        if current[i] < limit:
            heap.append((current[i], i))
    heapq.heapify(heap)
    live = set(cuts)
    while len(live) > 1 and heap:
        x, i = heapq.heappop(heap)
        if not alive[i] or current[i] != x:
            continue  # a stale entry: this pair changed since it was pushed
        j = end[i]
        live.discard(j)
        alive[j] = False
        end[i] = end[j]
        if end[i] < n:
            prev[end[i]] = i
        for k in (i, prev[i]):
            if k >= 0:
                current[k] = pair_rank(k)
                if current[k] < limit:
                    heapq.heappush(heap, (current[k], k))
    return sorted(live)


def tokenizer_from_ranks(
    ranks: Mapping[bytes, int],
    pat_str: str,
    special_tokens: Mapping[str, int] | None = None,
    *,
    name: str = "",
    source: str = "ranks",
) -> Tokenizer:
    """Build a ``merge_by="bytes"`` tokenizer whose ids are the ranks.

    Args:
        ranks: ``{token bytes: rank}`` (as :func:`parse_ranks` or tiktoken's
            ``load_tiktoken_bpe`` return).
        pat_str: the split pattern (tiktoken's ``pat_str``).
        special_tokens: special token -> id (may leave gaps, as cl100k_base does).
        name: a label.
        source: the file name, for messages.

    Returns:
        A :class:`~bpe_core.Tokenizer` with tiktoken's semantics (ranks looked
        up by the merged bytes) whose ids are the ranks.

    Raises:
        MergeTableError: single bytes missing from the ranks (listed), or a
            special id that is also a rank.
        FormatError: a token no merge can form (see :func:`recover_merges`),
            or a split pattern that does not compile.
    """
    pretokenizer, pattern = pretokenizer_for_pattern(pat_str)
    if pattern is not None:  # a pattern of our own pre-tokenizers is run as such, not compiled
        check_pattern(pattern, source, "pat_str")
    missing = [b for b in range(256) if bytes([b]) not in ranks]
    if missing:  # before recovering merges, whose own error would name a token instead of the missing byte
        raise MergeTableError(f"{source}: {missing_bytes_error(missing)}")
    specials = dict(special_tokens or {})
    top = max([*specials.values(), max(ranks.values(), default=-1)])
    check_dense_ids(len(ranks) + len(specials), top, lambda i: _name_of(i, ranks, specials), source)
    merges = recover_merges(ranks, source)
    items = sorted(ranks.items(), key=lambda kv: kv[1])
    strings = render_many([t for t, _ in items])
    tokens = {r: (s, t) for (t, r), s in zip(items, strings)}
    try:
        table = SymbolTable.from_vocab(tokens, unit="byte", specials=dict(special_tokens or {}))
    except MergeTableError as exc:
        raise type(exc)(f"{source}: {exc}") from None
    return Tokenizer(table, merges, pretokenizer=pretokenizer, pattern=pattern, name=name, merge_by="bytes")


def _name_of(i: int, ranks: Mapping[bytes, int], specials: Mapping[str, int]) -> str | bytes:
    """The token with id ``i`` (a special token's text, or a rank's bytes), for messages (quoted, so cut)."""
    found = [s for s, j in specials.items() if j == i] or [t for t, r in ranks.items() if r == i]
    return found[0] if found else "?"


def load_tiktoken(
    rank_file: Source, pat_str: str, special_tokens: Mapping[str, int] | None = None, *, name: str = ""
) -> Tokenizer:
    """Load a ``.tiktoken`` rank file from disk (see :func:`tokenizer_from_ranks`).

    Raises:
        FormatError, MergeTableError: see :func:`parse_ranks` and :func:`tokenizer_from_ranks`.
        OSError: the file cannot be read.
    """
    source = str(rank_file)
    return tokenizer_from_ranks(
        parse_ranks(read_file(rank_file), source), pat_str, special_tokens, name=name, source=source
    )


def known_rank_file(data: bytes) -> tuple[str, str, dict[str, int]] | None:
    """``(name, pattern, special tokens)`` if ``data`` is one of OpenAI's published rank files, else ``None``."""
    return KNOWN_RANK_FILES.get(hashlib.sha256(data).hexdigest())


def parse_sidecar(text: str | bytes, source: str = "tokenizer.json") -> dict[str, object]:
    """Read the JSON that goes with a rank file.

    Returns:
        ``{"name": str, "pat_str": str, "special_tokens": {str: int}, "mergeable_ranks": str | None}``.

    Raises:
        FormatError: bad JSON, a wrong ``format``, or a missing or mistyped field (named).
    """
    data = parse_json(decode_text(text, source), source)
    if not isinstance(data, dict) or data.get("format") != SIDECAR_FORMAT:
        raise FormatError(f'{source}: expected a JSON object with "format": "{SIDECAR_FORMAT}"')
    pat = data.get("pat_str")
    if not isinstance(pat, str) or not pat:
        raise FormatError(f"{source}: the field 'pat_str' must be a non-empty string")
    specials = data.get("special_tokens", {})
    if not isinstance(specials, dict) or not all(
        isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v >= 0 for k, v in specials.items()
    ):
        raise FormatError(f"{source}: the field 'special_tokens' must map strings to non-negative integer ids")
    ranks = data.get("mergeable_ranks")
    if ranks is not None and not isinstance(ranks, str):
        raise FormatError(f"{source}: the field 'mergeable_ranks' must be a file name")
    return {"name": str(data.get("name", "")), "pat_str": pat, "special_tokens": specials, "mergeable_ranks": ranks}


# ---------------------------------------------------------------- export


def check_exportable(tok: Tokenizer) -> None:
    """Raise :class:`ExportError` unless tiktoken can hold ``tok`` with the same ids.

    tiktoken needs byte-level tokens without an end-of-word marker, a
    pre-tokenizer that is a regex's matches (a spec with a ``tiktoken_pattern``:
    the regex ones, ``whitespace``, ``none``), one rank per distinct token, and ids that grow with the merge
    order (a rank is both id and priority).
    """
    if not tok.model.table.byte_level or tok.model.end_of_word is not None:
        raise ExportError(
            f"a tiktoken rank file holds byte-level tokens without an end-of-word marker; this tokenizer has "
            f"{describe_settings(tok)}; save tokenizer.json or a session file instead"
        )
    if split_pattern(tok) is None:
        raise ExportError(
            f"tiktoken keeps the matches of one regex; the {tok.pre_tokenizer.name} pre-tokenizer "
            "is not a regex's matches; "
            "save tokenizer.json or a session file instead"
        )
    pattern = tok.pre_tokenizer.pattern
    if isinstance(pattern, HFSplit):
        raise ExportError(
            f"tiktoken keeps the matches of one regex; this tokenizer splits as Hugging Face's Split with behavior "
            f"{pattern.behavior}{' and invert' if pattern.invert else ''}, which keeps other pieces; "
            "save tokenizer.json instead"
        )
    data = tok.model.table.data
    last = -1
    seen: set[int] = set()
    for k, (_a, _b, new) in enumerate(tok.model.merge_ids):
        if new in seen:
            continue
        seen.add(new)
        if new <= last:
            raise ExportError(
                f"a tiktoken rank is both id and merge priority, but merge {k} forms id {new}, below id {last} "
                "formed by an earlier merge; these ids cannot be ranks"
            )
        last = new
    _ranked_ids(tok, data)


def _ranked_ids(tok: Tokenizer, data: list[bytes]) -> list[int]:
    specials = set(tok.model.table.special_ids.values())
    gaps = tok.model.table.gaps
    owner: dict[bytes, int] = {}
    out = []
    for i in learned_ids(tok):
        if i in specials or i in gaps:
            continue
        if data[i] in owner:
            raise ExportError(
                f"a tiktoken rank file gives each byte string one rank, but {quote(data[i])} is token {owner[data[i]]} "
                f"and token {i} (two merges formed it); save a session file instead, which keeps both"
            )
        owner[data[i]] = i
        out.append(i)
    return out


def to_tiktoken(tok: Tokenizer) -> bytes:
    """The rank file (tiktoken ``dump_tiktoken_bpe`` layout): ``base64(token) id`` per line, in id order.

    Special tokens are not in the file; see :func:`to_sidecar`.

    Args:
        tok: a byte-unit tokenizer.

    Returns:
        The file's bytes (ASCII), one token per line in id order.

    Raises:
        ExportError: see :func:`check_exportable`.
    """
    check_exportable(tok)
    data = tok.model.table.data
    enc = base64.b64encode
    return b"".join(enc(data[i]) + b" " + str(i).encode() + b"\n" for i in _ranked_ids(tok, data))


def to_sidecar(tok: Tokenizer, *, name: str = "tokenizer", rank_file: str | None = None) -> str:
    """The JSON beside the rank file: tiktoken's other ``Encoding`` arguments.

    Returns:
        ``{"format": "tiktoken-encoding", "version": 1, "name": ..., "mergeable_ranks": rank_file,
        "pat_str": ..., "special_tokens": {...}}`` as text; pass ``name``, ``pat_str``,
        ``special_tokens`` and ``load_tiktoken_bpe(rank_file)`` to ``tiktoken.Encoding``.

    Raises:
        ExportError: see :func:`check_exportable`.
    """
    check_exportable(tok)
    doc = {
        "format": SIDECAR_FORMAT,
        "version": 1,
        "name": name,
        "mergeable_ranks": rank_file or f"{name}.tiktoken",
        "pat_str": split_pattern(tok),
        "special_tokens": dict(tok.model.table.special_ids),
    }
    return json.dumps(doc, ensure_ascii=False, indent=1) + "\n"

"""How long a text is in tokens when only the first k merge rules are used, for every k at once.

Encoding with the rules of rank below ``k`` makes the same choices as
encoding with the whole table up to the first application of a rule of rank
``k`` or more: in ``rank`` order each step takes the lowest-rank pair
available, so while that rank is below ``k`` both runs agree, and once it is
not, the restricted run has nothing left to do. An application therefore
counts for ``k`` exactly when every application before it in its pre-token,
and itself, had rank below ``k`` (its prefix maximum is below ``k``). In
``sequential`` order ranks only rise, so the same rule holds. One traced
encoding thus gives the token count for all ``k`` (used for compression
curves on held-out text).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from ..encoding.merging import Record, merge_order
from ..text.spelling import Temporaries

if TYPE_CHECKING:
    from ..encoding.encoder import Tokenizer


def token_counts_by_merges(tokenizer: Tokenizer, text: str, order: str = "rank") -> list[int]:
    """Token counts of ``text`` under the first ``k`` rules, for ``k = 0 .. len(tokenizer.model.merges)``.

    Args:
        tokenizer: any tokenizer (pair or byte merge semantics).
        text: the text to measure; special tokens in it are encoded as text.
        order: ``"rank"`` or ``"sequential"``.

    Returns:
        A list of ``len(tokenizer.model.merges) + 1`` ints; entry ``k`` equals
        ``len(Tokenizer(<first k rules>).encode(text, order=order))`` and the
        last entry equals ``len(tokenizer.encode(text, order=order))``.

    Raises:
        OptionError: unknown ``order``.
    """
    mode = merge_order(order)
    model = tokenizer.model
    n = len(model.merge_ids)
    saved = [0] * (n + 1)  # saved[m]: tokens removed by applications whose prefix maximum is m
    initial = 0
    temporaries = Temporaries(len(model))
    chunks = Counter(chunk for chunk, _special in tokenizer.pre_tokens(text))
    for chunk, freq in chunks.items():
        record: Record = []
        syms = model.spell(chunk, temporaries)
        initial += len(syms) * freq
        model.merge(syms, mode, record)
        peak = -1
        for rank, sites, _before, _after in record:
            peak = max(peak, rank)
            saved[peak] += len(sites) * freq
    counts = [initial]
    removed = 0
    for k in range(1, n + 1):
        removed += saved[k - 1]
        counts.append(initial - removed)
    return counts

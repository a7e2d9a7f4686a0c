"""Pair keys: a pair of symbol ids as one ``int``, ``left_id * SHIFT + right_id``.

One int hashes and compares faster than a tuple, so the model's rank table,
the merge loops, the trainer's heap and the tie rules key pairs this way.
This module imports nothing, so the tie-rule registry (:mod:`bpe_core.registry.tie_rules`),
which :mod:`bpe_core.registry.options` reads, may use it.
"""

from __future__ import annotations

SHIFT = 1 << 24
"""Pair keys are ``left_id * SHIFT + right_id``; the vocabulary stays below 16.7M ids."""

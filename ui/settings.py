"""Training settings as one frozen value, so they can key caches and travel in the URL."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class TrainSettings:
    """What the sidebar asks for; ``kwargs()`` turns it into :func:`bpe_core.train` arguments.

    Attributes:
        pretokenizer, unit, end_of_word, tie_break, min_frequency: as for ``train``.
        budget_kind: ``"merges"`` or ``"vocab_size"``.
        budget: the number of merges, or the target vocabulary size.
        special_tokens: special-token strings.
    """

    pretokenizer: str = "whitespace_eow"
    unit: str = "char"
    end_of_word: str = "separate"
    tie_break: str = "first_seen"
    budget_kind: str = "merges"
    budget: int = 200
    min_frequency: int = 2
    special_tokens: tuple[str, ...] = ()

    def kwargs(self) -> dict[str, Any]:
        """Keyword arguments for :func:`bpe_core.train`."""
        budget = {"num_merges": self.budget} if self.budget_kind == "merges" else {"vocab_size": self.budget}
        return {
            **budget,
            "pretokenizer": self.pretokenizer,
            "unit": self.unit,
            "end_of_word": self.end_of_word,
            "tie_break": self.tie_break,
            "min_frequency": self.min_frequency,
            "special_tokens": self.special_tokens,
        }

    def with_(self, **changes: Any) -> TrainSettings:
        """A copy with some fields changed."""
        return replace(self, **changes)


def parse_special_tokens(text: str) -> tuple[str, ...]:
    """Split a comma-separated list of special tokens, dropping blanks and repeats (order kept)."""
    return tuple(dict.fromkeys(t.strip() for t in text.split(",") if t.strip()))

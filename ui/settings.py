"""Training settings as one frozen value, so they can key caches and travel in the URL."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from bpe_core.errors import OptionError
from bpe_core.registry.options import OPTIONS, check_training
from bpe_core.trace import train_kwargs
from ui import state

BUDGET_KINDS = {"merges": "Number of merges", "vocab_size": "Vocabulary size"}
"""How the budget is counted: the option it becomes and the label the sidebar shows."""
TRAIN_MEMORY_BUDGET = 600 * 2**20
"""Bytes one training may grow the server by before it stops cleanly with a message (``train(max_memory=)``):
a 200,000-merge run on a 1 MB text stops here instead of taking the server's memory."""


@dataclass(frozen=True)
class TrainSettings:
    """What the sidebar asks for; ``kwargs()`` turns it into :func:`bpe_core.train` arguments.

    Attributes:
        pretokenizer, unit, end_of_word, tie_break, min_frequency: as for ``train``.
        budget_kind: ``"merges"`` or ``"vocab_size"``.
        budget: the number of merges, or the target vocabulary size.
        special_tokens: special-token strings.
    """

    pretokenizer: str = OPTIONS["pretokenizer"].default  # type: ignore[assignment]
    unit: str = OPTIONS["unit"].default  # type: ignore[assignment]
    end_of_word: str = OPTIONS["end_of_word"].default  # type: ignore[assignment]
    tie_break: str = OPTIONS["tie_break"].default  # type: ignore[assignment]
    budget_kind: str = "merges"
    budget: int = OPTIONS["num_merges"].default  # type: ignore[assignment]
    min_frequency: int = OPTIONS["min_frequency"].default  # type: ignore[assignment]
    special_tokens: tuple[str, ...] = ()

    def widget_values(self) -> dict[str, object]:
        """The sidebar's training widgets' values (session-state key -> value) these settings make."""
        return {
            state.PRETOKENIZER: self.pretokenizer,
            state.UNIT: self.unit,
            state.END_OF_WORD: self.end_of_word,
            state.TIE_BREAK: self.tie_break,
            state.BUDGET_KIND: self.budget_kind,
            state.BUDGET: self.budget,
            state.MIN_FREQUENCY: self.min_frequency,
            state.SPECIALS: ", ".join(self.special_tokens),
        }

    def kwargs(self) -> dict[str, Any]:
        """Keyword arguments for :func:`bpe_core.train` (:func:`bpe_core.trace.train_kwargs`)."""
        merges = self.budget_kind == "merges"
        return train_kwargs(
            self.pretokenizer,
            self.unit,
            self.end_of_word,
            self.tie_break,
            self.min_frequency,
            self.special_tokens,
            num_merges=self.budget if merges else None,
            vocab_size=None if merges else self.budget,
        )

    def checked(self) -> TrainSettings:
        """These settings, once they pass :func:`bpe_core.registry.options.check_training` (the limits every way in
        shares).

        Raises:
            bpe_core.BPEError: an unknown option value, or a budget, minimum
                frequency or special token outside its limits (the message says which).
        """
        if self.budget_kind not in BUDGET_KINDS:
            raise OptionError(f"unknown budget kind {self.budget_kind!r}; expected one of: {', '.join(BUDGET_KINDS)}")
        check_training(**self.kwargs())
        return self

    def with_(self, **changes: Any) -> TrainSettings:
        """A copy with some fields changed."""
        return replace(self, **changes)


def parse_special_tokens(text: str) -> tuple[str, ...]:
    """Split a comma-separated list of special tokens, dropping blanks and repeats (order kept)."""
    return tuple(dict.fromkeys(t.strip() for t in text.split(",") if t.strip()))

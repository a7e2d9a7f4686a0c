"""bpe_core: a pure-Python Byte-Pair Encoding engine that records what it does.

Training (:func:`train`) follows Sennrich et al. 2016, Algorithm 1, with an
incremental pair index, and records every merge; encoding
(:class:`Tokenizer`) replays a merge table and records every rule application.
The traces are plain frozen dataclasses (:mod:`bpe_core.trace`) for a UI to read.
"""

from .byte_level import bytes_to_unicode, unicode_to_bytes
from .encoder import FALLBACKS, ORDERS, Tokenizer
from .errors import BPEError, BudgetError, EmptyCorpusError, MergeTableError, OptionError, TokenIdError
from .pretokenize import PRETOKENIZERS, pretokenize
from .result import TrainResult
from .symbols import END_OF_WORD, MARKER, UNITS
from .tiebreak import TIE_BREAKS
from .trace import (
    BlockedRule,
    EncodeTrace,
    Fallback,
    MergeStep,
    MergeSummary,
    OrderDifference,
    PieceTrace,
    RoundTrip,
    RuleApplication,
    TrainConfig,
    WordChange,
)
from .trainer import train

__all__ = [
    "BPEError",
    "BlockedRule",
    "BudgetError",
    "END_OF_WORD",
    "EmptyCorpusError",
    "EncodeTrace",
    "FALLBACKS",
    "Fallback",
    "MARKER",
    "MergeStep",
    "MergeSummary",
    "MergeTableError",
    "ORDERS",
    "OptionError",
    "OrderDifference",
    "PRETOKENIZERS",
    "PieceTrace",
    "RoundTrip",
    "RuleApplication",
    "TIE_BREAKS",
    "TokenIdError",
    "Tokenizer",
    "TrainConfig",
    "TrainResult",
    "UNITS",
    "WordChange",
    "bytes_to_unicode",
    "pretokenize",
    "train",
    "unicode_to_bytes",
]

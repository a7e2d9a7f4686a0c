"""bpe_core: a pure-Python Byte-Pair Encoding engine that records what it does.

Training (:func:`train`) follows Sennrich et al. 2016, Algorithm 1, with an
incremental pair index, and records every merge; encoding
(:class:`Tokenizer`) replays a merge table and records every rule application.
The traces are plain frozen dataclasses (:mod:`bpe_core.trace`) for a UI to read.
"""

from . import formats as formats  # registers the file loaders behind Tokenizer.from_gpt2 / from_tiktoken
from .byte_level import bytes_to_unicode, unicode_to_bytes
from .encoder import FALLBACKS, ORDERS, Tokenizer
from .errors import BPEError, BudgetError, EmptyCorpusError, MergeTableError, OptionError, TokenIdError
from .model import MergeModel
from .pipeline import Decoder, PreTokenizer, SpecialTokens
from .pretokenize import PRETOKENIZERS, pretokenize
from .result import TrainResult
from .spelling import Temporaries
from .symbols import END_OF_WORD, MARKER, UNITS
from .tiebreak import TIE_BREAKS
from .trace import (
    BlockedRule,
    EncodeTrace,
    Fallback,
    MergeStep,
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
    "Decoder",
    "END_OF_WORD",
    "EmptyCorpusError",
    "EncodeTrace",
    "FALLBACKS",
    "Fallback",
    "MARKER",
    "MergeModel",
    "MergeStep",
    "MergeTableError",
    "ORDERS",
    "OptionError",
    "OrderDifference",
    "PRETOKENIZERS",
    "PieceTrace",
    "PreTokenizer",
    "RoundTrip",
    "RuleApplication",
    "SpecialTokens",
    "TIE_BREAKS",
    "Temporaries",
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

"""bpe_core: a pure-Python Byte-Pair Encoding engine that records what it does.

Training (:func:`train`) follows Sennrich et al. 2016, Algorithm 1, with an
incremental pair index, and records every merge; encoding
(:class:`Tokenizer`) replays a merge table and records every rule application.
The traces are plain frozen dataclasses (:mod:`bpe_core.trace`) for a UI to read.
:func:`merge_tree` shows where a token comes from (:mod:`bpe_core.analysis.provenance`);
:func:`audit_vocabulary` finds glitch tokens: partial-UTF-8, unreachable and unused ones
(:mod:`bpe_core.analysis.audit`);
:func:`check_merges`, :func:`find_settings` and :func:`check_encoding` check a
worked example against what BPE really does (:mod:`bpe_core.analysis.checking`), in the
example's own notation (:mod:`bpe_core.analysis.notation`).
:func:`parallel_sections` and :func:`token_premiums` measure what a tokenizer
charges each language of a parallel text (:mod:`bpe_core.analysis.languages`).
"""

from . import formats as formats
from .analysis.audit import VocabularyAudit, audit_vocabulary
from .analysis.checking import (
    CheckSettings,
    ClaimError,
    ClaimStep,
    EncodingCheck,
    MergeCheck,
    Notation,
    WordCounts,
    check_encoding,
    check_merges,
    find_settings,
    read_word_counts,
)
from .analysis.languages import (
    ParallelSection,
    PremiumCurves,
    SectionError,
    parallel_sections,
    premium_curves,
    token_premiums,
)
from .analysis.provenance import CorpusPlace, MergeTree, merge_tree
from .encoding.encoder import FALLBACKS, ORDERS, Tokenizer
from .encoding.model import MergeModel
from .encoding.pipeline import Decoder, PreTokenizer, SpecialTokens
from .errors import BPEError, BudgetError, EmptyCorpusError, MergeTableError, OptionError, TokenIdError
from .registry.pretokenizers import PRETOKENIZER_SPECS, PreTokenizerSpec
from .registry.tie_rules import RULES as TIE_RULE_SPECS
from .registry.tie_rules import TIE_BREAKS, TieRule
from .text.byte_level import bytes_to_unicode, unicode_to_bytes
from .text.pretokenize import PRETOKENIZERS, pretokenize
from .text.spelling import Temporaries
from .text.symbols import END_OF_WORD, MARKER, UNITS
from .text.text_stream import TextDecodeError, count_utf8
from .text.word_count_file import WordCountError, parse_word_counts
from .trace import (
    BlockedRule,
    DroppedMerge,
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
from .training.result import TrainResult
from .training.trainer import train

__all__ = [
    "BPEError",
    "BlockedRule",
    "BudgetError",
    "Decoder",
    "DroppedMerge",
    "CheckSettings",
    "ClaimError",
    "ClaimStep",
    "CorpusPlace",
    "END_OF_WORD",
    "EmptyCorpusError",
    "EncodeTrace",
    "EncodingCheck",
    "FALLBACKS",
    "Fallback",
    "MARKER",
    "MergeModel",
    "MergeCheck",
    "MergeStep",
    "MergeSummary",
    "MergeTableError",
    "MergeTree",
    "Notation",
    "ORDERS",
    "OptionError",
    "OrderDifference",
    "PRETOKENIZERS",
    "PRETOKENIZER_SPECS",
    "PreTokenizerSpec",
    "ParallelSection",
    "PieceTrace",
    "PreTokenizer",
    "PremiumCurves",
    "RoundTrip",
    "RuleApplication",
    "SectionError",
    "SpecialTokens",
    "TIE_BREAKS",
    "TIE_RULE_SPECS",
    "TieRule",
    "Temporaries",
    "TextDecodeError",
    "TokenIdError",
    "Tokenizer",
    "TrainConfig",
    "TrainResult",
    "UNITS",
    "VocabularyAudit",
    "WordChange",
    "WordCountError",
    "audit_vocabulary",
    "WordCounts",
    "bytes_to_unicode",
    "check_encoding",
    "check_merges",
    "count_utf8",
    "find_settings",
    "merge_tree",
    "parallel_sections",
    "parse_word_counts",
    "premium_curves",
    "pretokenize",
    "token_premiums",
    "read_word_counts",
    "train",
    "unicode_to_bytes",
]

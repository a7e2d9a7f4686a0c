"""The parts of a tokenizer around its merge model: special tokens, pre-tokenizer, decoder.

The pipeline is the one Hugging Face ``tokenizers`` names: special tokens are
cut out first (only the ones the caller allows, as tiktoken does), the
pre-tokenizer cuts the rest into pre-tokens, the model
(:class:`~bpe_core.encoding.model.MergeModel`) turns each pre-token into ids, and the
decoder turns ids back into bytes. Each part is a small frozen object, so a
:class:`~bpe_core.Tokenizer` can swap one (:meth:`bpe_core.Tokenizer.from_parts`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

from ..errors import OptionError, quote
from ..registry.pretokenizers import PreTokenizerSpec, pretokenizer_spec
from ..text.pretokenize import split_special, split_with

AllowedSpecial = Literal["all"] | Iterable[str]


@dataclass(frozen=True)
class PreTokenizer:
    """Cuts text into pre-tokens (see :mod:`bpe_core.text.pretokenize`).

    Attributes:
        name: one of :data:`bpe_core.text.pretokenize.PRETOKENIZERS`.
        pattern: the split pattern of a regex pre-tokenizer (its spec's own when
            ``None`` is given), else ``None``.

    Raises:
        OptionError: an unknown name.
    """

    name: str
    pattern: str | None = None

    def __post_init__(self) -> None:
        spec = pretokenizer_spec(self.name)
        if self.pattern is None and spec.pattern is not None:
            object.__setattr__(self, "pattern", spec.pattern)

    @property
    def spec(self) -> PreTokenizerSpec:
        """Everything about this pre-tokenizer (:mod:`bpe_core.registry.pretokenizers`)."""
        return pretokenizer_spec(self.name)

    @property
    def drops_whitespace(self) -> bool:
        """True for the whitespace pre-tokenizers, which do not give spacing back."""
        return self.spec.drops_whitespace

    def split(self, text: str) -> list[str]:
        """The pre-tokens of ``text``, in order."""
        return split_with(self.spec, text, self.pattern)

    def with_offsets(self, text: str) -> Iterator[tuple[str, int]]:
        """``(pre-token, its character offset in text)`` per pre-token."""
        cursor = 0
        for chunk in self.split(text):
            at = text.find(chunk, cursor)
            start = at if at >= 0 else cursor
            if at >= 0:
                cursor = at + len(chunk)
            yield chunk, start


@dataclass(frozen=True)
class SpecialTokens:
    """The special tokens of a vocabulary and how text is cut around them.

    Attributes:
        ids: special token -> id (read only).
    """

    ids: dict[str, int] = field(hash=False)

    def split(self, text: str, allowed_special: AllowedSpecial = ()) -> list[tuple[str, bool]]:
        """``(piece, is_special)`` in text order; only ``allowed_special`` tokens are matched.

        Tokens are cut leftmost-longest, as Hugging Face's ``AddedVocabulary``
        does (see :func:`bpe_core.text.pretokenize.find_specials`, which also says when
        tiktoken differs: nested special tokens). A special token that is not
        allowed is ordinary text, so an allowed token inside it is still cut out.

        Args:
            text: the text.
            allowed_special: ``"all"`` or a collection of special-token strings.

        Raises:
            TypeError: ``text`` is not a ``str``, or ``allowed_special`` is a plain string other than ``"all"``.
            OptionError: ``allowed_special`` names a token that is not special.
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be str, not {type(text).__name__}")
        if allowed_special == "all":
            allowed: list[str] = list(self.ids)
        else:
            if isinstance(allowed_special, str):
                raise TypeError('allowed_special must be "all" or a collection of strings')
            allowed = list(allowed_special)
            unknown = [s for s in allowed if s not in self.ids]
            if unknown:
                raise OptionError(f"allowed_special names tokens that are not special tokens: {quote(unknown)}")
        return split_special(text, allowed)


@dataclass(frozen=True)
class Decoder:
    """Joins token bytes back into text bytes.

    Every token decodes to its bytes; the end-of-word marker decodes to one
    space, except after the last token (the last word's marker is not a
    separator). With the marker (``whitespace_eow``), a special token is a word
    of its own: the pre-tokenizer keeps a boundary after it as after any word,
    so it decodes followed by one space unless it is last (``<s> <s>`` comes
    back whole, as ``a b`` does; text glued to it, ``<s>a``, cannot, as
    ``a<s>`` cannot).

    Attributes:
        end_of_word: True when the vocabulary has an end-of-word marker.
        spaced: ids that end a word without holding the marker: the special
            tokens when ``end_of_word``, else none.
    """

    end_of_word: bool
    spaced: frozenset[int] = frozenset()

    def join(self, data: Sequence[bytes], last_ends_word: bool) -> bytes:
        """The text bytes of tokens whose bytes are ``data`` (marker as ``b" "``).

        Args:
            data: each token's bytes, in order.
            last_ends_word: whether the last token holds the end-of-word marker.
        """
        out = b"".join(data)
        if data and self.end_of_word and last_ends_word:
            out = out[:-1]
        return out

"""Helpers the tests use that the engine does not ship: views built from public parts only."""

from __future__ import annotations

from collections.abc import Mapping

from bpe_core import BPEError, OptionError, Tokenizer, TrainResult, train
from bpe_core.formats.session import Session, corpus_sha256


def is_partial_utf8(tok: Tokenizer, token_id: int) -> bool:
    """True when the token's bytes are not valid UTF-8 on their own (a cut character)."""
    try:
        tok.model.table.data[token_id].decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def replay(tok: Tokenizer, text: str, stop: int) -> tuple[str, ...]:
    """A pre-token's segmentation after merge rules ``0 .. stop - 1`` in learned order, as token strings."""
    strings = tok.model.table.strings
    return tuple(strings[i] for i in tok.model.replay_ids(text, stop))


def initial_segmentations(result: TrainResult) -> tuple[tuple[str, ...], ...]:
    """Each word's base symbols (the end-of-word marker included), aligned with ``result.words``."""
    return tuple(result.segmentation(w, 0) for w in range(len(result.words)))


def retrain(session: Session, corpus: str | Mapping[str, int], **options: object) -> TrainResult:
    """Train again on ``corpus`` with a session's saved settings, to get the full trace back.

    Raises:
        OptionError: the session holds no training settings.
        BPEError: the corpus's hash differs from the saved one, or training gave different merges.
    """
    if session.config is None:
        raise OptionError("this session was saved from a tokenizer, not a training run: it has no settings")
    if session.corpus_sha256 is not None and not session.matches(corpus):
        raise BPEError(
            f"this corpus's sha256 is {corpus_sha256(corpus)[:16]}…, the session was trained on "
            f"{session.corpus_sha256[:16]}…; load the same corpus"
        )
    result = train(corpus, **session.config.train_kwargs(), **options)  # type: ignore[arg-type]
    saved = session.tokenizer.model.merges
    if result.merges != saved:
        k = next(
            (k for k, (x, y) in enumerate(zip(result.merges, saved)) if x != y), min(len(saved), len(result.merges))
        )
        raise BPEError(f"training again gave different merges from rank {k} on ({len(result.merges)} vs {len(saved)})")
    return result

"""The benchmark corpora: the shared real texts in ``../shared/corpora``.

``code`` is built from the humaneval-x data set as the test suite builds it
(``prompt + canonical_solution + "\\n" + test`` of every record, six languages).
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPORA_DIR = Path(os.environ.get("BPE_BENCH_CORPORA", REPO.parent / "shared" / "corpora"))
"""Where the corpora are (``BPE_BENCH_CORPORA`` overrides ``../shared/corpora``)."""

REFERENCE_DIR = REPO.parent / "shared" / "reference"
"""OpenAI's published rank files (GPT-2, cl100k_base), for the tiktoken side of the encoding benchmark."""

CORPUS_NAMES = ("tinyshakespeare", "wikitext2-test", "taylorswift", "udhr-multiscript", "code")
"""Every benchmark corpus, in report order."""


class CorpusMissing(FileNotFoundError):
    """A corpus file is absent (the shared folder is not next to this checkout)."""


def read_corpus(name: str, directory: Path | None = None) -> str:
    """The text of corpus ``name`` (one of :data:`CORPUS_NAMES`).

    Raises:
        CorpusMissing: the file (or the humaneval-x folder) is absent.
        ValueError: an unknown name.
    """
    folder = Path(directory) if directory is not None else CORPORA_DIR
    if name not in CORPUS_NAMES:
        raise ValueError(f"unknown corpus {name!r}; choose from: {', '.join(CORPUS_NAMES)}")
    if name == "code":
        files = sorted((folder / "humaneval-x").glob("humaneval_*.jsonl.gz"))
        if not files:
            raise CorpusMissing(f"{folder / 'humaneval-x'} holds no humaneval_*.jsonl.gz")
        parts = []
        for path in files:
            with gzip.open(path, "rt", encoding="utf-8") as fh:
                for line in fh:
                    rec = json.loads(line)
                    parts.append(rec["prompt"] + rec["canonical_solution"] + "\n" + rec["test"])
        return "\n".join(parts)
    path = folder / f"{name}.txt"
    if not path.exists():
        raise CorpusMissing(f"{path} is absent: the shared corpora folder is not next to this checkout")
    return path.read_text(encoding="utf-8")


def sample(text: str, size: int, pieces: int = 8) -> str:
    """About ``size`` characters of ``text`` as ``pieces`` runs of whole lines spread evenly over it.

    Real text from every part of the file (the multi-script corpus changes
    language every ten-odd kilobytes, the code corpus every 210 KB). ``size``
    of 0, or a text no longer than ``size``, gives the whole text.
    """
    if size <= 0 or len(text) <= size:
        return text
    step, run = len(text) // pieces, size // pieces
    out = []
    for k in range(pieces):
        start = text.rfind("\n", 0, k * step) + 1
        end = text.find("\n", start + run)
        out.append(text[start : len(text) if end < 0 else end + 1])
    return "".join(out)

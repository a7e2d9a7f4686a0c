"""Shared fixtures: the read-only reference folder ``../shared`` next to the repository.

Tests that need real corpora or OpenAI's published rank files use these
fixtures; they skip with a clear reason when the folder is absent.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
CORPORA = SHARED / "corpora"
REFERENCE = SHARED / "reference"

TEXT_CORPORA = ("tinyshakespeare", "wikitext2-test", "taylorswift", "udhr-multiscript")
"""The plain-text corpora in ``../shared/corpora`` (``code`` is built from humaneval-x)."""


def _require(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} is absent: the shared reference folder ../shared is not next to this checkout")
    return path


def read_corpus(name: str) -> str:
    """The text of corpus ``name`` (one of TEXT_CORPORA, or ``code``), as str.

    ``code`` joins ``prompt + canonical_solution + "\\n" + test`` of every
    humaneval-x record in all six languages (see ../shared/corpora/SOURCES.md).
    """
    if name == "code":
        folder = _require(CORPORA / "humaneval-x")
        parts = []
        for path in sorted(folder.glob("humaneval_*.jsonl.gz")):
            with gzip.open(path, "rt", encoding="utf-8") as fh:
                for line in fh:
                    rec = json.loads(line)
                    parts.append(rec["prompt"] + rec["canonical_solution"] + "\n" + rec["test"])
        return "\n".join(parts)
    return _require(CORPORA / f"{name}.txt").read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def corpora() -> dict[str, str]:
    """Every shared corpus by name, the code corpus included (skips if ../shared is absent)."""
    return {name: read_corpus(name) for name in (*TEXT_CORPORA, "code")}


@pytest.fixture(scope="session")
def reference_dir() -> Path:
    """``../shared/reference`` (GPT-2 and cl100k_base rank files); skips if absent."""
    return _require(REFERENCE)

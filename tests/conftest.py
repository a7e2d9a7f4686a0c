"""Shared fixtures: the read-only reference folder ``../shared`` next to the repository; how the suite runs.

Tests that need real corpora or OpenAI's published rank files use these
fixtures. When ``../shared`` is absent (a fresh clone), the byte-identical
copies the project ships are used instead (``sample_corpora/`` holds three of
the corpora, ``bpe_core/formats/data/`` the GPT-2, cl100k_base and o200k_base files), and a
test skips, with the reason, only when what it needs is in neither place.

The README's command runs the suite in two pytest-xdist workers (``-n 2``, with ``--dist loadgroup`` from
pyproject.toml): every test marked ``browser`` runs in one worker, one after another, so the browser modules'
app servers and Chromium start once each and never compete with one another, and tests that share another
module-scoped fixture stay in one worker too, so it is built once. Every wait is scaled by
``BPE_TEST_PATIENCE`` (see :mod:`tests.app_server`); Hypothesis has no deadline and no too-slow health check.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from bench import corpora as bench_corpora

from .app_server import waited

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
CORPORA = SHARED / "corpora"
REFERENCE = SHARED / "reference"

APP_TIMEOUT = waited(300)
"""Seconds one ``AppTest`` run may take (``AppTest.from_file(APP, default_timeout=APP_TIMEOUT)``): a rerun that
trains the Tiny Shakespeare sample on a 2-core machine kept busy by other work fits with room to spare."""

settings.register_profile("bpe", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("bpe")  # a busy machine draws and runs examples slower: neither may fail a test


def _module_fixtures(item: pytest.Item) -> bool:
    """Whether ``item`` uses a module-scoped fixture (set up once per module in each worker that runs the module)."""
    defs = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    return any(d.scope == "module" for fixture in defs.values() for d in fixture)


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put every ``browser`` test in one xdist group (one worker runs them all, in order), and each other module
    with a module-scoped fixture in a group of its own (its fixture is built once, not once per worker)."""
    for item in items:
        if item.get_closest_marker("browser") is not None:
            item.add_marker(pytest.mark.xdist_group("browser"))
        elif _module_fixtures(item):
            item.add_marker(pytest.mark.xdist_group(item.path.name))


TEXT_CORPORA = ("tinyshakespeare", "wikitext2-test", "taylorswift", "udhr-multiscript")
"""The plain-text corpora in ``../shared/corpora`` (``code`` is built from humaneval-x)."""


SHIPPED_CORPORA = REPO / "sample_corpora"
SHIPPED_REFERENCE = REPO / "bpe_core" / "formats" / "data"


def _require(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} is absent: the shared reference folder ../shared is not next to this checkout")
    return path


@cache
def read_corpus(name: str) -> str:
    """The text of corpus ``name`` (one of TEXT_CORPORA, or ``code``), as str.

    ``code`` is built as the benchmark builds it (:func:`bench.corpora.read_corpus`).
    """
    if name == "code":
        try:
            return bench_corpora.read_corpus("code", CORPORA)
        except bench_corpora.CorpusMissing as exc:
            pytest.skip(f"{exc}: the shared reference folder ../shared is not next to this checkout")
    path = CORPORA / f"{name}.txt"
    if not path.exists() and (SHIPPED_CORPORA / f"{name}.txt").exists():
        path = SHIPPED_CORPORA / f"{name}.txt"  # the project's byte-identical copy
    return _require(path).read_text(encoding="utf-8")


class Corpora(Mapping[str, str]):
    """Every corpus by name, the code corpus included, read when first asked for.

    A test that reads a corpus available neither in ../shared nor as a shipped
    copy is skipped with the reason; the others run.
    """

    def __getitem__(self, name: str) -> str:
        if name not in (*TEXT_CORPORA, "code"):
            raise KeyError(name)
        return read_corpus(name)

    def __iter__(self) -> Iterator[str]:
        return iter((*TEXT_CORPORA, "code"))

    def __len__(self) -> int:
        return len(TEXT_CORPORA) + 1


@pytest.fixture(scope="session")
def corpora() -> Corpora:
    """The shared corpora (see :class:`Corpora`)."""
    return Corpora()


@pytest.fixture(scope="session")
def reference_dir(tmp_path_factory) -> Path:
    """``../shared/reference`` (GPT-2, cl100k_base and o200k_base files), or the same layout built from the shipped
    copies."""
    if REFERENCE.exists():
        return REFERENCE
    if not (SHIPPED_REFERENCE / "encoder.json").exists():
        return _require(REFERENCE)
    folder = tmp_path_factory.mktemp("reference")
    (folder / "gpt2").mkdir()
    for name in ("encoder.json", "vocab.bpe"):
        shutil.copyfile(SHIPPED_REFERENCE / name, folder / "gpt2" / name)
    for name in ("cl100k_base.tiktoken", "o200k_base.tiktoken"):
        shutil.copyfile(SHIPPED_REFERENCE / name, folder / name)
    return folder

"""The run's per-step views come from one query object (``result.views``,
:class:`bpe_core.training.step_views.StepViews`)
with explicit, bounded caches; a new per-step figure is written from its public queries alone."""

from __future__ import annotations

import ast
import inspect
import pickle
import textwrap

import plotly.graph_objects as go
import pytest

from bpe_core import train
from bpe_core.training.step_views import COUNT_CACHE, STEP_CACHE, BoundedCache, StepViews

TEXT = " ".join(f"w{k % 37}x{k % 11}y{k % 5}" for k in range(400))


@pytest.fixture(scope="module")
def result():
    return train(TEXT, num_merges=STEP_CACHE + 20, min_frequency=1)


def test_the_result_answers_from_one_query_object(result):
    views = result.views
    assert isinstance(views, StepViews) and result.views is views and result.steps is views.steps
    assert result.steps[3] is views.step(3)  # built once, kept
    assert result.pair_counts_at(5) == views.pair_counts_at(5)
    assert result.tied_at(4) == views.tied_at(4) and result.ties_at(4) == views.ties_at(4)
    assert result.word_changes(2) == views.word_changes(2) and result.segmentation(0, 7) == views.segmentation(0, 7)
    assert result.tied_lists(3) == views.tied_lists(3)


def test_the_caches_are_bounded_and_not_pickled(result):
    views = result.views
    for k in range(result.num_merges):
        views.steps[k]
        views.num_pairs_at(k)
    assert len(views._steps) == STEP_CACHE and len(views._counts) == COUNT_CACHE
    copy = pickle.loads(pickle.dumps(result))
    assert len(copy.views._steps) == 0 and len(copy.views._counts) == 0
    assert copy.views.result is copy and copy.steps[-1] == result.steps[-1]


def test_a_bounded_cache_drops_the_least_recently_used():
    cache: BoundedCache[int, str] = BoundedCache(2)
    built: list[int] = []

    def build(k: int) -> str:
        built.append(k)
        return str(k)

    for k in (1, 2, 1, 3, 1, 2):
        cache.get_or_build(k, build)
    assert built == [1, 2, 3, 2] and len(cache) == 2  # 2 went when 3 came (1 was used since); 3 went when 2 came back


# ----------------------------------------------------------------- a new per-step figure, written from the queries


def distinct_pairs_figure(views: StepViews) -> go.Figure:
    """How many distinct adjacent pairs the corpus holds before each merge (a figure a page could add)."""
    ks = list(range(len(views.steps) + 1))
    return go.Figure(go.Scatter(x=ks, y=[views.num_pairs_at(k) for k in ks], mode="lines+markers"))


def test_a_new_per_step_figure_needs_only_the_queries(result):
    """Adding a per-step figure touches two files: the figure in ``viz/`` and, if a query is missing, the step
    views. This one needs no new query: it reads nothing of the run but ``StepViews``' public methods."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(distinct_pairs_figure)))
    read = {
        node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute) and ast.unparse(node.value) == "views"
    }
    public = {name for name in dir(StepViews) if not name.startswith("_")}
    assert read and read <= public
    figure = distinct_pairs_figure(result.views)
    ys = list(figure.data[0].y)
    assert len(ys) == result.num_merges + 1
    assert ys == [len(result.pair_counts_at(k, by_id=True)) for k in range(result.num_merges + 1)]
    words = [w for w, _f in result.words]
    first = {(a, b) for w in words for a, b in zip([*w, "</w>"], [*w, "</w>"][1:])}
    assert ys[0] == len(first)  # counted by hand from the words, spelled with the end-of-word marker

"""A class on one server: sessions on one link share one training result (``ui.cache.trained``, an
``st.cache_resource``) and nothing that reads it changes it; the bundled tokenizers are parsed only once the
server is idle, so no page waits for them."""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import pickle

import pytest
from streamlit.testing.v1 import AppTest

import bpe_core
from ui import state
from ui.cache import IDLE_LIMIT, IDLE_SHARE, IDLE_WINDOW, TRAINED_ENTRIES, TRAINED_TTL, when_idle
from ui.corpus import read_sample
from ui.settings import TrainSettings
from viz.corpus_strip import corpus_strip, corpus_strip_html, excerpt_pieces
from viz.tokens import change_html, display_of
from viz.train_charts import corpus_length_figure, mark_step, merge_count_figure, pair_bars_figure, vocab_growth_figure
from viz.train_tables import (
    corpus_summary,
    merges_frame,
    pair_counts_frame,
    pretoken_noun,
    tie_explanation,
    token_counts,
    word_changes_frame,
)

from .conftest import APP_TIMEOUT, REPO

APP = str(REPO / "app.py")
TRAIN = state.TRAIN_PLAYER


def fingerprint(result: bpe_core.TrainResult) -> str:
    """A SHA-256 over every field of ``result`` as pickled, the tokenizer by what decides its ids (its model's
    own fingerprint, recomputed, and its specials and pre-tokenizer). What is built on demand and kept (the
    steps' views, the tokenizer's per-word cache and lookups) is not a field, so it may fill in."""
    fields = [getattr(result, f.name) for f in dataclasses.fields(result) if f.name != "tokenizer"]
    tok = result.tokenizer
    model_fingerprint = type(tok.model).fingerprint.func(tok.model)  # not the kept value: computed afresh
    return hashlib.sha256(
        pickle.dumps([fields, model_fingerprint, tok.specials, tok.pre_tokenizer, tok.name], protocol=5)
    ).hexdigest()


def session(params: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=APP_TIMEOUT)
    at.query_params.update(params or {})
    at.run()
    assert not at.exception
    return at


def test_sessions_on_one_link_draw_from_one_result():
    first, second = session(), session({TRAIN.step: "9"})
    assert first.session_state[state.RESULT] is second.session_state[state.RESULT]
    assert second.subheader[0].value.startswith("Merge 9 of 200")


def test_the_cache_of_results_is_bounded():
    assert 8 <= TRAINED_ENTRIES <= 32 and 0 < TRAINED_TTL <= 24 * 3600


def test_the_result_is_a_frozen_dataclass_and_the_fingerprint_sees_a_change_inside_it():
    result = bpe_core.train("low lower newest widest " * 5, num_merges=5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.merges = []  # type: ignore[misc]
    changes = (
        lambda r: r.merges.pop(),
        lambda r: r.vocab.update(x=99),
        lambda r: r.tokenizer.model.table.special_ids.update({"<x>": 99}),
    )
    for change in changes:
        changed = copy.deepcopy(result)
        change(changed)
        assert fingerprint(changed) != fingerprint(result)


def test_drawing_every_step_leaves_the_shared_result_as_it_was():
    """Every view the Train page builds, at every step, and a session stepping through the page (tables
    unfolded, the Encode page encoding with it): the shared result's fields pickle the same before and after."""
    at = session()
    result = at.session_state[state.RESULT]
    before = fingerprint(result)
    text = read_sample("Shakespeare excerpt (12 KB)")
    excerpt = excerpt_pieces(text, result.config.pretokenizer, result.config.special_tokens)
    show = display_of(result)
    figures = (merge_count_figure(result), corpus_length_figure(result), vocab_growth_figure(result))
    corpus_summary(result), token_counts(result), pretoken_noun(result.config.pretokenizer)
    for k in range(result.num_merges):
        s = result.steps[k]
        pair_counts_frame(s, show), pair_bars_figure(s, show), tie_explanation(s, show)
        merges_frame(result, k, show), word_changes_frame(result.word_changes(k, limit=50), show)
        corpus_strip_html(corpus_strip(result, excerpt, k))
        [change_html(w, result.tokenizer) for w in s.words]
        [mark_step(fig, k + 1) for fig in figures]
    result.tokenizer.encode_with_trace(text, order="sequential"), result.tokenizer.round_trip(text)
    for key in (state.PAIR_TABLE_OPEN, state.WORD_TABLE_OPEN, state.RULE_TABLE_OPEN):
        at.session_state[key] = True
    for step in (2, 50, 200):
        at.slider(key=TRAIN.step).set_value(step).run()
        assert not at.exception
    at.switch_page("pages/encode.py").run()
    assert not at.exception and at.session_state[state.RESULT] is result
    assert fingerprint(result) == before
    assert fingerprint(bpe_core.train(text, **TrainSettings().kwargs())) == before  # and it is the training's


class Server:
    """A fake process for :func:`ui.cache.when_idle`: its CPU use per window is scripted, time is counted."""

    def __init__(self, busy_windows: int) -> None:
        self.now, self.used, self.busy_windows, self.started_at = 0.0, 0.0, busy_windows, None

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        busy = self.busy_windows > 0
        self.busy_windows -= 1
        self.used += seconds * (0.9 if busy else 0.05)

    def start(self) -> None:
        self.started_at = self.now


@pytest.mark.parametrize("busy_windows", [0, 1, 5])
def test_the_preload_waits_until_the_server_is_idle(busy_windows):
    server = Server(busy_windows)
    when_idle(server.start, cpu=lambda: server.used, sleep=server.sleep, clock=lambda: server.now)
    assert server.started_at == pytest.approx((busy_windows + 1) * IDLE_WINDOW)
    assert IDLE_SHARE < 0.9


def test_the_preload_starts_at_the_limit_on_a_server_that_is_never_idle():
    server = Server(busy_windows=10**6)
    when_idle(server.start, cpu=lambda: server.used, sleep=server.sleep, clock=lambda: server.now)
    assert IDLE_LIMIT <= server.started_at < IDLE_LIMIT + IDLE_WINDOW + 1e-9


def test_a_step_builds_only_the_rules_it_shows():
    """The step's table of the last rules is built from those rows alone (a table of every rule so far grew with
    the step, at every step): the same rows as the whole table's end."""
    result = bpe_core.train(read_sample("Shakespeare excerpt (12 KB)"), num_merges=60)
    show = display_of(result)
    whole = merges_frame(result, 40, show)
    window = merges_frame(result, 40, show, first=29)
    assert window.equals(whole.iloc[29:].reset_index(drop=True))
    assert merges_frame(result, None, show, first=55)["rank"].tolist() == [55, 56, 57, 58, 59]


def test_a_step_evicted_by_another_session_meanwhile_is_still_returned():
    """Sessions read one shared result from several threads: a step another thread drops from the kept steps
    between this thread's look-up and its move to the front is returned, not a KeyError."""
    from collections import OrderedDict

    class EvictedAfterLookUp(OrderedDict):
        def get(self, key, default=None):
            value = super().get(key, default)
            self.pop(key, None)  # what another thread's insertion of a new step does to the oldest one
            return value

    result = bpe_core.train("low lower newest widest " * 5, num_merges=5)
    steps = result.steps
    first = steps[2]
    kept = result.views._steps  # the bounded cache of built steps (bpe_core.training.step_views.BoundedCache)
    kept._items = EvictedAfterLookUp(kept._items)
    assert steps[2] is first

"""The server's store of pasted texts too long for a link (ui/kept_texts.py): keyed by SHA-256, least recently
used first out, bounded in count and in bytes."""

from __future__ import annotations

import hashlib
import threading
import tracemalloc

import pytest

from ui.corpus import MAX_PASTE_CHARS, CorpusChoice
from ui.kept_texts import MAX_KEPT_BYTES, MAX_KEPT_TEXTS, KeptTexts, text_sha256


def test_a_text_comes_back_by_its_sha256_exactly():
    store = KeptTexts()
    text = "שלום עולם 👋🏽 e\u0301\r\nline two\ttab\x00"
    key = store.keep(text)
    assert key == hashlib.sha256(text.encode()).hexdigest() == CorpusChoice("paste", "pasted text", text).sha256
    assert store.get(key) == text and store.get(key.upper()) == text
    assert len(store) == 1 and store.nbytes == len(text.encode())


def test_a_lone_surrogate_is_kept_under_the_same_hash_as_the_corpus_gives_it():
    text = "a\ud800b"
    assert KeptTexts().keep(text) == text_sha256(text) == CorpusChoice("paste", "pasted text", text).sha256


@pytest.mark.parametrize("key", ["", "0" * 64, "32a880f9df17", "g" * 64, "0" * 65, "x" * 1_000_000])
def test_what_was_never_kept_or_is_no_hash_is_not_found(key):
    store = KeptTexts()
    store.keep("low lower lowest")
    assert store.get(key) is None


def test_keeping_the_same_text_again_stores_it_once():
    store = KeptTexts()
    for _ in range(3):
        store.keep("low lower lowest")
    assert len(store) == 1 and store.nbytes == len("low lower lowest")


def test_the_count_bound_lets_the_least_recently_used_go_first():
    store = KeptTexts(max_texts=3, max_bytes=10**6)
    keys = [store.keep(f"text {i}") for i in range(3)]
    assert store.get(keys[0]) == "text 0"  # used: now the newest
    fourth = store.keep("text 3")
    assert len(store) == 3
    assert store.get(keys[1]) is None  # the least recently used went
    assert [store.get(k) for k in (keys[0], keys[2], fourth)] == ["text 0", "text 2", "text 3"]


def test_keeping_a_kept_text_again_marks_it_used():
    store = KeptTexts(max_texts=2, max_bytes=10**6)
    first, second = store.keep("first"), store.keep("second")
    store.keep("first")  # every rerun of the session that shows it does this
    store.keep("third")
    assert store.get(first) == "first" and store.get(second) is None


def test_the_byte_bound_counts_utf8_bytes_and_lets_old_texts_go():
    store = KeptTexts(max_texts=100, max_bytes=10)
    a = store.keep("ααα")  # 6 bytes
    b = store.keep("bbbb")  # 4 bytes: 10 in all, at the bound
    assert store.nbytes == 10 and store.get(a) and store.get(b)
    c = store.keep("c")  # 11 would be over: the least recently used (a) goes
    assert store.get(a) is None and store.get(b) == "bbbb" and store.get(c) == "c"
    assert store.nbytes == 5 and len(store) == 2


def test_a_text_larger_than_the_whole_store_is_not_kept_and_nothing_goes():
    store = KeptTexts(max_texts=10, max_bytes=8)
    kept = store.keep("small")
    assert store.keep("x" * 9) is None
    assert store.get(kept) == "small" and len(store) == 1 and store.nbytes == 5


def test_bounds_below_one_are_refused():
    with pytest.raises(ValueError, match="at least one text"):
        KeptTexts(max_texts=0)
    with pytest.raises(ValueError, match="at least one text"):
        KeptTexts(max_bytes=0)


def test_the_default_store_holds_many_full_paste_boxes_within_its_bytes():
    """The bounds as the notice and docstring state them: a full paste box of four-byte characters fits over
    200 times, and filling the store past its bytes holds its memory near :data:`MAX_KEPT_BYTES`."""
    one = 4 * MAX_PASTE_CHARS  # the UTF-8 bytes of a full box of emoji
    assert MAX_KEPT_BYTES // one >= 200
    store = KeptTexts()
    tracemalloc.start()
    try:
        for i in range(MAX_KEPT_TEXTS + 50):
            store.keep(f"{i:08d}" + "😀" * (MAX_PASTE_CHARS - 8))
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    full = MAX_PASTE_CHARS * 4 - 8 * 3
    assert len(store) == MAX_KEPT_BYTES // full < MAX_KEPT_TEXTS  # the byte bound, not the count, held here
    assert store.nbytes == len(store) * full <= MAX_KEPT_BYTES
    assert held < 1.05 * MAX_KEPT_BYTES  # the texts' bytes and little else (a str of emoji would be as large)
    for i in range(MAX_KEPT_TEXTS + 50):
        store.keep(f"short {i}")
    assert len(store) == MAX_KEPT_TEXTS  # and with short texts the count bound holds


def test_sessions_in_threads_keep_and_read_one_store_within_its_bounds():
    store = KeptTexts(max_texts=8, max_bytes=10**6)
    texts = {f"session {n} text {i}" for n in range(4) for i in range(12)}
    wrong: list[tuple[str, str]] = []  # an assertion in a thread would not fail the test

    def session(n: int) -> None:
        for i in range(200):
            text = f"session {n} text {i % 12}"
            found = store.get(store.keep(text))
            if found is not None and found != text:
                wrong.append((text, found))

    threads = [threading.Thread(target=session, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []
    kept = [found for text in texts if (found := store.get(text_sha256(text))) is not None]
    assert len(store) == len(kept) == 8
    assert store.nbytes == sum(len(text) for text in kept)

"""Pasted texts too long for a link, kept by the server under their SHA-256 (no Streamlit here).

A paste that packs into more than :data:`ui.links.MAX_LINK_TEXT` characters cannot travel in the link; the
link names it by its SHA-256 instead (``?corpus_hash=``) and the server keeps the text here, so a reload (F5),
a ``?present=true`` link or a second tab on the same server opens the same text. The store is bounded in
count and in bytes and lets the least recently used text go first; a link whose text it no longer holds
(or never held: another server, a restart) falls back to the main area's message and the session file.
:func:`ui.cache.kept_texts` gives the one store every session of the server shares.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict

MAX_KEPT_TEXTS = 256
"""At most this many pasted texts are kept (the least recently used goes first)."""
MAX_KEPT_BYTES = 16 * 2**20
"""At most this many bytes of text are kept (UTF-8, as stored): 16 MB, at least 200 full paste boxes of
20,000 characters at four bytes each, and over 1,000 of English."""
_SHA256 = re.compile(r"[0-9a-f]{64}")


def text_sha256(text: str) -> str:
    """The SHA-256 (64 lower-case hex digits) of ``text``'s UTF-8 bytes, as :class:`ui.corpus.CorpusChoice`
    gives it (a lone surrogate is encoded as it stands, ``surrogatepass``)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class KeptTexts:
    """A thread-safe store of texts by SHA-256, least recently used first out, bounded in count and bytes.

    Every session of the server reads and writes one store (Streamlit runs sessions in threads), so each
    call holds a lock. A text is stored as its UTF-8 bytes: its cost in memory is what the byte bound counts
    (a Python ``str`` with one emoji takes four bytes a character, its UTF-8 about one).

    Args:
        max_texts: the most texts kept (at least 1).
        max_bytes: the most UTF-8 bytes kept, all texts together (at least 1).

    Raises:
        ValueError: a bound below 1.
    """

    def __init__(self, max_texts: int = MAX_KEPT_TEXTS, max_bytes: int = MAX_KEPT_BYTES) -> None:
        if max_texts < 1 or max_bytes < 1:
            raise ValueError(f"a store keeps at least one text and one byte, not {max_texts} and {max_bytes}")
        self.max_texts = max_texts
        self.max_bytes = max_bytes
        self._texts: OrderedDict[str, bytes] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def keep(self, text: str) -> str | None:
        """Keep ``text`` (or mark it as just used, if kept already); the older texts past a bound go.

        Returns:
            its SHA-256 (:func:`text_sha256`), the key :meth:`get` takes; ``None`` when the text alone is
            larger than ``max_bytes`` (it is not kept, and nothing else goes).
        """
        data = text.encode("utf-8", "surrogatepass")
        key = hashlib.sha256(data).hexdigest()
        if len(data) > self.max_bytes:
            return None
        with self._lock:
            if key in self._texts:
                self._texts.move_to_end(key)
                return key
            self._texts[key] = data
            self._bytes += len(data)
            while len(self._texts) > self.max_texts or self._bytes > self.max_bytes:
                _, dropped = self._texts.popitem(last=False)
                self._bytes -= len(dropped)
        return key

    def get(self, sha256: str) -> str | None:
        """The text whose SHA-256 is ``sha256`` (64 hex digits, either case), marked as just used; ``None``
        when it is not kept (never kept here, or let go) or ``sha256`` is not a whole SHA-256."""
        key = sha256.lower() if len(sha256) == 64 else ""
        if not _SHA256.fullmatch(key):
            return None
        with self._lock:
            data = self._texts.get(key)
            if data is None:
                return None
            self._texts.move_to_end(key)
        return data.decode("utf-8", "surrogatepass")

    def __len__(self) -> int:
        """How many texts are kept."""
        return len(self._texts)

    @property
    def nbytes(self) -> int:
        """The UTF-8 bytes of every kept text together."""
        return self._bytes

"""Text to symbols: the lowest layer of the engine.

Lone surrogates, GPT-2's byte-to-unicode table, units and end-of-word markers, spelling
words into symbol ids, pre-tokenizers (split patterns), text read a slice at a time, and
word counts from a corpus or a word-count file. Imports only the shared top-level modules
(:mod:`bpe_core.errors`, :mod:`bpe_core.registry`, :mod:`bpe_core.memory`, :mod:`bpe_core.trace`).
"""

"""Training: learning a merge table (Sennrich et al. 2016, Algorithm 1, with a pair index).

The trainer, the recorder that keeps every step, the :class:`~bpe_core.TrainResult` it
returns, its step views (a query object with bounded caches) and the ranking of tied pairs.
Imports :mod:`bpe_core.encoding` (a result builds its tokenizer), :mod:`bpe_core.text`, the
registries and the shared top-level modules.
"""

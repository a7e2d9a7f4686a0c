"""Encoding: a merge table applied to text (Sennrich et al. 2016, section 3.2; GPT-2 ``bpe()``).

The frozen merge model, the merge loops (rank order and sequential, dropout), the pipeline
parts (pre-tokenizer, special tokens, decoder), the :class:`~bpe_core.Tokenizer` that chains
them, and the explanations of one encoding (traces, round trips, order differences).
Imports :mod:`bpe_core.text` and the shared top-level modules, never training or analysis.
"""

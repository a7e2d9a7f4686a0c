"""Benchmarks of bpe_core against the reference tokenizers (tiktoken, tokenizers, subword-nmt).

Run ``python3 -m bench.run`` (the full run, a quarter of an hour or more) or
``python3 -m bench.run --quick`` (the smoke version CI runs). Results are
written to ``bench/RESULTS.md``; see :mod:`bench.run` for the options.
``python3 -m bench.scaling`` doubles the input of every engine and CLI path and fits
the exponent of its time and memory (``--write`` puts the table in the report's
*Scaling* section, which ``bench.run`` keeps); see :mod:`bench.scaling`.

The reference libraries are benchmark and test dependencies only
(``requirements-dev.txt``): nothing in ``bpe_core`` or the app imports them.
"""

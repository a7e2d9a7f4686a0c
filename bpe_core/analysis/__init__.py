"""Analysis: questions asked of a trained or loaded tokenizer.

Where a token comes from (merge trees), glitch tokens (vocabulary audit), compression and
what each language pays, and checking a worked example in its own notation against what
BPE really does. Imports training, encoding and text; nothing imports it but the package face.
"""

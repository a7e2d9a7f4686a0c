"""The registries: every choice a user makes, each defined once, as data.

A pre-tokenizer is one :class:`~bpe_core.registry.pretokenizers.PreTokenizerSpec` (pattern, trust,
where text may be cut, its tokenizer.json and tiktoken forms, whether it adds ``</w>``); a tie rule is
one :class:`~bpe_core.registry.tie_rules.TieRule` (name, description, keys); :mod:`.options` holds
every option's allowed values, default and help, read from those registries. The trainer, the
tokenizer, the loaders and writers, the CLI and the app all read them here. Imports only
:mod:`bpe_core.errors`; nothing is registered or changed at import time.
"""

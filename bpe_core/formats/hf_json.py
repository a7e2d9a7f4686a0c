"""Hugging Face ``tokenizer.json`` with a BPE model.

Source of the format: Hugging Face ``tokenizers`` (``Tokenizer.to_str`` /
``Tokenizer.from_file``; the model is ``tokenizers/src/models/bpe/model.rs``,
serialised with ``vocab`` and ``merges``). Merges are written as
``[left, right]`` pairs, which ``tokenizers`` >= 0.20 reads and which lets a
merge hold a space (``trailing_space`` tokens such as ``"the "``).

How each setting is written (and read back); each pre-tokenizer's row is its
:attr:`~bpe_core.registry.pretokenizers.PreTokenizerSpec.hf` step:

=====================  ===========================================================================
setting                tokenizer.json
=====================  ===========================================================================
byte unit              ``ByteLevel`` pre-tokenizer step and decoder (GPT-2's byte-to-unicode)
``gpt2``               ``ByteLevel(use_regex=true)`` (byte unit) or ``Split(regex, Isolated)``
``gpt4``, ``llama3``   ``Split(regex, Isolated)`` (+ ``ByteLevel(use_regex=false)`` for bytes)
``whitespace``         ``Split(<str.split() whitespace>+, Removed)``
``whitespace_eow``     the same, with ``end_of_word_suffix: "</w>"`` (marker attached only)
``trailing_space``     normalizer ``Replace(<whitespace>+, " ")`` + ``Strip``, then ``Split(" ", MergedWithPrevious)``
``none``               no pre-tokenizer (``ByteLevel(use_regex=false)`` for bytes)
special tokens         ``added_tokens`` (``special: true``) and ``model.vocab``
fallback ``unk``       ``model.unk_token: "<unk>"``
fallback ``bytes``     ``model.byte_fallback: true`` and ``<0x00>``..``<0xFF>``
=====================  ===========================================================================

Not representable (export raises :class:`~bpe_core.formats.ExportError`): a
*separate* ``</w>`` symbol (the BPE model can only glue a suffix to the last
character), and two ids with one token string. Hugging Face always cuts
special tokens out of the text; encode with ``allowed_special="all"`` to
compare. With ``fallback="keep"`` a character outside the alphabet has no
token in the file: Hugging Face drops it, so ids agree on text within the alphabet.
Decoding a byte-level tokenizer with the ``</w>`` suffix keeps the last word's
marker as a trailing space in Hugging Face (its ``Strip`` decoder panics on
empty input, so it is not used); ids are unaffected.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping

from regex import escape as regex_escape

from ..encoding.encoder import Tokenizer
from ..errors import quote
from ..registry.pretokenizers import PRETOKENIZER_SPECS, PreTokenizerSpec, pretokenizer_spec
from ..text.pretokenize import SPLIT_BEHAVIORS, HFSplit
from ..text.symbols import MARKER, unit_kind
from ._common import (
    WHITESPACE_RUN,
    ExportError,
    FormatError,
    check_pattern,
    decode_text,
    describe_settings,
    field,
    parse_json,
    pretokenizer_for_pattern,
    suffix_with_byte_fallback,
    tokenizer_from_vocab,
    unique_vocab,
)
from .tiktoken_ranks import R50K_PATTERN

Specs = Mapping[str, PreTokenizerSpec]

_BYTE_LEVEL = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}


def _byte_level(use_regex: bool) -> dict[str, object]:
    return {**_BYTE_LEVEL, "use_regex": use_regex}


def _split(pattern: str, behavior: str, *, regex: bool = True, invert: bool = False) -> dict[str, object]:
    return {
        "type": "Split",
        "pattern": {"Regex" if regex else "String": str(pattern)},
        "behavior": behavior,
        "invert": invert,
    }


def _covering(specs: Specs) -> frozenset[str]:
    """Patterns that match every character, so Hugging Face's ``Isolated`` pieces are exactly their matches:
    each spec's that ``covers_text``, and r50k's."""
    return frozenset([*(s.pattern for s in specs.values() if s.covers_text and s.pattern), R50K_PATTERN])


def _pattern_split(pattern: str, specs: Specs = PRETOKENIZER_SPECS) -> dict[str, object]:
    """The ``Split`` step for a split pattern.

    A plain pattern keeps its matches only (tiktoken's ``find_iter``): Hugging
    Face's ``Split(pattern, Removed, invert=true)``, written ``Isolated`` for the
    published patterns, which match every character. An :class:`HFSplit` keeps its own behaviour.
    """
    if isinstance(pattern, HFSplit):
        return _split(onig_pattern(pattern), pattern.behavior, invert=pattern.invert)
    if pattern in _covering(specs):
        return _split(onig_pattern(pattern), "Isolated")
    return _split(onig_pattern(pattern), "Removed", invert=True)


_TRAILING_NORMALIZER = {
    "type": "Sequence",
    "normalizers": [
        {"type": "Replace", "pattern": {"Regex": WHITESPACE_RUN}, "content": " "},
        {"type": "Strip", "strip_left": True, "strip_right": True},
    ],
}


_POSSESSIVE_INTERVAL = re.compile(r"(\\p\{\w+\}|\\[A-Za-z]|\[(?:\\.|[^\]\\])*\]|[^\\()|?*+{])(\{\d+(?:,\d*)?\})\+")
_ATOMIC_INTERVAL = re.compile(r"\(\?>(\\p\{\w+\}|\\[A-Za-z]|\[(?:\\.|[^\]\\])*\]|[^\\()|?*+{])(\{\d+(?:,\d*)?\})\)")


def onig_pattern(pattern: str) -> str:
    """Rewrite a split pattern for Oniguruma, the regex engine of Hugging Face ``Split``.

    Python's ``regex`` (and tiktoken's fancy-regex) read ``X{1,3}+`` as a
    possessive interval; Oniguruma reads it as ``(?:X{1,3})+``, which would
    let cl100k's digit runs grow past three. The possessive interval is
    written as the atomic group ``(?>X{1,3})`` instead, which both engines read
    alike; :func:`python_pattern` undoes it on loading.
    """
    return _POSSESSIVE_INTERVAL.sub(r"(?>\1\2)", pattern)


def python_pattern(pattern: str) -> str:
    """Undo :func:`onig_pattern`: ``(?>X{1,3})`` -> ``X{1,3}+``, so cl100k's pattern loads back verbatim."""
    return _ATOMIC_INTERVAL.sub(r"\1\2+", pattern)


def hf_pre_tokenizer(
    spec: PreTokenizerSpec, pattern: str | None, byte: bool, specs: Specs = PRETOKENIZER_SPECS
) -> tuple[dict | None, dict | None]:
    """The ``(normalizer, pre_tokenizer)`` JSON blocks of ``tokenizer.json`` for a pre-tokenizer.

    Written from the spec's :attr:`~bpe_core.registry.pretokenizers.PreTokenizerSpec.hf` step (see the table in
    the module docstring), followed by ``ByteLevel(use_regex=false)`` for the byte unit.

    Args:
        spec: the pre-tokenizer.
        pattern: the tokenizer's split pattern (a regex spec's own, or a loaded override), else ``None``.
        byte: the vocabulary is byte level.
        specs: the registry (for the patterns written ``Isolated``).

    Returns:
        The normalizer (or ``None``) and the pre-tokenizer (or ``None`` for no step).
    """
    steps: list[dict] = []
    normalizer = None
    step = spec.hf
    if step is not None:
        if byte and step.byte_level_regex and type(pattern) is str and pattern == spec.pattern:
            return None, _byte_level(True)
        if step.normalizer:
            normalizer = _TRAILING_NORMALIZER
        if step.pattern is None:
            steps.append(_pattern_split(pattern or "", specs))
        else:
            steps.append(_split(step.pattern, step.behavior, regex=not step.literal))
    if byte:
        steps.append(_byte_level(False))
    if not steps:
        return normalizer, None
    if len(steps) == 1:
        return normalizer, steps[0]
    return normalizer, {"type": "Sequence", "pretokenizers": steps}


def _pre_tokenizer(tok: Tokenizer) -> tuple[dict | None, dict | None]:
    """``(normalizer, pre_tokenizer)`` for ``tok``'s settings."""
    return hf_pre_tokenizer(
        pretokenizer_spec(tok.pre_tokenizer.name), tok.pre_tokenizer.pattern, tok.model.table.byte_level
    )


def _decoder(tok: Tokenizer) -> dict:
    """A decoder giving ``tok.decode``'s text (``ByteLevel``, ``BPEDecoder`` for ``</w>``, ``Fuse``)."""
    steps: list[dict] = []
    if tok.model.table.byte_level:
        if tok.model.end_of_word == "attached":
            steps.append({"type": "Replace", "pattern": {"String": MARKER}, "content": "\u0120"})
        steps.append({"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True})
    else:
        if tok.model.fallback == "bytes":
            steps.append({"type": "ByteFallback"})
        if tok.model.end_of_word == "attached":
            steps.append({"type": "BPEDecoder", "suffix": MARKER})
        else:
            steps.append({"type": "Fuse"})
    return steps[0] if len(steps) == 1 else {"type": "Sequence", "decoders": steps}


def check_exportable(tok: Tokenizer) -> None:
    """Raise :class:`ExportError` for settings tokenizer.json cannot hold (see the module docstring)."""
    if tok.model.end_of_word == "separate":
        raise ExportError(
            "tokenizer.json's BPE model glues the end-of-word suffix to a word's last character "
            "(end_of_word_suffix); it cannot hold </w> as a separate symbol. Train with end_of_word='attached', "
            "or save a session file or subword-nmt codes (version 0.1) instead"
        )
    suffix_with_byte_fallback(tok, "tokenizer.json")


def to_hf_json(tok: Tokenizer) -> str:
    """Write ``tok`` as a Hugging Face ``tokenizer.json`` (BPE model), loadable by ``tokenizers.Tokenizer.from_str``.

    Returns:
        The JSON text (UTF-8, indented).

    Raises:
        ExportError: a separate ``</w>`` symbol, or two ids sharing a token string.
    """
    check_exportable(tok)
    vocab = unique_vocab(tok, "tokenizer.json")
    normalizer, pre = _pre_tokenizer(tok)
    added = [
        {
            "id": i,
            "content": s,
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": True,
        }
        for s, i in sorted(tok.model.table.special_ids.items(), key=lambda kv: kv[1])
    ]
    model = {
        "type": "BPE",
        "dropout": None,
        "unk_token": "<unk>" if not tok.model.table.byte_level and tok.model.fallback == "unk" else None,
        "continuing_subword_prefix": None,
        "end_of_word_suffix": MARKER if tok.model.end_of_word == "attached" else None,
        "fuse_unk": False,
        "byte_fallback": not tok.model.table.byte_level and tok.model.fallback == "bytes",
        "ignore_merges": False,
        "vocab": vocab,
        "merges": [[a, b] for a, b in tok.model.merges],
    }
    doc = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": normalizer,
        "pre_tokenizer": pre,
        "post_processor": None,
        "decoder": _decoder(tok),
        "model": model,
    }
    return json.dumps(doc, ensure_ascii=False, indent=1) + "\n"


# ---------------------------------------------------------------- loading


def _is(node: object, kind: str) -> bool:
    return isinstance(node, dict) and node.get("type") == kind


def _named(specs: Specs, wanted: Callable[[PreTokenizerSpec], bool]) -> str:
    """The name of the first spec that is ``wanted``."""
    return next(s.name for s in specs.values() if wanted(s))


def hf_step_spec(
    pattern: object, behavior: object, invert: object, normalizer: bool, specs: Specs = PRETOKENIZER_SPECS
) -> str | None:
    """The pre-tokenizer (without ``</w>``) whose fixed ``Split`` step is this one, or ``None``.

    Args:
        pattern: the step's ``pattern`` object (``{"Regex": ...}`` or ``{"String": ...}``).
        behavior, invert: the step's fields.
        normalizer: the whitespace normalizer comes before it.
        specs: the registry to recognise from.
    """
    for spec in specs.values():
        step = spec.hf
        if step is None or step.pattern is None or spec.end_of_word:
            continue
        written = {("String" if step.literal else "Regex"): step.pattern}
        if (pattern, behavior, not invert, normalizer) == (written, step.behavior, True, step.normalizer):
            return spec.name
    return None


def read_pre_tokenizer(
    pre: object, normalizer: object, source: str, specs: Specs = PRETOKENIZER_SPECS
) -> tuple[str, str, str | None]:
    """``(unit, pretokenizer, pattern)`` from ``tokenizer.json``'s pre-tokenizer and normalizer blocks.

    Recognises what :func:`hf_pre_tokenizer` writes for each spec of ``specs`` and Hugging Face's own
    ``WhitespaceSplit``; any other ``Split`` regex is kept as a pattern override (:func:`_read_split`).

    Raises:
        FormatError: an unsupported normalizer, pre-tokenizer step or combination (named).
    """
    expected = (
        "expected ByteLevel(add_prefix_space=false), Split(regex, Isolated) or Split(whitespace, Removed), "
        "optionally followed by ByteLevel(use_regex=false), as this package writes them"
    )
    steps = pre.get("pretokenizers") if _is(pre, "Sequence") else ([pre] if pre is not None else [])
    if not isinstance(steps, list):
        raise FormatError(f"{source}: the field 'pre_tokenizer.pretokenizers' must be a list")
    unit = "char"
    if steps and _is(steps[-1], "ByteLevel"):
        last = steps[-1]
        if last.get("add_prefix_space"):
            raise FormatError(
                f"{source}: pre_tokenizer ByteLevel has add_prefix_space=true (a space is added before the text); "
                "bpe_core does not add one, so ids would differ"
            )
        unit = "byte"
        steps = steps[:-1]
        if last.get("use_regex", True):
            if steps:
                raise FormatError(f"{source}: pre_tokenizer: ByteLevel(use_regex=true) after other steps; {expected}")
            return unit, _named(specs, lambda s: s.hf is not None and s.hf.byte_level_regex), None
    if normalizer is not None and normalizer != _TRAILING_NORMALIZER:
        kind = normalizer.get("type") if isinstance(normalizer, dict) else normalizer
        raise FormatError(f"{source}: the normalizer {quote(kind)} is not supported (it changes the text before BPE)")
    if not steps:
        if normalizer is not None:
            raise FormatError(f"{source}: a whitespace normalizer without its Split pre-tokenizer is not supported")
        return unit, _named(specs, lambda s: s.hf is None), None
    if len(steps) != 1:
        raise FormatError(f"{source}: pre_tokenizer has {len(steps)} steps; {expected}")
    step = steps[0]
    if _is(step, "WhitespaceSplit") and normalizer is None:  # Hugging Face's own spelling of the whitespace split
        return unit, hf_step_spec({"Regex": WHITESPACE_RUN}, "Removed", False, False, specs) or "whitespace", None
    if not _is(step, "Split"):
        kind = step.get("type") if isinstance(step, dict) else step
        raise FormatError(f"{source}: pre_tokenizer {quote(kind)} is not supported; {expected}")
    pattern = step.get("pattern")
    behavior = step.get("behavior")
    invert = step.get("invert", False)
    if normalizer is not None:
        if (name := hf_step_spec(pattern, behavior, invert, True, specs)) is not None:
            return unit, name, None
        raise FormatError(f"{source}: a whitespace normalizer needs Split(' ', MergedWithPrevious) after it")
    return (unit, *_read_split(pattern, behavior, invert, source, specs))


def _read_split(
    pattern: object, behavior: object, invert: object, source: str, specs: Specs = PRETOKENIZER_SPECS
) -> tuple[str, str | None]:
    """``(pretokenizer, pattern)`` for one Hugging Face ``Split`` step (every behaviour, ``invert``)."""
    if behavior not in SPLIT_BEHAVIORS:
        raise FormatError(
            f"{source}: pre_tokenizer Split has behavior {quote(behavior)}; expected one of: "
            f"{', '.join(SPLIT_BEHAVIORS)}"
        )
    if not isinstance(invert, bool):
        raise FormatError(f"{source}: pre_tokenizer Split's 'invert' must be true or false, got {quote(invert)}")
    if isinstance(pattern, dict) and len(pattern) == 1 and isinstance(pattern.get("String"), str):
        text = regex_escape(pattern["String"])
    elif isinstance(pattern, dict) and len(pattern) == 1 and isinstance(pattern.get("Regex"), str):
        text = python_pattern(pattern["Regex"])
    else:
        raise FormatError(f"{source}: pre_tokenizer Split needs a {{'Regex': ...}} or {{'String': ...}} pattern")
    if (name := hf_step_spec(pattern, behavior, invert, False, specs)) is not None:
        return name, None
    if (behavior == "Isolated" and not invert and text in _covering(specs)) or (behavior == "Removed" and invert):
        split: str = text  # a plain pattern keeps exactly its matches (tiktoken)
    else:
        split = HFSplit(text, behavior, invert)
    check_pattern(split, source, "pre_tokenizer.pattern.Regex")
    return pretokenizer_for_pattern(split, specs)


def _marked(pretokenizer: str, source: str) -> str:
    """The pre-tokenizer that adds ``</w>`` to the words ``pretokenizer`` cuts (same ``tokenizer.json`` step).

    Raises:
        FormatError: none does (the suffix goes with a whitespace split).
    """
    step = PRETOKENIZER_SPECS[pretokenizer].hf
    found = [s.name for s in PRETOKENIZER_SPECS.values() if s.end_of_word and s.hf == step]
    if not found:
        raise FormatError(
            f"{source}: end_of_word_suffix {MARKER!r} goes with a whitespace split in bpe_core; this file "
            f"uses the {pretokenizer} pre-tokenizer"
        )
    return found[0]


def load_hf_json(text: str | bytes, *, source: str = "tokenizer.json", name: str = "") -> Tokenizer:
    """Load a Hugging Face ``tokenizer.json`` BPE model with its ids.

    Reads the files :func:`to_hf_json` writes and GPT-2 style files from the
    Hugging Face hub (``ByteLevel`` with ``add_prefix_space=false``).

    Args:
        text: the file's contents.
        source: the file name, for messages.
        name: a label.

    Returns:
        A tokenizer merging by pair, with the file's ids.

    Raises:
        FormatError: invalid or truncated JSON (line and column), a model that
            is not BPE, a missing or mistyped field (named), an unsupported
            normalizer, pre-tokenizer or model option (dropout, a
            continuing-subword prefix, another suffix, ``ignore_merges``), a
            merge naming a token outside the vocabulary (``model.merges[k]``).
        MergeTableError: a byte-level vocabulary missing single bytes (listed).
    """
    doc = parse_json(decode_text(text, source), source)
    if not isinstance(doc, dict):
        raise FormatError(f"{source}: expected a JSON object with a 'model' field (Hugging Face tokenizer.json)")
    mtype = field(doc, "model.type", source, str)
    if mtype != "BPE":
        raise FormatError(f"{source}: the field 'model.type' is {quote(mtype)}; only BPE models can be loaded")
    vocab = field(doc, "model.vocab", source, dict)
    raw_merges = field(doc, "model.merges", source, list)
    suffix, unk = _check_model_options(doc["model"], source)
    merges = _read_merges(raw_merges, source)
    specials = _read_added_tokens(doc.get("added_tokens") or [], vocab, source)
    unit, pretokenizer, pattern = read_pre_tokenizer(doc.get("pre_tokenizer"), doc.get("normalizer"), source)
    end_of_word = None
    if suffix:
        pretokenizer, end_of_word = _marked(pretokenizer, source), "attached"
    full_vocab = dict(vocab)
    full_vocab.update(specials)
    fallback = None
    if not unit_kind(unit).byte_level:
        fallback = "unk" if unk else "bytes" if doc["model"].get("byte_fallback") else "keep"
    return tokenizer_from_vocab(
        full_vocab,
        merges,
        unit=unit,
        end_of_word=end_of_word,
        pretokenizer=pretokenizer,
        pattern=pattern,
        specials=list(specials),
        fallback=fallback,
        name=name,
        source=source,
        where=lambda k: f"model.merges[{k}]",
    )


def _check_model_options(model: dict, source: str) -> tuple[object, object]:
    """``(end_of_word_suffix, unk_token)`` of a BPE model, refusing the options bpe_core cannot follow.

    Raises:
        FormatError: dropout, a continuing-subword prefix, ``ignore_merges``, a
            suffix other than ``</w>``, an unknown token other than ``<unk>``, or ``fuse_unk``.
    """
    for key in ("dropout", "continuing_subword_prefix"):
        if model.get(key):
            raise FormatError(f"{source}: the field 'model.{key}' is {quote(model[key])}; bpe_core has no such option")
    if model.get("ignore_merges"):
        raise FormatError(
            f"{source}: the field 'model.ignore_merges' is true (whole words are looked up first); not supported"
        )
    suffix = model.get("end_of_word_suffix")
    if suffix not in (None, "", MARKER):
        raise FormatError(
            f"{source}: the field 'model.end_of_word_suffix' is {quote(suffix)}; only {MARKER!r} is supported"
        )
    unk = model.get("unk_token")
    if unk not in (None, "<unk>"):
        raise FormatError(f"{source}: the field 'model.unk_token' is {quote(unk)}; bpe_core's unknown token is '<unk>'")
    if unk and model.get("fuse_unk"):
        raise FormatError(f"{source}: the field 'model.fuse_unk' is true; bpe_core gives one <unk> per character")
    return suffix, unk


def _read_merges(raw_merges: list, source: str) -> list[tuple[str, str]]:
    """``model.merges`` as ``(left, right)`` pairs: each ``[left, right]`` or ``"left right"``.

    Raises:
        FormatError: an entry that is not two non-empty strings (``model.merges[k]``).
    """
    merges: list[tuple[str, str]] = []
    for k, item in enumerate(raw_merges):
        if isinstance(item, str):
            parts = item.split(" ")
        elif isinstance(item, list):
            parts = item
        else:
            parts = []
        if len(parts) != 2 or not all(isinstance(p, str) and p for p in parts):
            raise FormatError(
                f"{source}: model.merges[{k}] is {quote(item)}; expected [left, right] or the string 'left right'"
            )
        merges.append((parts[0], parts[1]))
    return merges


def _read_added_tokens(added: object, vocab: Mapping[str, object], source: str) -> dict[str, int]:
    """Special token -> id from ``added_tokens``, checked against ``model.vocab``.

    Raises:
        FormatError: not a list, an entry without content or a valid id, one
            that sets ``single_word``/``lstrip``/``rstrip``, or an id that
            ``model.vocab`` contradicts.
    """
    if not isinstance(added, list):
        raise FormatError(f"{source}: the field 'added_tokens' must be a list")
    specials: dict[str, int] = {}
    for k, entry in enumerate(added):
        if not isinstance(entry, dict) or not isinstance(entry.get("content"), str) or not entry["content"]:
            raise FormatError(f"{source}: added_tokens[{k}] needs a non-empty string 'content'")
        tid = entry.get("id")
        if isinstance(tid, bool) or not isinstance(tid, int) or tid < 0:
            raise FormatError(f"{source}: added_tokens[{k}].id must be a non-negative integer")
        for flag in ("single_word", "lstrip", "rstrip"):
            if entry.get(flag):
                raise FormatError(
                    f"{source}: added_tokens[{k}] ({quote(entry['content'])}) sets {flag}; bpe_core cuts special "
                    "tokens out exactly as written"
                )
        if entry["content"] in vocab and vocab[entry["content"]] != tid:
            raise FormatError(
                f"{source}: added_tokens[{k}] gives {quote(entry['content'])} id {tid}, but model.vocab gives "
                f"{vocab[entry['content']]}"
            )
        specials[entry["content"]] = tid
    return specials


def describe(tok: Tokenizer) -> str:
    """One line naming what :func:`to_hf_json` writes for ``tok`` (for the UI)."""
    return f"tokenizer.json (BPE model; {describe_settings(tok)})"

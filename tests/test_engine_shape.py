"""The engine's shape: a frozen tokenizer (same ids whatever came before, safe across threads),
explanations as pure functions, and bpe_core's imports (no cycle, no UI library)."""

from __future__ import annotations

import ast
import functools
import pickle
import threading
from pathlib import Path

import pytest

import bpe_core
from bpe_core import MergeModel, OptionError, PreTokenizer, Temporaries, Tokenizer, train
from bpe_core.encoding.explain import encode_trace, order_differences, round_trip
from bpe_core.encoding.merging import MERGE_ORDERS, ORDERS, merge_order
from bpe_core.text.spelling import FALLBACK_POLICIES, FALLBACKS, IdsWithTemporaries, fallback_policy

PACKAGE = Path(bpe_core.__file__).parent

TEXTS = ["gin", "ing tonic", "naïve café 🙂", "hug pug bug", "zzz qqq gin", "x</w> a</w>", "  spaced   out  "]


@pytest.fixture(scope="module")
def char_result():
    return train("hug pug bug hug hugs bugs", num_merges=6)


@pytest.fixture(scope="module")
def attached_result():
    return train("hug pug bug hug hugs bugs", num_merges=6, end_of_word="attached")


# ----------------------------------------------------------------- the example


def test_keep_ids_do_not_depend_on_what_was_encoded_before(char_result):
    """Issue 11: with ``keep``, ``encode("gin")`` used to change after ``encode("ing")``."""
    tok = train("hug pug bug hug", num_merges=4).tokenizer
    size = len(tok)
    first = tok.encode("gin")
    assert first == [1, size, size + 1, 5]  # g is known; i, n get temporary ids in order of meeting
    assert tok.encode("ing") == [size, size + 1, 1, 5]  # i, n again first met: the same numbers
    assert tok.encode("gin") == first and len(tok) == size and len(tok.model.vocab) == size
    assert tok.decode(first) == "gin"  # the returned list carries its temporary symbols
    assert isinstance(first, IdsWithTemporaries) and first.temporaries.ids() == range(size, size + 2)
    assert type(tok.encode("hug")) is list  # no temporary ids: a plain list


@pytest.mark.parametrize("fallback", sorted(FALLBACKS))
@pytest.mark.parametrize("which", ["separate", "attached"])
def test_encoding_is_the_same_before_and_after_other_texts(char_result, attached_result, fallback, which):
    base = (char_result if which == "separate" else attached_result).tokenizer.with_fallback(fallback)
    fresh = [base.with_fallback("bytes" if fallback != "bytes" else "unk").with_fallback(fallback) for _ in TEXTS]
    expected = [(tok.encode(t), tok.encode_with_trace(t), tok.round_trip(t)) for tok, t in zip(fresh, TEXTS)]
    for text in reversed(TEXTS):  # encode, trace and explain everything on the shared tokenizer first
        base.encode(text, order="sequential")
        base.encode_with_trace(text)
        base.order_differences(text)
    for text, (ids, trace, rt) in zip(TEXTS, expected):
        assert base.encode(text) == ids
        assert base.encode_with_trace(text) == trace
        assert base.round_trip(text) == rt
        assert base.encode_with_trace(text) == base.encode_with_trace(text)


def test_byte_level_encoding_is_the_same_before_and_after_other_texts():
    tok = train("hello world " * 5, num_merges=20, pretokenizer="gpt2", unit="byte").tokenizer
    fresh = [tok.with_fallback("unk") for _ in TEXTS]  # byte level: the same tokenizer, a separate model object
    expected = [(f.encode(t), f.encode_with_trace(t)) for f, t in zip(fresh, TEXTS)]
    for text in TEXTS:
        tok.encode(text)
    assert [(tok.encode(t), tok.encode_with_trace(t)) for t in TEXTS] == expected


def _encode_in_two_threads(tok: Tokenizer, texts: list[str]) -> list[list[list[int]]]:
    """Both threads start together (a barrier) and encode every text, one forwards, one backwards."""
    results: list[list[list[int]]] = [[], []]
    barrier = threading.Barrier(2)

    def work(slot: int) -> None:
        barrier.wait()
        order = texts if slot == 0 else texts[::-1]
        got = [tok.encode(t) for t in order]
        results[slot] = got if slot == 0 else got[::-1]

    threads = [threading.Thread(target=work, args=(slot,)) for slot in (0, 1)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return results


def test_two_threads_encoding_at_once_agree(char_result):
    tokenizers = [char_result.tokenizer.with_fallback(f) for f in sorted(FALLBACKS)]
    tokenizers.append(train("hello world naïve café " * 5, num_merges=30, pretokenizer="gpt2", unit="byte").tokenizer)
    texts = [f"{t} {k} {'é' * (k % 3)}{chr(0x4E00 + k)}" for k in range(300) for t in TEXTS[:3]]
    for tok in tokenizers:
        expected = [tok.with_fallback("bytes").with_fallback(tok.model.fallback).encode(t) for t in texts]
        assert _encode_in_two_threads(tok, texts) == [expected, expected]


# ----------------------------------------------------------------- frozen, hashable, picklable


def test_tokenizer_and_model_are_frozen_and_hashable(char_result):
    tok = char_result.tokenizer
    with pytest.raises(AttributeError, match="frozen"):
        tok.name = "other"  # type: ignore[misc]
    with pytest.raises(AttributeError, match="frozen"):
        tok.model.fallback = "unk"
    with pytest.raises(TypeError, match="frozen"):
        tok.model.table.strings.append("x")
    with pytest.raises(TypeError, match="frozen"):
        tok.model.table.add_token("x", b"x")
    twin = pickle.loads(pickle.dumps(tok))
    assert twin == tok and hash(twin) == hash(tok) and twin.encode("hugs bug") == tok.encode("hugs bug")
    assert {tok: 1}[twin] == 1
    assert tok.with_fallback("unk") != tok and tok.with_fallback("keep") is tok
    again = train("hug pug bug hug hugs bugs", num_merges=6).tokenizer
    assert again.model == tok.model and again.model is not tok.model  # same symbols, same rules: equal models


def test_swapping_the_pre_tokenizer_part(char_result):
    tok = char_result.tokenizer
    none = Tokenizer.from_parts(tok.model, PreTokenizer("none"), name="whole text")
    assert none.model is tok.model and none.pre_tokenizer.name == "none" and tok.pre_tokenizer.name == "whitespace_eow"
    assert none.tokenize("hug") == tok.tokenize("hug")
    assert none.tokenize("hug hug") == ["h", "ug", " ", "hug</w>"]  # one pre-token: the space is kept, unseen
    with pytest.raises(OptionError, match="pre-tokenizer"):
        PreTokenizer("words")


def test_merge_model_spells_with_explicit_temporaries():
    model: MergeModel = train("hug pug bug", num_merges=2).tokenizer.model  # h u g p b </w>, ug, ug</w>
    temporaries = Temporaries(len(model))
    spelled = model.spell("zhuz", temporaries)
    assert spelled[0] == spelled[3] == len(model) and temporaries.token(len(model)) == ("z", b"z", False)
    assert model.merge(spelled) == spelled == [8, 2, 4, 8, 5]  # z h u z </w>: no rule applies
    assert model.merge(model.spell("hug")) == [2, 7]  # h ug</w>
    assert len(model) == len(model.table) and "z" not in model.table.char_ids  # the model is unchanged
    assert model.spell("zz") == [len(model)] * 2 + [5]  # a fresh set of temporaries per call


# ----------------------------------------------------------------- modes are objects


def test_modes_are_objects_with_their_names():
    assert set(FALLBACKS) == set(FALLBACK_POLICIES) == {"keep", "unk", "bytes"}
    assert set(ORDERS) == set(MERGE_ORDERS) == {"rank", "sequential"}
    assert merge_order("sequential").sequential and not merge_order("rank").sequential
    assert fallback_policy("unk").kind == "unk" and fallback_policy("keep").kind == "kept"
    with pytest.raises(OptionError, match="order"):
        merge_order("random")
    with pytest.raises(OptionError, match="fallback"):
        fallback_policy("drop")
    from bpe_core.encoding.encoder import FALLBACKS as reexported_fallbacks
    from bpe_core.encoding.encoder import ORDERS as reexported_orders

    assert reexported_fallbacks is FALLBACKS and reexported_orders is ORDERS


def test_each_option_table_is_a_view_of_OPTIONS():
    """Issue 11, options in one place: every per-option table reads its values and descriptions
    from ``bpe_core.registry.options.OPTIONS`` (written once), and so do the mode objects' descriptions."""
    from bpe_core import END_OF_WORD, PRETOKENIZERS, TIE_BREAKS, UNITS
    from bpe_core.analysis.checking import TIE_RULES
    from bpe_core.registry.options import OPTIONS

    views = {
        "pretokenizer": PRETOKENIZERS,
        "unit": UNITS,
        "end_of_word": END_OF_WORD,
        "tie_break": TIE_BREAKS,
        "fallback": FALLBACKS,
        "order": ORDERS,
    }
    for name, view in views.items():
        assert view is OPTIONS[name].choices, name
    assert {name: p.description for name, p in FALLBACK_POLICIES.items()} == dict(FALLBACKS)
    assert {name: m.description for name, m in MERGE_ORDERS.items()} == dict(ORDERS)
    assert TIE_RULES == tuple(TIE_BREAKS)


MODE_NAMES = {"unit", "end_of_word", "eow", "fallback"}
"""Variables and attributes holding a unit, end-of-word style or fallback name."""


def _mode_comparisons(text: str) -> list[int]:
    """Lines comparing a unit, end-of-word or fallback name with a string (``unit == "byte"``)."""

    def named(node: ast.AST) -> bool:
        return (isinstance(node, ast.Name) and node.id in MODE_NAMES) or (
            isinstance(node, ast.Attribute) and node.attr in MODE_NAMES
        )

    def text_or_texts(node: ast.AST) -> bool:
        items = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]
        return any(isinstance(i, ast.Constant) and isinstance(i.value, str) for i in items)

    return [
        node.lineno
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.Compare)
        and any(named(side) for side in [node.left, *node.comparators])
        and any(text_or_texts(side) for side in [node.left, *node.comparators])
    ]


def test_engine_modes_are_objects_not_string_comparisons():
    """Issue 11: units, end-of-word styles and fallbacks are objects (``symbols.UNIT_KINDS``,
    ``MARKER_LAYOUTS``, ``spelling.FALLBACK_POLICIES``); the engine asks them instead of comparing
    names. The format writers, which translate those names into a file's own fields, are exempt."""
    engine = [p for p in sorted(PACKAGE.rglob("*.py")) if p.parent.name != "formats"]
    found = [f"{p.name}:{line}" for p in engine for line in _mode_comparisons(p.read_text(encoding="utf-8"))]
    assert found == []
    assert _mode_comparisons('if tok.model.unit == "byte" or eow in ("separate", "attached"):\n    pass\n') == [1, 1]


def test_explanations_are_pure_functions():
    tok = train("hug pug bug", num_merges=2).tokenizer
    assert encode_trace(tok, "hugs") == tok.encode_with_trace("hugs")
    assert round_trip(tok, "hugs  zq") == tok.round_trip("hugs  zq")
    assert order_differences(tok, "hugs") == tok.order_differences("hugs")
    piece = encode_trace(tok, "hugs").pieces[0]
    assert piece.token_bytes == (b"h", b"ug", b"s", b"") and piece.ends_word == (False, False, False, True)
    assert piece.kinds == ("", "", "temporary", "")


# ----------------------------------------------------------------- imports


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@functools.lru_cache(maxsize=1)
def _modules() -> frozenset[str]:
    return frozenset(_module_name(p) for p in PACKAGE.rglob("*.py"))


def _imports(path: Path, *, type_checking: bool = False) -> list[tuple[str, int]]:
    """``(absolute module name, line)`` of every import in a file, at any depth; those under
    ``if TYPE_CHECKING:`` (never run) only with ``type_checking=True``. ``from package import name``
    imports the submodule ``package.name`` when there is one, else ``package`` itself."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: list[tuple[str, int]] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test) and not type_checking:
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            out.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            module = (f"{base}.{node.module}" if node.module else base) if node.level else (node.module or "")
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                out.append((sub if sub in _modules() else module, node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return out


def _graph(*, type_checking: bool = False) -> dict[str, set[str]]:
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py")}  # (a few dozen files: parsed in well under 1 s)
    return {
        name: {
            target
            for target, _line in _imports(path, type_checking=type_checking)
            if target in files and target != name
        }
        for name, path in files.items()
    }


@pytest.mark.parametrize("type_checking", [False, True], ids=["run time", "on paper"])
def test_bpe_core_has_no_import_cycle(type_checking):
    """Module-level and function-level imports inside bpe_core form no cycle (a package's
    ``__init__`` counts only for what it imports itself, not as the parent of every submodule);
    nor do they with the imports under ``if TYPE_CHECKING:`` added (explain types against a
    protocol, not the Tokenizer class that calls it)."""
    graph = _graph(type_checking=type_checking)
    assert "bpe_core.encoding.encoder" in graph["bpe_core.training.trainer"]  # the walk sees imports inside functions
    assert "bpe_core.formats.gpt2" not in graph["bpe_core.encoding.encoder"]  # the cycle issue 11 names is gone
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = path[path.index(nxt) :] + [nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt)
        path.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)


def test_bpe_core_imports_no_ui_library():
    banned = {"streamlit", "pandas", "plotly"}
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line} imports {target}"
        for path in PACKAGE.rglob("*.py")
        for target, line in _imports(path)
        if target.split(".")[0] in banned
    ]
    assert found == []


# ----------------------------------------------------------------- layers

LAYERS: tuple[tuple[str, ...], ...] = (
    ("bpe_core.errors",),
    ("bpe_core.registry",),
    ("bpe_core.memory", "bpe_core.trace"),
    ("bpe_core.text",),
    ("bpe_core.encoding",),
    ("bpe_core.training",),
    ("bpe_core.analysis", "bpe_core.formats"),
    ("bpe_core", "bpe_core.__main__"),
)
"""Issue 20, bpe_core in sub-packages by concern, lowest first: errors; the registries (options,
pre-tokenizers, tie rules); what every layer shares (the memory budget, the plain trace records);
text to symbols and word counts; encoding (a merge table applied); training (which builds a
tokenizer, so sits above encoding); then analysis and the file formats side by side; the package
face and the CLI on top. A module imports its own unit (top-level module or sub-package) or units
of lower layers only."""


def _unit(module: str) -> str:
    """``bpe_core.text.symbols`` -> ``bpe_core.text``; a top-level module is its own unit."""
    return ".".join(module.split(".")[:2])


def test_every_module_has_a_layer():
    units = {unit for layer in LAYERS for unit in layer}
    assert sorted({_unit(m) for m in _modules()} - units) == [], "place these in LAYERS (a sub-package?)"


@pytest.mark.parametrize("type_checking", [False, True], ids=["run time", "on paper"])
def test_bpe_core_imports_only_downwards(type_checking):
    layer = {unit: k for k, units in enumerate(LAYERS) for unit in units}
    upward = [
        f"{name} -> {target}"
        for name, targets in sorted(_graph(type_checking=type_checking).items())
        for target in sorted(targets)
        if _unit(target) != _unit(name) and layer.get(_unit(target), -1) >= layer.get(_unit(name), -1)
    ]
    assert upward == []
    assert "bpe_core.text.symbols" in _graph()["bpe_core.encoding.model"]  # the walk sees cross-package imports


# ----------------------------------------------------------------- functions fit on one screen

MAX_FUNCTION_LINES = 60
"""Issue 11: no function in bpe_core over 60 lines (its docstring not counted), unless a comment
as the first line of its body says why (a hot loop kept inline for speed)."""


def _long_functions(text: str, where: str) -> list[str]:
    """``where:line name (n lines)`` of each function in a module's ``text`` longer than
    :data:`MAX_FUNCTION_LINES` without a comment saying why as the first line of its body."""
    lines = text.splitlines()
    found = []
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        size = node.end_lineno - node.lineno + 1  # type: ignore[operator]
        head = node.body[0]
        first = head.lineno  # the body's first line, past the signature and the docstring
        if isinstance(head, ast.Expr) and isinstance(head.value, ast.Constant) and isinstance(head.value.value, str):
            size -= head.end_lineno - head.lineno + 1  # type: ignore[operator]
            first = head.end_lineno + 1  # type: ignore[operator]
        if size > MAX_FUNCTION_LINES and not lines[first - 1].strip().startswith("#"):
            found.append(f"{where}:{node.lineno} {node.name} ({size} lines)")
    return found


def test_no_function_in_bpe_core_is_longer_than_one_screen():
    too_long = [
        f
        for path in sorted(PACKAGE.rglob("*.py"))
        for f in _long_functions(path.read_text(encoding="utf-8"), str(path.relative_to(PACKAGE.parent)))
    ]
    assert too_long == [], "split these into named helpers, or say why in a comment on the body's first line"


def test_the_length_check_counts_without_the_docstring_and_accepts_a_reason():
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    text = (
        f'def long():\n    """Docstring lines do not count."""\n{body}\n\n'
        f'def hot():\n    """Why."""\n    # hot loop: kept inline for speed\n{body}\n\n'
        f"def just_fits():\n{body[: body.rindex(chr(10))]}\n"
    )
    assert _long_functions(text, "probe.py") == [f"probe.py:1 long ({MAX_FUNCTION_LINES + 1} lines)"]

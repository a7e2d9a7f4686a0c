"""Page scripts show nothing by accident: Streamlit's "magic" writes every bare expression statement to the page.

Magic (``runner.magicEnabled``, on by default) turns a bare string literal into ``st.write`` at module level
and inside functions, ``with``, ``if``, loops and ``try``. It leaves alone the first statement of a function
(its docstring) and of the module (unless ``magic.displayRootDocString`` is set), and class bodies other than
their methods. A note meant for developers in a page script is a comment.
"""

from __future__ import annotations

import ast

import pytest

from .conftest import REPO

tomllib = pytest.importorskip("tomllib", reason="reading the app's .streamlit/config.toml needs Python 3.11+")

SCRIPTS = ["app.py", *sorted(p.relative_to(REPO).as_posix() for p in (REPO / "pages").glob("*.py"))]
BODIES = ("body", "orelse", "finalbody")


def magic_option(name: str, default: bool) -> bool:
    """A ``[section] option`` of the app's ``.streamlit/config.toml`` (``default`` when not set)."""
    path = REPO / ".streamlit" / "config.toml"
    config = tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    section, option = name.split(".")
    return bool(config.get(section, {}).get(option, default))


def docstring_exempt(parent: ast.AST, index: int) -> bool:
    """Whether a string as statement ``index`` of ``parent``'s body is a docstring magic does not show."""
    if index != 0:
        return False
    if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return True
    return isinstance(parent, ast.Module) and not magic_option("magic.displayRootDocString", False)


def shown_strings(source: str) -> list[tuple[int, str]]:
    """``(line, text)`` of every bare string literal (or f-string) statement magic would display."""
    found = []
    for parent in ast.walk(ast.parse(source)):
        blocks = [getattr(parent, attr, None) for attr in BODIES]
        for index, node in ((i, n) for body in blocks if isinstance(body, list) for i, n in enumerate(body)):
            value = node.value if isinstance(node, ast.Expr) else None
            literal = isinstance(value, ast.JoinedStr) or (
                isinstance(value, ast.Constant) and isinstance(value.value, str)
            )
            if literal and not (node in parent.body and docstring_exempt(parent, index)):
                found.append((node.lineno, ast.unparse(node)[:60]))
    return found


def test_the_walk_finds_what_magic_shows():
    source = (
        '"""module docstring"""\nX = 1\n"""note under X"""\n'
        'def f():\n    """doc"""\n    f"shown {X}"\n'
        'with open("x") as h:\n    "in a with"\n'
        'class C:\n    """class doc"""\n'
        'if X:\n    pass\nelse:\n    "in an else"\n'
    )
    assert [line for line, _ in shown_strings(source)] == [3, 6, 8, 14]


@pytest.mark.skipif(not magic_option("runner.magicEnabled", True), reason="magic is off in .streamlit/config.toml")
@pytest.mark.parametrize("script", SCRIPTS)
def test_no_page_script_shows_a_bare_string(script):
    assert shown_strings((REPO / script).read_text(encoding="utf-8")) == []

"""The page layout: app.py is Train, pages/*.py the others, each starting with ui.layout.setup_page."""

from __future__ import annotations

import ast
import json

import pytest
from streamlit.testing.v1 import AppTest

from ui import presentation, state
from ui.layout import PAGES, setup_page

from .conftest import APP_TIMEOUT, REPO

APP = str(REPO / "app.py")


def _first_call(path) -> str:
    """The name of the function the page script calls first (its first statement that is a call)."""
    tree = ast.parse((REPO / path).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            func = node.value.func
            return func.id if isinstance(func, ast.Name) else ast.unparse(func)
    return ""


def test_every_page_script_is_in_the_navigation_and_starts_with_the_set_up():
    scripts = {"app.py", *(f"pages/{p.name}" for p in (REPO / "pages").glob("*.py"))}
    assert scripts == {p.path for p in PAGES}
    assert [p.title for p in PAGES[:4]] == ["Train", "Encode", "Compare", "Lessons"]
    for page in PAGES:
        assert _first_call(page.path) == "setup_page", page.path


def test_config_hides_streamlit_s_own_page_list():
    assert "showSidebarNavigation = false" in (REPO / ".streamlit" / "config.toml").read_text()


def test_unknown_page_title_is_refused():
    with pytest.raises(KeyError, match="no page titled"):
        setup_page("Nowhere")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.title)
def test_each_page_draws_the_navigation(page):
    at = AppTest.from_file(APP, default_timeout=APP_TIMEOUT)
    if page.path != "app.py":
        at.switch_page(page.path)
    at.run()
    assert not at.exception
    links = at.get("page_link")
    assert [link.proto.label for link in links[: len(PAGES)]] == [p.title for p in PAGES]
    assert [link.proto.icon for link in links[: len(PAGES)]] == [p.icon for p in PAGES]
    has_sidebar = any(b.label == "Train" for b in at.sidebar.button)
    assert has_sidebar == (page.title != "Lessons")  # Lessons do not use the training sidebar
    top = [e.proto for e in at.get("bidi_component") if e.proto.component_name == "bpe_explorer.page_top"]
    assert [json.loads(p.json) for p in top] == [page.title]  # opens at its top when the tab came from another page
    assert f".st-key-{state.PAGE_TOP}{{display:none}}" in presentation.BASE_CSS  # and takes no room


def test_settings_and_pasted_text_survive_a_visit_to_lessons():
    at = AppTest.from_file(APP, default_timeout=APP_TIMEOUT).run()
    at.sidebar.selectbox(key=state.PRETOKENIZER).set_value("gpt2")
    next(b for b in at.button if b.label == "Train").click()
    at.run()
    at.switch_page("pages/lessons.py").run()
    assert not at.exception
    at.switch_page("app.py").run()
    assert at.sidebar.selectbox(key=state.PRETOKENIZER).value == "gpt2"
    assert at.subheader[0].value.startswith("Merge 1 of 200 (rank 0): “·” + “t”")
    at.sidebar.button_group(key=state.SOURCE).set_value("Paste").run()
    at.sidebar.text_area(key=state.PASTE).input("low lower lowest " * 30)
    next(b for b in at.button if b.label == "Train").click()
    at.run()
    at.switch_page("pages/lessons.py").run()
    at.switch_page("app.py").run()
    assert at.sidebar.text_area(key=state.PASTE).value == "low lower lowest " * 30
    assert "pasted text" in at.sidebar.caption[-1].value

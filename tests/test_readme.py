"""The README keeps exactly two set-up commands, and CI runs its test command verbatim."""

from __future__ import annotations

import re

from .conftest import REPO


def setup_commands() -> list[str]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", section, flags=re.S)]


def test_two_setup_commands():
    commands = setup_commands()
    assert len(commands) == 2
    assert all("\n" not in c for c in commands)
    assert "streamlit run app.py" in commands[0] and "requirements.txt" in commands[0]
    assert "pytest" in commands[1] and "requirements-dev.txt" in commands[1]


def test_ci_runs_the_readme_test_command():
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert setup_commands()[1] in ci.splitlines()
    assert "apt-get install" in ci and "chromium" in ci


def test_every_import_is_a_declared_dependency():
    """Third-party modules imported by the app and tests must be listed in the requirements files."""
    declared = (REPO / "requirements.txt").read_text() + (REPO / "requirements-dev.txt").read_text()
    names = {"regex", "streamlit", "plotly", "pandas", "pytest", "hypothesis", "playwright", "tiktoken", "tokenizers"}
    for name in names:
        assert re.search(rf"^{name}\b", declared, flags=re.M), name
    assert re.search(r"^subword-nmt\b", declared, flags=re.M)

"""The README keeps exactly two set-up commands, and CI runs its test command verbatim."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
from pathlib import Path

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


def pins() -> dict[str, str]:
    """``constraints.txt``: normalised distribution name -> the exact version pinned."""
    found = {}
    for line in (REPO / "constraints.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, sep, version = line.partition("==")
            assert sep and version and not re.search(r"[<>=!~;\[ ]", name + version), f"not an exact pin: {line!r}"
            found[_normal(name)] = version
    return found


def test_every_install_uses_the_pinned_versions():
    """Both README commands and every install in .ci/run take constraints.txt, which pins every declared package."""
    assert all(" -c constraints.txt " in command for command in setup_commands())
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    installs = [line for line in ci.splitlines() if "pip install" in line]
    assert installs and all(" -c constraints.txt" in line for line in installs)
    assert declared_distributions() <= set(pins())


def test_the_tests_run_on_the_pinned_versions():
    """What is installed is what constraints.txt pins (install with the README's test command if this fails)."""
    installed = {}
    for name in pins():
        try:
            installed[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            installed[name] = None
    assert {n: (v, installed[n]) for n, v in pins().items() if installed[n] != v} == {}


SKIP_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__", ".pytest_cache", ".ruff_cache"}


def python_files() -> list[Path]:
    """Every Python file of the project (app, engine, tests, benchmarks, docs scripts)."""
    return sorted(p for p in REPO.rglob("*.py") if not SKIP_DIRS & set(p.relative_to(REPO).parts) and p.is_file())


def imported_modules(source: str) -> set[str]:
    """The top-level names of every absolute import in ``source``, at any depth (functions included)."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def declared_distributions() -> set[str]:
    """Distribution names listed in requirements.txt and requirements-dev.txt (normalised, PEP 503)."""
    names = set()
    for file in ("requirements.txt", "requirements-dev.txt"):
        for line in (REPO / file).read_text(encoding="utf-8").splitlines():
            line = line.split("#", 1)[0].strip()
            if line and not line.startswith("-"):
                names.add(_normal(re.split(r"[<>=!~\[; ]", line, maxsplit=1)[0]))
    return names


def undeclared(modules: set[str]) -> dict[str, str]:
    """Third-party ``modules`` whose distribution is not declared: module -> why."""
    local = {p.name for p in REPO.iterdir() if p.is_dir()} | {p.stem for p in REPO.glob("*.py")}
    providers = importlib.metadata.packages_distributions()
    declared = declared_distributions()
    missing = {}
    for module in sorted(modules - local - set(sys.stdlib_module_names) - {"__future__"}):
        dists = providers.get(module)
        if not dists:
            missing[module] = "no installed distribution provides it"
        elif not {_normal(d) for d in dists} & declared:
            missing[module] = f"provided by {', '.join(sorted(set(dists)))}, not in requirements*.txt"
    return missing


def test_every_import_is_a_declared_dependency():
    """Every third-party module the code imports (read with ``ast``) comes from a declared distribution."""
    modules = set()
    for path in python_files():
        modules |= imported_modules(path.read_text(encoding="utf-8"))
    assert {"regex", "streamlit", "plotly", "pandas", "pytest", "tiktoken", "subword_nmt"} <= modules
    assert undeclared(modules) == {}


def test_an_undeclared_import_is_caught():
    """The check reads real imports: one hidden in a function, or from a package not listed, fails it."""
    source = (
        "import os\nfrom bpe_core import train\n\ndef f():\n    import scipy.linalg\n    from yaml import safe_load\n"
    )
    modules = imported_modules(source)
    assert modules == {"os", "bpe_core", "scipy", "yaml"}
    missing = undeclared(modules)
    assert set(missing) == {"scipy", "yaml"}  # os: standard library; bpe_core: this project

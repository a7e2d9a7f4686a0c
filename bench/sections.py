"""Sections of ``bench/RESULTS.md`` written by other scripts than :mod:`bench.run`.

``bench.run`` regenerates the report whole; :mod:`bench.scaling` writes only its
``## Scaling`` section (:func:`write_section`), and ``bench.run`` carries such
sections over when it rewrites the file (:func:`keep_sections`).
"""

from __future__ import annotations

from pathlib import Path

SCALING = "## Scaling"
"""The heading of the section :mod:`bench.scaling` writes."""
CLASS = "## A class on one server"
"""The heading of the section :mod:`bench.class_load` writes."""
BROWSER_STEP = "## Step change in the browser"
"""The heading of the section :mod:`bench.browser_step` writes (one subsection per setting measured)."""
SUITE = "## The test suite"
"""The heading of the section holding the README's test command's times (written by hand from the runs)."""
RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
"""The benchmark report."""
KEPT = (SCALING, CLASS, BROWSER_STEP, SUITE)
"""Sections ``bench.run`` keeps from the file it replaces."""


def _bounds(text: str, heading: str) -> tuple[int, int] | None:
    """Where the section under ``heading`` starts and ends (the next ``## `` heading, or the end)."""
    lines = text.splitlines(keepends=True)
    start = None
    offset = 0
    for line in lines:
        if start is None and line.rstrip("\n") == heading:
            start = offset
        elif start is not None and line.startswith("## "):
            return start, offset
        offset += len(line)
    return None if start is None else (start, len(text))


def read_section(text: str, heading: str) -> str | None:
    """The section under ``heading``, heading included, or ``None`` if the text has none."""
    bounds = _bounds(text, heading)
    return None if bounds is None else text[bounds[0] : bounds[1]]


def replace_section(text: str, heading: str, section: str) -> str:
    """``text`` with its section under ``heading`` replaced by ``section`` (which starts with the heading).

    A text without that section gets it at the end. Everything else is kept byte for byte.
    """
    section = section.rstrip("\n") + "\n"
    bounds = _bounds(text, heading)
    if bounds is None:
        return (text.rstrip("\n") + "\n\n" if text.strip() else "") + section
    start, end = bounds
    rest = text[end:]
    return text[:start] + section + ("\n" + rest if rest else "")


def write_section(path: Path, heading: str, section: str) -> None:
    """Replace (or add) one section of the markdown file at ``path``, creating the file if absent."""
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    path.write_text(replace_section(old, heading, section), encoding="utf-8")


def write_lines(path: Path, heading: str, title: str, command: str, lines: list[str]) -> None:
    """Write (or replace) the subsection ``### title`` of the section under ``heading`` in the markdown file at
    ``path``: the command that measured, the machine (CPU model, load average) and ``lines`` as a list.

    Other subsections of that section are kept, so runs with different settings sit side by side.
    """
    from .measure import load_average, machine_facts  # measure imports heavy modules; only --write needs it

    facts = machine_facts()
    body = [
        f"### {title}",
        "",
        f"`{command}` on {facts['date']}, {facts['cpu']}, {facts['cores']}, commit {facts['commit']}, "
        f"load average {load_average()} (1/5/15 min) when written.",
        "",
        *(f"- {line}" for line in lines),
        "",
    ]
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    subsections = _subsections(read_section(old, heading) or heading)
    subsections[title] = "\n".join(body).rstrip("\n")
    write_section(path, heading, "\n\n".join([heading, *subsections.values()]))


def _subsections(section: str) -> dict[str, str]:
    """The ``### `` subsections of a section (title -> text, heading included), in order; text before the
    first one (the section's heading) is dropped."""
    out: dict[str, str] = {}
    title = None
    for line in section.splitlines():
        if line.startswith("### "):
            title = line[4:].strip()
            out[title] = ""
        if title is not None:
            out[title] += line + "\n"
    return {k: v.rstrip("\n") for k, v in out.items()}


def keep_sections(old_path: Path, new_text: str, headings: tuple[str, ...] = KEPT) -> str:
    """``new_text`` with the sections of the file at ``old_path`` under ``headings`` carried over."""
    if not old_path.exists():
        return new_text
    old = old_path.read_text(encoding="utf-8")
    for heading in headings:
        section = read_section(old, heading)
        if section is not None and read_section(new_text, heading) is None:
            new_text = replace_section(new_text, heading, section)
    return new_text

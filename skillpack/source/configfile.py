"""Where a project's configuration is: ``skillpack.toml``, or ``pyproject.toml`` with a
``[tool.skillpack]`` table, at or above a directory. Found without importing the
configuration's reader (:mod:`skillpack.source.config`): a command that only needs to
know whether there is one (``install`` in a project with only its lock) starts faster.
"""

from __future__ import annotations

from pathlib import Path

CONFIG_FILE = "skillpack.toml"
PYPROJECT = "pyproject.toml"


def has_tool_table(pyproject: Path) -> bool:
    """Whether ``pyproject`` has a ``[tool.skillpack]`` table."""
    try:
        text = pyproject.read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    if "skillpack" not in text:  # cheap pre-check before parsing
        return False
    import tomllib  # only when there is a file to parse (start-up)

    try:
        return "skillpack" in tomllib.loads(text).get("tool", {})
    except tomllib.TOMLDecodeError:
        return False


def find_config(start: Path) -> Path | None:
    """The nearest configuration file at or above ``start``."""
    start = start.resolve()
    if start.is_file():
        start = start.parent
    for directory in (start, *start.parents):
        candidate = directory / CONFIG_FILE
        if candidate.is_file():
            return candidate
        pyproject = directory / PYPROJECT
        if pyproject.is_file() and has_tool_table(pyproject):
            return pyproject
    return None

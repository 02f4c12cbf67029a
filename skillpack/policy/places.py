"""Where policy files are: the user's and a project's (``pathlib`` only, so that
``serve`` can learn whether there is any policy without reading one)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

#: the environment variable naming the user's policy file
ENV = "SKILLPACK_POLICY"
#: a project's policy file, at its root
PROJECT_FILE = "skillpack-policy.toml"


def user_policy(environ: Mapping[str, str]) -> Path | None:
    """The user's policy file: ``$SKILLPACK_POLICY`` (whether or not it exists: naming
    one that does not is an error when it is read), else
    ``$XDG_CONFIG_HOME/skillpack/policy.toml`` or ``~/.config/skillpack/policy.toml``
    when that file exists; else None."""
    if environ.get(ENV):
        return Path(environ[ENV])
    base = Path(environ["XDG_CONFIG_HOME"]) if environ.get("XDG_CONFIG_HOME") else None
    if base is None and environ.get("HOME"):
        base = Path(environ["HOME"]) / ".config"
    if base is None:
        return None
    path = base / "skillpack" / "policy.toml"
    return path if path.is_file() else None


def project_of(start: Path) -> Path | None:
    """The project holding ``start`` for pull and serve: the nearest directory with a
    ``skillpack-policy.toml``, ``skillpack.toml`` or ``pyproject.toml``; None if none."""
    for directory in (start, *start.parents):
        if any((directory / name).is_file() for name in (PROJECT_FILE, "skillpack.toml",
                                                          "pyproject.toml")):  # fmt: skip
            return directory
    return None

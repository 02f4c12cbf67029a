"""Where policy files are: the user's and the projects' (``pathlib`` only, so that
``serve`` can learn whether there is any policy without reading one)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

#: the environment variable naming the user's policy file
ENV = "SKILLPACK_POLICY"
#: a project's policy file, in any directory from the working directory up to the
#: repository's root
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


def project_policies(starts: Path | Iterable[Path]) -> list[Path]:
    """Every ``skillpack-policy.toml`` in force from ``starts`` (the working directory;
    for install also its project's directory): each directory from a start up to its
    repository's root (the nearest directory holding ``.git``, a directory or a
    worktree's file) or, outside a repository, the filesystem's root. A project's
    policy can only tighten, so every one found applies: a monorepo's root policy
    holds in each of its subprojects. Outermost first, each file once."""
    found: list[Path] = []
    for start in [starts] if isinstance(starts, Path) else starts:
        chain: list[Path] = []
        start = start.absolute()
        for directory in (start, *start.parents):
            policy = directory / PROJECT_FILE
            if policy.is_file():
                chain.append(policy)
            if (directory / ".git").exists():
                break
        found += [path for path in reversed(chain) if path not in found]
    return found

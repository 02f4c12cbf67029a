"""Where skillpack may write: the output policy, checked before any work.

* The configured outputs (``lock``, ``[build] output``) stay inside the project
  directory and out of every skill: :mod:`skillpack.source.config` refuses anything else
  when it loads the configuration (``CFG030``, ``CFG031``).
* What skillpack writes is never published (:func:`skillpack.source.discovery.is_project_output`).
* A configured output replaces only a file of its own kind, a lock skillpack wrote or a
  bundle, or creates a new one (:func:`refuse_foreign`, ``CFG032``); the kinds are
  recognised by the lock and bundle formats, which pass their test in.
* ``-o`` is the user's choice, anywhere, but never a path inside a skill of the tree
  being built or linted (:func:`refuse_inside_skills`, ``OUT004``), unless it is one of
  the project's outputs.

How a file is written once allowed is :class:`skillpack._internal.fsutil.Output`'s.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path

from skillpack._internal.fsutil import STDOUT
from skillpack.errors import ConfigError, Location, SkillpackError, display_path
from skillpack.source.config import Config
from skillpack.source.discovery import SourceSkill, is_project_output, is_within

#: whether an existing regular file is a file of the expected kind (a lock, a bundle)
KindTest = Callable[[Path], bool]


def refuse_foreign(
    config: Config, key: str, path: Path, kind: str = "", owned: KindTest | None = None
) -> None:
    """``CFG032`` unless the configured output ``path`` (of configuration key ``key``)
    is absent or is what skillpack would replace: a regular file passing ``owned`` (a
    ``kind``: "lock", "bundle"), or without ``owned`` a directory (the output directory)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        found = f"cannot be examined ({exc.strerror})"
    else:
        if owned is None:
            if stat.S_ISDIR(mode):
                return
            found = "is not a directory"
        elif not stat.S_ISREG(mode):
            found = "is a directory" if stat.S_ISDIR(mode) else "is not a regular file"
        elif owned(path):
            return
        else:
            found = f"is not a {kind} skillpack wrote"
    prefix = "tool.skillpack." if config.source and config.source.name == "pyproject.toml" else ""
    raise ConfigError(
        "CFG032",
        f"configuration key '{prefix}{key}': {display_path(path)} {found}: skillpack replaces "
        f"only its own outputs",
        Location(config.source_display),
        hint=f"fix '{prefix}{key}', or move {display_path(path)} away if skillpack should "
        "write there",
    )


def refuse_inside_skills(
    config: Config, skills: Iterable[SourceSkill], paths: Iterable[Path], option: str = "-o"
) -> None:
    """``OUT004`` when one of ``paths`` (what ``option`` makes a command write) lies inside
    one of ``skills``, as given or with symlinks resolved, and is not one of the project's
    outputs (the lock, a bundle or signature in the output directory)."""
    skills = list(skills)
    for given in paths:
        if str(given) == STDOUT:
            continue
        for path in (Path(os.path.abspath(given)), Path(os.path.realpath(given))):
            if is_project_output(config, path):
                continue
            holders = [s for s in skills if is_within(path, s.directory)]
            if holders:
                holder = max(holders, key=lambda s: len(str(s.directory)))
                raise SkillpackError(
                    "OUT004",
                    f"{option} {display_path(given)} is inside the skill '{holder.skill_path}': "
                    "its files are never written by skillpack",
                    hint="write it outside every skill directory (bundles may go in the "
                    f"output directory, {display_path(config.output_dir)})",
                )

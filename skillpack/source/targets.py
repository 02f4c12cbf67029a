"""The skills a command such as ``lint PATH...`` or ``fmt PATH...`` works on.

Paths may be files or directories. The configuration is the one above the first path
(or ``--config``). Without a configuration file, one directory given is the project
directory (as for ``lock`` and ``build``); otherwise (file names from a pre-commit run,
several paths) it is the git work tree holding the paths, so that the run sees the whole
repository, else the deepest directory holding them all.
The whole tree is always discovered (checks such as duplicate names compare against it),
and the skills the paths touch are selected.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from skillpack.errors import EXIT_FINDINGS, Location, SkillpackError, missing_path
from skillpack.source.config import Config, default_config, resolve_config
from skillpack.source.discovery import (
    SourceSkill,
    SourceTree,
    discover,
    is_within,
    select,
    where_searched,
)


@dataclass(frozen=True)
class Targets:
    config: Config
    tree: SourceTree
    skills: list[SourceSkill]
    paths: tuple[Path, ...]  #: the paths given, absolute; empty for "the whole tree"


def _default_project_dir(paths: Sequence[Path]) -> Path:
    """Without a configuration file: the one directory given; else the git work tree
    holding the paths (a pre-commit run sees the whole repository), else the deepest
    directory holding them all."""
    if len(paths) == 1 and paths[0].is_dir():
        return paths[0]
    dirs = [p if p.is_dir() else p.parent for p in paths]
    common = Path(os.path.commonpath([str(d) for d in dirs]))
    for directory in (common, *common.parents):
        if (directory / ".git").exists():
            return directory
    return common


def resolve_targets(paths: Sequence[Path] = (), config_file: Path | None = None) -> Targets:
    """Configuration, discovered tree and selected skills for ``paths``."""
    absolute = tuple(Path(p).absolute() for p in paths)
    for given, path in zip(paths, absolute, strict=True):
        if not path.exists() and not path.is_symlink():
            raise missing_path(given)
    config = resolve_config(absolute, config_file)
    if config.source is None and absolute:
        config = default_config(_default_project_dir(absolute))
    # only the selected skills' files are collected; the rest of the tree is only searched
    # for skills (duplicate names and path collisions compare against all of them)
    tree = discover(config, within=absolute or None)
    return Targets(config, tree, select(tree, absolute), absolute)


def owned_skills(targets: Targets) -> list[SourceSkill]:
    """The skills the paths name directly: for a path inside a skill, the innermost skill
    holding it (not the skills enclosing that one); for a directory, every skill under it.
    ``fmt`` rewrites these skills' SKILL.md, and only these."""
    if not targets.paths:
        return list(targets.skills)
    wanted: set[str] = set()
    for path in (p.resolve() for p in targets.paths):
        holders = [s for s in targets.skills if is_within(path, s.directory)]
        if holders:
            wanted.add(max(holders, key=lambda s: len(s.directory.parts)).skill_path)
        wanted.update(
            s.skill_path
            for s in targets.skills
            if s.directory != path and is_within(s.directory, path)
        )
    return [s for s in targets.skills if s.skill_path in wanted]


#: a lint run that found no skill at all (a finding: exit 1, like a lint error)
NO_SKILLS = "LNT001"


def no_skills_found(tree: SourceTree) -> SkillpackError:
    """The error of a lint run over a tree without a single skill, saying where it
    looked: a tree that checks nothing must not pass (a pre-commit hook would pass every
    commit). Exit 1."""
    where, searched = where_searched(tree)
    return SkillpackError(
        NO_SKILLS,
        f"no skill found in {where} (a skill is a directory holding SKILL.md)",
        Location(tree.config.source_display) if tree.config.source else None,
        hint="put each skill in a directory of its own (skills/<name>/SKILL.md, "
        ".claude/skills/<name>/SKILL.md...) or set 'roots' in skillpack.toml",
        exit_code=EXIT_FINDINGS,
        details=searched,
    )

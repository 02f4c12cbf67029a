"""The lint gate ``build`` and ``serve DIR`` apply before they publish a tree.

One pass per skill: each skill is linted and then, in the same (worker) process, its
manifest entry is built from the ``SKILL.md`` bytes and frontmatter the checks already
read and parsed, so no ``SKILL.md`` is parsed twice. The entries are still made by
:mod:`skillpack.manifest` (the one producer of digests), merged in skill order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from .discovery import SourceSkill, SourceTree
from .errors import SkillpackError
from .lint.catalog import ERROR
from .lint.context import SkillContext
from .lint.engine import lint_collecting
from .lint.finding import Finding
from .lint.selection import LintOptions
from .manifest import Manifest, SkillEntry, build_manifest, try_skill_entry


def gated_manifest(
    tree: SourceTree,
    skills: Iterable[SourceSkill] | None = None,
    *,
    lint: bool = True,
    refuse: Callable[[list[Finding]], SkillpackError],
) -> Manifest:
    """The manifest of ``skills`` (default: all of ``tree``) once they pass lint with the
    rule selection of the tree's configuration; ``refuse(errors)`` is raised when
    findings at error severity remain. ``lint=False`` skips the gate."""
    chosen = list(tree.skills if skills is None else skills)
    if not lint:
        return build_manifest(tree, chosen)
    digests: dict[Path, tuple[str, int]] = {}

    def entry_of(ctx: SkillContext) -> SkillEntry | None:
        raw, frontmatter = ctx.raw, ctx.frontmatter
        if isinstance(raw, OSError) or frontmatter is None:
            return None  # build_manifest reports it
        return try_skill_entry(ctx.skill, digests, (raw, frontmatter.data))

    result, prepared = lint_collecting(
        tree, chosen, LintOptions.from_config(tree.config), collect=entry_of
    )
    errors = [f for f in result.findings if f.severity == ERROR]
    if errors:
        raise refuse(errors)
    return build_manifest(tree, chosen, prepared=prepared)

"""The lint gate ``build`` and ``serve DIR`` apply before they publish a tree.

One pass per skill: each skill is linted and then, in the same (worker) process, its
manifest entry is built from the bytes and frontmatter the checks already read and
parsed, so no file is read and no ``SKILL.md`` parsed twice. The entries are still
made by :mod:`skillpack.manifest` (the one producer of digests), merged in skill order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from skillpack.errors import SkillpackError
from skillpack.lint.catalog import ERROR
from skillpack.lint.context import SkillContext
from skillpack.lint.engine import lint_collecting
from skillpack.lint.finding import Finding
from skillpack.lint.selection import LintOptions
from skillpack.manifest import Manifest
from skillpack.source.discovery import SourceSkill, SourceTree
from skillpack.source.entries import PreparedSkill, SkillHook, prepare_manifest, prepare_skill


def gated_prepare(
    tree: SourceTree,
    skills: Iterable[SourceSkill] | None = None,
    *,
    lint: bool = True,
    refuse: Callable[[list[Finding]], SkillpackError],
    hook: SkillHook | None = None,
    jobs: int | None = None,
) -> tuple[Manifest, list[Any]]:
    """The manifest of ``skills`` (default: all of ``tree``) once they pass lint with the
    rule selection of the tree's configuration, and ``hook``'s product for each skill
    (see :func:`~skillpack.source.entries.prepare_manifest`); ``refuse(errors)`` is raised
    when findings at error severity remain. ``lint=False`` skips the gate. ``jobs``:
    processes sharing the skills (default: :func:`~skillpack._internal.parallel.default_jobs`)."""
    chosen = list(tree.skills if skills is None else skills)
    if not lint:
        return prepare_manifest(tree, chosen, hook=hook, jobs=jobs)
    digests: dict[Path, tuple[str, int]] = {}

    def prepared_of(ctx: SkillContext) -> PreparedSkill | None:
        raw, frontmatter = ctx.raw, ctx.frontmatter
        if isinstance(raw, OSError) or frontmatter is None:
            return None  # prepare_manifest reports it
        return prepare_skill(ctx.skill, digests, (raw, frontmatter.data), read=ctx.read, hook=hook)

    result, prepared = lint_collecting(
        tree, chosen, LintOptions.from_config(tree.config), jobs=jobs, collect=prepared_of
    )
    errors = [f for f in result.findings if f.severity == ERROR]
    if errors:
        raise refuse(errors)
    return prepare_manifest(tree, chosen, prepared=prepared, hook=hook)


def gated_manifest(
    tree: SourceTree,
    skills: Iterable[SourceSkill] | None = None,
    *,
    lint: bool = True,
    refuse: Callable[[list[Finding]], SkillpackError],
) -> Manifest:
    """:func:`gated_prepare` without a hook."""
    return gated_prepare(tree, skills, lint=lint, refuse=refuse)[0]

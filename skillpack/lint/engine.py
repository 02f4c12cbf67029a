"""The lint engine: runs the enabled checks over a source tree (or some of its skills)."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from skillpack._internal.parallel import default_jobs, map_ranges
from skillpack.lint.catalog import ERROR, INFO, WARNING
from skillpack.lint.checks import load
from skillpack.lint.checks.registry import Check
from skillpack.lint.context import RunContext, SkillContext
from skillpack.lint.finding import Finding
from skillpack.lint.selection import LintOptions
from skillpack.source.discovery import SourceSkill, SourceTree

T = TypeVar("T")


@dataclass(frozen=True)
class LintResult:
    """Findings sorted by path, line, column and code, each at its effective severity."""

    findings: tuple[Finding, ...]
    skills: int  #: skills checked
    files: int  #: distinct published files of those skills

    def count(self, severity: str) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    @property
    def errors(self) -> int:
        return self.count(ERROR)

    @property
    def warnings(self) -> int:
        return self.count(WARNING)

    @property
    def infos(self) -> int:
        return self.count(INFO)

    @property
    def fixable(self) -> int:
        return sum(1 for f in self.findings if f.fixable)

    def statistics(self) -> list[tuple[str, int]]:
        """(code, count), most frequent first, then by code."""
        counts = Counter(f.code for f in self.findings)
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def lint(
    tree: SourceTree,
    skills: Iterable[SourceSkill] | None = None,
    options: LintOptions | None = None,
    paths: Sequence[Path] | None = None,
    jobs: int | None = None,
) -> LintResult:
    """Lint ``skills`` (default: every skill of ``tree``).

    Tree-wide checks (duplicate names, path collisions between skills) compare against
    every skill of ``tree`` but report only on the skills linted. ``paths``, when given,
    limits findings about entries outside any skill (a miscased ``skill.md``) to those
    paths. ``jobs`` worker processes share the per-skill checks (default:
    :func:`~skillpack._internal.parallel.default_jobs`); the result is the same for any number.
    """
    return lint_collecting(tree, skills, options, paths, jobs)[0]


def lint_collecting(
    tree: SourceTree,
    skills: Iterable[SourceSkill] | None = None,
    options: LintOptions | None = None,
    paths: Sequence[Path] | None = None,
    jobs: int | None = None,
    collect: Callable[[SkillContext], T] | None = None,
) -> tuple[LintResult, list[T]]:
    """:func:`lint`, and ``collect(ctx)`` of each linted skill once its checks ran, in
    the same (worker) process, so what the checks read and parsed is read once; the
    collected values in skill order (none without ``collect``)."""
    options = options or LintOptions()
    selected = list(tree.skills if skills is None else skills)
    run = RunContext(
        tree,
        selected,
        options,
        tuple(Path(p).resolve() for p in paths) if paths is not None else None,
    )
    skill_checks, tree_checks = load()
    wanted_skill = [c for c in skill_checks if c.wanted(options.enabled)]
    wanted_tree = [c for c in tree_checks if c.wanted(options.enabled)]
    jobs = default_jobs(len(selected)) if jobs is None else jobs

    def check_range(start: int, stop: int) -> tuple[list[Finding], list[T]]:
        return _check_skills(run, wanted_skill, start, stop, collect)

    raw: list[Finding] = []
    collected: list[T] = []
    for findings, values in map_ranges(check_range, len(selected), jobs):
        raw += findings
        collected += values
    for tree_check in wanted_tree:
        raw.extend(tree_check.run(run))
    result = LintResult(
        _finish(raw, options),
        len(selected),
        len({f.path for skill in selected for f in skill.files}),
    )
    return result, collected


def _check_skills(
    run: RunContext,
    checks: list[Check[SkillContext]],
    start: int,
    stop: int,
    collect: Callable[[SkillContext], T] | None,
) -> tuple[list[Finding], list[T]]:
    """The findings of ``checks`` on ``run.selected[start:stop]``, and what ``collect``
    gives for each of those skills."""
    raw: list[Finding] = []
    collected: list[T] = []
    for skill in run.selected[start:stop]:
        ctx = SkillContext(run, skill)
        for check in checks:
            raw.extend(check.run(ctx))
        if collect is not None:
            collected.append(collect(ctx))
    return raw, collected


def _finish(raw: Iterable[Finding], options: LintOptions) -> tuple[Finding, ...]:
    """Enabled, not ignored for their path, one per place, at their severity, sorted."""
    out: dict[tuple[str, int, int, str], Finding] = {}
    for finding in raw:
        if finding.code not in options.enabled or options.ignored_at(finding.code, finding.path):
            continue
        key = finding.sort_key()
        if key not in out:  # nested skills see their files twice: keep the first report
            out[key] = dataclasses.replace(finding, severity=options.severity_of(finding.code))
    return tuple(out[key] for key in sorted(out))

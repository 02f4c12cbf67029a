"""The lint engine: runs the enabled checks over a source tree (or some of its skills)."""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..discovery import SourceSkill, SourceTree
from .catalog import ERROR, INFO, WARNING
from .checks import Check, load
from .context import RunContext, SkillContext
from .finding import Finding
from .selection import LintOptions


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


#: below this many skills a run stays in one process (forking costs more than it saves)
PARALLEL_MIN_SKILLS = 200


def default_jobs(skills: int) -> int:
    """Worker processes for linting ``skills`` skills: ``SKILLPACK_JOBS`` when set, else
    one per CPU (at most 4) for large runs on Linux, where fork() makes workers cheap;
    else 1."""
    import os
    import sys

    configured = os.environ.get("SKILLPACK_JOBS", "")
    if configured.isdigit() and int(configured) >= 1:
        return int(configured)
    if skills < PARALLEL_MIN_SKILLS or sys.platform != "linux":
        return 1
    return max(1, min(4, os.cpu_count() or 1))


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
    :func:`default_jobs`); the result is the same for any number.
    """
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
    if jobs > 1 and len(selected) > 1:
        raw = _check_skills_in_workers(run, wanted_skill, min(jobs, len(selected)))
    else:
        raw = _check_skills(run, wanted_skill, 0, len(selected))
    for tree_check in wanted_tree:
        raw.extend(tree_check.run(run))
    return LintResult(
        _finish(raw, options),
        len(selected),
        len({f.path for skill in selected for f in skill.files}),
    )


def _check_skills(
    run: RunContext, checks: list[Check[SkillContext]], start: int, stop: int
) -> list[Finding]:
    """The findings of ``checks`` on ``run.selected[start:stop]``."""
    raw: list[Finding] = []
    for skill in run.selected[start:stop]:
        ctx = SkillContext(run, skill)
        for check in checks:
            raw.extend(check.run(ctx))
    return raw


# what forked workers inherit: (run, checks), set just before the pool forks
_FORKED: tuple[RunContext, list[Check[SkillContext]]] | None = None


def _check_range(bounds: tuple[int, int]) -> list[Finding]:
    assert _FORKED is not None
    run, checks = _FORKED
    return _check_skills(run, checks, *bounds)


def _check_skills_in_workers(
    run: RunContext, checks: list[Check[SkillContext]], jobs: int
) -> list[Finding]:
    """Split the skills into ``jobs`` contiguous ranges (nested skills stay next to their
    parents) and check them in forked workers; findings come back in skill order."""
    global _FORKED
    import multiprocessing

    count = len(run.selected)
    edges = [count * i // jobs for i in range(jobs + 1)]
    _FORKED = (run, checks)
    try:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            parts = pool.map(_check_range, list(itertools.pairwise(edges)))
    finally:
        _FORKED = None
    return [finding for part in parts for finding in part]


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


def lint_errors(tree: SourceTree, skills: Iterable[SourceSkill] | None = None) -> list[Finding]:
    """The gate ``build`` and ``serve DIR`` apply: the findings at error severity, with
    the rule selection of the tree's configuration."""
    result = lint(tree, skills, LintOptions.from_config(tree.config))
    return [f for f in result.findings if f.severity == ERROR]

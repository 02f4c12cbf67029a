"""The lint engine: runs the enabled checks over a source tree (or some of its skills)."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..discovery import SourceSkill, SourceTree
from .catalog import ERROR, INFO, WARNING
from .checks import load
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


def lint(
    tree: SourceTree,
    skills: Iterable[SourceSkill] | None = None,
    options: LintOptions | None = None,
    paths: Sequence[Path] | None = None,
) -> LintResult:
    """Lint ``skills`` (default: every skill of ``tree``).

    Tree-wide checks (duplicate names, path collisions between skills) compare against
    every skill of ``tree`` but report only on the skills linted. ``paths``, when given,
    limits findings about entries outside any skill (a miscased ``skill.md``) to those
    paths.
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
    raw: list[Finding] = []
    for skill in selected:
        ctx = SkillContext(run, skill)
        for check in wanted_skill:
            raw.extend(check.run(ctx))
    for tree_check in wanted_tree:
        raw.extend(tree_check.run(run))
    return LintResult(
        _finish(raw, options),
        len(selected),
        len({f.path for skill in selected for f in skill.files}),
    )


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

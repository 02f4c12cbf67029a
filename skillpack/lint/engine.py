"""The lint engine: the enabled checks of one run, applied to one skill at a time, and the
run's result."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from skillpack.lint.catalog import ERROR, INFO, WARNING
from skillpack.lint.checks import load
from skillpack.lint.checks.registry import Check
from skillpack.lint.context import RunContext, SkillContext
from skillpack.lint.finding import Finding
from skillpack.lint.selection import LintOptions
from skillpack.source.discovery import SourceSkill, SourceTree


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

    @classmethod
    def of(
        cls, found: Iterable[Finding], options: LintOptions, skills: int, files: int
    ) -> LintResult:
        """The result of findings made outside a run (a bundle's scan): the enabled ones,
        not ignored for their path, at their effective severity, sorted."""
        return cls(_finish(found, options), skills, files)

    def statistics(self) -> list[tuple[str, int]]:
        """(code, count), most frequent first, then by code."""
        counts = Counter(f.code for f in self.findings)
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


@dataclass(frozen=True)
class LintRun:
    """One lint run: the tree, the skills linted, the options, and the checks they
    enable. Made once; each skill is checked by :meth:`check_skill` (in whichever
    process has it: forked workers inherit the run), and :meth:`result` makes the run's
    result from every skill's findings. The pass that checks every skill, shared by
    forked workers on large trees, is :func:`skillpack.build.pipeline.lint_tree`."""

    context: RunContext
    skill_checks: tuple[Check[SkillContext], ...]
    tree_checks: tuple[Check[RunContext], ...]

    @classmethod
    def start(
        cls,
        tree: SourceTree,
        skills: Iterable[SourceSkill] | None = None,
        options: LintOptions | None = None,
        paths: Sequence[Path] | None = None,
    ) -> LintRun:
        """The run over ``skills`` (default: every skill of ``tree``).

        Tree-wide checks (duplicate names, path collisions between skills) compare
        against every skill of ``tree`` but report only on the skills linted. ``paths``,
        when given, limits findings about entries outside any skill (a miscased
        ``skill.md``) to those paths."""
        options = options or LintOptions()
        context = RunContext(
            tree,
            list(tree.skills if skills is None else skills),
            options,
            tuple(Path(p).resolve() for p in paths) if paths is not None else None,
        )
        skill_checks, tree_checks = load()
        return cls(
            context,
            tuple(c for c in skill_checks if c.wanted(options.enabled)),
            tuple(c for c in tree_checks if c.wanted(options.enabled)),
        )

    @property
    def skills(self) -> list[SourceSkill]:
        """The skills linted, in order."""
        return self.context.selected

    def check_skill(self, skill: SourceSkill) -> tuple[list[Finding], SkillContext]:
        """The findings of the per-skill checks on ``skill`` (before :meth:`result`
        selects them and sets their severities), and the context they read it through:
        its files' bytes and its parsed ``SKILL.md``, for whatever the caller does next."""
        ctx = SkillContext(self.context, skill)
        found: list[Finding] = []
        for check in self.skill_checks:
            found.extend(check.run(ctx))
        return found, ctx

    def prepare(self) -> None:
        """Make now what each process of a pass would otherwise make for itself at its
        start: the content scan's expressions, when its rules are enabled. A pass calls
        it before it forks its workers (:func:`skillpack.scan.prepare`)."""
        from skillpack.lint.checks.scan import SCAN_CODES

        if not self.context.options.enabled.isdisjoint(SCAN_CODES):
            from skillpack.scan import prepare

            prepare()

    def tree_findings(self) -> list[Finding]:
        """The findings of the tree-wide checks (they need every skill discovered, not
        the per-skill checks' results: a pass may run them beside its workers)."""
        found: list[Finding] = []
        for check in self.tree_checks:
            found.extend(check.run(self.context))
        return found

    def result(self, found: Iterable[Finding], tree: Iterable[Finding] | None = None) -> LintResult:
        """The run's result from the findings :meth:`check_skill` gave for its skills (in
        skill order), with the tree-wide checks' findings (``tree``: as
        :meth:`tree_findings` made them, else made here): the enabled ones, not ignored
        for their path, one per place, at their effective severity, sorted."""
        raw = list(found)
        raw.extend(self.tree_findings() if tree is None else tree)
        selected = self.context.selected
        return LintResult(_finish(raw, self.context.options), len(selected), _files(selected))


def _files(skills: Sequence[SourceSkill]) -> int:
    """The distinct files of ``skills``: a nested skill's are its parent's too, so when
    one is nested they are told apart by their path strings (making the strings of the
    paths another process walked costs 5 ms a 1,000-skill tree)."""
    if all(skill.parent is None for skill in skills):
        return sum(len(skill.files) for skill in skills)
    return len({f.where for skill in skills for f in skill.files})


def _finish(raw: Iterable[Finding], options: LintOptions) -> tuple[Finding, ...]:
    """Enabled, not ignored for their path, one per place, at their severity, sorted; a
    structural rule the selection asked to switch off says that it cannot be."""
    out: dict[tuple[str, int, int, str], Finding] = {}
    for finding in raw:
        if finding.code not in options.enabled or options.ignored_at(finding.code, finding.path):
            continue
        key = finding.sort_key()
        if key in out:  # nested skills see their files twice: keep the first report
            continue
        hint = finding.hint
        if options.overruled(finding.code, finding.path):
            note = CANNOT_IGNORE.format(code=finding.code)
            hint = f"{hint} ({note})" if hint else note
        severity = ERROR if finding.raised else options.severity_of(finding.code)
        out[key] = dataclasses.replace(finding, severity=severity, hint=hint)
    return tuple(out[key] for key in sorted(out))


#: the note on a structural finding the rule selection asked to switch off
CANNOT_IGNORE = "{code} cannot be ignored: build and lock refuse it whatever the rule selection"

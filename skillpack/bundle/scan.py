"""The content scan (:mod:`skillpack.scan`) over a verified bundle's files, without
unpacking or installing it: for ``skillpack lint BUNDLE.skp`` and ``inspect``.

A file is shown as ``BUNDLE!skill/path`` (its entry in the archive after the ``!``).
Files shared by nested skills are scanned once, under the outermost skill.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from skillpack.bundle.reader import Bundle
from skillpack.lint.catalog import RULES
from skillpack.lint.checks.scan import raised
from skillpack.lint.engine import LintResult
from skillpack.lint.finding import Finding
from skillpack.lint.selection import LintOptions
from skillpack.scan import ScanFinding, scan_file


@dataclass(frozen=True, slots=True)
class BundleFinding:
    """A scan finding in one file of a bundle."""

    skill: str  #: the skill path
    path: str  #: the file's path in the skill
    finding: ScanFinding

    @property
    def entry(self) -> str:
        """The file's entry name in the archive."""
        return f"{self.skill}/{self.path}"


def scan_bundle(bundle: Bundle) -> list[BundleFinding]:
    """The content scan's findings in every file of ``bundle`` (each read verified),
    sorted by entry, line, column and code."""
    seen: set[str] = set()
    found: list[BundleFinding] = []
    for skill in bundle.manifest.skills:
        for f in skill.files:
            entry = f"{skill.skill_path}/{f.path}"
            if entry in seen:
                continue
            seen.add(entry)
            data = bundle.read_verified(f)
            found.extend(
                BundleFinding(skill.skill_path, f.path, s) for s in scan_file(f.path, data)
            )
    found.sort(key=lambda b: (b.entry, *b.finding.sort_key()))
    return found


def lint_bundles(
    scanned: Iterable[tuple[str, Bundle, list[BundleFinding]]], options: LintOptions
) -> LintResult:
    """The lint result of bundles' scans: (shown path, bundle, findings) -> findings at
    ``BUNDLE!skill/path``, selected and at their severity by ``options``."""
    raw: list[Finding] = []
    skills = files = 0
    for shown, bundle, findings in scanned:
        skills += len(bundle.manifest.skills)
        files += bundle.manifest.file_count
        for b in findings:
            raw.append(
                Finding(
                    b.finding.code,
                    b.finding.message,
                    Path(f"{shown}!{b.entry}"),
                    b.finding.line,
                    b.finding.column,
                    RULES[b.finding.code].fix,
                    b.skill,
                    raised=raised(b.finding),
                )
            )
    return LintResult.of(raw, options, skills, files)

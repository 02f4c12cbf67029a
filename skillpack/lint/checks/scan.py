"""SP5xx: the content scan (:mod:`skillpack.scan`) as lint findings.

The scan runs inside :func:`skillpack.lint.checks.files.contents`, on the bytes that
check reads for the secrets rule (SP305): each published file is read once for both.
"""

from __future__ import annotations

from collections.abc import Iterator

from skillpack.lint.catalog import RULES
from skillpack.lint.context import SkillContext
from skillpack.lint.finding import Finding
from skillpack.scan import CODES, scan_file
from skillpack.source.discovery import SourceFile

#: the lint codes of the content scan
SCAN_CODES: tuple[str, ...] = tuple(sorted(CODES))


def scan_findings(ctx: SkillContext, f: SourceFile, data: bytes) -> Iterator[Finding]:
    """The content scan's findings in one of the skill's files, as lint findings."""
    for found in scan_file(f.rel, data):
        yield ctx.finding(
            found.code, found.message, f.path, found.line, found.column, RULES[found.code].fix
        )

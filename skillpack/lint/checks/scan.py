"""SP5xx: the content scan (:mod:`skillpack.scan`) as lint findings.

The scan runs inside :func:`skillpack.lint.checks.files.contents`, on the bytes that
check reads for the secrets rule (SP305): each published file is read once for both.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from skillpack.lint.catalog import ERROR, RULES
from skillpack.lint.context import SkillContext
from skillpack.lint.finding import Finding
from skillpack.scan import CODES, FIXABLE_CODES, ScanFinding, scan_file
from skillpack.scan.textfile import fixable_positions
from skillpack.source.discovery import SourceFile

#: the hint of a finding of a fixable rule that ``--fix`` does not remove
_BY_HAND = (
    "Remove it by hand: `skillpack lint --fix` removes invisible characters, not the "
    "escapes that write them nor a NUL byte (which may belong to the file's encoding). "
    "If you did not put it there, treat the file as hostile."
)

#: the lint codes of the content scan
SCAN_CODES: tuple[str, ...] = tuple(sorted(CODES))


def raised(found: ScanFinding) -> bool:
    """Whether the scan raised ``found`` to an error beyond its rule's severity (a
    warning's phrase found only once the characters that hid it were undone)."""
    return found.severity == ERROR and RULES[found.code].severity != ERROR


def scan_findings(ctx: SkillContext, f: SourceFile, data: bytes) -> Iterator[Finding]:
    """The content scan's findings in one of the skill's files, as lint findings; a
    finding of a fixable rule that ``--fix`` does not remove is marked ``manual``, and one
    the scan raised to an error (found only once what hid it was undone) ``raised``, so
    that lint reports it as install and serve judge it."""
    fixable: set[tuple[int, int]] | None = None
    for found in scan_file(f.rel, data):
        finding = ctx.finding(
            found.code, found.message, f.path, found.line, found.column, RULES[found.code].fix
        )
        if raised(found):
            finding = replace(finding, raised=True)  # an evasion: install refuses it too
        if found.code in FIXABLE_CODES:
            if fixable is None:
                fixable = fixable_positions(f.rel, data)
            if (found.line, found.column) not in fixable:
                finding = replace(finding, manual=True, hint=_BY_HAND)
        yield finding

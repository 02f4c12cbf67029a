"""The content scan: hidden characters, directives hidden from the reader and dangerous
commands in a skill's files, as plain functions over bytes (standard library only).

Lint's rules (:mod:`skillpack.lint.checks.scan`) and the consumer side (install, pull,
serve) both call it::

    from skillpack.scan import scan_file
    for finding in scan_file("SKILL.md", data):
        print(finding.line, finding.column, finding.code, finding.message)

Submodules: :mod:`.model` (the finding), :mod:`.hidden` (invisible characters),
:mod:`.directives` (comments, override phrases, exfiltrating URLs), :mod:`.commands`
(download or decode and execute, reverse shells, credential theft, load-time shell),
with :mod:`.shell` (a logical line read as a shell reads it), :mod:`.programs` (the
command names it knows), :mod:`.actions` (what one command does), :mod:`.flows` (what
flows between commands), :mod:`.hosts` (installers, suspect hosts) and :mod:`.secrets`
(credential stores),
:mod:`.markdown` (Markdown's code and blocks, as CommonMark renders them),
:mod:`.views` (the text as a reader reads it: a finding only a view shows is an
evasion), :mod:`.text` (the markers' prefilter), :mod:`.engine` (which rules apply to
which file, in one pass) and :mod:`.textfile` (how a file's bytes read as text, and
``lint --fix`` writes them back).
"""

from __future__ import annotations

from skillpack.scan.engine import (
    CODES,
    FIXABLE_CODES,
    is_markdown,
    prepare,
    scan_file,
    strip_hidden,
)
from skillpack.scan.model import ERROR, WARNING, ScanFinding

__all__ = [
    "CODES",
    "ERROR",
    "FIXABLE_CODES",
    "WARNING",
    "ScanFinding",
    "is_markdown",
    "prepare",
    "scan_file",
    "strip_hidden",
]

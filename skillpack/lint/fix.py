"""``skillpack lint --fix``: apply the safe fixes of the enabled fixable rules.

The fixes are :mod:`skillpack.lint.fmt`'s normalizations of ``SKILL.md``, restricted to the
rules enabled: SP013 (quote ambiguous values), SP405 (LF line endings), SP406 (no BOM)
and SP407 (a final newline); and, in any published text file, the removal of the hidden
characters SP501-SP504 report (:func:`skillpack.scan.strip_hidden`: never visible text).
Files are rewritten atomically, keeping their permissions.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from skillpack._internal.fsutil import write_if_changed
from skillpack.lint.catalog import FIXABLE
from skillpack.lint.engine import LintResult
from skillpack.lint.fmt import FormatOptions, format_skill_md
from skillpack.lint.selection import LintOptions
from skillpack.scan import FIXABLE_CODES, strip_hidden


def apply_fixes(result: LintResult, options: LintOptions) -> list[Path]:
    """Fix the files with fixable findings; return the files rewritten."""
    codes = FIXABLE & options.enabled
    if not codes:
        return []
    format_options = FormatOptions.for_rules(codes)
    found: dict[Path, set[str]] = {}
    for finding in result.findings:
        if finding.code in codes:
            found.setdefault(finding.path, set()).add(finding.code)
    written: list[Path] = []
    for path in sorted(found):
        try:
            data = path.read_bytes()
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except OSError:
            continue  # reported as SP306 by the next lint
        hidden = found[path] & FIXABLE_CODES
        if hidden:
            try:
                data = strip_hidden(data.decode("utf-8"), hidden).encode("utf-8")
            except UnicodeDecodeError:
                continue  # changed since the lint: the next lint tells
        if found[path] - FIXABLE_CODES:
            data = format_skill_md(data, format_options).data
        if write_if_changed(path, data, mode, what=f"the fixed {path.name}"):
            written.append(path)
    return written

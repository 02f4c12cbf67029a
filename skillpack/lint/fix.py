"""``skillpack lint --fix``: apply the safe fixes of the enabled fixable rules.

The fixes are :mod:`skillpack.lint.fmt`'s normalizations, restricted to the rules enabled:
SP013 (quote ambiguous values), SP405 (LF line endings), SP406 (no BOM) and SP407 (a
final newline). Files are rewritten atomically, keeping their permissions.
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


def apply_fixes(result: LintResult, options: LintOptions) -> list[Path]:
    """Fix the files with fixable findings; return the files rewritten."""
    codes = FIXABLE & options.enabled
    if not codes:
        return []
    format_options = FormatOptions.for_rules(codes)
    targets = sorted({f.path for f in result.findings if f.code in codes})
    written: list[Path] = []
    for path in targets:
        try:
            data = path.read_bytes()
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except OSError:
            continue  # reported as SP306 by the next lint
        formatted = format_skill_md(data, format_options)
        if write_if_changed(path, formatted.data, mode, what="the fixed SKILL.md"):
            written.append(path)
    return written

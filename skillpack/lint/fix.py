"""``skillpack lint --fix``: apply the safe fixes of the enabled fixable rules.

The fixes are :mod:`skillpack.lint.fmt`'s normalizations of ``SKILL.md``, restricted to the
rules enabled: SP013 (quote ambiguous values), SP405 (LF line endings), SP406 (no BOM)
and SP407 (a final newline); and, in any published text file, the removal of the hidden
characters SP501-SP504 report (:func:`skillpack.scan.textfile.fix_bytes`: never visible
text, in the file's own encoding, every other byte kept). A finding ``--fix`` does not
remove (a hidden character written as an escape, a NUL) is not fixable (``manual``).
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
from skillpack.scan import FIXABLE_CODES
from skillpack.scan.textfile import fix_bytes


def apply_fixes(result: LintResult, options: LintOptions) -> list[Path]:
    """Fix the files with fixable findings; return the files rewritten."""
    codes = FIXABLE & options.enabled
    if not codes:
        return []
    format_options = FormatOptions.for_rules(codes)
    found: dict[Path, set[str]] = {}
    for finding in result.findings:
        if finding.code in codes and not finding.manual:
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
            # in the file's own encoding (UTF-16 too), bytes that are not UTF-8 kept
            fixed = fix_bytes(path.name, data, hidden)
            data = data if fixed is None else fixed
        if found[path] - FIXABLE_CODES:
            data = format_skill_md(data, format_options).data
        if write_if_changed(path, data, mode, what=f"the fixed {path.name}"):
            written.append(path)
    return written

"""``skillpack lint``: the rule catalog, the checks and the engine that runs them.

The library API the CLI is a thin layer over::

    from skillpack.lint import LintOptions, lint
    result = lint(tree, skills, LintOptions.from_config(config))
    for finding in result.findings: ...

Submodules: :mod:`.catalog` (every rule, its code, severity and documentation),
:mod:`.selection` (``select``/``ignore``/severity/per-path ignores), :mod:`.checks`
(the checks, one module per rule group), :mod:`.engine` (runs them) and
:mod:`.reporters` (text, json, sarif and github output).
"""

from __future__ import annotations

from skillpack.lint.catalog import RULES, Rule, rule_for
from skillpack.lint.engine import LintResult, lint, lint_collecting
from skillpack.lint.finding import Finding
from skillpack.lint.selection import LintOptions

__all__ = [
    "RULES",
    "Finding",
    "LintOptions",
    "LintResult",
    "Rule",
    "lint",
    "lint_collecting",
    "rule_for",
]

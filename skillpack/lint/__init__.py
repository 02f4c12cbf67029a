"""``skillpack lint``: the rule catalog, the checks and the engine that runs them.

The engine checks one skill at a time (:class:`LintRun`); the pass over a tree's skills,
shared by forked workers on large trees and shared with the lock and the build, is
:func:`skillpack.build.pipeline.lint_tree`, which the CLI is a thin layer over::

    from skillpack.build.pipeline import lint_tree
    from skillpack.lint import LintOptions
    result = lint_tree(tree, skills, LintOptions.from_config(config))
    for finding in result.findings: ...

Submodules: :mod:`.catalog` (every rule, its code, severity and documentation),
:mod:`.selection` (``select``/``ignore``/severity/per-path ignores), :mod:`.checks`
(the checks, one module per rule group), :mod:`.engine` (runs them) and
:mod:`.reporters` (text, json, sarif and github output).
"""

from __future__ import annotations

from skillpack.lint.catalog import RULES, Rule, rule_for
from skillpack.lint.engine import LintResult, LintRun
from skillpack.lint.finding import Finding
from skillpack.lint.selection import LintOptions

__all__ = [
    "RULES",
    "Finding",
    "LintOptions",
    "LintResult",
    "LintRun",
    "Rule",
    "rule_for",
]

"""The checks, grouped by module: :mod:`.fields` (SP0xx, SP1xx), :mod:`.paths` (SP2xx),
:mod:`.files` (SP3xx), :mod:`.body` (SP4xx) and :mod:`.manifests` (SP6xx); each
registers itself with :mod:`.registry`.
"""

from __future__ import annotations

from skillpack.lint.checks.registry import SKILL_CHECKS, TREE_CHECKS, Check
from skillpack.lint.context import RunContext, SkillContext


def load() -> tuple[list[Check[SkillContext]], list[Check[RunContext]]]:
    """Every registered check (importing the check modules registers them)."""
    from skillpack.lint.checks import body, fields, files, manifests, paths  # noqa: F401

    return SKILL_CHECKS, TREE_CHECKS

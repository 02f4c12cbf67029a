"""The registry of lint checks.

A check is a function registered with the codes it may report, so the engine runs only
the checks that can report an enabled rule. Skill checks see one skill at a time; tree
checks see the whole run (the tree and the skills selected).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

from skillpack.lint.catalog import RULES
from skillpack.lint.context import RunContext, SkillContext
from skillpack.lint.finding import Finding

C = TypeVar("C", SkillContext, RunContext)
CheckFunc = Callable[[C], Iterable[Finding]]


@dataclass(frozen=True)
class Check(Generic[C]):
    codes: frozenset[str]
    run: CheckFunc[C]

    def wanted(self, enabled: frozenset[str]) -> bool:
        return not self.codes.isdisjoint(enabled)


SKILL_CHECKS: list[Check[SkillContext]] = []
TREE_CHECKS: list[Check[RunContext]] = []


def _codes(codes: tuple[str, ...]) -> frozenset[str]:
    unknown = [c for c in codes if c not in RULES]
    if unknown:  # a programming error: every code a check reports is in the catalog
        raise ValueError(f"checks report codes missing from the catalog: {unknown}")
    return frozenset(codes)


def _registrar(registry: list[Check[C]]) -> Callable[..., Callable[[CheckFunc[C]], CheckFunc[C]]]:
    def decorator(*codes: str) -> Callable[[CheckFunc[C]], CheckFunc[C]]:
        def register(func: CheckFunc[C]) -> CheckFunc[C]:
            registry.append(Check(_codes(codes), func))
            return func

        return register

    return decorator


#: ``@skill_check("SP101", ...)`` registers a per-skill check that may report those codes.
skill_check = _registrar(SKILL_CHECKS)
#: ``@tree_check("SP205", ...)`` registers a check over the whole run.
tree_check = _registrar(TREE_CHECKS)

"""Outcomes of conformance scenarios."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Status = Literal["pass", "warn", "fail", "skip"]


@dataclass
class Outcome:
    """One scenario in one era: how many checks ran, what failed (MUST) and what was only
    a warning (SHOULD)."""

    scenario: str
    era: str
    checks: int = 0
    failures: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    skipped: str | None = None

    @property
    def status(self) -> Status:
        if self.skipped is not None:
            return "skip"
        if self.failures:
            return "fail"
        if self.warnings:
            return "warn"
        return "pass"

    def expect(self, condition: bool, message: str) -> bool:
        """A MUST: count it, record ``message`` when it does not hold."""
        self.checks += 1
        if not condition:
            self.failures.append(message)
        return condition

    def should(self, condition: bool, message: str) -> bool:
        """A SHOULD: count it, record a warning when it does not hold."""
        self.checks += 1
        if not condition:
            self.warnings.append(message)
        return condition

    def to_json(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario,
            "era": self.era,
            "status": self.status,
            "checks": self.checks,
            "failures": self.failures,
            "warnings": self.warnings,
            "skipped": self.skipped,
        }

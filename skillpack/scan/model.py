"""What the content scan reports: one finding of one rule at one place in one file."""

from __future__ import annotations

from dataclasses import dataclass

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True, slots=True)
class ScanFinding:
    """One finding of the content scan (rule group SP5xx of the lint catalog)."""

    code: str  #: "SP5xx", a lint rule code in the catalog
    severity: str  #: "error" | "warning" (the rule's default)
    message: str  #: what was found; for hidden characters it decodes what is hidden
    line: int  #: 1-based; 0 = the whole file
    column: int  #: 1-based (in characters); 0 = the whole line

    def sort_key(self) -> tuple[int, int, str]:
        return (self.line, self.column, self.code)

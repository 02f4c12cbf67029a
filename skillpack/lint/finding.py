"""A lint finding: one rule violation at one place."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from skillpack._internal.pickling import ByFields
from skillpack.lint.catalog import ERROR, RULES


@dataclass(frozen=True, slots=True)
class Finding(ByFields):
    """A rule violation. ``line`` and ``column`` are 1-based; 0 means the whole file."""

    code: str
    message: str
    path: Path  #: absolute path of the file (or directory) the finding is about
    line: int = 0
    column: int = 0
    hint: str = ""
    skill: str = ""  #: skill path of the skill being checked
    severity: str = ERROR  #: the effective severity, after configuration overrides
    #: the code of a finding in the same file that must be fixed first (``SP013`` cannot
    #: be quoted while the frontmatter has a YAML syntax error): not fixable until then
    blocked_by: str = ""
    #: a finding of a fixable rule that ``--fix`` cannot reach (a hidden character
    #: written as an escape in the frontmatter: the fix removes characters, not text;
    #: a NUL, which may be a byte of the file's encoding)
    manual: bool = False
    #: an error whatever the rule's severity: the content scan found it only once what
    #: hid it was undone (a zero-width character inside a word of a warning's phrase)
    raised: bool = False

    @property
    def name(self) -> str:
        return RULES[self.code].name

    @property
    def fixable(self) -> bool:
        return RULES[self.code].fixable and not self.blocked_by and not self.manual

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path.as_posix(), self.line, self.column, self.code)

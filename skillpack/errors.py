"""Errors as values.

Every failure skillpack reports to a user is a :class:`SkillpackError` carrying a
stable ``code``, a message that says what is wrong and, where known, the file, line
and column and a hint saying what to do. The CLI renders these; library callers can
catch :class:`SkillpackError` and read the fields.

Exit codes (documented in README.md):

==  =================================================================
0   success, nothing to report at error severity
1   findings: lint errors, a stale lock, a failed verification or check
2   usage or configuration error (bad flag, bad config, unreadable input)
3   internal error (a bug in skillpack; please report it)
==  =================================================================
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3


@dataclass(frozen=True)
class Location:
    """A place in a file. ``line`` and ``column`` are 1-based; 0 means unknown."""

    path: str
    line: int = 0
    column: int = 0

    def render(self) -> str:
        if self.line and self.column:
            return f"{self.path}:{self.line}:{self.column}"
        if self.line:
            return f"{self.path}:{self.line}"
        return self.path


@dataclass
class SkillpackError(Exception):
    """A user-facing failure with a stable code (``SPK-…``, ``CFG-…``, ``BND-…``)."""

    code: str
    message: str
    location: Location | None = None
    hint: str | None = None
    exit_code: int = EXIT_USAGE
    details: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        Exception.__init__(self, self.render())

    def render(self) -> str:
        where = f"{self.location.render()}: " if self.location else ""
        text = f"{where}{self.code} {self.message}"
        for line in self.details:
            text += f"\n  {line}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text

    def __str__(self) -> str:
        return self.render()

    def __reduce__(self) -> tuple[object, ...]:
        # by value, whatever a subclass's __init__ takes: a forked worker's error travels
        # back to the parent as a value (skillpack.build.pipeline)
        return (_restore, (type(self), dict(self.__dict__)))


def _restore(cls: type[SkillpackError], state: dict[str, object]) -> SkillpackError:
    error = cls.__new__(cls)
    error.__dict__.update(state)
    Exception.__init__(error, error.render())
    return error


class ConfigError(SkillpackError):
    """The configuration cannot be used (exit 2)."""


class UsageError(SkillpackError):
    """A command was called wrongly (exit 2)."""


def display_path(path: Path | str, base: Path | None = None) -> str:
    """A path as shown to users: relative to ``base`` (default: cwd) when inside it."""
    p = Path(path)
    try:
        base = (base or Path.cwd()).resolve()
        return p.resolve().relative_to(base).as_posix() if p.is_absolute() else p.as_posix()
    except (ValueError, OSError):
        return p.as_posix()


def report_internal_error(exc: BaseException, program: str = "skillpack") -> int:
    """Report an unexpected exception (a bug) on stderr without a traceback, unless
    ``SKILLPACK_DEBUG`` is set; return :data:`EXIT_INTERNAL`."""
    if os.environ.get("SKILLPACK_DEBUG"):
        import traceback

        traceback.print_exception(exc)
    print(
        f"{program}: internal error: {type(exc).__name__}: {exc}\n"
        "  this is a bug; rerun with SKILLPACK_DEBUG=1 and report the traceback",
        file=sys.stderr,
    )
    return EXIT_INTERNAL

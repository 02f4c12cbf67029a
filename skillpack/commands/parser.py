"""argparse for the typer-free commands: errors become :class:`UsageError` values."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import NoReturn

from skillpack.commands import COMMANDS, ParserExit
from skillpack.errors import UsageError


class CommandParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are :class:`UsageError` values (exit 2)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError("USE000", message, hint=f"see '{self.prog} --help'")

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message:
            print(message, file=sys.stderr, end="")
        raise ParserExit(status)

    @classmethod
    def for_paths(
        cls, name: str, epilog: str, paths_help: str, *, single: bool = False
    ) -> CommandParser:
        """The parser of ``skillpack NAME [PATH...]`` (``[PATH]`` when ``single``) and
        ``--config FILE``."""
        parser = cls(
            prog=f"skillpack {name}",
            description=COMMANDS[name][1],
            epilog=epilog,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        if single:
            parser.add_argument("path", nargs="?", type=Path, metavar="PATH", help=paths_help)
        else:
            parser.add_argument("paths", nargs="*", type=Path, metavar="PATH", help=paths_help)
        parser.add_argument(
            "--config",
            type=Path,
            metavar="FILE",
            help="configuration file (default: the nearest skillpack.toml or pyproject.toml)",
        )
        return parser

"""Commands that do not need typer: ``lint`` and ``fmt``.

They run as pre-commit hooks, where start-up time is most of a run. typer (as installed)
coerces every parameter value through a pydantic TypeAdapter, the ``--help`` option
included, which costs about 0.1 s per run (importing pydantic and building adapters).
So ``skillpack lint`` and ``skillpack fmt`` are dispatched by ``skillpack.__main__``
straight to these modules, which parse their arguments with argparse; the typer app
registers them too (``skillpack --help`` lists them) and forwards the raw arguments.

:func:`guarded` is the one place that turns exceptions into messages and exit codes,
for these commands and for the typer app (``skillpack.cli.run``).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from ..errors import EXIT_INTERNAL, UsageError

#: command name -> module with ``main(argv: list[str]) -> int``
MODULES = {"lint": "skillpack.commands.lint", "fmt": "skillpack.commands.fmt"}


class ParserExit(Exception):
    """argparse finished early (``--help``): exit with ``status``."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class CommandParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are :class:`UsageError` values (exit 2)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError("USE000", message, hint=f"see '{self.prog} --help'")

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message:
            print(message, file=sys.stderr, end="")
        raise ParserExit(status)

    @classmethod
    def for_paths(cls, name: str, summary: str, epilog: str, paths_help: str) -> CommandParser:
        """The parser of ``skillpack NAME [PATH...]`` and ``--config FILE``."""
        parser = cls(
            prog=f"skillpack {name}",
            description=summary,
            epilog=epilog,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        parser.add_argument("paths", nargs="*", type=Path, metavar="PATH", help=paths_help)
        parser.add_argument(
            "--config",
            type=Path,
            metavar="FILE",
            help="configuration file (default: the nearest skillpack.toml or pyproject.toml)",
        )
        return parser


def guarded(invoke: Callable[[], int]) -> int:
    """Run ``invoke``; return its exit code. Errors become messages on stderr, never a
    traceback (unless ``SKILLPACK_DEBUG`` is set)."""
    from ..errors import SkillpackError

    try:
        return invoke()
    except SkillpackError as exc:
        print(exc.render(), file=sys.stderr)
        return exc.exit_code
    except ParserExit as exc:
        return exc.status
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # fail with a message, not a traceback
        if os.environ.get("SKILLPACK_DEBUG"):
            traceback.print_exc()
        print(
            f"skillpack: internal error: {type(exc).__name__}: {exc}\n"
            "  this is a bug; rerun with SKILLPACK_DEBUG=1 and report the traceback",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


def run_command(name: str, argv: list[str]) -> int:
    """Run command ``name`` (a key of :data:`MODULES`) on ``argv``."""
    module = importlib.import_module(MODULES[name])
    main: Callable[[list[str]], int] = module.main
    return guarded(lambda: main(argv))

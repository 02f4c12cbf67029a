"""Commands that do not need typer: ``lint``, ``fmt`` and ``build``.

``lint`` and ``fmt`` run as pre-commit hooks, where start-up time is most of a run;
``build`` is measured against ``zip -X -r``. typer (as installed) coerces every
parameter value through a pydantic TypeAdapter, the ``--help`` option included, which
costs about 0.1 s per run (importing pydantic and building adapters). So these commands
are dispatched by ``skillpack.__main__`` straight to these modules, which parse their
arguments with argparse; the typer app registers them too (``skillpack --help`` lists
them) and forwards the raw arguments.

:func:`guarded` is the one place that turns exceptions into messages and exit codes,
for these commands and for the typer app (``skillpack.cli.run``).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable

from skillpack.errors import report_internal_error

#: command name -> (module with ``main(argv: list[str]) -> int``, one-line summary)
COMMANDS = {
    "lint": (
        "skillpack.commands.lint",
        "Check skills: frontmatter, Agent Skills fields, skill paths and limits, files, body.",
    ),
    "fmt": (
        "skillpack.commands.fmt",
        "Normalize SKILL.md: quote ambiguous values, order known keys, LF, no BOM.",
    ),
    "build": (
        "skillpack.commands.build",
        "Lint, lock and write a reproducible bundle archive (.skp); with --sign, sign it.",
    ),
}


class ParserExit(Exception):
    """argparse finished early (``--help``): exit with ``status``."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def guarded(invoke: Callable[[], int]) -> int:
    """Run ``invoke``; return its exit code. Errors become messages on stderr, never a
    traceback (unless ``SKILLPACK_DEBUG`` is set)."""
    from skillpack.errors import SkillpackError

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
        return report_internal_error(exc)


def run_command(name: str, argv: list[str]) -> int:
    """Run command ``name`` (a key of :data:`COMMANDS`) on ``argv``."""
    module = importlib.import_module(COMMANDS[name][0])
    main: Callable[[list[str]], int] = module.main
    return guarded(lambda: main(argv))

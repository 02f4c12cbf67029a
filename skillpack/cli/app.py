"""The ``skillpack`` typer app: the command table, loaded lazily, and the one error path.

``skillpack --help`` lists the table's summaries without importing a command module;
``skillpack NAME ...`` imports only NAME's module (:mod:`skillpack.cli.table`).
:func:`run` turns everything a command raises into a message on stderr and an exit
code (the table in :mod:`skillpack.errors`).
"""

from __future__ import annotations

import difflib
import importlib
import sys
from collections.abc import Sequence

import typer
from typer import _click as click
from typer._click import exceptions as click_errors

from skillpack.cli.base import CONTEXT_SETTINGS, CommandApp, Group, usage_error
from skillpack.cli.table import BY_NAME, COMMANDS, RENAMED, REUSED
from skillpack.errors import (
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    SkillpackError,
    UsageError,
    report_internal_error,
)


class LazyGroup(Group):
    """The root group: commands come from the table, each module imported on use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [row.name for row in COMMANDS]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        row = BY_NAME.get(cmd_name)
        if row is None:
            return None
        module = importlib.import_module(row.module)
        app: CommandApp = module.app
        return typer.main.get_command(app)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        moved = REUSED.get(name)
        if moved is not None and any(arg in moved[1] for arg in args[1:]):
            # the old command's options: say where that command went
            raise UsageError(
                "USE000",
                f"'{name}' is another command now; {' '.join(sorted(set(args[1:]) & moved[1]))} "
                f"belong to 'skillpack {moved[0]}'",
                hint=f"'skillpack {name} ...' of before is 'skillpack {moved[0]} ...'; see "
                f"'{ctx.command_path} {name} --help'",
            )
        if name in BY_NAME or name.startswith("-"):
            return super().resolve_command(ctx, args)
        hint = f"run '{ctx.command_path} --help' to list the commands"
        if name in RENAMED:
            hint = f"'{name}' is now 'skillpack {RENAMED[name]}'; {hint}"
        else:
            close = difflib.get_close_matches(name, BY_NAME)
            if close:
                hint = f"did you mean {' or '.join(repr(c) for c in close)}? {hint}"
        raise UsageError("USE000", f"unknown command {name!r}", hint=hint)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(row.name, row.summary) for row in COMMANDS])


root = typer.Typer(
    cls=LazyGroup,
    name="skillpack",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings=CONTEXT_SETTINGS,
)


def _version(value: bool) -> None:
    if value:
        from skillpack import __version__

        typer.echo(f"skillpack {__version__}")
        raise typer.Exit()


@root.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Show the version."
    ),
) -> None:
    """Lint, lock, build, sign and serve Agent Skills bundles for MCP.

    'skillpack COMMAND --help' explains a command. Exit status: 0 success, 1 findings
    (lint errors, a stale lock, a failed verification or check) or a failed write, 2
    usage or configuration error, 3 a bug in skillpack, 130 interrupted.
    """


def run(argv: Sequence[str]) -> int:
    """Run ``skillpack ARGV``; return the exit code. Never raises, never prints a
    traceback unless ``SKILLPACK_DEBUG`` is set."""
    try:
        group = typer.main.get_command(root)
        result = group.main(args=list(argv), prog_name="skillpack", standalone_mode=False)
    except click_errors.NoArgsIsHelpError as exc:  # plain 'skillpack': the help, exit 2
        print(exc.format_message(), file=sys.stderr)
        return EXIT_USAGE
    except click_errors.ClickException as exc:
        return report(usage_error(exc))
    except SkillpackError as exc:
        return report(exc)
    except (KeyboardInterrupt, typer.Abort):
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:  # a bug: a message, not a traceback
        return report_internal_error(exc)
    return result if isinstance(result, int) else 0


def report(exc: SkillpackError) -> int:
    """Print ``exc`` on stderr; return its exit code."""
    print(exc.render(), file=sys.stderr)
    return exc.exit_code

"""The ``skillpack`` command line: a thin typer layer over the library API.

Each command lives in its own module and registers itself on :data:`app`. Commands
raise :class:`skillpack.errors.SkillpackError`; :func:`run` renders it on stderr and
exits with its code (see ``skillpack.errors`` for the exit codes).
"""

from __future__ import annotations

import importlib
import sys

import typer
from typer.exceptions import TyperException

from skillpack.commands import guarded
from skillpack.errors import EXIT_USAGE

app = typer.Typer(
    name="skillpack",
    help="Lint, lock, build, sign and serve Agent Skills bundles for MCP.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

#: Command modules, in the order they appear in ``skillpack --help``.
COMMAND_MODULES = (
    "lint",
    "fmt",
    "rule",
    "lock",
    "build",
    "verify",
    "inspect",
    "diff",
    "unpack",
    "sign",
    "serve",
    "check",
    "pull",
)


def _version_callback(value: bool) -> None:
    if value:
        from skillpack import __version__

        typer.echo(f"skillpack {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version_callback, is_eager=True, help="Show the version."
    ),
) -> None:
    """Lint, lock, build, sign and serve Agent Skills bundles for MCP."""


def _register() -> None:
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"{__name__}.{name}_cmd")
        except ModuleNotFoundError as exc:
            if exc.name == f"{__name__}.{name}_cmd":
                continue  # command not built yet in this checkout
            raise
        module.register(app)


_register()


def run(argv: list[str]) -> int:
    """Run the CLI on ``argv``; return the exit code. Never raises, never prints a traceback
    unless ``SKILLPACK_DEBUG`` is set (see :func:`skillpack.commands.guarded`)."""

    def invoke() -> int:
        try:
            result = app(args=argv, prog_name="skillpack", standalone_mode=False)
            return int(result) if isinstance(result, int) else 0
        except typer.Exit as exc:
            return int(exc.exit_code or 0)
        except typer.Abort:
            print("aborted", file=sys.stderr)
            return 130
        except TyperException as exc:  # usage errors: bad options, missing arguments
            show = getattr(exc, "show", None)
            if callable(show):
                show(file=sys.stderr)
            else:
                print(f"error: {exc.format_message()}", file=sys.stderr)
            return EXIT_USAGE if exc.exit_code == 2 else int(exc.exit_code)

    return guarded(invoke)

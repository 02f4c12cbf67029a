"""Register a :mod:`skillpack.commands` command on the typer app: typer hands it every
argument (``--help`` included) unparsed. The command's module is imported only when it
runs, so registering it costs nothing."""

from __future__ import annotations

import typer

from skillpack.commands import COMMANDS


def register_forwarded(app: typer.Typer, name: str) -> None:
    module_name, summary = COMMANDS[name]

    def command(ctx: typer.Context) -> int:
        import importlib

        main = importlib.import_module(module_name).main
        return int(main(list(ctx.args)))

    command.__doc__ = summary
    app.command(
        name,
        help=summary,
        add_help_option=False,
        context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    )(command)

"""Register a :mod:`skillpack.commands` command on the typer app: typer hands it every
argument (``--help`` included) unparsed."""

from __future__ import annotations

import importlib

import typer

from ..commands import MODULES


def register_forwarded(app: typer.Typer, name: str) -> None:
    module = importlib.import_module(MODULES[name])
    summary: str = module.SUMMARY

    def command(ctx: typer.Context) -> int:
        main = module.main
        return int(main(list(ctx.args)))

    command.__doc__ = summary
    app.command(
        name,
        help=summary,
        add_help_option=False,
        context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    )(command)

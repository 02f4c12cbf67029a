"""``skillpack serve``: listed in ``skillpack --help``; the server itself is argparse-based.

``python -m skillpack serve ...`` never reaches typer (``skillpack/__main__.py``
dispatches it first, to keep the server's start-up stdlib-only). This command is only
reached when the typer app is called directly; it forwards every argument unchanged.
"""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    @app.command(
        "serve",
        add_help_option=False,
        context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    )
    def serve(ctx: typer.Context) -> None:
        """Serve skills over MCP on stdio (SOURCE: a .skp bundle or a skills directory).

        See 'skillpack serve --help' for the options.
        """
        from skillpack.server.cli import main

        raise typer.Exit(main(list(ctx.args)))

"""``skillpack serve``, reached through the typer app: the one forwarded command.

``skillpack serve ...`` from the shell never reaches typer (``skillpack/__main__.py``
hands it to :mod:`skillpack.server.cli` first, keeping the server's start-up
standard-library only). The typer app (``skillpack.cli.run``) lists it and forwards
every argument, ``--help`` included, to the same parser.
"""

from __future__ import annotations

import typer

from skillpack.cli.base import CommandApp

app = CommandApp()


@app.command(
    "serve",
    add_help_option=False,
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def serve(ctx: typer.Context) -> int:
    """Serve skills over MCP on stdio, or Streamable HTTP with --http.

    See 'skillpack serve --help'.
    """
    from skillpack.server.cli import main

    return main(list(ctx.args))

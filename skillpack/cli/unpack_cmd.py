"""``skillpack unpack BUNDLE DIR [--force]``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from skillpack.cli._common import plural
from skillpack.cli.verify_cmd import BundleArg


def unpack_command(
    bundle: BundleArg,
    dest: Annotated[Path, typer.Argument(help="Directory to write the skills into.")],
    force: Annotated[
        bool, typer.Option("--force", help="Write into a directory that is not empty.")
    ] = False,
) -> None:
    """Verify a bundle, then write its skills (and its lock) into DIR."""
    from skillpack.bundle.unpack import unpack_bundle
    from skillpack.errors import display_path

    result = unpack_bundle(bundle, dest, force=force)
    typer.echo(
        f"unpacked {plural(result.skills, 'skill')}, {plural(result.files, 'file')} "
        f"into {display_path(result.dest)}"
    )


def register(app: typer.Typer) -> None:
    app.command("unpack")(unpack_command)

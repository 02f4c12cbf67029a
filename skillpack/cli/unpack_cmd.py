"""``skillpack unpack BUNDLE DIR [--force]``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from skillpack.cli.base import CommandApp

app = CommandApp()


@app.command("unpack")
def unpack_command(
    bundle: Annotated[Path, typer.Argument(metavar="BUNDLE", help="The .skp bundle.")],
    dest: Annotated[
        Path, typer.Argument(metavar="DIR", help="Directory to write the skills into.")
    ],
    force: Annotated[
        bool, typer.Option("--force", help="Write into a directory that is not empty.")
    ] = False,
) -> None:
    """Verify a bundle, then write its skills (and its lock) into a directory."""
    from skillpack.bundle.unpack import unpack_bundle
    from skillpack.cli.output import plural
    from skillpack.errors import display_path

    result = unpack_bundle(bundle, dest, force=force)
    print(
        f"unpacked {plural(result.skills, 'skill')}, {plural(result.files, 'file')} "
        f"into {display_path(result.dest)}"
    )

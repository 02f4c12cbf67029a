"""``skillpack verify BUNDLE``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._common import plural

BundleArg = Annotated[Path, typer.Argument(help="The .skp bundle.", dir_okay=False)]


def verify_command(bundle: BundleArg) -> None:
    """Check every file of a bundle against its lock (exit 1 naming the first problem)."""
    from ..errors import display_path
    from ..verify import verify_bundle

    report = verify_bundle(bundle)
    typer.echo(
        f"OK {display_path(report.path)}: {report.name} {report.version}, "
        f"{plural(report.skills, 'skill')}, {plural(report.files, 'file')} verified"
    )
    typer.echo(f"  archive {report.archive_digest}")
    typer.echo(f"  lock    {report.lock_digest}")
    for note in report.notes:
        typer.echo(f"  {note}")


def register(app: typer.Typer) -> None:
    app.command("verify")(verify_command)

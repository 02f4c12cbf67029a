"""``skillpack inspect BUNDLE [--json]``."""

from __future__ import annotations

from typing import Annotated

import typer

from skillpack.cli._common import echo_json, plural
from skillpack.cli.verify_cmd import BundleArg


def inspect_command(
    bundle: BundleArg,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List a bundle's skills and files with sizes, digests and totals (verified first)."""
    from skillpack.bundle.inspect import describe_bundle
    from skillpack.bundle.reader import open_bundle
    from skillpack.errors import display_path

    with open_bundle(bundle, mode="full") as opened:
        info = describe_bundle(opened)
    if as_json:
        echo_json(info)
        return
    totals = info["totals"]
    typer.echo(f"bundle {display_path(bundle)}: {info['name']} {info['version']}")
    typer.echo(f"  format {info['format']}, {info['size']} bytes, {info['sha256']}")
    typer.echo(f"  lock {info['lock-digest']}")
    for skill in info["skills"]:
        files = skill["resources"]
        size = sum(f["size"] for f in files)
        typer.echo(f"skill {skill['path']} ({plural(len(files), 'file')}, {size} bytes)")
        for f in skill["files"]:
            mark = " x" if f["executable"] else ""
            typer.echo(f"  {f['size']:>9}  {f['digest']}  {f['path']}{mark}")
    typer.echo(
        f"total: {plural(totals['skills'], 'skill')}, {plural(totals['files'], 'file')}, "
        f"{totals['bytes']} bytes"
    )


def register(app: typer.Typer) -> None:
    app.command("inspect")(inspect_command)

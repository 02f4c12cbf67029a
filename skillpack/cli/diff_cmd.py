"""``skillpack diff A B [--json]``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from skillpack.cli._common import echo_json

SideArg = Annotated[Path, typer.Argument(help="A bundle (.skp), a lock or a skill tree.")]


def diff_command(
    old: SideArg,
    new: SideArg,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Per skill: files added, removed and changed, and frontmatter changes.

    Exit 0 when A and B are the same, 1 when they differ, 2 on trouble (like diff(1)).
    """
    from skillpack.bundle.diff import load_manifest
    from skillpack.changes import diff_manifests
    from skillpack.errors import EXIT_USAGE, SkillpackError

    try:
        sides = load_manifest(old), load_manifest(new)
    except SkillpackError as exc:  # exit 1 means "different": trouble is always 2
        exc.exit_code = EXIT_USAGE
        raise
    changes = diff_manifests(*sides)
    if as_json:
        echo_json(changes.to_json())
    else:
        for line in changes.lines():
            typer.echo(line)
        typer.echo(changes.summary())
    if not changes.same:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("diff")(diff_command)

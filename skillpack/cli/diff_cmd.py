"""``skillpack diff A B [--format json]``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from skillpack.cli.base import CommandApp
from skillpack.cli.options import FormatOpt, JsonFlag, output_format

app = CommandApp()

SIDE_HELP = "A bundle (.skp), a lock or a skill tree."


@app.command("diff")
def diff_command(
    old: Annotated[Path, typer.Argument(metavar="A", help=SIDE_HELP)],
    new: Annotated[Path, typer.Argument(metavar="B", help=SIDE_HELP)],
    chosen: FormatOpt = "text",
    json_flag: JsonFlag = False,
) -> int:
    """Compare two bundles, locks or trees, skill by skill.

    Per skill: files added, removed and changed, and frontmatter changes.
    Exit 0 when A and B are the same, 1 when they differ, 2 on any error (like diff(1)).
    """
    from skillpack.bundle.diff import load_manifest
    from skillpack.changes import diff_manifests
    from skillpack.cli.app import report
    from skillpack.cli.output import echo_json
    from skillpack.errors import EXIT_USAGE, SkillpackError

    try:
        sides = load_manifest(old), load_manifest(new)
    except SkillpackError as exc:  # exit 1 means "different": any error is 2 here
        report(exc)
        return EXIT_USAGE
    changes = diff_manifests(*sides)
    if output_format(chosen, json_flag) == "json":
        echo_json(changes.to_json())
    else:
        for line in changes.lines():
            print(line)
        print(changes.summary())
    return 0 if changes.same else 1

"""``skillpack fmt [PATH...] [--check] [--diff]``: normalize SKILL.md frontmatter."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from .lint_cmd import ConfigFile, Paths


def fmt_command(
    paths: Paths = None,
    check: Annotated[
        bool, typer.Option("--check", help="Change nothing; exit 1 naming files that would change.")
    ] = False,
    diff: Annotated[
        bool, typer.Option("--diff", help="Change nothing; print the changes as unified diffs.")
    ] = False,
    config_file: ConfigFile = None,
) -> int:
    """Normalize SKILL.md: quote ambiguous values, order the known keys, LF, no BOM, final newline.

    Comments and the body are kept. Exit status: 0 done (or nothing to change), 1 files
    would change (--check, --diff) or could not be formatted, 2 usage error.
    """
    from ..errors import display_path
    from ..fmt import format_files
    from ..targets import owned_skills, resolve_targets

    targets = resolve_targets(paths or (), config_file)
    files = [skill.skill_md for skill in owned_skills(targets)]
    outcome = format_files(files, write=not (check or diff))
    for change in outcome.changed:
        shown = display_path(change.path)
        if diff:
            sys.stdout.write(change.diff(shown))
        elif check:
            sys.stdout.write(f"would reformat {shown}\n")
    sys.stdout.flush()
    for path, error in outcome.failed:
        print(
            f"{display_path(path)}:{error.line}:{error.column}: {error.code} cannot format: "
            f"{error.message}",
            file=sys.stderr,
        )
    changed = len(outcome.changed)
    verb = "would be reformatted" if check or diff else "reformatted"
    tail = f", {len(outcome.failed)} could not be formatted" if outcome.failed else ""
    print(
        f"{changed} file{'' if changed == 1 else 's'} {verb}, {outcome.unchanged} left "
        f"unchanged{tail}",
        file=sys.stderr,
    )
    return 1 if outcome.failed or ((check or diff) and outcome.changed) else 0


def register(app: typer.Typer) -> None:
    app.command("fmt")(fmt_command)

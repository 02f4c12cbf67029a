"""``skillpack fmt [PATH...] [--check] [--diff]``: normalize SKILL.md frontmatter."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from skillpack.cli.base import CommandApp
from skillpack.cli.options import ConfigOpt, DiffOpt

app = CommandApp()


@app.command(
    "fmt",
    epilog="Comments and the body are kept (the body's line endings become LF and it ends "
    "with a newline); a file whose frontmatter cannot be read is reported and left as it "
    "is. Exit status: 0 done or nothing to change, 1 files would change "
    "(--check, --diff) or could not be formatted, 2 usage or configuration error.",
)
def fmt_command(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            metavar="PATH",
            help="Files or directories: format the SKILL.md of the skills they name "
            "(default: all).",
            show_default=False,
        ),
    ] = None,
    check: Annotated[
        bool,
        typer.Option("--check", help="Change nothing; exit 1 naming the files that would change."),
    ] = False,
    diff: DiffOpt = False,
    config: ConfigOpt = None,
) -> int:
    """Normalize SKILL.md: quote ambiguous values, order known keys, LF, no BOM."""
    from skillpack.errors import display_path
    from skillpack.lint.fmt import format_files
    from skillpack.source.targets import owned_skills, resolve_targets

    targets = resolve_targets(paths or [], config)
    dry_run = check or diff
    files = [skill.skill_md for skill in owned_skills(targets)]
    outcome = format_files(files, write=not dry_run)
    for change in outcome.changed:
        shown = display_path(change.path)
        if diff:
            sys.stdout.write(change.diff(shown))
        elif check:
            sys.stdout.write(f"would reformat {shown}\n")
    sys.stdout.flush()
    for path, error in outcome.failed:
        for refusal in error.refusals:
            print(
                f"{display_path(path)}:{refusal.line}:{refusal.column}: {refusal.code} "
                f"cannot format: {refusal.message}",
                file=sys.stderr,
            )
    changed = len(outcome.changed)
    verb = "would be reformatted" if dry_run else "reformatted"
    tail = f", {len(outcome.failed)} could not be formatted" if outcome.failed else ""
    print(
        f"{changed} file{'' if changed == 1 else 's'} {verb}, {outcome.unchanged} left "
        f"unchanged{tail}",
        file=sys.stderr,
    )
    return 1 if outcome.failed or (dry_run and outcome.changed) else 0

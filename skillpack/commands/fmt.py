"""``skillpack fmt [PATH...] [--check] [--diff]``: normalize SKILL.md frontmatter."""

from __future__ import annotations

import sys

from skillpack.commands.parser import CommandParser

EPILOG = """\
Comments and the body are kept (the body's line endings become LF and it ends with a
newline). Exit status: 0 done or nothing to change, 1 files would change (--check,
--diff) or could not be formatted, 2 usage or configuration error.
"""


def build_parser() -> CommandParser:
    parser = CommandParser.for_paths(
        "fmt",
        EPILOG,
        "files or directories: format the SKILL.md of the skills they name (default: all)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="change nothing; exit 1 naming the files that would change",
    )
    parser.add_argument(
        "--diff", action="store_true", help="change nothing; print the changes as unified diffs"
    )
    return parser


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    from skillpack.errors import display_path
    from skillpack.lint.fmt import format_files
    from skillpack.source.targets import owned_skills, resolve_targets

    targets = resolve_targets(args.paths, args.config)
    dry_run = args.check or args.diff
    files = [skill.skill_md for skill in owned_skills(targets)]
    outcome = format_files(files, write=not dry_run)
    for change in outcome.changed:
        shown = display_path(change.path)
        if args.diff:
            sys.stdout.write(change.diff(shown))
        elif args.check:
            sys.stdout.write(f"would reformat {shown}\n")
    sys.stdout.flush()
    for path, error in outcome.failed:
        print(
            f"{display_path(path)}:{error.line}:{error.column}: {error.code} cannot format: "
            f"{error.message}",
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

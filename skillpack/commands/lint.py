"""``skillpack lint [PATH...]``: check skills against the rule catalog."""

from __future__ import annotations

import sys
from pathlib import Path

from skillpack.commands.parser import CommandParser

FORMATS = ("text", "json", "sarif", "github")
EPILOG = """\
Rules are selected by code, prefix or ALL (--select SP1,SP305); 'skillpack rule CODE'
explains one. Exit status: 0 no finding at error severity, 1 findings at error severity,
2 usage or configuration error.
"""


def build_parser() -> CommandParser:
    parser = CommandParser.for_paths(
        "lint",
        EPILOG,
        "files or directories: check the skills they belong to (default: all)",
    )
    parser.add_argument("-f", "--format", choices=FORMATS, default="text", help="output format")
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="FILE",
        help="write the report to FILE, not standard output",
    )
    parser.add_argument(
        "--fix", action="store_true", help="apply the safe fixes (SP013, SP405, SP406, SP407)"
    )
    parser.add_argument(
        "--select",
        action="append",
        default=[],
        metavar="RULES",
        help="rules to check instead of the configured ones",
    )
    parser.add_argument(
        "--extend-select",
        action="append",
        default=[],
        metavar="RULES",
        help="rules to check besides the configured ones",
    )
    parser.add_argument(
        "--ignore", action="append", default=[], metavar="RULES", help="rules not to check"
    )
    parser.add_argument(
        "--statistics", action="store_true", help="print the number of findings of each rule"
    )
    return parser


def split_selectors(values: list[str]) -> list[str]:
    """``--select SP1,SP2 --select SP3`` -> [SP1, SP2, SP3] (upper-cased)."""
    return [part.strip().upper() for value in values for part in value.split(",") if part.strip()]


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    from skillpack._internal.fsutil import atomic_write
    from skillpack.build.pipeline import lint_tree
    from skillpack.lint import LintOptions
    from skillpack.lint.reporters import (
        RENDERERS,
        render_statistics,
        render_text,
        summary,
        use_colour,
    )
    from skillpack.source.targets import resolve_targets

    targets = resolve_targets(args.paths, args.config)
    options = LintOptions.from_config(
        targets.config,
        split_selectors(args.select) or None,
        split_selectors(args.extend_select),
        split_selectors(args.ignore),
    )
    result = lint_tree(targets.tree, targets.skills, options, targets.paths or None)
    fixed = 0
    if args.fix:
        from skillpack.lint.fix import apply_fixes

        if apply_fixes(result, options):
            before = result.fixable
            targets = resolve_targets(args.paths, args.config)  # sizes and bytes changed
            result = lint_tree(targets.tree, targets.skills, options, targets.paths or None)
            fixed = before - result.fixable

    base = Path.cwd()
    if args.statistics:
        report = render_statistics(result)
    elif args.format == "text":
        report = render_text(result, base, colour=args.output is None and use_colour(sys.stdout))
    else:
        report = RENDERERS[args.format](result, base)
    if args.output is not None:
        atomic_write(args.output, report.encode("utf-8"))
    else:
        sys.stdout.write(report)
        sys.stdout.flush()
    if args.format == "text" or args.output is not None:
        if not targets.skills and targets.paths:
            print("warning: no skills found under the given paths", file=sys.stderr)
        print(summary(result, fixed), file=sys.stderr)
    return 1 if result.errors else 0

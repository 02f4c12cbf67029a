"""``skillpack lint [PATH...]``: check skills against the rule catalog."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

FORMATS = ("text", "json", "sarif", "github")

Paths = Annotated[
    list[Path] | None,
    typer.Argument(help="Files or directories: check the skills they belong to (default: all)."),
]
ConfigFile = Annotated[
    Path | None,
    typer.Option(
        "--config", help="Configuration file (default: nearest skillpack.toml or pyproject.toml)."
    ),
]
Selectors = list[str] | None


def split_selectors(values: Selectors) -> list[str]:
    """``--select SP1,SP2 --select SP3`` -> [SP1, SP2, SP3] (upper-cased)."""
    return [
        part.strip().upper() for value in values or () for part in value.split(",") if part.strip()
    ]


def lint_command(
    paths: Paths = None,
    output_format: Annotated[
        str, typer.Option("--format", "-f", help="Output format: text, json, sarif or github.")
    ] = "text",
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write the report to FILE, not standard output."),
    ] = None,
    fix: Annotated[
        bool, typer.Option("--fix", help="Apply the safe fixes (SP013, SP405, SP406, SP407).")
    ] = False,
    select: Annotated[
        Selectors,
        typer.Option("--select", help="Rules to check instead of the configured ones."),
    ] = None,
    extend_select: Annotated[
        Selectors,
        typer.Option("--extend-select", help="Rules to check besides the configured ones."),
    ] = None,
    ignore: Annotated[Selectors, typer.Option("--ignore", help="Rules not to check.")] = None,
    config_file: ConfigFile = None,
    statistics: Annotated[
        bool, typer.Option("--statistics", help="Print the number of findings of each rule.")
    ] = False,
) -> int:
    """Check skills: frontmatter, Agent Skills fields, skill paths and limits, files, body.

    Rules are selected by code, prefix or ALL (--select SP1,SP305). Exit status: 0 no
    error-severity findings, 1 findings at error severity, 2 usage or configuration error.
    """
    from ..errors import UsageError
    from ..fsutil import atomic_write
    from ..lint import LintOptions, lint
    from ..lint.reporters import RENDERERS, render_statistics, render_text, summary, use_colour
    from ..targets import resolve_targets

    if output_format not in FORMATS:
        raise UsageError(
            "USE002", f"--format must be one of {', '.join(FORMATS)}, not '{output_format}'"
        )
    targets = resolve_targets(paths or (), config_file)
    options = LintOptions.from_config(
        targets.config,
        split_selectors(select) or None,
        split_selectors(extend_select),
        split_selectors(ignore),
    )
    result = lint(targets.tree, targets.skills, options, targets.paths or None)
    fixed = 0
    if fix:
        from ..lint.fix import apply_fixes

        if apply_fixes(result, options):
            before = result.fixable
            targets = resolve_targets(paths or (), config_file)  # sizes and bytes changed
            result = lint(targets.tree, targets.skills, options, targets.paths or None)
            fixed = before - result.fixable

    base = Path.cwd()
    if statistics:
        report = render_statistics(result)
    elif output_format == "text":
        report = render_text(result, base, colour=output is None and use_colour(sys.stdout))
    else:
        report = RENDERERS[output_format](result, base)
    if output is not None:
        atomic_write(output, report.encode("utf-8"))
    else:
        sys.stdout.write(report)
        sys.stdout.flush()
    if output_format == "text" or output is not None:
        if not targets.skills and targets.paths:
            print("warning: no skills found under the given paths", file=sys.stderr)
        print(summary(result, fixed), file=sys.stderr)
    return 1 if result.errors else 0


def register(app: typer.Typer) -> None:
    app.command("lint")(lint_command)

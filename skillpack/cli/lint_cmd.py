"""``skillpack lint [PATH...]``: check skills against the rule catalog."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Literal

import typer

from skillpack.cli.base import CommandApp
from skillpack.cli.options import ConfigOpt

app = CommandApp()

LintFormat = Literal["text", "json", "sarif", "github"]


def split_selectors(values: list[str] | None) -> list[str]:
    """``--select SP1,SP2 --select SP3`` -> [SP1, SP2, SP3] (upper-cased)."""
    return [p.strip().upper() for v in values or () for p in v.split(",") if p.strip()]


@app.command(
    "lint",
    epilog="Rules are selected by code, prefix or ALL (--select SP1,SP305); 'skillpack rule "
    "CODE' explains one. Exit status: 0 no finding at error severity, 1 findings at error "
    "severity or a failed write of the report, 2 usage or configuration error.",
)
def lint_command(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            metavar="PATH",
            help="Files or directories: check the skills they belong to (default: all).",
            show_default=False,
        ),
    ] = None,
    output_format: Annotated[
        LintFormat, typer.Option("-f", "--format", help="Output: text, json, sarif or github.")
    ] = "text",
    output: Annotated[
        Path | None,
        typer.Option(
            "-o", "--output", metavar="FILE", help="Write the report to FILE (- for stdout)."
        ),
    ] = None,
    fix: Annotated[
        bool, typer.Option("--fix", help="Apply the safe fixes (SP013, SP405, SP406, SP407).")
    ] = False,
    select: Annotated[
        list[str] | None,
        typer.Option(
            "--select", metavar="RULES", help="Rules to check instead of the configured ones."
        ),
    ] = None,
    extend_select: Annotated[
        list[str] | None,
        typer.Option(
            "--extend-select", metavar="RULES", help="Rules to check besides the configured ones."
        ),
    ] = None,
    ignore: Annotated[
        list[str] | None, typer.Option("--ignore", metavar="RULES", help="Rules not to check.")
    ] = None,
    statistics: Annotated[
        bool, typer.Option("--statistics", help="Print the number of findings of each rule.")
    ] = False,
    config: ConfigOpt = None,
) -> int:
    """Check skills: frontmatter, Agent Skills fields, skill paths and limits, files, body."""
    from skillpack._internal.fsutil import Output
    from skillpack.build.pipeline import lint_tree
    from skillpack.lint import LintOptions
    from skillpack.lint.reporters import (
        RENDERERS,
        render_statistics,
        render_text,
        summary,
        use_colour,
    )
    from skillpack.source.outputs import refuse_inside_skills
    from skillpack.source.targets import no_skills_found, resolve_targets

    report_file = None if output is None else Output(output, what="the lint report")
    given = paths or []
    targets = resolve_targets(given, config)
    if output is not None:
        refuse_inside_skills(targets.config, targets.tree.skills, [output])
    if not targets.tree.skills:
        raise no_skills_found(targets.tree)
    options = LintOptions.from_config(
        targets.config,
        split_selectors(select) or None,
        split_selectors(extend_select),
        split_selectors(ignore),
    )
    result = lint_tree(targets.tree, targets.skills, options, targets.paths or None)
    fixed = 0
    if fix:
        from skillpack.lint.fix import apply_fixes

        if apply_fixes(result, options):
            before = result.fixable
            targets = resolve_targets(given, config)  # sizes and bytes changed
            result = lint_tree(targets.tree, targets.skills, options, targets.paths or None)
            fixed = before - result.fixable

    base = Path.cwd()
    if statistics:
        report = render_statistics(result)
    elif output_format == "text":
        report = render_text(result, base, colour=output is None and use_colour(sys.stdout))
    else:
        report = RENDERERS[output_format](result, base)
    if report_file is not None:
        report_file.write(report.encode("utf-8"))
    else:
        sys.stdout.write(report)
        sys.stdout.flush()
    if output_format == "text" or output is not None:
        if not targets.skills and targets.paths:
            print("warning: no skills found under the given paths", file=sys.stderr)
        print(summary(result, fixed), file=sys.stderr)
    return 1 if result.errors else 0

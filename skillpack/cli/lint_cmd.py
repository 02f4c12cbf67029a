"""``skillpack lint [PATH...]``: check skills against the rule catalog."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from skillpack.cli.base import CommandApp
from skillpack.cli.options import ConfigOpt

if TYPE_CHECKING:
    from skillpack.lint import LintResult

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
            help="Files or directories: check the skills they belong to (default: all); "
            "or bundles (.skp, oci://...): verify them and scan their files (the SP5xx "
            "rules).",
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
        bool,
        typer.Option(
            "--fix",
            help="Apply the safe fixes (SP013, SP405, SP406, SP407; SP501-SP504 remove "
            "hidden characters).",
        ),
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
    """Check skills against the rule catalog (text, JSON, SARIF, GitHub).

    The rules cover the frontmatter, the Agent Skills fields, skill paths and limits,
    the files and the body.
    """
    from skillpack.build.pipeline import lint_tree
    from skillpack.lint import LintOptions
    from skillpack.lint.reporters import (
        RENDERERS,
        render_statistics,
        render_text,
        summary,
        use_colour,
    )
    from skillpack.source.targets import no_skills_found, resolve_targets

    report_file = None
    if output is not None:
        from skillpack._internal.fsutil import Output

        report_file = Output(output, what="the lint report")
    given = paths or []
    bundles = [p for p in given if _is_bundle(p)]
    if bundles:
        result = _lint_bundles(given, bundles, fix, config, select, extend_select, ignore)
        base = Path.cwd()
        report = (
            render_statistics(result)
            if statistics
            else render_text(result, base, colour=output is None and use_colour(sys.stdout))
            if output_format == "text"
            else RENDERERS[output_format](result, base)
        )
        if report_file is not None:
            report_file.write(report.encode("utf-8"))
        else:
            sys.stdout.write(report)
            sys.stdout.flush()
        if output_format == "text" or output is not None:
            print(summary(result, fixable=False), file=sys.stderr)
        return 1 if result.errors else 0
    targets = resolve_targets(given, config)
    if output is not None:
        from skillpack.source.outputs import refuse_inside_skills

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


def _is_bundle(path: Path) -> bool:
    from skillpack.bundle import is_bundle_file

    return (
        _reference(path) is not None
        or path.suffix == ".skp"
        or (path.is_file() and is_bundle_file(path))
    )


def _reference(path: Path) -> str | None:
    """An ``oci://`` reference given as a PATH."""
    from skillpack.lint.reporters import unfolded_reference

    return unfolded_reference(str(path))


def _lint_bundles(
    given: list[Path],
    bundles: list[Path],
    fix: bool,
    config: Path | None,
    select: list[str] | None,
    extend_select: list[str] | None,
    ignore: list[str] | None,
) -> LintResult:
    """``lint BUNDLE...``: each bundle verified in full, then its files scanned."""
    from skillpack.bundle.reader import open_bundle
    from skillpack.bundle.scan import lint_bundles, scan_bundle
    from skillpack.errors import Location, UsageError, display_path
    from skillpack.lint import LintOptions
    from skillpack.source.config import resolve_config

    others = [p for p in given if p not in bundles]
    if others:
        raise UsageError(
            "USE013",
            "lint takes bundles or paths in a tree, not both",
            Location(str(others[0])),
            hint="lint the bundles and the tree in two runs",
        )
    if fix:
        raise UsageError(
            "USE013",
            "--fix cannot change a bundle (it is verified against its lock)",
            Location(str(bundles[0])),
            hint="fix the source tree and build the bundle again",
        )
    options = LintOptions.from_config(
        resolve_config((), config),
        split_selectors(select) or None,
        split_selectors(extend_select),
        split_selectors(ignore),
    )
    scanned = []
    for path in bundles:
        reference = _reference(path)
        if reference is not None:  # through the one verified fetch, into the cache
            from skillpack.fetch import fetch_verified
            from skillpack.registry.options import ClientOptions

            with fetch_verified(reference, options=ClientOptions()) as fetched:
                scanned.append((fetched.reference, fetched.bundle, scan_bundle(fetched.bundle)))
            continue
        with open_bundle(path, mode="full") as opened:
            scanned.append((display_path(path), opened, scan_bundle(opened)))
    return lint_bundles(scanned, options)

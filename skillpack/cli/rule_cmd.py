"""``skillpack rule CODE`` and ``skillpack rule --all``: the rule documentation."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from skillpack.cli.base import CommandApp
from skillpack.cli.options import FormatOpt

app = CommandApp()


@app.command("rule")
def rule_command(
    code: Annotated[
        str | None,
        typer.Argument(metavar="CODE", help="A rule code (SP101) or name (missing-name)."),
    ] = None,
    all_rules: Annotated[bool, typer.Option("--all", help="List every rule.")] = False,
    output_format: FormatOpt = "text",
) -> int:
    """Explain a lint rule (why, an example, how to fix it), or list them all."""
    from skillpack.errors import UsageError
    from skillpack.lint.catalog import RULES, rule_for
    from skillpack.lint.docs import rule_json, rule_text, rules_table

    if all_rules == (code is not None):
        raise UsageError("USE003", "give either a rule code or --all", hint="skillpack rule SP101")
    if code is None:
        rules = list(RULES.values())
    else:
        found = rule_for(code)
        if found is None:
            raise UsageError(
                "USE004", f"no rule '{code}'", hint="run 'skillpack rule --all' to list the rules"
            )
        rules = [found]
    if output_format == "json":
        from skillpack.cli.output import echo_json

        echo_json([rule_json(r) for r in rules] if code is None else rule_json(rules[0]))
    elif code is None:
        sys.stdout.write(rules_table(rules))
    else:
        sys.stdout.write(rule_text(rules[0]))
    return 0

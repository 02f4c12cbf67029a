"""``skillpack rule CODE`` and ``skillpack rule --all``: the rule documentation."""

from __future__ import annotations

import sys
from typing import Annotated

import typer


def rule_command(
    code: Annotated[
        str | None, typer.Argument(help="A rule code (SP101) or name (missing-name).")
    ] = None,
    all_rules: Annotated[bool, typer.Option("--all", help="List every rule.")] = False,
    output_format: Annotated[
        str, typer.Option("--format", "-f", help="Output format: text or json.")
    ] = "text",
) -> int:
    """Explain a lint rule: why it exists, an example, and how to fix it."""
    from skillpack.errors import UsageError
    from skillpack.lint.catalog import RULES, rule_for
    from skillpack.lint.docs import rule_json, rule_text, rules_table

    if output_format not in ("text", "json"):
        raise UsageError("USE002", f"--format must be text or json, not '{output_format}'")
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
        import json

        payload = [rule_json(r) for r in rules] if code is None else rule_json(rules[0])
        sys.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    elif code is None:
        sys.stdout.write(rules_table(rules))
    else:
        sys.stdout.write(rule_text(rules[0]))
    return 0


def register(app: typer.Typer) -> None:
    app.command("rule")(rule_command)

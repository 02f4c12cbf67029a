"""``skillpack check -- CMD [ARGS...]``."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from skillpack.errors import UsageError


def register(app: typer.Typer) -> None:
    app.command(
        "check",
        context_settings={"allow_interspersed_args": False},
        help="Run the Skills-extension conformance scenarios against a stdio MCP server.",
    )(check)


def check(
    command: Annotated[list[str], typer.Argument(help="The server command, after '--'.")],
    era: Annotated[str, typer.Option(help="modern, legacy or both.")] = "both",
    scenario: Annotated[
        list[str] | None, typer.Option("--scenario", "-s", help="Run only these scenarios.")
    ] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    timeout: Annotated[float, typer.Option(help="Seconds to wait for each response.")] = 30.0,
) -> int:
    from skillpack.conformance import SCENARIOS, exit_code, render_json, render_table, run_check

    eras = {"both": ("modern", "legacy"), "modern": ("modern",), "legacy": ("legacy",)}.get(era)
    if eras is None:
        raise UsageError("USE001", f"--era must be modern, legacy or both, not {era!r}")
    names = [n for n, _ in SCENARIOS]
    for name in scenario or ():
        if name not in names:
            raise UsageError("USE002", f"unknown scenario {name!r}; known: {', '.join(names)}")
    outcomes = run_check(command, eras=eras, only=scenario or (), timeout=timeout)  # type: ignore[arg-type]
    if json_output:
        print(render_json(outcomes))
    else:
        color = sys.stdout.isatty() and "NO_COLOR" not in os.environ
        print(render_table(outcomes, color=color))
    return exit_code(outcomes)

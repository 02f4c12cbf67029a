"""``skillpack check -- CMD [ARGS...]`` and ``skillpack check --url URL``."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from skillpack.cli.base import CommandApp
from skillpack.cli.options import (
    RESPONSE_TIMEOUT,
    CheckEraOpt,
    FormatOpt,
    JsonFlag,
    ResponseTimeoutOpt,
    UrlOpt,
    output_format,
)
from skillpack.errors import UsageError

app = CommandApp()

ERAS = {"both": ("modern", "legacy"), "modern": ("modern",), "legacy": ("legacy",)}


@app.command("check", context_settings={"allow_interspersed_args": False})
def check(
    command: Annotated[
        list[str] | None, typer.Argument(metavar="CMD", help="The server command, after '--'.")
    ] = None,
    era: CheckEraOpt = "both",
    scenario: Annotated[
        list[str] | None,
        typer.Option("--scenario", "-s", metavar="NAME", help="Run only these scenarios."),
    ] = None,
    chosen: FormatOpt = "text",
    json_flag: JsonFlag = False,
    timeout: ResponseTimeoutOpt = RESPONSE_TIMEOUT,
    url: UrlOpt = None,
) -> int:
    """Run the Skills-extension conformance scenarios against an MCP server.

    The server: a stdio command after -- (-- CMD), or a Streamable HTTP endpoint (--url
    URL).
    """
    from skillpack.conformance import SCENARIOS, exit_code, render_json, render_table, run_check

    names = [n for n, _ in SCENARIOS]
    for name in scenario or ():
        if name not in names:
            raise UsageError("USE002", f"unknown scenario {name!r}; known: {', '.join(names)}")
    outcomes = run_check(
        command or (),
        eras=ERAS[era],  # type: ignore[arg-type]
        only=scenario or (),
        timeout=timeout,
        url=url,
    )
    if output_format(chosen, json_flag) == "json":
        print(render_json(outcomes))
    else:
        color = sys.stdout.isatty() and "NO_COLOR" not in os.environ
        print(render_table(outcomes, color=color))
    return exit_code(outcomes)

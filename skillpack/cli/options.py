"""Options several commands share, each defined once.

* ``--config FILE`` (lint, fmt, lock, build, install, uninstall, plugins);
* ``--diff`` (fmt, plugins);
* ``-a/--agent`` and ``-g/--global`` (install, uninstall);
* ``-f/--format``: the one machine-output convention (``text`` or ``json``; lint also
  ``sarif`` and ``github``) of lint, rule, inspect, diff, check and verify; the older
  ``--json`` flag of inspect, diff and check still works, hidden from the help;
* ``--url``, ``--timeout`` and ``--era`` of the MCP clients, check and vendor;
* the signature options of verify, sign and build: :mod:`skillpack.cli.signing_options`;
  the registry options: :mod:`skillpack.cli.registry_options`. Both are tables of
  :class:`~skillpack._internal.options.Option` rows that serve's parser reads too;
  :func:`typer_option` declares a row for typer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from skillpack._internal.options import Option, positive_seconds, sentence


def typer_option(option: Option, **settings: Any) -> Any:
    """The typer declaration (``Annotated[TYPE, typer_option(row)]``) of an option
    declared once in a table: its flags (a bool one a plain flag), help in the one
    style, metavar, environment variable, and its check as a usage error."""
    check = option.check

    def callback(value: Any) -> Any:
        if check is not None and value is not None:
            try:
                check(value)
            except ValueError as exc:
                raise typer.BadParameter(str(exc)) from None
        return value

    return typer.Option(
        *option.flags,
        help=sentence(option.help),
        metavar=option.metavar,
        envvar=option.envvar,
        callback=callback if check is not None else None,
        **settings,
    )


ConfigOpt = Annotated[
    Path | None,
    typer.Option(
        "--config",
        metavar="FILE",
        help="Use this configuration file (default: the nearest skillpack.toml or "
        "pyproject.toml with [tool.skillpack]).",
    ),
]

DiffOpt = Annotated[
    bool, typer.Option("--diff", help="Change nothing; print the changes as unified diffs.")
]

AgentOpt = Annotated[
    list[str] | None,
    typer.Option(
        "-a",
        "--agent",
        metavar="NAME",
        help="Install for this agent (repeatable; '*' for all); default: the agents whose "
        "directories exist. docs/install.md lists the names.",
        show_default=False,
    ),
]
GlobalOpt = Annotated[
    bool,
    typer.Option(
        "-g",
        "--global",
        help="The user's agent directories (~/.claude/skills, $CODEX_HOME/skills, ...), "
        "pinned in the user's configuration directory.",
    ),
]


TextOrJson = Literal["text", "json"]
FormatOpt = Annotated[TextOrJson, typer.Option("-f", "--format", help="Output: text or json.")]
JsonFlag = Annotated[bool, typer.Option("--json", hidden=True, help="Same as --format json.")]


def output_format(chosen: TextOrJson, json_flag: bool) -> TextOrJson:
    """``--format``, with the older ``--json`` spelling meaning ``--format json``."""
    return "json" if json_flag else chosen


# --- the MCP clients: check and vendor ---------------------------------------------------
#: the token of an HTTP endpoint: skillpack.client.http_transport.TOKEN_ENV
UrlOpt = Annotated[
    str | None,
    typer.Option(
        "--url",
        metavar="URL",
        help="A Streamable HTTP endpoint (token from SKILLPACK_HTTP_TOKEN).",
    ),
]
#: the clients' default wait for a response (``skillpack.client.transport.DEFAULT_TIMEOUT``;
#: not imported from there: the client package costs ``check --help`` 40 ms)
RESPONSE_TIMEOUT = 30.0
ResponseTimeoutOpt = Annotated[
    float,
    typer_option(
        Option(
            "timeout",
            ("--timeout",),
            "seconds to wait for each response",
            float,
            "SECONDS",
            check=positive_seconds,
        )
    ),
]
_ERAS = "modern (MCP 2026-07-28), legacy (2024-11-05 to 2025-11-25)"
CheckEraOpt = Annotated[
    Literal["both", "modern", "legacy"],
    typer.Option("--era", help=f"The protocol era to run the scenarios in: {_ERAS} or both."),
]
VendorEraOpt = Annotated[
    Literal["auto", "modern", "legacy"],
    typer.Option(
        "--era", help=f"The protocol era to speak: {_ERAS} or auto (modern, else legacy)."
    ),
]

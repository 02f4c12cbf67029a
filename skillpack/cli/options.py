"""Options several commands share, each defined once.

* ``--config FILE`` (lint, fmt, lock, build, install, uninstall);
* ``-a/--agent`` and ``-g/--global`` (install, uninstall);
* ``-f/--format``: the one machine-output convention (``text`` or ``json``; lint also
  ``sarif`` and ``github``) of lint, rule, inspect, diff, check and verify; the older
  ``--json`` flag of inspect, diff and check still works, hidden from the help;
* the signature options of verify, sign and build: :mod:`skillpack.cli.signing_options`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

ConfigOpt = Annotated[
    Path | None,
    typer.Option(
        "--config",
        metavar="FILE",
        help="Use this configuration file (default: the nearest skillpack.toml or "
        "pyproject.toml with [tool.skillpack]).",
    ),
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

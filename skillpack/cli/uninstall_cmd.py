"""``skillpack uninstall NAME... [-a AGENT]... [-g] [--force]``."""

from __future__ import annotations

from typing import Annotated

import typer

from skillpack.cli.base import CommandApp
from skillpack.cli.options import AgentOpt, ConfigOpt, GlobalOpt

app = CommandApp()


@app.command(
    "uninstall",
    epilog="Exit status: 0 removed; 1 a skill holds files modified or added locally "
    "(named; nothing was removed); 2 usage error or a name that is not installed.",
)
def uninstall_command(
    names: Annotated[
        list[str],
        typer.Argument(metavar="NAME", help="Installed skills to remove (their names)."),
    ],
    agent: AgentOpt = None,
    global_: GlobalOpt = False,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Remove installed files even when modified locally; keep (and name) "
            "the files skillpack did not install.",
        ),
    ] = False,
    config: ConfigOpt = None,
) -> None:
    """Remove installed skills: all of each skill, or nothing.

    Only the files skillpack installed go, and the directories it created once empty.
    When a skill named holds a file modified or added locally, nothing is removed (for
    any skill named) and every such file is named (exit 1); --force removes what
    skillpack installed, modified files included, and keeps the files it did not
    install, naming them. With -a, only those agents' directories go. The skill's entry
    leaves skillpack-install.lock with its last directory.
    """
    from skillpack.errors import display_path
    from skillpack.install.remove import uninstall
    from skillpack.install.targets import install_scope

    scope, _cfg, lock_path = install_scope(global_, config)
    report = uninstall(names, agent or (), scope, lock_path, force=force)
    for directory in report.removed:
        print(f"removed {directory}")
    for modified in report.modified:
        print(f"removed {modified} (modified locally; --force)")
    for kept in report.kept:
        print(f"kept {kept} (not installed by skillpack)")
    for left in report.left:
        print(f"left {left} (emptied of what skillpack installed; it holds files it did not)")
    print(f"updated {display_path(lock_path)}")

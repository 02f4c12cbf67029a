"""``skillpack uninstall NAME... [-a AGENT]... [-g] [--force]``."""

from __future__ import annotations

from typing import Annotated

import typer

from skillpack.cli.base import CommandApp
from skillpack.cli.options import AgentOpt, ConfigOpt, GlobalOpt

app = CommandApp()


@app.command(
    "uninstall",
    epilog="Exit status: 0 removed; 1 locally modified files were kept (named); 2 usage "
    "error or a name that is not installed.",
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
            "--force", help="Remove installed files even when they were modified locally."
        ),
    ] = False,
    config: ConfigOpt = None,
) -> None:
    """Remove installed skills: only the files skillpack installed, while they still
    have the installed digests, and the directories it created once empty.

    A locally modified file is kept and named (exit 1) unless --force; a file skillpack
    did not install is never removed. With -a, only those agents' directories go. The
    skill's entry leaves skillpack-install.lock with its last directory.
    """
    from skillpack.errors import display_path
    from skillpack.install.remove import uninstall
    from skillpack.install.targets import install_scope

    scope, _cfg, lock_path = install_scope(global_, config)
    report = uninstall(names, agent or (), scope, lock_path, force=force)
    for directory in report.removed:
        print(f"removed {directory}")
    for left in report.left:
        print(f"left {left} (not installed by skillpack)")
    print(f"updated {display_path(lock_path)}")

"""``skillpack lock [PATH] [--check]``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from skillpack.cli.base import CommandApp
from skillpack.cli.options import ConfigOpt

app = CommandApp()


@app.command("lock")
def lock_command(
    path: Annotated[
        Path | None,
        typer.Argument(
            metavar="PATH",
            help="Project directory or a path inside it (default: cwd).",
            show_default=False,
        ),
    ] = None,
    check: Annotated[
        bool,
        typer.Option(
            "--check", help="Do not write: exit 1 and list the changes if the lock is stale."
        ),
    ] = False,
    config: ConfigOpt = None,
) -> None:
    """Write skillpack.lock, or check that it describes the tree (--check).

    The lock records every skill's frontmatter and files with sizes and digests.
    """
    from skillpack.build.pipeline import lock_tree
    from skillpack.cli.output import plural
    from skillpack.errors import display_path
    from skillpack.lockfile.lock import LockError, check_lock
    from skillpack.lockfile.prologue import is_lock_file
    from skillpack.source.config import resolve_config
    from skillpack.source.discovery import discover
    from skillpack.source.outputs import refuse_foreign

    cfg = resolve_config([path] if path else [], config)
    if not check:  # only a lock skillpack wrote is replaced, checked before any work
        refuse_foreign(cfg, "lock", cfg.lock_path, "lock", is_lock_file)
    manifest, data = lock_tree(discover(cfg))
    shown = display_path(cfg.lock_path)
    counts = f"{plural(len(manifest.skills), 'skill')}, {plural(manifest.file_count, 'file')}"
    if check:
        status = check_lock(cfg.lock_path, manifest, data)
        if not status.up_to_date:
            raise LockError(
                "LCK004",
                status.problem,
                shown,
                "run 'skillpack lock' and commit the result",
                list(status.lines),
            )
        print(f"{shown} is up to date ({counts})")
        return
    from skillpack._internal.fsutil import Output

    lock = Output(cfg.lock_path, what="the lock")
    if lock.holds(data):
        print(f"{shown} is up to date ({counts})")
    else:
        lock.write(data)
        print(f"wrote {shown} ({counts})")

"""``skillpack plugins [PATH] [--host NAME]... [--check] [--diff]``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from skillpack.cli.base import CommandApp
from skillpack.cli.options import ConfigOpt, DiffOpt

app = CommandApp()


@app.command(
    "plugins",
    epilog="Hosts: claude (.claude-plugin/plugin.json, .claude-plugin/marketplace.json), "
    "codex (.codex-plugin/plugin.json, .agents/plugins/marketplace.json), cursor "
    "(.cursor-plugin/plugin.json), gemini (gemini-extension.json). skillpack writes the "
    "derived fields (name, version, description, skill paths, its marketplace entry, the "
    "metadata skillpack.toml declares) and keeps every other field. Exit status: 0 done or "
    "up to date, 1 manifests differ (--check, --diff) or the skills changed under an "
    "unchanged version, 2 usage or configuration error. See docs/plugins.md.",
)
def plugins_command(
    path: Annotated[
        Path | None,
        typer.Argument(
            metavar="PATH",
            help="Project directory or a path inside it (default: cwd).",
            show_default=False,
        ),
    ] = None,
    host: Annotated[
        list[str] | None,
        typer.Option(
            "--host",
            metavar="NAME",
            help="A host to write for (repeatable; default: [plugins] hosts, else the hosts "
            "whose manifests exist, else all).",
            show_default=False,
        ),
    ] = None,
    check: Annotated[
        bool,
        typer.Option(
            "--check", help="Change nothing; exit 1 listing each file and field that differs."
        ),
    ] = False,
    diff: DiffOpt = False,
    config: ConfigOpt = None,
) -> int:
    """Write the plugin manifests of Claude Code, Codex, Cursor and Gemini CLI."""
    from skillpack._internal.words import plural
    from skillpack.errors import SkillpackError, display_path
    from skillpack.plugins.sync import plan_plugins, unified_diff, write_plugins
    from skillpack.source.config import resolve_config
    from skillpack.source.discovery import discover

    cfg = resolve_config([path] if path else [], config)
    run = plan_plugins(cfg, discover(cfg), host or ())
    changed = run.changed
    if check or diff:
        for p in changed:
            if diff:
                sys.stdout.write(unified_diff(p))
            else:
                for line in p.differences():
                    sys.stdout.write(f"{display_path(p.path)}: {line}\n")
        sys.stdout.flush()
    else:
        written = write_plugins(run)
        for p in run.planned:
            verb = "wrote" if p in written else "up to date:"
            print(f"{verb} {display_path(p.path)}")
    if run.unbumped is not None:
        raise run.unbumped
    if changed and (check or diff):
        files = len(changed)
        raise SkillpackError(
            "PLG006",
            f"{plural(files, 'manifest')} of {len(run.planned)} "
            f"{'differs' if files == 1 else 'differ'} from what skillpack writes",
            hint="run 'skillpack plugins' and commit the result",
        )
    return 0

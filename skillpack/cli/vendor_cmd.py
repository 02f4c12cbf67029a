"""``skillpack vendor [--into DIR] -- CMD [ARGS...]`` (or ``--url URL``): the verifying
MCP client."""

from __future__ import annotations

import contextlib
import shlex
from pathlib import Path
from typing import Annotated, Literal

import typer

from skillpack.cli.base import CommandApp
from skillpack.cli.options import RESPONSE_TIMEOUT, ResponseTimeoutOpt, UrlOpt, VendorEraOpt
from skillpack.errors import UsageError

app = CommandApp()


@app.command("vendor", context_settings={"allow_interspersed_args": False})
def vendor_command(
    command: Annotated[
        list[str] | None, typer.Argument(metavar="CMD", help="The server command, after '--'.")
    ] = None,
    into: Annotated[
        Path | None,
        typer.Option(metavar="DIR", help="Write the verified skills into this new directory."),
    ] = None,
    skill: Annotated[
        list[str] | None,
        typer.Option(
            "--skill", metavar="SKILL", help="Only this skill (name, skill path or SKILL.md URI)."
        ),
    ] = None,
    allow_dynamic: Annotated[
        bool,
        typer.Option(
            "--allow-dynamic", help='Accept skills whose resources are "dynamic" (no digests).'
        ),
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Replace a non-empty --into directory.")
    ] = False,
    era: VendorEraOpt = "auto",
    timeout: ResponseTimeoutOpt = RESPONSE_TIMEOUT,
    url: UrlOpt = None,
) -> int:
    """Verify an MCP server's skills and write them into a tree, or list them.

    The server: a stdio command after -- (-- CMD), or a Streamable HTTP endpoint (--url
    URL).

    Without --into, list the skills; with it, verify every file against the listed
    digests and write the skills into DIR, ready to lock and build.
    """
    from skillpack.client import RpcError

    try:
        return _vendor(command, into, skill, allow_dynamic, force, era, timeout, url)
    except RpcError as exc:  # an error response to the handshake or the listing
        raise exc.refusal() from None


def _vendor(
    command: list[str] | None,
    into: Path | None,
    skill: list[str] | None,
    allow_dynamic: bool,
    force: bool,
    era: Literal["auto", "modern", "legacy"],
    timeout: float,
    url: str | None,
) -> int:
    from skillpack._internal.words import plural
    from skillpack.client import McpSession, entry_from_wire, open_connection, pull
    from skillpack.client.verify import DynamicEntry

    with contextlib.closing(open_connection(command or (), url=url, timeout=timeout)) as conn:
        session = McpSession(conn, era)
        description = session.connect()
        if description.skills_settings is None:
            raise UsageError(
                "CLI122",
                "the server does not declare the skills extension "
                f"(io.modelcontextprotocol/skills) in the {description.era} era",
            )
        if into is None:
            for item in session.list_skills():
                entry = entry_from_wire(item, allow_dynamic=True)
                if isinstance(entry, DynamicEntry):
                    print(f"{entry.uri}\tdynamic")
                else:
                    files = plural(len(entry.files), "file")
                    print(f"{entry.uri}\t{files}\t{plural(entry.total_size, 'byte')}")
            return 0
        report = pull(
            session,
            into,
            select=skill or (),
            allow_dynamic=allow_dynamic,
            force=force,
            origin=url or shlex.join(command or ()),
        )
    print(
        f"vendored {plural(len(report.skills), 'skill')}, {plural(report.files, 'file')}, "
        f"{plural(report.bytes, 'byte')} "
        f"into {report.into} (every file verified)"
    )
    for uri in report.dynamic:
        print(f"warning: {uri} is dynamic: its files could not be verified against digests")
    return 0

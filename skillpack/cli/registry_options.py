"""The registry options of push, pull, verify, inspect and install, as typer parameters
of the one table in :mod:`skillpack._internal.registry_flags` (serve's argparse reads
the same table, less the credentials on stdin: its stdin is the protocol's)."""

from __future__ import annotations

from typing import Annotated

import typer

from skillpack._internal.registry_flags import DEFAULT_TIMEOUT, REGISTRY_OPTION
from skillpack.cli.oci import RegistryFlags
from skillpack.cli.options import typer_option

#: a bundle file or an oci:// reference (a str: a Path would fold the '//')
SourceArg = Annotated[
    str,
    typer.Argument(
        metavar="BUNDLE",
        help="The .skp bundle, or oci://REGISTRY/REPOSITORY(:TAG|@sha256:DIGEST).",
    ),
]
UsernameOpt = Annotated[str | None, typer_option(REGISTRY_OPTION["username"], show_default=False)]
PasswordStdinOpt = Annotated[bool, typer_option(REGISTRY_OPTION["password_stdin"])]
InsecureOpt = Annotated[bool, typer_option(REGISTRY_OPTION["insecure_registry"])]
TimeoutOpt = Annotated[float, typer_option(REGISTRY_OPTION["timeout"])]
OfflineOpt = Annotated[bool, typer_option(REGISTRY_OPTION["offline"])]


def flags(
    username: str | None, password_stdin: bool, insecure: bool, timeout: float
) -> RegistryFlags:
    return RegistryFlags(username, password_stdin, insecure, timeout)


__all__ = [
    "DEFAULT_TIMEOUT",
    "InsecureOpt",
    "OfflineOpt",
    "PasswordStdinOpt",
    "SourceArg",
    "TimeoutOpt",
    "UsernameOpt",
    "flags",
]

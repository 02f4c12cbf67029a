"""The registry options of push, pull, verify and inspect, each defined once (serve,
argparse, declares the same flags in :mod:`skillpack.server.cli`, less the credentials
on stdin: its stdin is the protocol's)."""

from __future__ import annotations

from typing import Annotated

import typer

from skillpack.cli.oci import DEFAULT_TIMEOUT, RegistryFlags

#: a bundle file or an oci:// reference (a str: a Path would fold the '//')
SourceArg = Annotated[
    str,
    typer.Argument(
        metavar="BUNDLE",
        help="The .skp bundle, or oci://REGISTRY/REPOSITORY(:TAG|@sha256:DIGEST).",
    ),
]
UsernameOpt = Annotated[
    str | None,
    typer.Option(
        "--username",
        metavar="NAME",
        help="Registry user name; the password or token is read from stdin "
        "(--password-stdin). Default: the docker configuration, or "
        "SKILLPACK_REGISTRY_USERNAME/SKILLPACK_REGISTRY_PASSWORD (for the registry "
        "SKILLPACK_REGISTRY names, else the reference's).",
        show_default=False,
    ),
]
PasswordStdinOpt = Annotated[
    bool,
    typer.Option("--password-stdin", help="Read the password or token for --username from stdin."),
]
InsecureOpt = Annotated[
    bool,
    typer.Option(
        "--insecure-registry", help="Allow plain http to a registry that is not on loopback."
    ),
]
TimeoutOpt = Annotated[
    float,
    typer.Option(
        "--timeout",
        metavar="SECONDS",
        help="Seconds for each exchange with the registry, retries included.",
    ),
]
OfflineOpt = Annotated[
    bool,
    typer.Option(
        "--offline",
        help="Use the cache only: a tag resolves to the digest it last had; anything "
        "missing is an error (REG060).",
    ),
]


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

"""The registry options of the command line, declared once: ``push``, ``pull``,
``verify``, ``inspect`` and ``install`` (typer, :mod:`skillpack.cli.registry_options`)
and ``serve`` (argparse, :mod:`skillpack.server.cli`, which leaves out the credentials on
stdin: its stdin is the protocol's) read this table.

Here, not in :mod:`skillpack.registry`: serve's parser reads it at every start, and
serving a file imports nothing of the registry (nor typer, nor an HTTP library).
"""

from __future__ import annotations

from skillpack._internal.options import Option, positive_seconds

DEFAULT_TIMEOUT = 30.0

#: the options of an ``oci://`` source or target
REGISTRY_OPTIONS: tuple[Option, ...] = (
    Option("username", ("--username",), "registry user name; the password or token is read "
           "from stdin (--password-stdin). Default: the docker configuration, or "
           "SKILLPACK_REGISTRY_USERNAME/SKILLPACK_REGISTRY_PASSWORD (for the registry "
           "SKILLPACK_REGISTRY names, else the reference's)", metavar="NAME"),
    Option("password_stdin", ("--password-stdin",), "read the password or token for "
           "--username from stdin", bool),
    Option("insecure_registry", ("--insecure-registry",), "allow plain http to a registry "
           "that is not on loopback", bool),
    Option("timeout", ("--timeout",), "seconds for each exchange with a registry, retries "
           "included", float, "SECONDS", default=DEFAULT_TIMEOUT, check=positive_seconds),
    Option("offline", ("--offline",), "use the cache only: a tag resolves to the digest it "
           "last had; anything missing is an error (REG060)", bool),
)  # fmt: skip

#: the options above by field
REGISTRY_OPTION = {option.field: option for option in REGISTRY_OPTIONS}
#: the options that read stdin (not serve's: its stdin is the protocol's)
CREDENTIALS_ON_STDIN = ("username", "password_stdin")

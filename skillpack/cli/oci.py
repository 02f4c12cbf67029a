"""The registry options of the commands that take ``oci://`` references (push, pull,
verify, inspect, install): the client's options, and a password read from stdin. No
typer here: the command modules declare the options. What a pulled bundle is worth is
decided below the command line, by :mod:`skillpack.fetch`; pushing is
:mod:`skillpack.fetch.publish`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING

from skillpack._internal.registry_flags import DEFAULT_TIMEOUT

if TYPE_CHECKING:
    from skillpack.registry.options import ClientOptions

# -- connecting -----------------------------------------------------------------------------


@dataclass(frozen=True)
class RegistryFlags:
    """The registry options of push, pull, verify and inspect (serve has the same, less
    the credentials on stdin)."""

    username: str | None = None
    password_stdin: bool = False
    insecure_registry: bool = False
    timeout: float = DEFAULT_TIMEOUT

    def client_options(self, stdin: IO[str] | None = None) -> ClientOptions:
        """The client's options; with ``--password-stdin`` the password is read here."""
        from skillpack.registry.errors import registry_error
        from skillpack.registry.options import ClientOptions

        credentials = None
        if self.username is not None or self.password_stdin:
            if self.username is None or not self.password_stdin:
                raise registry_error(
                    "REG025",
                    "--username and --password-stdin go together",
                    hint='pipe the password or token: printf %s "$TOKEN" | skillpack ... '
                    "--username NAME --password-stdin",
                )
            if not self.username:
                raise registry_error("REG025", "--username is empty")
            from skillpack.registry.credentials import Credentials  # only when given

            password = read_password(sys.stdin if stdin is None else stdin)
            credentials = Credentials(self.username, password)
        return ClientOptions(
            timeout=self.timeout, insecure=self.insecure_registry, credentials=credentials
        )


def read_password(stream: IO[str]) -> str:
    """The password on ``stream``: all of it, without the final line break (as
    ``docker login --password-stdin`` reads it). Empty is ``REG025``."""
    from skillpack.registry.errors import registry_error

    text = stream.read()
    if text.endswith("\n"):
        text = text[:-2] if text.endswith("\r\n") else text[:-1]
    if not text:
        raise registry_error(
            "REG025",
            "--password-stdin: nothing was read from stdin",
            hint="pipe the password or token into the command",
        )
    return text

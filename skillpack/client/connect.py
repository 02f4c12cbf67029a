"""One way to open a connection to a server: spawn a command (stdio) or reach a URL (HTTP)."""

from __future__ import annotations

import os
from collections.abc import Sequence

from skillpack.client.transport import DEFAULT_TIMEOUT, Connection, StdioConnection
from skillpack.errors import UsageError


def open_connection(
    argv: Sequence[str] = (), *, url: str | None = None, timeout: float = DEFAULT_TIMEOUT
) -> Connection:
    """An :class:`~skillpack.client.http_transport.HttpConnection` to ``url`` (the bearer
    token, if any, from ``SKILLPACK_HTTP_TOKEN``), else a :class:`StdioConnection` that
    spawns ``argv``."""
    if url is not None and argv:
        raise UsageError(
            "CLI004",
            "give a server command after '--' or --url, not both",
            hint="--url URL reaches a running server; '-- CMD ...' spawns one",
        )
    if url is None:
        if not argv:
            raise UsageError(
                "CLI002",
                "no server given",
                hint="put the server command after '--', or give --url URL",
            )
        return StdioConnection(argv, timeout=timeout)
    from urllib.parse import urlsplit

    from skillpack.client.http_transport import TOKEN_ENV, HttpConnection

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(
            "CLI005",
            f"--url {url!r} is not an http:// or https:// URL",
            hint="give the MCP endpoint, e.g. http://127.0.0.1:8080/mcp",
        )

    return HttpConnection(url, token=os.environ.get(TOKEN_ENV) or None, timeout=timeout)

"""A verifying host-side client for MCP servers that publish Agent Skills (SEP-2640).

Typical use::

    from skillpack.client import StdioConnection, McpSession, entry_from_wire, load_skill

    with StdioConnection(["skillpack", "serve", "skills.skp"]) as conn:  # or HttpConnection(url)
        session = McpSession(conn)
        session.connect()
        for item in session.list_skills():
            entry = entry_from_wire(item)          # a complete, well-formed manifest
            held, skill_md = load_skill(session, entry)   # SKILL.md verified
            data = held.read(entry.files[-1].uri)  # only URIs of the held entry, verified

Everything that fails a check raises :class:`VerificationError` naming the URI.
"""

from __future__ import annotations

from skillpack.client.connect import open_connection
from skillpack.client.http_transport import HttpConnection
from skillpack.client.pull import PullReport, pull
from skillpack.client.session import LEGACY_VERSIONS, MODERN_VERSION, McpSession, ServerDescription
from skillpack.client.transport import MalformedReply, RpcError, StdioConnection, TransportError
from skillpack.client.verify import (
    DynamicEntry,
    HeldSkill,
    VerificationError,
    check_frontmatter,
    content_bytes,
    entry_from_wire,
    load_skill,
)

__all__ = [
    "LEGACY_VERSIONS",
    "MODERN_VERSION",
    "DynamicEntry",
    "HeldSkill",
    "HttpConnection",
    "MalformedReply",
    "McpSession",
    "PullReport",
    "RpcError",
    "ServerDescription",
    "StdioConnection",
    "TransportError",
    "VerificationError",
    "check_frontmatter",
    "content_bytes",
    "entry_from_wire",
    "load_skill",
    "open_connection",
    "pull",
]

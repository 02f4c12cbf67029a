"""An MCP client session in either protocol era, with the Skills extension's methods.

Modern (2026-07-28) is stateless: every request carries ``_meta`` with the protocol
version and client capabilities; ``server/discover`` tells what the server offers.
Legacy (2024-11-05 .. 2025-11-25) starts with ``initialize``. ``era="auto"`` follows the
dual-era client rules: try ``server/discover``; a result or a ``-32022`` error means a
modern server, anything else falls back to ``initialize``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from skillpack._internal.version import __version__
from skillpack.client.transport import Connection, MalformedReply, RpcError, TransportError

MODERN_VERSION = "2026-07-28"
LEGACY_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
SKILLS_EXTENSION = "io.modelcontextprotocol/skills"
CLIENT_INFO = {"name": "skillpack", "version": __version__}
MAX_PAGES = 10_000

Era = Literal["modern", "legacy"]


@dataclass
class ServerDescription:
    era: Era
    protocol_version: str
    capabilities: dict[str, Any]
    server_info: dict[str, Any] | None
    instructions: str | None
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def skills_settings(self) -> dict[str, Any] | None:
        """The extension's settings object, or None when the extension is not declared.
        A ``{"config": {...}}`` envelope (seen in some implementations) is unwrapped."""
        value = (self.capabilities.get("extensions") or {}).get(SKILLS_EXTENSION)
        if not isinstance(value, dict):
            return None
        config = value.get("config")
        if isinstance(config, dict) and "directoryRead" not in value:
            return config
        return value

    @property
    def directory_read(self) -> bool:
        settings = self.skills_settings or {}
        return settings.get("directoryRead") is True


class McpSession:
    """Requests over a connection (stdio or HTTP) in one era."""

    def __init__(self, conn: Connection, era: Literal["auto", "modern", "legacy"] = "auto"):
        self.conn = conn
        self.requested_era = era
        self.description: ServerDescription | None = None

    # -- connecting ----------------------------------------------------------------
    def meta(self, version: str = MODERN_VERSION) -> dict[str, Any]:
        return {
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": {"extensions": {SKILLS_EXTENSION: {}}},
            "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
        }

    def connect(self) -> ServerDescription:
        if self.requested_era in ("auto", "modern"):
            try:
                return self._discover()
            except RpcError as exc:
                if self.requested_era == "modern":
                    raise
                if exc.code == -32022:
                    raise  # a modern server that speaks none of our versions
            except TransportError:
                if self.requested_era == "modern":
                    raise
        return self._initialize()

    def _discover(self) -> ServerDescription:
        response = self.conn.call_raw("server/discover", {"_meta": self.meta()})
        result = _result(response, "server/discover")
        description = ServerDescription(
            era="modern",
            protocol_version=MODERN_VERSION,
            capabilities=_dict(result.get("capabilities")),
            server_info=_dict((result.get("_meta") or {}).get("io.modelcontextprotocol/serverInfo"))
            or None,
            instructions=result.get("instructions"),
            raw=result,
        )
        self.description = description
        return description

    def _initialize(self) -> ServerDescription:
        params = {
            "protocolVersion": LEGACY_VERSIONS[0],
            "capabilities": {"extensions": {SKILLS_EXTENSION: {}}},
            "clientInfo": CLIENT_INFO,
        }
        result = _result(self.conn.call_raw("initialize", params), "initialize")
        self.conn.notify("notifications/initialized")
        description = ServerDescription(
            era="legacy",
            protocol_version=str(result.get("protocolVersion", "")),
            capabilities=_dict(result.get("capabilities")),
            server_info=_dict(result.get("serverInfo")) or None,
            instructions=result.get("instructions"),
            raw=result,
        )
        self.description = description
        return description

    @property
    def era(self) -> Era:
        if self.description is None:
            raise RuntimeError("connect() first")
        return self.description.era

    # -- requests ------------------------------------------------------------------
    def params(self, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        out = dict(params or {})
        if self.era == "modern":
            out["_meta"] = self.meta()
        return out

    def request(self, method: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Send ``method`` with era-appropriate params; the result, or RpcError."""
        return _result(self.conn.call_raw(method, self.params(params)), method)

    def paginate(
        self, method: str, key: str, params: Mapping[str, Any] | None = None
    ) -> Iterator[tuple[dict[str, Any], list[Any]]]:
        """Every page of a paginated method: (page result, its ``key`` items)."""
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(MAX_PAGES):
            page_params = dict(params or {})
            if cursor is not None:
                page_params["cursor"] = cursor
            result = self.request(method, page_params)
            items = result.get(key)
            yield result, items if isinstance(items, list) else []
            next_cursor = result.get("nextCursor")
            if next_cursor is None:
                return
            if not isinstance(next_cursor, str):
                raise _malformed(method, f"nextCursor is not a string: {next_cursor!r}")
            if next_cursor in seen:
                raise _malformed(method, f"cursor {next_cursor!r} repeats (a loop)")
            seen.add(next_cursor)
            cursor = next_cursor
        raise _malformed(method, f"more than {MAX_PAGES} pages")

    # -- the Skills extension --------------------------------------------------------
    def list_skills(self) -> list[Any]:
        return [item for _, items in self.paginate("skills/list", "skills") for item in items]

    def get_skill(self, uri: str) -> Any:
        return self.request("skills/get", {"uri": uri}).get("skill")

    def read_resource(self, uri: str) -> dict[str, Any]:
        return self.request("resources/read", {"uri": uri})

    def read_directory(self, uri: str) -> list[Any]:
        return [
            item
            for _, items in self.paginate("resources/directory/read", "resources", {"uri": uri})
            for item in items
        ]


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _malformed(method: str, message: str) -> MalformedReply:
    error = MalformedReply(message)
    error.method = method
    return error


def _result(response: Mapping[str, Any], method: str) -> dict[str, Any]:
    """The result of ``response`` to ``method``; :class:`RpcError` for an error response,
    :class:`MalformedReply` for a reply that is neither."""
    if "error" in response:
        error = response["error"]
        code = error.get("code") if isinstance(error, dict) else None
        if not isinstance(code, int) or isinstance(code, bool):
            raise _malformed(method, f"an error that is not a JSON-RPC error: {str(error)[:80]}")
        assert isinstance(error, dict)
        refused = RpcError(code, str(error.get("message", "")), error.get("data"))
        refused.method = method
        raise refused
    result = response.get("result")
    if not isinstance(result, dict):
        raise _malformed(method, f"result is not an object: {str(result)[:80]}")
    return result

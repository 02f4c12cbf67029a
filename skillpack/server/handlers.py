"""One function per MCP method, answering from the :class:`~.index.Index`.

Handlers return a :class:`Result`: the members of the result object, already
encoded, which :mod:`.protocol` wraps with the era's common fields (``resultType``,
``ttlMs``/``cacheScope`` where the method is cacheable, ``_meta`` serverInfo).
Errors are raised as :class:`~.jsonrpc.RpcError`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from skillpack._internal.version import __version__
from skillpack.server.content import Encoded, ReadFailure, VerifiedReader
from skillpack.server.fallbacks import Fallbacks, protocol_instructions
from skillpack.server.index import Index, JSONObject
from skillpack.server.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    LEGACY_RESOURCE_NOT_FOUND,
    RpcError,
    encode_json,
)
from skillpack.server.results import Call as Call
from skillpack.server.results import Result as Result
from skillpack.server.results import cursor as _cursor
from skillpack.server.results import page_start as _page_start
from skillpack.server.results import result as result
from skillpack.server.results import string_param as _string_param

#: Revisions served statelessly (every request carries its version in ``_meta``).
MODERN_VERSIONS = ("2026-07-28",)
#: Revisions served after an ``initialize`` handshake, newest first.
LEGACY_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
SKILLS_EXTENSION = "io.modelcontextprotocol/skills"
SERVER_INFO: JSONObject = {"name": "skillpack", "version": __version__}
#: the ``_meta`` member naming what is served: a list of ``{"name", "version", "kind"}``
#: (``"prefix"`` when mounted under one); ``skillpack vendor`` reads it
#: (:data:`skillpack.client.pull.BUNDLES_META`)
BUNDLES_META = "dev.skillpack/bundles"
#: A skills/list page stops growing once its entries reach this many bytes.
PAGE_BYTES = 1024 * 1024


@dataclass(frozen=True)
class ServeOptions:
    ttl_ms: int = 300_000
    cache_scope: str = "public"
    page_size: int = 100
    directory_read: bool = True
    #: the skills named in the instructions, one prompt per skill and the load_skill
    #: tool, for hosts without the Skills extension (``--extension-only`` turns them off)
    fallbacks: bool = True


Handler = Callable[[JSONObject, Call], Result]


class Methods:
    """The MCP methods this server answers, bound to one index and its options."""

    def __init__(self, index: Index, options: ServeOptions, reader: VerifiedReader) -> None:
        self.index = index
        self.options = options
        self.reader = reader
        self.fallbacks = Fallbacks(index, reader, options.page_size) if options.fallbacks else None
        self.table: dict[str, Handler] = {
            "server/discover": self.discover,
            "ping": self.ping,
            "resources/list": self.resources_list,
            "resources/templates/list": self.templates_list,
            "resources/read": self.resources_read,
            "skills/list": self.skills_list,
            "skills/get": self.skills_get,
        }
        if options.directory_read:
            self.table["resources/directory/read"] = self.directory_read
        if self.fallbacks is not None:
            self.table.update(self.fallbacks.table())

    @property
    def instructions(self) -> str:
        """What is served and how to use it; with the fallbacks on, every skill that fits
        the budget by name, URI and description (built on the first discover)."""
        if self.fallbacks is not None:
            return self.fallbacks.instructions
        return protocol_instructions(self.index)

    def capabilities(self) -> JSONObject:
        settings = {"directoryRead": True} if self.options.directory_read else {}
        offered: JSONObject = {"resources": {}}
        if self.fallbacks is not None:
            offered.update({"prompts": {}, "tools": {}})
        return {**offered, "extensions": {SKILLS_EXTENSION: settings}}

    def initialize_result(self, version: str) -> JSONObject:
        """The legacy ``initialize`` result for the negotiated ``version``."""
        return {
            "protocolVersion": version,
            "capabilities": self.capabilities(),
            "serverInfo": SERVER_INFO,
            "instructions": self.instructions,
            "_meta": self.discover_meta(),
        }

    def discover_meta(self) -> JSONObject:
        """The ``_meta`` members of ``server/discover`` and ``initialize`` besides
        serverInfo: what is served (:data:`BUNDLES_META`), so a client such as
        ``skillpack vendor`` can keep the bundle's name and version."""
        bundles: list[object] = []
        for mount in self.index.mounts:
            manifest = mount.source.manifest
            described: JSONObject = {
                "name": manifest.name,
                "version": manifest.version,
                "kind": mount.kind,
            }
            if mount.prefix:
                described["prefix"] = mount.prefix
            bundles.append(described)
        return {BUNDLES_META: bundles}

    def discover(self, params: JSONObject, call: Call) -> Result:
        return result(
            {
                "supportedVersions": list(MODERN_VERSIONS),
                "capabilities": self.capabilities(),
                "instructions": self.instructions,
            },
            cacheable=True,
        )

    def ping(self, params: JSONObject, call: Call) -> Result:
        return result({})

    def resources_list(self, params: JSONObject, call: Call) -> Result:
        resources = self.index.resources
        start = _page_start(params, "resources", len(resources))
        end = min(start + self.options.page_size, len(resources))
        body = {
            "resources": list(resources[start:end]),
            **_cursor("resources", end, len(resources)),
        }
        return result(body, cacheable=True)

    def templates_list(self, params: JSONObject, call: Call) -> Result:
        _page_start(params, "templates", 0)  # one page: any cursor is invalid
        template = {
            "uriTemplate": "skill://{+path}",
            "name": "skill-file",
            "title": "A file of a skill",
            "description": "skill://<skill-path>/<file-path>: a file of a skill served here. "
            "skills/list gives every skill with the exact URIs of its files.",
        }
        return result({"resourceTemplates": [template]}, cacheable=True)

    def resources_read(self, params: JSONObject, call: Call) -> Result:
        uri = _string_param(params, "uri")
        served = self.index.file(uri)
        if served is None:
            is_dir = self.index.directory(uri) is not None
            what = "is a directory resource, not a file" if is_dir else "is not served here"
            code = INVALID_PARAMS if call.modern else LEGACY_RESOURCE_NOT_FOUND
            raise RpcError(code, f"Resource not found: {uri} {what}", {"uri": uri})
        try:
            contents = self.reader.contents(served)
        except ReadFailure as exc:
            raise RpcError(INTERNAL_ERROR, exc.message, {"uri": exc.uri}) from None
        if isinstance(contents, tuple):
            members: Encoded = (b'"contents":[', *contents, b"]")
        else:
            members = _wrap(b'"contents":[', contents, b"]")
        return Result(members, cacheable=True)

    def skills_list(self, params: JSONObject, call: Call) -> Result:
        skills = self.index.skill_list
        start = _page_start(params, "skills", len(skills))
        parts: list[bytes] = []
        size, end = 0, start
        while end < len(skills) and end - start < self.options.page_size and size < PAGE_BYTES:
            encoded = skills[end].encoded()
            parts.append(encoded)
            size += len(encoded)
            end += 1
        members = [b'"skills":[', b",".join(parts), b"]"]
        if end < len(skills):
            members.append(b"," + encode_json(_cursor("skills", end, len(skills)))[1:-1])
        return Result(members, cacheable=True)

    def skills_get(self, params: JSONObject, call: Call) -> Result:
        uri = _string_param(params, "uri")
        skill = self.index.skill(uri)
        if skill is None:
            raise RpcError(INVALID_PARAMS, f"No skill is served at {uri}", {"uri": uri})
        return Result((b'"skill":', skill.encoded()), cacheable=True)

    def directory_read(self, params: JSONObject, call: Call) -> Result:
        uri = _string_param(params, "uri")
        directory = self.index.directory(uri)
        if directory is None:
            what = (
                "is not a directory resource"
                if self.index.file(uri) is not None
                else "is not served here"
            )
            raise RpcError(INVALID_PARAMS, f"{uri} {what}", {"uri": uri})
        children = directory.children
        start = _page_start(params, "directory", len(children))
        end = min(start + self.options.page_size, len(children))
        # SEP-2640 does not make this result a CacheableResult, but MCP Inspector 2.12
        # (the one client that checks the extension) refuses it without ttlMs/cacheScope.
        # Extra result fields are allowed, so both kinds of client are served.
        return result(
            {"resources": list(children[start:end]), **_cursor("directory", end, len(children))},
            cacheable=True,
        )


def _wrap(head: bytes, chunks: Iterable[bytes], tail: bytes) -> Iterator[bytes]:
    yield head
    yield from chunks
    yield tail

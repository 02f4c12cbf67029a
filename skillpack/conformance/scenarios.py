"""The conformance scenarios for a Skills-extension server, one function each.

Each scenario gets an :class:`EraContext` (a live session in one protocol era, with the
listing and the bytes read so far cached) and fills in an :class:`Outcome`. MUST rules
are ``expect``-ed (a failure fails the scenario); SHOULD rules are ``should``-ed
(warnings). The rule each check comes from is in the SEP-2640 text and the MCP
2026-07-28 base protocol; see docs/check.md.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from skillpack._internal.canonical import same_json
from skillpack._internal.uri import SKILL_MD
from skillpack.client.session import LEGACY_VERSIONS, MODERN_VERSION, McpSession, ServerDescription
from skillpack.client.transport import RpcError, TransportError
from skillpack.client.verify import (
    DynamicEntry,
    VerificationError,
    check_frontmatter,
    content_bytes,
    entry_from_wire,
)
from skillpack.conformance.model import Outcome
from skillpack.content import IntegrityError, check_bytes
from skillpack.manifest import MAX_BYTES_PER_SKILL, MAX_FILES_PER_SKILL, SkillEntry

CACHE_SCOPES = ("public", "private")
DIRECTORY_MIME = "inode/directory"


@dataclass
class EraContext:
    session: McpSession
    description: ServerDescription
    listing: list[Any] | None = None
    entries: list[SkillEntry] = field(default_factory=list)
    bytes_by_uri: dict[str, bytes] = field(default_factory=dict)

    @property
    def era(self) -> str:
        return self.description.era

    @property
    def modern(self) -> bool:
        return self.description.era == "modern"

    @property
    def declares_skills(self) -> bool:
        return self.description.skills_settings is not None

    def load_listing(self) -> list[Any]:
        if self.listing is None:
            self.listing = self.session.list_skills()
            for item in self.listing:
                try:
                    entry = entry_from_wire(item, allow_dynamic=True)
                except VerificationError:
                    continue
                if isinstance(entry, SkillEntry):
                    self.entries.append(entry)
        return self.listing


def _error_code(call: Callable[[], Any]) -> int | None:
    """Run ``call``; the JSON-RPC error code it raised, or None when it succeeded."""
    try:
        call()
    except RpcError as exc:
        return exc.code
    return None


def _cacheable(out: Outcome, result: dict[str, Any], method: str, ctx: EraContext) -> None:
    if not ctx.modern:
        return
    ttl = result.get("ttlMs")
    out.expect(
        isinstance(ttl, int) and not isinstance(ttl, bool) and ttl >= 0,
        f"{method}: ttlMs must be an integer >= 0, got {ttl!r}",
    )
    out.expect(
        result.get("cacheScope") in CACHE_SCOPES,
        f"{method}: cacheScope must be 'public' or 'private', got {result.get('cacheScope')!r}",
    )


def _result_type(out: Outcome, result: dict[str, Any], method: str, ctx: EraContext) -> None:
    if ctx.modern:
        out.expect(
            result.get("resultType") == "complete",
            f"{method}: resultType must be 'complete', got {result.get('resultType')!r}",
        )


# --- scenarios ---------------------------------------------------------------------
def declaration(ctx: EraContext, out: Outcome) -> None:
    """The extension is declared with `resources`; discover/initialize have their shape."""
    raw = ctx.description.raw
    caps = ctx.description.capabilities
    if ctx.modern:
        versions = raw.get("supportedVersions")
        out.expect(
            isinstance(versions, list) and MODERN_VERSION in versions,
            f"server/discover: supportedVersions must list {MODERN_VERSION}, got {versions!r}",
        )
        _result_type(out, raw, "server/discover", ctx)
        _cacheable(out, raw, "server/discover", ctx)
        out.should(
            ctx.description.server_info is not None,
            "server/discover: _meta['io.modelcontextprotocol/serverInfo'] should be present",
        )
        out.expect("serverInfo" not in raw, "server/discover: serverInfo belongs in _meta")
    else:
        out.expect(
            ctx.description.protocol_version in LEGACY_VERSIONS,
            f"initialize: protocolVersion {ctx.description.protocol_version!r} is not one of "
            f"{', '.join(LEGACY_VERSIONS)}",
        )
        out.should(ctx.description.server_info is not None, "initialize: serverInfo is missing")
    settings = (caps.get("extensions") or {}).get("io.modelcontextprotocol/skills")
    if ctx.modern:
        out.expect(
            isinstance(settings, dict),
            "capabilities.extensions must declare the skills extension as an object",
        )
    else:
        out.should(
            isinstance(settings, dict),
            "initialize: the skills extension is not declared "
            "(legacy hosts cannot find the skills)",
        )
    if isinstance(settings, dict):
        out.expect(
            isinstance(caps.get("resources"), dict),
            "a server declaring the skills extension must declare `resources`",
        )
        out.should("config" not in settings, "settings should be flat, not under 'config'")
        if "directoryRead" in settings:
            out.expect(
                isinstance(settings["directoryRead"], bool),
                f"directoryRead must be a boolean, got {settings['directoryRead']!r}",
            )


def skills_list(ctx: EraContext, out: Outcome) -> None:
    """Pagination with cursors, complete well-formed entries, caching fields."""
    scopes: set[Any] = set()
    uris: list[str] = []
    pages = 0
    for result, items in ctx.session.paginate("skills/list", "skills"):
        pages += 1
        out.expect(isinstance(result.get("skills"), list), "skills/list: skills must be an array")
        _result_type(out, result, f"skills/list page {pages}", ctx)
        _cacheable(out, result, f"skills/list page {pages}", ctx)
        scopes.add(result.get("cacheScope"))
        for item in items:
            try:
                entry = entry_from_wire(item, allow_dynamic=True)
            except VerificationError as exc:
                out.expect(False, f"skills/list page {pages}: {exc.message}")
                continue
            out.checks += 1
            uris.append(entry.uri)
            if isinstance(entry, DynamicEntry):
                out.warnings.append(f'{entry.uri}: resources is "dynamic" (cannot be verified)')
    out.expect(
        len(uris) == len(set(uris)),
        "skills/list: a skill is listed more than once (an entry split or repeated across pages)",
    )
    if ctx.modern:
        out.expect(
            len(scopes) <= 1, f"skills/list: pages differ in cacheScope {sorted(map(str, scopes))}"
        )
    code = _error_code(lambda: ctx.session.request("skills/list", {"cursor": "\x00not-a-cursor"}))
    out.should(code == -32602, f"skills/list with an invalid cursor should give -32602, got {code}")
    ctx.load_listing()
    out.should(bool(ctx.entries), "skills/list returned no skills with manifests to test further")


def resources_read(ctx: EraContext, out: Outcome) -> None:
    """Every listed file reads back with the listed size and sha256."""
    ctx.load_listing()
    for entry in ctx.entries:
        for file in entry.files:
            if file.uri in ctx.bytes_by_uri:
                continue
            try:
                result = ctx.session.read_resource(file.uri)
            except RpcError as exc:
                out.expect(False, f"{file.uri}: resources/read failed: {exc}")
                continue
            _result_type(out, result, f"resources/read {file.uri}", ctx)
            _cacheable(out, result, f"resources/read {file.uri}", ctx)
            try:
                data = check_bytes(file, content_bytes(result, file.uri), against="listed")
            except (VerificationError, IntegrityError) as exc:
                out.expect(False, exc.message)
                continue
            out.checks += 1
            ctx.bytes_by_uri[file.uri] = data
            contents = result.get("contents") or [{}]
            mime = contents[0].get("mimeType") if isinstance(contents[0], dict) else None
            if file.path == SKILL_MD:
                out.should(
                    mime == "text/markdown",
                    f"{file.uri}: mimeType should be text/markdown, got {mime!r}",
                )
    if ctx.entries:
        missing = ctx.entries[0].uri.removesuffix(SKILL_MD) + "no-such-file-skillpack-check.md"
        code = _error_code(lambda: ctx.session.read_resource(missing))
        allowed = (-32602,) if ctx.modern else (-32602, -32002)
        out.expect(
            code in allowed,
            f"resources/read of an unknown URI must fail with "
            f"{' or '.join(map(str, allowed))}, got {code}",
        )


def frontmatter(ctx: EraContext, out: Outcome) -> None:
    """SKILL.md frontmatter equals the entry field by field; names; limits."""
    ctx.load_listing()
    for entry in ctx.entries:
        data = ctx.bytes_by_uri.get(entry.uri)
        if data is None:
            try:
                data = content_bytes(ctx.session.read_resource(entry.uri), entry.uri)
            except (RpcError, VerificationError) as exc:
                out.expect(False, f"{entry.uri}: cannot read SKILL.md: {exc}")
                continue
        try:
            check_frontmatter(entry.uri, data, entry.frontmatter)
            out.checks += 1
        except VerificationError as exc:
            out.expect(False, exc.message)
        out.should(
            len(entry.files) <= MAX_FILES_PER_SKILL,
            f"{entry.uri}: {len(entry.files)} files, over the {MAX_FILES_PER_SKILL} limit",
        )
        out.should(
            entry.total_size <= MAX_BYTES_PER_SKILL,
            f"{entry.uri}: {entry.total_size} bytes, over the 16 MiB limit",
        )


def skills_get(ctx: EraContext, out: Outcome) -> None:
    """skills/get answers every listed skill identically, and -32602 for unknown ones."""
    listing = {
        item["uri"]: item
        for item in ctx.load_listing()
        if isinstance(item, dict) and isinstance(item.get("uri"), str)
    }
    for uri, listed in listing.items():
        try:
            result = ctx.session.request("skills/get", {"uri": uri})
        except RpcError as exc:
            out.expect(False, f"skills/get {uri} failed: {exc}")
            continue
        _result_type(out, result, f"skills/get {uri}", ctx)
        _cacheable(out, result, f"skills/get {uri}", ctx)
        out.expect("nextCursor" not in result, f"skills/get {uri}: result must not carry a cursor")
        got = result.get("skill")
        out.expect(_same_entry(got, listed), f"skills/get {uri}: differs from the listed entry")
    code = _error_code(
        lambda: ctx.session.request("skills/get", {"uri": "skill://skillpack-check-none/SKILL.md"})
    )
    out.expect(code == -32602, f"skills/get of an unknown skill must give -32602, got {code}")


def _sort_key(resource: Any) -> str:
    return json.dumps(resource, sort_keys=True)


def _same_entry(a: Any, b: Any) -> bool:
    """The same skill entry, whatever the order of its resources (none is mandated)."""

    def norm(entry: Any) -> Any:
        if not isinstance(entry, dict) or not isinstance(entry.get("resources"), list):
            return entry
        return {**entry, "resources": sorted(entry["resources"], key=_sort_key)}

    return same_json(norm(a), norm(b))


def _expected_tree(entries: list[SkillEntry]) -> dict[str, dict[str, bool]]:
    """Directory URI -> {child URI: is_directory}, for every prefix level and subfolder."""
    tree: dict[str, dict[str, bool]] = {}
    for entry in entries:
        scheme, _, path = entry.uri.partition("://")
        root_parts = path.removesuffix("/" + SKILL_MD).split("/")
        for file in entry.files:
            parts = root_parts + file.uri[len(entry.uri) - len(SKILL_MD) :].split("/")
            for depth in range(1, len(parts)):
                parent = f"{scheme}://" + "/".join(parts[:depth])
                child = f"{scheme}://" + "/".join(parts[: depth + 1])
                tree.setdefault(parent, {})[child] = depth + 1 < len(parts)
    return tree


def directory_read(ctx: EraContext, out: Outcome) -> None:
    """Children consistent with the manifests at every level; errors for non-directories."""
    if not ctx.description.directory_read:
        out.skipped = "the server does not declare directoryRead"
        return
    ctx.load_listing()
    for directory, expected in sorted(_expected_tree(ctx.entries).items()):
        try:
            children = ctx.session.read_directory(directory)
        except RpcError as exc:
            out.expect(False, f"resources/directory/read {directory} failed: {exc}")
            continue
        got: dict[str, bool] = {}
        for child in children:
            uri = child.get("uri") if isinstance(child, dict) else None
            if not isinstance(uri, str):
                out.expect(False, f"{directory}: malformed child {str(child)[:80]}")
                continue
            out.expect(not uri.endswith("/"), f"{uri}: directory URIs have no trailing slash")
            out.expect(isinstance(child.get("name"), str), f"{uri}: a Resource needs a name")
            got[uri] = child.get("mimeType") == DIRECTORY_MIME
        for uri, is_dir in expected.items():
            if uri not in got:
                out.expect(False, f"{directory}: child {uri} is missing")
            else:
                out.expect(
                    got[uri] == is_dir,
                    f"{uri}: mimeType should {'' if is_dir else 'not '}be inode/directory",
                )
    if ctx.entries:
        skill_md = ctx.entries[0].uri
        code = _error_code(lambda: ctx.session.read_directory(skill_md))
        out.expect(
            code == -32602, f"directory read of a file ({skill_md}) must give -32602, got {code}"
        )
    code = _error_code(lambda: ctx.session.read_directory("skill://skillpack-check-none"))
    out.expect(code == -32602, f"directory read of a missing URI must give -32602, got {code}")


def errors(ctx: EraContext, out: Outcome) -> None:
    """Error codes: unknown method, missing _meta, unsupported version, malformed input."""
    conn = ctx.session.conn
    code = _error_code(lambda: ctx.session.request("skillpack-check/no-such-method"))
    out.expect(code == -32601, f"an unknown method must give -32601, got {code}")
    if ctx.modern:
        response = conn.call_raw("skills/list", {})
        code = response.get("error", {}).get("code") if "error" in response else None
        out.expect(code == -32602, f"a request without _meta must give -32602, got {code}")
        meta = ctx.session.meta("1900-01-01")
        response = conn.call_raw("skills/list", {"_meta": meta})
        raw_error = response.get("error")
        error: dict[str, Any] = raw_error if isinstance(raw_error, dict) else {}
        out.expect(
            error.get("code") == -32022,
            f"an unsupported version must give -32022, got {error.get('code')}",
        )
        raw_data = error.get("data")
        data: dict[str, Any] = raw_data if isinstance(raw_data, dict) else {}
        out.expect(
            isinstance(data.get("supported"), list) and data.get("requested") == "1900-01-01",
            "-32022 must carry data {supported: [...], requested: '1900-01-01'}",
        )
    conn.send_raw(b"{this is not json\n")
    try:
        unmatched = conn.wait_unmatched(timeout=3.0)
    except TransportError:
        unmatched = None
    code = (unmatched or {}).get("error", {}).get("code") if unmatched else None
    out.expect(code == -32700, f"a malformed line must be answered with -32700, got {code}")
    # the server must still be serving afterwards
    try:
        ctx.session.request("skillpack-check/still-alive")
        alive = True
    except RpcError:
        alive = True
    except TransportError:
        alive = False
    out.expect(alive, "the server stopped answering after a malformed line")


SCENARIOS: tuple[tuple[str, Callable[[EraContext, Outcome], None]], ...] = (
    ("declaration", declaration),
    ("skills-list", skills_list),
    ("resources-read", resources_read),
    ("frontmatter", frontmatter),
    ("skills-get", skills_get),
    ("directory-read", directory_read),
    ("errors", errors),
)

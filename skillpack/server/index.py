"""The in-memory catalogue the server answers from.

Built once at start from the mounted sources: every served URI mapped to the file
entry (and source) that vouches for its bytes, every skill's wire entry, and the
directory tree (every prefix level and every subdirectory). Two sources that would
serve the same URI, or put a file inside another source's skill directory, are
refused here, before the first request is read. Expensive parts (resource metadata,
directories, encoded skill entries) are computed on first use.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from skillpack._internal.uri import SCHEME, SKILL_MD, decode_path, normalize_uri
from skillpack.content import ContentSource
from skillpack.errors import Location, SkillpackError
from skillpack.manifest import FileEntry, SkillEntry
from skillpack.server.jsonrpc import encode_json
from skillpack.server.mime import DIRECTORY, MARKDOWN, mime_type
from skillpack.server.sources import Mount

JSONObject = dict[str, Any]


class CatalogueError(SkillpackError):
    """The mounted sources cannot be served together (exit 2)."""


def mounted_uri(prefix: str, uri: str) -> str:
    """``uri`` of a source moved under ``prefix``: ``skill://a/SKILL.md`` -> ``skill://p/a/...``."""
    if not prefix:
        return uri
    if not uri.startswith(SCHEME):
        raise CatalogueError("SRV008", f"{uri}: only skill:// URIs can be mounted under a prefix")
    return f"{SCHEME}{prefix}/{uri[len(SCHEME) :]}"


@dataclass(slots=True, eq=False)  # not frozen: thousands are made at start, cheaply
class ServedFile:
    """One served file: its URI, the manifest entry that vouches for it, where it lives."""

    uri: str
    entry: FileEntry  #: as the source's manifest holds it (the source reads by this)
    source: ContentSource
    skill: SkillEntry  #: the innermost skill holding the file
    mount: int  #: index of the mount in :attr:`Index.mounts`

    @property
    def mime_type(self) -> str | None:
        return MARKDOWN if self.entry.path.rsplit("/", 1)[-1] == SKILL_MD else mime_type(self.uri)

    @property
    def is_skill_md(self) -> bool:
        """The ``SKILL.md`` of :attr:`skill` itself (not a nested one seen from a parent)."""
        return self.entry.path == SKILL_MD

    def resource(self) -> JSONObject:
        """The ``Resource`` listed by ``resources/list``."""
        out: JSONObject = {"uri": self.uri}
        if self.is_skill_md:
            name = self.skill.frontmatter.get("name")
            description = self.skill.frontmatter.get("description")
            out["name"] = name if isinstance(name, str) and name else self.skill.name
            if isinstance(description, str):
                out["description"] = description
        else:
            out["name"] = self.entry.path
        mime = self.mime_type
        if mime:
            out["mimeType"] = mime
        out["size"] = self.entry.size
        return out

    def child(self) -> JSONObject:
        """The ``Resource`` of this file in its directory's listing (named by basename)."""
        out: JSONObject = {"uri": self.uri, "name": self.entry.path.rsplit("/", 1)[-1]}
        mime = self.mime_type
        if mime:
            out["mimeType"] = mime
        out["size"] = self.entry.size
        return out


@dataclass(slots=True)
class ServedSkill:
    """One skill as served (URIs moved under the mount's prefix)."""

    uri: str
    skill_path: str
    entry: SkillEntry
    prefix: str
    _encoded: bytes | None = field(default=None, repr=False)

    def wire(self) -> JSONObject:
        """The SEP-2640 ``Skill`` object."""
        return {
            "uri": self.uri,
            "frontmatter": dict(self.entry.frontmatter),
            "resources": [
                {"uri": mounted_uri(self.prefix, f.uri), "digest": f.digest, "size": f.size}
                for f in self.entry.files
            ],
        }

    def encoded(self) -> bytes:
        """:meth:`wire` as JSON bytes, encoded once."""
        if self._encoded is None:
            self._encoded = encode_json(self.wire())
        return self._encoded


@dataclass(frozen=True, slots=True)
class Directory:
    uri: str
    children: tuple[JSONObject, ...]  #: direct children, sorted by URI


def _conflict(uri: str, first: Mount, second: Mount, why: str) -> CatalogueError:
    return CatalogueError(
        "SRV006",
        f"{uri}: {why} ({first.origin} and {second.origin})",
        Location(second.origin),
        hint="serve them under different --prefix values, or drop one",
    )


def _ancestors(uri: str) -> list[str]:
    """Directory URIs above ``uri``, outermost first (``skill://a``, ``skill://a/b``)."""
    parts = uri[len(SCHEME) :].split("/")
    return [SCHEME + "/".join(parts[:i]) for i in range(1, len(parts))]


class Index:
    """Everything the handlers look up, keyed by served URI."""

    def __init__(self, mounts: Sequence[Mount]) -> None:
        self.mounts: tuple[Mount, ...] = tuple(mounts)
        self.files: dict[str, ServedFile] = {}
        self.skills: dict[str, ServedSkill] = {}
        roots: dict[str, int] = {}  # skill root directory URI -> mount index
        for number, mount in enumerate(self.mounts):
            self._add_mount(number, mount, roots)
        self.skill_list: tuple[ServedSkill, ...] = tuple(
            sorted(self.skills.values(), key=lambda s: s.skill_path.encode())
        )
        self._check_namespaces(roots)

    def _add_mount(self, number: int, mount: Mount, roots: dict[str, int]) -> None:
        prefix = mount.prefix
        # parents sort before their nested skills, so the innermost skill wins below
        for skill in sorted(mount.source.manifest.skills, key=lambda s: s.skill_path.encode()):
            uri = mounted_uri(prefix, skill.uri)
            if uri in self.skills:
                other = self.mounts[self.files[uri].mount]
                raise _conflict(uri, other, mount, "served by two sources")
            path = f"{prefix}/{skill.skill_path}" if prefix else skill.skill_path
            self.skills[uri] = ServedSkill(uri, path, skill, prefix)
            roots[uri[: -len(SKILL_MD) - 1]] = number
            for entry in skill.files:
                served = mounted_uri(prefix, entry.uri)
                known = self.files.get(served)
                if known is not None:
                    if known.mount != number:
                        raise _conflict(
                            served, self.mounts[known.mount], mount, "served by two sources"
                        )
                    if (known.entry.size, known.entry.digest) != (entry.size, entry.digest):
                        raise CatalogueError(
                            "SRV007",
                            f"{served}: listed twice with different sizes or digests",
                            Location(mount.origin),
                            hint="rebuild the bundle",
                        )
                self.files[served] = ServedFile(served, entry, mount.source, skill, number)

    def _check_namespaces(self, roots: dict[str, int]) -> None:
        """No URI is both a file and a directory; with several sources, a skill's
        directory holds only its own source's files."""
        if len(self.mounts) > 1:
            for uri, served in self.files.items():
                for ancestor in _ancestors(uri):
                    owner = roots.get(ancestor)
                    if owner is not None and owner != served.mount:
                        why = f"lies inside the skill directory {ancestor} of another source"
                        raise _conflict(uri, self.mounts[owner], self.mounts[served.mount], why)
        ordered = sorted(self.files)
        for uri in ordered:  # a file URI that another one continues with "/" is a directory
            below = bisect.bisect_left(ordered, uri + "/")
            if below < len(ordered) and ordered[below].startswith(uri + "/"):
                clash, inner = self.files[uri], self.files[ordered[below]]
                raise _conflict(uri, self.mounts[clash.mount], self.mounts[inner.mount],
                                "is both a file and a directory")  # fmt: skip

    # Lookups match the URI as sent, then after RFC 3986 normalization (scheme case,
    # percent-encoding case): the URIs served are in normal form, so a client's
    # equivalent spelling finds the same entry, and nothing else does.
    def skill(self, uri: str) -> ServedSkill | None:
        found = self.skills.get(uri)
        if found is None and (normal := normalize_uri(uri)) != uri:
            found = self.skills.get(normal)
        return found

    def file(self, uri: str) -> ServedFile | None:
        found = self.files.get(uri)
        if found is None and (normal := normalize_uri(uri)) != uri:
            found = self.files.get(normal)
        return found

    def directory(self, uri: str) -> Directory | None:
        found = self.directories.get(uri)
        if found is None and (normal := normalize_uri(uri)) != uri:
            found = self.directories.get(normal)
        return found

    @cached_property
    def resources(self) -> tuple[JSONObject, ...]:
        """``resources/list`` entries: skills in path order, each with ``SKILL.md`` first."""
        out: list[JSONObject] = []
        seen: set[str] = set()
        for skill in self.skill_list:
            for entry in skill.entry.files:
                uri = mounted_uri(skill.prefix, entry.uri)
                if uri not in seen:
                    seen.add(uri)
                    out.append(self.files[uri].resource())
        return tuple(out)

    @cached_property
    def directories(self) -> dict[str, Directory]:
        """Every directory resource: each prefix level and each subdirectory."""
        children: dict[str, dict[str, JSONObject]] = {}
        for uri, served in self.files.items():
            parts = uri[len(SCHEME) :].split("/")
            for depth in range(1, len(parts)):
                parent = SCHEME + "/".join(parts[:depth])
                listing = children.setdefault(parent, {})
                if depth == len(parts) - 1:
                    listing[uri] = served.child()
                else:
                    child = SCHEME + "/".join(parts[: depth + 1])
                    if child not in listing:
                        listing[child] = {
                            "uri": child,
                            "name": decode_path(parts[depth]),
                            "mimeType": DIRECTORY,
                        }
        return {
            uri: Directory(uri, tuple(listing[k] for k in sorted(listing, key=str.encode)))
            for uri, listing in sorted(children.items())
        }

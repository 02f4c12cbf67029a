"""Host-side verification of SEP-2640 skill entries and the bytes read for them.

The rules (spec "Integrity and Verification"): an entry is a complete manifest; a host
holds the entry it loads from, reads only URIs listed in it, checks the size and sha256
of every file it reads, and compares the served ``SKILL.md`` frontmatter field by field
with the entry's. Nothing that fails a check is ever returned.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from skillpack._internal.canonical import same_json
from skillpack._internal.uri import SKILL_MD, decode_path
from skillpack.client.session import McpSession
from skillpack.content import IntegrityError, check_bytes
from skillpack.errors import EXIT_FINDINGS, SkillpackError
from skillpack.manifest import DIGEST_RE, EXECUTABLE_META, FileEntry, SkillEntry
from skillpack.source.frontmatter import FrontmatterError, parse_skill_md


class VerificationError(SkillpackError):
    """A skill entry or a file that fails a host-side check; ``uri`` names it."""

    def __init__(self, code: str, uri: str, message: str, hint: str | None = None) -> None:
        super().__init__(code, f"{uri}: {message}", exit_code=EXIT_FINDINGS, hint=hint)
        self.uri = uri


@dataclass(frozen=True)
class DynamicEntry:
    """A skill whose ``resources`` is ``"dynamic"``: no digests to check against."""

    uri: str
    skill_path: str
    frontmatter: Mapping[str, Any]


def _skill_path_of(uri: str) -> str:
    if "://" not in uri or not uri.endswith("/" + SKILL_MD):
        raise VerificationError("CLI101", uri, "a skill entry's uri must end in /SKILL.md")
    path = uri.split("://", 1)[1][: -len(SKILL_MD) - 1]
    if not path:
        raise VerificationError("CLI101", uri, "the skill path is empty")
    return path


def entry_from_wire(obj: Any, *, allow_dynamic: bool = False) -> SkillEntry | DynamicEntry:
    """Validate a ``Skill`` object from ``skills/list`` or ``skills/get`` into the manifest
    model. Raises VerificationError naming the URI and the broken rule."""
    if not isinstance(obj, dict) or not isinstance(obj.get("uri"), str):
        raise VerificationError("CLI101", "(entry)", f"not a skill entry: {str(obj)[:100]}")
    uri: str = obj["uri"]
    skill_path = _skill_path_of(uri)
    frontmatter = obj.get("frontmatter")
    if not isinstance(frontmatter, dict):
        raise VerificationError("CLI102", uri, "frontmatter is missing or not an object")
    for key in ("name", "description"):
        if not isinstance(frontmatter.get(key), str):
            raise VerificationError("CLI102", uri, f"frontmatter.{key} is missing or not a string")
    last = decode_path(skill_path.rsplit("/", 1)[-1])
    if frontmatter["name"] != last:
        raise VerificationError(
            "CLI103", uri, f"name {frontmatter['name']!r} differs from the last segment {last!r}"
        )
    resources = obj.get("resources")
    if resources == "dynamic":
        if not allow_dynamic:
            raise VerificationError(
                "CLI104",
                uri,
                'resources is "dynamic": no digests to verify',
                hint="pass --allow-dynamic to accept generated skills",
            )
        return DynamicEntry(uri, skill_path, frontmatter)
    if not isinstance(resources, list):
        raise VerificationError(
            "CLI105", uri, 'resources must be an array or "dynamic"; hosts must not load it'
        )
    root = uri[: -len(SKILL_MD)]
    files: list[FileEntry] = []
    seen: set[str] = set()
    for item in resources:
        if not isinstance(item, dict) or not isinstance(item.get("uri"), str):
            raise VerificationError("CLI105", uri, f"malformed resource {str(item)[:80]}")
        file_uri = item["uri"]
        digest, size = item.get("digest"), item.get("size")
        if not isinstance(digest, str) or not DIGEST_RE.fullmatch(digest):
            raise VerificationError("CLI106", file_uri, f"digest {digest!r} is not sha256:<hex>")
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise VerificationError("CLI106", file_uri, f"size {size!r} is not an integer >= 0")
        if not file_uri.startswith(root) or len(file_uri) == len(root):
            raise VerificationError("CLI107", file_uri, f"lies outside the skill root {root}")
        if file_uri in seen:
            raise VerificationError("CLI107", file_uri, "listed twice")
        seen.add(file_uri)
        try:
            rel = decode_path(file_uri[len(root) :])
        except UnicodeDecodeError:
            raise VerificationError("CLI107", file_uri, "percent-encoding is not UTF-8") from None
        if any(part in ("", ".", "..") for part in rel.split("/")):
            raise VerificationError("CLI107", file_uri, f"lies outside the skill root {root}")
        files.append(FileEntry(rel, file_uri, size, digest))
    if uri not in seen:
        raise VerificationError("CLI108", uri, "the manifest does not list SKILL.md itself")
    files.sort(key=lambda f: f.uri != uri)
    return SkillEntry(skill_path, uri, dict(frontmatter), tuple(files))


def content_bytes(result: Mapping[str, Any], uri: str) -> bytes:
    """The raw bytes of a ``resources/read`` result: UTF-8 of ``text`` or decoded ``blob``."""
    contents = result.get("contents")
    if not isinstance(contents, list) or not contents:
        raise VerificationError("CLI109", uri, "resources/read returned no contents")
    matching = [c for c in contents if isinstance(c, dict) and c.get("uri") == uri]
    if len(matching) != 1:
        raise VerificationError("CLI109", uri, "resources/read returned no content for this uri")
    item = matching[0]
    text, blob = item.get("text"), item.get("blob")
    if isinstance(text, str):
        return text.encode("utf-8")
    if isinstance(blob, str):
        try:
            return base64.b64decode(blob, validate=True)
        except (binascii.Error, ValueError):
            raise VerificationError("CLI109", uri, "blob is not valid base64") from None
    raise VerificationError("CLI109", uri, "content has neither text nor blob")


def is_executable(result: Mapping[str, Any], uri: str) -> bool:
    """True when the ``contents`` item of ``uri`` carries skillpack's executable mark."""
    for item in result.get("contents") or ():
        if isinstance(item, dict) and item.get("uri") == uri:
            meta = item.get("_meta")
            return isinstance(meta, dict) and meta.get(EXECUTABLE_META) is True
    return False


def frontmatter_differences(served: Mapping[str, Any], listed: Mapping[str, Any]) -> list[str]:
    """Field-by-field differences (types matter: 1, 1.0 and true differ)."""
    out = []
    for key in sorted(set(served) | set(listed)):
        if key not in served:
            out.append(f"{key}: listed but not in the served SKILL.md")
        elif key not in listed:
            out.append(f"{key}: in the served SKILL.md but not listed")
        elif not same_json(served[key], listed[key]):
            shown = [json.dumps(v, ensure_ascii=False) for v in (served[key], listed[key])]
            out.append(f"{key}: served {shown[0]} != listed {shown[1]}")
    return out


def check_frontmatter(entry_uri: str, data: bytes, listed: Mapping[str, Any]) -> dict[str, Any]:
    """Parse served ``SKILL.md`` bytes with the strict reader and compare with the entry."""
    try:
        served = parse_skill_md(data).data
    except FrontmatterError as exc:
        raise VerificationError(
            "CLI110", entry_uri, f"SKILL.md line {exc.line}: {exc.code} {exc.message}"
        ) from None
    diffs = frontmatter_differences(served, listed)
    if diffs:
        raise VerificationError(
            "CLI111", entry_uri, "frontmatter differs from the entry: " + "; ".join(diffs[:5])
        )
    return served


class HeldSkill:
    """A loaded skill: the entry held during the acting window, and verified reads."""

    def __init__(self, session: McpSession, entry: SkillEntry) -> None:
        self.session = session
        self.entry = entry
        self._files = {f.uri: f for f in entry.files}
        #: the URIs read and verified that the server marks executable
        self.executable: set[str] = set()

    def read(self, uri: str) -> bytes:
        """Fetch ``uri`` (only if the held manifest lists it) and verify it."""
        entry = self._files.get(uri)
        if entry is None:
            raise VerificationError(
                "CLI112", uri, f"not listed in the held manifest of {self.entry.uri}"
            )
        result = self.session.read_resource(uri)
        data = content_bytes(result, uri)
        try:
            checked = check_bytes(entry, data, against="listed")
        except IntegrityError as exc:
            raise VerificationError("CLI113", uri, exc.message.split(": ", 1)[-1]) from None
        if is_executable(result, uri):
            self.executable.add(uri)
        return checked


def load_skill(session: McpSession, entry: SkillEntry) -> tuple[HeldSkill, bytes]:
    """Load a skill as a host does: fetch and verify ``SKILL.md`` and its frontmatter."""
    held = HeldSkill(session, entry)
    data = held.read(entry.uri)
    check_frontmatter(entry.uri, data, entry.frontmatter)
    return held, data

"""The bundle index: the manifest as compact canonical JSON (``.skillpack/index.json``).

The server loads this instead of the TOML lock (``json.loads`` of a 1,000-skill index
takes a few milliseconds; ``tomllib`` takes over a hundred). Index and lock vouch for
each other without the lock being parsed: the lock's ``index-digest`` (its third line)
is the sha256 of these exact bytes, and the index's ``lock-body`` is the sha256 of the
lock's bytes after its three-line prologue. Every byte of the lock is thus covered: a
reader checks both digests and knows that index and lock agree (see
:mod:`skillpack.archive.reader`).

Shape (format 1), serialized with :func:`skillpack.canonical.canonical_bytes`::

    {"format": 1, "name": "...", "version": "...", "lock-body": "sha256:...",
     "skills": [{"path": "a/b", "uri": "skill://a/b/SKILL.md", "frontmatter": {...},
                 "files": [[encoded-path, size, digest, executable], ...]}, ...]}

A file is stored by its percent-encoded path (its URI is ``skill://<path>/`` followed
by it; the file path is its decoding), which keeps loading cheap.

Standard library only: the serve path imports it.
"""

from __future__ import annotations

import json
from typing import Any

from ..canonical import canonical_bytes
from ..manifest import FileEntry, Manifest, SkillEntry, sha256_digest
from ..uri import SCHEME, decode_path, is_valid_segment
from . import FORMAT_VERSION, INDEX_ENTRY, BundleError


def index_document(manifest: Manifest, lock_body: str) -> dict[str, Any]:
    """The index of ``manifest``; ``lock_body`` is the digest of the lock's body."""
    return {
        "format": FORMAT_VERSION,
        "name": manifest.name,
        "version": manifest.version,
        "lock-body": lock_body,
        "skills": [
            {
                "path": s.skill_path,
                "uri": s.uri,
                "frontmatter": dict(s.frontmatter),
                "files": [
                    [f.uri[len(s.skill_path) + len(SCHEME) + 1 :], f.size, f.digest, f.executable]
                    for f in s.files
                ],
            }
            for s in manifest.skills
        ],
    }


def index_bytes(manifest: Manifest, lock_body: str) -> bytes:
    """The canonical index bytes of ``manifest`` and its lock's body digest."""
    return canonical_bytes(index_document(manifest, lock_body))


def index_digest(manifest: Manifest, lock_body: str) -> str:
    return sha256_digest(index_bytes(manifest, lock_body))


def _bad(where: str, message: str) -> BundleError:
    return BundleError("BND014", message, entry=where)


def manifest_from_index(data: bytes, where: str = INDEX_ENTRY) -> tuple[Manifest, str]:
    """Rebuild the manifest from index bytes, with the ``lock-body`` digest the index
    records; refuse anything not of the expected shape."""
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise _bad(where, f"not valid JSON: {exc}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT_VERSION:
        raise _bad(where, f"not a format {FORMAT_VERSION} index")
    name, version, skills = doc.get("name"), doc.get("version"), doc.get("skills")
    if not isinstance(name, str) or not isinstance(version, str) or not isinstance(skills, list):
        raise _bad(where, "missing name, version or skills")
    lock_body = doc.get("lock-body")
    if not (isinstance(lock_body, str) and len(lock_body) == 71 and lock_body[:7] == "sha256:"):
        raise _bad(where, "lock-body digest missing or malformed")
    entries: list[SkillEntry] = []
    try:
        for s in skills:
            skill_path, uri, frontmatter = s["path"], s["uri"], s["frontmatter"]
            if not (
                isinstance(uri, str)
                and isinstance(frontmatter, dict)
                and all(is_valid_segment(seg) for seg in skill_path.split("/"))
            ):
                raise _bad(where, f"bad skill entry {skill_path!r}")
            base = f"{SCHEME}{skill_path}/"
            files = []
            for encoded, size, digest, executable in s["files"]:
                if not (
                    type(size) is int
                    and size >= 0
                    and type(executable) is bool
                    and type(digest) is str
                    and len(digest) == 71
                    and type(encoded) is str
                ):
                    raise _bad(where, f"bad file entry {encoded!r} in {skill_path!r}")
                path = decode_path(encoded) if "%" in encoded else encoded
                files.append(FileEntry(path, base + encoded, size, digest, executable))
            entries.append(SkillEntry(skill_path, uri, frontmatter, tuple(files)))
    except (KeyError, TypeError, ValueError, AttributeError):
        raise _bad(where, "a skill or file entry is not of the expected shape") from None
    return Manifest(name, version, tuple(entries)), lock_body

"""Reading the bundle index (``.skillpack/index.json``, written by
:mod:`skillpack.lockfile.index`) back into a manifest, refusing any other shape.

Standard library only: the serve path imports it.
"""

from __future__ import annotations

import json

from skillpack._internal.uri import SCHEME, decode_path, is_valid_segment
from skillpack.bundle import INDEX_ENTRY, BundleError
from skillpack.lockfile.index import INDEX_FORMAT
from skillpack.manifest import FileEntry, Manifest, SkillEntry


def _bad(where: str, message: str) -> BundleError:
    return BundleError("BND014", message, entry=where)


def manifest_from_index(data: bytes, where: str = INDEX_ENTRY) -> tuple[Manifest, str]:
    """Rebuild the manifest from index bytes, with the ``lock-body`` digest the index
    records; refuse anything not of the expected shape."""
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise _bad(where, f"not valid JSON: {exc}") from None
    if not isinstance(doc, dict) or doc.get("format") != INDEX_FORMAT:
        raise _bad(where, f"not a format {INDEX_FORMAT} index")
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

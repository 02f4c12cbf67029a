"""The bundle index: the manifest as compact canonical JSON (``.skillpack/index.json``).

The server loads this instead of the TOML lock (``json.loads`` of a 1,000-skill index
takes a few milliseconds; ``tomllib`` takes over a hundred). Index and lock vouch for
each other without the lock being parsed: the lock's ``index-digest`` (its third line)
is the sha256 of these exact bytes, and the index's ``lock-body`` is the sha256 of the
lock's bytes after its three-line prologue. Every byte of the lock is thus covered: a
reader checks both digests and knows that index and lock agree (see
:mod:`skillpack.bundle.reader`; :mod:`skillpack.bundle.index` reads it back).

Shape (format 1), serialized with :func:`skillpack._internal.canonical.canonical_bytes`::

    {"format": 1, "name": "...", "version": "...", "lock-body": "sha256:...",
     "skills": [{"path": "a/b", "uri": "skill://a/b/SKILL.md", "frontmatter": {...},
                 "files": [[encoded-path, size, digest, executable], ...]}, ...]}

A file is stored by its percent-encoded path (its URI is ``skill://<path>/`` followed
by it; the file path is its decoding), which keeps loading cheap.

Standard library only: the serve path imports it.
"""

from __future__ import annotations

from typing import Any

from skillpack._internal.canonical import canonical_bytes
from skillpack._internal.uri import SCHEME
from skillpack.manifest import Manifest, sha256_digest

#: The index format; readers refuse any other.
INDEX_FORMAT = 1


def index_document(manifest: Manifest, lock_body: str) -> dict[str, Any]:
    """The index of ``manifest``; ``lock_body`` is the digest of the lock's body."""
    return {
        "format": INDEX_FORMAT,
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

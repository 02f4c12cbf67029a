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

from collections.abc import Sequence
from typing import Any

from skillpack._internal.canonical import canonical_bytes, canonical_json
from skillpack._internal.uri import SCHEME
from skillpack.manifest import Manifest, SkillEntry, sha256_digest

#: The index format; readers refuse any other.
INDEX_FORMAT = 1


def index_skill(skill: SkillEntry) -> dict[str, Any]:
    """One skill's element of the index's ``skills`` list."""
    return {
        "path": skill.skill_path,
        "uri": skill.uri,
        "frontmatter": dict(skill.frontmatter),
        "files": [
            [f.uri[len(skill.skill_path) + len(SCHEME) + 1 :], f.size, f.digest, f.executable]
            for f in skill.files
        ],
    }


def index_skill_text(skill: SkillEntry) -> str:
    """The canonical text of :func:`index_skill` (made where the skill is processed: the
    index is these joined)."""
    return canonical_json(index_skill(skill))


def index_document(manifest: Manifest, lock_body: str) -> dict[str, Any]:
    """The index of ``manifest``; ``lock_body`` is the digest of the lock's body."""
    return {
        "format": INDEX_FORMAT,
        "name": manifest.name,
        "version": manifest.version,
        "lock-body": lock_body,
        "skills": [index_skill(s) for s in manifest.skills],
    }


def index_bytes(manifest: Manifest, lock_body: str, skills: Sequence[str] | None = None) -> bytes:
    """The canonical index bytes of ``manifest`` and its lock's body digest. ``skills``:
    :func:`index_skill_text` of each skill, when made already: the document is then
    written around them (the canonical form of an object is its sorted keys, so these
    bytes are :func:`index_document`'s canonical bytes)."""
    if skills is None:
        return canonical_bytes(index_document(manifest, lock_body))
    head = {"format": INDEX_FORMAT, "lock-body": lock_body, "name": manifest.name}
    # one join (the index of 1,000 skills is most of a megabyte: a copy is a cost)
    parts = [canonical_json(head)[:-1], ',"skills":[']
    for skill in skills:
        parts += (skill, ",")
    if skills:
        parts.pop()
    parts += ('],"version":', canonical_json(manifest.version), "}")
    return "".join(parts).encode("utf-8")


def index_digest(manifest: Manifest, lock_body: str) -> str:
    return sha256_digest(index_bytes(manifest, lock_body))

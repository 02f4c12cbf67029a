"""``skillpack inspect``: a description of a bundle as JSON-compatible data."""

from __future__ import annotations

from typing import Any

from skillpack.bundle.reader import Bundle


def describe_bundle(bundle: Bundle) -> dict[str, Any]:
    """Name, version, digests, every skill (its SEP-2640 entry plus file paths and modes)
    and totals. Files shared by nested skills count once in the totals."""
    m = bundle.manifest
    skills = []
    for skill in m.skills:
        entry = skill.to_wire()
        entry["path"] = skill.skill_path
        entry["files"] = [
            {"path": f.path, "size": f.size, "digest": f.digest, "executable": f.executable}
            for f in skill.files
        ]
        skills.append(entry)
    return {
        "path": str(bundle.path),
        "name": m.name,
        "version": m.version,
        "format": bundle.format_version,
        "size": bundle.size,
        "sha256": bundle.archive_digest(),
        "lock-digest": bundle.lock_digest,
        "skills": skills,
        "totals": {"skills": len(m.skills), "files": m.file_count, "bytes": m.total_size},
    }

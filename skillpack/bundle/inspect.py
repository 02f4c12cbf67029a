"""``skillpack inspect``: a description of a bundle as JSON-compatible data."""

from __future__ import annotations

from typing import Any

from skillpack.bundle.reader import Bundle
from skillpack.bundle.scan import scan_bundle


def describe_bundle(bundle: Bundle) -> dict[str, Any]:
    """Name, version, digests, every skill (its SEP-2640 entry plus file paths and modes),
    totals, and the content scan's findings (``scan``: counts by severity and the list).
    Files shared by nested skills count once in the totals and are scanned once."""
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
        "scan": describe_scan(bundle),
    }


def describe_scan(bundle: Bundle) -> dict[str, Any]:
    """The content scan of a bundle's files: counts of errors and warnings, and each
    finding (entry, skill, path, line, column, code, severity, message)."""
    found = scan_bundle(bundle)
    return {
        "errors": sum(1 for b in found if b.finding.severity == "error"),
        "warnings": sum(1 for b in found if b.finding.severity == "warning"),
        "findings": [
            {
                "entry": b.entry,
                "skill": b.skill,
                "path": b.path,
                "line": b.finding.line,
                "column": b.finding.column,
                "code": b.finding.code,
                "severity": b.finding.severity,
                "message": b.finding.message,
            }
            for b in found
        ],
    }

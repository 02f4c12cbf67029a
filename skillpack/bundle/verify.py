"""``skillpack verify``: check every file of a bundle against its lock.

:func:`verify_bundle` opens the bundle in full mode (every entry checked, the lock
validated against its schema and the index, every file hashed against the lock).
Signatures are checked by :func:`skillpack.signing.verify.verify_signed_bundle`, against
the archive's raw bytes before it opens the bundle the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from skillpack.bundle.reader import open_bundle


@dataclass(frozen=True)
class VerifyReport:
    path: Path
    archive_digest: str
    lock_digest: str
    name: str
    version: str
    skills: int
    files: int
    content_bytes: int  #: total size of the files
    size: int  #: archive bytes


def verify_bundle(path: Path) -> VerifyReport:
    """Verify the bundle at ``path``; raise a SkillpackError naming the first problem."""
    with open_bundle(path, mode="full") as bundle:
        m = bundle.manifest
        return VerifyReport(
            Path(path),
            bundle.archive_digest(),
            bundle.lock_digest,
            m.name,
            m.version,
            len(m.skills),
            m.file_count,
            m.total_size,
            bundle.size,
        )

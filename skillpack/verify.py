"""``skillpack verify``: check every file of a bundle against its lock.

:func:`verify_bundle` opens the bundle in full mode (every entry checked, the lock
validated against its schema and the index, every file hashed against the lock) and
then runs any extra ``checks`` on the opened bundle. Signature verification is not
one of them: :func:`skillpack.signing.verify.verify_signed_bundle` checks the
signature against the archive's raw bytes before it opens the bundle.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .archive.reader import Bundle, open_bundle

#: An extra check on a fully verified bundle: returns a line for the report (or None)
#: and raises a SkillpackError when the bundle must be refused.
BundleCheck = Callable[[Bundle], "str | None"]


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
    notes: tuple[str, ...] = field(default=())


def verify_bundle(path: Path, *, checks: Sequence[BundleCheck] = ()) -> VerifyReport:
    """Verify the bundle at ``path``; raise a SkillpackError naming the first problem."""
    with open_bundle(path, mode="full") as bundle:
        notes = tuple(n for n in (check(bundle) for check in checks) if n)
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
            notes,
        )

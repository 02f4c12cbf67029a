"""The seam to the bundle reader: what signing and verification need of an archive.

The reader (``skillpack.archive.reader.open_bundle``, built on the bundle branch)
provides it; the signing library never looks inside the archive itself.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol

from ..errors import display_path
from ..manifest import FileEntry, Manifest
from .errors import unusable


class SignedContent(Protocol):
    """An opened bundle: its manifest (from the lock), the lock's digest, the archive's
    digest and checked access to every file."""

    @property
    def manifest(self) -> Manifest: ...

    @property
    def lock_digest(self) -> str:
        """``sha256:<hex>`` of the lock bytes inside the archive."""
        ...

    def archive_digest(self) -> str:
        """``sha256:<hex>`` of the archive file."""
        ...

    def read_verified(self, entry: FileEntry) -> bytes:
        """The bytes of ``entry``; raises unless they match its size and digest."""
        ...


def open_archive(path: Path) -> AbstractContextManager[SignedContent]:
    """Open ``path`` with the bundle reader, fully checked."""
    try:
        from ..archive.reader import open_bundle  # type: ignore[import-not-found,unused-ignore]
    except ModuleNotFoundError as exc:
        if exc.name not in ("skillpack.archive", "skillpack.archive.reader"):
            raise
        raise unusable(
            "SIG021",
            "this skillpack has no bundle reader (skillpack.archive) to open the archive",
            display_path(path),
        ) from None
    bundle: AbstractContextManager[SignedContent] = open_bundle(path, mode="full")
    return bundle

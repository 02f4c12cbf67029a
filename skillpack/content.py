"""Where a manifest's bytes come from, and the one check every reader applies.

The server, ``verify`` and ``unpack`` never use a file's bytes before
:func:`check_bytes` has compared their size and sha256 with the manifest.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol

from skillpack.errors import EXIT_FINDINGS, SkillpackError
from skillpack.manifest import FileEntry, Manifest

if TYPE_CHECKING:
    from os import PathLike


class IntegrityError(SkillpackError):
    """Bytes that do not match the manifest (size or digest)."""

    def __init__(self, uri: str, message: str) -> None:
        super().__init__("INT001", f"{uri}: {message}", exit_code=EXIT_FINDINGS)
        self.uri = uri


def check_bytes(entry: FileEntry, data: bytes, against: str = "locked") -> bytes:
    """Return ``data`` if its size and sha256 match ``entry``; raise IntegrityError if not.
    ``against`` names where the expected values come from ("locked", "listed")."""
    if len(data) != entry.size:
        raise IntegrityError(entry.uri, f"size {len(data)} differs from the {against} {entry.size}")
    actual = "sha256:" + hashlib.sha256(data).hexdigest()
    if actual != entry.digest:
        raise IntegrityError(
            entry.uri, f"digest {actual} differs from the {against} {entry.digest}"
        )
    return data


class ContentSource(Protocol):
    """Random access to the raw bytes behind a manifest."""

    manifest: Manifest

    def read_raw(self, entry: FileEntry) -> bytes:
        """The stored bytes of ``entry``, unchecked (at most ``entry.size + 1`` bytes)."""
        ...

    def close(self) -> None: ...


def read_verified(source: ContentSource, entry: FileEntry) -> bytes:
    return check_bytes(entry, source.read_raw(entry))


class TreeSource:
    """Files of a source tree on disk, keyed by URI (``skillpack serve DIR``, and the
    files a build reads again)."""

    def __init__(
        self,
        manifest: Manifest,
        paths: Mapping[str, str | PathLike[str]] | Callable[[], Mapping[str, str | PathLike[str]]],
    ) -> None:
        """``paths``: where each URI's file is, or how to make that mapping (made at the
        first read: a build reads files again only past what it kept, mostly none)."""
        self.manifest = manifest
        self._paths = paths

    def read_raw(self, entry: FileEntry) -> bytes:
        if callable(self._paths):
            self._paths = self._paths()
        with open(self._paths[entry.uri], "rb") as fh:
            return fh.read(entry.size + 1)

    def close(self) -> None:
        pass


class KeptSource:
    """Bytes kept in memory by URI (a build keeps files as it hashed them), the other
    files from ``rest``. Checked like any source's bytes before use."""

    def __init__(self, kept: Mapping[str, bytes], rest: ContentSource) -> None:
        self.manifest = rest.manifest
        self._kept = kept
        self._rest = rest

    def read_raw(self, entry: FileEntry) -> bytes:
        data = self._kept.get(entry.uri)
        return data if data is not None else self._rest.read_raw(entry)

    def close(self) -> None:
        self._rest.close()

"""``skillpack diff``'s sides: the manifest of a bundle, a lock or a skill tree. The
comparison itself is :mod:`skillpack.changes`."""

from __future__ import annotations

from pathlib import Path

from skillpack.errors import Location, UsageError, missing_path
from skillpack.manifest import Manifest


def load_manifest(path: Path) -> Manifest:
    """The manifest of a bundle (``.skp``, verified in full), a lock file or a skill tree
    (a directory: its configuration is found as for every command)."""
    if path.is_dir():
        from skillpack.source.config import resolve_config
        from skillpack.source.discovery import discover
        from skillpack.source.entries import build_manifest

        return build_manifest(discover(resolve_config([path])))
    try:
        with open(path, "rb") as fh:
            magic = fh.read(4)
    except FileNotFoundError:
        raise missing_path(path, hint="give a bundle (.skp), a lock or a skill tree") from None
    except OSError as exc:
        raise UsageError("DIF001", f"cannot read: {exc.strerror}", Location(str(path))) from None
    if magic == b"PK\x03\x04" or path.suffix == ".skp":  # a .skp that is no zip: say so
        from skillpack.bundle.reader import open_bundle

        with open_bundle(path, mode="full") as bundle:
            return bundle.manifest
    from skillpack.lockfile.lock import read_lock

    return read_lock(path).manifest

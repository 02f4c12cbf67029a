"""Bundle archives (``.skp``): the deterministic writer, the safe reader and the index.

Format (documented in ``docs/bundle-format.md``): a zip archive holding
``.skillpack/skillpack.lock`` (the lock bytes, exactly), ``.skillpack/index.json``
(the compact JSON form of the manifest, see :mod:`skillpack.lockfile.index`), then
every file once under its decoded URI path.
"""

from __future__ import annotations

from pathlib import Path

from skillpack.errors import EXIT_FINDINGS, Location, SkillpackError

FORMAT_VERSION = 1
METADATA_DIR = ".skillpack/"
LOCK_ENTRY = ".skillpack/skillpack.lock"
INDEX_ENTRY = ".skillpack/index.json"
METADATA_ENTRIES = (LOCK_ENTRY, INDEX_ENTRY)
#: The zip comment of every bundle: the format and its version.
ZIP_COMMENT = b"skillpack-bundle/%d" % FORMAT_VERSION
#: a zip archive's end of central directory record, before its comment
_END_RECORD = 22


def is_bundle_file(path: Path) -> bool:
    """Whether the file at ``path`` ends as a bundle does: an end of central directory
    record carrying the bundle comment of any format version (only a bundle is replaced
    by a build; whether it can be trusted is the reader's business)."""
    prefix = ZIP_COMMENT.rsplit(b"/", 1)[0] + b"/"
    try:
        with open(path, "rb") as fh:
            fh.seek(0, 2)
            size = fh.tell()
            fh.seek(max(0, size - _END_RECORD - 64))
            tail = fh.read()
    except OSError:
        return False
    start = tail.rfind(b"PK\x05\x06")
    if start < 0 or len(tail) - start < _END_RECORD:
        return False
    comment = tail[start + _END_RECORD :]
    declared = int.from_bytes(tail[start + 20 : start + 22], "little")
    return declared == len(comment) and comment.startswith(prefix)


class BundleError(SkillpackError):
    """A bundle that cannot be trusted (exit 1). ``entry`` names the archive entry."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        entry: str | None = None,
        path: str | None = None,
        hint: str | None = None,
    ) -> None:
        where = Location(path) if path else None
        text = f"{entry}: {message}" if entry is not None else message
        super().__init__(code, text, where, hint, EXIT_FINDINGS)
        self.entry = entry

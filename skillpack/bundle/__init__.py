"""Bundle archives (``.skp``): the deterministic writer, the safe reader and the index.

Format (documented in ``docs/bundle-format.md``): a zip archive holding
``.skillpack/skillpack.lock`` (the lock bytes, exactly), ``.skillpack/index.json``
(the compact JSON form of the manifest, see :mod:`skillpack.lockfile.index`), then
every file once under its decoded URI path.
"""

from __future__ import annotations

from skillpack.errors import EXIT_FINDINGS, Location, SkillpackError

FORMAT_VERSION = 1
METADATA_DIR = ".skillpack/"
LOCK_ENTRY = ".skillpack/skillpack.lock"
INDEX_ENTRY = ".skillpack/index.json"
METADATA_ENTRIES = (LOCK_ENTRY, INDEX_ENTRY)
#: The zip comment of every bundle: the format and its version.
ZIP_COMMENT = b"skillpack-bundle/%d" % FORMAT_VERSION


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

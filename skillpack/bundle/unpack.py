"""``skillpack unpack``: a verified bundle back into a skill tree.

The bundle is opened in full mode (completely verified) before anything is written.
Every file lands at its entry name under the destination with mode 0644 or 0755;
``skillpack.lock`` (the bundle's lock, byte for byte) and a ``skillpack.toml`` naming
the bundle are written beside the skills, so ``skillpack build DIR`` rebuilds the same
bundle. A destination that does not exist is filled in a temporary directory and
renamed into place; an existing, non-empty one is refused unless ``force`` is given,
and then no write ever follows a symlink or leaves the destination.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from skillpack._internal.fstree import (
    NewFile,
    PathInTheWay,
    check_targets,
    replace_files,
    write_new_files,
)
from skillpack._internal.staging import make_staging, shown_as
from skillpack.bundle.reader import Bundle, open_bundle
from skillpack.bundle.writer import archive_files
from skillpack.errors import EXIT_FINDINGS, Location, SkillpackError, UsageError
from skillpack.source.config import CONFIG_FILE, DEFAULT_LOCK


@dataclass(frozen=True)
class UnpackResult:
    dest: Path
    skills: int
    files: int


def _project_file(bundle: Bundle) -> bytes:
    import tomli_w

    m = bundle.manifest
    table = {"name": m.name, "version": m.version, "roots": ["."], "exclude": []}
    head = (
        f"# Written by 'skillpack unpack' from {bundle.path.name}; 'skillpack build' rebuilds it.\n"
    )
    return head.encode() + tomli_w.dumps(table).encode()


#: verified file bytes kept in memory between the check and the write (a file beyond
#: this is read and checked again when written)
KEEP = 64 << 20


def _files(bundle: Bundle) -> Iterator[NewFile]:
    """Every file of the bundle (verified), then the lock and the project file."""
    for name, entry in archive_files(bundle.manifest):
        yield NewFile(name, bundle.read_verified(entry), entry.executable)
    yield NewFile(DEFAULT_LOCK, bundle.lock_bytes)
    yield NewFile(CONFIG_FILE, _project_file(bundle))


def _in_the_way(exc: PathInTheWay) -> SkillpackError:
    return SkillpackError(
        "UNP002",
        f"cannot unpack {exc.path}: {exc.obstacle} {exc.reason} (symlinks are never followed)",
        Location(str(exc.obstacle)),
        exit_code=EXIT_FINDINGS,
    )


def unpack_bundle(path: Path, dest: Path, *, force: bool = False) -> UnpackResult:
    """Verify the bundle at ``path`` and write its files under ``dest``."""
    with open_bundle(path, mode="full", keep=KEEP) as bundle:
        dest = Path(dest)
        if dest.is_symlink() or (dest.exists() and not dest.is_dir()):
            raise UsageError(
                "UNP001", "destination exists and is not a directory", Location(str(dest))
            )
        if dest.is_dir():
            if any(dest.iterdir()) and not force:
                raise UsageError(
                    "UNP001",
                    "destination is not empty; refusing to overwrite",
                    Location(str(dest)),
                    hint="pass --force to write over it, or choose an empty directory",
                )
            names = [name for name, _ in archive_files(bundle.manifest)]
            try:  # every path, before the first write
                check_targets(dest, [*names, DEFAULT_LOCK, CONFIG_FILE])
            except PathInTheWay as exc:
                raise _in_the_way(exc) from None
            count = replace_files(dest, _files(bundle)) - 2
        else:
            dest.parent.mkdir(parents=True, exist_ok=True)
            tmp = make_staging(dest)
            try:
                os.chmod(tmp, 0o755)
                with shown_as(tmp, dest):
                    count = write_new_files(tmp, _files(bundle)) - 2
                os.rename(tmp, dest)
            except BaseException:
                with contextlib.suppress(OSError):
                    shutil.rmtree(tmp)
                raise
        return UnpackResult(dest, len(bundle.manifest.skills), count)

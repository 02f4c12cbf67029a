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
import stat
from dataclasses import dataclass
from pathlib import Path

from skillpack._internal.fsutil import atomic_write
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


def _safe_parent(root: Path, name: str) -> Path:
    """Create the directories of ``name`` under ``root``, refusing symlinks and files."""
    directory = root
    for part in name.split("/")[:-1]:
        directory = directory / part
        try:
            st = os.lstat(directory)
        except FileNotFoundError:
            os.mkdir(directory, 0o755)
            continue
        if not stat.S_ISDIR(st.st_mode):
            raise SkillpackError(
                "UNP002",
                f"cannot unpack {name}: {directory} exists and is not a directory "
                "(symlinks are never followed)",
                Location(str(directory)),
                exit_code=EXIT_FINDINGS,
            )
    return directory / name.rsplit("/", 1)[-1]


def _write_tree(bundle: Bundle, root: Path) -> int:
    files = archive_files(bundle.manifest)
    for name, entry in files:
        target = _safe_parent(root, name)
        if target.is_symlink():
            target.unlink()
        atomic_write(target, bundle.read_verified(entry), 0o755 if entry.executable else 0o644)
    for name, data in ((DEFAULT_LOCK, bundle.lock_bytes), (CONFIG_FILE, _project_file(bundle))):
        target = root / name
        if target.is_symlink() or target.is_dir():
            raise SkillpackError(
                "UNP002",
                f"cannot write {name}: a directory or symlink of that name is in the way",
                Location(str(target)),
                exit_code=EXIT_FINDINGS,
            )
        atomic_write(target, data)
    return len(files)


def unpack_bundle(path: Path, dest: Path, *, force: bool = False) -> UnpackResult:
    """Verify the bundle at ``path`` and write its files under ``dest``."""
    with open_bundle(path, mode="full") as bundle:
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
            count = _write_tree(bundle, dest)
        else:
            dest.parent.mkdir(parents=True, exist_ok=True)
            tmp = make_staging(dest)
            try:
                os.chmod(tmp, 0o755)
                with shown_as(tmp, dest):
                    count = _write_tree(bundle, tmp)
                os.rename(tmp, dest)
            except BaseException:
                with contextlib.suppress(OSError):
                    shutil.rmtree(tmp)
                raise
        return UnpackResult(dest, len(bundle.manifest.skills), count)

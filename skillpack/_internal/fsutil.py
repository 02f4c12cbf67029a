"""File-system helpers: atomic writes, so no command ever leaves a half-written file."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO


@contextlib.contextmanager
def atomic_writer(path: Path, mode: int = 0o644, *, overwrite: bool = True) -> Iterator[BinaryIO]:
    """Open a temporary file beside ``path``; on success fsync it and rename it over
    ``path``; on any exception remove it and leave ``path`` untouched. With
    ``overwrite=False`` an existing ``path`` is never replaced: FileExistsError."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        if overwrite:
            os.replace(tmp, path)
        else:
            os.link(tmp, path)  # atomic, and fails if path exists
            os.unlink(tmp)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def atomic_write(path: Path, data: bytes, mode: int = 0o644, *, overwrite: bool = True) -> None:
    """Write ``data`` to ``path`` atomically (never replacing it if not ``overwrite``)."""
    with atomic_writer(path, mode, overwrite=overwrite) as fh:
        fh.write(data)


def write_if_changed(path: Path, data: bytes, mode: int = 0o644) -> bool:
    """Atomically write ``data`` unless ``path`` already holds exactly it. True if written."""
    try:
        if Path(path).read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    atomic_write(path, data, mode)
    return True

"""One writer at a time: an exclusive lock on a directory, held for a block.

``skillpack install`` and ``uninstall`` take it on the project directory (the user's
configuration directory for a global install), so two runs at once are serialized, not
interleaved. The lock is ``flock(2)`` on the directory itself: nothing is written to
take it, and the kernel drops it when the process ends, however it ends. Where
``fcntl`` does not exist (Windows) the block runs unlocked.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path


@contextlib.contextmanager
def locked(directory: Path, waiting: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold an exclusive lock on ``directory`` for the block; ``waiting`` is called once
    when another process holds it (before blocking until it is released)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_CLOEXEC)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if waiting is not None:
                waiting()
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)

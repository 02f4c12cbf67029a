"""Writing many files at once: a tree of verified bytes into a directory.

``unpack`` and ``install`` write a bundle's files into a fresh staging directory and
rename it into place, so a reader sees the old tree or the new one, never a mix. Inside
a fresh directory a file needs no temporary name and no rename of its own: it is
created exclusively (``O_EXCL``, never following a symlink) and written once. No file
is synced on its own either (one ``fsync`` per file made unpacking five times slower
than ``python -m zipfile -e``): a killed process loses nothing the kernel was given,
and the directory appears whole or not at all.

:func:`replace_files` writes into a directory that already has files (``unpack
--force``): each path is checked before the first write, then each file goes to a
temporary name beside it and is renamed over the old one.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
_CREATE |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


class NewFile(NamedTuple):
    """A file to write: its ``/``-separated path under the root, its bytes, its mode bit
    (a tuple: thousands are made per install)."""

    path: str
    data: bytes
    executable: bool = False


class Modes(NamedTuple):
    """The modes of what is written. ``exact``: these modes whatever the umask (as a
    bundle's ``unpack`` has always written them); otherwise the umask applies, as it
    does to any file a program creates (``install``)."""

    file: int = 0o644
    executable: int = 0o755
    directory: int = 0o755
    exact: bool = True


#: the modes ``unpack`` has always written: 0644, 0755, whatever the umask
EXACT = Modes()
#: modes for files that honour the umask: 0666 and 0777 less the umask
UMASKED = Modes(0o666, 0o777, 0o777, exact=False)


class PathInTheWay(Exception):
    """Something on disk stands where the tree needs a directory or a file.

    ``path`` is the tree path being written; ``obstacle`` the path on disk in the way."""

    def __init__(self, path: str, obstacle: Path, reason: str) -> None:
        super().__init__(f"{path}: {obstacle} {reason}")
        self.path = path
        self.obstacle = obstacle
        self.reason = reason


def _write_all(fd: int, data: bytes) -> None:
    written = os.write(fd, data)
    if written == len(data):  # nearly always: one call, no view
        return
    view = memoryview(data)[written:]
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _mkdirs(root: str, parent: str, made: set[str], modes: Modes) -> None:
    """Create ``parent`` (and the directories above it) under ``root``."""
    parts = parent.split("/")
    for depth in range(1, len(parts) + 1):
        sub = "/".join(parts[:depth])
        if sub in made:
            continue
        path = f"{root}/{sub}"
        os.mkdir(path, modes.directory)
        if modes.exact:
            os.chmod(path, modes.directory)
        made.add(sub)


def write_new_files(root: Path | str, files: Iterable[NewFile], modes: Modes = EXACT) -> int:
    """Write ``files`` into ``root``, a directory this process just made and nobody else
    writes to (a staging directory). Directories are created as needed. Returns the
    number of files written. Raises ``OSError`` (naming the path under ``root``) on any
    failure; the caller removes the staging directory. (Paths are joined as strings:
    thousands of files per install, and a ``Path`` per file cost as much as its write.)"""
    base = os.fspath(root)
    made: set[str] = {""}
    count = 0
    for item in files:
        parent = item.path.rpartition("/")[0]
        if parent not in made:
            _mkdirs(base, parent, made, modes)
        mode = modes.executable if item.executable else modes.file
        fd = os.open(f"{base}/{item.path}", _CREATE, mode)
        try:
            if modes.exact:
                os.fchmod(fd, mode)
            _write_all(fd, item.data)
        finally:
            os.close(fd)
        count += 1
    return count


def check_targets(root: Path, paths: Sequence[str]) -> None:
    """Raise :class:`PathInTheWay` unless every path can be written under ``root``
    without following a symlink or replacing anything but a regular file: each parent is
    a directory or missing, each file a regular file or missing. Checked for every path
    before the first write."""
    known: dict[str, bool] = {}  # tree path -> is a directory (True) or missing (False)
    for path in paths:
        parts = path.split("/")
        for depth in range(1, len(parts)):
            sub = "/".join(parts[:depth])
            if sub in known:
                if not known[sub]:
                    break  # missing: everything below it is new
                continue
            try:
                st = os.lstat(root / sub)
            except FileNotFoundError:
                known[sub] = False
                break
            if not stat.S_ISDIR(st.st_mode):
                raise PathInTheWay(path, root / sub, "exists and is not a directory")
            known[sub] = True
        try:
            st = os.lstat(root / path)
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(st.st_mode):
            kind = "a symlink" if stat.S_ISLNK(st.st_mode) else "not a regular file"
            raise PathInTheWay(path, root / path, f"is {kind}")


def replace_files(root: Path, files: Iterable[NewFile], modes: Modes = EXACT) -> int:
    """Write ``files`` into the existing directory ``root`` (checked first with
    :func:`check_targets`), each through a temporary file renamed over its path."""
    made: set[str] = {""}
    count = 0
    for item in files:
        parent = item.path.rpartition("/")[0]
        if parent not in made:
            for depth, _ in enumerate(parent.split("/"), 1):
                sub = "/".join(parent.split("/")[:depth])
                if sub not in made:
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(root / sub, modes.directory)
                    made.add(sub)
        target = root / item.path
        temp = target.with_name(f".{target.name[:40]}.skillpack-new")
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        write_new_files(temp.parent, [NewFile(temp.name, item.data, item.executable)], modes)
        try:
            os.replace(temp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
        count += 1
    return count


# --- putting a staged tree in place --------------------------------------------------------
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def _load_renameat2() -> object | None:
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        function = libc.renameat2
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                         ctypes.c_uint]  # fmt: skip
    function.restype = ctypes.c_int
    return function


def exchange(a: Path, b: Path) -> bool:
    """Swap the two existing paths ``a`` and ``b`` in one atomic step (Linux
    ``renameat2(RENAME_EXCHANGE)``). False where the system or file system cannot."""
    function = _load_renameat2()
    if not callable(function):
        return False
    import ctypes

    if function(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    import errno

    if err in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def swap_into_place(staged: Path, dest: Path, old: Path) -> bool:
    """Put ``staged`` (a directory or a symlink) at ``dest``. Where ``dest`` exists it is
    exchanged with ``staged`` in one step, and what was there ends up at ``staged``'s
    name; without an atomic exchange it is moved to ``old`` first (a process killed in
    between leaves ``dest`` missing and its old contents at ``old``). Returns whether
    something was replaced (then at ``staged`` or ``old``)."""
    if not os.path.lexists(dest):
        os.rename(staged, dest)
        return False
    if exchange(staged, dest):
        return True
    os.rename(dest, old)
    os.rename(staged, dest)
    return True

"""File-system writes: the one writer of every file skillpack writes.

Two ways in, one mechanism (a temporary file beside the destination, fsynced, then
renamed over it, so that no command ever leaves a half-written file):

* :class:`Output`: a file a user named (``-o``, the configured lock, the bundle, a
  signature, a key). ``-`` is standard output. A character device, FIFO or socket (or a
  symlink to one) is written through, never replaced. A symlink to a regular file keeps
  being a link: the file it points to is replaced, atomically. Anything else (a regular
  file, a new path) is replaced atomically; missing parent directories are created (and
  removed again when the write fails). Every failure is a coded error naming the path as
  the user gave it, never the temporary file: ``OUT002`` (exit 2) when the path cannot be
  a file (a directory, a parent that is a file, a name too long, a block device),
  ``OUT003`` (exit 1) when writing fails (no space, a file size limit, permissions, a
  read-only file system, an I/O error).
* :func:`atomic_writer`, :func:`atomic_write`, :func:`write_if_changed`: files skillpack
  owns the place of (fixes of skill files, unpacked trees, generated docs); errors are
  the ``OSError`` of the system, for the caller to report.

An :class:`Output` is made before any work (its checks need no content), written
(:meth:`Output.stage` or :meth:`Output.stage_bytes`) and then committed
(:meth:`Output.commit`) or discarded (:meth:`Output.discard`): a command that writes
several files (a bundle and its lock) stages all of them before committing the first.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import shutil
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, cast

from skillpack.errors import Location, SkillpackError, display_path

#: the path meaning standard output, wherever a file output is accepted
STDOUT = "-"
#: a temporary name keeps this much of the destination's name, so that any valid
#: destination name gives a valid temporary name (at most 255 bytes)
NAME_KEPT = 40

#: failures meaning the path cannot be a file at all (a usage problem, exit 2)
_NOT_A_FILE = frozenset({errno.EISDIR, errno.ENOTDIR, errno.ENAMETOOLONG, errno.ELOOP})
_HINTS = {
    errno.ENOSPC: "free some space on that file system, or write elsewhere",
    errno.EDQUOT: "free some space (a disk quota is reached), or write elsewhere",
    errno.EFBIG: "the file is larger than this process may write (ulimit -f): raise the "
    "limit or write elsewhere",
    errno.EACCES: "check the permissions of the file and its directory, or write elsewhere",
    errno.EPERM: "check the permissions of the file and its directory, or write elsewhere",
    errno.EROFS: "the file system is read-only: write elsewhere",
    errno.EPIPE: "the reader of the FIFO or socket went away before the end",
}


#: how a new file is opened: created here (never an existing file, nor through a link)
_NEW = (
    os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
)  # fmt: skip


def new_file(directory: str, prefix: str, suffix: str = ".tmp") -> tuple[int, str]:
    """A file made in ``directory`` under a name no other file has (``prefix``, 12
    random hexadecimal digits, ``suffix``), readable and writable by its owner only:
    its descriptor and path. As :func:`tempfile.mkstemp` makes one, without importing
    :mod:`tempfile` (and :mod:`random`) on every command's start."""
    for _ in range(100):
        path = os.path.join(directory, f"{prefix}{os.urandom(6).hex()}{suffix}")
        try:
            return os.open(path, _NEW, 0o600), path
        except FileExistsError:
            continue  # taken: another name
    raise FileExistsError(errno.EEXIST, "no unused temporary file name", directory)


def output_error(exc: OSError, shown: str, what: str, action: str = "write") -> SkillpackError:
    """The coded error for a failure to write (``action``) ``what`` at the path shown as
    ``shown``: ``OUT002`` (exit 2) when the path cannot be a file, else ``OUT003`` (exit
    1). The message gives the system's reason, never the name of a temporary file."""
    reason = exc.strerror or type(exc).__name__
    if exc.errno == errno.ENOTDIR:
        culprit = not_a_directory(os.path.dirname(os.path.abspath(shown)))
        if culprit is not None and culprit[1] == "not a directory":
            reason = f"{display_path(culprit[0])} is a file, not a directory"
    if exc.errno in _NOT_A_FILE:
        return SkillpackError(
            "OUT002",
            f"cannot {action} {what} here: {reason}",
            Location(shown),
            hint="name a file in an existing or creatable directory (or - for standard output)",
        )
    return SkillpackError(
        "OUT003",
        f"cannot {action} {what}: {reason}",
        Location(shown),
        hint=_HINTS.get(exc.errno or 0, "nothing was replaced; check the path and retry"),
    )


def not_a_directory(path: str | os.PathLike[str]) -> tuple[str, str] | None:
    """(entry, why) when ``path`` cannot be (or be made) a directory: the nearest of it
    and its parents that exists is not a directory (``why``: "not a directory", or what
    it is instead: "a FIFO, not a directory", a socket, a device), is a symbolic link to
    nothing (a directory cannot be made through it) or a loop of links, or cannot be
    looked at (the system's reason); None when that one is a directory (or nothing
    exists up to the root)."""
    current = os.path.abspath(path)
    while True:
        try:
            st = os.stat(current)
        except (FileNotFoundError, NotADirectoryError):
            if os.path.islink(current):
                try:
                    target = os.readlink(current)
                except OSError:
                    target = "?"
                return current, f"a symbolic link to {target!r}, which does not exist"
            parent = os.path.dirname(current)
            if parent == current:
                return None
            current = parent
            continue
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return current, "a loop of symbolic links"
            return current, exc.strerror or str(exc)
        return None if stat.S_ISDIR(st.st_mode) else (current, _not_a_directory(st.st_mode))


def _not_a_directory(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO, not a directory"
    if stat.S_ISSOCK(mode):
        return "a socket, not a directory"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device, not a directory"
    return "not a directory"


def _kind(mode: int) -> str:
    if stat.S_ISBLK(mode):
        return "a block device"
    return "not a regular file, FIFO, character device or socket"


class _Sink(io.RawIOBase):
    """A file descriptor whose write failures are :func:`output_error` values."""

    def __init__(self, fd: int, output: Output) -> None:
        super().__init__()
        self._fd = fd
        self._output = output

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def write(self, data: bytes) -> int:  # type: ignore[override]
        try:
            return os.write(self._fd, data)
        except OSError as exc:
            raise self._output.error(exc) from None

    def close(self) -> None:
        if not self.closed:
            try:
                os.close(self._fd)
            finally:
                super().close()


def _buffered(fd: int, output: Output) -> BinaryIO:
    """``fd`` buffered, its write failures ``output``'s coded errors."""
    raw = cast(io.RawIOBase, _Sink(fd, output))  # BufferedWriter's stubs want a file
    return cast(BinaryIO, io.BufferedWriter(raw, 1 << 20))


class Output:
    """A file a command writes where it was told to (see the module's docstring).

    Made before any work: a path that cannot be written as asked (a directory, a block
    device, a parent that is a file, a name too long) is refused here. ``what`` names
    the content in messages ("the bundle"); ``mode`` is a new or replaced regular
    file's; with ``exclusive`` an existing file is never replaced (``FileExistsError``
    on commit)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        what: str = "the output",
        mode: int = 0o644,
        exclusive: bool = False,
    ) -> None:
        self.given = os.fspath(path)
        self.what = what
        self.mode = mode
        self.exclusive = exclusive
        self.to_stdout = self.given == STDOUT
        #: the path as messages show it: the user's, never a temporary or resolved one
        self.shown = "stdout" if self.to_stdout else display_path(self.given)
        #: a character device, FIFO or socket (or a link to one): written through
        self.through = False
        self._socket = False
        #: where a regular file is written: the path, or the file a symlink points to
        self.target = Path(os.path.abspath(self.given))
        self.existed = False  #: a regular file was there already
        self._tmp: str | None = None  #: the staged content, once staged
        self._data: bytes | None = None  #: staged bytes for stdout or a written-through target
        self._made: list[str] = []  #: directories created for the file (removed on failure)
        if not self.to_stdout:
            self._classify()

    # -- what the path is ---------------------------------------------------------------
    def _classify(self) -> None:
        if self.given.endswith(("/", os.sep)) or os.path.basename(self.given) in ("", ".", ".."):
            raise self.error(IsADirectoryError(errno.EISDIR, "Is a directory"))
        try:
            st = os.stat(self.given)
        except FileNotFoundError:
            # a new file, or the file a dangling symlink names
            self.target = Path(os.path.realpath(self.given))
            return
        except OSError as exc:
            raise self.error(exc) from None
        mode = st.st_mode
        if stat.S_ISDIR(mode):
            raise self.error(IsADirectoryError(errno.EISDIR, "Is a directory"))
        if stat.S_ISREG(mode):
            self.target = Path(os.path.realpath(self.given))
            self.existed = True
        elif stat.S_ISCHR(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
            self.through = True
            self._socket = stat.S_ISSOCK(mode)
        else:
            raise SkillpackError(
                "OUT002",
                f"cannot write {self.what} here: it is {_kind(mode)}",
                Location(self.shown),
                hint="name a regular file, a FIFO, a character device or - for standard output",
            )

    @property
    def is_file(self) -> bool:
        """Whether the output is a regular file (replaced atomically), not stdout or a
        written-through device, FIFO or socket."""
        return not (self.to_stdout or self.through)

    def error(self, exc: OSError) -> SkillpackError:
        return output_error(exc, self.shown, self.what)

    # -- staging ------------------------------------------------------------------------
    def _make_dirs(self, directory: Path) -> None:
        missing: list[Path] = []
        current = directory
        while not current.exists() and current != current.parent:
            missing.append(current)
            current = current.parent
        for path in reversed(missing):
            try:
                os.mkdir(path)
            except FileExistsError:
                continue
            self._made.append(str(path))

    def _temp(self) -> int:
        if self._tmp is not None:
            raise RuntimeError(f"{self.shown}: staged twice")
        if self.is_file:
            prefix, where = f".{self.target.name[:NAME_KEPT]}.", str(self.target.parent)
        else:
            import tempfile  # the system's temporary directory: output not to a file

            prefix, where = "skillpack-", tempfile.gettempdir()
        try:
            if self.is_file:
                self._make_dirs(self.target.parent)
            fd, self._tmp = new_file(where, prefix)
        except OSError as exc:
            self.discard()
            raise self.error(exc) from None
        return fd

    @contextlib.contextmanager
    def stage(self) -> Iterator[BinaryIO]:
        """A file to write the content to (buffered); on an exception the staged content
        is discarded. Nothing reaches the destination before :meth:`commit`."""
        fd = self._temp()
        try:
            with _buffered(fd, self) as fh:
                yield fh
                fh.flush()
                if self.is_file:
                    try:
                        os.fsync(fd)
                    except OSError as exc:
                        raise self.error(exc) from None
        except BaseException:
            self.discard()
            raise

    def stage_bytes(self, data: bytes) -> None:
        """Stage ``data`` as the whole content."""
        if not self.is_file:
            self._data = data
            return
        with self.stage() as fh:
            fh.write(data)

    @property
    def staged(self) -> Path:
        """The staged file (to read back what was written, before :meth:`commit`)."""
        if self._tmp is None:
            raise RuntimeError(f"{self.shown}: nothing staged in a file")
        return Path(self._tmp)

    # -- committing ---------------------------------------------------------------------
    def commit(self) -> None:
        """Put the staged content in place: rename it over a regular file (or link it,
        with ``exclusive``), or write it through to stdout, a device, FIFO or socket."""
        try:
            if self.is_file:
                tmp = self.staged
                try:
                    os.chmod(tmp, self.mode)
                    if self.exclusive:
                        os.link(tmp, self.target)  # atomic, and fails if it exists
                        os.unlink(tmp)
                    else:
                        os.replace(tmp, self.target)
                except FileExistsError:
                    raise FileExistsError(errno.EEXIST, "File exists", self.given) from None
                except OSError as exc:
                    raise self.error(exc) from None
                self._tmp = None
                self._made = []
            else:
                self._write_through()
        except BaseException:
            self.discard()
            raise
        self.discard()  # a spooled copy of written-through content

    def _chunks(self) -> Iterator[bytes]:
        if self._data is not None:
            yield self._data
            return
        if self._tmp is None:
            return
        with open(self._tmp, "rb") as source:
            while chunk := source.read(1 << 20):
                yield chunk

    def _write_through(self) -> None:
        if self.to_stdout:
            sys.stdout.flush()
            out = sys.stdout.buffer
            for chunk in self._chunks():
                out.write(chunk)
            out.flush()  # failures are the standard stream's (OUT001, at exit)
            return
        try:
            if self._socket:
                import socket

                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                    sock.connect(self.given)
                    for chunk in self._chunks():
                        sock.sendall(chunk)
                return
            fd = os.open(self.given, os.O_WRONLY | getattr(os, "O_NOCTTY", 0))
        except OSError as exc:
            raise self.error(exc) from None
        with _buffered(fd, self) as out:
            for chunk in self._chunks():
                out.write(chunk)

    def discard(self) -> None:
        """Remove what was staged and the directories made for it (never raises)."""
        self._data = None
        if self._tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(self._tmp)
            self._tmp = None
        for directory in reversed(self._made):
            with contextlib.suppress(OSError):
                os.rmdir(directory)
        self._made = []

    # -- the usual ways in --------------------------------------------------------------
    def holds(self, data: bytes) -> bool:
        """Whether the destination is a regular file holding exactly ``data``."""
        if not (self.is_file and self.existed):
            return False
        try:
            with open(self.target, "rb") as fh:
                return fh.read(len(data) + 1) == data
        except OSError:
            return False

    def write(self, data: bytes) -> None:
        """Stage ``data`` and commit it."""
        self.stage_bytes(data)
        self.commit()

    @contextlib.contextmanager
    def writer(self) -> Iterator[BinaryIO]:
        """Stage what the block writes; commit it when the block succeeds."""
        with self.stage() as fh:
            yield fh
        self.commit()


def write_output(
    path: str | os.PathLike[str], data: bytes, *, what: str = "the output", mode: int = 0o644
) -> Output:
    """Write ``data`` to a user-named ``path`` (an :class:`Output`); return it."""
    output = Output(path, what=what, mode=mode)
    output.write(data)
    return output


def copy_into(output: BinaryIO, source: Path) -> None:
    """Copy the file ``source`` into ``output``."""
    with open(source, "rb") as fh:
        shutil.copyfileobj(fh, output, 1 << 20)


@contextlib.contextmanager
def atomic_writer(path: Path, mode: int = 0o644, *, overwrite: bool = True) -> Iterator[BinaryIO]:
    """Open a temporary file beside ``path``; on success fsync it and rename it over
    ``path``; on any exception remove it and leave ``path`` untouched. With
    ``overwrite=False`` an existing ``path`` is never replaced: FileExistsError."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = new_file(str(path.parent), f".{path.name[:NAME_KEPT]}.")
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


def atomic_write(
    path: Path,
    data: bytes,
    mode: int = 0o644,
    *,
    overwrite: bool = True,
    what: str | None = None,
) -> None:
    """Write ``data`` to ``path`` atomically (never replacing it if not ``overwrite``).
    With ``what`` (what the file holds, for messages), a failure is the coded error of
    :func:`output_error` naming ``path``, not the system's ``OSError``."""
    try:
        with atomic_writer(path, mode, overwrite=overwrite) as fh:
            fh.write(data)
    except FileExistsError:
        raise
    except OSError as exc:
        if what is None:
            raise
        raise output_error(exc, display_path(path), what) from None


def write_if_changed(
    path: Path, data: bytes, mode: int = 0o644, *, what: str | None = None
) -> bool:
    """Atomically write ``data`` unless ``path`` already holds exactly it. True if written.
    ``what``: as for :func:`atomic_write`."""
    try:
        if Path(path).read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    atomic_write(path, data, mode, what=what)
    return True

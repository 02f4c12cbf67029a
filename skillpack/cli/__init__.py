"""The ``skillpack`` command line: a thin typer layer over the library API.

Every command is a module of this package registered in one table
(:mod:`skillpack.cli.table`: name, module, summary); only the invoked command's
module is imported. Commands raise :class:`skillpack.errors.SkillpackError`;
:func:`run` renders it on stderr and exits with its code.

:func:`main` is the process entry point (``skillpack/__main__.py``): it sets up the
process (standard streams that survive a reader that goes away) and calls :func:`run`.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Sequence
from typing import TextIO, cast

__all__ = ["main", "run"]


def run(argv: Sequence[str]) -> int:
    """Run ``skillpack ARGV`` in this process; return the exit code (never raises)."""
    from skillpack.cli.app import run as run_app

    return run_app(argv)


def main(argv: Sequence[str]) -> int:
    """The process entry point: :func:`run` with standard streams that survive a reader
    that goes away, and a coded error (``OUT001``, exit 1) when the output cannot be
    written (a full disk, an I/O error)."""
    sys.stdout, out = _guarded(sys.stdout, 1)
    sys.stderr, _ = _guarded(sys.stderr, 2)
    code = run(argv)
    sys.stdout.flush()
    if out is not None and out.failure is not None:
        from skillpack.errors import Location, SkillpackError

        reason = out.failure.strerror or str(out.failure)
        failed = SkillpackError("OUT001", f"cannot write: {reason}", Location("stdout"))
        print(failed.render(), file=sys.stderr)
        code = max(code, failed.exit_code)
    return code


class _Output(io.RawIOBase):
    """A standard stream's file descriptor that never raises on write.

    Once the reader is gone (EPIPE: ``skillpack lint | head -1``) what follows is
    dropped and the command keeps its exit code, whichever way it goes; any other
    failure (ENOSPC, EIO) is kept in :attr:`failure` for :func:`main` to report, and
    what follows is dropped too. Nothing fails when the interpreter flushes at exit."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd
        self.gone = False
        self.failure: OSError | None = None

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)

    def write(self, data: bytes) -> int:  # type: ignore[override]
        if not self.gone and self.failure is None:
            try:
                return os.write(self._fd, data)
            except BrokenPipeError:
                self.gone = True
            except OSError as exc:
                self.failure = exc
        return len(data)


def _guarded(stream: TextIO, fd: int) -> tuple[TextIO, _Output | None]:
    """``stream`` rebuilt over an :class:`_Output` (same encoding and buffering), and
    that output; ``stream`` unchanged when it is not the process's own ``fd``."""
    try:
        if stream.fileno() != fd:
            return stream, None
    except (AttributeError, OSError, ValueError):  # replaced or detached: leave it
        return stream, None
    stream.flush()
    output = _Output(fd)
    raw = cast(io.RawIOBase, output)  # BufferedWriter's stubs want a file
    line_buffering = bool(stream.line_buffering) or fd == 2
    wrapped = io.TextIOWrapper(
        io.BufferedWriter(raw),
        encoding=stream.encoding,
        errors=stream.errors,
        line_buffering=line_buffering,
        write_through=fd == 2,
    )
    return wrapped, output

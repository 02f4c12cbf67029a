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
    """The process entry point: :func:`run` with closed-pipe-proof stdout and stderr."""
    sys.stdout = _pipe_proof(sys.stdout, 1)
    sys.stderr = _pipe_proof(sys.stderr, 2)
    return run(argv)


class _DropWhenClosed(io.RawIOBase):
    """A file descriptor's writer that drops what it is given once the reader is gone
    (EPIPE), instead of raising: ``skillpack lint | head -1`` keeps lint's exit code,
    whichever way it goes, and nothing fails when the interpreter flushes at exit."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd
        self.gone = False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)

    def write(self, data: bytes) -> int:  # type: ignore[override]
        if not self.gone:
            try:
                return os.write(self._fd, data)
            except BrokenPipeError:
                self.gone = True
        return len(data)


def _pipe_proof(stream: TextIO, fd: int) -> TextIO:
    """``stream`` rebuilt over :class:`_DropWhenClosed` (same encoding and buffering);
    ``stream`` unchanged when it is not the process's own ``fd``."""
    try:
        if stream.fileno() != fd:
            return stream
    except (AttributeError, OSError, ValueError):  # replaced or detached: leave it
        return stream
    stream.flush()
    raw = cast(io.RawIOBase, _DropWhenClosed(fd))  # BufferedWriter's stubs want a file
    line_buffering = bool(stream.line_buffering) or fd == 2
    return io.TextIOWrapper(
        io.BufferedWriter(raw),
        encoding=stream.encoding,
        errors=stream.errors,
        line_buffering=line_buffering,
        write_through=fd == 2,
    )

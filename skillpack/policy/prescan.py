"""The content scan started early: a bundle's files scanned in a forked worker while
this process opens the same bundle in full and decides what it writes.

Admission (:func:`skillpack.policy.admission.admit`) judges verified bytes only. The
scan is a pure function of a file's skill-relative path and its bytes, so a result
made earlier, from a separate fast open of the same file, stands for a verified file
exactly when the path it was made for and the sha256 of the bytes it read are the
verified file's: results are keyed by both (:data:`Prescanned`). A file without its
key there (the bundle changed on the disk in between, a file the worker could not
read, a worker that failed) is scanned again by ``admit``; nothing the worker reports
is taken beyond that key.

The worker goes through the files from the first; when this process is ready for the
results it scans from the last one down until the two meet (two counters in a page of
shared memory say how far each has come; a file both reach is scanned twice, which
changes nothing). So the scan runs beside the open on a second CPU and ends on two.
The worker reads the bundle through its own fast open (the lock and index, then each
file checked against them as it is read) and writes nothing; it is stopped (SIGKILL;
it dies with this process too) when the caller no longer needs it.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Collection, Iterable, Mapping
from pathlib import Path

from skillpack._internal.parallel import (
    Forked,
    WorkerError,
    can_fork,
    default_jobs,
)
from skillpack.manifest import FileEntry, SkillEntry
from skillpack.scan.model import ScanFinding

#: findings by (the skill-relative path scanned, the sha256 digest of the bytes read)
Prescanned = Mapping[tuple[str, str], list[ScanFinding]]

#: a smaller bundle is scanned after its open: forking and the second open of its
#: lock and index cost more than the overlap saves
MIN_BYTES = 1 << 20


def first_listing(skills: Iterable[SkillEntry]) -> list[FileEntry]:
    """Every file of ``skills`` once, as the first skill listing it names it (the
    entry whose path the scan reads)."""
    files: list[FileEntry] = []
    done: set[str] = set()
    for skill in skills:
        for entry in skill.files:
            if entry.uri not in done:
                done.add(entry.uri)
                files.append(entry)
    return files


class Prescan:
    """The scan of every file of the bundle at ``path``, running in a forked worker
    from construction; :meth:`result` or :meth:`stop` once."""

    def __init__(self, path: Path) -> None:
        import mmap

        from skillpack import scan  # noqa: F401  (loaded once, here, for both processes)

        self._shared = mmap.mmap(-1, mmap.PAGESIZE)  # anonymous and shared with the fork
        #: [files the worker has scanned from the first, the first file this process
        #: has taken from the last]; each an aligned machine word, written by one side
        self._marks = memoryview(self._shared).cast("q")
        self._marks[0], self._marks[1] = 0, _NOT_YET
        try:
            self._forked: Forked[dict[tuple[str, str], list[ScanFinding]]] | None = Forked(
                functools.partial(_scan_bundle, path, self._marks)
            )
        except BaseException:  # no fork (EAGAIN): the caller is told by start_prescan
            self._release()
            raise

    def result(
        self,
        skills: Iterable[SkillEntry],
        read: Callable[[FileEntry], bytes],
        only: Collection[str] | None = None,
    ) -> Prescanned:
        """What the worker found, with this process scanning the files of ``skills``
        (the verified manifest's, listed as the worker lists its own:
        :func:`first_listing`; read verified by ``read``; those whose URI is in ``only``
        when given) from the last one down meanwhile, until it meets the worker; then
        the worker's results with this process's. Without them (the worker failed),
        this process's alone."""
        forked, self._forked = self._forked, None
        if forked is None:
            return {}
        from skillpack._internal.parallel import collector_paused
        from skillpack.scan import scan_file

        found: dict[tuple[str, str], list[ScanFinding]] = {}
        files = first_listing(skills)
        marks = self._marks
        try:
            with collector_paused():
                at = len(files)
                while at > marks[0]:
                    at -= 1
                    marks[1] = at
                    entry = files[at]
                    if only is None or entry.uri in only:
                        found[entry.path, entry.digest] = scan_file(entry.path, read(entry))
        except BaseException:
            forked.stop()
            raise
        finally:
            self._release()
        try:
            theirs = forked.result()
        except WorkerError:
            return found
        theirs.update(found)
        return theirs

    def stop(self) -> None:
        """Stop the worker, if it still runs; idempotent."""
        forked, self._forked = self._forked, None
        if forked is not None:
            forked.stop()
            self._release()

    def _release(self) -> None:
        self._marks.release()
        self._shared.close()


#: the parent has not started from the last file yet
_NOT_YET = 1 << 62


def start_prescan(path: Path) -> Prescan | None:
    """The scan of the bundle at ``path`` started in the background; None where it
    would not pay: one CPU (or ``SKILLPACK_JOBS=1``), no ``fork``, a bundle under
    :data:`MIN_BYTES`, a path that cannot be read (the open that follows says why)."""
    # a forked worker where a pass over a large tree would use them (SKILLPACK_JOBS, or
    # one per CPU on Linux)
    if default_jobs() < 2 or not can_fork() or sys.platform != "linux":
        return None
    try:
        size = os.stat(path).st_size
    except OSError:
        return None
    if size < MIN_BYTES:
        return None
    try:
        return Prescan(path)
    except OSError:  # no process or memory to spare: admit scans after the open
        return None


def _scan_bundle(path: Path, marks: memoryview) -> dict[tuple[str, str], list[ScanFinding]]:
    """The body of the worker: a fast open, then each file from the first read,
    checked against the index it read and scanned, until it reaches the files the
    parent took from the last."""
    from skillpack._internal.parallel import collector_paused
    from skillpack.bundle.reader import open_bundle
    from skillpack.errors import SkillpackError
    from skillpack.scan import scan_file

    found: dict[tuple[str, str], list[ScanFinding]] = {}
    # no collection walks (and copies) the pages shared with the parent
    with collector_paused(), open_bundle(path, mode="fast") as bundle:
        for at, entry in enumerate(first_listing(bundle.manifest.skills)):
            if at >= marks[1]:
                break
            try:
                data = bundle.read_verified(entry)
            except SkillpackError:  # its size or digest, a bad entry: admit rescans it
                data = None
            if data is not None:
                found[entry.path, entry.digest] = scan_file(entry.path, data)
            marks[0] = at + 1
    return found

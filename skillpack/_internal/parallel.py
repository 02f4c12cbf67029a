"""Per-skill work shared between forked worker processes (lint and the manifest).

Parsing ``SKILL.md``, running the lint checks, hashing, compressing and rendering each
skill's lock table all hold the GIL (or are too small to release it usefully), so large
runs are split into contiguous ranges of skills: all but the last go to ``fork()``-ed
children, which inherit the tree and the work function without pickling, and the last
is done in this process meanwhile. A child pickles its results into a pipe that is
read once this process's own range is done; results come back in range order.
"""

from __future__ import annotations

import functools
import gc
import itertools
import os
import signal
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Generic, TypeVar, cast

from skillpack.errors import UsageError

T = TypeVar("T")

#: below this many skills a run stays in one process (forking costs more than it saves)
PARALLEL_MIN_SKILLS = 200


def configured_jobs(environ: Mapping[str, str] | None = None) -> int | None:
    """``SKILLPACK_JOBS`` as a number of processes, None when unset or empty; any other
    value than a whole number of 1 or more is refused (``CFG020``, exit 2)."""
    value = (os.environ if environ is None else environ).get("SKILLPACK_JOBS", "").strip()
    if not value:
        return None
    if not (value.isascii() and value.isdigit() and int(value) >= 1):
        raise UsageError(
            "CFG020",
            f"SKILLPACK_JOBS={value!r} is not a number of processes (1 or more)",
            hint="set it to a whole number such as 2, or unset it for one per CPU",
        )
    return int(value)


def default_jobs(skills: int) -> int:
    """Processes for ``skills`` skills: ``SKILLPACK_JOBS`` when set, else one per CPU
    (at most 4) for large runs on Linux, where fork() makes workers cheap; else 1."""
    import sys

    configured = configured_jobs()
    if configured is not None:
        return configured
    if skills < PARALLEL_MIN_SKILLS or sys.platform != "linux":
        return 1
    return max(1, min(4, os.cpu_count() or 1))


class WorkerError(RuntimeError):
    """A forked worker failed (an unexpected exception, or it died)."""


def _child(work: Callable[[], object], fd: int) -> None:
    """The body of a forked child: never returns (``os._exit``, so nothing inherited from
    the parent, such as buffered output or ``atexit`` handlers, runs twice)."""
    import pickle

    code = 0
    try:
        payload = pickle.dumps((True, work()), protocol=pickle.HIGHEST_PROTOCOL)
    except BaseException as exc:  # reported by the parent
        import traceback

        code = 1
        text = "".join(traceback.format_exception(exc))
        payload = pickle.dumps((False, text), protocol=pickle.HIGHEST_PROTOCOL)
    try:
        with open(fd, "wb") as out:
            out.write(payload)
    finally:
        os._exit(code)


def _die_with(parent: int) -> None:
    """A worker never outlives its parent (Linux ``PR_SET_PDEATHSIG``): a command
    killed with SIGKILL (an install stopped halfway) stops its workers too, so nothing
    goes on writing after the command is gone."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # no prctl: the worker finishes its range
        return
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


_PR_SET_PDEATHSIG = 1


class Forked(Generic[T]):
    """``work()`` running in a forked child, which inherits everything it needs; its
    return value comes back pickled through a pipe, read by :meth:`result`. Call
    :meth:`result` or :meth:`stop` exactly once (the child is reaped there)."""

    def __init__(self, work: Callable[[], T]) -> None:
        # pickle is loaded here, before the fork, not by every child (and not at all by
        # a run in one process: start-up of ``skillpack lint FILE``)
        import pickle  # noqa: F401

        read_fd, write_fd = os.pipe()
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # pragma: no cover (the child exits in _child)
            os.close(read_fd)
            _die_with(parent)
            _child(work, write_fd)
        os.close(write_fd)
        self.pid, self._fd = pid, read_fd

    def result(self) -> T:
        """The child's return value; WorkerError if it raised or died."""
        import pickle

        with open(self._fd, "rb") as pipe:
            data = pipe.read()
        _, status = os.waitpid(self.pid, 0)
        try:
            ok, value = pickle.loads(data)
        except Exception:  # a child that died before writing its whole result
            raise WorkerError(f"worker process {self.pid} failed (wait status {status})") from None
        if not ok:
            raise WorkerError(f"worker process {self.pid} failed:\n{value}")
        return cast("T", value)  # what work() returned, unpickled

    def stop(self) -> None:
        """Kill the child (if it still runs) and reap it."""
        os.close(self._fd)
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except OSError:
            pass


def can_fork() -> bool:
    return hasattr(os, "fork")


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for the length of a pass over many skills,
    then as it was. A pass makes many long-lived objects (results, archive entries)
    and almost no cycles (20 objects over a 1,000-skill build), but the collector
    traverses the whole growing heap again at every full collection: about 25 ms of
    unpickling a worker's results went to it. A worker forked meanwhile inherits the
    pause, so no collection of its own touches (and copies) every page it shares with
    its parent."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def map_ranges(work: Callable[[int, int], T], count: int, jobs: int) -> list[T]:
    """``work(start, stop)`` over ``range(count)`` split into ``jobs`` contiguous ranges
    (nested skills stay next to their parents): the first ones in forked children, the
    last in this process meanwhile (its results need no pickling); the results in range
    order. ``work`` must return picklable values. The collector is paused meanwhile
    (:func:`collector_paused`)."""
    with collector_paused():
        return _map_ranges(work, count, jobs)


def _map_ranges(work: Callable[[int, int], T], count: int, jobs: int) -> list[T]:
    jobs = min(jobs, count) if can_fork() else 1
    if jobs <= 1:
        return [work(0, count)]
    ranges = list(itertools.pairwise([count * i // jobs for i in range(jobs + 1)]))
    children: list[Forked[T]] = []
    try:
        for start, stop in ranges[:-1]:
            children.append(Forked(functools.partial(work, start, stop)))
        own = work(*ranges[-1])
        results = []
        while children:
            results.append(children.pop(0).result())
        return [*results, own]
    finally:
        for child in children:  # after an error here: stop and reap the others
            child.stop()

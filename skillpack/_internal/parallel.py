"""Per-skill work shared between forked worker processes (lint and the manifest).

Parsing ``SKILL.md``, running the lint checks, hashing, compressing and rendering each
skill's lock table all hold the GIL (or are too small to release it usefully), so large
runs are split into short contiguous ranges of skills that ``fork()``-ed children and
this process claim one at a time (:func:`map_ranges`): the children inherit the tree
and the work function without pickling, a process that is slower (this one, which
also reads the children's results; a machine's other load) simply does fewer ranges,
and all finish together. A child pickles each range's results into its pipe as soon as
it is done; this process reads them between its own ranges; results come back in range
order.
"""

from __future__ import annotations

import gc
import itertools
import os
import signal
import struct
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Generic, TypeVar, cast

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


def default_jobs(skills: int | None = None) -> int:
    """Processes for ``skills`` skills: ``SKILLPACK_JOBS`` when set, else one per CPU
    (at most 4) for large runs on Linux, where fork() makes workers cheap; else 1.
    ``skills`` None: work whose size is not counted in skills (a root's walk, a
    bundle's scan), as for a large run."""
    import sys

    configured = configured_jobs()
    if configured is not None:
        return configured
    if (skills is not None and skills < PARALLEL_MIN_SKILLS) or sys.platform != "linux":
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
        _kill(self.pid)


def _kill(pid: int) -> None:
    """Kill the child ``pid`` (if it still runs) and reap it."""
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except OSError:
        pass


def can_fork() -> bool:
    return hasattr(os, "fork")


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for the length of a pass over many skills
    (a discovery, a whole build: it decorates too), then as it was. A pass makes many
    long-lived objects (results, archive entries) and almost no cycles (20 objects over
    a 1,000-skill build), but the collector
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


#: ranges handed out per process of a pass (:func:`map_ranges`): enough that the
#: processes finish together (the last range is short), few enough that claiming one
#: (a 4-byte read) and sending its results back cost nothing next to the work
RANGES_PER_JOB = 32
#: ranges of one pass at most, whatever ``SKILLPACK_JOBS`` says: their numbers (4 bytes
#: each) are all queued in the claims pipe before any process reads it, and must fit in
#: its buffer (64 KiB at least on Linux)
MAX_RANGES = 4096
#: what a child's result pipe can hold before its writes wait for this process to read
#: them (Linux ``F_SETPIPE_SZ``; the default is 64 KiB): this process reads between its
#: own ranges, so a child rarely waits
RESULT_PIPE_BYTES = 1 << 20
_ID = struct.Struct("<I")
_FRAME = struct.Struct("<Q")


def map_ranges(
    work: Callable[[int, int], T],
    count: int,
    jobs: int,
    first: Callable[[], object] | None = None,
    received: Callable[[T], T] | None = None,
) -> list[T]:
    """``work(start, stop)`` over ``range(count)`` split into contiguous ranges that
    ``jobs`` processes claim one at a time as each finishes its last (forked children
    and this process; :data:`RANGES_PER_JOB`), so that they finish together whatever
    each range costs and whatever else the machine runs; the results in range order,
    one per range. ``work`` must return picklable values; a child sends each range's
    back as soon as it is done. ``first()``, when given, is this process's own work,
    done once before it claims a range: the children, forked by then, claim more of
    them meanwhile. ``received(result)``, when given, is what this process keeps of a
    result a child sent, made as it reads the result, between its own ranges (objects
    made again from a child's plain values: what is left to do after the last range is
    only its own). The collector is paused meanwhile (:func:`collector_paused`)."""
    with collector_paused():
        return _map_ranges(work, count, jobs, first, received)


def split_ranges(count: int, jobs: int) -> list[tuple[int, int]]:
    """The contiguous ranges :func:`map_ranges` hands out for ``count`` items and
    ``jobs`` processes: at most :data:`RANGES_PER_JOB` per process and
    :data:`MAX_RANGES` in all, none empty."""
    parts = max(1, min(count, jobs * RANGES_PER_JOB, MAX_RANGES))
    return list(itertools.pairwise([count * i // parts for i in range(parts + 1)]))


def _map_ranges(
    work: Callable[[int, int], T],
    count: int,
    jobs: int,
    first: Callable[[], object] | None,
    received: Callable[[T], T] | None,
) -> list[T]:
    jobs = min(jobs, count) if can_fork() else 1
    if jobs <= 1:
        if first is not None:
            first()
        return [work(0, count)]
    ranges = split_ranges(count, jobs)
    results: dict[int, T] = {}
    claims_r, claims_w = os.pipe()
    children: list[_Child] = []
    try:
        # every range's number, queued before any process starts: a read of 4 bytes
        # from a pipe takes the next one whole (the pipe's lock), EOF once all are taken
        queued = memoryview(b"".join(_ID.pack(i) for i in range(len(ranges))))
        while queued:
            queued = queued[os.write(claims_w, queued) :]
        os.close(claims_w)
        claims_w = -1
        for _ in range(jobs - 1):
            children.append(_Child(work, ranges, claims_r))
        if first is not None:
            first()
        while (claimed := _claim(claims_r)) is not None:
            results[claimed] = work(*ranges[claimed])
            for child in children:
                child.drain(results, received, block=False)
        for child in children:
            child.drain(results, received, block=True)
            child.reap()
        children = []
        missing = [i for i in range(len(ranges)) if i not in results]
        if missing:  # cannot happen: a child that did not send a range failed
            raise WorkerError(f"no result for {len(missing)} ranges")
        return [results[i] for i in range(len(ranges))]
    finally:
        os.close(claims_r)
        if claims_w >= 0:
            os.close(claims_w)
        for child in children:  # after an error here: stop and reap the others
            child.stop()


def _claim(fd: int) -> int | None:
    """The next range's number from the claims pipe, None once every range is taken."""
    data = os.read(fd, _ID.size)
    return _ID.unpack(data)[0] if len(data) == _ID.size else None


class _Child:
    """A forked child of :func:`map_ranges`: it claims ranges until none is left and
    sends back ``(True, number, result)`` for each, pickled and framed by its length,
    or ``(False, number, traceback)`` for the first that raised, and stops."""

    def __init__(self, work: Callable[[int, int], object], ranges: list[tuple[int, int]],
                 claims: int) -> None:  # fmt: skip
        import pickle  # here, before the fork, not in every child

        read_fd, write_fd = os.pipe()
        _grow_pipe(write_fd)
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # pragma: no cover (the child exits in _serve)
            os.close(read_fd)
            _die_with(parent)
            _serve(work, ranges, claims, write_fd)
        os.close(write_fd)
        os.set_blocking(read_fd, False)
        self.pid, self._fd = pid, read_fd
        self._buffer = bytearray()
        self._pickle = pickle

    def drain(
        self, results: dict[int, Any], received: Callable[[Any], Any] | None, *, block: bool
    ) -> None:
        """Take what the child has sent into ``results`` (``block``: all of it, up to
        its exit), each result as ``received`` makes it; raise :class:`WorkerError` for
        a range it failed."""
        if self._fd < 0:
            return
        if block:
            os.set_blocking(self._fd, True)
        while True:
            try:
                data = os.read(self._fd, RESULT_PIPE_BYTES)
            except BlockingIOError:
                break
            if not data:
                os.close(self._fd)
                self._fd = -1
                break
            self._buffer += data
        self._frames(results, received)

    def _frames(self, results: dict[int, Any], received: Callable[[Any], Any] | None) -> None:
        buffer, at = self._buffer, 0
        while len(buffer) - at >= _FRAME.size:
            (size,) = _FRAME.unpack_from(buffer, at)
            end = at + _FRAME.size + size
            if len(buffer) < end:
                break
            ok, number, value = self._pickle.loads(memoryview(buffer)[at + _FRAME.size : end])
            if not ok:
                raise WorkerError(f"worker process {self.pid} failed:\n{value}")
            results[number] = value if received is None else received(value)
            at = end
        del buffer[:at]

    def reap(self) -> None:
        """Wait for the child, after its last result; WorkerError if it died first."""
        _, status = os.waitpid(self.pid, 0)
        self.pid = -1
        if status != 0 or self._buffer:
            raise WorkerError(f"worker process failed (wait status {status})")

    def stop(self) -> None:
        """Kill the child (if it still runs) and reap it."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        if self.pid >= 0:
            _kill(self.pid)


def _grow_pipe(fd: int) -> None:
    """Let the pipe hold :data:`RESULT_PIPE_BYTES` where the system allows it."""
    try:
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, RESULT_PIPE_BYTES)
    except (ImportError, AttributeError, OSError):
        pass  # the default size: a child may wait for this process to read


def _serve(work: Callable[[int, int], object], ranges: list[tuple[int, int]], claims: int,
           fd: int) -> None:  # fmt: skip
    """The body of a :class:`_Child`: never returns (``os._exit``)."""
    import pickle

    code = 0
    try:
        with open(fd, "wb") as out:
            while (claimed := _claim(claims)) is not None:
                try:
                    message = (True, claimed, work(*ranges[claimed]))
                    payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
                except BaseException as exc:  # reported by the parent
                    import traceback

                    code = 1
                    text = "".join(traceback.format_exception(exc))
                    payload = pickle.dumps((False, claimed, text))
                out.write(_FRAME.pack(len(payload)))
                out.write(payload)
                out.flush()
                if code:
                    break
    finally:
        os._exit(code)

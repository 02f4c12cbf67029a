"""skillpack._internal.parallel: ranges claimed by forked children and this process."""

from __future__ import annotations

import gc
import itertools
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from skillpack._internal.parallel import (
    MAX_RANGES,
    RANGES_PER_JOB,
    WorkerError,
    map_ranges,
    split_ranges,
)

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")


def _wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 20
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.005)


def test_results_come_back_in_range_order_from_every_process(tmp_path: Path) -> None:
    def work(start: int, stop: int) -> list[tuple[int, int]]:
        (tmp_path / f"{os.getpid()}.{start}").touch()
        # the first three ranges are held until three processes have each claimed one
        _wait_for(lambda: len({p.name.split(".")[0] for p in tmp_path.iterdir()}) >= 3,
                  "every process to claim a range")  # fmt: skip
        return [(i, os.getpid()) for i in range(start, stop)]

    parts = map_ranges(work, 10, 3)
    assert [i for part in parts for i, _ in part] == list(range(10))
    pids = [{pid for _, pid in part} for part in parts]
    assert all(len(p) == 1 for p in pids)  # a range is done by one process
    assert len(set().union(*pids)) == 3  # two children and this process
    assert {os.getpid()} in pids


def test_ranges_go_to_whichever_process_is_free() -> None:
    """A process slowed down (here: this one) does fewer ranges; the pass ends when the
    work does, not when the slowest process's fixed share does."""
    parent = os.getpid()

    def work(start: int, stop: int) -> list[int]:
        if os.getpid() == parent:
            time.sleep(0.05)
        return [os.getpid()] * (stop - start)

    done = [pid for part in map_ranges(work, 64, 2) for pid in part]
    assert len(done) == 64
    assert done.count(parent) < 16  # half each would be 32


def test_first_is_this_process_own_work_while_the_children_claim_ranges() -> None:
    """first() runs once, here, before this process claims a range: the child, already
    forked, claims ranges meanwhile (here: all of them, while first() waits for it);
    without children it runs once too, before the work."""
    parent = os.getpid()
    log: list[str] = []

    def work(start: int, stop: int) -> list[int]:
        log.append("work")
        return [os.getpid()] * (stop - start)

    def first() -> None:
        log.append("first")
        time.sleep(0.5)  # the child does the 64 short ranges in far less

    done = [pid for part in map_ranges(work, 64, 2, first) for pid in part]
    assert len(done) == 64 and log[0] == "first" and log.count("first") == 1
    assert done.count(parent) < 8  # this process claimed few ranges, or none
    log.clear()
    assert map_ranges(work, 5, 1, first) == [[parent] * 5]
    assert log == ["first", "work"]


def test_a_childs_results_are_received_here_as_they_come() -> None:
    """received() makes what this process keeps of each result a child sent, here, as
    it reads it (some between this process's own ranges); its own results stay as its
    work made them; all in range order."""
    parent = os.getpid()
    seen: list[int] = []

    def work(start: int, stop: int) -> list[tuple[int, int]]:
        if os.getpid() == parent:
            time.sleep(0.002)  # so that the child's results come in meanwhile
        return [(i, os.getpid()) for i in range(start, stop)]

    def received(part: list[tuple[int, int]]) -> list[tuple[int, int]]:
        assert os.getpid() == parent
        seen.append(part[0][0])
        return [(i, -pid) for i, pid in part]

    parts = map_ranges(work, 64, 2, received=received)
    assert [i for part in parts for i, _ in part] == list(range(64))
    by_child = [part for part in parts if part[0][1] < 0]
    assert by_child and len(by_child) == len(seen) < len(parts)
    assert sorted(seen) == [part[0][0] for part in by_child]
    pids = {pid for part in parts for _, pid in part}
    assert len(pids) == 2 and parent in pids and -parent not in pids  # a child's, received


def test_results_larger_than_a_pipe_holds_come_back_whole() -> None:
    """A child's results are read between this process's own ranges and at the end:
    more than the pipe holds (several MiB) neither blocks the pass nor loses a byte."""

    def work(start: int, stop: int) -> list[bytes]:
        return [bytes([i % 251]) * 300_000 for i in range(start, stop)]

    parts = map_ranges(work, 40, 2)
    flat = [b for part in parts for b in part]
    assert [b[:1] for b in flat] == [bytes([i % 251]) for i in range(40)]
    assert all(len(b) == 300_000 and len(set(b)) == 1 for b in flat)


def test_split_ranges_cover_every_item_once() -> None:
    for count in (1, 2, 7, 64, 65, 1000, 5003, 200_000):
        for jobs in (2, 3, 4, 500):
            ranges = split_ranges(count, jobs)
            assert ranges[0][0] == 0 and ranges[-1][1] == count
            assert all(a < b for a, b in ranges)  # none empty
            assert all(x[1] == y[0] for x, y in itertools.pairwise(ranges))
            # all their numbers fit in the claims pipe before any process reads it
            assert len(ranges) <= min(jobs * RANGES_PER_JOB, MAX_RANGES)


def test_more_jobs_than_items_and_one_job() -> None:
    def work(start: int, stop: int) -> list[int]:
        return list(range(start, stop))

    assert [x for part in map_ranges(work, 2, 5) for x in part] == [0, 1]
    assert map_ranges(work, 4, 1) == [[0, 1, 2, 3]]


def test_the_collector_is_paused_in_every_process_of_a_pass_and_restored() -> None:
    def work(start: int, stop: int) -> list[bool]:
        return [gc.isenabled()]

    assert gc.isenabled()
    assert map_ranges(work, 3, 3) == [[False], [False], [False]]
    assert map_ranges(work, 3, 1) == [[False]]
    assert gc.isenabled()  # as it was before the pass
    gc.disable()
    try:
        map_ranges(work, 2, 2)
        assert not gc.isenabled()  # a caller's own pause is left alone
    finally:
        gc.enable()

    def failing(start: int, stop: int) -> None:
        raise ValueError("broken")

    with pytest.raises(ValueError):
        map_ranges(failing, 2, 1)
    assert gc.isenabled()  # restored after an error too


def test_an_exception_in_a_child_is_raised_here_with_its_traceback() -> None:
    parent = os.getpid()

    def work(start: int, stop: int) -> int:
        if os.getpid() != parent:
            raise ValueError("broken skill range")
        time.sleep(0.2)  # the child claims a range meanwhile
        return stop

    with pytest.raises(WorkerError, match=r"(?s)failed:.*ValueError: broken skill range"):
        map_ranges(work, 4, 2)


def test_a_child_that_dies_is_reported_and_reaped(tmp_path: Path) -> None:
    parent = os.getpid()

    def work(start: int, stop: int) -> int:
        if os.getpid() != parent:
            (tmp_path / "pid").write_text(str(os.getpid()))
            os._exit(7)
        time.sleep(0.2)
        return stop

    with pytest.raises(WorkerError, match="wait status"):
        map_ranges(work, 4, 2)
    with pytest.raises(ChildProcessError):  # already reaped: no zombie left behind
        os.waitpid(int((tmp_path / "pid").read_text()), os.WNOHANG)


def test_an_error_here_stops_and_reaps_the_children(tmp_path: Path) -> None:
    parent = os.getpid()

    def work(start: int, stop: int) -> int:
        if os.getpid() == parent:
            _wait_for((tmp_path / "pid").exists, "the child to start")
            raise KeyError("in this process")
        (tmp_path / "pid").write_text(str(os.getpid()))
        time.sleep(30)  # would hold the test if it were not stopped
        return 0

    with pytest.raises(KeyError):
        map_ranges(work, 4, 2)
    with pytest.raises(ChildProcessError):
        os.waitpid(int((tmp_path / "pid").read_text()), os.WNOHANG)


def test_forked_returns_a_value_computed_from_inherited_state() -> None:
    from skillpack._internal.parallel import Forked

    inherited = {"table": list(range(1000))}
    child = Forked(lambda: (os.getpid(), sum(inherited["table"])))
    pid, total = child.result()
    assert pid == child.pid != os.getpid()
    assert total == 499500
    with pytest.raises(ChildProcessError):
        os.waitpid(child.pid, os.WNOHANG)  # reaped by result()


def test_a_forked_child_stopped_early_is_reaped() -> None:
    from skillpack._internal.parallel import Forked

    def slow() -> int:
        time.sleep(30)
        return 1

    child = Forked(slow)
    child.stop()
    with pytest.raises(ChildProcessError):
        os.waitpid(child.pid, os.WNOHANG)


def test_a_worker_dies_with_its_killed_parent(tmp_path: Path) -> None:
    """A command killed with SIGKILL (an install stopped halfway) leaves no worker
    writing on behind it: each worker dies with its parent."""
    import signal
    import subprocess
    import sys
    import time

    trace = tmp_path / "trace"
    script = (
        "import sys, time\n"
        "from skillpack._internal.parallel import Forked\n"
        "def work():\n"
        "    while True:\n"
        "        with open(sys.argv[1], 'a') as f:\n"
        "            f.write('x')\n"
        "        time.sleep(0.005)\n"
        "Forked(work)\n"
        "print('forked', flush=True)\n"
        "time.sleep(60)\n"
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", script, str(trace)], stdout=subprocess.PIPE, text=True
    )
    assert parent.stdout is not None and parent.stdout.readline() == "forked\n"
    deadline = time.monotonic() + 10
    while (not trace.exists() or trace.stat().st_size < 5) and time.monotonic() < deadline:
        time.sleep(0.01)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    time.sleep(0.2)
    size = trace.stat().st_size
    time.sleep(0.3)
    assert trace.stat().st_size == size, "the worker went on writing after its parent died"

"""skillpack._internal.parallel: ranges shared between forked children and this process."""

from __future__ import annotations

import gc
import os
import time
from pathlib import Path

import pytest

from skillpack._internal.parallel import WorkerError, map_ranges

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")


def test_results_come_back_in_range_order_from_every_process() -> None:
    def work(start: int, stop: int) -> list[tuple[int, int]]:
        return [(i, os.getpid()) for i in range(start, stop)]

    parts = map_ranges(work, 10, 3)
    assert [i for part in parts for i, _ in part] == list(range(10))
    pids = [{pid for _, pid in part} for part in parts]
    assert all(len(p) == 1 for p in pids)
    assert len(set().union(*pids)) == 3  # two children and this process
    assert pids[-1] == {os.getpid()}  # the last range is done here


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
    def work(start: int, stop: int) -> int:
        if start == 0:
            raise ValueError("broken skill range")
        return stop

    with pytest.raises(WorkerError, match=r"(?s)failed:.*ValueError: broken skill range"):
        map_ranges(work, 4, 2)


def test_a_child_that_dies_is_reported_and_reaped(tmp_path: Path) -> None:
    def work(start: int, stop: int) -> int:
        if start == 0:
            (tmp_path / "pid").write_text(str(os.getpid()))
            os._exit(7)
        return stop

    with pytest.raises(WorkerError, match="wait status"):
        map_ranges(work, 4, 2)
    with pytest.raises(ChildProcessError):  # already reaped: no zombie left behind
        os.waitpid(int((tmp_path / "pid").read_text()), os.WNOHANG)


def test_an_error_here_stops_and_reaps_the_children(tmp_path: Path) -> None:
    def work(start: int, stop: int) -> int:
        if start != 0:
            while not (tmp_path / "pid").exists():  # the child has started
                time.sleep(0.01)
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

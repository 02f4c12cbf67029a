"""Per-skill work shared between forked worker processes (lint and the manifest).

Parsing ``SKILL.md`` (a pure-Python YAML parser) and running the lint checks cost
about a millisecond per skill, all of it holding the GIL, so large runs are split
into contiguous ranges handed to ``fork()``-ed workers: they inherit the tree and
the work function without pickling, and only their results travel back, in order.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

#: below this many skills a run stays in one process (forking costs more than it saves)
PARALLEL_MIN_SKILLS = 200


def default_jobs(skills: int) -> int:
    """Worker processes for ``skills`` skills: ``SKILLPACK_JOBS`` when set, else one per
    CPU (at most 4) for large runs on Linux, where fork() makes workers cheap; else 1."""
    import os
    import sys

    configured = os.environ.get("SKILLPACK_JOBS", "")
    if configured.isdigit() and int(configured) >= 1:
        return int(configured)
    if skills < PARALLEL_MIN_SKILLS or sys.platform != "linux":
        return 1
    return max(1, min(4, os.cpu_count() or 1))


# what forked workers inherit: the function of a range, set just before the pool forks
_FORKED: Callable[[int, int], Any] | None = None


def _run_range(bounds: tuple[int, int]) -> Any:
    assert _FORKED is not None
    return _FORKED(*bounds)


def map_ranges(work: Callable[[int, int], T], count: int, jobs: int) -> list[T]:
    """``work(start, stop)`` over ``range(count)`` split into ``jobs`` contiguous ranges
    (nested skills stay next to their parents): the first ones in forked workers, the
    last in this process meanwhile (its results need no pickling); the results in range
    order. ``work`` must return picklable values."""
    global _FORKED
    jobs = min(jobs, count)
    if jobs <= 1:
        return [work(0, count)]
    import multiprocessing

    ranges = list(itertools.pairwise([count * i // jobs for i in range(jobs + 1)]))
    _FORKED = work
    try:
        with multiprocessing.get_context("fork").Pool(jobs - 1) as pool:
            forked = pool.map_async(_run_range, ranges[:-1])
            own = work(*ranges[-1])
            return [*forked.get(), own]
    finally:
        _FORKED = None

"""Timing helpers shared by the benchmarks."""

from __future__ import annotations

import compileall
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def compile_package() -> None:
    """Write the package's bytecode, as an installed package has it: with
    ``PYTHONDONTWRITEBYTECODE`` set and a stale or missing ``__pycache__`` (a checkout
    just edited), every command timed would compile the modules it imports first."""
    compileall.compile_dir(str(REPO / "skillpack"), quiet=1)


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    """The shortest wall time of ``repeat`` calls of ``fn``, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)

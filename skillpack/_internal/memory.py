"""Allocator tuning for the build's many small compressions, and the build's objects
left for the end of the process to reclaim.

zlib allocates about 256 KiB of state for every stream it compresses and frees it when
the stream ends. glibc's ``malloc`` returns the top of the heap to the system whenever
more than ``M_TRIM_THRESHOLD`` (128 KiB) is free there, so each small file's
compression paid for a ``brk`` round trip and a page fault on every page of fresh
state: about 50 µs per entry, more than compressing a 1 KiB file takes. Raising the
threshold for the life of a build (a short-lived process) keeps those pages; forked
workers inherit the setting.

Blocks of ``M_MMAP_THRESHOLD`` bytes and more (128 KiB at first; glibc raises it as
such blocks are freed) are mapped from the system each time and unmapped when freed,
so each one's pages fault in afresh (about 3 µs a page here): the lock and the index
of a large build (a megabyte each, made in several steps), the archive's blocks.
Taking blocks up to 32 MiB from the heap instead, which keeps what is freed, took half
the faults out of rendering the lock and 13 ms (median) out of a build of 1,000
skills.

A process that ends without the interpreter's teardown (the command line's entry point,
:func:`skillpack.__main__.main`) gets its memory back from the system at once; freeing
a large build's objects one by one before that (tens of thousands: the tree, the
manifest, the archive entries) took about 10 ms. :func:`keep_until_exit` keeps them
until then, in such a process only.
"""

from __future__ import annotations

import gc
import sys

#: glibc's ``mallopt`` parameter numbers (malloc.h) and the values a build uses
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
BUILD_TRIM_THRESHOLD = 64 * 1024 * 1024
BUILD_MMAP_THRESHOLD = 32 * 1024 * 1024  # glibc's largest on 64-bit systems


def keep_freed_memory(threshold: int = BUILD_TRIM_THRESHOLD) -> bool:
    """Raise glibc's trim threshold to ``threshold`` bytes, and its mmap threshold to
    :data:`BUILD_MMAP_THRESHOLD` where the system allows it; False where that is not
    possible (another platform or C library), which changes only speed."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt  # glibc only; musl has none (AttributeError)
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    mallopt(M_MMAP_THRESHOLD, BUILD_MMAP_THRESHOLD)  # 0 (refused) on 32-bit systems
    return bool(mallopt(M_TRIM_THRESHOLD, threshold))


#: what :func:`keep_until_exit` keeps, once :func:`end_without_teardown` was called
_kept: list[object] | None = None


def end_without_teardown() -> None:
    """Say that this process ends without freeing its objects (the entry point ends it
    with ``os._exit`` once the command is done): :func:`keep_until_exit` keeps what it
    is given from now on."""
    global _kept
    if _kept is None:
        _kept = []


def keep_until_exit(*objects: object) -> None:
    """Keep ``objects`` alive until the process ends, when it ends without teardown
    (:func:`end_without_teardown`), and every object then alive out of the collector's
    sight (``gc.freeze``); otherwise do nothing, so a library caller gets the memory
    back as usual."""
    if _kept is not None:
        _kept.extend(objects)
        # and out of the cyclic collector's sight: its next full collection would
        # otherwise traverse them all (about as long as freeing them)
        gc.freeze()

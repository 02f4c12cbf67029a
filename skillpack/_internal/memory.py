"""Allocator tuning for the build's many small compressions.

zlib allocates about 256 KiB of state for every stream it compresses and frees it when
the stream ends. glibc's ``malloc`` returns the top of the heap to the system whenever
more than ``M_TRIM_THRESHOLD`` (128 KiB) is free there, so each small file's
compression paid for a ``brk`` round trip and a page fault on every page of fresh
state: about 50 µs per entry, more than compressing a 1 KiB file takes. Raising the
threshold for the life of a build (a short-lived process) keeps those pages; forked
workers inherit the setting.
"""

from __future__ import annotations

import sys

#: glibc's ``mallopt`` parameter number (malloc.h) and the value a build uses
M_TRIM_THRESHOLD = -1
BUILD_TRIM_THRESHOLD = 64 * 1024 * 1024


def keep_freed_memory(threshold: int = BUILD_TRIM_THRESHOLD) -> bool:
    """Raise glibc's trim threshold to ``threshold`` bytes; False where that is not
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
    return bool(mallopt(M_TRIM_THRESHOLD, threshold))

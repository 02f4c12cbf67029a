"""What commands print besides their results: JSON, counts, and a progress bar for long
builds (on a terminal only, and only after a second)."""

from __future__ import annotations

import os
import sys
import time
from typing import Any, TextIO

from skillpack._internal.words import plural

__all__ = ["ProgressBar", "echo_json", "plural"]


def echo_json(value: Any) -> None:
    """``value`` as indented JSON on stdout (non-ASCII kept), with a final newline."""
    import json  # only for --format json (start-up of the text output)

    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False) + "\n")


class ProgressBar:
    """``bar(done, total)`` draws on ``stream`` when it is a TTY, ``CI`` is unset and the
    work has run for ``delay`` seconds; :meth:`close` clears the line."""

    def __init__(self, label: str, stream: TextIO | None = None, delay: float = 1.0) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.delay = delay
        self.enabled = self.stream.isatty() and not os.environ.get("CI")
        self.start = time.monotonic()
        self.last = 0.0
        self.width = 0

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.start < self.delay or (now - self.last < 0.1 and done < total):
            return
        self.last = now
        filled = 30 * done // max(total, 1)
        line = f"\r{self.label} [{'#' * filled}{'.' * (30 - filled)}] {done}/{total} files"
        self.width = len(line)
        self.stream.write(line)
        self.stream.flush()

    def close(self) -> None:
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0

"""Cheap literal prefilters: the lines of a text holding a marker, found by one search
for any marker before the rules' own regular expressions run on those lines only."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator
from typing import Any

_ASCII_LOWER = str.maketrans({chr(c): chr(c + 32) for c in range(ord("A"), ord("Z") + 1)})


def ascii_lower(text: str) -> str:
    """``text`` lowercased with offsets kept: an offset in it is the same offset in
    ``text`` (``str.lower`` alone may lengthen non-ASCII text)."""
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else text.translate(_ASCII_LOWER)


def marked_lines(lowered: str, markers: Iterable[str]) -> list[tuple[int, int]]:
    """The (start, end) offsets of the lines of ``lowered`` that hold any of ``markers``
    (lowercase), in order; ``end`` excludes the newline. Each marker is found with
    ``str.find``, skipping to the end of each line it is on, so a file is read once per
    marker present in it however often the marker occurs."""
    lines: dict[int, int] = {}
    find = lowered.find
    rfind = lowered.rfind
    size = len(lowered)
    for marker in markers:
        pos = find(marker)
        while pos >= 0:
            start = rfind("\n", 0, pos) + 1
            end = find("\n", pos)
            if end < 0:
                lines[start] = size
                break
            lines[start] = end
            pos = find(marker, end)
    return sorted(lines.items())


class Lazy:
    """A regular expression compiled on its first use: importing the scan compiles
    none of its patterns (about 30 ms at every start otherwise), and a file reaches
    only the few its markers call for."""

    __slots__ = ("_compiled", "_flags", "_pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._pattern = pattern
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self._pattern, self._flags)
        return compiled

    def search(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.search(text, pos, endpos)

    def match(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.match(text, pos, endpos)

    def finditer(
        self, text: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(text, pos, endpos)

    def findall(self, text: str) -> list[Any]:
        return self.compiled.findall(text)

"""Cheap literal prefilters: which markers a text holds, found in one pass, and the
lines holding them, before the rules' own regular expressions run on those lines only."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator
from typing import Any

#: the characters that the rules' case-insensitive expressions (``re.IGNORECASE``) read
#: as ASCII letters, each one code point for one: dotted and dotless I, the long s, the
#: Kelvin sign (``diſregard`` matches ``disregard``, so its marker must be found too)
_FOLDS = {0x130: "i", 0x131: "i", 0x17F: "s", 0x212A: "k"}
_ASCII_LOWER = str.maketrans({**{c: chr(c + 32) for c in range(ord("A"), ord("Z") + 1)},
                              **_FOLDS})  # fmt: skip
_FOLD = str.maketrans(_FOLDS)


def ascii_lower(text: str) -> str:
    """``text`` lowercased with offsets kept: an offset in it is the same offset in
    ``text`` (``str.lower`` alone may lengthen non-ASCII text). The letters that the
    rules' case-insensitive expressions fold to ASCII (:data:`_FOLDS`) are folded too,
    so that a marker is found wherever an expression would match."""
    lowered = text.lower()
    if len(lowered) != len(text):
        return text.translate(_ASCII_LOWER)
    return lowered if lowered.isascii() else lowered.translate(_FOLD)


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


#: printable lowercase ASCII and the tab, from the rarest to the most common in skill
#: texts (counted over public skill repositories, Markdown and scripts together)
RARITY = "\t^~!@%&?\\9+$738z<65j[]>q412';{}#0|x=/_*()k:wv,by\"`.gf-muhpdclrinaoste "


class Markers:
    """Which of a fixed set of literal markers (lowercase) a lowered text holds, found
    by one regular expression in one pass over it, not by one search per marker (the
    scan's costliest step otherwise: 60 markers, 60 passes over every file).

    Each marker is anchored at its rarest character (:data:`RARITY`). The expression
    starts with one of the anchors, a character set the regular expression engine skips
    along, then matches the rest of a marker and checks the part before the anchor with
    a look-behind. Wherever it matches, every marker anchored on that character is
    compared in place, so markers that overlap, contain one another or share an anchor
    are all found, and the search goes on from the next character. After
    :data:`MAX_HITS` places (one marker repeated all over a file) the markers not yet
    found are looked for one by one, so a file costs linear time whatever it holds."""

    __slots__ = ("_anchored", "_expression", "markers")

    #: places examined before the markers left are looked for one by one
    MAX_HITS = 64

    def __init__(self, markers: Iterable[str]) -> None:
        self.markers: tuple[str, ...] = tuple(dict.fromkeys(markers))
        if not all(self.markers):
            raise ValueError("a marker is a non-empty string")
        anchored: dict[str, list[tuple[str, int]]] = {}
        for marker in self.markers:
            at = min(range(len(marker)), key=lambda i: (RARITY.find(marker[i]), i))
            anchored.setdefault(marker[at], []).append((marker, at))
        self._anchored = {c: tuple(found) for c, found in anchored.items()}
        branches = []
        for anchor, found in sorted(anchored.items()):
            rests = sorted(
                re.escape(marker[at + 1 :]) + (f"(?<={re.escape(marker)})" if at else "")
                for marker, at in found
            )
            branch = re.escape(anchor)
            if all(rests):  # an empty rest (the marker is its anchor) matches at once
                branch += f"(?:{'|'.join(rests)})"
            branches.append(branch)
        self._expression = Lazy("|".join(branches))

    def present(self, lowered: str) -> set[str]:
        """The markers that ``lowered`` holds (exactly ``{m for m in self.markers if m
        in lowered}``)."""
        found: set[str] = set()
        search = self._expression.compiled.search
        anchored = self._anchored
        pos = 0
        for _ in range(self.MAX_HITS):
            match = search(lowered, pos)
            if match is None:
                return found
            at = match.start()
            for marker, offset in anchored[lowered[at]]:
                if at >= offset and lowered.startswith(marker, at - offset):
                    found.add(marker)
            pos = at + 1
        found.update(m for m in self.markers if m not in found and m in lowered)
        return found


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

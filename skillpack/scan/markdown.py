"""Where Markdown shows code: fenced blocks and inline code spans, and the comments a
renderer hides (HTML comments and ``[//]: # (...)`` link-reference comments) outside
them."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator

from skillpack.scan.text import Lazy

_FENCE = Lazy(r"^ {0,3}(`{3,}|~{3,})", re.MULTILINE)
_TICKS = Lazy(r"`+")
_REF_COMMENT = Lazy(
    r"^ {0,3}\[(?://|comment|#|_)\]:\s*(?:#|<>|<#>)\s*(?:\((.*)\)|\"(.*)\"|'(.*)')\s*$",
    re.MULTILINE | re.IGNORECASE,
)


class CodeMap:
    """The code spans of a Markdown text: fenced blocks (fence lines included) and inline
    code, as sorted, disjoint (start, end) offsets, found on the first question (most
    texts that might hold a finding hold none, and never ask)."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._starts: list[int] | None = None
        self._ends: list[int] = []

    def _spans(self) -> list[int]:
        text = self._text
        spans: list[tuple[int, int]] = []
        pos = 0
        size = len(text)
        fences = "```" in text or "~~~" in text
        while pos < size:
            match = _FENCE.search(text, pos) if fences else None
            prose_end = match.start() if match else size
            if "`" in text[pos:prose_end]:
                spans.extend(self._inline(text, pos, prose_end))
            if match is None:
                break
            marker = match.group(1)
            close = re.compile(
                r"^ {0,3}" + re.escape(marker[0]) + "{" + str(len(marker)) + r",}[ \t]*$",
                re.MULTILINE,
            )
            line_end = text.find("\n", match.end())
            body_start = size if line_end < 0 else line_end + 1
            closing = close.search(text, body_start)
            end = size if closing is None else closing.end()
            spans.append((match.start(), end))
            pos = end
        self._starts = [s for s, _ in spans]
        self._ends = [e for _, e in spans]
        return self._starts

    @staticmethod
    def _inline(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
        """Inline code spans, line by line (the lines holding a backtick): a run of
        backticks up to the next run of the same length (linear: each run is looked at
        once, whatever the text)."""
        pos = start
        while pos < end:
            tick = text.find("`", pos, end)
            if tick < 0:
                break
            newline = text.rfind("\n", pos, tick)
            pos = pos if newline < 0 else newline + 1
            line_end = text.find("\n", tick, end)
            line_end = end if line_end < 0 else line_end
            runs = [(m.start(), m.end()) for m in _TICKS.finditer(text, pos, line_end)]
            by_length: dict[int, list[int]] = {}
            for index in range(len(runs) - 1, -1, -1):
                by_length.setdefault(runs[index][1] - runs[index][0], []).append(index)
            index = 0
            while index < len(runs):
                size = runs[index][1] - runs[index][0]
                later = by_length[size]
                while later and later[-1] <= index:
                    later.pop()
                if later:
                    close = later.pop()
                    yield runs[index][0], runs[close][1]
                    index = close + 1
                else:
                    index += 1
            pos = line_end + 1

    def in_code(self, offset: int) -> bool:
        starts = self._spans() if self._starts is None else self._starts
        index = bisect_right(starts, offset) - 1
        return index >= 0 and offset < self._ends[index]


def hidden_comments(text: str, code: CodeMap) -> Iterator[tuple[int, str]]:
    """(offset, text) of each comment a Markdown renderer hides, outside code."""
    pos = text.find("<!--")
    while pos >= 0:
        close = text.find("-->", pos + 4)
        if not code.in_code(pos):
            yield pos, text[pos + 4 : len(text) if close < 0 else close]
        if close < 0:
            break
        pos = text.find("<!--", close + 3)
    if "]:" in text:
        for match in _REF_COMMENT.finditer(text):
            if not code.in_code(match.start()):
                body = next(g for g in match.groups() if g is not None)
                yield match.start(), body

"""Where Markdown shows code: fenced blocks and inline code spans, and the comments a
renderer hides (HTML comments and ``[//]: # (...)`` link-reference comments) outside
them."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.MULTILINE)
_INLINE = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_HTML_COMMENT = re.compile(r"<!--(.*?)(?:-->|\Z)", re.DOTALL)
_REF_COMMENT = re.compile(
    r"^ {0,3}\[(?://|comment|#|_)\]:\s*(?:#|<>|<#>)\s*(?:\((.*)\)|\"(.*)\"|'(.*)')\s*$",
    re.MULTILINE | re.IGNORECASE,
)


class CodeMap:
    """The code spans of a Markdown text: fenced blocks (fence lines included) and inline
    code, as sorted, disjoint (start, end) offsets."""

    def __init__(self, text: str) -> None:
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

    @staticmethod
    def _inline(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
        for match in _INLINE.finditer(text, start, end):
            yield match.start(), match.end()

    def in_code(self, offset: int) -> bool:
        index = bisect_right(self._starts, offset) - 1
        return index >= 0 and offset < self._ends[index]


def hidden_comments(text: str, code: CodeMap) -> Iterator[tuple[int, str]]:
    """(offset, text) of each comment a Markdown renderer hides, outside code."""
    if "<!--" in text:
        for match in _HTML_COMMENT.finditer(text):
            if not code.in_code(match.start()):
                yield match.start(), match.group(1)
    if "]:" in text:
        for match in _REF_COMMENT.finditer(text):
            if not code.in_code(match.start()):
                body = next(g for g in match.groups() if g is not None)
                yield match.start(), body

"""Where Markdown shows code, and how it reads: the block structure of a Markdown text
(CommonMark, approximated line by line), the comments a renderer hides (HTML comments
and ``[//]: # (...)`` link-reference comments) outside code.

Code is what CommonMark renders as code: fenced blocks (backticks or tildes, at up to
three columns inside their container: the top level, a list item or a block quote,
tabs at stops of four; a backtick fence's info string holds no backtick), indented code
(four columns past its container after a blank line or another block, never inside a
paragraph), ``<pre>`` HTML up to its end tag and a ``<code>`` block up to its end tag or
a blank line (which ends that kind of HTML block), and inline code (a run of backticks
to the next run of the same length in the same paragraph, ``<code>`` to ``</code>``).

The text is expected with ``\\n`` line endings (the engine normalizes CR and CRLF).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field

from skillpack.scan.text import Lazy

_TICKS = Lazy(r"`+")
_REF_COMMENT = Lazy(
    r"^ {0,3}\[(?://|comment|#|_)\]:\s*(?:#|<>|<#>)\s*(?:\((.*)\)|\"(.*)\"|'(.*)')\s*$",
    re.MULTILINE | re.IGNORECASE,
)

#: a fence opener's marker (the rest of the line is its info string)
_FENCE = Lazy(r"(`{3,}|~{3,})")
#: a list item's marker and the white space after it (or the end of the line)
_LIST = Lazy(r"([-+*]|\d{1,9}[.)])(?:([ \t]+)|$)")
#: a thematic break (``***``, ``- - -``, ``___``)
_BREAK = Lazy(r"(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")
#: a setext heading's underline
_SETEXT = Lazy(r"(?:=+|-+)[ \t]*$")
#: an ATX heading
_HEADING = Lazy(r"#{1,6}(?:[ \t]|$)")
#: a table's delimiter row (``---|:---:``)
_DELIMITER = Lazy(
    r"\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*$|\|[ \t]*:?-+:?[ \t]*\|"
)
#: a link reference definition (``[x]: url``, ``[//]: # (comment)``)
_REFERENCE = Lazy(r"\[[^\]\n]+\]:")
#: HTML blocks that end at a closing marker, not at a blank line: (code?, end marker)
_HTML_START = Lazy(r"<(?:(!--)|(pre|code)(?=[\s>/]|$)|(script|style|textarea)(?=[\s>]|$)|(\?)|"
                   r"(![a-zA-Z])|(!\[CDATA\[))", re.IGNORECASE)  # fmt: skip
#: inline ``<code>``/``<pre>`` elements inside a paragraph
_INLINE_HTML_CODE = Lazy(r"<(?:code|pre)(?=[\s>])[^>\n]*>", re.IGNORECASE)
_INLINE_HTML_CLOSE = Lazy(r"</(?:code|pre)\s*>", re.IGNORECASE)

#: kinds of units: a paragraph (its lines read as one), a one-line block (a heading, a
#: table row, a link reference definition), raw HTML (a comment, a script)
PARAGRAPH = 0
LINE = 1
RAW = 2

_BLANK = 0
_TEXT = 1  # a paragraph's line: the next line may continue it
_OTHER = 2  # any other block


@dataclass(slots=True)
class Blocks:
    """The block structure of a Markdown text, as offsets (each ``end`` excludes the
    line's newline)."""

    #: code blocks (fences, indented code, <pre>/<code> HTML), sorted, disjoint
    code: list[tuple[int, int]] = field(default_factory=list)
    #: the text outside code blocks by unit: (start, end, kind), in order; the newlines
    #: inside a paragraph are those a renderer reads as spaces (its lines are one line)
    units: list[tuple[int, int, int]] = field(default_factory=list)
    #: inline code: (start, end, ticks) of each span (``ticks``: the length of its
    #: delimiters, 0 for an HTML element), sorted
    inline: list[tuple[int, int, int]] = field(default_factory=list)


def _indent(line: str) -> tuple[int, int]:
    """The column of a line's first non-blank character (tabs to stops of four) and
    its index."""
    column = 0
    index = 0
    for ch in line:
        if ch == " ":
            column += 1
        elif ch == "\t":
            column += 4 - column % 4
        else:
            break
        index += 1
    return column, index


def _columns(start: int, blanks: str) -> int:
    """The column after the white space ``blanks`` that starts at column ``start``."""
    column = start
    for ch in blanks:
        column += 4 - column % 4 if ch == "\t" else 1
    return column


_CLOSERS = {"pre": "</pre", "code": "</code", "script": "</script", "style": "</style",
            "textarea": "</textarea"}  # fmt: skip
_CLOSER = {
    marker: Lazy(re.escape(marker), re.IGNORECASE) for marker in _CLOSERS.values()
}  # fmt: skip

#: the characters a line that may start or end a block begins with (blank lines too);
#: a line that begins with any other character is a paragraph's text
_SPECIAL = frozenset(" \t>`~#<|-+*=_:[0123456789\n")
#: the next line that begins with one of them
_NEXT_SPECIAL = Lazy(r"\n(?=[ \t>`~#<|\-+*=_:\[0-9\n]|\Z)")
_BLANK_LINE = Lazy(r"\n[ \t]*(?=\n|\Z)")
#: the closing fences of a top-level fence, by marker character and length
_CLOSING: dict[tuple[str, int], re.Pattern[str]] = {}


def _closing(char: str, length: int) -> re.Pattern[str]:
    found = _CLOSING.get((char, length))
    if found is None:
        pattern = r"\n {0,3}" + re.escape(char) + "{" + str(length) + r",}[ \t]*(?=\n|\Z)"
        found = _CLOSING[(char, length)] = re.compile(pattern)
    return found


def parse(text: str) -> Blocks:
    """The block structure of ``text`` (``\\n`` line endings), in one pass over its
    lines, linear in its size: a run of lines that start no block (most of a text) is
    passed over at once, and so are a top-level fence's body and an HTML block's."""
    blocks = Blocks()
    code = blocks.code
    units = blocks.units
    size = len(text)
    find = text.find
    containers: list[int] = []  # the content columns of the open list items
    quoted = 0  # the block-quote depth of the previous line
    previous = _BLANK
    table = False  # inside a table's rows
    # an open fence: (marker character, length, container column); its start offset
    fence: tuple[str, int, int] | None = None
    fence_start = 0
    # an open block that ends at a marker: (end marker, code?, start offset)
    until: tuple[str, bool, int] | None = None
    indented: tuple[int, int] | None = None  # an open indented code block: (start, end)
    pos = 0
    while pos <= size:
        if until is not None:
            marker, is_code, start = until
            hit = _CLOSER[marker].search(text, pos) if marker in _CLOSER else None
            at = (
                find(marker, pos) if marker not in _CLOSER else (-1 if hit is None else hit.start())
            )
            end = size if at < 0 else find("\n", at)
            end = size if end < 0 else end
            if marker == "</code":  # an HTML block that a blank line ends (CommonMark's 7th)
                ended = _BLANK_LINE.search(text, pos - 1, end)
                end = end if ended is None else ended.start()
            until = None
            (code.append((start, end)) if is_code else units.append((start, end, RAW)))
            previous = _OTHER
            pos = end + 1
            continue
        if fence is not None and fence[2] == 0 and not quoted:
            closing = _closing(fence[0], fence[1]).search(text, pos - 1)
            end = size if closing is None else closing.end()
            code.append((fence_start, end))
            fence = None
            previous = _OTHER
            pos = end + 1
            continue
        if (
            fence is None
            and indented is None
            and not table
            and pos < size
            and text[pos] not in _SPECIAL
        ):
            # a run of paragraph text: lines that start no block
            following = _NEXT_SPECIAL.search(text, pos)
            end = size if following is None else following.start()
            if quoted:
                quoted = 0
                containers = []
            if previous == _TEXT:
                _extend(units, end)
            else:
                containers = []
                units.append((pos, end, PARAGRAPH))
            previous = _TEXT
            pos = end + 1
            continue
        end = find("\n", pos)
        if end < 0:
            end = size
        line = text[pos:end]
        # block quotes: strip the markers (a change of depth closes the lists)
        offset = 0
        depth = 0
        if ">" in line[: 4 + 1]:
            column, index = _indent(line)
            while column < 4 and line[index : index + 1] == ">":
                depth += 1
                offset = index + 1
                if line[offset : offset + 1] == " ":
                    offset += 1
                column, index = _indent(line[offset:])
                index += offset
        if depth != quoted:
            if fence is None or depth < quoted:
                containers = []
            quoted = depth
        content = line[offset:] if offset else line
        column, index = _indent(content) if content[:1] in (" ", "\t") else (0, 0)
        blank = index == len(content)
        if fence is not None:
            char, length, inside = fence
            if not blank and column < inside:
                code.append((fence_start, pos - 1))  # the container closed, and the fence
                fence = None
            else:
                rel = column - inside
                stripped = content[index:].rstrip(" \t")
                if rel < 4 and len(stripped) >= length and stripped == char * len(stripped):
                    code.append((fence_start, end))
                    fence = None
                    previous = _OTHER
                pos = end + 1
                continue
        if indented is not None:
            inside = containers[-1] if containers else 0
            if blank or column - inside >= 4:
                if not blank:
                    indented = (indented[0], end)
                pos = end + 1
                continue
            code.append(indented)
            indented = None
            previous = _OTHER
        if blank:
            previous = _BLANK
            table = False
            pos = end + 1
            continue
        # the containers this line is inside (a lazy paragraph line keeps them all)
        rest = content[index:]
        lazy = previous == _TEXT
        if containers and column < containers[-1] and not (lazy and not _starts_block(rest)):
            while containers and column < containers[-1]:
                containers.pop()
        inside = containers[-1] if containers else 0
        if column - inside >= 4:
            if previous == _TEXT:  # a paragraph's continuation line, however indented
                _extend(units, end)
            else:
                indented = (pos, end)
            pos = end + 1
            continue
        # list item markers, each opening a container (``- - x``, ``1. - x``)
        while True:
            if rest[:1] in ("-", "+", "*") or rest[:1].isdigit():
                if _BREAK.match(rest) or (previous == _TEXT and _SETEXT.match(rest)):
                    break
                item = _LIST.match(rest)
                if item is None:
                    break
                marker = item.group(1)
                if (
                    previous == _TEXT
                    and not containers
                    and (item.group(2) is None or (marker[0].isdigit() and marker[:-1] != "1"))
                ):
                    break  # only a non-empty bullet or "1." interrupts a paragraph
                blanks = item.group(2) or ""
                after = _columns(column + len(marker), blanks)
                if not blanks or item.end() == len(rest) or after - column - len(marker) > 4:
                    content_column = column + len(marker) + 1
                else:
                    content_column = after
                while containers and containers[-1] > column:
                    containers.pop()
                containers.append(content_column)
                previous = _BLANK  # the item's first line starts a new paragraph
                table = False
                rest = rest[len(marker) :]
                sub_index = _indent(rest)[1]
                rest = rest[sub_index:]
                column = _columns(column + len(marker), blanks[:sub_index])
                if not rest:
                    break
                continue
            break
        start = end - len(rest)
        if not rest:
            previous = _BLANK
            pos = end + 1
            continue
        first = rest[0]
        kind = _TEXT
        if first in ("`", "~"):
            opener = _FENCE.match(rest)
            if opener is not None and not (first == "`" and "`" in rest[opener.end() :]):
                fence = (first, len(opener.group(1)), containers[-1] if containers else 0)
                fence_start = pos
                previous = _OTHER
                pos = end + 1
                continue
        elif first == "#" and _HEADING.match(rest):
            units.append((start, end, LINE))
            kind = _OTHER
        elif first == "<":
            html = _HTML_START.match(rest)
            if html is not None:
                if html.group(1):
                    close = "-->"
                elif html.group(2) or html.group(3):
                    close = _CLOSERS[(html.group(2) or html.group(3)).lower()]
                else:
                    close = "?>" if html.group(4) else ("]]>" if html.group(6) else ">")
                is_code = bool(html.group(2))
                tail = rest[html.end() :]
                if close in (tail.lower() if close.startswith("</") else tail):
                    (code.append((start, end)) if is_code else units.append((start, end, RAW)))
                else:
                    until = (close, is_code, start)
                previous = _OTHER
                pos = end + 1
                continue
        elif first in ("=", "-", "*", "_"):
            if previous == _TEXT and _SETEXT.match(rest):
                kind = _OTHER  # the paragraph above is a heading
            elif _BREAK.match(rest):
                kind = _OTHER
        if kind == _TEXT:
            if previous == _TEXT and "|" in rest and _DELIMITER.match(rest):
                # a table: the paragraph's last line is its header
                head_start, head_end, _ = units[-1]
                last_line = text.rfind("\n", head_start, head_end) + 1
                if last_line > head_start:
                    units[-1] = (head_start, last_line - 1, PARAGRAPH)
                    units.append((last_line, head_end, LINE))
                else:
                    units[-1] = (head_start, head_end, LINE)
                units.append((start, end, LINE))
                table = True
                kind = _OTHER
            elif table:
                units.append((start, end, LINE))
                kind = _OTHER
            elif previous == _TEXT:
                _extend(units, end)
            elif first == "[" and _REFERENCE.match(rest):
                units.append((start, end, LINE))
                kind = _OTHER
            else:
                units.append((start, end, PARAGRAPH))
        previous = kind
        pos = end + 1
    if fence is not None:
        code.append((fence_start, size))
    if indented is not None:
        code.append(indented)
    code.sort()
    units.sort()
    blocks.inline = _inline_code(text, units)
    return blocks


def _extend(units: list[tuple[int, int, int]], end: int) -> None:
    start, _, kind = units[-1]
    units[-1] = (start, end, kind)


def _starts_block(rest: str) -> bool:
    """Whether a line (its content ``rest``) starts a block that interrupts a
    paragraph (so it is no lazy continuation line)."""
    first = rest[:1]
    if first in ("`", "~"):
        return _FENCE.match(rest) is not None
    if first == "#":
        return _HEADING.match(rest) is not None
    if first in ("-", "+", "*"):
        return _BREAK.match(rest) is not None or _LIST.match(rest) is not None
    if first.isdigit():
        item = _LIST.match(rest)
        return item is not None and item.group(1)[:-1] == "1"
    if first == ">":
        return True
    if first == "<":
        return _HTML_START.match(rest) is not None
    return False


def _inline_code(text: str, units: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """Inline code spans in the paragraphs and one-line blocks: a run of backticks up to
    the next run of the same length in the same unit (linear: each run is looked at
    once), and ``<code>``/``<pre>`` elements."""
    spans: list[tuple[int, int, int]] = []
    ticks = "`" in text
    html = "<" in text
    if not ticks and not html:
        return spans
    for start, end, kind in units:
        if kind == RAW:
            continue
        if ticks and text.find("`", start, end) >= 0:
            spans.extend(_backtick_spans(text, start, end))
        if html and text.find("<", start, end) >= 0:
            for match in _INLINE_HTML_CODE.finditer(text, start, end):
                close = _INLINE_HTML_CLOSE.search(text, match.end(), end)
                spans.append((match.start(), end if close is None else close.end(), 0))
    spans.sort()
    return spans


def _backtick_spans(text: str, start: int, end: int) -> Iterator[tuple[int, int, int]]:
    runs = [(m.start(), m.end()) for m in _TICKS.finditer(text, start, end)]
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
            yield runs[index][0], runs[close][1], size
            index = close + 1
        else:
            index += 1


#: the last text parsed and its structure: the directive and the command rules, and the
#: engine's views, ask about the same text one after the other
_LAST: list[tuple[str, Blocks]] = []


def blocks(text: str) -> Blocks:
    """:func:`parse` of ``text``, kept for the next question about the same text."""
    last = _LAST[0] if _LAST else None  # one read: another thread may replace it
    if last is not None and last[0] is text:
        return last[1]
    found = parse(text)
    _LAST[:] = [(text, found)]
    return found


def merge(spans: list[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """Sorted (start, end) spans merged into disjoint ones, as (starts, ends)."""
    starts: list[int] = []
    ends: list[int] = []
    for start, end in sorted(spans):
        if ends and start <= ends[-1]:
            ends[-1] = max(ends[-1], end)
        else:
            starts.append(start)
            ends.append(end)
    return starts, ends


class CodeText(str):
    """A text that carries its code spans: a view of a Markdown text (its offsets not
    those of the file) whose code is the file's, mapped (:class:`CodeMap` asks the
    spans, not the view's own structure)."""

    code_spans: tuple[list[int], list[int]]


class CodeMap:
    """The code of a Markdown text (:func:`parse`: code blocks and inline code), as
    sorted, disjoint spans, found on the first question (most texts that might hold a
    finding hold none, and never ask)."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._starts: list[int] | None = None
        self._ends: list[int] = []

    def _spans(self) -> list[int]:
        text = self._text
        given = getattr(text, "code_spans", None)
        if given is not None:
            self._starts, self._ends = given
            return self._starts
        if not text:
            self._starts = []
            return self._starts
        found = blocks(text)
        self._starts, self._ends = merge(found.code + [(s, e) for s, e, _ in found.inline])
        return self._starts

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

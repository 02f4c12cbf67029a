"""The fast path: a line reader for the plain ``key: value`` frontmatter nearly every
skill has.

Almost every real frontmatter is a few ``key: value`` lines and a ``metadata:`` mapping,
and the ruamel event walk is the largest cost of a build. So :func:`fast_parse` tries a
deliberately narrow subset of YAML first: entry lines, nested block mappings, one-line
plain or simply quoted values. It gives exactly what the event walk would (same values,
same key order, same positions) and at the first line it has any doubt about, it returns
"not handled" and the event walk reads the whole block, producing the result or the
refusal. It never refuses anything itself; tests/test_frontmatter_fastpath.py checks it
against the event walk.
"""

from __future__ import annotations

import functools
import re

from skillpack._internal.canonical import JSONValue
from skillpack.source.frontmatter.model import FrontmatterError, KeyPath, Position
from skillpack.source.frontmatter.resolve import resolve_plain

#: characters the fast path leaves to ruamel: tab, BOM, whatever ruamel's reader refuses
#: as non-printable (its ``Reader.NON_PRINTABLE`` class, hence the pin of ruamel.yaml in
#: pyproject.toml) and the SP014 line separators; "\r" is looked at separately. Every
#: character but "\n", "\r", U+0020-U+007E, U+00A0-U+2027, U+202A-U+D7FF, U+E000-U+FEFE,
#: U+FF00-U+FFFD and U+10000 up: written as the characters refused, which compiles in a
#: tenth of the time of the negated class of those ranges (start-up)
FAST_UNSAFE = re.compile(
    "[\x00-\x09\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]"
)
_FAST_ENTRY = re.compile(r"( *)([A-Za-z_][A-Za-z0-9_.-]{0,99}):(?: (.*))?")
_FAST_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
_FAST_MAX_DEPTH = 4


def _fast_plain(text: str) -> tuple[JSONValue] | None:
    """``resolve_plain(text)`` in a 1-tuple, or None where it would refuse ``text``."""
    try:
        return (resolve_plain(text, 0, 0),)
    except FrontmatterError:
        return None


@functools.lru_cache(maxsize=1024)
def _fast_key(key: str) -> bool:
    """Whether the plain key reads as a string (cached: the same few keys recur)."""
    resolved = _fast_plain(key)
    return resolved is not None and isinstance(resolved[0], str)


def _fast_value(text: str) -> tuple[JSONValue] | None:
    """The value of a one-line scalar (``text`` stripped, non-empty) in a 1-tuple, or None."""
    first = text[0]
    if first == '"' or first == "'":
        inner = text[1:-1]
        if len(text) < 2 or text[-1] != first or first in inner:
            return None
        return (inner,) if first == "'" or "\\" not in inner else None
    if first in _FAST_INDICATORS or ": " in text or " #" in text or text[-1] == ":":
        return None
    return _fast_plain(text)


def fast_parse(
    block: str, line_offset: int
) -> tuple[dict[str, JSONValue], dict[KeyPath, Position]] | None:
    r"""Read ``block`` without ruamel when it is entirely within a small subset of YAML.

    Returns (data, positions) exactly as :func:`~.events.walk_events` would, or None
    ("not handled"). The rule: any doubt falls back, so the subset is only

    * ``"\n"``-separated lines; ``"\r\n"`` only when every ``"\r"`` ends a line; no tab,
      BOM or character ruamel's reader calls non-printable anywhere;
    * blank lines (spaces only) and full-line comments (spaces, then ``#``);
    * entry lines ``INDENT KEY ":" [" " VALUE]``: KEY matches
      ``[A-Za-z_][A-Za-z0-9_.-]*`` (at most 100 characters), resolves to a string and is
      new in its mapping; the first entry is at indent 0;
    * an empty VALUE followed by a deeper entry line opens a mapping at that line's
      indent (at most 4 levels deep); otherwise it is null; a dedent must land exactly
      on an open level; a deeper line after a non-empty value falls back;
    * VALUE, one line: a plain scalar not starting with a YAML indicator, without
      ``": "`` or ``" #"``, not ending with ``":"``, that :func:`.resolve_plain` accepts;
      ``"..."`` without ``"`` or backslash inside; ``'...'`` without ``'`` inside;
      trailing spaces are ignored;
    * at least one entry.

    Everything else (sequences, flow collections, block scalars, multi-line values,
    anchors, tags, comments after a value, any refusal) is left to the event walk.
    """
    if "\r" in block:
        if block.count("\r") != block.count("\r\n"):
            return None
        block = block.replace("\r\n", "\n")
    if FAST_UNSAFE.search(block):
        return None
    root: dict[str, JSONValue] = {}
    positions: dict[KeyPath, Position] = {}
    # the open mappings, innermost last: (indent, mapping, path)
    levels: list[tuple[int, dict[str, JSONValue], KeyPath]] = [(0, root, ())]
    empty_key: str | None = None  # the previous entry's key, when its value was empty
    for number, line in enumerate(block.split("\n"), start=line_offset + 1):
        stripped = line.lstrip(" ")
        if not stripped or stripped[0] == "#":
            continue
        entry = _FAST_ENTRY.fullmatch(line)
        if entry is None:
            return None
        indent, key = len(entry[1]), entry[2]
        top_indent, mapping, path = levels[-1]
        if indent > top_indent:
            if empty_key is None or len(levels) >= _FAST_MAX_DEPTH:
                return None  # a continuation line, or nesting left to ruamel
            child: dict[str, JSONValue] = {}
            mapping[empty_key] = child
            mapping, path = child, (*path, empty_key)
            levels.append((indent, mapping, path))
        else:
            while indent < levels[-1][0]:
                levels.pop()
            top_indent, mapping, path = levels[-1]
            if indent != top_indent:
                return None
        if key in mapping or not _fast_key(key):
            return None
        positions[(*path, key)] = (number, indent + 1)
        text = (entry[3] or "").strip(" ")
        empty_key = None if text else key
        value = _fast_value(text) if text else (None,)
        if value is None:
            return None
        mapping[key] = value[0]
    return (root, positions) if root else None

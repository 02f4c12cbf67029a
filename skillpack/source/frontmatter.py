"""The strict frontmatter reader.

``SKILL.md`` starts with YAML between two ``---`` fence lines. Hosts parse that YAML
with whatever library they have: YAML 1.1 parsers (PyYAML, go-yaml v2, SnakeYAML) and
YAML 1.2 parsers (ruamel.yaml, yaml for JS, go-yaml v3) read some plain scalars
differently (``no`` is ``false`` to one and ``"no"`` to the other). SEP-2640 hosts
compare the served frontmatter field by field with the listed entry, so a value that
two parsers read differently breaks verification for someone. This reader accepts only
a subset of YAML that every parser reads the same way and returns a JSON-compatible
object; anything else is refused with a line, a column and a hint saying how to quote.

Why ruamel.yaml: it is the maintained pure-Python YAML 1.2 parser that exposes the
low-level *event* stream with a start mark (line and column) on every event, and it
reports syntax errors with positions. Working on events (not on a constructed object)
lets this module see what a constructed object hides: tags, anchors, aliases, merge
keys, duplicate keys, directives, quoting style and nesting, each with its position.
The YAML grammar is ruamel.yaml's; this module decides how plain scalars resolve (the
YAML 1.2 core schema) and which constructs to refuse.

The fast path: almost every real frontmatter is a few ``key: value`` lines and a
``metadata:`` mapping, and the ruamel event walk is the largest cost of a build. So a
small line reader (:func:`_fast_parse`) tries a deliberately narrow subset of YAML
first: entry lines, nested block mappings, one-line plain or simply quoted values. It
gives exactly what the event walk would (same values, same key order, same positions)
and at the first line it has any doubt about, it returns "not handled" and the event
walk reads the whole block, producing the result or the refusal. It never refuses
anything itself; tests/test_frontmatter_fastpath.py checks it against the event walk.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from skillpack._internal.canonical import JSONValue

#: A place in the frontmatter object: mapping keys and sequence indexes from the root.
KeyPath = tuple[str | int, ...]

MAX_BLOCK_BYTES = 64 * 1024
MAX_DEPTH = 16
MAX_SAFE_INT = 2**53 - 1
FENCE = "---"
BOM = "\ufeff"
FORBIDDEN_CHARS = {"\x85": "NEL (U+0085)", "\u2028": "LINE SEPARATOR (U+2028)",
                   "\u2029": "PARAGRAPH SEPARATOR (U+2029)"}  # fmt: skip

# Rule codes (documented in docs/rules.md; see skillpack.lint.catalog)
MISSING_FENCE = "SP001"
UNTERMINATED = "SP002"
YAML_SYNTAX = "SP003"
NOT_A_MAPPING = "SP004"
DIRECTIVE = "SP005"
TAG = "SP006"
ANCHOR_ALIAS = "SP007"
MERGE_KEY = "SP008"
NON_STRING_KEY = "SP009"
DUPLICATE_KEY = "SP010"
TOO_DEEP = "SP011"
TOO_LARGE = "SP012"
AMBIGUOUS_SCALAR = "SP013"
FORBIDDEN_CHAR = "SP014"
OUT_OF_RANGE = "SP015"
MULTIPLE_DOCUMENTS = "SP016"
NOT_UTF8 = "SP017"


class FrontmatterError(Exception):
    """A refusal: rule ``code``, 1-based ``line`` and ``column`` in the file, and a hint."""

    def __init__(self, code: str, message: str, line: int, column: int, hint: str = "") -> None:
        super().__init__(f"{line}:{column}: {code} {message}")
        self.code = code
        self.message = message
        self.line = line
        self.column = column
        self.hint = hint


@dataclass(frozen=True)
class Frontmatter:
    """A parsed ``SKILL.md``: its frontmatter object and where each part lies."""

    data: dict[str, JSONValue]
    block: str  #: the YAML text between the fences (BOM and fences excluded)
    block_line: int  #: file line (1-based) of the block's first line
    close_line: int  #: file line of the closing fence
    body: str  #: everything after the closing fence line, untouched
    has_bom: bool
    crlf: bool  #: the file uses CRLF line endings
    #: file (line, column) of every mapping key and sequence item, by its path
    positions: dict[KeyPath, tuple[int, int]] = field(default_factory=dict)


# --- plain scalar resolution ------------------------------------------------------
# YAML 1.2 core schema (https://yaml.org/spec/1.2.2/#1032-tag-resolution)
_NULL = re.compile(r"~|null|Null|NULL|")
_BOOL12 = {"true": True, "True": True, "TRUE": True, "false": False, "False": False,
           "FALSE": False}  # fmt: skip
_INT10 = re.compile(r"[-+]?[0-9]+")
_INT8 = re.compile(r"0o[0-7]+")
_INT16 = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT12 = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_INF_NAN = re.compile(r"[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)")
# YAML 1.1 types (https://yaml.org/type/) as the common 1.1 resolvers implement them
_BOOL11 = re.compile(r"(?i:y|yes|n|no|on|off)")
_INT11 = re.compile(
    r"[-+]?0b[01_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+"
    r"|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+"
)
_FLOAT11 = re.compile(
    r"[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*(?:[eE][-+][0-9]+)?"
    r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*"
)
_TIMESTAMP11 = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?"
    r"(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?"
)
_SPECIAL11 = {"=": "a YAML 1.1 value key", "<<": "a YAML 1.1 merge key"}


def _resolve12(s: str) -> JSONValue:
    """How a YAML 1.2 core-schema parser reads the plain scalar ``s``."""
    if _NULL.fullmatch(s):
        return None
    if s in _BOOL12:
        return _BOOL12[s]
    if _INT10.fullmatch(s):
        return int(s)
    if _INT8.fullmatch(s):
        return int(s[2:], 8)
    if _INT16.fullmatch(s):
        return int(s[2:], 16)
    if _FLOAT12.fullmatch(s):
        return float(s)
    if _INF_NAN.fullmatch(s):
        return float(s.replace(".", "").lower().lstrip("+"))
    return s


def _yaml11_reading(s: str) -> str | None:
    """What a YAML 1.1 parser would make of ``s`` when it is not a plain string."""
    if s in _SPECIAL11:
        return _SPECIAL11[s]
    if _BOOL11.fullmatch(s) and s not in _BOOL12:
        return "a boolean in YAML 1.1"
    if _TIMESTAMP11.fullmatch(s):
        return "a date or timestamp in YAML 1.1"
    if _INT11.fullmatch(s):
        body = s.lstrip("+-")
        if "_" in s:
            return "a number in YAML 1.1 (digit separators)"
        if ":" in s:
            return "a base-60 number in YAML 1.1"
        if body.startswith("0b"):
            return "a binary number in YAML 1.1"
        if len(body) > 1 and body[0] == "0" and body[1] != "x":
            return "an octal number in YAML 1.1"
        return None
    if _FLOAT11.fullmatch(s) and s not in (".", "+.", "-."):
        if "_" in s or ":" in s:
            return "a number in YAML 1.1 (digit separators or base 60)"
        return None
    return None


def describe_value(value: JSONValue) -> str:
    """What kind of value ``value`` is, for messages: "null", "a boolean", "a list"..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a float"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return "a string"


def resolve_plain(s: str, line: int, column: int) -> JSONValue:
    """Resolve a plain scalar, refusing any that YAML 1.1 and 1.2 parsers read differently."""
    quoted = '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
    reading11 = _yaml11_reading(s)
    value = _resolve12(s)
    if reading11 is not None:
        raise FrontmatterError(
            AMBIGUOUS_SCALAR,
            f"plain value '{s}' is {reading11} but {describe_value(value)} in YAML 1.2",
            line,
            column,
            f"quote it to keep it a string: {quoted}",
        )
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            if _INF_NAN.fullmatch(s):
                raise FrontmatterError(
                    AMBIGUOUS_SCALAR,
                    f"plain value '{s}' is not a JSON number",
                    line,
                    column,
                    f"quote it to keep it a string: {quoted}",
                )
            raise FrontmatterError(
                OUT_OF_RANGE,
                f"number '{s}' is too large for a JSON number",
                line,
                column,
                f"quote it to keep it a string: {quoted}",
            )
        if _FLOAT11.fullmatch(s) is None:
            # 1.2 reads a float where 1.1 reads a string ("1e3", "1.5e3")
            raise FrontmatterError(
                AMBIGUOUS_SCALAR,
                f"plain value '{s}' is a float in YAML 1.2 but a string in YAML 1.1",
                line,
                column,
                f"quote it to keep it a string ({quoted}) or write the exponent with a sign",
            )
    elif isinstance(value, int) and not isinstance(value, bool):
        if _INT11.fullmatch(s) is None:
            # 1.2 octal "0o10" is a string to 1.1
            raise FrontmatterError(
                AMBIGUOUS_SCALAR,
                f"plain value '{s}' is an integer in YAML 1.2 but a string in YAML 1.1",
                line,
                column,
                f"quote it to keep it a string ({quoted}) or write it in decimal",
            )
        if abs(value) > MAX_SAFE_INT:
            raise FrontmatterError(
                OUT_OF_RANGE,
                f"integer {s} is outside ±(2^53−1), where JSON readers lose precision",
                line,
                column,
                f"quote it to keep it a string: {quoted}",
            )
    return value


# --- fences -----------------------------------------------------------------------
def _is_fence(line: str) -> bool:
    return line.rstrip(" \t\r\n") == FENCE


def _position_of_offset(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    start = text.rfind("\n", 0, offset) + 1
    return line, offset - start + 1


def decode_skill_md(data: bytes) -> str:
    """Decode ``SKILL.md`` bytes as UTF-8, refusing anything else with a position."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        good = data[: exc.start].decode("utf-8")
        line, column = _position_of_offset(good, len(good))
        raise FrontmatterError(
            NOT_UTF8,
            f"SKILL.md is not valid UTF-8 (byte 0x{data[exc.start]:02x})",
            line,
            column,
            "save the file as UTF-8",
        ) from None


def split_frontmatter(text: str) -> tuple[str, int, int, str, bool]:
    """Split decoded ``SKILL.md`` text: (block, block_line, close_line, body, has_bom)."""
    has_bom = text.startswith(BOM)
    if has_bom:
        text = text[1:]
    # Not splitlines(): it also breaks on NEL, LS, PS and other separators. Fences are
    # found on "\n"-separated lines, the way Markdown tools read them.
    lines = text.split("\n")
    if not lines or not _is_fence(lines[0]):
        raise FrontmatterError(
            MISSING_FENCE,
            "SKILL.md must start with a '---' line opening the YAML frontmatter",
            1,
            1,
            "add '---', the name and description, and a closing '---' at the top of the file",
        )
    for index in range(1, len(lines)):
        if _is_fence(lines[index]):
            block = "\n".join(lines[1:index])
            if index > 1:
                block += "\n"
            body = "\n".join(lines[index + 1 :])
            return block, 2, index + 1, body, has_bom
    raise FrontmatterError(
        UNTERMINATED,
        "the frontmatter opened on line 1 is never closed",
        1,
        1,
        "add a '---' line after the last frontmatter key",
    )


# --- the event walk ---------------------------------------------------------------
def _yaml_parser() -> Any:
    from ruamel.yaml import YAML

    return YAML(typ="safe", pure=True)


_PARSER: Any = None


def yaml_events(block: str) -> Iterator[Any]:
    """ruamel.yaml's event stream for ``block``: the parser the strict reader uses (and
    ``skillpack fmt``, which rewrites source spans the events locate)."""
    global _PARSER
    if _PARSER is None:
        _PARSER = _yaml_parser()
    events: Iterator[Any] = _PARSER.parse(block)
    return events


def parse_yaml_subset(
    block: str, line_offset: int = 0, positions: dict[KeyPath, tuple[int, int]] | None = None
) -> JSONValue:
    """Parse ``block`` as strict-subset YAML; positions are shifted by ``line_offset`` lines.

    When ``positions`` is given, it receives the (line, column) of every mapping key
    and every sequence item, keyed by its path from the root.
    """
    _check_block(block, line_offset)
    fast = _fast_parse(block, line_offset)
    if fast is not None:
        data, found = fast
        if positions is not None:
            positions.update(found)
        return data
    return _walk_events(block, line_offset, positions)


def _check_block(block: str, line_offset: int) -> None:
    """The refusals made on the raw text, before any YAML is read."""
    if len(block.encode("utf-8")) > MAX_BLOCK_BYTES:
        raise FrontmatterError(
            TOO_LARGE,
            f"frontmatter is larger than {MAX_BLOCK_BYTES // 1024} KiB",
            line_offset + 1,
            1,
            "move long text into the body or a file under references/",
        )
    for char, label in FORBIDDEN_CHARS.items():
        at = block.find(char)
        if at >= 0:
            line, column = _position_of_offset(block, at)
            raise FrontmatterError(
                FORBIDDEN_CHAR,
                f"{label} is a line break to YAML 1.1 but not to YAML 1.2",
                line + line_offset,
                column,
                "replace it with a space or a newline",
            )
    for index, text_line in enumerate(block.split("\n")):
        if text_line.startswith("%"):
            raise FrontmatterError(
                DIRECTIVE, "YAML directives (%YAML, %TAG) are not allowed",
                index + 1 + line_offset, 1, "remove the directive line",
            )  # fmt: skip


def _walk_events(
    block: str, line_offset: int, positions: dict[KeyPath, tuple[int, int]] | None
) -> JSONValue:
    """The full reader: ruamel.yaml's event stream, refusing what the subset excludes."""
    from ruamel.yaml import events as ev
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    def pos(event: Any) -> tuple[int, int]:
        mark = event.start_mark
        return mark.line + 1 + line_offset, mark.column + 1

    # stack of containers: [kind, value, pending_key, key_position, start, path]
    stack: list[list[Any]] = []
    if positions is None:
        positions = {}

    def child_path(at: tuple[int, int]) -> KeyPath:
        # path of the value about to be added to the innermost container; a sequence
        # item's position is recorded here (a mapping key's when the key is read)
        if not stack:
            return ()
        top = stack[-1]
        if top[0] == "map":
            return (*top[5], top[2])
        path = (*top[5], len(top[1]))
        positions[path] = at
        return path

    root: JSONValue = None
    documents = 0
    try:
        for event in yaml_events(block):
            if isinstance(event, (ev.StreamStartEvent, ev.StreamEndEvent)):
                continue
            if isinstance(event, ev.DocumentStartEvent):
                documents += 1
                if event.version is not None or event.tags:
                    raise FrontmatterError(
                        DIRECTIVE, "YAML directives (%YAML, %TAG) are not allowed", *pos(event),
                        "remove the directive line",
                    )  # fmt: skip
                if documents > 1 or event.explicit:
                    raise FrontmatterError(
                        MULTIPLE_DOCUMENTS,
                        "the frontmatter must hold exactly one YAML document",
                        *pos(event),
                        "remove the extra '---' or '...' marker",
                    )
                continue
            if isinstance(event, ev.DocumentEndEvent):
                if event.explicit:
                    raise FrontmatterError(
                        MULTIPLE_DOCUMENTS,
                        "document end marker '...' is not allowed in frontmatter",
                        *pos(event),
                        "remove the '...' line",
                    )
                continue
            if isinstance(event, ev.AliasEvent):
                raise FrontmatterError(
                    ANCHOR_ALIAS, f"alias '*{event.anchor}' is not allowed", *pos(event),
                    "write the value out in full instead of referring to an anchor",
                )  # fmt: skip
            if isinstance(event, (ev.MappingEndEvent, ev.SequenceEndEvent)):
                finished = stack.pop()
                value = finished[1]
                if not stack:
                    root = value
                else:
                    _add(stack[-1], value, event)
                continue
            anchor = getattr(event, "anchor", None)
            if anchor is not None:
                raise FrontmatterError(
                    ANCHOR_ALIAS, f"anchor '&{anchor}' is not allowed", *pos(event),
                    "remove the anchor and write values out in full",
                )  # fmt: skip
            tag = getattr(event, "tag", None)
            if tag is not None:
                raise FrontmatterError(
                    TAG, f"tag '{tag}' is not allowed", *pos(event),
                    "remove the tag; quote the value if it must stay a string",
                )  # fmt: skip
            if isinstance(event, (ev.MappingStartEvent, ev.SequenceStartEvent)):
                if stack and stack[-1][0] == "map" and stack[-1][2] is _NO_KEY:
                    raise FrontmatterError(
                        NON_STRING_KEY, "mapping keys must be strings", *pos(event),
                        "use a plain or quoted string as the key",
                    )  # fmt: skip
                if len(stack) >= MAX_DEPTH:
                    raise FrontmatterError(
                        TOO_DEEP, f"nesting deeper than {MAX_DEPTH} levels", *pos(event),
                        "flatten the structure",
                    )  # fmt: skip
                path = child_path(pos(event))
                if isinstance(event, ev.MappingStartEvent):
                    stack.append(["map", {}, _NO_KEY, None, pos(event), path])
                else:
                    stack.append(["seq", [], None, None, pos(event), path])
                continue
            if isinstance(event, ev.ScalarEvent):
                line, column = pos(event)
                is_key = bool(stack) and stack[-1][0] == "map" and stack[-1][2] is _NO_KEY
                if is_key and event.style is None and event.value == "<<":
                    raise FrontmatterError(
                        MERGE_KEY, "merge keys ('<<') are not allowed", line, column,
                        "write the merged keys out in full",
                    )  # fmt: skip
                if event.style is None and event.implicit[0]:
                    value = resolve_plain(event.value, line, column)
                else:
                    value = event.value
                    for char, label in FORBIDDEN_CHARS.items():
                        if char in value:
                            raise FrontmatterError(
                                FORBIDDEN_CHAR, f"value contains {label}", line, column,
                                "remove the escape that produces it",
                            )  # fmt: skip
                if not stack:
                    root = value
                    continue
                top = stack[-1]
                if is_key:
                    if not isinstance(value, str):
                        raise FrontmatterError(
                            NON_STRING_KEY,
                            f"key {event.value!r} is read as {describe_value(value)}, not a string",
                            line,
                            column,
                            f'quote the key: "{event.value}"',
                        )
                    if value in top[1]:
                        raise FrontmatterError(
                            DUPLICATE_KEY, f"duplicate key '{value}'", line, column,
                            "keep one of the two entries",
                        )  # fmt: skip
                    top[2] = value
                    top[3] = (line, column)
                    positions[(*top[5], value)] = (line, column)
                else:
                    child_path((line, column))
                    _add(top, value, event)
                continue
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = (mark.line + 1 + line_offset) if mark else line_offset + 1
        column = (mark.column + 1) if mark else 1
        problem = exc.problem or exc.context or "invalid YAML"
        raise FrontmatterError(
            YAML_SYNTAX,
            f"YAML syntax error: {problem}",
            line,
            column,
            "fix the YAML; quote values that contain ': ' or start with a special character",
        ) from None
    except YAMLError as exc:
        raise FrontmatterError(
            YAML_SYNTAX, f"YAML error: {exc}", line_offset + 1, 1, "fix the YAML"
        ) from None
    return root


class _NoKey:
    def __repr__(self) -> str:
        return "<no key>"


_NO_KEY = _NoKey()


def _add(container: list[Any], value: JSONValue, event: Any) -> None:
    if container[0] == "seq":
        container[1].append(value)
    else:
        container[1][container[2]] = value
        container[2] = _NO_KEY


# --- the fast path ----------------------------------------------------------------
#: characters the fast path leaves to ruamel: tab, BOM, whatever ruamel's reader refuses
#: as non-printable (its NON_PRINTABLE class) and the SP014 line separators; "\r" is
#: looked at separately
_FAST_UNSAFE = re.compile(
    "[^\n\r\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
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


def _fast_parse(
    block: str, line_offset: int
) -> tuple[dict[str, JSONValue], dict[KeyPath, tuple[int, int]]] | None:
    r"""Read ``block`` without ruamel when it is entirely within a small subset of YAML.

    Returns (data, positions) exactly as :func:`_walk_events` would, or None ("not
    handled"). The rule: any doubt falls back, so the subset is only

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
      ``": "`` or ``" #"``, not ending with ``":"``, that :func:`resolve_plain` accepts;
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
    if _FAST_UNSAFE.search(block):
        return None
    root: dict[str, JSONValue] = {}
    positions: dict[KeyPath, tuple[int, int]] = {}
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


def parse_skill_md(data: bytes | str) -> Frontmatter:
    """Read ``SKILL.md`` bytes into a :class:`Frontmatter`, or raise :class:`FrontmatterError`."""
    text = decode_skill_md(data) if isinstance(data, bytes) else data
    block, block_line, close_line, body, has_bom = split_frontmatter(text)
    positions: dict[KeyPath, tuple[int, int]] = {}
    value = parse_yaml_subset(block, block_line - 1, positions)
    if not isinstance(value, dict):
        kind = "empty" if value is None else f"{describe_value(value)}, not a mapping"
        raise FrontmatterError(
            NOT_A_MAPPING,
            f"frontmatter is {kind}",
            block_line,
            1,
            "write the frontmatter as 'key: value' lines (name, description, ...)",
        )
    crlf = "\r\n" in text
    return Frontmatter(value, block, block_line, close_line, body, has_bom, crlf, positions)

"""A strict JSON reader that keeps where every value and key starts.

``json.loads`` forgets positions, so a finding about ``plugins[2].source`` could only
name the file. :func:`read_json` parses RFC 8259 JSON (no comments, trailing commas,
``NaN`` or BOM; a key given twice is refused, since hosts silently keep the last one)
and records the 1-based line and column of every value and every object key by its
pointer (the tuple of keys and indices leading to it).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from skillpack._internal.canonical import JSONValue

#: a path into a document: object keys and array indices, outermost first
Pointer = tuple[str | int, ...]

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_SURROGATE = re.compile("[\ud800-\udfff]")
_LITERALS: dict[str, JSONValue] = {"true": True, "false": False, "null": None}
#: nesting deeper than this is refused (Python's recursion, hostile files)
MAX_DEPTH = 200


@dataclass(frozen=True, order=True)
class Pos:
    line: int
    column: int


class JSONSyntaxError(ValueError):
    """The text is not strict JSON: ``message`` at ``pos``."""

    def __init__(self, message: str, pos: Pos) -> None:
        super().__init__(f"{message} (line {pos.line}, column {pos.column})")
        self.message = message
        self.pos = pos


@dataclass(frozen=True)
class Document:
    """A parsed JSON text: its value and the positions of its values and keys."""

    value: JSONValue
    values: dict[Pointer, Pos] = field(default_factory=dict)
    keys: dict[Pointer, Pos] = field(default_factory=dict)

    def at(self, pointer: Pointer) -> Pos:
        """Where a finding about ``pointer`` points: its key for an object member, its
        value otherwise; for a pointer not in the document (a missing member), the
        nearest enclosing value that is."""
        while pointer:
            if pointer in self.keys:
                return self.keys[pointer]
            if pointer in self.values:
                return self.values[pointer]
            pointer = pointer[:-1]
        return self.values.get((), Pos(1, 1))

    def value_at(self, pointer: Pointer) -> Pos:
        """Where the value at ``pointer`` starts (the enclosing one when missing)."""
        while pointer and pointer not in self.values:
            pointer = pointer[:-1]
        return self.values.get(pointer, Pos(1, 1))


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = [0]  # offsets of line starts
        for match in re.finditer("\n", text):
            self.lines.append(match.end())
        self.values: dict[Pointer, Pos] = {}
        self.keys: dict[Pointer, Pos] = {}

    def pos(self, offset: int) -> Pos:
        lo, hi = 0, len(self.lines) - 1
        while lo < hi:  # the last line start at or before offset
            mid = (lo + hi + 1) // 2
            if self.lines[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return Pos(lo + 1, offset - self.lines[lo] + 1)

    def fail(self, message: str, offset: int) -> JSONSyntaxError:
        return JSONSyntaxError(message, self.pos(offset))

    def skip(self, offset: int) -> int:
        match = _WS.match(self.text, offset)
        return match.end() if match else offset

    def string(self, offset: int) -> tuple[str, int]:
        try:
            value, end = json.decoder.scanstring(self.text, offset + 1, True)  # type: ignore[attr-defined]
        except json.JSONDecodeError as exc:
            raise self.fail(exc.msg.lower(), exc.pos) from None
        if _SURROGATE.search(value):  # "\ud800" alone: no character, no UTF-8 form
            raise self.fail("a \\u escape names half of a surrogate pair", offset)
        return value, end

    def value(self, offset: int, pointer: Pointer) -> tuple[JSONValue, int]:
        if len(pointer) > MAX_DEPTH:
            raise self.fail(f"nested more than {MAX_DEPTH} levels deep", offset)
        self.values[pointer] = self.pos(offset)
        text = self.text
        char = text[offset : offset + 1]
        if char == "{":
            return self.object(offset, pointer)
        if char == "[":
            return self.array(offset, pointer)
        if char == '"':
            return self.string(offset)
        for word, literal in _LITERALS.items():
            if text.startswith(word, offset):
                return literal, offset + len(word)
        match = _NUMBER.match(text, offset)
        if match:
            number = match.group()
            if "." in number or "e" in number or "E" in number:
                return float(number), match.end()
            return int(number), match.end()
        if not char:
            raise self.fail("unexpected end of the file: a value was expected", offset)
        raise self.fail(f"unexpected {char!r}: a value was expected", offset)

    def object(self, offset: int, pointer: Pointer) -> tuple[JSONValue, int]:
        out: dict[str, JSONValue] = {}
        offset = self.skip(offset + 1)
        if self.text.startswith("}", offset):
            return out, offset + 1
        while True:
            if not self.text.startswith('"', offset):
                raise self.fail("an object key (a double-quoted string) was expected", offset)
            key_at = offset
            key, offset = self.string(offset)
            if key in out:
                raise self.fail(f"the key {key!r} is given twice in one object", key_at)
            self.keys[(*pointer, key)] = self.pos(key_at)
            offset = self.skip(offset)
            if not self.text.startswith(":", offset):
                raise self.fail("':' was expected after the object key", offset)
            offset = self.skip(offset + 1)
            out[key], offset = self.value(offset, (*pointer, key))
            offset = self.skip(offset)
            if self.text.startswith(",", offset):
                offset = self.skip(offset + 1)
                if self.text.startswith("}", offset):
                    raise self.fail("a trailing comma before '}'", offset)
                continue
            if self.text.startswith("}", offset):
                return out, offset + 1
            raise self.fail("',' or '}' was expected", offset)

    def array(self, offset: int, pointer: Pointer) -> tuple[JSONValue, int]:
        out: list[JSONValue] = []
        offset = self.skip(offset + 1)
        if self.text.startswith("]", offset):
            return out, offset + 1
        while True:
            item, offset = self.value(offset, (*pointer, len(out)))
            out.append(item)
            offset = self.skip(offset)
            if self.text.startswith(",", offset):
                offset = self.skip(offset + 1)
                if self.text.startswith("]", offset):
                    raise self.fail("a trailing comma before ']'", offset)
                continue
            if self.text.startswith("]", offset):
                return out, offset + 1
            raise self.fail("',' or ']' was expected", offset)


def parse_json(text: str) -> Document:
    """Parse ``text`` strictly; :class:`JSONSyntaxError` names the first fault."""
    parser = _Parser(text)
    if text.startswith("\ufeff"):
        raise parser.fail("the file starts with a byte order mark", 0)
    offset = parser.skip(0)
    value, offset = parser.value(offset, ())
    offset = parser.skip(offset)
    if offset != len(text):
        raise parser.fail("text after the JSON value", offset)
    return Document(value, parser.values, parser.keys)


def read_json(data: bytes) -> Document:
    """Parse UTF-8 bytes strictly (see :func:`parse_json`)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + 1
        column = len(before) - (before.rfind(b"\n") + 1) + 1
        raise JSONSyntaxError("not UTF-8", Pos(line, column)) from None
    return parse_json(text)

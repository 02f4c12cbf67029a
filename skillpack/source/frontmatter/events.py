"""The full reader: ruamel.yaml's event stream, refusing what the strict subset excludes.

Why ruamel.yaml: it is the maintained pure-Python YAML 1.2 parser that exposes the
low-level *event* stream with a start mark (line and column) on every event, and it
reports syntax errors with positions. Working on events (not on a constructed object)
lets this module see what a constructed object hides: tags, anchors, aliases, merge
keys, duplicate keys, directives, quoting style and nesting, each with its position.
The YAML grammar is ruamel.yaml's; :mod:`.resolve` decides how plain scalars resolve
(the YAML 1.2 core schema) and this module which constructs to refuse.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from skillpack._internal.canonical import JSONValue
from skillpack.source.frontmatter.model import (
    ANCHOR_ALIAS,
    DIRECTIVE,
    DUPLICATE_KEY,
    FORBIDDEN_CHAR,
    FORBIDDEN_CHARS,
    MAX_DEPTH,
    MERGE_KEY,
    MULTIPLE_DOCUMENTS,
    NON_STRING_KEY,
    TAG,
    TOO_DEEP,
    UNENCODABLE,
    YAML_SYNTAX,
    FrontmatterError,
    KeyPath,
    Position,
)
from skillpack.source.frontmatter.resolve import describe_value, resolve_plain

#: what a double-quoted escape can produce that no UTF-8 text holds (SP018)
_SURROGATE = re.compile("[\ud800-\udfff]")

_PARSER: Any = None


def yaml_events(block: str) -> Iterator[Any]:
    """ruamel.yaml's event stream for ``block``: the parser the strict reader uses (and
    ``skillpack fmt``, which rewrites source spans the events locate)."""
    global _PARSER
    if _PARSER is None:
        from ruamel.yaml import YAML

        _PARSER = YAML(typ="safe", pure=True)
    events: Iterator[Any] = _PARSER.parse(block)
    return events


@dataclass(slots=True)
class _OpenMapping:
    """A mapping being read: its path from the root, the entries so far, and the key
    whose value comes next (None while a key is expected)."""

    path: KeyPath
    value: dict[str, JSONValue]
    key: str | None = None


@dataclass(slots=True)
class _OpenSequence:
    """A sequence being read: its path from the root and the items so far."""

    path: KeyPath
    value: list[JSONValue]


_Open = _OpenMapping | _OpenSequence


class _Walk:
    """One walk over one block's events; ``positions`` receives where each key and
    item is (file line and column).

    A refusal that leaves the structure readable (an ambiguous or out-of-range value, a
    tag, an anchor or alias, a merge or duplicate or non-string key, a forbidden
    character, nesting too deep) is recorded in :attr:`refusals` and the walk goes on as
    if the construct were plain (the value as a string, the tag or anchor left out), so
    that every refusal of the block is found in one walk. Anything else (directives,
    several documents, a collection as a key, a syntax error) ends the walk.
    """

    def __init__(self, line_offset: int, positions: dict[KeyPath, Position]) -> None:
        self.line_offset = line_offset
        self.positions = positions
        self.stack: list[_Open] = []
        self.root: JSONValue = None
        self.documents = 0
        self.refusals: list[FrontmatterError] = []

    def pos(self, event: Any) -> Position:
        mark = event.start_mark
        return mark.line + 1 + self.line_offset, mark.column + 1

    def refuse(self, code: str, message: str, at: Position, hint: str) -> None:
        self.refusals.append(FrontmatterError(code, message, *at, hint))

    def expecting_key(self) -> bool:
        if not self.stack:
            return False
        top = self.stack[-1]
        return isinstance(top, _OpenMapping) and top.key is None

    def child_path(self, at: Position) -> KeyPath:
        """The path of the value about to be added to the innermost container; a
        sequence item's position is recorded here (a mapping key's when it is read)."""
        if not self.stack:
            return ()
        top = self.stack[-1]
        if isinstance(top, _OpenMapping):
            assert top.key is not None
            return (*top.path, top.key)
        path = (*top.path, len(top.value))
        self.positions[path] = at
        return path

    def add(self, value: JSONValue) -> None:
        """Add a finished value to the innermost container, or make it the root."""
        if not self.stack:
            self.root = value
            return
        top = self.stack[-1]
        if isinstance(top, _OpenSequence):
            top.value.append(value)
        else:
            assert top.key is not None
            top.value[top.key] = value
            top.key = None

    def event(self, event: Any) -> None:
        from ruamel.yaml import events as ev

        if isinstance(event, (ev.StreamStartEvent, ev.StreamEndEvent)):
            return
        if isinstance(event, ev.DocumentStartEvent):
            self.documents += 1
            if event.version is not None or event.tags:
                raise FrontmatterError(
                    DIRECTIVE, "YAML directives (%YAML, %TAG) are not allowed",
                    *self.pos(event), "remove the directive line",
                )  # fmt: skip
            if self.documents > 1 or event.explicit:
                raise FrontmatterError(
                    MULTIPLE_DOCUMENTS,
                    "the frontmatter must hold exactly one YAML document",
                    *self.pos(event),
                    "remove the extra '---' or '...' marker",
                )
            return
        if isinstance(event, ev.DocumentEndEvent):
            if event.explicit:
                raise FrontmatterError(
                    MULTIPLE_DOCUMENTS,
                    "document end marker '...' is not allowed in frontmatter",
                    *self.pos(event),
                    "remove the '...' line",
                )
            return
        if isinstance(event, (ev.MappingEndEvent, ev.SequenceEndEvent)):
            self.add(self.stack.pop().value)
            return
        if isinstance(event, ev.AliasEvent):
            self.refuse(
                ANCHOR_ALIAS, f"alias '*{event.anchor}' is not allowed", self.pos(event),
                "write the value out in full instead of referring to an anchor",
            )  # fmt: skip
            self.node(f"*{event.anchor}", self.pos(event), plain=False)
            return
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            self.refuse(
                ANCHOR_ALIAS, f"anchor '&{anchor}' is not allowed", self.pos(event),
                "remove the anchor and write values out in full",
            )  # fmt: skip
        tag = getattr(event, "tag", None)
        if tag is not None:
            self.refuse(
                TAG, f"tag '{tag}' is not allowed", self.pos(event),
                "remove the tag; quote the value if it must stay a string",
            )  # fmt: skip
        if isinstance(event, (ev.MappingStartEvent, ev.SequenceStartEvent)):
            self.collection_start(event, isinstance(event, ev.MappingStartEvent))
        elif isinstance(event, ev.ScalarEvent):
            self.scalar(event)

    def collection_start(self, event: Any, mapping: bool) -> None:
        at = self.pos(event)
        if self.expecting_key():
            raise FrontmatterError(
                NON_STRING_KEY, "mapping keys must be strings", *at,
                "use a plain or quoted string as the key",
            )  # fmt: skip
        if len(self.stack) == MAX_DEPTH:  # once, where the nesting crosses the limit
            self.refuse(
                TOO_DEEP, f"nesting deeper than {MAX_DEPTH} levels", at, "flatten the structure"
            )
        path = self.child_path(at)
        self.stack.append(_OpenMapping(path, {}) if mapping else _OpenSequence(path, []))

    def scalar(self, event: Any) -> None:
        at = self.pos(event)
        if self.expecting_key() and event.style is None and event.value == "<<":
            self.refuse(
                MERGE_KEY, "merge keys ('<<') are not allowed", at,
                "write the merged keys out in full",
            )  # fmt: skip
            self.node(event.value, at, plain=False)
            return
        self.node(event.value, at, plain=event.style is None and event.implicit[0])

    def node(self, text: str, at: Position, plain: bool) -> None:
        """A scalar (or what stands for an alias or merge key): a key or a value."""
        is_key = self.expecting_key()
        value: JSONValue = text
        if plain:
            try:
                value = resolve_plain(text, *at, key=is_key)
            except FrontmatterError as refusal:
                self.refusals.append(refusal)  # read on as if it were quoted
        else:
            for char, label in FORBIDDEN_CHARS.items():
                if char in text:
                    self.refuse(
                        FORBIDDEN_CHAR, f"{'key' if is_key else 'value'} contains {label}", at,
                        "remove the escape that produces it",
                    )  # fmt: skip
            surrogate = _SURROGATE.search(text)
            if surrogate is not None:
                self.refuse(
                    UNENCODABLE,
                    f"{'key' if is_key else 'value'} holds U+{ord(surrogate[0]):04X}, a "
                    "surrogate that no UTF-8 text can carry",
                    at,
                    "remove the escape; write a character outside the BMP as one \\U escape "
                    "of its code point (\\U0001F600), not as a UTF-16 pair",
                )
        if not is_key:
            self.child_path(at)
            self.add(value)
            return
        top = self.stack[-1]
        assert isinstance(top, _OpenMapping)
        if not isinstance(value, str):
            self.refuse(
                NON_STRING_KEY,
                f"key {text!r} is read as {describe_value(value)}, not a string",
                at,
                f'quote the key: "{text}"',
            )
            value = text
        if value in top.value:
            self.refuse(
                DUPLICATE_KEY, f"duplicate key '{value}'", at, "keep one of the two entries"
            )
        top.key = value
        self.positions[(*top.path, value)] = at


def walk_events(
    block: str, line_offset: int, positions: dict[KeyPath, Position] | None = None
) -> JSONValue:
    """Read ``block`` (already through :func:`~.text.check_block`) with ruamel.yaml's
    event parser; positions are shifted by ``line_offset`` lines. ``positions``, when
    given, receives the (line, column) of every mapping key and sequence item.

    Raises the first refusal, carrying every refusal found (see :class:`_Walk`).
    """
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    walk = _Walk(line_offset, {} if positions is None else positions)
    try:
        for event in yaml_events(block):
            walk.event(event)
    except FrontmatterError as refusal:
        raise FrontmatterError.of([*walk.refusals, refusal]) from None
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = (mark.line + 1 + line_offset) if mark else line_offset + 1
        column = (mark.column + 1) if mark else 1
        problem = exc.problem or exc.context or "invalid YAML"
        syntax = FrontmatterError(
            YAML_SYNTAX,
            f"YAML syntax error: {problem}",
            line,
            column,
            "fix the YAML; quote values that contain ': ' or start with a special character",
        )
        raise FrontmatterError.of([*walk.refusals, syntax]) from None
    except YAMLError as exc:
        error = FrontmatterError(
            YAML_SYNTAX, f"YAML error: {exc}", line_offset + 1, 1, "fix the YAML"
        )
        raise FrontmatterError.of([*walk.refusals, error]) from None
    if walk.refusals:
        raise FrontmatterError.of(walk.refusals)
    return walk.root

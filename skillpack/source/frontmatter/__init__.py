"""The strict frontmatter reader.

``SKILL.md`` starts with YAML between two ``---`` fence lines. Hosts parse that YAML
with whatever library they have: YAML 1.1 parsers (PyYAML, go-yaml v2, SnakeYAML) and
YAML 1.2 parsers (ruamel.yaml, yaml for JS, go-yaml v3) read some plain scalars
differently (``no`` is ``false`` to one and ``"no"`` to the other). SEP-2640 hosts
compare the served frontmatter field by field with the listed entry, so a value that
two parsers read differently breaks verification for someone. This reader accepts only
a subset of YAML that every parser reads the same way and returns a JSON-compatible
object; anything else is refused with a line, a column and a hint saying how to quote.

The package:

* :mod:`.model`: :class:`Frontmatter`, :class:`FrontmatterError`, the limits and codes;
* :mod:`.text`: decoding, the fences, the refusals made on the raw block;
* :mod:`.resolve`: how a plain scalar resolves, shared by both readers;
* :mod:`.events`: the full reader, ruamel.yaml's event stream;
* :mod:`.fastpath`: a line reader for plain ``key: value`` blocks that gives exactly what
  the event walk gives, or leaves the block to it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillpack._internal.canonical import JSONValue
from skillpack.source.frontmatter.fastpath import fast_parse
from skillpack.source.frontmatter.model import (
    AMBIGUOUS_SCALAR,
    ANCHOR_ALIAS,
    BOM,
    DIRECTIVE,
    DUPLICATE_KEY,
    FENCE,
    FORBIDDEN_CHAR,
    FORBIDDEN_CHARS,
    MAX_BLOCK_BYTES,
    MAX_DEPTH,
    MAX_SAFE_INT,
    MERGE_KEY,
    MISSING_FENCE,
    MULTIPLE_DOCUMENTS,
    NON_STRING_KEY,
    NOT_A_MAPPING,
    NOT_UTF8,
    OUT_OF_RANGE,
    TAG,
    TOO_DEEP,
    TOO_LARGE,
    UNENCODABLE,
    UNTERMINATED,
    YAML_SYNTAX,
    Frontmatter,
    FrontmatterError,
    KeyPath,
    Position,
)
from skillpack.source.frontmatter.resolve import describe_value, resolve_plain
from skillpack.source.frontmatter.text import check_block, decode_skill_md, split_frontmatter

__all__ = [
    "AMBIGUOUS_SCALAR",
    "ANCHOR_ALIAS",
    "BOM",
    "DIRECTIVE",
    "DUPLICATE_KEY",
    "FENCE",
    "FORBIDDEN_CHAR",
    "FORBIDDEN_CHARS",
    "MAX_BLOCK_BYTES",
    "MAX_DEPTH",
    "MAX_SAFE_INT",
    "MERGE_KEY",
    "MISSING_FENCE",
    "MULTIPLE_DOCUMENTS",
    "NON_STRING_KEY",
    "NOT_A_MAPPING",
    "NOT_UTF8",
    "OUT_OF_RANGE",
    "TAG",
    "TOO_DEEP",
    "TOO_LARGE",
    "UNENCODABLE",
    "UNTERMINATED",
    "YAML_SYNTAX",
    "Frontmatter",
    "FrontmatterError",
    "KeyPath",
    "Position",
    "check_block",
    "decode_skill_md",
    "describe_value",
    "fast_parse",
    "parse_skill_md",
    "parse_yaml_subset",
    "resolve_plain",
    "split_frontmatter",
    "walk_events",
    "yaml_events",
]


if TYPE_CHECKING:
    from skillpack.source.frontmatter.events import walk_events, yaml_events


def __getattr__(name: str) -> object:
    """The event walk's names (:mod:`.events`), imported at their first use: most
    frontmatter is read by the fast path, and a build's start-up need not load it."""
    if name in ("walk_events", "yaml_events"):
        from skillpack.source.frontmatter import events

        return getattr(events, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def parse_yaml_subset(
    block: str, line_offset: int = 0, positions: dict[KeyPath, Position] | None = None
) -> JSONValue:
    """Parse ``block`` as strict-subset YAML; positions are shifted by ``line_offset`` lines.

    When ``positions`` is given, it receives the (line, column) of every mapping key
    and every sequence item, keyed by its path from the root.
    """
    check_block(block, line_offset)
    fast = fast_parse(block, line_offset)
    if fast is not None:
        data, found = fast
        if positions is not None:
            positions.update(found)
        return data
    from skillpack.source.frontmatter.events import walk_events

    return walk_events(block, line_offset, positions)


def parse_skill_md(data: bytes | str) -> Frontmatter:
    """Read ``SKILL.md`` bytes into a :class:`Frontmatter`, or raise :class:`FrontmatterError`."""
    text = decode_skill_md(data) if isinstance(data, bytes) else data
    block, block_line, close_line, body, has_bom = split_frontmatter(text)
    positions: dict[KeyPath, Position] = {}
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

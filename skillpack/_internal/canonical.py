"""Canonical JSON: one byte form per JSON value.

Used wherever two JSON values must compare exactly (``1`` is not ``1.0`` is not
``true``, although Python's ``==`` says they are): the bundle index, frontmatter
comparison in ``diff`` and ``lock --check``, and the client's and the checker's
comparison of served frontmatter and entries. Keys are sorted, separators compact,
non-ASCII kept as UTF-8, NaN and infinities refused (the strict frontmatter reader
never produces them).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

#: A value JSON can hold (what the strict frontmatter reader produces).
JSONValue = None | bool | int | float | str | list[Any] | dict[str, Any]


def canonical_json(value: Any) -> str:
    """The canonical text of a JSON-compatible value."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def canonical_bytes(value: Any) -> bytes:
    return canonical_json(value).encode("utf-8")


def same_json(a: Any, b: Any) -> bool:
    """True when ``a`` and ``b`` are the same JSON value (types included). A value with no
    canonical form (NaN or an infinity, which a peer's JSON may carry) is never the same."""
    try:
        return canonical_json(a) == canonical_json(b)
    except ValueError:
        return False


def strings_in(value: Any) -> Iterator[str]:
    """Every string a JSON value holds, keys included, in document order."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)

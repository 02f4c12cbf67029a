"""What a method handler returns, and the parameters every handler reads the same way.

:class:`Result` holds the members of a result object, already encoded, which
:mod:`.protocol` wraps with the era's common fields; :class:`Call` says which era a
request is served in. Shared by :mod:`.handlers` and :mod:`.fallbacks`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from skillpack.server.content import Encoded
from skillpack.server.jsonrpc import INVALID_PARAMS, RpcError, encode_json

JSONObject = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Call:
    """How a request is served: the 2026-07-28 era (stateless) or a legacy one."""

    modern: bool
    version: str


@dataclass(frozen=True, slots=True)
class Result:
    """Encoded members of a result object (``"key":value`` joined by commas)."""

    members: Encoded
    empty: bool = False
    cacheable: bool = False


def result(obj: JSONObject, *, cacheable: bool = False) -> Result:
    encoded = encode_json(obj)
    return Result((encoded[1:-1],), empty=not obj, cacheable=cacheable)


def string_param(params: JSONObject, key: str) -> str:
    value = params.get(key)
    if not isinstance(value, str):
        raise RpcError(INVALID_PARAMS, f"params.{key} must be a string", {"param": key})
    return value


def page_start(params: JSONObject, tag: str, total: int) -> int:
    """Where the page named by ``params.cursor`` starts (0 without a cursor)."""
    cursor = params.get("cursor")
    if cursor is None:
        return 0
    if isinstance(cursor, str) and cursor.startswith(tag + ":"):
        digits = cursor[len(tag) + 1 :]
        if digits.isascii() and digits.isdigit() and str(int(digits)) == digits:
            start = int(digits)
            if 0 < start < total:
                return start
    raise RpcError(INVALID_PARAMS, "Invalid cursor", {"cursor": cursor})


def cursor(tag: str, end: int, total: int) -> JSONObject:
    return {"nextCursor": f"{tag}:{end}"} if end < total else {}


def page(params: JSONObject, tag: str, items: Sequence[Any], size: int, key: str) -> JSONObject:
    """The page of ``items`` that ``params.cursor`` names, as ``{key: [...], nextCursor}``."""
    start = page_start(params, tag, len(items))
    end = min(start + size, len(items))
    return {key: list(items[start:end]), **cursor(tag, end, len(items))}

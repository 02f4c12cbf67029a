"""JSON-RPC 2.0 values: JSON encoding and decoding, error codes, errors, response bytes."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from typing import Any

# One encoder and one decoder, made once: json.dumps/json.loads with options build new
# ones on every call, which shows on the resources/read path.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
_encode_string = json.encoder.encode_basestring  # the C implementation where available


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (_INF, -_INF):  # 1e400: valid JSON, but no double holds it
        raise ValueError(f"number {text[:24]} is out of range")
    return value


_INF = float("inf")
_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float)
#: The decoder's scanner (the C one where available), with its parse_constant (an
#: attribute every JSONDecoder has, which typeshed does not list).
_scan_once: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]


def encode_json(value: Any) -> bytes:
    """Compact UTF-8 JSON, the one encoder of every byte the server writes."""
    return _ENCODER.encode(value).encode("utf-8")


def encode_string(text: str) -> str:
    """A JSON string literal for ``text`` (quotes included), non-ASCII kept as is."""
    escaped: str = _encode_string(text)
    return escaped


def decode_json(text: str) -> Any:
    """Parse one JSON text; ``NaN`` and ``Infinity`` are refused (ValueError), and so is
    a number too large for a double (``1e400``), which would otherwise become one."""
    if text[:1] == "{" and text[-1:] == "}":
        # the usual message, with nothing around it: the scanner alone (the decoder's
        # own path strips whitespace that is not there); anything else, errors
        # included, takes that path
        try:
            value, end = _scan_once(text, 0)
        except (StopIteration, ValueError):
            pass
        else:
            if end == len(text):
                return value
    try:
        return _DECODER.decode(text)
    except ValueError as exc:
        if "integer string conversion" not in str(exc):
            raise
        # Python's own words name a Python setting; the client needs the JSON's
        limit = sys.get_int_max_str_digits()
        raise ValueError(f"an integer has more than {limit} digits") from None


#: A UTF-16 surrogate escape (``\\ud800``): the only way a JSON text that is valid UTF-8
#: decodes to a string UTF-8 cannot encode (a lone surrogate). Paired escapes decode to
#: one character; a match is a hint to look, not a finding.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def may_hold_surrogate(text: str) -> bool:
    """False when the JSON ``text`` certainly decodes to strings that are all valid Unicode
    (no ``\\uD800``-``\\uDFFF`` escape in it); a cheap test made on every message."""
    return "\\u" in text and _SURROGATE_ESCAPE.search(text) is not None


def encodable(text: str) -> bool:
    """True when ``text`` can be encoded as UTF-8 (it holds no lone surrogate)."""
    return text.isascii() or _LONE_SURROGATE.search(text) is None


def _member(path: str, key: str) -> str:
    if _IDENTIFIER.match(key):
        return f"{path}.{key}" if path else key
    return f"{path}[{json.dumps(key)}]"  # ensure_ascii: a lone surrogate shown escaped


def lone_surrogate(value: Any, path: str = "") -> tuple[str, str] | None:
    """The first string (or object key) in the decoded JSON ``value`` that UTF-8 cannot
    encode, as (its path, e.g. ``params.uri`` or ``params["\\ud800"]``, and the
    surrogate's escape, ``\\ud800``); None when every string is valid Unicode. Walks
    without recursion, so any depth the decoder returned is walked."""
    stack: list[tuple[str, Any]] = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            found = _LONE_SURROGATE.search(item)
            if found is not None:
                return where, f"\\u{ord(found.group()):04x}"
        elif isinstance(item, dict):
            members = list(item.items())
            for key, _ in members:
                found = _LONE_SURROGATE.search(key)
                if found is not None:
                    return _member(where, key), f"\\u{ord(found.group()):04x}"
            stack.extend((_member(where, key), member) for key, member in reversed(members))
        elif isinstance(item, list):
            stack.extend((f"{where}[{i}]", member) for i, member in reversed(list(enumerate(item))))
    return None


PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
#: MCP 2026-07-28, Streamable HTTP only: a header disagrees with the body, or a required
#: header is missing or malformed.
HEADER_MISMATCH = -32020
#: MCP 2026-07-28: the request's protocol version is not supported.
UNSUPPORTED_PROTOCOL_VERSION = -32022
#: MCP 2025-11-25 and earlier: resource not found (never sent to modern requests).
LEGACY_RESOURCE_NOT_FOUND = -32002

RequestId = str | int
#: Longest error ``message``: one sentence, which may quote a client's string (a method,
#: a URI) that is cut rather than sent back whole (``data`` carries it as sent).
MAX_ERROR_MESSAGE_CHARS = 400


class RpcError(Exception):
    """An error response: ``code``, a one-sentence ``message`` and optional ``data``."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        if len(message) > MAX_ERROR_MESSAGE_CHARS:  # a client's long string echoed: cut
            message = message[: MAX_ERROR_MESSAGE_CHARS - 1] + "…"
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            out["data"] = self.data
        return out


def valid_id(value: Any) -> bool:
    """MCP request ids are strings or integers (never null, bool or float)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def error_response(request_id: RequestId | None, error: RpcError) -> bytes:
    """One error response line. Without a known id the ``id`` member is left out, as the
    MCP schema allows (it does not allow ``null``)."""
    message: dict[str, Any] = {"jsonrpc": "2.0"}
    if request_id is not None:
        message["id"] = request_id
    message["error"] = error.to_wire()
    try:
        return encode_json(message) + b"\n"
    except UnicodeEncodeError:  # a lone surrogate echoed: escaped, never a crash
        return json.dumps(message, separators=(",", ":")).encode("ascii") + b"\n"


def result_head(request_id: RequestId) -> bytes:
    """Everything of a result response line up to the result object's first member."""
    if type(request_id) is int:  # the usual id, without the encoder's machinery
        return b'{"jsonrpc":"2.0","id":%d,"result":{' % request_id
    if type(request_id) is str:
        return b'{"jsonrpc":"2.0","id":' + _encode_string(request_id).encode() + b',"result":{'
    return b'{"jsonrpc":"2.0","id":' + encode_json(request_id) + b',"result":{'


RESULT_TAIL = b"}}\n"

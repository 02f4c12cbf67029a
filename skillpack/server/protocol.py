"""Message handling: validation, the two protocol eras, dispatch, response bytes.

One process serves both eras (MCP "dual-era" server):

* a request whose ``params._meta`` carries ``io.modelcontextprotocol/protocolVersion``
  is served statelessly under that 2026-07-28 version (``-32602`` when the envelope is
  incomplete, ``-32022`` for an unknown version); its result carries ``resultType``,
  ``ttlMs``/``cacheScope`` where the method is cacheable, and serverInfo in ``_meta``;
* ``initialize`` negotiates a legacy version (2024-11-05 .. 2025-11-25); from then on,
  requests without that envelope are served under it, with legacy result shapes (no
  ``resultType``, no caching fields; not-found reads answer ``-32002``);
* ``ping`` is answered in any state, as legacy clients may ping before ``initialize``;
* ``initialize`` and ``ping`` are legacy methods only: a request carrying the
  2026-07-28 envelope gets ``-32601`` for them, as for any method the era does not have.

Every request gets exactly one response; notifications never do. Error responses are
:class:`ErrorReply` values, which carry their JSON-RPC code for transports that map
it to a status (HTTP).

The stdio transport keeps one :class:`Protocol` per process, so ``initialize`` makes
the process legacy. The HTTP transport keeps legacy sessions itself: it answers through
a Protocol made with ``legacy_version`` fixed and ``sticky=False``, so no request
changes the state of the Protocol that answers it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from skillpack.server.content import Encoded
from skillpack.server.handlers import (
    LEGACY_VERSIONS,
    MODERN_VERSIONS,
    SERVER_INFO,
    Call,
    Methods,
    result,
)
from skillpack.server.index import JSONObject
from skillpack.server.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    RESULT_TAIL,
    UNSUPPORTED_PROTOCOL_VERSION,
    RequestId,
    RpcError,
    decode_json,
    encodable,
    encode_json,
    error_response,
    lone_surrogate,
    may_hold_surrogate,
    result_head,
    valid_id,
)

PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"

Log = Callable[[str], None]


_WS = re.compile(r"[ \t\n\r]*")
#: Methods of the legacy revisions only: in the 2026-07-28 era they do not exist.
LEGACY_ONLY_METHODS = frozenset({"initialize", "ping"})
#: How a request with a supported 2026-07-28 envelope is served (one value per version).
_MODERN_CALLS = {version: Call(True, version) for version in MODERN_VERSIONS}


class ErrorReply(tuple[bytes, ...]):
    """The encoded lines of an error response, with its JSON-RPC ``code``."""

    code: int

    def __new__(cls, lines: tuple[bytes, ...], code: int) -> ErrorReply:
        reply = super().__new__(cls, lines)
        reply.code = code
        return reply


def response_problem(message: dict[str, Any], has_id: bool) -> str | None:
    """Why ``message``, which has no ``method``, is not a well-formed JSON-RPC response
    (the -32600 message), or None when it is one: a ``result`` with an ``id``, or an
    ``error`` object with an integer ``code`` (its ``id`` may be absent: the MCP schema
    lets an error response leave it out). Well-formed responses are never answered."""
    if "result" in message:
        if "error" in message:
            return "Invalid Request: a response has a result or an error, not both"
        return None if has_id else "Invalid Request: a result response needs an id"
    if "error" in message:
        error = message["error"]
        if not isinstance(error, dict) or type(error.get("code")) is not int:
            return "Invalid Request: error must be an object with an integer code"
        return None
    return "Invalid Request: no method (and not a response)"


def unicode_problem(message: dict[str, Any]) -> tuple[RequestId | None, RpcError] | None:
    """The error for a message holding a string UTF-8 cannot encode (a lone surrogate,
    ``"\\ud800"``), with the id to answer it under, or None when it holds none or
    needs no answer (a notification, a well-formed response).

    Such a string can be neither served nor echoed: in ``id`` it is -32600 answered
    without an id; in ``params`` -32602, anywhere else -32600, naming the field."""
    found = lone_surrogate(message)
    if found is None:
        return None
    where, escape = found
    request_id = message.get("id")
    if isinstance(request_id, str) and not encodable(request_id):
        return None, RpcError(
            INVALID_REQUEST,
            f"Invalid Request: id holds a lone surrogate ({escape}), which is not Unicode "
            "and cannot be sent back; send ids as valid UTF-8",
            {"field": "id"},
        )
    if "method" not in message or "id" not in message or not valid_id(request_id):
        return None  # nothing of it is echoed: the usual checks answer it, or nothing does
    text = f"{where} holds a lone surrogate ({escape}), which is not Unicode; send valid UTF-8"
    if where == "params" or where.startswith(("params.", "params[")):
        return request_id, RpcError(INVALID_PARAMS, f"Invalid params: {text}", {"field": where})
    return request_id, RpcError(INVALID_REQUEST, f"Invalid Request: {text}", {"field": where})


def negotiate_version(requested: object) -> str:
    """The legacy version ``initialize`` settles on: the one asked for when this server
    speaks it, else the newest legacy version."""
    if isinstance(requested, str) and requested in LEGACY_VERSIONS:
        return requested
    return LEGACY_VERSIONS[0]


def carries_modern_envelope(params: object) -> bool:
    """True when ``params._meta`` names a protocol version (a 2026-07-28-era request)."""
    if not isinstance(params, dict):
        return False
    meta = params.get("_meta")
    return isinstance(meta, dict) and PROTOCOL_VERSION_KEY in meta


def _skip_ws(text: str, pos: int) -> int:
    match = _WS.match(text, pos)
    return match.end() if match else pos


def _sniff_id(head: bytes) -> RequestId | None:
    """The top-level ``id`` of a JSON object from its first bytes, if they show it.

    Used for messages too large to keep: their prefix is parsed member by member
    until ``id`` is found or a member does not fit in the prefix.
    """
    text = head.decode("utf-8", errors="ignore")
    decoder = json.JSONDecoder()
    pos = _skip_ws(text, 0)
    if not text.startswith("{", pos):
        return None
    pos += 1
    while True:
        try:
            key, pos = decoder.raw_decode(text, _skip_ws(text, pos))
            pos = _skip_ws(text, pos)
            if not isinstance(key, str) or not text.startswith(":", pos):
                return None
            value, pos = decoder.raw_decode(text, _skip_ws(text, pos + 1))
        except (ValueError, RecursionError):
            return None
        if key == "id":
            valid = valid_id(value) and (not isinstance(value, str) or encodable(value))
            return value if valid else None
        pos = _skip_ws(text, pos)
        if not text.startswith(",", pos):
            return None
        pos += 1


class Protocol:
    """Turns one incoming line into the bytes of its response (or None)."""

    def __init__(
        self,
        methods: Methods,
        log: Log,
        *,
        legacy_version: str | None = None,
        sticky: bool = True,
    ) -> None:
        self.methods = methods
        self.log = log
        #: the era of requests without the envelope; set by ``initialize`` when sticky
        self.legacy_version: str | None = legacy_version
        self.sticky = sticky
        options = methods.options
        meta = b',"_meta":' + encode_json({SERVER_INFO_KEY: SERVER_INFO})
        cache = b',"ttlMs":' + encode_json(options.ttl_ms)
        cache += b',"cacheScope":' + encode_json(options.cache_scope)
        self._modern_tail = meta + RESULT_TAIL
        self._modern_cacheable_tail = cache + meta + RESULT_TAIL
        discover_meta = {SERVER_INFO_KEY: SERVER_INFO, **methods.discover_meta()}
        self._discover_tail = cache + b',"_meta":' + encode_json(discover_meta) + RESULT_TAIL

    # -- entry points ---------------------------------------------------------------

    def handle_line(self, line: bytes) -> Encoded | None:
        """The response to one line (without its newline), or None for notifications."""
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            return self._error(
                None, PARSE_ERROR, f"Parse error: not valid UTF-8 at byte {exc.start}"
            )
        if not text.strip():
            return None  # blank lines between messages are tolerated
        try:
            message = decode_json(text)
        except RecursionError:
            return self._error(None, PARSE_ERROR, "Parse error: JSON nested too deeply")
        except ValueError as exc:
            return self._error(None, PARSE_ERROR, f"Parse error: {exc}")
        if isinstance(message, list):
            return self._batch(message)
        if type(message) is dict and may_hold_surrogate(text):
            problem = unicode_problem(message)
            if problem is not None:
                request_id, error = problem
                return ErrorReply((error_response(request_id, error),), error.code)
        return self._message(message)

    def handle_message(self, message: Any) -> Encoded | None:
        """The response to one decoded JSON value that is not a batch (None for
        notifications and for responses a client sends)."""
        return self._message(message)

    def handle_oversized(self, head: bytes, size: int, limit: int) -> Encoded:
        """The response to a line longer than ``limit`` (only its first bytes were kept)."""
        return self._error(
            _sniff_id(head),
            INVALID_REQUEST,
            f"Invalid Request: message of {size} bytes exceeds the limit of {limit} bytes",
            {"limit": limit},
        )

    # -- messages -------------------------------------------------------------------

    def _error(
        self, request_id: RequestId | None, code: int, message: str, data: Any = None
    ) -> Encoded:
        return ErrorReply((error_response(request_id, RpcError(code, message, data)),), code)

    def _batch(self, batch: list[Any]) -> Encoded:
        reason = "Invalid Request: batch arrays are not supported; send one message per line"
        ids = [
            m["id"]
            for m in batch
            if isinstance(m, dict)
            and "method" in m
            and valid_id(m.get("id"))
            and (not isinstance(m["id"], str) or encodable(m["id"]))
        ]
        if not ids:
            return self._error(None, INVALID_REQUEST, reason)
        lines = tuple(error_response(i, RpcError(INVALID_REQUEST, reason)) for i in ids)
        return ErrorReply(lines, INVALID_REQUEST)

    def _message(self, message: Any) -> Encoded | None:
        if not isinstance(message, dict):
            return self._error(None, INVALID_REQUEST, "Invalid Request: not a JSON object")
        has_id = "id" in message
        request_id = message.get("id")
        if has_id and not valid_id(request_id):
            return self._error(
                None, INVALID_REQUEST, "Invalid Request: id must be a string or an integer"
            )
        method = message.get("method")
        if "method" not in message:
            problem = response_problem(message, has_id)
            if problem is None:
                return None  # a response: this server sends no requests, so nothing to match
            return self._error(request_id, INVALID_REQUEST, problem)
        if message.get("jsonrpc") != "2.0":
            return self._error(
                request_id, INVALID_REQUEST, 'Invalid Request: jsonrpc must be "2.0"'
            )
        if not isinstance(method, str):
            return self._error(
                request_id, INVALID_REQUEST, "Invalid Request: method must be a string"
            )
        if not has_id:
            # notifications/initialized needs no action; notifications/cancelled neither:
            # each request is answered before the next line is read, so nothing is ever in
            # flight to stop. Other notifications are ignored.
            return None
        assert request_id is not None
        return self.handle_request(request_id, method, message.get("params", {}))

    def handle_request(self, request_id: RequestId, method: str, params: Any) -> Encoded:
        """The response to a message already known to be a request: ``jsonrpc`` "2.0", a
        valid ``id``, a string ``method`` (what :meth:`handle_message` checks first, and
        what a transport that checked them itself calls directly)."""
        try:
            if not isinstance(params, dict):
                raise RpcError(INVALID_PARAMS, "params must be an object")
            return self._request(request_id, method, params)
        except RpcError as exc:
            return ErrorReply((error_response(request_id, exc),), exc.code)
        except Exception as exc:  # a bug: answer, log, keep serving
            self.log(f"internal error in {method}: {type(exc).__name__}: {exc}")
            if os.environ.get("SKILLPACK_DEBUG"):
                import traceback

                self.log(traceback.format_exc())
            return self._error(request_id, INTERNAL_ERROR, "Internal error")

    def _request(self, request_id: RequestId, method: str, params: JSONObject) -> Encoded:
        if method in LEGACY_ONLY_METHODS and carries_modern_envelope(params):
            raise RpcError(
                METHOD_NOT_FOUND,
                f"Method not found: {method} is not a method of the 2026-07-28 revision",
                {"method": method},
            )
        if method == "initialize":
            return self._initialize(request_id, params)
        handler = self.methods.table.get(method)
        if handler is None:
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}", {"method": method})
        call = self._era(method, params)
        answer = handler(params, call)
        head = result_head(request_id)
        if call.modern:
            tail = self._modern_cacheable_tail if answer.cacheable else self._modern_tail
            if method == "server/discover":
                tail = self._discover_tail  # serverInfo, and what is served
            first = head + (
                b'"resultType":"complete"' if answer.empty else b'"resultType":"complete",'
            )
        else:
            tail, first = RESULT_TAIL, head
        if isinstance(answer.members, (tuple, list)):
            return (first, *answer.members, tail)
        return _chain(first, answer.members, tail)

    def _era(self, method: str, params: JSONObject) -> Call:
        meta = params.get("_meta")
        if meta is not None and not isinstance(meta, dict):
            raise RpcError(INVALID_PARAMS, "params._meta must be an object")
        if meta is not None and PROTOCOL_VERSION_KEY in meta:
            return self._modern(meta)
        if self.legacy_version is not None and method != "server/discover":
            return Call(False, self.legacy_version)
        if method == "ping":
            return Call(False, LEGACY_VERSIONS[0])
        raise RpcError(
            INVALID_PARAMS,
            f"params._meta must carry {PROTOCOL_VERSION_KEY} and {CLIENT_CAPABILITIES_KEY} "
            "(or send initialize first)",
        )

    def _modern(self, meta: JSONObject) -> Call:
        version = meta.get(PROTOCOL_VERSION_KEY)
        call = _MODERN_CALLS.get(version) if type(version) is str else None
        if call is not None and type(meta.get(CLIENT_CAPABILITIES_KEY)) is dict:
            return call  # the usual envelope; anything else is looked at below
        if PROTOCOL_VERSION_KEY not in meta or CLIENT_CAPABILITIES_KEY not in meta:
            missing = [k for k in (PROTOCOL_VERSION_KEY, CLIENT_CAPABILITIES_KEY) if k not in meta]
            raise RpcError(INVALID_PARAMS, f"params._meta is missing {', '.join(missing)}")
        version = meta[PROTOCOL_VERSION_KEY]
        if not isinstance(version, str):
            raise RpcError(INVALID_PARAMS, f"params._meta {PROTOCOL_VERSION_KEY} must be a string")
        if not isinstance(meta[CLIENT_CAPABILITIES_KEY], dict):
            raise RpcError(
                INVALID_PARAMS, f"params._meta {CLIENT_CAPABILITIES_KEY} must be an object"
            )
        if version not in MODERN_VERSIONS:
            raise RpcError(
                UNSUPPORTED_PROTOCOL_VERSION,
                "Unsupported protocol version",
                {"supported": list(MODERN_VERSIONS), "requested": version},
            )
        return Call(True, version)

    def _initialize(self, request_id: RequestId, params: JSONObject) -> Encoded:
        requested = params.get("protocolVersion")
        if not isinstance(requested, str):
            raise RpcError(INVALID_PARAMS, "params.protocolVersion must be a string")
        if not isinstance(params.get("capabilities", {}), dict):
            raise RpcError(INVALID_PARAMS, "params.capabilities must be an object")
        version = negotiate_version(requested)
        if self.sticky:
            self.legacy_version = version
        answer = result(self.methods.initialize_result(version))
        return (result_head(request_id), *answer.members, RESULT_TAIL)


def _chain(first: bytes, members: Iterable[bytes], tail: bytes) -> Iterator[bytes]:
    yield first
    yield from members
    yield tail

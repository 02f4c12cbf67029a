"""The Streamable HTTP transport: a plain ASGI callable over the shared :class:`Protocol`.

Standard library only: the HTTP server in front of it (uvicorn) is wired up in
:mod:`.http_serve`. Everything the transport decides is in :class:`Contract`, which
takes plain values (method, path, header list, body bytes) and returns a
:class:`Reply`, so the rules are testable without a socket; :class:`App` only moves
bytes between the server and the contract, and writes the access log.

The contract, in the order it is applied:

1. ``Host`` must name the bound address, a loopback name with the bound port, or an
   ``--allow-host`` value; a present ``Origin`` must be such a host over http(s), or an
   ``--allow-origin`` value (403 otherwise: DNS rebinding). Every reply to a request
   from an accepted ``Origin`` carries the CORS headers that let the page read it, and
   a CORS preflight (``OPTIONS`` with ``Access-Control-Request-Method``) is answered
   here, 204, without a token: browsers never send one with a preflight.
2. With a token, ``Authorization: Bearer <token>``, compared in constant time (401 with
   ``WWW-Authenticate`` otherwise).
3. Only the endpoint path is served (404); POST carries messages, DELETE ends a legacy
   session, OPTIONS names the methods (204), anything else is 405 with ``Allow``.
4. POST: ``Content-Type: application/json`` (415), an ``Accept`` that admits JSON
   (406), at most ``max_body_bytes`` (413); the body is one JSON-RPC object (400 with
   -32700 for malformed JSON, 400 with -32600 for a batch and for an object that is
   neither a request, a notification nor a response).
5. A message whose ``params._meta`` names a protocol version, or that carries a
   2026-07-28 ``MCP-Protocol-Version`` header outside a session, is served statelessly:
   ``Mcp-Method`` must equal the method and ``MCP-Protocol-Version`` the ``_meta``
   version (400 with -32020 otherwise, before the version itself is looked at), and
   ``Mcp-Name`` the ``uri``/``name`` of ``resources/read``, ``tools/call`` and
   ``prompts/get``; errors map to 404 (-32601), 500 (-32603) or 400 (the rest).
6. Otherwise the legacy era: ``initialize`` opens a session (``Mcp-Session-Id``) and
   later requests must carry its id (400 without, 404 for one that is unknown, ended
   or expired) and, when they send ``MCP-Protocol-Version``, the version it negotiated
   (400 otherwise); JSON-RPC errors travel with 200, as the legacy revisions do.

Well-formed notifications and client responses get 202 with no body. Replies are
``application/json``; no SSE stream is offered, and no ``Upgrade`` is followed (the
request is answered, then the connection closed).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hmac
import mmap
import os
import secrets
import struct
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from skillpack.server.content import Encoded
from skillpack.server.handlers import LEGACY_VERSIONS
from skillpack.server.jsonrpc import (
    HEADER_MISMATCH,
    INTERNAL_ERROR,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    RpcError,
    decode_json,
    encode_json,
    error_response,
    may_hold_surrogate,
    valid_id,
)
from skillpack.server.protocol import (
    PROTOCOL_VERSION_KEY,
    ErrorReply,
    Protocol,
    negotiate_version,
    response_problem,
    unicode_problem,
)
from skillpack.server.transports import http_defaults as defaults

Headers = list[tuple[bytes, bytes]]
Scope = Mapping[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

#: Largest accepted message body, as on stdio.
DEFAULT_MAX_BODY_BYTES = defaults.MAX_BODY_BYTES
DEFAULT_MAX_SESSIONS = defaults.MAX_SESSIONS
DEFAULT_SESSION_IDLE_S = defaults.SESSION_IDLE_S
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
#: Headers that must not appear twice (a second Host or token is a smuggling attempt).
_SINGLE = frozenset(
    {
        b"host",
        b"origin",
        b"authorization",
        b"content-type",
        b"content-length",
        b"mcp-protocol-version",
        b"mcp-method",
        b"mcp-name",
        b"mcp-session-id",
    }
)
#: The request parameter that ``Mcp-Name`` repeats, per method (SEP-2243).
_NAME_PARAM = {"resources/read": "uri", "tools/call": "name", "prompts/get": "name"}
_JSON = [(b"content-type", b"application/json")]
_ALLOW = b"POST, DELETE, OPTIONS"
_REALM = b'Bearer realm="skillpack"'
_SESSION_ID_LENGTH = 32  # hex digits of 16 random bytes
_VARY_ORIGIN = (b"vary", b"Origin")
#: What a CORS preflight from an accepted Origin is told: the methods and request headers
#: the endpoint takes, for how long the browser may keep the answer.
_PREFLIGHT = (
    (b"access-control-allow-methods", b"POST, DELETE"),
    (
        b"access-control-allow-headers",
        b"Content-Type, Accept, Authorization, Mcp-Session-Id, MCP-Protocol-Version, "
        b"Mcp-Method, Mcp-Name, Last-Event-ID",
    ),
    (b"access-control-max-age", b"7200"),
    _VARY_ORIGIN,
)
#: The response headers a page from an accepted Origin may read.
_EXPOSE = (b"access-control-expose-headers", b"Mcp-Session-Id, WWW-Authenticate")


def _cors(origin: bytes) -> Headers:
    """The headers of a reply to a request from an accepted ``origin`` (named as sent,
    never ``*``, so that ``--allow-origin '*'`` still names one origin per reply)."""
    return [(b"access-control-allow-origin", origin.strip()), _EXPOSE, _VARY_ORIGIN]


# -- replies ----------------------------------------------------------------------------


@dataclass(slots=True)
class Reply:
    """What to answer: status, headers (content-type and extras) and body parts."""

    status: int
    body: Encoded = ()
    headers: Headers = field(default_factory=list)
    close: bool = False  #: close the connection after answering
    rpc: str | None = None  #: the JSON-RPC method, for the access log
    era: str | None = None  #: "modern" or "legacy", for the access log


def refusal(status: int, message: str, *, headers: Headers | None = None) -> Reply:
    """An HTTP-level refusal: a JSON-RPC error without id, never a traceback."""
    body = (error_response(None, RpcError(INVALID_REQUEST, message)),)
    return Reply(status, body, [*_JSON, *(headers or [])])


def _rpc_refusal(
    status: int, request_id: object, code: int, message: str, data: Any = None
) -> Reply:
    """A JSON-RPC error response carrying the request's id (when it has a valid one)."""
    rid = request_id if isinstance(request_id, str | int) and valid_id(request_id) else None
    body = (error_response(rid, RpcError(code, message, data)),)
    return Reply(status, body, list(_JSON))


def _is_legacy(header_version: bytes) -> bool:
    return header_version.strip().decode("latin-1") in LEGACY_VERSIONS


def _version_mismatch(header_version: bytes | None, negotiated: str) -> str | None:
    """Why an ``MCP-Protocol-Version`` header does not fit a legacy session (None when it is
    absent or names the version the session negotiated).

    The legacy revisions require the header on every request after ``initialize``, with
    the negotiated version, and a 400 for an "invalid or unsupported" one: in a session
    only the version it negotiated is supported, since every answer in it is shaped by
    that version (a client that claims another one would misread them).
    """
    if header_version is None:
        return None
    named = header_version.strip(b" \t").decode("latin-1")
    if named == negotiated:
        return None
    return (
        f"Bad Request: MCP-Protocol-Version {_printable(named, 40)} is not the version "
        f"negotiated for this session ({negotiated}); send initialize to change it"
    )


def _invalid(message: dict[str, Any]) -> str | None:
    """Why ``message`` is neither a JSON-RPC request, a notification nor a response (the
    -32600 message), or None when it is one of them. Only requests are answered; the
    others get 202 when they are well formed and 400 when they are not."""
    if message.get("jsonrpc") != "2.0":
        return 'Invalid Request: jsonrpc must be "2.0"'
    has_id = "id" in message
    if has_id and not valid_id(message["id"]):
        return "Invalid Request: id must be a string or an integer"
    if "method" in message:
        if not isinstance(message["method"], str):
            return "Invalid Request: method must be a string"
        if not has_id and not isinstance(message.get("params", {}), dict):
            return "Invalid Request: params must be an object"
        return None
    return response_problem(message, has_id)


def modern_status(code: int) -> int:
    """The HTTP status of a 2026-07-28 error response with JSON-RPC ``code``."""
    if code == METHOD_NOT_FOUND:
        return 404
    if code == INTERNAL_ERROR:
        return 500
    return 400


# -- sessions ---------------------------------------------------------------------------

_SLOT = struct.Struct("<32sdB7x")  # id (hex), last use (monotonic), version index + 1
_FREE = bytes(_SESSION_ID_LENGTH)


class SessionTable:
    """Legacy-era sessions: a bounded table of ``Mcp-Session-Id`` -> negotiated version.

    The table lives in an anonymous shared mapping, so every worker forked after it
    was made sees the same sessions (a client may reach any worker). A session that is
    not used for ``idle_s`` seconds expires; when every slot holds a live session, a
    new ``initialize`` is refused (503) rather than ending someone else's session.
    Nothing is written to disk.
    """

    def __init__(
        self, capacity: int = DEFAULT_MAX_SESSIONS, idle_s: float = DEFAULT_SESSION_IDLE_S
    ) -> None:
        self.capacity = capacity
        self.idle_s = idle_s
        self._map = mmap.mmap(-1, capacity * _SLOT.size)  # anonymous, shared across fork
        self._lock: contextlib.AbstractContextManager[Any] = contextlib.nullcontext()

    def share_between_processes(self) -> None:
        """Guard the table with a process-shared lock (call before forking workers)."""
        import multiprocessing

        self._lock = multiprocessing.Lock()

    def _slot_of(self, key: bytes, start: int = 0) -> int | None:
        """The slot whose id is ``key`` (found by the C search, checked for alignment)."""
        view = self._map
        size = _SLOT.size
        while (pos := view.find(key, start)) != -1:
            if pos % size == 0:
                return pos // size
            start = pos + 1
        return None

    def create(self, version: str) -> str | None:
        """A new session's id, or None when the table is full of live sessions."""
        session_id = secrets.token_hex(_SESSION_ID_LENGTH // 2)
        now = time.monotonic()
        with self._lock:
            slot = self._slot_of(_FREE)
            if slot is None:
                slot = self._expire(now)
            if slot is None:
                return None
            record = _SLOT.pack(session_id.encode(), now, LEGACY_VERSIONS.index(version) + 1)
            self._map[slot * _SLOT.size : (slot + 1) * _SLOT.size] = record
        return session_id

    def _expire(self, now: float) -> int | None:
        """Free every expired slot; the first one freed, if any."""
        first = None
        for slot in range(self.capacity):
            _, last, _ = _SLOT.unpack_from(self._map, slot * _SLOT.size)
            if now - last > self.idle_s:
                self._clear(slot)
                first = slot if first is None else first
        return first

    def _clear(self, slot: int) -> None:
        self._map[slot * _SLOT.size : (slot + 1) * _SLOT.size] = bytes(_SLOT.size)

    @staticmethod
    def well_formed(session_id: bytes) -> bool:
        return len(session_id) == _SESSION_ID_LENGTH and all(
            c in b"0123456789abcdef" for c in session_id
        )

    def touch(self, session_id: bytes) -> str | None:
        """The version of a live session (marking it used), or None."""
        if not self.well_formed(session_id):
            return None
        now = time.monotonic()
        with self._lock:
            slot = self._slot_of(session_id)
            if slot is None:
                return None
            offset = slot * _SLOT.size
            _, last, version = _SLOT.unpack_from(self._map, offset)
            if now - last > self.idle_s:
                self._clear(slot)
                return None
            struct.pack_into("<d", self._map, offset + _SESSION_ID_LENGTH, now)
        return LEGACY_VERSIONS[version - 1]

    def end(self, session_id: bytes) -> bool:
        """End a live session; False when there is none with this id."""
        if self.touch(session_id) is None:
            return False
        with self._lock:
            slot = self._slot_of(session_id)
            if slot is None:
                return False
            self._clear(slot)
        return True


# -- settings ---------------------------------------------------------------------------


def split_host(value: str) -> tuple[str, str | None]:
    """``host[:port]`` -> (host, port or None); IPv6 literals stay in brackets."""
    if value.startswith("["):
        end = value.find("]")
        if end == -1:
            return value, None
        host, rest = value[: end + 1], value[end + 1 :]
        return host, rest[1:] if rest.startswith(":") else None
    host, sep, port = value.rpartition(":")
    if not sep or ":" in host:  # no port, or a bare IPv6 literal
        return value, None
    return host, port


@dataclass(frozen=True)
class HttpSettings:
    """What the contract enforces; made once at start-up."""

    host: str  #: the bound host as a URL authority writes it (IPv6 in brackets)
    port: int
    path: str = defaults.PATH
    tls: bool = False
    allow_hosts: Sequence[str] = ()
    allow_origins: Sequence[str] = ()
    token: bytes | None = None
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES


class _HostRules:
    """Which ``Host`` values (and ``Origin`` authorities) are this server's."""

    def __init__(self, settings: HttpSettings) -> None:
        port = str(settings.port)
        default_port = "443" if settings.tls else "80"
        self.any = "*" in settings.allow_hosts
        exact: set[bytes] = set()
        names: set[bytes] = set()
        for name in {settings.host.lower(), *LOOPBACK_NAMES}:
            exact.add(f"{name}:{port}".encode())
            if port == default_port:
                exact.add(name.encode())
        #: the server's own authorities (the bound address and loopback names with its
        #: port): an Origin naming one is a page of this server, not of another site
        self.own = frozenset(exact)
        for value in settings.allow_hosts:
            host, given_port = split_host(value.lower())
            if given_port is None:
                names.add(host.encode())
            else:
                exact.add(f"{host}:{given_port}".encode())
        self.exact = frozenset(exact)
        self.names = frozenset(names)
        self.any_origin = "*" in settings.allow_origins
        self.origins = frozenset(o.lower().rstrip("/").encode() for o in settings.allow_origins)

    def host_ok(self, host: bytes) -> bool:
        if self.any or host in self.exact:
            return True
        if not self.names:
            return False
        text = host.decode("latin-1")
        return split_host(text)[0].encode("latin-1") in self.names

    def origin_ok(self, origin: bytes) -> bool:
        """An ``--allow-origin`` value, or the server's own address over http(s). An
        ``--allow-host`` name never is: it says which ``Host`` to answer (a proxy's name),
        not which sites' pages may read the answers (``*`` would admit every site)."""
        origin = origin.strip().lower()
        if self.any_origin or origin in self.origins:
            return True
        scheme, sep, authority = origin.partition(b"://")
        if not sep or scheme not in (b"http", b"https") or b"/" in authority:
            return False
        return authority in self.own


def _header_text(raw: bytes) -> str | None:
    """A header value as text: optional whitespace removed, ``=?base64?...?=`` decoded
    (SEP-2243); None when the encoded form is malformed."""
    value = raw.strip(b" \t")
    if value.startswith(b"=?base64?") and value.endswith(b"?=") and len(value) >= 11:
        try:
            return base64.b64decode(value[9:-2], validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return None
    return value.decode("latin-1")


def _names(raw: bytes, value: object) -> bool:
    """True when the header value ``raw`` names ``value``: as sent (the usual case,
    checked first), or as :func:`_header_text` reads it."""
    if raw[:1] != b"=" and raw.decode("latin-1") == value:
        return True
    return _header_text(raw) == value


def _accepts_json(accept: bytes) -> bool:
    for item in accept.split(b","):
        media, _, parameters = item.partition(b";")
        if media.strip().lower() not in (b"application/json", b"application/*", b"*/*"):
            continue
        quality = 1.0
        for parameter in parameters.split(b";"):
            key, _, value = parameter.partition(b"=")
            if key.strip().lower() == b"q":
                try:
                    quality = float(value.strip())
                except ValueError:
                    quality = 0.0
        if quality > 0:
            return True
    return False


# -- the contract -----------------------------------------------------------------------


@dataclass(slots=True)
class Request:
    """A request that passed the checks made before its body is read."""

    method: str
    fields: dict[bytes, bytes]
    #: headers every reply to it carries (CORS, for a request from an accepted Origin)
    extra: Headers | None = None
    close: bool = False  #: close the connection after answering

    def finish(self, reply: Reply) -> Reply:
        """``reply`` with what every reply to this request carries."""
        if self.extra is not None:
            reply.headers = [*reply.headers, *self.extra]
        if self.close:
            reply.close = True
        return reply


class Contract:
    """The HTTP rules of the MCP endpoint, from request values to a :class:`Reply`."""

    def __init__(
        self,
        settings: HttpSettings,
        stateless: Protocol,
        legacy: Mapping[str, Protocol],
        sessions: SessionTable,
    ) -> None:
        self.settings = settings
        self.stateless = stateless  #: answers without session state (sticky=False)
        self.legacy = legacy  #: one Protocol per legacy version, for session requests
        self.sessions = sessions
        self.hosts = _HostRules(settings)
        self.path = settings.path
        self.token = settings.token
        self.limit = settings.max_body_bytes
        self._accept_cache: dict[bytes, bool] = {}

    # -- before the body --------------------------------------------------------------

    def check(
        self, method: str, path: str, headers: Sequence[tuple[bytes, bytes]]
    ) -> Reply | Request:
        """The checks that need no body: a refusal, or the request to read on."""
        fields = dict(headers)
        if len(fields) != len(headers):  # a name repeated: joined, or refused
            fields = {}
            for name, value in headers:
                if name in fields:
                    if name in _SINGLE:
                        return refusal(400, f"Bad Request: more than one {name.decode()} header")
                    fields[name] += b", " + value
                else:
                    fields[name] = value
        checked = self._check(method, path, fields)
        if b"upgrade" in fields:  # no protocol is switched to: answer, then close
            checked.close = True
        return checked

    def _check(self, method: str, path: str, fields: dict[bytes, bytes]) -> Reply | Request:
        """Host and Origin, a CORS preflight, then :meth:`_admit`."""
        host = fields.get(b"host")
        if host is None:
            return refusal(400, "Bad Request: no Host header")
        if host not in self.hosts.exact and not self.hosts.host_ok(host.strip().lower()):
            return refusal(
                403,
                "Forbidden: this server does not answer for that Host "
                "(start it with --allow-host to add a name)",
            )
        origin = fields.get(b"origin")
        if origin is None:
            checked = self._admit(method, path, fields)
        elif not self.hosts.origin_ok(origin):
            return refusal(
                403,
                "Forbidden: requests from that Origin are not accepted "
                "(start the server with --allow-origin to add one)",
                headers=[_VARY_ORIGIN],
            )
        elif method == "OPTIONS" and b"access-control-request-method" in fields:
            return self._preflight(path, origin)  # a browser asks before it sends
        else:
            checked = self._admit(method, path, fields)
            cors = _cors(origin)
            if isinstance(checked, Request):
                checked.extra = cors
            else:
                checked.headers.extend(cors)
        return checked

    def _admit(self, method: str, path: str, fields: dict[bytes, bytes]) -> Reply | Request:
        """The token, the path and the method: a refusal, or the request to read on."""
        if self.token is not None:
            refused = self._authenticate(fields.get(b"authorization"))
            if refused is not None:
                return refused
        if path != self.path:
            return refusal(404, f"Not Found: the MCP endpoint is {self.path}")
        if method == "POST":
            return self._check_post(fields)
        if method == "DELETE":
            return Request(method, fields)
        if method == "OPTIONS":
            return Reply(204, headers=[(b"allow", _ALLOW)])
        return refusal(
            405,
            f"Method Not Allowed: {method[:16]}; POST sends messages, DELETE ends a session "
            "(no SSE stream is offered)",
            headers=[(b"allow", _ALLOW)],
        )

    def _preflight(self, path: str, origin: bytes) -> Reply:
        """The answer to a CORS preflight from an accepted Origin. It needs no token:
        browsers never send credentials with a preflight (the request that follows needs
        one)."""
        if path != self.path:
            return refusal(404, f"Not Found: the MCP endpoint is {self.path}")
        return Reply(204, headers=[(b"access-control-allow-origin", origin.strip()), *_PREFLIGHT])

    def _authenticate(self, authorization: bytes | None) -> Reply | None:
        assert self.token is not None
        if authorization is None:
            return refusal(
                401,
                "Unauthorized: send Authorization: Bearer <token>",
                headers=[(b"www-authenticate", _REALM)],
            )
        scheme, _, credentials = authorization.strip().partition(b" ")
        if scheme.lower() == b"bearer" and hmac.compare_digest(credentials.strip(), self.token):
            return None
        return refusal(
            401,
            "Unauthorized: the bearer token is not valid",
            headers=[(b"www-authenticate", _REALM + b', error="invalid_token"')],
        )

    def _check_post(self, fields: dict[bytes, bytes]) -> Reply | Request:
        content_type = fields.get(b"content-type", b"")
        if (
            content_type != b"application/json"
            and content_type.partition(b";")[0].strip().lower() != b"application/json"
        ):
            return refusal(415, "Unsupported Media Type: send Content-Type: application/json")
        accept = fields.get(b"accept")
        if accept is not None:
            ok = self._accept_cache.get(accept)
            if ok is None:
                ok = _accepts_json(accept)
                if len(self._accept_cache) < 256:
                    self._accept_cache[accept] = ok
            if not ok:
                return refusal(406, "Not Acceptable: replies are application/json; accept it")
        length = fields.get(b"content-length")
        if length is not None:
            text = length.strip()
            if not text.isdigit():
                return refusal(400, "Bad Request: Content-Length is not a number")
            if int(text) > self.limit:
                return self.too_large()
        return Request("POST", fields)

    def too_large(self) -> Reply:
        reply = refusal(413, f"Content Too Large: a message may have at most {self.limit} bytes")
        reply.close = True
        return reply

    # -- with the body ----------------------------------------------------------------

    def respond(self, request: Request, body: bytes) -> Reply:
        """The answer to a request that passed :meth:`check`, given its whole body."""
        reply = self._respond(request, body)
        if request.extra is None and not request.close:
            return reply
        return request.finish(reply)

    def _respond(self, request: Request, body: bytes) -> Reply:
        if request.method == "DELETE":
            return self._delete(request.fields)
        try:
            text = body.decode("utf-8")
            message = decode_json(text)
        except UnicodeDecodeError as exc:
            return _rpc_refusal(
                400, None, PARSE_ERROR, f"Parse error: not valid UTF-8 at byte {exc.start}"
            )
        except RecursionError:
            return _rpc_refusal(400, None, PARSE_ERROR, "Parse error: JSON nested too deeply")
        except ValueError as exc:
            return _rpc_refusal(400, None, PARSE_ERROR, f"Parse error: {exc}")
        if isinstance(message, list):
            return _rpc_refusal(
                400,
                None,
                INVALID_REQUEST,
                "Invalid Request: batch arrays are not supported; send one message per request",
            )
        if not isinstance(message, dict):
            return _rpc_refusal(400, None, INVALID_REQUEST, "Invalid Request: not a JSON object")
        if may_hold_surrogate(text):
            problem = unicode_problem(message)
            if problem is not None:  # a string that can be neither served nor echoed
                request_id, error = problem
                return _rpc_refusal(400, request_id, error.code, error.message, error.data)
        invalid = _invalid(message)
        if invalid is not None:  # neither a request, a notification nor a response
            return _rpc_refusal(400, message.get("id"), INVALID_REQUEST, invalid)
        fields = request.fields
        method = message.get("method")
        params = message.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        meta_version = meta.get(PROTOCOL_VERSION_KEY) if isinstance(meta, dict) else None
        if meta_version is not None:
            return self._modern(message, method, params, meta_version, fields)
        header_version = fields.get(b"mcp-protocol-version")
        session = fields.get(b"mcp-session-id")
        legacy_header = header_version is not None and _is_legacy(header_version)
        if (
            session is None
            and method != "initialize"
            and header_version is not None
            and not legacy_header
        ):
            return self._modern(message, method, params, meta_version, fields)
        if method == "initialize":  # a new session, whatever session the client had
            return self._initialize(message, params)
        if session is not None:
            return self._session(message, method, session, header_version)
        return self._bare(message, method, legacy_header)

    def _modern(
        self,
        message: dict[str, Any],
        method: Any,
        params: Any,
        meta_version: Any,
        fields: dict[bytes, bytes],
    ) -> Reply:
        request_id = message.get("id")
        if isinstance(method, str):
            raw = fields.get(b"mcp-method")
            if raw is None:
                return _rpc_refusal(
                    400,
                    request_id,
                    HEADER_MISMATCH,
                    "Header mismatch: the Mcp-Method header is required",
                    {"header": "Mcp-Method"},
                )
            if not _names(raw, method):
                return _rpc_refusal(
                    400,
                    request_id,
                    HEADER_MISMATCH,
                    "Header mismatch: Mcp-Method does not equal the request's method",
                    {"header": "Mcp-Method"},
                )
        if meta_version is not None:
            raw = fields.get(b"mcp-protocol-version")
            if raw is None or not _names(raw, meta_version):
                return _rpc_refusal(
                    400,
                    request_id,
                    HEADER_MISMATCH,
                    "Header mismatch: MCP-Protocol-Version must equal params._meta "
                    f"{PROTOCOL_VERSION_KEY}",
                    {"header": "MCP-Protocol-Version"},
                )
        key = _NAME_PARAM.get(method) if isinstance(method, str) else None
        if key is not None and isinstance(params, dict) and isinstance(params.get(key), str):
            raw = fields.get(b"mcp-name")
            if raw is None or not _names(raw, params[key]):
                return _rpc_refusal(
                    400,
                    request_id,
                    HEADER_MISMATCH,
                    f"Header mismatch: Mcp-Name must equal params.{key}",
                    {"header": "Mcp-Name"},
                )
        if method is None:
            return Reply(202, era="modern")  # a response: this server sends no requests
        if "id" not in message:
            return Reply(202, rpc=method, era="modern")  # a notification: nothing to answer
        # _invalid has checked what Protocol.handle_message would: a request, to answer
        answer = self.stateless.handle_request(message["id"], method, message.get("params", {}))
        status = modern_status(answer.code) if type(answer) is ErrorReply else 200
        return Reply(status, answer, list(_JSON), rpc=method, era="modern")

    def _initialize(self, message: dict[str, Any], params: Any) -> Reply:
        """Legacy ``initialize``: answered statelessly, then a session is opened."""
        answer = self.stateless.handle_message(message)
        if answer is None:
            return Reply(202, rpc="initialize", era="legacy")
        if isinstance(answer, ErrorReply):
            return Reply(200, answer, list(_JSON), rpc="initialize", era="legacy")
        requested = params.get("protocolVersion") if isinstance(params, dict) else None
        session_id = self.sessions.create(negotiate_version(requested))
        if session_id is None:
            reply = _rpc_refusal(
                503,
                message.get("id"),
                INVALID_REQUEST,
                f"Service Unavailable: all {self.sessions.capacity} sessions are in use",
            )
            reply.headers.append((b"retry-after", b"5"))
            return reply
        headers = [*_JSON, (b"mcp-session-id", session_id.encode())]
        return Reply(200, answer, headers, rpc="initialize", era="legacy")

    def _session(
        self,
        message: dict[str, Any],
        method: Any,
        session: bytes,
        header_version: bytes | None,
    ) -> Reply:
        """A message in a legacy session, answered under its negotiated version (and
        refused when ``MCP-Protocol-Version`` names another)."""
        rpc = method if isinstance(method, str) else None
        version = self.sessions.touch(session.strip())
        if version is None:
            return _rpc_refusal(
                404,
                message.get("id"),
                INVALID_REQUEST,
                "Not Found: no such session (it ended or expired); send initialize to "
                "start a new one",
            )
        mismatch = _version_mismatch(header_version, version)
        if mismatch is not None:
            return _rpc_refusal(400, message.get("id"), INVALID_REQUEST, mismatch)
        if method is None:
            return Reply(202, era="legacy")  # a response: this server sends no requests
        answer = self.legacy[version].handle_message(message)
        if answer is None:
            return Reply(202, rpc=rpc, era="legacy")
        return Reply(200, answer, list(_JSON), rpc=rpc, era="legacy")

    def _bare(self, message: dict[str, Any], method: Any, legacy_header: bool) -> Reply:
        """Neither the 2026-07-28 envelope nor a session: only ``ping`` is answered."""
        rpc = method if isinstance(method, str) else None
        if method is None or "id" not in message:
            return Reply(202, rpc=rpc)  # a notification or response: nothing to answer
        if method != "ping" and legacy_header:
            return _rpc_refusal(
                400,
                message.get("id"),
                INVALID_REQUEST,
                "Bad Request: no Mcp-Session-Id header; send initialize first (or use the "
                "2026-07-28 revision, which needs no session)",
            )
        answer = self.stateless.handle_message(message)
        if answer is None:
            return Reply(202, rpc=rpc)
        status = modern_status(answer.code) if isinstance(answer, ErrorReply) else 200
        return Reply(status, answer, list(_JSON), rpc=rpc)

    def _delete(self, fields: dict[bytes, bytes]) -> Reply:
        session = fields.get(b"mcp-session-id")
        if session is None:
            return refusal(400, "Bad Request: DELETE needs the Mcp-Session-Id of a session")
        session = session.strip()
        version = self.sessions.touch(session)
        if version is None:
            return refusal(404, "Not Found: no such session (it ended or expired)")
        mismatch = _version_mismatch(fields.get(b"mcp-protocol-version"), version)
        if mismatch is not None:
            return refusal(400, mismatch)
        if not self.sessions.end(session):
            return refusal(404, "Not Found: no such session (it ended or expired)")
        return Reply(204, rpc="DELETE", era="legacy")


# -- the access log ---------------------------------------------------------------------


class AccessLog:
    """One line per request on stderr, as text or JSON. Only the request line's method
    and path, the status, size, duration, client address and JSON-RPC method are
    logged: never a header (no token, no session id) nor a query string."""

    def __init__(self, fmt: str = "text", fd: int = 2) -> None:
        self.json = fmt == "json"
        self.fd = fd
        self._second = -1
        self._stamp = ""

    def _now(self) -> str:
        now = int(time.time())
        if now != self._second:
            self._second = now
            self._stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now))
        return self._stamp

    def record(
        self,
        client: Sequence[Any] | None,
        method: str,
        path: str,
        reply: Reply,
        size: int,
        seconds: float,
    ) -> None:
        peer = f"{client[0]}:{client[1]}" if client else "-"
        rpc = _printable(reply.rpc) if reply.rpc else None
        path = _printable(path)
        if self.json:
            entry = {
                "time": self._now(),
                "client": peer,
                "method": _printable(method),
                "path": path,
                "status": reply.status,
                "bytes": size,
                "ms": round(seconds * 1000, 3),
                "rpc": rpc,
                "era": reply.era,
            }
            line = encode_json(entry) + b"\n"
        else:
            extra = f" rpc={rpc}" if rpc else ""
            extra += f" era={reply.era}" if reply.era else ""
            line = (
                f"{self._now()} {peer} {_printable(method)} {path} {reply.status} {size} "
                f"{seconds * 1000:.2f}ms{extra}\n"
            ).encode("utf-8", "replace")
        with contextlib.suppress(OSError):
            os.write(self.fd, line)


def _printable(text: str, limit: int = 120) -> str:
    """``text`` cut to ``limit`` characters with control characters and spaces escaped,
    so that a logged value cannot forge a log line."""
    text = text[:limit]
    if text.isprintable() and " " not in text:
        return text
    return "".join(c if c.isprintable() and c != " " else f"\\x{ord(c):02x}" for c in text)


# -- the ASGI application ---------------------------------------------------------------


class App:
    """The ASGI 3 callable: reads the body within its limits, asks the contract, sends
    the reply (streamed when the protocol streams it), logs."""

    def __init__(
        self,
        contract: Contract,
        access_log: AccessLog | None,
        body_timeout: float = defaults.BODY_TIMEOUT_S,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.contract = contract
        self.access_log = access_log
        self.body_timeout = body_timeout
        self.log = log

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan is off and websockets are not served
            return
        try:
            await self._serve(scope, receive, send)
        except Exception as exc:  # a bug: one line on stderr, a JSON-RPC error, keep serving
            if self.log is not None:
                self.log(f"internal error: {type(exc).__name__}: {exc}")
                if os.environ.get("SKILLPACK_DEBUG"):
                    import traceback

                    self.log(traceback.format_exc())
            reply = _rpc_refusal(500, None, INTERNAL_ERROR, "Internal error")
            reply.close = True
            with contextlib.suppress(Exception):  # the response may have begun already
                await self._send(send, reply)

    async def _serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = time.perf_counter() if self.access_log is not None else 0.0
        method: str = scope["method"]
        path: str = scope["path"]
        checked = self.contract.check(method, path, scope["headers"])
        if isinstance(checked, Reply):
            reply = checked
        else:
            message = await receive()  # usually the whole body, read with the headers
            if message["type"] != "http.request":
                return  # the client went away
            first: bytes = message.get("body", b"")
            body: bytes | Reply = first
            if message.get("more_body", False) or len(first) > self.contract.limit:
                rest = await self._body(receive, first)
                if rest is None:
                    return  # the client went away
                body = rest
            if isinstance(body, Reply):
                reply = checked.finish(body)
            else:
                reply = self.contract.respond(checked, body)
        size = await self._send(send, reply)
        if self.access_log is not None:
            self.access_log.record(
                scope.get("client"), method, path, reply, size, time.perf_counter() - started
            )

    async def _body(self, receive: Receive, body: bytes) -> bytes | Reply | None:
        """The whole body, from its first part on (when that was not all of it, or too
        much already); a refusal past the size or time limit; None on disconnect."""
        if len(body) > self.contract.limit:
            return self.contract.too_large()
        import asyncio

        chunks = [body]
        size = len(body)
        try:
            async with asyncio.timeout(self.body_timeout):
                while True:
                    message = await receive()
                    if message["type"] != "http.request":
                        return None
                    chunk = message.get("body", b"")
                    size += len(chunk)
                    if size > self.contract.limit:
                        return self.contract.too_large()
                    chunks.append(chunk)
                    if not message.get("more_body", False):
                        return b"".join(chunks)
        except TimeoutError:
            reply = refusal(
                408, f"Request Timeout: the body did not arrive within {self.body_timeout:g} s"
            )
            reply.close = True
            return reply

    async def _send(self, send: Send, reply: Reply) -> int:
        headers = reply.headers
        if reply.close:
            headers = [*headers, (b"connection", b"close")]
        body = reply.body
        if not isinstance(body, (tuple, list)):  # a large file, streamed as it is encoded
            await send({"type": "http.response.start", "status": reply.status, "headers": headers})
            size = 0
            for part in body:
                size += len(part)
                await send({"type": "http.response.body", "body": part, "more_body": True})
            await send({"type": "http.response.body", "body": b""})
            return size
        data = b"".join(body)
        if reply.status != 204:  # a 204 has no body and no Content-Length (RFC 9110)
            headers = [*headers, (b"content-length", str(len(data)).encode())]
        await send({"type": "http.response.start", "status": reply.status, "headers": headers})
        await send({"type": "http.response.body", "body": data})
        return len(data)


def legacy_protocols(make: Callable[[str], Protocol]) -> dict[str, Protocol]:
    """One session Protocol per legacy version (sessions only record the version)."""
    return {version: make(version) for version in LEGACY_VERSIONS}

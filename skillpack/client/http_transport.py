"""A JSON-RPC connection to an MCP server over Streamable HTTP, with the interface of
:class:`~skillpack.client.transport.StdioConnection`.

Standard library only (:mod:`http.client`, one keep-alive connection). Every message is
one POST; its reply (``application/json``, or a ``text/event-stream`` whose events are
read until the response arrives) is filed by id like a line read from a stdio server,
so the session, the verifying client and the checker run unchanged. The headers each
era needs are added from the message itself:

* 2026-07-28 (``params._meta`` names the version): ``MCP-Protocol-Version`` equal to
  it, ``Mcp-Method``, and ``Mcp-Name`` for ``resources/read``, ``tools/call`` and
  ``prompts/get`` (base64-wrapped when the value is not plain visible ASCII);
* legacy: the ``Mcp-Session-Id`` that ``initialize`` returned and the negotiated
  ``MCP-Protocol-Version``; :meth:`HttpConnection.close` ends the session (DELETE).

A bearer token, when given, is sent on every request.
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import itertools
import json
import ssl
import threading
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from skillpack.client.transport import DEFAULT_TIMEOUT, MAX_PROTOCOL_ERRORS, TransportError

#: The environment variable ``check --url`` and ``vendor --url`` read a bearer token from.
TOKEN_ENV = "SKILLPACK_HTTP_TOKEN"
#: The version requests without ``_meta`` carry once the server answered a modern one.
MODERN_VERSION = "2026-07-28"
_NAME_PARAM = {"resources/read": "uri", "tools/call": "name", "prompts/get": "name"}
MAX_REPLY_BYTES = 256 * 1024 * 1024
PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"


def header_value(text: str) -> str:
    """``text`` as an HTTP header value: as is when it is visible ASCII without leading
    or trailing spaces, else ``=?base64?...?=`` (SEP-2243)."""
    if text.isascii() and text.isprintable() and text == text.strip():
        return text
    return "=?base64?" + base64.b64encode(text.encode("utf-8")).decode("ascii") + "?="


class HttpConnection:
    """POST JSON-RPC messages to ``url`` (``http://`` or ``https://``)."""

    def __init__(
        self,
        url: str,
        *,
        token: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise TransportError(f"not an http:// or https:// URL: {url!r}")
        if parts.username or parts.password:
            raise TransportError("put no credentials in the URL; set the token instead")
        self.url = url
        self.timeout = timeout
        self._scheme = parts.scheme
        self._host = parts.hostname
        try:
            self._port = parts.port
        except ValueError:
            raise TransportError(f"the URL's port is not valid: {url!r}") from None
        self._target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        self._token = token
        self._ssl = ssl_context
        self._conn: http.client.HTTPConnection | None = None
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._responses: dict[str, dict[str, Any]] = {}
        self._unmatched: list[dict[str, Any]] = []
        self.notifications: list[dict[str, Any]] = []
        self.protocol_errors: list[str] = []
        self.protocol_error_count = 0
        self.session_id: str | None = None  #: the legacy session, once initialize answered
        self.legacy_version: str | None = None
        self._modern = False

    # -- HTTP ----------------------------------------------------------------------
    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is None:
            if self._scheme == "https":
                self._conn = http.client.HTTPSConnection(
                    self._host,
                    self._port,
                    timeout=self.timeout,
                    context=self._ssl or ssl.create_default_context(),
                )
            else:
                self._conn = http.client.HTTPConnection(
                    self._host, self._port, timeout=self.timeout
                )
        return self._conn

    def _drop(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _exchange(
        self, method: str, body: bytes | None, headers: dict[str, str]
    ) -> tuple[int, http.client.HTTPMessage, bytes]:
        """One request and its whole reply; a dropped keep-alive connection is retried
        once on a new one."""
        if self._token is not None:
            headers["Authorization"] = f"Bearer {self._token}"
        for attempt in (1, 2):
            fresh = self._conn is None
            conn = self._connection()
            try:
                conn.request(method, self._target, body=body, headers=headers)
                reply = conn.getresponse()
                data = reply.read(MAX_REPLY_BYTES + 1)
            except TimeoutError:
                self._drop()
                raise TransportError(
                    f"no reply from {self.url} within {self.timeout:g} s", timed_out=True
                ) from None
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self._drop()
                if fresh or attempt == 2:
                    raise TransportError(f"{self.url} closed the connection") from None
                continue
            except ssl.SSLError as exc:
                self._drop()
                raise TransportError(f"TLS with {self.url} failed: {exc.reason}") from None
            except (OSError, http.client.HTTPException) as exc:
                self._drop()
                reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
                raise TransportError(f"cannot reach {self.url}: {reason}") from None
            if len(data) > MAX_REPLY_BYTES:
                self._drop()
                raise TransportError(f"{self.url} sent a reply over {MAX_REPLY_BYTES} bytes")
            if reply.will_close:
                self._drop()
            return reply.status, reply.headers, data
        raise AssertionError("unreachable")

    def _headers(self, message: Mapping[str, Any] | None) -> dict[str, str]:
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        if message is None:
            return headers
        method = message.get("method")
        params = message.get("params")
        version = _meta_version(params)
        modern = version is not None
        if version is not None:
            headers["MCP-Protocol-Version"] = header_value(version)
        elif method == "initialize":
            pass
        elif self.session_id is not None:
            headers["Mcp-Session-Id"] = self.session_id
            if self.legacy_version:
                headers["MCP-Protocol-Version"] = self.legacy_version
        elif self._modern:
            headers["MCP-Protocol-Version"] = MODERN_VERSION
            modern = True
        if modern and isinstance(method, str):
            headers["Mcp-Method"] = header_value(method)
            key = _NAME_PARAM.get(method)
            value = params.get(key) if key and isinstance(params, Mapping) else None
            if isinstance(value, str):
                headers["Mcp-Name"] = header_value(value)
        return headers

    def _post(self, data: bytes, message: Mapping[str, Any] | None) -> None:
        status, reply_headers, body = self._exchange("POST", data, self._headers(message))
        if status == 202 or (not body.strip() and 200 <= status < 300):
            return
        content_type = (reply_headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if content_type == "text/event-stream":
            messages = _sse_messages(body)
        elif content_type == "application/json" or content_type.endswith("+json"):
            try:
                messages = [json.loads(body)]
            except ValueError:
                self._problem(f"HTTP {status}: a reply that is not JSON")
                raise TransportError(
                    f"{self.url} answered HTTP {status} with invalid JSON"
                ) from None
        else:
            snippet = body[:160].decode("utf-8", "replace").strip()
            raise TransportError(
                f"{self.url} answered HTTP {status} {_reason(status)}"
                + (f" ({content_type}): {snippet}" if snippet else "")
            )
        for item in messages:
            self._file(item, message)
        request_id = message.get("id") if message is not None else None
        if status >= 400 and request_id is not None and _key(request_id) not in self._responses:
            # refused before the JSON-RPC layer (401, 403, 404 for the path, ...)
            refusal = self._unmatched.pop() if self._unmatched else {}
            error = refusal.get("error") if isinstance(refusal.get("error"), dict) else {}
            detail = error.get("message") if isinstance(error, dict) else None
            raise TransportError(
                f"{self.url} answered HTTP {status} {_reason(status)}"
                + (f": {detail}" if isinstance(detail, str) else "")
            )
        if message is not None and message.get("method") == "initialize":
            session = reply_headers.get("Mcp-Session-Id")
            if session:
                self.session_id = session.strip()

    def _problem(self, text: str) -> None:
        self.protocol_error_count += 1
        if len(self.protocol_errors) < MAX_PROTOCOL_ERRORS:
            self.protocol_errors.append(text)

    def _file(self, item: Any, request: Mapping[str, Any] | None) -> None:
        if isinstance(item, dict) and item.get("jsonrpc") != "2.0":
            self._problem(f"not a JSON-RPC 2.0 message: {str(item)[:120]}")
        if not isinstance(item, dict):
            self._problem(f"unexpected message: {str(item)[:120]}")
            return
        if "method" in item and "id" not in item:
            self.notifications.append(item)
        elif "result" in item or "error" in item:
            if item.get("id") is None:
                self._unmatched.append(item)
                return
            self._responses[_key(item["id"])] = item
            if request is not None and "result" in item:
                if _meta_version(request.get("params")) is not None:
                    self._modern = True
                result = item["result"]
                if request.get("method") == "initialize" and isinstance(result, dict):
                    version = result.get("protocolVersion")
                    self.legacy_version = version if isinstance(version, str) else None
        elif "method" in item:
            self._problem(f"server sent a request ({item.get('method')!r}); servers must not")
        elif item.get("jsonrpc") == "2.0":
            self._problem(f"unexpected message: {str(item)[:120]}")

    # -- the StdioConnection interface ---------------------------------------------
    @property
    def stderr(self) -> str:
        return ""  # a remote server's log is not ours to read

    def send_raw(self, data: bytes) -> None:
        """POST raw bytes as one message body."""
        with self._lock:
            self._post(data, None)

    def send(self, message: Mapping[str, Any]) -> None:
        data = json.dumps(message, separators=(",", ":")).encode()
        with self._lock:
            self._post(data, message)

    def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = dict(params)
        self.send(message)

    def next_id(self) -> int:
        return next(self._ids)

    def wait_response(self, request_id: Any, timeout: float | None = None) -> dict[str, Any]:
        """The response with ``request_id`` (it arrived with its POST's reply)."""
        response = self._responses.pop(_key(request_id), None)
        if response is None:
            raise TransportError(f"{self.url} sent no response to request {request_id!r}")
        return response

    def wait_unmatched(self, timeout: float) -> dict[str, Any] | None:
        """An error response without id (the answer to a body that could not be parsed)."""
        return self._unmatched.pop(0) if self._unmatched else None

    def call_raw(
        self, method: str, params: Mapping[str, Any] | None, timeout: float | None = None
    ) -> dict[str, Any]:
        request_id = self.next_id()
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = dict(params)
        self.send(message)
        return self.wait_response(request_id, timeout)

    def close(self) -> int | None:
        """End the legacy session, if one was opened, and close the connection."""
        if self.session_id is not None:
            headers = {"Mcp-Session-Id": self.session_id}
            if self.legacy_version:
                headers["MCP-Protocol-Version"] = self.legacy_version
            with contextlib.suppress(TransportError):  # gone or expired: nothing to end
                self._exchange("DELETE", None, headers)
            self.session_id = None
        self._drop()
        return None

    def __enter__(self) -> HttpConnection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _meta_version(params: Any) -> str | None:
    meta = params.get("_meta") if isinstance(params, Mapping) else None
    version = meta.get(PROTOCOL_VERSION_KEY) if isinstance(meta, Mapping) else None
    return version if isinstance(version, str) else None


def _key(request_id: Any) -> str:
    return json.dumps(request_id)


def _reason(status: int) -> str:
    return http.client.responses.get(status, "")


def _sse_messages(body: bytes) -> list[Any]:
    """The JSON messages of a ``text/event-stream`` body (``data:`` lines joined per event)."""
    messages: list[Any] = []
    data: list[str] = []
    for raw in [*body.decode("utf-8", "replace").splitlines(), ""]:
        if not raw:
            if data:
                with contextlib.suppress(ValueError):
                    messages.append(json.loads("\n".join(data)))
                data = []
        elif raw.startswith("data:"):
            data.append(raw[5:].removeprefix(" "))
    return messages

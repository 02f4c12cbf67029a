"""Running the HTTP transport: uvicorn in front of :class:`~.http.App`, one or more workers.

Imported only for ``skillpack serve --http`` (it imports uvicorn, from the ``http``
extra: the command line loads it with :func:`.uvicorn_core.load` first, which leaves
uvicorn's own command line out). What uvicorn does not bound itself is bounded here,
in a thin subclass of its HTTP protocol:

* the time from a connection's (or a request's) first byte to the end of its headers
  (408 and close: a client that never finishes its headers holds no slot for long);
* the bytes of a request's headers (431 and close);
* the number of open connections (503 and close for the ones over the limit).

Idle keep-alive connections are closed by uvicorn (``timeout_keep_alive``), bodies are
bounded in time and size by the app. The listening socket is bound here, before any
worker starts, so that port 0 is resolved once and the address printed is the one
served; workers are forked from the process that loaded the sources (they share its
memory until they write to it) and restarted if one dies. SIGTERM stops accepting,
answers what is in flight (up to the grace period) and exits 0.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
import ssl
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType
from typing import Any

from uvicorn.config import Config
from uvicorn.protocols.http.auto import AutoHTTPProtocol
from uvicorn.server import Server

from skillpack.errors import EXIT_FINDINGS, SkillpackError, UsageError
from skillpack.server.jsonrpc import INVALID_REQUEST, RpcError, error_response
from skillpack.server.transports import http_defaults as defaults
from skillpack.server.transports.http import AccessLog, App, Reply


def _raw_refusal(status: bytes, message: str, extra: bytes = b"") -> bytes:
    """A whole response written before (or instead of) the app: a JSON-RPC error without
    id, like every refusal the app makes, and the connection closed."""
    body = error_response(None, RpcError(INVALID_REQUEST, message))
    return (
        b"HTTP/1.1 " + status + b"\r\ncontent-type: application/json\r\n" + extra
        + b"content-length: %d\r\nconnection: close\r\n\r\n" % len(body)
        + body
    )  # fmt: skip


_400 = _raw_refusal(b"400 Bad Request", "Bad Request: not an HTTP/1.1 request this server reads")
_408 = _raw_refusal(b"408 Request Timeout", "Request Timeout: the request headers did not arrive")
_431 = _raw_refusal(
    b"431 Request Header Fields Too Large", "Request Header Fields Too Large: at most 32 KiB"
)
_503 = _raw_refusal(
    b"503 Service Unavailable",
    "Service Unavailable: too many connections; try again",
    b"retry-after: 1\r\n",
)


@dataclass(frozen=True)
class Limits:
    header_timeout: float = defaults.HEADER_TIMEOUT_S
    max_header_bytes: int = defaults.MAX_HEADER_BYTES
    max_connections: int = defaults.MAX_CONNECTIONS
    keepalive_timeout: float = defaults.KEEPALIVE_TIMEOUT_S
    grace: float = defaults.GRACE_S


#: Pending writes past this size leave at once (a streamed file is not held whole).
COALESCE_BYTES = 64 * 1024


class _Coalescing:
    """The connection's transport, with the writes made in one step of the event loop
    sent together: uvicorn writes a response's head and its body separately, and one
    send instead of two is a good part of a small response's cost. Everything else is
    the transport's own."""

    __slots__ = ("_loop", "_pending", "_size", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._pending: list[bytes] | None = None
        self._size = 0

    def write(self, data: bytes) -> None:
        if self._pending is None:
            if len(data) >= COALESCE_BYTES:
                self._transport.write(data)
                return
            self._pending = [data]
            self._size = len(data)
            self._loop.call_soon(self._flush)
            return
        self._pending.append(data)
        self._size += len(data)
        if self._size >= COALESCE_BYTES:
            self._flush()

    def _flush(self) -> None:
        pending, self._pending = self._pending, None
        if pending:
            self._transport.write(pending[0] if len(pending) == 1 else b"".join(pending))

    def close(self) -> None:
        self._flush()
        self._transport.close()

    def is_closing(self) -> bool:  # asked after every response: not through __getattr__
        return self._transport.is_closing()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class _LateHeaders:
    """One timer for every connection of a worker instead of one per request: every
    ``interval`` seconds, while there are connections, each whose request headers are
    past their deadline is answered 408 and closed (so a deadline is kept to within
    ``interval``). A timer made and cancelled per request is a measurable part of a
    small request's cost."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self.handle: asyncio.TimerHandle | None = None

    def watch(self, loop: asyncio.AbstractEventLoop, connections: set[Any]) -> None:
        if self.handle is None:
            self.handle = loop.call_later(self.interval, self._sweep, loop, connections)

    def _sweep(self, loop: asyncio.AbstractEventLoop, connections: set[Any]) -> None:
        self.handle = None
        now = loop.time()
        for connection in list(connections):
            deadline = getattr(connection, "_hdr_deadline", 0.0)
            if deadline and now >= deadline:
                connection._headers_late()
        if connections:
            self.watch(loop, connections)


def guarded_protocol(limits: Limits, access_log: AccessLog | None = None) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol (httptools where installed, else h11) with the header
    time and size limits and the connection limit. What is refused before the app sees
    a request (over those limits, or by the parser: a ``CONNECT``, a malformed request
    line) gets one ``access_log`` line, as the app's requests do."""
    base: Any = AutoHTTPProtocol
    late = _LateHeaders(min(1.0, max(0.05, limits.header_timeout / 10)))

    class Guarded(base):  # type: ignore[misc]
        _hdr_deadline = 0.0  #: when the headers being read are late (0: none are awaited)
        _hdr_cycle: object = None
        _hdr_bytes = 0
        _hdr_tail = b""
        _hdr_first = b""  #: the first bytes of the request being read (for the log)
        _hdr_start = 0.0

        def connection_made(self, transport: asyncio.Transport) -> None:
            super().connection_made(_Coalescing(transport, self.loop))
            if len(self.connections) > limits.max_connections:
                transport.write(_503)
                transport.close()
                self._refused(503, _503)
                return
            self._arm(b"")
            late.watch(self.loop, self.connections)

        def _arm(self, first: bytes) -> None:
            self._hdr_cycle = self.cycle
            self._hdr_bytes = 0
            self._hdr_tail = b""
            self._hdr_first = first
            self._hdr_start = now = self.loop.time()
            self._hdr_deadline = now + limits.header_timeout

        def _disarm(self) -> None:
            self._hdr_deadline = 0.0

        def _headers_late(self) -> None:
            self._hdr_deadline = 0.0
            if self.cycle is self._hdr_cycle and not self.transport.is_closing():
                self.transport.write(_408)
                self.transport.close()
                self._refused(408, _408)

        def _refused(self, status: int, response: bytes) -> None:
            if access_log is None:
                return
            method = self._hdr_first.partition(b" ")[0]
            if not (0 < len(method) <= 16 and method.isalpha()):
                method = b"-"  # nothing arrived, or not a request line
            size = len(response) - response.find(b"\r\n\r\n") - 4
            seconds = self.loop.time() - self._hdr_start if self._hdr_start else 0.0
            access_log.record(self.client, method.decode(), "-", Reply(status), size, seconds)

        def send_400_response(self, msg: str) -> None:
            # uvicorn's answer to a request its parser refuses (its text/plain body made
            # a JSON-RPC error, as every refusal is); the warning uvicorn logs with it
            # is dropped (_QuietParser), so the access log line is the request's record
            self._disarm()
            if not self.transport.is_closing():
                self.transport.write(_400)
                self.transport.close()
            self._refused(400, _400)

        def data_received(self, data: bytes) -> None:
            if not self._hdr_deadline and (
                self.cycle is None or getattr(self.cycle, "response_complete", True)
            ):  # the first bytes of a new request
                end = data.find(b"\r\n\r\n")
                if 0 <= end <= limits.max_header_bytes - 4:
                    # its headers came whole and within the limit (the usual case):
                    # nothing to time or count, unless the parser did not end them there
                    cycle = self.cycle
                    self._hdr_first = data
                    self._hdr_start = self.loop.time()
                    super().data_received(data)
                    if self.cycle is cycle and not self.transport.is_closing():
                        self._arm(data)
                        self._hdr_bytes = len(data)
                    return
                self._arm(data)
            waiting = bool(self._hdr_deadline)
            if waiting:
                if not self._hdr_first:
                    self._hdr_first = data
                # the size of the headers so far: up to the blank line that ends them
                tail = self._hdr_tail
                window = tail + data if tail else data
                end = window.find(b"\r\n\r\n")
                grown = len(data) if end == -1 else end + 4 - len(tail)
                if self._hdr_bytes + grown > limits.max_header_bytes:
                    self._disarm()
                    if not self.transport.is_closing():
                        self.transport.write(_431)
                        self.transport.close()
                        self._refused(431, _431)
                    return
                self._hdr_bytes += len(data)
                self._hdr_tail = window[-3:]
            super().data_received(data)
            if waiting and self.cycle is not self._hdr_cycle:
                self._disarm()  # its headers are complete

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    Guarded.__name__ = Guarded.__qualname__ = f"Guarded{base.__name__}"
    return Guarded


def bind(host: str, port: int, backlog: int = 2048) -> socket.socket:
    """The listening socket (IPv6 when ``host`` is an IPv6 literal)."""
    bare = host.strip("[]")
    try:
        infos = socket.getaddrinfo(bare, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise UsageError("SRV022", f"--http: cannot resolve {bare!r}: {exc.strerror}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind(address)
        sock.listen(backlog)
    except OSError as exc:
        sock.close()
        raise UsageError(
            "SRV022",
            f"--http: cannot listen on {host}:{port}: {exc.strerror}",
            hint="choose another port (0 picks a free one) or stop what is using it",
        ) from None
    sock.set_inheritable(True)
    return sock


class _QuietParser(logging.Filter):
    """Drops the warnings uvicorn writes for requests any client can send at will: an
    ``Upgrade`` (with advice to install a WebSocket library, which is wrong here: no
    protocol is switched to, by design) and a request its parser refuses. Each such
    request is in the access log instead, like every other."""

    DROPPED = (
        "Unsupported upgrade request.",
        "No supported WebSocket library detected.",
        "Invalid HTTP request received.",
    )

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.msg
        return not (isinstance(message, str) and message.startswith(self.DROPPED))


def _logging(quiet: bool) -> None:
    """uvicorn's own messages (warnings and errors) on stderr, prefixed like ours."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("skillpack serve: %(message)s"))
    for name in ("uvicorn", "uvicorn.error"):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler] if name == "uvicorn" else []
        logger.setLevel(logging.ERROR if quiet else logging.WARNING)
        logger.propagate = name != "uvicorn"
    error = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, _QuietParser) for f in error.filters):
        error.addFilter(_QuietParser())


def make_config(
    app: App,
    limits: Limits,
    *,
    certfile: str | None = None,
    keyfile: str | None = None,
    quiet: bool = False,
) -> Config:
    _logging(quiet)
    config = Config(
        app,
        http=guarded_protocol(limits, app.access_log),
        ws="none",
        lifespan="off",
        interface="asgi3",
        log_config=None,
        access_log=False,
        proxy_headers=False,
        server_header=False,
        timeout_keep_alive=max(1, round(limits.keepalive_timeout)),
        timeout_graceful_shutdown=max(1, round(limits.grace)),
        h11_max_incomplete_event_size=limits.max_header_bytes,
        ssl_certfile=certfile,
        ssl_keyfile=keyfile,
    )
    try:
        config.load()
    except (ssl.SSLError, OSError) as exc:
        raise UsageError(
            "SRV023",
            f"--certfile/--keyfile: cannot load the certificate and key: {exc}",
            hint="give a PEM certificate (chain) and its unencrypted PEM private key",
        ) from None
    return config


def run(
    config: Config,
    sock: socket.socket,
    workers: int,
    log: Callable[[str], None],
) -> int:
    """Serve until SIGTERM (or SIGINT); the exit code."""
    if workers == 1:
        Server(config).run(sockets=[sock])
        return 0
    return _Supervisor(config, sock, workers, log).run()


class _Supervisor:
    """Forks ``workers`` servers on one listening socket; restarts one that dies; on
    SIGTERM or SIGINT passes SIGTERM on and waits for every worker's graceful exit."""

    #: more restarts than this within a minute means the workers cannot run
    MAX_RESTARTS_PER_MINUTE = 10

    def __init__(
        self, config: Config, sock: socket.socket, workers: int, log: Callable[[str], None]
    ) -> None:
        self.config = config
        self.sock = sock
        self.workers = workers
        self.log = log
        self.children: dict[int, int] = {}  # pid -> worker number
        self.stopping = 0  # the signal that asked us to stop
        self.restarts: list[float] = []

    def _spawn(self, number: int) -> None:
        if self.stopping:
            return
        # A stop signal arriving while forking waits until the new worker is known here
        # (then it is passed on) and until the worker's own handlers are in place.
        stops = {signal.SIGTERM, signal.SIGINT}
        signal.pthread_sigmask(signal.SIG_BLOCK, stops)
        try:
            pid = os.fork()
            if pid == 0:  # the worker
                code = 0
                try:
                    signal.signal(signal.SIGINT, signal.SIG_DFL)
                    signal.signal(signal.SIGTERM, signal.SIG_DFL)
                    signal.pthread_sigmask(signal.SIG_UNBLOCK, stops)
                    Server(self.config).run(sockets=[self.sock])
                except BaseException:  # a worker never returns into the parent's code
                    code = 1
                finally:
                    os._exit(code)
            self.children[pid] = number
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, stops)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.stopping = signum
        for pid in list(self.children):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)

    def run(self) -> int:
        previous = {
            sig: signal.signal(sig, self._on_signal) for sig in (signal.SIGTERM, signal.SIGINT)
        }
        try:
            for number in range(self.workers):
                self._spawn(number)
            failed = False
            while self.children:
                try:
                    pid, status = os.wait()
                except ChildProcessError:
                    break
                except InterruptedError:
                    continue
                if pid not in self.children:
                    continue
                number = self.children.pop(pid)
                if self.stopping:
                    continue
                code = os.waitstatus_to_exitcode(status)
                now = time.monotonic()
                self.restarts = [t for t in self.restarts if now - t < 60] + [now]
                if len(self.restarts) > self.MAX_RESTARTS_PER_MINUTE:
                    self.log(f"worker {number} exited ({code}) too often; stopping")
                    failed = True
                    self._on_signal(signal.SIGTERM, None)
                    continue
                self.log(f"worker {number} exited ({code}); starting it again")
                self._spawn(number)
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        if failed:
            raise SkillpackError(
                "SRV024", "the HTTP workers keep exiting; not serving", exit_code=EXIT_FINDINGS
            )
        if self.stopping == signal.SIGINT:
            raise KeyboardInterrupt
        return 0

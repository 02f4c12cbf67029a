"""A newline-delimited JSON-RPC connection to an MCP server spawned over stdio.

Standard library only. A reader thread collects responses by id, so requests may be
answered in any order; stderr is drained into a bounded buffer so a chatty server can
never block on a full pipe.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import subprocess
import threading
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from skillpack.errors import EXIT_FINDINGS, SkillpackError

DEFAULT_TIMEOUT = 30.0
#: protocol problems a connection keeps (a server printing garbage in a loop is
#: counted, not stored without bound)
MAX_PROTOCOL_ERRORS = 50


class RpcError(Exception):
    """A JSON-RPC error response: its ``code``, ``message`` and ``data``; ``method`` is
    the request's method when the session knows it.

    A plain exception (not a frozen dataclass: Python sets ``__traceback__`` and
    ``__context__`` on every exception it raises). A command that meets one reports it
    as :meth:`refusal`, a coded error (``CLI003``)."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(code, message, data)
        self.code = code
        self.message = message
        self.data = data
        self.method: str | None = None

    def __str__(self) -> str:
        return f"{self.code} {self.message}"

    def refusal(self) -> SkillpackError:
        """This error as a command's coded refusal (``CLI003``, exit 1)."""
        what = f"{self.method}: " if self.method else ""
        return SkillpackError(
            "CLI003",
            f"{what}the server answered with error {self.code}: {self.message}",
            exit_code=EXIT_FINDINGS,
        )


class MalformedReply(RpcError):
    """A reply that is not a JSON-RPC result or error object (a result that is not an
    object, an error without an integer code): the server broke the protocol."""

    def __init__(self, message: str) -> None:
        super().__init__(-32603, message)
        self.args = (message,)  # what __init__ takes: copies and pickles stay whole

    def __str__(self) -> str:
        return f"{self.method}: {self.message}" if self.method else self.message

    def refusal(self) -> SkillpackError:
        what = f" to {self.method}" if self.method else ""
        return SkillpackError(
            "CLI003",
            f"the server's reply{what} is not a JSON-RPC response: {self.message}",
            exit_code=EXIT_FINDINGS,
        )


class TransportError(SkillpackError):
    """The server process could not be spawned, died, or did not answer in time.

    ``stdout``: what the server wrote instead of JSON-RPC messages (shown first)."""

    def __init__(
        self,
        message: str,
        stderr: str = "",
        *,
        timed_out: bool = False,
        stdout: Sequence[str] = (),
    ) -> None:
        details = [f"server stdout: {problem}" for problem in stdout[:3]]
        details += [f"server stderr: {line}" for line in stderr.strip().splitlines()[-5:]]
        super().__init__("CLI001", message, exit_code=EXIT_FINDINGS, details=details)
        self.timed_out = timed_out


class Connection(Protocol):
    """What a session needs of a connection: :class:`StdioConnection`, or
    :class:`~skillpack.client.http_transport.HttpConnection` for Streamable HTTP."""

    timeout: float
    notifications: list[dict[str, Any]]
    protocol_errors: list[str]
    protocol_error_count: int

    @property
    def stderr(self) -> str: ...

    def send_raw(self, data: bytes) -> None: ...

    def send(self, message: Mapping[str, Any]) -> None: ...

    def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None: ...

    def next_id(self) -> int: ...

    def wait_response(self, request_id: Any, timeout: float | None = None) -> dict[str, Any]: ...

    def wait_unmatched(self, timeout: float) -> dict[str, Any] | None: ...

    def call_raw(
        self, method: str, params: Mapping[str, Any] | None, timeout: float | None = None
    ) -> dict[str, Any]: ...

    def close(self) -> int | None: ...


class StdioConnection:
    """Spawn ``argv`` and exchange JSON-RPC messages with it, one per line."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        if not argv:
            raise TransportError("no server command given (put it after '--')")
        self.argv = list(argv)
        self.timeout = timeout
        try:
            self._proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=dict(env) if env is not None else None,
                cwd=cwd,
            )
        except OSError as exc:
            raise TransportError(f"cannot start server '{self.argv[0]}': {exc.strerror}") from None
        self._ids = itertools.count(1)
        self._cond = threading.Condition()
        self._responses: dict[Any, dict[str, Any]] = {}
        self._unmatched: list[dict[str, Any]] = []
        self.notifications: list[dict[str, Any]] = []
        #: non-JSON lines on stdout, messages that are not JSON-RPC, etc. (the first
        #: :data:`MAX_PROTOCOL_ERRORS`; ``protocol_error_count`` counts them all)
        self.protocol_errors: list[str] = []
        self.protocol_error_count = 0
        self._stderr: deque[str] = deque(maxlen=200)
        self._eof = False
        self._write_lock = threading.Lock()
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    # -- reading -------------------------------------------------------------------
    def _read_stdout(self) -> None:
        assert self._proc.stdout is not None
        for raw in self._proc.stdout:
            line = raw.strip()
            if not line:
                continue
            try:
                message = json.loads(line)
            except ValueError:
                with self._cond:
                    self._problem(
                        f"non-JSON line on stdout: {line[:120].decode('utf-8', 'replace')!r}"
                    )
                    self._cond.notify_all()
                continue
            with self._cond:
                if isinstance(message, dict) and message.get("jsonrpc") != "2.0":
                    self._problem(f"not a JSON-RPC 2.0 message: {str(message)[:120]}")
                if isinstance(message, dict) and "method" in message and "id" not in message:
                    self.notifications.append(message)
                elif isinstance(message, dict) and ("result" in message or "error" in message):
                    key = message.get("id")
                    if key is None:
                        self._unmatched.append(message)
                    else:
                        self._responses[_key(key)] = message
                elif isinstance(message, dict) and "method" in message:
                    self._problem(
                        f"server sent a request ({message.get('method')!r}); servers must not"
                    )
                elif not isinstance(message, dict) or message.get("jsonrpc") == "2.0":
                    self._problem(f"unexpected message: {str(message)[:120]}")
                self._cond.notify_all()
        with self._cond:
            self._eof = True
            self._cond.notify_all()

    def _problem(self, text: str) -> None:
        self.protocol_error_count += 1
        if len(self.protocol_errors) < MAX_PROTOCOL_ERRORS:
            self.protocol_errors.append(text)

    def _read_stderr(self) -> None:
        assert self._proc.stderr is not None
        for raw in self._proc.stderr:
            self._stderr.append(raw.decode("utf-8", "replace").rstrip("\n"))

    @property
    def stderr(self) -> str:
        return "\n".join(self._stderr)

    # -- writing -------------------------------------------------------------------
    def send_raw(self, data: bytes) -> None:
        """Write raw bytes (a line must end with ``\\n``)."""
        assert self._proc.stdin is not None
        try:
            with self._write_lock:
                self._proc.stdin.write(data)
                self._proc.stdin.flush()
        except (BrokenPipeError, ValueError):
            raise TransportError("the server closed its input", self.stderr) from None

    def send(self, message: Mapping[str, Any]) -> None:
        self.send_raw(json.dumps(message, separators=(",", ":")).encode() + b"\n")

    def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = dict(params)
        self.send(message)

    def next_id(self) -> int:
        return next(self._ids)

    def wait_response(self, request_id: Any, timeout: float | None = None) -> dict[str, Any]:
        """The response with ``request_id``; TransportError on timeout or server exit."""
        deadline = timeout if timeout is not None else self.timeout
        key = _key(request_id)
        with self._cond:
            if not self._cond.wait_for(lambda: key in self._responses or self._eof, deadline):
                raise TransportError(
                    f"no response to request {request_id!r} within {deadline:g} s",
                    self.stderr,
                    timed_out=True,
                    stdout=self.protocol_errors,
                )
            if key not in self._responses:
                raise TransportError(
                    f"the server exited before answering request {request_id!r}",
                    self.stderr,
                    stdout=self.protocol_errors,
                )
            return self._responses.pop(key)

    def wait_unmatched(self, timeout: float) -> dict[str, Any] | None:
        """An error response with ``id: null`` (answers to unparseable lines)."""
        with self._cond:
            self._cond.wait_for(lambda: bool(self._unmatched) or self._eof, timeout)
            return self._unmatched.pop(0) if self._unmatched else None

    def call_raw(
        self, method: str, params: Mapping[str, Any] | None, timeout: float | None = None
    ) -> dict[str, Any]:
        """Send a request and return the whole response message."""
        request_id = self.next_id()
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = dict(params)
        self.send(message)
        return self.wait_response(request_id, timeout)

    # -- lifetime ------------------------------------------------------------------
    def close(self) -> int | None:
        """Close stdin, wait, then escalate (SIGTERM, SIGKILL), as MCP's stdio rules say;
        each step waits up to 3 s (a tenth of a shorter response timeout, at least 0.5 s)."""
        if self._proc.stdin is not None:
            with contextlib.suppress(OSError):
                self._proc.stdin.close()
        grace = min(3.0, max(0.5, self.timeout / 10))
        for action in (None, self._proc.terminate, self._proc.kill):
            if action is not None:
                action()
            try:
                return self._proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                continue
        return None

    def __enter__(self) -> StdioConnection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _key(request_id: Any) -> str:
    return json.dumps(request_id)

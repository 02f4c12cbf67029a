"""Fixtures for ``skillpack serve --http``: a real server subprocess on 127.0.0.1:0 (its
address read from stderr), plain HTTP requests with :mod:`http.client`, the example
bundle, and the official conformance harness (installed by harness/install.sh).

Every request goes to the loopback address the server printed; nothing here sends
traffic anywhere else.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import EXAMPLES, REPO, cli_env, run_cli

HARNESS = REPO / "tests" / "http" / "harness"
VERSION = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "skillpack-tests", "version": "0"},
}
LISTENING = re.compile(r"listening on (https?)://(\S+?):(\d+)(/\S*)")
START_TIMEOUT_S = 60.0


@dataclass
class Response:
    status: int
    headers: dict[str, str]  #: lower-cased names
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class HttpServer:
    """A ``python -m skillpack serve --http ...`` subprocess."""

    proc: subprocess.Popen[bytes]
    scheme: str
    host: str
    port: int
    path: str
    lines: list[str] = field(default_factory=list)  #: stderr, line by line

    @property
    def url(self) -> str:
        return f"{self.scheme}://{self.host}:{self.port}{self.path}"

    def stderr(self) -> str:
        return "\n".join(self.lines)

    def connect(self, timeout: float = 30.0) -> http.client.HTTPConnection:
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def request(
        self,
        method: str = "POST",
        body: bytes | Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        *,
        path: str | None = None,
        conn: http.client.HTTPConnection | None = None,
    ) -> Response:
        """One request (on ``conn``, kept open, or on a new connection)."""
        data = json.dumps(body).encode() if isinstance(body, Mapping) else body
        own = conn is None
        connection = conn or self.connect()
        try:
            connection.request(method, path or self.path, body=data, headers=dict(headers or {}))
            reply = connection.getresponse()
            return Response(
                reply.status, {k.lower(): v for k, v in reply.getheaders()}, reply.read()
            )
        finally:
            if own:
                connection.close()

    def modern(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        request_id: int | str = 1,
        headers: Mapping[str, str] | None = None,
        conn: http.client.HTTPConnection | None = None,
    ) -> Response:
        """A 2026-07-28 request with the headers a correct client sends."""
        body = {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": method,
            "params": {**(params or {}), "_meta": META},
        }
        return self.request(
            "POST", body, {**modern_headers(method, params), **(headers or {})}, conn=conn
        )

    def wait_for(self, pattern: str, timeout: float = 10.0) -> str:
        """The first stderr line matching ``pattern`` (waiting for it to be written)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in list(self.lines):
                if re.search(pattern, line):
                    return line
            time.sleep(0.02)
        raise AssertionError(f"no stderr line matches {pattern!r}:\n{self.stderr()}")

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30.0) -> int:
        """Send ``sig`` (SIGTERM: graceful) and return the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"the server did not exit on signal {sig}") from None


def modern_headers(method: str, params: Mapping[str, Any] | None = None) -> dict[str, str]:
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": VERSION,
        "Mcp-Method": method,
    }
    key = {"resources/read": "uri", "tools/call": "name", "prompts/get": "name"}.get(method)
    name = (params or {}).get(key) if key else None
    if isinstance(name, str):
        headers["Mcp-Name"] = name
    return headers


def _drain(proc: subprocess.Popen[bytes], lines: list[str]) -> None:
    assert proc.stderr is not None
    for raw in proc.stderr:
        lines.append(raw.decode("utf-8", "replace").rstrip("\n"))


def start_server(
    *args: str | os.PathLike[str],
    env: Mapping[str, str] | None = None,
    address: str = "127.0.0.1:0",
) -> HttpServer:
    """Start ``skillpack serve --http ADDRESS ARGS`` and wait for its listening line."""
    command = [sys.executable, "-m", "skillpack", "serve", "--http", address, *map(str, args)]
    proc = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=cli_env(env),
    )
    lines: list[str] = []
    threading.Thread(target=_drain, args=(proc, lines), daemon=True).start()
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        for line in list(lines):
            match = LISTENING.search(line)
            if match:
                scheme, host, port, path = match.groups()
                return HttpServer(proc, scheme, host, int(port), path, lines)
        if proc.poll() is not None:
            time.sleep(0.1)  # let the reader thread collect the last lines
            raise AssertionError(f"the server exited ({proc.returncode}):\n" + "\n".join(lines))
        time.sleep(0.01)
    proc.kill()
    raise AssertionError("the server printed no listening address:\n" + "\n".join(lines))


@pytest.fixture(scope="session")
def examples_skp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The examples as a real bundle: what is served."""
    out = tmp_path_factory.mktemp("examples") / "acme-skills.skp"
    built = run_cli("build", EXAMPLES, "-o", out)
    assert built.returncode == 0, built.stderr
    return out


@pytest.fixture(scope="module")
def server(examples_skp: Path) -> Iterator[HttpServer]:
    """One server on the example bundle for a module's tests."""
    running = start_server(examples_skp)
    try:
        yield running
    finally:
        running.stop()


@dataclass(frozen=True)
class Harness:
    """The installed conformance harness and the node 22 that runs it."""

    script: Path
    node_bin: Path

    def run(self, url: str, scenario: str, out: Path, *extra: str) -> list[dict[str, Any]]:
        """Run one server scenario; its checks (from the results directory)."""
        env = dict(os.environ)
        env["PATH"] = str(self.node_bin) + os.pathsep + env.get("PATH", "")
        env["NO_COLOR"] = "1"
        proc = subprocess.run(
            [
                str(self.script),
                "server",
                "--url",
                url,
                "--scenario",
                scenario,
                "-o",
                str(out),
                *extra,
            ],
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
        )
        found = sorted(out.glob(f"server-{scenario}-*/checks.json"))
        assert found, f"{scenario}: no results (exit {proc.returncode}):\n{proc.stdout[-3000:]}"
        checks: list[dict[str, Any]] = json.loads(found[-1].read_text())
        return checks


@pytest.fixture(scope="session")
def harness() -> Harness:
    if shutil.which("npm") is None:
        pytest.skip("npm not found: the conformance harness cannot be installed")
    proc = subprocess.run(
        ["bash", str(HARNESS / "install.sh")], capture_output=True, text=True, timeout=900
    )
    script = HARNESS / "node_modules" / ".bin" / "conformance"
    node_bin = HARNESS / "node_modules" / "node" / "bin"
    # npm is here: an install that fails is a failure, not a reason to skip
    assert proc.returncode == 0 and script.exists(), f"install failed: {proc.stderr[-3000:]}"
    version = subprocess.run(
        [str(node_bin / "node"), "--version"], capture_output=True, text=True, check=True
    ).stdout
    assert version.startswith("v22."), version
    return Harness(script, node_bin)


def session_headers(session_id: str, version: str = "2025-11-25") -> dict[str, str]:
    return {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "Mcp-Session-Id": session_id,
        "MCP-Protocol-Version": version,
    }


def initialize(server: HttpServer, version: str = "2025-11-25") -> tuple[str, dict[str, Any]]:
    """A legacy initialize; (session id, result)."""
    response = server.request(
        "POST",
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "skillpack-tests", "version": "0"},
            },
        },
        {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"},
    )
    assert response.status == 200, (response.status, response.body)
    session = response.headers["mcp-session-id"]
    return session, response.json()["result"]


def rpc(
    method: str, params: Mapping[str, Any] | None = None, request_id: int = 1
) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = dict(params)
    return message


def words(lines: Sequence[str]) -> str:
    return "\n".join(lines)
